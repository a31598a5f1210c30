/**
 * The subscription workflow of a monthly order (issue 6 §2), id `subscription-<order_id>`.
 *
 * Started by the order workflow when the order is delivered, as a child with parent-close policy ABANDON: the order
 * reaches its own end (accepted after review) while the subscription lives on. One run serves one period and then
 * continues as new, so the history stays small however long the subscription lasts.
 *
 * Period 1 is paid by the order. At the end of each period the next one is charged on the order's rail:
 * - agent_wallet: a wallet debit `subscription:<order_id>:<period>`; a refused debit starts dunning: retries after
 *   `retryAfterSeconds` (1, 3, 7 days), `subscription.payment_failed` for each failed attempt, `suspended` after
 *   the last one.
 * - linkpay_ncp / x402_usdc, and any rail when `terms.renewal` is `invoice` (bought through a checkout session): an
 *   invoice `inv_<order_id>_<period>` due after `invoiceDueSeconds` (7 days), paid with a hosted-link transaction
 *   bound to the invoice id (`payInvoice` Update); unpaid at the due date: suspended.
 * Every paid renewal credits the partner's commission for that period at once (activities/commissions.ts): a renewal
 * has no review and is never refunded (a rejected order refunds period 1 only and ends the subscription), so a paid
 * period is final (issue 10 §3). Period 1 is the order's: credited on its acceptance.
 * `cancelSubscription` cancels at the end of the period (at once while a renewal is unpaid).
 *
 * All writes to the read model are made by the main coroutine, in version order; Update handlers change state and
 * queue a write, then wait until it is recorded.
 */
import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CommissionActivities } from '../activities/commissions';
import type { LongRunningActivities } from '../activities/longRunning';
import type { ReceptionistActivities } from '../activities/receptionists';
import { money, railCurrency, subscriptionDetails, subscriptionWaitingOn, utc, type WaitingOn } from './details';
import { HandlerWrites } from './handlerWrites';
import {
  CAPTURE_OPTIONS,
  RECORD_OPTIONS,
  asUpdateFailure,
  businessFailure,
  copyJson as copy,
  nowIso,
  refusal,
  withSummary,
} from './policies';
import { SA } from './shared';
import { FailureType, type OrderWorkflowInput, type PaymentRecord } from '../src/domain/order';
import {
  SUBSCRIPTION_EVENT_TYPES,
  invoiceId,
  periodOf,
  type SubscriptionCharge,
  type SubscriptionInput,
  type SubscriptionState,
  type PayInvoiceRequest,
} from '../src/domain/subscription';
import { receptionistStateOf, type ReceptionistState } from '../src/domain/receptionist';
import {
  cancelSubscriptionUpdate,
  endSubscriptionSignal,
  getSubscriptionQuery,
  payInvoiceUpdate,
  subscriptionWorkflowId,
} from './subscriptionShared';

/**
 * Issue 24 §1 (as workflows/order.ts MESSAGES_IN_MAIN): the `payInvoice` handler schedules no activity; it queues the
 * request and the main coroutine verifies it, so Updates arriving together give one order of commands on replay too.
 */
const INVOICE_IN_MAIN = 'subscription-messages-in-main-coroutine';

/**
 * Issue 26 §1 (as workflows/order.ts OPERATOR_VIEW): the main coroutine keeps `WaitingOn` (`renewal`, `payment` while
 * a renewal is unpaid, `nothing` once ended) and `WaitingSince` current; a run starts with them (set by the order's
 * `startChild` and by continue-as-new, so a month adds no upsert). Decides INVOICE_IN_MAIN for the runs that record
 * it, so a run still records one patch marker.
 */
const OPERATOR_VIEW = 'operator-view';

/**
 * Issue 38 §1: an ai-receptionist's hosted receptionist follows the subscription: after each write of the read model
 * that changes what it should be (suspended while a renewal is unpaid, active once paid, ended with the
 * subscription), the workflow sets it (`setReceptionistState`, with the write's version).
 */
const RECEPTIONIST = 'receptionist-follows-subscription';

/** A `payInvoice` Update waiting for the main coroutine (INVOICE_IN_MAIN): `failure` set when it is refused. */
interface InvoiceAsk {
  req: PayInvoiceRequest;
  done: boolean;
  failure?: unknown;
}

/** Bookkeeping writes, retried until they succeed. */
const records = proxyActivities<LongRunningActivities>(RECORD_OPTIONS);

/** Charges and payment checks: business refusals are non-retryable; transient errors retry a few times. */
const payments = proxyActivities<LongRunningActivities>(CAPTURE_OPTIONS);

