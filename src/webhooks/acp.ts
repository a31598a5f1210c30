/**
 * ACP order events to a platform (issue 37 §1; openapi.agentic_checkout_webhook.yaml): the body is ACP's
 * `WebhookEvent` `{type: order_create | order_update, data: Order}` with the full order (its one line item and
 * totals in cents), and the request is signed with `Merchant-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>" keyed with the platform's secret>`. Delivered by the same durable delivery workflows as every
 * webhook (workflows/webhooks.ts); only the body and the signature header differ.
 */
import { createHmac } from 'node:crypto';
import type { EventDoc, OrderDoc, WebhookEndpointDoc } from '../db';
import { getService } from '../domain/catalogue';
import { ORDER_EVENT_TYPES, type OrderStatus } from '../domain/order';

/** The order events a platform receives: the status changes (order.created is ACP's order_create). */
export const ACP_ORDER_EVENTS: readonly string[] = Object.values(ORDER_EVENT_TYPES);

/** ACP's order status of an order status (the values the spec defines). */
export function acpOrderStatus(status: OrderStatus): string {
  switch (status) {
    case 'awaiting_payment':
      return 'created';
    case 'paid':
      return 'confirmed';
    case 'fulfilling':
    case 'in_engineering':
    case 'sla_breached':
      return 'processing';
    case 'delivered':
    case 'accepted':
      return 'completed';
    case 'rejected':
    case 'expired':
    case 'failed':
    case 'refunded':
    case 'cancelled':
      return 'canceled';
  }
}

/** ACP's `Order` of `order` as it was right after `status` was entered. Amounts in cents. */
export function acpOrder(
  order: OrderDoc,
  status: OrderStatus,
  checkoutSessionId: string,
  publicBaseUrl: string,
): Record<string, unknown> {
  const cents = Math.round(order.amount_micros / 10_000);
  const delivered = status === 'delivered' || status === 'accepted';
  const gone = acpOrderStatus(status) === 'canceled';
  const refunded = order.refund ? Math.round(order.refund.amount_micros / 10_000) : 0;
  return {
    type: 'order',
    id: order._id,
    checkout_session_id: checkoutSessionId,
    permalink_url: `${publicBaseUrl}/api/v1/orders/${order._id}`,
    status: acpOrderStatus(status),
    line_items: [
      {
        id: `li_${order.service_id}`,
        title: getService(order.service_id)?.name ?? order.service_id,
        product_id: order.service_id,
        quantity: { ordered: 1, current: gone ? 0 : 1, fulfilled: delivered ? 1 : 0 },
        unit_price: cents,
        subtotal: cents,
      },
    ],
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: cents },
      { type: 'total', display_text: 'Total', amount: cents },
      ...(refunded > 0 ? [{ type: 'amount_refunded', display_text: 'Refunded', amount: refunded }] : []),
    ],
  };
}

/** The delivered body of `event` to an ACP endpoint: `{type, data}` (order_create for order.created). */
export function acpWebhookEvent(
  event: EventDoc,
  order: OrderDoc,
  endpoint: Pick<WebhookEndpointDoc, 'acp'>,
  publicBaseUrl: string,
): { type: string; data: Record<string, unknown> } {
  const status = (typeof event.data.status === 'string' ? event.data.status : order.status) as OrderStatus;
  return {
    type: event.type === 'order.created' ? 'order_create' : 'order_update',
    data: acpOrder(order, status, endpoint.acp?.checkout_session_id ?? '', publicBaseUrl),
  };
}

/** `Merchant-Signature` of `body` at `timestamp` (unix seconds) with the platform's `secret`. */
export function merchantSignature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
