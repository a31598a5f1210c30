/**
 * The long-running billing model (issue 6 §2, §3; issue 27 §3): a monthly subscription's status, charges, periods and
 * invoices, and a per-task order's tasks. Types and pure period arithmetic, shared by the workflows that run them
 * (workflows/subscription.ts, workflows/tasks.ts), the API and the activities.
 *
 * Source: seed §2.1 (`billing` monthly / per_task, rails), §1 (20% partner commission "recurring"); issue 6.
 */
import type {
  DeliverableRecord,
  OrderInputs,
  PaymentRail,
  PaymentRecord,
  RefundRecord,
  SubscriptionTerms,
} from './order';

/** Subscription status: active, past_due (a renewal is unpaid, dunning runs), then cancelled or suspended (final). */
export type SubscriptionStatus = 'active' | 'past_due' | 'cancelled' | 'suspended';

/** One charge attempt of a period (append-only log). Amount in integer micro-units; ISO times. */
export interface SubscriptionCharge {
  /** Billing period number; 1 is the period paid by the order itself. */
  period: number;
  /** 1 for the first attempt of a period, then one more per dunning retry. */
  attempt: number;
  amount_micros: number;
  rail: PaymentRail;
  /** paid: money received; failed: the debit was refused; invoiced: an invoice was issued (other rails). */
  status: 'paid' | 'failed' | 'invoiced';
  transaction_id: string | null;
  failure: string | null;
  invoice_id: string | null;
  due_at: string | null;
  at: string;
}

/** A period as `[start, end)`, ISO times. */
export interface BillingPeriod {
  number: number;
  start: string;
  end: string;
}

/** What `getSubscription` answers and the subscription Updates return. */
export interface SubscriptionState {
  order_id: string;
  status: SubscriptionStatus;
  current_period: BillingPeriod;
  /** When the next renewal charge (or dunning retry) runs; null when none will. */
  next_charge_at: string | null;
  cancel_at_period_end: boolean;
  cancel_reason: string | null;
  ended_at: string | null;
  /** Dunning in progress: the retries done so far (1-based) and the next one. */
  dunning: { retries_done: number; next_retry_at: string | null } | null;
  /** The unpaid invoice of the current renewal (non-wallet rails). */
  open_invoice: { invoice_id: string; period: number; amount_micros: number; due_at: string } | null;
}

/** Arguments of `subscriptionWorkflow`; one run serves one period, then continues as new. */
export interface SubscriptionInput {
  orderId: string;
  serviceId: string;
  agentId?: string;
  partnerId?: string;
  /** The rail the order was paid on; renewals use it. */
  rail: PaymentRail;
  /** Price of one period in integer micro-units (the order's quoted amount). */
  amountMicros: number;
  currency: string;
  terms: SubscriptionTerms;
  /** The order's payment time: period n runs from addMonths(anchor, n - 1) to addMonths(anchor, n). */
  anchor: string;
  /** The period this run serves. */
  period: number;
  /** Writes to the read model so far (orders them; subscription events use `SUBSCRIPTION_EVENT_SEQ_BASE + version`). */
  version: number;
  /** Only on the first run: the order payment, recorded as period 1's charge. */
  firstPayment?: PaymentRecord;
  /** Carried across continue-as-new: the buyer cancelled; the subscription ends when this period does. */
  cancelReason?: string;
}

/** Argument of the `cancelSubscription` Update: cancel at the end of the current period. */
export interface CancelSubscriptionRequest {
  reason?: string;
}

/** Argument of the `payInvoice` Update: a hosted-link transaction bound to the invoice id, for its exact amount. */
export interface PayInvoiceRequest {
  invoice_id: string;
  transaction_id: string;
}

/** Signal from the order workflow: end now (the order was rejected and refunded, period 1 included). */
export interface EndSubscriptionRequest {
  reason: string;
}

/** Subscription events are numbered in the order's event sequence from here, clear of the order's own events. */
export const SUBSCRIPTION_EVENT_SEQ_BASE = 1_000_000;

/** Webhook event types of a subscription (issue 6 §2). */
export const SUBSCRIPTION_EVENT_TYPES = {
  created: 'subscription.created',
  renewed: 'subscription.renewed',
  invoiceIssued: 'subscription.invoice_issued',
  paymentFailed: 'subscription.payment_failed',
  suspended: 'subscription.suspended',
  cancelled: 'subscription.cancelled',
} as const;

/** Wallet transaction id of the renewal charge of `period` (issue 6: `subscription:<orderId>:<period>`). */
export const subscriptionTxId = (orderId: string, period: number): string => `subscription:${orderId}:${period}`;
/** Invoice id of the renewal of `period` on a non-wallet rail; a hosted-link transaction is bound to it. */
export const invoiceId = (orderId: string, period: number): string => `inv_${orderId}_${period}`;

/**
 * `anchor` plus `months` calendar months in UTC, the day clamped to the target month's length (Jan 31 + 1 month =
 * Feb 28/29). Always computed from the anchor, so periods never drift (Jan 31, Feb 28, Mar 31, ...).
 * @throws RangeError when `anchor` is not a valid ISO time.
 */
export function addMonths(anchor: string, months: number): string {
  const d = new Date(anchor);
  if (Number.isNaN(d.getTime())) throw new RangeError(`Invalid time ${anchor}`);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return new Date(
    Date.UTC(y, m, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()),
  ).toISOString();
}

/** Period `n` (1-based) of a subscription anchored at `anchor`. */
export function periodOf(anchor: string, n: number): BillingPeriod {
  return { number: n, start: addMonths(anchor, n - 1), end: addMonths(anchor, n) };
}

// ---------------------------------------------------------------------------------------------
// Per-task billing (task-worker, issue 6 §3)
// ---------------------------------------------------------------------------------------------

/** Arguments of `taskWorkflow`: one further task of a per-task order, charged at the order's per-task price. */
export interface TaskInput {
  orderId: string;
  /** Task number within the order; task 1 is the order itself, further tasks count from 2. */
  taskNumber: number;
  serviceId: string;
  agentId: string;
  /** The quoted per-task price (the order's amount), integer micro-units. */
  amountMicros: number;
  inputs: OrderInputs;
  requestedAt: string;
}

/** Outcome of a task. */
export interface TaskResult {
  status: 'delivered' | 'payment_failed' | 'failed';
  charge: { transaction_id: string; amount_micros: number; at: string } | null;
  deliverables: DeliverableRecord[];
  refund: RefundRecord | null;
  failure: { code: string; message: string } | null;
}

/** Wallet transaction id of task `n` (one debit per task, ever). */
export const taskTxId = (orderId: string, n: number): string => `task:${orderId}:${n}`;
/** Task events are numbered in the order's event sequence from here. */
export const TASK_EVENT_SEQ_BASE = 2_000_000;
/** Webhook event types of tasks. */
export const TASK_EVENT_TYPES = { delivered: 'order.task_delivered', failed: 'order.task_failed' } as const;
