/**
 * What operators read in the Temporal Web UI (issue 26 §1): the text of each workflow's **current details**
 * (`setCurrentDetails`, Markdown: one bold headline saying who waits on whom and until when, then a few facts), the
 * **summaries** of activities and timers on its timeline, and who the workflow waits on (`WaitingOn` search
 * attribute). Pure functions of the workflow's state, so every text is unit-tested (test/unit/operatorDetails.test.ts)
 * and the workflows only decide when to show them. Workflow-safe: imports types only; times are ISO strings the
 * workflow passes in (workflow time), money integer micro-units (no floating point).
 *
 * Source: issue 26 §1.
 */
import type { DeliverableRecord, OrderState, OrderStatus, PaymentRail } from '../src/domain/order';
import type { ProcurementProgress } from '../src/domain/procurement';
import type { SubscriptionState, TaskResult } from '../src/domain/subscription';

/**
 * Values of the `WaitingOn` search attribute: whom or what a workflow waits on. `payment`: the buyer's money (an
 * order awaiting payment, an unpaid renewal); `fulfillment`: the producers; `engineer`: an expert order's engineer;
 * `buyer_review`: the buyer's accept / reject; `refund`: a refund being made; `renewal`: a subscription between
 * renewals; `receiver`: a webhook receiver that failed (next attempt scheduled) or an earlier event of the same order;
 * `settlement`: an x402 payment still settling on chain; `nothing`: finished.
 */
export type WaitingOn =
  | 'payment'
  | 'fulfillment'
  | 'engineer'
  | 'buyer_review'
  | 'refund'
  | 'renewal'
  | 'receiver'
  | 'settlement'
  | 'nothing';

/** Every {@link WaitingOn} value, for documentation and tests. */
export const WAITING_ON_VALUES: readonly WaitingOn[] = [
  'payment',
  'fulfillment',
  'engineer',
  'buyer_review',
  'refund',
  'renewal',
  'receiver',
  'settlement',
  'nothing',
];

/** Whom an order in `status` waits on. */
export function orderWaitingOn(status: OrderStatus): WaitingOn {
  switch (status) {
    case 'awaiting_payment':
      return 'payment';
    case 'paid':
    case 'fulfilling':
      return 'fulfillment';
    case 'in_engineering':
    case 'sla_breached':
      return 'engineer';
    case 'delivered':
      return 'buyer_review';
    case 'failed':
      return 'refund';
    default:
      return 'nothing';
  }
}

/** Whom a subscription waits on: its next renewal, an unpaid renewal (dunning or invoice), or nothing once ended. */
export function subscriptionWaitingOn(state: SubscriptionState): WaitingOn {
  if (state.status === 'cancelled' || state.status === 'suspended') return 'nothing';
  if (state.status === 'past_due' || state.open_invoice) return 'payment';
  return 'renewal';
}

/** `2026-12-01T14:00:05.123Z` → `2026-12-01 14:00 UTC` (minutes are what an operator reads). */
export function utc(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Integer micro-units as a decimal amount with its currency: `19000000, 'USDC'` → `19.00 USDC`, never a float. */
export function money(micros: number, currency: string): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(micros));
  const whole = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000).padStart(6, '0');
  const shown = frac.endsWith('0000') ? frac.slice(0, 2) : frac.replace(/0+$/, '');
  return `${sign}${whole}.${shown} ${currency}`;
}

/** The currency an amount moves in on `rail`: USDC on x402, the order's currency elsewhere. */
export function railCurrency(rail: PaymentRail, currency: string): string {
  return rail === 'x402_usdc' ? 'USDC' : currency;
}

/** `['a', 'b', 'c']` → `a, b or c` (each a code span). */
function either(items: readonly string[]): string {
  const shown = items.map(mdId);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
}