/** Partner commission per paid period (the other engineers' reusable activity), retried until it succeeds. */
const commissions = proxyActivities<CommissionActivities>(RECORD_OPTIONS);

/** The hosted receptionist's state (RECEPTIONIST), retried until it is written. */
const receptionists = proxyActivities<ReceptionistActivities>(RECORD_OPTIONS);

const plusSeconds = (iso: string, s: number): string => new Date(Date.parse(iso) + s * 1000).toISOString();

const refused = (message: string, status: string) => refusal(message, FailureType.invalidTransition, status);

/**
 * Starts the subscription of a monthly order as an abandoned child (it outlives the order workflow). Returns once
 * the child has started. Called by the order workflow at delivery; `waitingOn` (the order's OPERATOR_VIEW): the child
 * starts with `WaitingOn = renewal` since the payment.
 */
export async function startSubscription(
  order: OrderWorkflowInput,
  payment: PaymentRecord,
  { waitingOn = false }: { waitingOn?: boolean } = {},
): Promise<void> {
  const terms = order.subscription;
  if (!terms) return;
  await startChild(subscriptionWorkflow, {
    ...(waitingOn
      ? {
          typedSearchAttributes: [
            { key: SA.waitingOn, value: 'renewal' },
            { key: SA.waitingSince, value: new Date(payment.paid_at) },
          ],
        }
      : {}),
    workflowId: subscriptionWorkflowId(order.orderId),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        orderId: order.orderId,
        serviceId: order.serviceId,
        ...(order.agentId ? { agentId: order.agentId } : {}),
        ...(order.partnerId ? { partnerId: order.partnerId } : {}),
        rail: payment.rail,
        amountMicros: payment.amount_micros,
        currency: order.currency,
        terms,
        anchor: payment.paid_at,
        period: 1,
        version: 0,
        firstPayment: payment,
      },
    ],
    staticSummary: `Subscription of order ${order.orderId} (${order.serviceId})`,
  });
}

/** Ends the subscription of a rejected order at once (the order refunds period 1 itself). */
export async function endSubscription(orderId: string, reason: string): Promise<void> {
  await getExternalWorkflowHandle(subscriptionWorkflowId(orderId)).signal(endSubscriptionSignal, { reason });
}

