/**
 * The order state machine (docs/api.md "Order state machine"): statuses, the allowed transitions and the webhook event
 * each status emits. Pure data, shared by the workflows (which enforce it: `transition()` and the Update validators
 * of workflows/order.ts and workflows/expert.ts check {@link canTransition}), the read model and the event catalogue.
 *
 * Source: seed §2.4 (order statuses), issue 5 (event catalogue), issue 6 §1 (expert delivery), issue 11 §5.
 */

/**
 * Order states. The happy path is awaiting_payment → paid → fulfilling → delivered → accepted.
 * Other ends: rejected (buyer refused the delivery, refunded), expired (unpaid past the deadline),
 * failed → refunded (fulfillment failed after every retry; the payment is returned).
 * Expert delivery (issue 6 §1) adds fulfilling → in_engineering → delivered, with sla_breached past the service's
 * max_fulfillment_hours and cancelled (buyer cancelled after the breach; refunded).
 */
export type OrderStatus =
  | 'awaiting_payment'
  | 'paid'
  | 'fulfilling'
  | 'delivered'
  | 'accepted'
  | 'rejected'
  | 'expired'
  | 'failed'
  | 'refunded'
  | 'in_engineering'
  | 'sla_breached'
  | 'cancelled';

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'awaiting_payment',
  'paid',
  'fulfilling',
  'delivered',
  'accepted',
  'rejected',
  'expired',
  'failed',
  'refunded',
  'in_engineering',
  'sla_breached',
  'cancelled',
];

/** States in which the workflow has ended. */
export const TERMINAL_STATUSES: readonly OrderStatus[] = ['accepted', 'rejected', 'expired', 'refunded', 'cancelled'];

/** Allowed transitions (docs/api.md "Order state machine" renders this table). */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  awaiting_payment: ['paid', 'expired'],
  paid: ['fulfilling'],
  fulfilling: ['delivered', 'failed', 'in_engineering'],
  delivered: ['accepted', 'rejected'],
  failed: ['refunded'],
  accepted: [],
  rejected: [],
  expired: [],
  refunded: [],
  in_engineering: ['delivered', 'sla_breached'],
  sla_breached: ['delivered', 'cancelled'],
  cancelled: [],
};

/** True when the state machine allows `from` → `to` ({@link ORDER_TRANSITIONS}). */
export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

/** Webhook event type emitted when an order enters a status (issue 5 event catalogue). */
export const ORDER_EVENT_TYPES: Readonly<Record<OrderStatus, string>> = {
  awaiting_payment: 'order.created',
  paid: 'order.paid',
  fulfilling: 'order.fulfillment_started',
  delivered: 'order.delivered',
  accepted: 'order.accepted',
  rejected: 'order.rejected',
  expired: 'order.expired',
  failed: 'order.failed',
  refunded: 'order.refunded',
  in_engineering: 'order.in_engineering',
  sla_breached: 'order.sla_breached',
  cancelled: 'order.cancelled',
};