/** `n` and the noun, plural unless one: `plural(2, 'upload')` → `2 uploads`; `many` for irregular plurals. */
function plural(n: number, noun: string, many = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : many}`;
}

/**
 * An identifier as a Markdown code span (ids are base64url, so they hold `_` and `-`). The Web UI's renderer
 * (ui-server 2.55.0) showed `ord_4O_-OY…` as `ord4O-OY…`, reading `_4O_` as emphasis where CommonMark's intraword
 * rule would not; no upstream report of that was found. A code span is right in any renderer.
 */
export function mdId(id: string): string {
  return id.includes('`') ? mdText(id) : `\`${id}\``;
}

/**
 * Text from outside the workflow's own wording (service ids, rails, file names, buyers' and engineers' words,
 * failure codes) with Markdown's punctuation escaped, so it renders as written and a buyer's reason cannot inject a
 * link or an image into an operator's page.
 */
export function mdText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#!|~]/g, '\\$&');
}

/** Headline first, then the facts as a Markdown list. */
function markdown(headline: string, facts: readonly (string | undefined | false)[]): string {
  const lines = facts.filter((f): f is string => typeof f === 'string' && f.length > 0);
  return [headline, ...(lines.length > 0 ? ['', ...lines.map((l) => `- ${l}`)] : [])].join('\n');
}

/** What {@link orderDetails} reads: the order's terms and its workflow state. ISO times. */
export interface OrderDetailsInput {
  orderId: string;
  serviceId: string;
  amountMicros: number;
  currency: string;
  rails: readonly PaymentRail[];
  /** When an unpaid order expires (the record's `payment_deadline`). */
  paymentDeadline: string;
  /** Included services of a bundle (empty for a single service). */
  includes: readonly string[];
  state: OrderState;
  /** When a delivered order is accepted automatically (set once it is delivered). */
  autoAcceptAt?: string;
  /** The last refused payment attempt of an order still awaiting payment (e.g. `insufficient_funds`). */
  lastPaymentFailure?: string;
}

/** The refund as text: `Refunded 19.00 USDC` or `Refund of 19.00 USD due` (money owed, not yet back). */
function refundText(input: OrderDetailsInput): string | undefined {
  const r = input.state.refund;
  if (!r) return undefined;
  const amount = money(r.amount_micros, railCurrency(r.rail, input.currency));
  return r.status === 'completed' ? `Refunded ${amount}` : `Refund of ${amount} due`;
}

/** The engineer part of an expert order's details: headline and facts (in_engineering, sla_breached). */
function engineeringDetails(input: OrderDetailsInput): { headline: string; facts: string[] } {
  const eng = input.state.engineering;
  if (!eng) return { headline: '**In engineering**', facts: [] };
  const uploads = eng.uploads.length > 0 ? `; ${plural(eng.uploads.length, 'upload')}` : '';
  const who = eng.engineer
    ? `engineer ${mdText(eng.engineer)}, claimed ${utc(eng.claimed_at ?? eng.assigned_at)}`
    : 'unclaimed';
  const facts = [
    `In the engineer queue since ${utc(eng.assigned_at)}`,
    eng.escalated_at ? `Escalated at ${utc(eng.escalated_at)}` : `Escalates at ${utc(eng.escalate_at)}`,
    eng.uploads.length > 0 ? `Uploads: ${eng.uploads.map((u) => mdText(u.name)).join(', ')}` : undefined,
  ].filter((f): f is string => f !== undefined);
  if (eng.ready_at) {
    return {
      headline: `**Marked ready** by ${eng.engineer ? mdText(eng.engineer) : 'the engineer'} — delivering`,
      facts,
    };
  }
  if (input.state.status === 'sla_breached') {
    return {
      headline: `**SLA breached** at ${utc(eng.breached_at ?? eng.sla_deadline)} (${who}${uploads}) — the buyer may cancel for a full refund`,
      facts,
    };
  }
  return { headline: `**In engineering** (${who}${uploads}) — SLA deadline ${utc(eng.sla_deadline)}`, facts };
}