/** Serves one period of a subscription, then continues as new with the next (or ends: cancelled, suspended). */
export async function subscriptionWorkflow(input: SubscriptionInput): Promise<SubscriptionState> {
  const view = patched(OPERATOR_VIEW);
  const v2 = view || patched(INVOICE_IN_MAIN);
  // Only a receptionist's subscription records the marker; the others keep their histories as they were.
  const follows = input.serviceId === 'ai-receptionist' && patched(RECEPTIONIST);
  /**
   * The activities stay normal ones: as local activities (a month's run 14 events instead of 24) a `payInvoice` Update
   * answered in the activation that started the next local activity, with a second Update arriving meanwhile, left a
   * history the SDK could not replay (`UpdateMachine in state CompletedCommandCreated …`, found by
   * test/unit/workflows/messageInterleavings.test.ts; as temporalio/sdk-java#2796 for version markers).
   */
  const acts = { records, payments, commissions };
  const invoiceAsks: InvoiceAsk[] = [];
  let version = input.version;
  const period = periodOf(input.anchor, input.period);
  const state: SubscriptionState = {
    order_id: input.orderId,
    status: 'active',
    current_period: period,
    next_charge_at: input.cancelReason !== undefined ? null : period.end,
    cancel_at_period_end: input.cancelReason !== undefined,
    cancel_reason: input.cancelReason ?? null,
    ended_at: null,
    dunning: null,
    open_invoice: null,
  };
  /** Writes queued by Update handlers; the main coroutine records them in order (one write covers all queued). */
  const writes = new HandlerWrites<void>();
  /** Set by the order workflow's signal, or by a cancel while a renewal is unpaid: end without waiting. */
  let endNow: string | undefined;
  let invoiceCheck = false;
  let invoicePayment: { transaction_id: string; amount_micros: number } | undefined;
  const ended = () => state.status === 'cancelled' || state.status === 'suspended';
  const price = money(input.amountMicros, railCurrency(input.rail, input.currency));
  /** What the Web UI shows (issue 26 §1), set at every change of `state`. */
  let renewing = false;
  let lastFailure: string | undefined;
  const show = (): void =>
    setCurrentDetails(
      subscriptionDetails({
        serviceId: input.serviceId,
        amountMicros: input.amountMicros,
        currency: input.currency,
        rail: input.rail,
        state,
        renewing,
        ...(lastFailure ? { lastFailure } : {}),
      }),
    );
  /** OPERATOR_VIEW: `WaitingOn` / `WaitingSince` as last set (at the start by the parent or continue-as-new). */
  let waiting: { on: WaitingOn; since: string } = { on: subscriptionWaitingOn(state), since: period.start };
  /** OPERATOR_VIEW: upserts `WaitingOn` (since `at`) when it changed; called by the main coroutine only. */
  const wait = (at: string): void => {
    const on = subscriptionWaitingOn(state);
    if (!view || on === waiting.on) return;
    waiting = { on, since: at };
    upsertSearchAttributes([
      { key: SA.waitingOn, value: on },
      { key: SA.waitingSince, value: new Date(at) },
    ]);
  };
  show();
  if (view && workflowInfo().typedSearchAttributes.get(SA.waitingOn) === undefined) {
    upsertSearchAttributes([
      { key: SA.waitingOn, value: waiting.on },
      { key: SA.waitingSince, value: new Date(waiting.since) },
    ]);
  }

  setHandler(getSubscriptionQuery, () => copy(state));
  setHandler(endSubscriptionSignal, (req) => {
    endNow ??= req.reason;
    show();
  });

  setHandler(
    cancelSubscriptionUpdate,
    async (req) => {
      if (!state.cancel_at_period_end) {
        state.cancel_at_period_end = true;
        state.cancel_reason = req.reason ?? null;
        // An unpaid renewal is not served on: the subscription ends now instead of at the period's end.
        if (state.status === 'past_due' || state.open_invoice) endNow ??= 'cancelled by the buyer';
        else state.next_charge_at = null;
        show();
        const n = writes.push(undefined);
        await condition(() => writes.done(n) || ended());
      }
      return copy(state);
    },
    {
      validator: (_req) => {
        if (ended() || endNow !== undefined) throw refused(`The subscription is ${state.status}`, state.status);
      },
    },
  );

  setHandler(
    payInvoiceUpdate,
    async (req) => {
      if (v2) {
        if (!invoicePayment && state.open_invoice) {
          const ask: InvoiceAsk = { req, done: false };
          invoiceAsks.push(ask);
          await condition(() => ask.done);
          if (ask.failure !== undefined) throw ask.failure;
        }
        await condition(() => state.open_invoice === null || ended());
        return copy(state);
      }
      await condition(() => !invoiceCheck);
      if (!invoicePayment && state.open_invoice) {
        invoiceCheck = true;
        try {
          invoicePayment = await withSummary(payments.verifyInvoicePayment, `Verify the payment of ${req.invoice_id}`, {
            invoiceId: req.invoice_id,
            transactionId: req.transaction_id,
            amountMicros: state.open_invoice.amount_micros,
          });
        } catch (err) {
          throw asUpdateFailure(err, FailureType.paymentFailed);
        } finally {
          invoiceCheck = false;
        }
      }
      await condition(() => state.open_invoice === null || ended());
      return copy(state);
    },
    {
      validator: (req) => {
        if (!state.open_invoice || state.open_invoice.invoice_id !== req.invoice_id || endNow !== undefined) {
          throw ApplicationFailure.create({
            message: `No open invoice ${req.invoice_id}`,
            type: 'invoice_not_found',
            nonRetryable: true,
          });
        }
      },
    },
  );

  async function record(
    charge?: SubscriptionCharge,
    event?: { type: string; details: Record<string, unknown> },
  ): Promise<void> {
    version += 1;
    show();
    await withSummary(acts.records.recordSubscription, `Record the subscription${event ? `: ${event.type}` : ''}`, {
      orderId: input.orderId,
      version,
      state: copy(state),
      ...(charge ? { charge } : {}),
      ...(event ? { event } : {}),
      at: nowIso(),
    });
    if (follows) await follow();
  }

  /** RECEPTIONIST: what the receptionist was last set to (a run starts on a paid period: active). */
  let hosted: ReceptionistState = 'active';
  /** RECEPTIONIST: sets the receptionist when the state just recorded changes what it should be. */
  async function follow(): Promise<void> {
    const next = receptionistStateOf(state);
    if (next.state === hosted) return;
    hosted = next.state;
    await withSummary(receptionists.setReceptionistState, `Set the receptionist ${next.state}`, {
      orderId: input.orderId,
      state: next.state,
      reason: next.reason,
      version,
    });
  }

  /** Records what handlers queued. */
  async function drain(): Promise<void> {
    await writes.drainAll(() => record());
  }

  /** Waits until `iso` (false) or until `woken()` holds (true), recording queued writes meanwhile. */
  async function waitUntil(iso: string, woken: () => boolean, summary: string): Promise<boolean> {
    for (;;) {
      await drain();
      if (woken()) return true;
      const remaining = Date.parse(iso) - Date.now();
      if (remaining <= 0) return false;
      await condition(() => writes.pending || woken(), remaining, { summary });
    }
  }

  async function end(status: 'cancelled' | 'suspended', reason: string): Promise<SubscriptionState> {
    state.status = status;
    state.ended_at = nowIso();
    state.next_charge_at = null;
    state.dunning = null;
    state.open_invoice = null;
    if (status === 'cancelled') state.cancel_reason ??= reason;
    wait(state.ended_at);
    await drain();
    await record(undefined, {
      type: status === 'cancelled' ? SUBSCRIPTION_EVENT_TYPES.cancelled : SUBSCRIPTION_EVENT_TYPES.suspended,
      details: { reason, period: state.current_period.number },
    });
    writes.settleAll();
    await condition(allHandlersFinished);
    return copy(state);
  }

  if (input.firstPayment) {
    version = 1;
    const p = input.firstPayment;
    await withSummary(acts.records.openSubscription, 'Open the subscription (period 1 paid by the order)', {
      input,
      state: copy(state),
      firstCharge: {
        period: 1,
        attempt: 1,
        amount_micros: p.amount_micros,
        rail: p.rail,
        status: 'paid',
        transaction_id: p.transaction_id,
        failure: null,
        invoice_id: null,
        due_at: null,
        at: p.paid_at,
      },
      at: nowIso(),
    });
  }

  // The period runs; a cancel requested now takes effect at its end.
  const periodEnd = state.cancel_at_period_end
    ? `Period ${period.number} ends at ${utc(period.end)} (cancelled at its end)`
    : `Period ${period.number} ends: renewal at ${utc(period.end)}`;
  if (await waitUntil(period.end, () => endNow !== undefined, periodEnd))
    return end('cancelled', endNow ?? 'cancelled');
  if (state.cancel_at_period_end) return end('cancelled', state.cancel_reason ?? 'cancelled at period end');

  // Renewal: the next period starts now and must be paid.
  const next = periodOf(input.anchor, input.period + 1);
  const renewalAt = next.start;
  state.current_period = next;
  const paid = async (
    tx: { transaction_id: string; amount_micros: number },
    attempt: number,
    rail = input.rail,
  ): Promise<never> => {
    state.status = 'active';
    state.dunning = null;
    state.open_invoice = null;
    state.next_charge_at = state.cancel_at_period_end ? null : next.end;
    renewing = false;
    lastFailure = undefined;
    const at = nowIso();
    await record(
      {
        period: next.number,
        attempt,
        amount_micros: tx.amount_micros,
        rail,
        status: 'paid',
        transaction_id: tx.transaction_id,
        failure: null,
        invoice_id: null,
        due_at: null,
        at,
      },
      {
        type: SUBSCRIPTION_EVENT_TYPES.renewed,
        details: {
          period: next.number,
          current_period: next,
          amount_micros: tx.amount_micros,
          transaction_id: tx.transaction_id,
          attempt,
        },
      },
    );
    if (input.partnerId) {
      await withSummary(acts.commissions.creditCommission, `Credit the partner commission of period ${next.number}`, {
        orderId: input.orderId,
        period: String(next.number),
        partnerId: input.partnerId,
        amountMicros: tx.amount_micros,
        ...(input.agentId ? { agentId: input.agentId } : {}),
      });
    }
    await drain();
    await condition(allHandlersFinished);
    await drain();
    const carry = {
      typedSearchAttributes: [
        { key: SA.waitingOn, value: 'renewal' },
        { key: SA.waitingSince, value: new Date(next.start) },
      ],
    };
    // OPERATOR_VIEW: the next run starts waiting on its renewal; no upsert needed there.
    return (
      view ? makeContinueAsNewFunc<typeof subscriptionWorkflow>(carry) : continueAsNew<typeof subscriptionWorkflow>
    )({
      ...input,
      period: next.number,
      version,
      firstPayment: undefined,
      ...(state.cancel_at_period_end ? { cancelReason: state.cancel_reason ?? '' } : {}),
    });
  };

  // A checkout session's one payment is no authority to debit the wallet again: its renewals are invoices.
  if (input.rail === 'agent_wallet' && input.terms.renewal !== 'invoice') {
    const retries = input.terms.retryAfterSeconds;
    for (let attempt = 1; attempt <= retries.length + 1; attempt++) {
      if (attempt > 1) {
        const at = plusSeconds(renewalAt, retries[attempt - 2] ?? 0);
        const retry = `Dunning retry ${attempt - 1} of ${retries.length} at ${utc(at)}`;
        if (await waitUntil(at, () => endNow !== undefined, retry)) return end('cancelled', endNow ?? 'cancelled');
      }
      renewing = true;
      show();
      try {
        const tx = await withSummary(
          acts.payments.chargeRenewal,
          `Charge renewal ${next.number}: ${price} on ${input.rail}${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
          {
            orderId: input.orderId,
            ...(input.agentId ? { agentId: input.agentId } : {}),
            period: next.number,
            amountMicros: input.amountMicros,
          },
        );
        return await paid(tx, attempt);
      } catch (err) {
        renewing = false;
        const cause = businessFailure(err);
        if (!cause) throw err;
        lastFailure = cause.type ?? cause.message;
        const retryAfter = retries[attempt - 1];
        const nextRetry = retryAfter === undefined ? null : plusSeconds(renewalAt, retryAfter);
        state.status = 'past_due';
        state.dunning = { retries_done: attempt - 1, next_retry_at: nextRetry };
        state.next_charge_at = nextRetry;
        wait(nowIso());
        await record(
          {
            period: next.number,
            attempt,
            amount_micros: input.amountMicros,
            rail: input.rail,
            status: 'failed',
            transaction_id: null,
            failure: cause.type ?? cause.message,
            invoice_id: null,
            due_at: null,
            at: nowIso(),
          },
          {
            type: SUBSCRIPTION_EVENT_TYPES.paymentFailed,
            details: {
              period: next.number,
              attempt,
              failure: cause.type ?? 'payment_failed',
              message: cause.message,
              next_retry_at: nextRetry,
            },
          },
        );
      }
    }
    return end('suspended', `renewal of period ${next.number} unpaid after ${retries.length} retries`);
  }

  // Other rails: an invoice to pay by its due date.
  const dueAt = plusSeconds(renewalAt, input.terms.invoiceDueSeconds);
  const id = invoiceId(input.orderId, next.number);
  state.open_invoice = { invoice_id: id, period: next.number, amount_micros: input.amountMicros, due_at: dueAt };
  state.next_charge_at = null;
  wait(nowIso());
  await record(
    {
      period: next.number,
      attempt: 1,
      amount_micros: input.amountMicros,
      rail: input.rail,
      status: 'invoiced',
      transaction_id: null,
      failure: null,
      invoice_id: id,
      due_at: dueAt,
      at: nowIso(),
    },
    {
      type: SUBSCRIPTION_EVENT_TYPES.invoiceIssued,
      details: { period: next.number, invoice_id: id, amount_micros: input.amountMicros, due_at: dueAt },
    },
  );
  const invoice = state.open_invoice;
  const due = `Invoice ${id} due at ${utc(dueAt)}`;
  let woken: boolean;
  if (v2) {
    // Verify queued payments one by one (those accepted before the due date are verified even after it).
    for (;;) {
      woken = await waitUntil(
        dueAt,
        () => endNow !== undefined || invoicePayment !== undefined || invoiceAsks.length > 0,
        due,
      );
      const ask = invoiceAsks.shift();
      if (!ask) break;
      // Once paid or ending, a queued request is answered by the outcome (its handler waits for the invoice to close).
      if (endNow === undefined && !invoicePayment) {
        renewing = true;
        show();
        try {
          invoicePayment = await withSummary(
            acts.payments.verifyInvoicePayment,
            `Verify the payment of ${ask.req.invoice_id}`,
            {
              invoiceId: ask.req.invoice_id,
              transactionId: ask.req.transaction_id,
              amountMicros: invoice.amount_micros,
            },
          );
        } catch (err) {
          ask.failure = asUpdateFailure(err, FailureType.paymentFailed);
        }
        renewing = false;
        show();
      }
      ask.done = true;
    }
  } else {
    woken = await waitUntil(dueAt, () => endNow !== undefined || invoicePayment !== undefined, due);
    // A payment being verified at the due date is awaited, not cut off.
    if (!woken) await condition(() => !invoiceCheck);
  }
  if (invoicePayment) return paid(invoicePayment, 1, 'linkpay_ncp');
  if (woken) return end('cancelled', endNow ?? 'cancelled');
  return end('suspended', `invoice ${id} unpaid at its due date`);
}
