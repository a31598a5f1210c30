/**
 * Signed webhooks to the owner of an order's hosted surfaces (issue 38 §1, §2): one message per endpoint of the order
 * (its own `webhook_url`, and its agent's registered endpoints) that subscribed to the event type, delivered by the
 * webhook delivery workflow (Standard Webhooks). These events are not numbered in the order's stream: they wait for
 * none of the order's own messages. Used by the booking pages and the receptionist.
 */
import { eventMatches } from '../domain/events';
import { type WebhookRepository, messageId } from '../repos/webhooks';
import type { DeliveryStarter } from '../webhooks/fanOut';

/** What sending needs: the order's endpoints, the message store and the delivery starter. */
export interface OwnerWebhookPorts {
  webhooks: Pick<WebhookRepository, 'forOrder' | 'ensureMessage'>;
  deliveries: Pick<DeliveryStarter, 'start'>;
}

/** One owner event: `eventId` is stable, so a repeated call stores and delivers the same message once. */
export interface OwnerEvent {
  orderId: string;
  agentId: string | null;
  eventId: string;
  type: string;
  at: Date;
  data: Record<string, unknown>;
}

/**
 * Stores and starts the delivery of `event` to every endpoint of its order that subscribed to its type.
 * @returns how many endpoints it was sent to. @throws what the store or the starter throws (callers log it).
 */
export async function sendOwnerWebhook(ports: OwnerWebhookPorts, event: OwnerEvent): Promise<number> {
  const endpoints = (await ports.webhooks.forOrder(event.orderId, event.agentId)).filter((e) =>
    eventMatches(e.events, event.type),
  );
  const payload = JSON.stringify({
    type: event.type,
    timestamp: event.at.toISOString(),
    data: { event_id: event.eventId, ...event.data },
  });
  for (const endpoint of endpoints) {
    const now = new Date();
    const message = await ports.webhooks.ensureMessage({
      _id: messageId(event.eventId, endpoint._id),
      event_id: event.eventId,
      endpoint_id: endpoint._id,
      // Not an order event: no per-order ordering (null), so no wait on the order's own messages.
      order_id: null,
      seq: 0,
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
      eventId: event.eventId,
      endpointId: endpoint._id,
      orderId: null,
      seq: 0,
      run: 0,
    });
  }
  return endpoints.length;
}