/** The deliverables as `README.md, controller.py` (at most five names, then the count). */
function files(deliverables: readonly DeliverableRecord[]): string {
  const names = deliverables.map((d) => mdText(d.name));
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;
}

/**
 * The current details of an order workflow: who waits on whom and until when, then the order's facts, e.g.
 * `**Waiting for the buyer's review** — auto-accept at 2026-12-01 14:00 UTC`.
 */
export function orderDetails(input: OrderDetailsInput): string {
  const { state } = input;
  const price = money(input.amountMicros, input.currency);
  const paid = state.payment
    ? `Paid ${money(state.payment.amount_micros, railCurrency(state.payment.rail, input.currency))} on ${mdId(state.payment.rail)} at ${utc(state.payment.paid_at)}`
    : undefined;
  const at = (status: OrderStatus): string => {
    const p = [...state.progress].reverse().find((e) => e.status === status && e.event === undefined);
    return p ? utc(p.at) : '';
  };
  const facts: (string | undefined)[] = [`Order ${mdId(input.orderId)} · ${mdText(input.serviceId)} · ${price}`, paid];
  let headline: string;
  switch (state.status) {
    case 'awaiting_payment':
      headline = `**Payment due** — ${price} on ${either(input.rails)}, expires ${utc(input.paymentDeadline)}`;
      if (input.lastPaymentFailure) facts.push(`Last payment attempt refused: ${mdText(input.lastPaymentFailure)}`);
      break;
    case 'paid':
      headline = `**Paid** — starting fulfillment of ${mdText(input.serviceId)}`;
      break;
    case 'fulfilling':
      headline =
        input.includes.length > 0
          ? `**Fulfilling** — producing ${plural(input.includes.length, 'bundle part')}: ${input.includes.map(mdText).join(', ')}`
          : `**Fulfilling** — producing the deliverables of ${mdText(input.serviceId)}`;
      break;
    case 'in_engineering':
    case 'sla_breached': {
      const eng = engineeringDetails(input);
      headline = eng.headline;
      facts.push(...eng.facts);
      break;
    }
    case 'delivered':
      if (state.review?.action === 'reject') headline = `**Rejected by the buyer** — refunding ${price}`;
      else if (state.review?.action === 'accept') headline = '**Accepted by the buyer** — recording';
      else
        headline = `**Waiting for the buyer's review** — auto-accept at ${input.autoAcceptAt ? utc(input.autoAcceptAt) : 'the end of the review window'}`;
      facts.push(`Delivered ${at('delivered')}: ${files(state.deliverables)}`);
      break;
    case 'accepted':
      headline = state.review?.automatic
        ? `**Accepted** automatically at ${at('accepted')} (review window lapsed)`
        : `**Accepted** by the buyer at ${at('accepted')}`;
      break;
    case 'rejected': {
      const reason = state.review?.reason ? `: ${mdText(state.review.reason)}` : '';
      headline = `**${refundText(input) ?? 'Refunded'} after rejection**${reason}`;
      break;
    }
    case 'expired':
      headline = `**Expired** unpaid at ${at('expired')}`;
      break;
    case 'failed':
      headline = `**Fulfillment failed** — refunding ${price}`;
      facts.push(state.failure ? `Failure: ${mdText(state.failure)}` : undefined);
      break;
    case 'refunded':
      headline = `**${refundText(input) ?? 'Refunded'} after fulfillment failed**`;
      facts.push(state.failure ? `Failure: ${mdText(state.failure)}` : undefined);
      break;
    case 'cancelled':
      headline = `**Cancelled after the SLA breach** — ${(refundText(input) ?? 'refunded').toLowerCase()}`;
      break;
  }
  return markdown(headline, facts);
}

