/**
 * The webhook event catalogue: every event type the service can emit, with dotted names, what emits it and
 * whether it is emitted today. Pure data, workflow-safe (no I/O); served at `GET /api/v1/webhooks/events`.
 *
 * Source: seed §6.1, §6.2 (names not shown there; this catalogue defines them), issue 5 §1,
 * ../shared/reference/api-conventions.md (Standard Webhooks: dotted types such as `order.paid`).
 */
import { ORDER_EVENT_TYPES, type OrderStatus } from './order/status';

/** One catalogued event type. `emitted` is false for types reserved for features still being built. */
export interface EventTypeInfo {
  type: string;
  group: 'order' | 'procurement' | 'subscription' | 'booking' | 'receptionist';
  description: string;
  /** The order status entered when the event fires (order events only). */
  status?: OrderStatus;
  emitted: boolean;
}

const ORDER_DESCRIPTIONS: Readonly<Record<OrderStatus, string>> = {
  awaiting_payment: 'An order was created and awaits payment.',
  paid: 'The payment was verified and captured.',
  fulfilling: 'Automated fulfillment started.',
  delivered: 'Deliverables are ready; the review window is open.',
  accepted: 'The buyer (or the lapsed review window) accepted the delivery.',
  rejected: 'The buyer rejected the delivery; the payment is refunded.',
  expired: 'The order was not paid before its payment deadline.',
  failed: 'Fulfillment failed after every retry; a refund follows.',
  refunded: 'The payment of a failed order was refunded.',
  in_engineering: 'An expert-delivery order got its blueprint and was assigned to the engineer queue.',
  sla_breached:
    'An expert-delivery order missed its fulfillment deadline; the buyer may cancel for a full refund or keep waiting.',
  cancelled: 'The buyer cancelled an order past its SLA; the payment is refunded.',
};

/** The catalogue, order events first (in lifecycle order), then reserved types. */
export const EVENT_CATALOGUE: readonly EventTypeInfo[] = Object.freeze([
  ...(Object.entries(ORDER_EVENT_TYPES) as [OrderStatus, string][]).map(([status, type]): EventTypeInfo => ({
    type,
    group: 'order',
    description: ORDER_DESCRIPTIONS[status],
    status,
    emitted: true,
  })),
  {
    type: 'order.sla_escalated',
    group: 'order',
    description: 'An expert-delivery order reached 80% of its fulfillment time and was escalated.',
    emitted: true,
  },
  {
    type: 'order.engineer_claimed',
    group: 'order',
    description: 'An engineer claimed an expert-delivery order.',
    emitted: true,
  },
  {
    type: 'order.deliverable_uploaded',
    group: 'order',
    description: 'The engineer uploaded a deliverable of an expert-delivery order.',
    emitted: true,
  },
  {
    type: 'order.task_delivered',
    group: 'order',
    description: 'A further task of a per-task order was charged and delivered.',
    emitted: true,
  },
  {
    type: 'order.task_failed',
    group: 'order',
    description: 'A further task of a per-task order failed (payment refused, or refunded after a production failure).',
    emitted: true,
  },
  {
    type: 'procurement.completed',
    group: 'procurement',
    description: 'A goal-based procurement chose a service and placed (and paid) its order.',
    emitted: true,
  },
  {
    type: 'subscription.created',
    group: 'subscription',
    description: 'A monthly subscription started (period 1 paid by the order).',
    emitted: true,
  },
  {
    type: 'subscription.renewed',
    group: 'subscription',
    description: 'A subscription period was charged and renewed.',
    emitted: true,
  },
  {
    type: 'subscription.invoice_issued',
    group: 'subscription',
    description: 'A renewal invoice was issued (rails other than agent_wallet).',
    emitted: true,
  },
  {
    type: 'subscription.payment_failed',
    group: 'subscription',
    description: 'A renewal charge failed; dunning retries it.',
    emitted: true,
  },
  {
    type: 'subscription.suspended',
    group: 'subscription',
    description: 'A renewal stayed unpaid after the last retry (or past the invoice due date); the subscription ended.',
    emitted: true,
  },
  {
    type: 'subscription.cancelled',
    group: 'subscription',
    description: 'A subscription ended after the buyer cancelled it (at the end of the period).',
    emitted: true,
  },
  {
    type: 'booking.created',
    group: 'booking',
    description: "A customer booked a slot on the order's hosted booking page (website-booking).",
    emitted: true,
  },
  {
    type: 'booking.cancelled',
    group: 'booking',
    description: "The page's owner cancelled a booking; its slot is free again.",
    emitted: true,
  },
  {
    type: 'receptionist.handoff',
    group: 'receptionist',
    description:
      'The hosted receptionist handed a conversation to the business (an urgent case, a complaint, a person asked for); also e-mailed.',
    emitted: true,
  },
]);

/** Every catalogued type name. */
export const EVENT_TYPES: readonly string[] = Object.freeze(EVENT_CATALOGUE.map((e) => e.type));

/** True when `name` is a catalogued type or a group wildcard such as `order.*` (`*` alone means every event). */
export function isEventFilter(name: string): boolean {
  if (name === '*') return true;
  if (name.endsWith('.*')) return EVENT_CATALOGUE.some((e) => e.group === name.slice(0, -2));
  return EVENT_TYPES.includes(name);
}

/** True when an endpoint subscribed to `filters` (empty: every event) receives events of `type`. */
export function eventMatches(filters: readonly string[], type: string): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => f === '*' || f === type || (f.endsWith('.*') && type.startsWith(f.slice(0, -1))));
}

/**
 * What one webhook delivery workflow carries (workflows/webhooks.ts `webhookDeliveryWorkflow`; started by the fan-out,
 * src/webhooks/fanOut.ts). Source: issue 5 §2.
 */
export interface DeliveryInput {
  messageId: string;
  eventId: string;
  endpointId: string;
  /** Null for events that belong to no order (no ordering then). */
  orderId: string | null;
  seq: number;
  /** 0 for the original delivery, n for the n-th manual retry (which does not wait for predecessors). */
  run: number;
}
