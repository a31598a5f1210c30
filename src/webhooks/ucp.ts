/**
 * UCP order events to a platform (issue 37 §2; UCP `shopping/order` "Order Event Webhook"): the body is the full
 * current-state order entity (`order.json`), the headers Standard Webhooks' `Webhook-Id` / `Webhook-Timestamp`, and
 * the request is signed per RFC 9421 with this business's profile keys (`Content-Digest`, `Signature-Input`,
 * `Signature`, `UCP-Agent: profile="<our /.well-known/ucp>"`). Delivered by the same durable delivery workflows as
 * every webhook (workflows/webhooks.ts).
 */
import type { EventDoc, OrderDoc, WebhookEndpointDoc } from '../db';
import { getService } from '../domain/catalogue';
import type { OrderStatus } from '../domain/order';
import { UCP_VERSION } from '../ucp/profiles';
import { signUcpMessage, type MessageSigner } from '../ucp/signatures';

const ORDER_CAP = 'dev.ucp.shopping.order';

/** UCP's line-item status of an order status: fulfilled once delivered, removed once it ended without goods. */
function lineStatus(status: OrderStatus): 'processing' | 'fulfilled' | 'removed' {
  if (status === 'delivered' || status === 'accepted') return 'fulfilled';
  if (['rejected', 'expired', 'failed', 'refunded', 'cancelled'].includes(status)) return 'removed';
  return 'processing';
}

/**
 * UCP's order entity of `order` right after `event` (its `data.status`), amounts in minor units (cents). Digital
 * services: one fulfillment event per status change, no expectations of shipping.
 */
export function ucpOrderEvent(
  event: EventDoc,
  order: OrderDoc,
  endpoint: Pick<WebhookEndpointDoc, 'ucp'>,
  publicBaseUrl: string,
): Record<string, unknown> {
  const status = (typeof event.data.status === 'string' ? event.data.status : order.status) as OrderStatus;
  return ucpOrderEntity(order, {
    status,
    checkoutId: endpoint.ucp?.checkout_session_id ?? '',
    eventId: `${event._id}`,
    occurredAt: event.created_at,
    publicBaseUrl,
  });
}

/**
 * UCP's order entity (`order.json`, a current-state snapshot) of `order` at `status`: the session it came from, one
 * line item in cents, and the fulfillment event `eventId` at `occurredAt`. The webhooks' body and Get Order's answer
 * (UCP `shopping/order`, "Operations").
 */
export function ucpOrderEntity(
  order: OrderDoc,
  at: { status: OrderStatus; checkoutId: string; eventId: string; occurredAt: Date; publicBaseUrl: string },
): Record<string, unknown> {
  const cents = Math.round(order.amount_micros / 10_000);
  const line = lineStatus(at.status);
  const total = line === 'removed' ? 0 : 1;
  const totals = [
    { type: 'subtotal', display_text: 'Subtotal', amount: cents },
    { type: 'total', display_text: 'Total', amount: cents },
  ];
  const lineId = `li_${order.service_id}`;
  return {
    ucp: { version: UCP_VERSION, status: 'success', capabilities: { [ORDER_CAP]: [{ version: UCP_VERSION }] } },
    id: order._id,
    checkout_id: at.checkoutId,
    permalink_url: `${at.publicBaseUrl}/api/v1/orders/${order._id}`,
    line_items: [
      {
        id: lineId,
        item: { id: order.service_id, title: getService(order.service_id)?.name ?? order.service_id, price: cents },
        quantity: { original: 1, total, fulfilled: line === 'fulfilled' ? 1 : 0 },
        totals,
        status: line,
      },
    ],
    fulfillment: {
      events: [
        {
          id: at.eventId,
          occurred_at: at.occurredAt.toISOString(),
          type: line === 'fulfilled' ? 'delivered' : line === 'removed' ? 'canceled' : 'processing',
          line_items: [{ id: lineId, quantity: 1 }],
        },
      ],
    },
    currency: 'USD',
    totals,
  };
}

/**
 * The headers of one UCP order event: Standard Webhooks' id and timestamp, `UCP-Agent` naming this business's
 * profile, and the RFC 9421 signature over the request (`@method`, `@authority`, `@path`, `ucp-agent`,
 * `content-digest`, `content-type`) with `signer` (a key of the profile's `keys`).
 */
export async function ucpWebhookHeaders(
  signer: MessageSigner,
  url: string,
  body: string,
  eventId: string,
  timestamp: number,
  publicBaseUrl: string,
): Promise<Record<string, string>> {
  const base: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'agent-commerce-webhooks/1.0',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'ucp-agent': `profile="${publicBaseUrl}/.well-known/ucp"`,
  };
  return { ...base, ...(await signUcpMessage(signer, { method: 'POST', url }, base, body)) };
}