/** What {@link subscriptionDetails} reads besides the state: the price and rail of a period. */
export interface SubscriptionDetailsInput {
  serviceId: string;
  amountMicros: number;
  currency: string;
  rail: PaymentRail;
  state: SubscriptionState;
  /** Set while a renewal charge or invoice check runs. */
  renewing?: boolean;
  /** The last refused renewal charge (dunning), e.g. `insufficient_funds`. */
  lastFailure?: string;
}

/**
 * The current details of a subscription: the period it serves and the next renewal, an unpaid renewal (retry or
 * invoice due date), or how it ended; e.g. `**Period 3** (… → …) — renewal 4 on 2027-01-01 14:00 UTC`.
 */
export function subscriptionDetails(input: SubscriptionDetailsInput): string {
  const { state } = input;
  const p = state.current_period;
  const price = money(input.amountMicros, railCurrency(input.rail, input.currency));
  const facts = [
    `Subscription of order ${mdId(state.order_id)} · ${mdText(input.serviceId)} · ${price} a month on ${mdId(input.rail)}`,
    `Period ${p.number}: ${utc(p.start)} → ${utc(p.end)}`,
    state.cancel_at_period_end && state.status !== 'cancelled'
      ? `Cancel requested${state.cancel_reason ? `: ${mdText(state.cancel_reason)}` : ''}`
      : undefined,
    input.lastFailure && state.status === 'past_due' ? `Last charge refused: ${mdText(input.lastFailure)}` : undefined,
  ];
  let headline: string;
  if (state.status === 'cancelled') {
    headline = `**Cancelled** at ${utc(state.ended_at ?? p.end)}${state.cancel_reason ? ` (${mdText(state.cancel_reason)})` : ''}`;
  } else if (state.status === 'suspended') {
    headline = `**Suspended** at ${utc(state.ended_at ?? p.end)} — renewal ${p.number} unpaid`;
  } else if (input.renewing) {
    headline = `**Renewing** period ${p.number} — charging ${price} on ${mdId(input.rail)}`;
  } else if (state.open_invoice) {
    const inv = state.open_invoice;
    headline = `**Payment due** — invoice ${mdId(inv.invoice_id)}, ${money(inv.amount_micros, railCurrency(input.rail, input.currency))}, due ${utc(inv.due_at)}`;
  } else if (state.status === 'past_due') {
    const d = state.dunning;
    headline =
      d?.next_retry_at != null
        ? `**Payment failed** for period ${p.number} — retry ${d.retries_done + 1} at ${utc(d.next_retry_at)}`
        : `**Payment failed** for period ${p.number} — no retry left`;
  } else if (state.cancel_at_period_end) {
    headline = `**Period ${p.number}**, cancelled at its end — ends ${utc(p.end)}`;
  } else {
    headline = `**Period ${p.number}** — renewal ${p.number + 1} on ${utc(state.next_charge_at ?? p.end)}`;
  }
  return markdown(headline, facts);
}

/** Step of a per-task order's task workflow. */
export type TaskStep = 'charging' | 'producing' | 'recording' | TaskResult['status'];

/** What {@link taskDetails} reads. */
export interface TaskDetailsInput {
  orderId: string;
  taskNumber: number;
  serviceId: string;
  amountMicros: number;
  step: TaskStep;
  result?: TaskResult;
}

/** The current details of one task of a per-task order, e.g. `**Producing** task 2 of order ord_x`. */
export function taskDetails(input: TaskDetailsInput): string {
  const price = money(input.amountMicros, 'USD');
  const task = `task ${input.taskNumber} of order ${mdId(input.orderId)}`;
  const r = input.result;
  const headline: Record<TaskStep, string> = {
    charging: `**Charging** ${task} — ${price} from the agent wallet`,
    producing: `**Producing** ${task}`,
    recording: `**Recording** ${task}`,
    delivered: `**Delivered** ${task}${r ? `: ${files(r.deliverables)}` : ''}`,
    payment_failed: `**Payment failed** for ${task}${r?.failure ? `: ${mdText(r.failure.code)}` : ''}`,
    failed: `**Failed** ${task} — ${r?.refund ? `refunded ${money(r.refund.amount_micros, 'USD')}` : 'refunding'}`,
  };
  return markdown(headline[input.step], [`${mdText(input.serviceId)} · ${price} a task`]);
}

