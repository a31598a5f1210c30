/**
 * Webhook activities: fan an appended event out to the endpoints that want it (one delivery workflow each), make
 * one signed delivery attempt, and settle a message. Only this module sends webhooks.
 *
 * Delivery workflows are started and nudged through the `deliveries` port (the worker wires src/temporal/webhooks.ts
 * `DeliveryWorkflows` on its own connection and task queue), so activities never import the Temporal client layer.
 *
 * Source: issue 5 §2; ../shared/reference/api-conventions.md (Standard Webhooks).
 */
import type { EventDoc, OrderDoc, WebhookMessageDoc } from '../src/db';
import { eventMatches } from '../src/domain/events';
import type { OrderRepository } from '../src/repos/orders';
import { type WebhookRepository, activeSecrets, messageId } from '../src/repos/webhooks';
import { buildPayload } from '../src/webhooks/payload';
import { sendWebhook } from '../src/webhooks/send';
import { signatureHeader } from '../src/webhooks/signing';
import { whileHeartbeating } from './heartbeat';

/**
 * What a delivery workflow carries: workflows/webhooks.ts `DeliveryInput`, restated here so this module does not
 * import workflow code (the workflow imports this module's types; the compiler checks both directions where the
 * worker wires the port and where the workflow calls the activities).
 */
export interface DeliveryInput {
  messageId: string;
  eventId: string;
  endpointId: string;
  /** Null for events that belong to no order (no ordering then). */
  orderId: string | null;
  seq: number;
  /** 0 for the original delivery, n for the n-th manual retry. */
  run: number;
}

/** Starting and nudging delivery workflows (src/temporal/webhooks.ts `DeliveryWorkflows` implements it). */
export interface DeliveryStarter {
  /** Starts the delivery workflow of a message; idempotent (a retried fan-out starts nothing twice). */
  start(input: DeliveryInput): Promise<void>;
  /** Tells the original delivery of `eventId` to `endpointId` that its predecessor settled; a no-op when it is not running. */
  predecessorSettled(eventId: string, endpointId: string): Promise<void>;
}

/** What the webhook activities need. `allowPrivateTargets` is DEV_MODE (SSRF guard off). */
export interface WebhookPorts {
  webhooks: WebhookRepository;
  orders: OrderRepository;
  /** Delivery workflows on the worker's task queue. */
  deliveries: DeliveryStarter;
  publicBaseUrl: string;
  allowPrivateTargets: boolean;
}

/** Outcome of one attempt as the workflow sees it. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'failed'; status: number | null; retryInMs: number | null }
  | { kind: 'stop'; reason: string };

/** An appended event and the order as it was right after it (absent: read from the database). */
export interface FanOutItem {
  event: EventDoc;
  order?: OrderDoc;
}

/**
 * The fan-out port of the order activities: after an event is appended, creates one message per matching endpoint
 * (the body fixed now, with the order as it is right after the transition) and starts its delivery workflow.
 * `fanOutAll` does the same for consecutive events of one stream, in order, looking the endpoints up once.
 */
export function createWebhookFanOut(ports: WebhookPorts): {
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
      const payload = JSON.stringify(buildPayload(event, asOf ?? order, ports.publicBaseUrl));
      for (const endpoint of endpoints) {
        const now = new Date();
        const message: WebhookMessageDoc = await ports.webhooks.ensureMessage({
          _id: messageId(event._id, endpoint._id),
          event_id: event._id,
          endpoint_id: endpoint._id,
          order_id: event.order_id,
          seq: event.seq,
          type: event.type,
          payload,
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

/** Builds the activities of {@link webhookDeliveryWorkflow} (workflows/webhooks.ts). */
export function createWebhookActivities(ports: WebhookPorts) {
  return {
    /** True while an earlier event of the same order is still pending for the same endpoint. */
    async hasPendingPredecessor(input: DeliveryInput): Promise<boolean> {
      if (input.orderId === null) return false;
      return (await ports.webhooks.pendingBefore(input.endpointId, input.orderId, input.seq)) !== null;
    },

    /**
     * One signed POST of the message to the endpoint's current URL; records the attempt in `webhook_deliveries`.
     * 2xx: delivered. 410: the endpoint is disabled and delivery stops. Otherwise the next attempt is due after
     * `nextDelayMs` or the receiver's Retry-After, whichever is later (null: the schedule is exhausted).
     */
    async attemptDelivery(
      input: DeliveryInput & { attempt: number; nextDelayMs: number | null },
    ): Promise<AttemptOutcome> {
      const [message, endpoint] = await Promise.all([
        ports.webhooks.message(input.messageId),
        ports.webhooks.get(input.endpointId),
      ]);
      if (!message) return { kind: 'stop', reason: 'message_missing' };
      if (!endpoint) return { kind: 'stop', reason: 'endpoint_deleted' };
      if (endpoint.status !== 'enabled') return { kind: 'stop', reason: 'endpoint_disabled' };
      const now = new Date();
      const timestamp = Math.floor(now.getTime() / 1000);
      const secrets = activeSecrets(endpoint, now).map((s) => s.secret);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'agent-commerce-webhooks/1.0',
        'webhook-id': message.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, message.event_id, timestamp, message.payload),
      };
      // Heartbeats while the receiver answers (up to 15 s): a worker that dies here is noticed in seconds.
      const res = await whileHeartbeating(() =>
        sendWebhook(endpoint.url, message.payload, headers, ports.allowPrivateTargets),
      );
      const ok = res.status !== null && res.status >= 200 && res.status < 300;
      const gone = res.status === 410;
      let retryInMs: number | null = null;
      if (!ok && !gone && !res.forbidden && input.nextDelayMs !== null)
        retryInMs = Math.max(input.nextDelayMs, res.retryAfterMs ?? 0);
      const error = res.error ?? (ok ? null : `HTTP ${res.status}`);
      await ports.webhooks.recordAttempt({
        _id: `${message._id}~${input.run}~${input.attempt}`,
        message_id: message._id,
        event_id: message.event_id,
        endpoint_id: endpoint._id,
        type: message.type,
        run: input.run,
        attempt: input.attempt,
        url: endpoint.url,
        status: ok ? 'delivered' : gone ? 'gone' : 'failed',
        response_code: res.status,
        latency_ms: res.latencyMs,
        error,
        next_retry_at: retryInMs === null ? null : new Date(Date.now() + retryInMs),
        at: now,
      });
      await ports.webhooks.setMessage(message._id, { attempts: message.attempts + 1, last_error: error });
      if (ok) return { kind: 'delivered', status: res.status ?? 200 };
      if (gone) {
        await ports.webhooks.disable(endpoint._id, 'the receiver answered 410 Gone');
        return { kind: 'stop', reason: 'gone' };
      }
      if (res.forbidden) return { kind: 'stop', reason: 'forbidden_target' };
      return { kind: 'failed', status: res.status, retryInMs };
    },

    /** Marks the message delivered or failed and nudges the next pending message of the same order and endpoint. */
    async settleMessage(input: DeliveryInput & { status: 'delivered' | 'failed'; reason?: string }): Promise<void> {
      await ports.webhooks.setMessage(input.messageId, {
        status: input.status,
        ...(input.reason ? { last_error: input.reason } : {}),
      });
      if (input.orderId === null) return;
      const next = await ports.webhooks.pendingAfter(input.endpointId, input.orderId, input.seq);
      if (!next) return;
      await ports.deliveries.predecessorSettled(next.event_id, next.endpoint_id);
    },
  };
}

/** The webhook activity interface the delivery workflow proxies (type only). */
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
