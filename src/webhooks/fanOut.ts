/**
 * Webhook fan-out: after an order event is appended, one message per endpoint that wants it (its body fixed then) and
 * the start of its delivery workflow. Shared by the order activities and by order creation in the API (the
 * `order.created` event, issue 25 §4), so it lives in the application layer; delivery itself is the webhook
 * activities' (activities/webhooks.ts).
 *
 * Source: issue 5 §2; ../shared/reference/api-conventions.md (Standard Webhooks).
 */
import type { EventDoc, OrderDoc, WebhookMessageDoc } from '../db';
import { eventMatches, type DeliveryInput } from '../domain/events';
import type { OrderRepository } from '../repos/orders';
import { type WebhookRepository, messageId } from '../repos/webhooks';
import { acpWebhookEvent } from './acp';
import { ucpOrderEvent } from './ucp';
import { buildPayload } from './payload';

/** Starting and nudging delivery workflows (src/temporal/webhooks.ts `DeliveryWorkflows` implements it). */
export interface DeliveryStarter {
  /** Starts the delivery workflow of a message; idempotent (a retried fan-out starts nothing twice). */
  start(input: DeliveryInput): Promise<void>;
  /** Tells the original delivery of `eventId` to `endpointId` that its predecessor settled; a no-op when it is not running. */
  predecessorSettled(eventId: string, endpointId: string): Promise<void>;
}

/** What the fan-out needs: endpoints and messages, the order (read when the caller has not got it), deliveries. */
export interface FanOutPorts {
  webhooks: Pick<WebhookRepository, 'forOrder' | 'ensureMessage'>;
  orders: Pick<OrderRepository, 'get'>;
  /** Delivery workflows on the worker's task queue. */
  deliveries: DeliveryStarter;
  publicBaseUrl: string;
}

/** An appended event and the order as it was right after it (absent: read from the database). */
export interface FanOutItem {
  event: EventDoc;
  order?: OrderDoc;
}

/**
 * The fan-out port of every event emitter (order creation, the order activities): after an event is appended, creates
 * one message per matching endpoint (the body fixed now, with the order as it is right after the transition) and
 * starts its delivery workflow. `fanOutAll` does the same for consecutive events of one stream, in order, looking the
 * endpoints up once.
 */
export function createWebhookFanOut(ports: FanOutPorts): {
  fanOut(event: EventDoc, order?: OrderDoc): Promise<void>;
  fanOutAll(items: readonly FanOutItem[]): Promise<void>;
} {
  async function fanOutAll(items: readonly FanOutItem[]): Promise<void> {
    const first = items[0];
    if (!first) return;
    const known = items.find((i) => i.order)?.order;
    const order = known ?? (await ports.orders.get(first.event.order_id));
    // Streams that are not orders (a procurement) name their agent in the event data.
    const agentId = order
      ? order.agent_id
      : typeof first.event.data.agent_id === 'string'
        ? first.event.data.agent_id
        : null;
    const all = await ports.webhooks.forOrder(first.event.order_id, agentId);
    for (const { event, order: asOf } of items) {
      const endpoints = all.filter((e) => eventMatches(e.events, event.type));
      if (endpoints.length === 0) continue;
      const snapshot = asOf ?? order;
      const payload = JSON.stringify(buildPayload(event, snapshot, ports.publicBaseUrl));
      for (const endpoint of endpoints) {
        // An ACP platform's endpoint gets ACP's WebhookEvent of the order instead (src/webhooks/acp.ts).
        // A UCP platform's endpoint gets UCP's order entity (src/webhooks/ucp.ts).
        const body =
          endpoint.format === 'acp' && snapshot
            ? JSON.stringify(acpWebhookEvent(event, snapshot, endpoint, ports.publicBaseUrl))
            : endpoint.format === 'ucp' && snapshot
              ? JSON.stringify(ucpOrderEvent(event, snapshot, endpoint, ports.publicBaseUrl))
              : payload;
        const now = new Date();
        const message: WebhookMessageDoc = await ports.webhooks.ensureMessage({
          _id: messageId(event._id, endpoint._id),
          event_id: event._id,
          endpoint_id: endpoint._id,
          order_id: event.order_id,
          seq: event.seq,
          type: event.type,
          payload: body,
          status: 'pending',
          run: 0,
          attempts: 0,
          last_error: null,
          created_at: now,
          updated_at: now,
        });
        await ports.deliveries.start({
          messageId: message._id,
          eventId: event._id,
          endpointId: endpoint._id,
          orderId: event.order_id,
          seq: event.seq,
          run: 0,
        });
      }
    }
  }
  return {
    fanOut: (event, order) => fanOutAll([{ event, ...(order ? { order } : {}) }]),
    fanOutAll,
  };
}