/** The current details of a procurement: its step, then the service, quote and order so far. */
export function procurementDetails(input: {
  procurementId: string;
  step: ProcurementProgress;
  serviceId?: string | null;
  quoteId?: string | null;
  orderId?: string | null;
  failure?: string;
}): string {
  const s = input.serviceId ? mdText(input.serviceId) : 'a service';
  const order = input.orderId ? mdId(input.orderId) : '';
  const headline: Record<ProcurementProgress, string> = {
    planning: '**Planning** — choosing a service within budget',
    quoting: `**Quoting** ${s}`,
    ordering: `**Ordering** ${s}`,
    paying: `**Paying** order ${order} from the agent wallet`,
    completed: `**Completed** — order ${order} paid`,
    planned: `**Planned** — quote ${input.quoteId ? mdId(input.quoteId) : ''} for ${s} (no auto purchase)`,
    no_match: '**No match** — no service fits the requirements and budget',
    needs_inputs: `**Needs inputs** — ${s} needs more inputs`,
    payment_failed: `**Payment failed** — order ${order} stays awaiting payment`,
  };
  return markdown(headline[input.step], [
    `Procurement ${mdId(input.procurementId)}`,
    input.quoteId ? `Quote ${mdId(input.quoteId)}` : undefined,
    input.orderId ? `Order ${order}` : undefined,
    input.failure ? `Why: ${mdText(input.failure)}` : undefined,
  ]);
}

/** What {@link webhookDetails} reads: the delivery, its step and its last attempt. */
export interface WebhookDetailsInput {
  eventId: string;
  endpointId: string;
  orderId: string | null;
  step: 'predecessor' | 'attempting' | 'retrying' | 'delivered' | 'failed';
  attempt: number;
  /** Attempts at most (the retry schedule's length). */
  maxAttempts: number;
  /** HTTP status of the last failed attempt (null: no answer). */
  lastStatus?: number | null;
  /** When the next attempt or predecessor re-check runs. */
  nextAt?: string;
  reason?: string;
}

/** The current details of a webhook delivery, e.g. `**Retrying** — attempt 3 of 10 failed (HTTP 500), next at …`. */
export function webhookDetails(input: WebhookDetailsInput): string {
  const last =
    input.lastStatus === undefined ? '' : input.lastStatus === null ? ' (no answer)' : ` (HTTP ${input.lastStatus})`;
  const headline = {
    predecessor: `**Waiting for an earlier event** of order ${input.orderId ? mdId(input.orderId) : ''} to this endpoint — re-check at ${input.nextAt ? utc(input.nextAt) : 'its signal'}`,
    attempting: `**Delivering** — attempt ${input.attempt} of ${input.maxAttempts}`,
    retrying: `**Retrying** — attempt ${input.attempt} of ${input.maxAttempts} failed${last}, next at ${input.nextAt ? utc(input.nextAt) : '?'}`,
    delivered: `**Delivered** after ${plural(input.attempt, 'attempt')}`,
    failed: `**Failed** after ${plural(input.attempt, 'attempt')}: ${mdText(input.reason ?? 'exhausted')}`,
  }[input.step];
  return markdown(headline, [
    `Event ${mdId(input.eventId)} → endpoint ${mdId(input.endpointId)}`,
    input.orderId ? `Order ${mdId(input.orderId)}` : undefined,
  ]);
}

/** The current details of an x402 reconciliation: the settlement's status, the next check and the deadline. */
export function x402Details(input: {
  paymentId: string;
  status: string;
  orderId?: string | null;
  checks: number;
  nextAt?: string;
  givesUpAt: string;
  reason?: string | null;
}): string {
  const done = input.status !== 'pending' && input.status !== 'settling';
  const headline = done
    ? `**${input.status === 'settled' ? 'Settled' : mdText(input.status)}**${input.orderId && input.status === 'settled' ? ` — order ${mdId(input.orderId)} confirmed` : ''}${input.reason ? ` (${mdText(input.reason)})` : ''}`
    : `**Waiting for settlement** on chain — check ${input.checks + 1} at ${input.nextAt ? utc(input.nextAt) : 'once'}, gives up at ${utc(input.givesUpAt)}`;
  return markdown(headline, [
    `x402 payment ${mdId(input.paymentId)}`,
    input.orderId ? `Order ${mdId(input.orderId)}` : undefined,
  ]);
}

/** The current details of a books reconciliation: running, or what it found and repaired. */
export function reconciliationDetails(
  report?: { discrepancy_count: number; repaired: readonly unknown[]; finished_at: string } | undefined,
): string {
  if (!report) return '**Reconciling the books** — checking every money invariant';
  const left = report.discrepancy_count;
  return markdown(
    left > 0
      ? `**${plural(left, 'discrepancy', 'discrepancies')} need an operator** — reconciled at ${utc(report.finished_at)}`
      : `**Books reconcile** at ${utc(report.finished_at)}`,
    [`${plural(report.repaired.length, 'repair')} made`],
  );
}

/** Timeline summaries of the order workflow's activities and timers (one line each; shown on the timeline bars). */
export const orderSummaries = {
  recordOrder: (orderId: string) => `Record order ${orderId}`,
  charge: (rail: PaymentRail, amountMicros: number, currency: string) =>
    `Charge ${money(amountMicros, railCurrency(rail, currency))} on ${rail}`,
  /** The charge that also records `paid` (and `fulfilling`): PAID_WITH_CHARGE of workflows/order.ts. */
  chargeAndRecord: (rail: PaymentRail, amountMicros: number, currency: string, thenFulfilling: boolean) =>
    `Charge ${money(amountMicros, railCurrency(rail, currency))} on ${rail} and record paid${thenFulfilling ? ' → fulfilling' : ''}`,
  chargeAndDeliver: (rail: PaymentRail, amountMicros: number, currency: string, serviceId: string) =>
    `Charge ${money(amountMicros, railCurrency(rail, currency))} on ${rail}, produce ${serviceId}, record paid → fulfilling → delivered`,
  findPayment: () => 'Look for a payment already taken whose Update was lost',
  record: (statuses: readonly OrderStatus[]) => `Record ${statuses.join(' → ')}`,
  deliver: (serviceId: string) => `Produce ${serviceId} and record delivered`,
  produce: (serviceId: string) => `Produce ${serviceId}`,
  manifest: (serviceId: string) => `Write the bundle manifest of ${serviceId}`,
  refund: (rail: PaymentRail, amountMicros: number, currency: string, reason: string) =>
    `Refund ${money(amountMicros, railCurrency(rail, currency))} on ${rail} (${reason})`,
  commission: (action: 'record' | 'credit' | 'release' | 'reverse', partnerId?: string) =>
    `${action[0]?.toUpperCase()}${action.slice(1)} the partner commission${partnerId ? ` of ${partnerId}` : ''}`,
  progress: (event: string, engineer?: string | null) => `Record ${event}${engineer ? ` (${engineer})` : ''}`,
  paymentDeadline: (iso: string) => `Payment deadline: expires at ${utc(iso)}`,
  reviewWindow: (iso: string) => `Review window: auto-accept at ${utc(iso)}`,
  slaMilestone: (kind: 'escalation' | 'deadline', iso: string) =>
    kind === 'escalation' ? `SLA escalation at ${utc(iso)}` : `SLA deadline at ${utc(iso)}`,
} as const;
