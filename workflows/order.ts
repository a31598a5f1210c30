/**
 * The order workflow: one per order, id `order-<order_id>`.
 *
 * awaiting_payment → paid → fulfilling → delivered → accepted | rejected, with expired (unpaid at the deadline)
 * and failed → refunded (fulfillment failed after every retry). Payment and review arrive as Updates whose
 * validators refuse a transition asked in the wrong state before anything is written to history.
 * Expert-delivery services add fulfilling → in_engineering → delivered (or sla_breached → delivered | cancelled),
 * workflows/expert.ts; monthly services start their subscription workflow at delivery, workflows/subscription.ts.
 *
 * Source: seed §3, §4; issue 2 §4.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  executeChild,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CommissionActivities } from '../activities/commissions';
import { orderDetails, orderSummaries as S, orderWaitingOn, type WaitingOn } from './details';
import {
  SA,
  confirmPaymentUpdate,
  getStateQuery,
  holdPaymentUpdate,
  recoverPaymentSignal,
  reviewUpdate,
} from './shared';
import {
  FailureType,
  TERMINAL_STATUSES,
  canTransition,
  type ConfirmPaymentRequest,
  type DeliverableRecord,
  type FulfillmentInput,
  type OrderState,
  type OrderStatus,
  type OrderWorkflowInput,
  type PaymentRail,
  type PaymentRecord,
  type RefundRecord,
  transitionEventData,
} from '../src/domain/order';
import type { OrderPatch } from '../src/repos/orders';
import { installEngineering } from './expert';
import {
  CAPTURE_OPTIONS,
  LOCAL_CAPTURE_OPTIONS,
  LOCAL_RECORD_OPTIONS,
  PRODUCE,
  PRODUCE_OPTIONS,
  RECORD_OPTIONS,
  asUpdateFailure,
  copyJson,
  nowIso,
  refusal,
  withRemoteFallback,
  withSummary,
} from './policies';
import { endSubscription, startSubscription } from './subscription';

/*
 * Retry and option presets: workflows/policies.ts. Options are not part of the recorded commands, so changing them
 * needs no patch (test/integration/replay.test.ts).
 */
const remoteRecords = proxyActivities<Activities>(RECORD_OPTIONS);
/** Partner commissions: bookkeeping like `remoteRecords`. */
const commissions = proxyActivities<CommissionActivities>(RECORD_OPTIONS);
const remotePayments = proxyActivities<Activities>(CAPTURE_OPTIONS);
const remoteProducers = proxyActivities<Activities>(PRODUCE_OPTIONS);

/**
 * The same bookkeeping, wallet capture and fulfillment as local activities: they take milliseconds, so they run
 * inside the workflow task that needs them, with no activity task round trip through the server (issue 9 §3); a dead
 * worker's attempt is retried after the workflow task timeout. Used by workflows that took the `local-activities`
 * patch; older histories replay with the activities above.
 */
const localRecords = proxyLocalActivities<Activities>(LOCAL_RECORD_OPTIONS);
const localPayments = proxyLocalActivities<Activities>(LOCAL_CAPTURE_OPTIONS);
const localProducers = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: PRODUCE });

/**
 * A local activity cancelled by the SDK, not by this workflow, is run again as a normal activity (issue 14).
 *
 * When Core evicts a run from the worker's cache (cache full under a backlog of workflow tasks, e.g. after a Temporal
 * or database restart; or an error reporting the task) it cancels the run's local activities (`CancelAllInRun`); one
 * waiting out its retry backoff resolves at once as `ActivityFailure("Local Activity cancelled")` caused by a
 * `CancelledFailure`. That resolution reaches the workflow before the eviction, and the workflow task that carries its
 * consequences still completes: uncaught, it failed the whole order workflow (the `recordOrder` step) and the payment
 * Update (`chargePayment`). The fallback is a normal activity, a server command that no eviction cancels; its commands
 * differ from what such a run did before, so it is behind `patched()` and histories that ended in that failure replay
 * unchanged. A cancellation this workflow asked for (its scope cancelled) is rethrown as before.
 */
const LA_CANCEL_FALLBACK = 'local-activity-cancel-fallback';

/**
 * A payment Update that arrives while `recordOrder` is still running (retrying while the database is down) charges
 * only once the order is recorded. Run side by side, the two local activities resolved in one order when the
 * workflow ran and in another when it was replayed, so a charge cancelled by an eviction put its fallback's commands
 * before the payment deadline's timer on replay: a nondeterminism error on every task, the order stuck (seen in the
 * server-kill drill's kept history, database killed under load). The nearest upstream report is
 * temporalio/sdk-rust#943 (an Update right after the start, worker restarts, then a nondeterminism error). In
 * sequence, the commands come in one order only. Histories from before replay as they ran.
 */
const CHARGE_AFTER_RECORD = 'charge-after-record';

/**
 * Issue 9 §3 (fewer workflow activations and database writes per order): an order without a partner records `paid`
 * and `fulfilling` in one `recordTransitions`, and a single automated service is produced and recorded `delivered`
 * by one `deliverService` (recorded by `recordTransition` when it did not: language work, or a failed write). An
 * accepted order then runs five local activities instead of seven. Histories from before keep one activity per step.
 */
const FEWER_LOCAL_ACTIVITIES = 'fewer-local-activities';

/**
 * Issue 24 §1: message handlers issue no command. Two Updates accepted in one activation ran their `patched()` calls,
 * search-attribute upserts and payment activities in an order that depended on how the activation was cut, which a
 * replay cuts differently: `[TMPRL1100] Nondeterminism error` and an order stuck for good. From this patch on, handlers
 * only change state and queue requests; the main coroutine alone schedules activities, upserts and timers, in one
 * order. Every older patch id is decided by this one (true), so such runs record one marker in all. Runs from before
 * keep the old code path, patch calls included.
 */
const MESSAGES_IN_MAIN = 'messages-in-main-coroutine';

/**
 * Issue 26 §1 (operators read the order in the Web UI): the main coroutine keeps the `WaitingOn` / `WaitingSince`
 * search attributes current (merged into the `OrderStatus` upserts, so no extra event; at the start only when the
 * client did not set them), and an expert order's SLA timer is kept across engineer Updates instead of being
 * cancelled and restarted at each (two events fewer per Update). Its progress entries stay normal activities: an
 * Update answered in the activation that starts the next local activity, with another Update arriving meanwhile, can
 * leave a history the SDK cannot replay (test/unit/workflows/messageInterleavings.test.ts; docs/operators.md). New
 * runs record this one marker, which also decides MESSAGES_IN_MAIN (and through it every older id), so a run still
 * records one patch marker in all. Summaries and current details are not commands and apply to every run.
 */
const OPERATOR_VIEW = 'operator-view';

/**
 * Issue 25 §4 (the order path's share of hello-world): the charge's local activity also records `paid` (and, without
 * a partner, `fulfilling`) with the payment (`chargeAndRecordPaid`), one activation and one local activity fewer per
 * paid order. New runs record this one marker, which decides OPERATOR_VIEW (and through it every older id); runs from
 * before charge and record in two activities.
 */
const PAID_WITH_CHARGE = 'paid-recorded-with-charge';

/**
 * Issue 25 §4: an order whose creator writes its record (`input.recordedAtCreation`: the read model, `order.created`
 * and its webhooks, src/services/orders.ts) runs no `recordOrder` at its start, one activation and one local activity
 * fewer per order; its first transition carries the input, so the activity writes the record first when the creator
 * died before it did. Asked only when the input says so (an order created by an older API still records itself); new
 * runs then record this one marker, which decides PAID_WITH_CHARGE (and through it every older id). A run whose start
 * an older worker processed has no marker, so it replays as it ran.
 */
const RECORDED_AT_CREATION = 'order-recorded-at-creation';

/**
 * Issue 39 §2 (an order at half the CPU): a single automated service of an order without a partner is charged,
 * produced and recorded `paid` → `fulfilling` → `delivered` by one local activity (`chargeAndDeliver`): one
 * activation, one local activity and three database commands fewer per order. The payment Update still answers the
 * order as of its payment. Asked only for such orders whose creator records them (RECORDED_AT_CREATION); new runs
 * then record this one marker, which decides RECORDED_AT_CREATION (and through it every older id).
 */
const CHARGE_AND_DELIVER = 'charge-and-deliver';

const transitionRefused = (operation: string, status: OrderStatus) =>
  refusal(`Cannot ${operation} while the order is ${status}`, FailureType.invalidTransition, status);

/** Runs an order from creation to its end; returns the final state. */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderState> {
  const singleAutomated =
    input.recordedAtCreation === true &&
    input.partnerId === undefined &&
    input.includes.length === 0 &&
    !input.expert &&
    !input.resume;
  const chargeAndDeliver = singleAutomated && patched(CHARGE_AND_DELIVER);
  const atCreation = chargeAndDeliver || (input.recordedAtCreation === true && patched(RECORDED_AT_CREATION));
  const paidWithCharge = atCreation || patched(PAID_WITH_CHARGE);
  const view = paidWithCharge || patched(OPERATOR_VIEW);
  const v2 = view || patched(MESSAGES_IN_MAIN);
  /** Whether patch `id` applies: every one does under MESSAGES_IN_MAIN; older runs ask at the point they asked. */
  const has = (id: string): boolean => v2 || patched(id);
  const local = has('local-activities');
  const fallback = () => has(LA_CANCEL_FALLBACK);
  const bookkeeping = local ? withRemoteFallback(localRecords, remoteRecords, fallback) : remoteRecords;
  const payments = local ? withRemoteFallback(localPayments, remotePayments, fallback) : remotePayments;
  const producers = local ? withRemoteFallback(localProducers, remoteProducers, fallback) : remoteProducers;
  /** A repaired order's new run takes over where the read model stands (scripts/repair-orders.ts). */
  const resume = v2 ? input.resume : undefined;
  const state: OrderState = resume
    ? {
        status: resume.status,
        progress: copyJson(resume.progress),
        deliverables: copyJson(resume.deliverables),
        ...(resume.payment ? { payment: resume.payment } : {}),
      }
    : {
        status: 'awaiting_payment',
        progress: [{ status: 'awaiting_payment', at: input.record.created_at }],
        deliverables: [],
      };
  let version = resume?.version ?? 1;
  /**
   * Status of the newest transition written to the read model (webhooks and GET read that, not `state`); set once the
   * activity that wrote it has answered (`deliverService` writes `delivered` before).
   */
  let recordedStatus: OrderStatus = resume?.status ?? 'awaiting_payment';
  let paymentInFlight = false;
  /** Set once `recordOrder` has written the order: a payment Update waits for it (see CHARGE_AFTER_RECORD). */
  let orderRecorded = false;
  /** RECORDED_AT_CREATION: the input, on the first transition (version 2), for the activity to write the order first. */
  const createWith = (v: number): { create?: OrderWorkflowInput } => (atCreation && v === 2 ? { create: input } : {});
  /** Set at the payment deadline: from then on no capture may start. */
  let paymentClosed = false;
  /** PAID_WITH_CHARGE: when the charge's activity recorded `paid`, and whether it is in the read model. */
  let paidRecord: { at: string; recorded: boolean } | undefined;
  /** CHARGE_AND_DELIVER: the delivery the charge's activity recorded with it, if it did. */
  let deliveredWithCharge: { deliverables: DeliverableRecord[]; at: string; recorded: boolean } | undefined;
  /** CHARGE_AND_DELIVER: the issue time the goods were produced with, kept when `deliverService` produces them again. */
  let issuedWithCharge: string | undefined;
  /** CHARGE_AND_DELIVER: the payment Update that charged, answered with the order as of its payment. */
  let chargedAsk: PaymentAsk | undefined;
  /** MESSAGES_IN_MAIN: payment Updates waiting for the main coroutine to charge (or refuse) them, in arrival order. */
  const paymentAsks: PaymentAsk[] = [];
  /** MESSAGES_IN_MAIN: a `recoverPayment` Signal asked the main coroutine to look for money already taken. */
  let recoveryAsked = false;
  /** MESSAGES_IN_MAIN: a queued payment is being charged by the main coroutine. */
  let charging = false;
  /**
   * Issue 36 §1: a payment about to move money outside the workflow (an x402 settlement, a hosted-form card payment)
   * holds the order for its rail until `until` (ms, workflow clock): payments on other rails are refused before their
   * money moves. Set and released by `holdPayment`, which writes no command.
   */
  let hold: { rail: PaymentRail; until: number } | undefined;
  /** Set when the payment deadline fires: from then on no hold is granted (nothing new may start taking money). */
  let paymentDeadlinePassed = false;
  const heldFor = (): PaymentRail | undefined => (hold && hold.until > Date.now() ? hold.rail : undefined);
  const snapshot = (): OrderState => copyJson(state);
  /** What the Web UI shows (issue 26 §1): set at every change of `state` below. */
  const shown: { autoAcceptAt?: string; lastPaymentFailure?: string } = {};
  const show = (): void =>
    setCurrentDetails(
      orderDetails({
        orderId: input.orderId,
        serviceId: input.serviceId,
        amountMicros: input.amountMicros,
        currency: input.currency,
        rails: input.rails,
        paymentDeadline: input.record.payment_deadline,
        includes: input.includes,
        state,
        ...shown,
      }),
    );
  /**
   * OPERATOR_VIEW: whom the order waits on since when, as the `WaitingOn` / `WaitingSince` search attributes hold it.
   * Set at the start by the API (src/temporal/orders.ts); upserted here only when missing.
   */
  let waiting: { on: WaitingOn; since: string } = {
    on: orderWaitingOn(state.status),
    since: state.progress.at(-1)?.at ?? input.record.created_at,
  };
  show();
  if (view && workflowInfo().typedSearchAttributes.get(SA.waitingOn) === undefined) {
    upsertSearchAttributes([
      { key: SA.waitingOn, value: waiting.on },
      { key: SA.waitingSince, value: new Date(waiting.since) },
    ]);
  }

  /**
   * Enters the given statuses in order and records them: one `recordTransition` for one, one `recordTransitions` for
   * several (merged: only the first may carry a patch). `at` fixes the time; `recorded`: an activity already wrote
   * them (`deliverService`), so only the workflow's state and search attribute change.
   */
  async function transitions(
    steps: [OrderStatus, OrderPatch?][],
    { at, recorded = false }: { at?: string; recorded?: boolean } = {},
  ): Promise<void> {
    const status0 = state.status;
    let lastAt = '';
    const records = steps.map(([status, patch = {}]) => {
      // The state machine's table is the law: a transition it lacks is a bug, and fails the workflow task (retried
      // after a fix) rather than writing an impossible status.
      if (!canTransition(state.status, status))
        throw new Error(`order ${input.orderId}: ${state.status} → ${status} is not a transition`);
      const when = at ?? nowIso();
      lastAt = when;
      state.status = status;
      state.progress.push({ status, at: when });
      version += 1;
      return {
        orderId: input.orderId,
        version,
        status,
        at: when,
        patch,
        eventSeq: version,
        eventData: transitionEventData(input.orderId, input.serviceId, status, patch),
        ...createWith(version),
      };
    });
    const on = orderWaitingOn(state.status);
    const moved = view && on !== waiting.on;
    if (moved) waiting = { on, since: lastAt };
    upsertSearchAttributes([
      { key: SA.orderStatus, value: state.status },
      ...(v2 && status0 === 'awaiting_payment' && state.payment
        ? [{ key: SA.paymentRail, value: state.payment.rail }]
        : []),
      ...(moved
        ? [
            { key: SA.waitingOn, value: waiting.on },
            { key: SA.waitingSince, value: new Date(waiting.since) },
          ]
        : []),
    ]);
    show();
    const [only] = records;
    if (!recorded) {
      const summary = S.record(records.map((r) => r.status));
      if (records.length === 1 && only) await withSummary(bookkeeping.recordTransition, summary, only);
      else await withSummary(bookkeeping.recordTransitions, summary, records);
    }
    recordedStatus = state.status;
  }

  const transition = (status: OrderStatus, patch: OrderPatch = {}): Promise<void> => transitions([[status, patch]]);

  setHandler(getStateQuery, snapshot);
  // Expert delivery (issue 6 §1, workflows/expert.ts): engineer Updates, SLA clock; numbered with the transitions.
  const engineering = input.expert
    ? installEngineering({
        input,
        state,
        transition,
        nextVersion: () => (version += 1),
        snapshot,
        recordedStatus: () => recordedStatus,
        has,
        show,
        keepSlaTimer: view,
      })
    : undefined;

  setHandler(recoverPaymentSignal, () => {
    if (!state.payment && !paymentClosed) recoveryAsked = true;
  });

  setHandler(
    confirmPaymentUpdate,
    async (req) => {
      if (v2) {
        // The main coroutine charges (collectPayment); this handler only waits for its answer and the record.
        if (!state.payment) {
          const ask: PaymentAsk = { req, done: false };
          paymentAsks.push(ask);
          await condition(() => ask.done);
          if (ask.failure !== undefined) throw ask.failure;
        }
        await condition(() => recordedStatus !== 'awaiting_payment');
        return chargedAsk?.answer && chargedAsk.req === req ? chargedAsk.answer : snapshot();
      }
      if (patched(CHARGE_AFTER_RECORD)) await condition(() => orderRecorded);
      await condition(() => !paymentInFlight);
      if (state.payment) return snapshot();
      if (!canTransition(state.status, 'paid') || paymentClosed) {
        throw transitionRefused('confirm payment', paymentClosed ? 'expired' : state.status);
      }
      paymentInFlight = true;
      try {
        state.payment = await withSummary(
          payments.chargePayment,
          S.charge(req.rail, input.amountMicros, input.currency),
          {
            orderId: input.orderId,
            rail: req.rail,
            transactionId: req.transaction_id,
            amountMicros: input.amountMicros,
            agentId: input.agentId,
            paidAt: nowIso(),
          },
        );
      } catch (err) {
        throw asUpdateFailure(err, FailureType.paymentFailed);
      } finally {
        paymentInFlight = false;
      }
      upsertSearchAttributes([{ key: SA.paymentRail, value: req.rail }]);
      // Answer once the main loop has recorded the payment, so a read after 200 sees `paid` or later.
      // Histories from before this patch answered as soon as the status changed in memory.
      const afterRecord = patched('confirm-payment-after-record');
      await condition(() => (afterRecord ? recordedStatus : state.status) !== 'awaiting_payment');
      return snapshot();
    },
    {
      validator: (req) => {
        const held = heldFor();
        if (!state.payment && held !== undefined && held !== req.rail) {
          throw refusal(
            `A payment of this order on ${held} is being taken; nothing was charged`,
            FailureType.paymentInProgress,
            state.status,
          );
        }
        if (!input.rails.includes(req.rail)) {
          throw ApplicationFailure.create({
            message: `${input.serviceId} is not sold on ${req.rail}; rails: ${input.rails.join(', ')}`,
            type: FailureType.railNotOffered,
            details: [{ rails: input.rails }],
          });
        }
        if (state.payment) {
          const same =
            state.payment.rail === req.rail &&
            (req.rail === 'agent_wallet' ||
              req.transaction_id === undefined ||
              req.transaction_id === state.payment.transaction_id);
          if (!same) throw transitionRefused('confirm another payment', state.status);
          return;
        }
        if (!canTransition(state.status, 'paid') || paymentClosed) {
          throw transitionRefused('confirm payment', paymentClosed ? 'expired' : state.status);
        }
      },
    },
  );

  setHandler(
    holdPaymentUpdate,
    (req) => {
      const rail = req.rail ?? 'x402_usdc';
      if (req.seconds > 0) hold = { rail, until: Date.now() + req.seconds * 1000 };
      else if (hold?.rail === rail) hold = undefined;
      return snapshot();
    },
    {
      validator: (req) => {
        const rail = req.rail ?? 'x402_usdc';
        if (!v2 || !Number.isFinite(req.seconds) || req.seconds < 0 || req.seconds > 600 || rail === 'agent_wallet') {
          throw refusal(
            'holdPayment takes 0 to 600 seconds for x402_usdc or linkpay_ncp',
            FailureType.invalidRequest,
            state.status,
          );
        }
        if (req.seconds === 0) return;
        if (!input.rails.includes(rail)) {
          throw ApplicationFailure.create({
            message: `${input.serviceId} is not sold on ${rail}; rails: ${input.rails.join(', ')}`,
            type: FailureType.railNotOffered,
            details: [{ rails: input.rails }],
          });
        }
        if (state.payment) throw transitionRefused('confirm another payment', state.status);
        if (paymentDeadlinePassed) throw transitionRefused('take a payment', 'expired');
        const held = heldFor();
        if (held !== undefined && held !== rail) {
          throw refusal(
            `A payment of this order on ${held} is being taken`,
            FailureType.paymentInProgress,
            state.status,
          );
        }
        if (paymentAsks.length > 0 || charging) {
          throw refusal('Another payment of this order is being charged', FailureType.paymentInProgress, state.status);
        }
        if (!canTransition(state.status, 'paid') || paymentClosed) {
          throw transitionRefused('confirm payment', paymentClosed ? 'expired' : state.status);
        }
      },
    },
  );

  setHandler(
    reviewUpdate,
    async (req) => {
      state.review = {
        action: req.action,
        ...(req.reason ? { reason: req.reason } : {}),
        automatic: false,
        at: nowIso(),
      };
      show();
      await condition(() => TERMINAL_STATUSES.includes(state.status));
      // Answer once the final status is in the read model; histories from before this rule answered earlier.
      if (has('review-answer-after-record')) await condition(() => TERMINAL_STATUSES.includes(recordedStatus));
      return snapshot();
    },
    {
      validator: (_req) => {
        if (!canTransition(state.status, 'accepted') || state.review) throw transitionRefused('review', state.status);
      },
    },
  );

  // RECORDED_AT_CREATION: the creator wrote the record; the first transition writes it if the creator could not.
  if (!atCreation) await withSummary(bookkeeping.recordOrder, S.recordOrder(input.orderId), input);
  orderRecorded = true;

  /**
   * MESSAGES_IN_MAIN: the payment phase, run by the main coroutine alone. Charges the queued `confirmPayment`
   * requests one by one until one succeeds (a refused one is answered and the next is tried); on a `recoverPayment`
   * Signal, and at the deadline before expiring, looks for money already taken for the order whose Update was lost
   * (`findOrderPayment`) and adopts it. A capture running at the deadline is waited for: no charge without goods.
   */
  async function collectPayment(): Promise<PaymentRecord | undefined> {
    let deadlinePassed = false;
    const deadline = new CancellationScope();
    const timer = deadline.run(() =>
      sleep(input.paymentDeadlineSeconds * 1000, { summary: S.paymentDeadline(input.record.payment_deadline) }),
    );
    timer.then(
      () => {
        deadlinePassed = true;
        paymentDeadlinePassed = true;
      },
      () => undefined,
    );
    // At the deadline (`final`), an x402 settlement still in flight is waited for (the activity retries until it
    // settles or fails): no charge without goods. An argument, not a command: histories replay unchanged.
    const lookup = async (): Promise<PaymentRecord | undefined> =>
      (await withSummary(bookkeeping.findOrderPayment, S.findPayment(), {
        orderId: input.orderId,
        rails: input.rails,
        amountMicros: input.amountMicros,
        ...(input.agentId !== undefined ? { agentId: input.agentId } : {}),
        paidAt: nowIso(),
        ...(deadlinePassed ? { final: true } : {}),
      })) ?? undefined;
    for (;;) {
      await condition(() => paymentAsks.length > 0 || recoveryAsked || deadlinePassed);
      const ask = paymentAsks.shift();
      if (ask) {
        charging = true;
        try {
          const charge = {
            orderId: input.orderId,
            rail: ask.req.rail,
            transactionId: ask.req.transaction_id,
            amountMicros: input.amountMicros,
            agentId: input.agentId,
            paidAt: nowIso(),
          };
          if (chargeAndDeliver) {
            const summary = S.chargeAndDeliver(ask.req.rail, input.amountMicros, input.currency, input.serviceId);
            const done = await withSummary(payments.chargeAndDeliver, summary, {
              ...charge,
              serviceId: input.serviceId,
              paid: { version: version + 1, thenFulfilling: true },
              ...createWith(version + 1),
              deliver: { inputs: input.inputs, issuedAt: charge.paidAt },
            });
            state.payment = done.payment;
            paidRecord = { at: done.at, recorded: done.recorded };
            deliveredWithCharge = done.delivery;
            issuedWithCharge = charge.paidAt;
            chargedAsk = ask;
          } else if (paidWithCharge) {
            // As `merged` below decides it for such a run (every older patch applies).
            const thenFulfilling = input.partnerId === undefined;
            const summary = S.chargeAndRecord(ask.req.rail, input.amountMicros, input.currency, thenFulfilling);
            const paid = await withSummary(payments.chargeAndRecordPaid, summary, {
              ...charge,
              serviceId: input.serviceId,
              paid: { version: version + 1, thenFulfilling },
              ...createWith(version + 1),
            });
            state.payment = paid.payment;
            paidRecord = { at: paid.at, recorded: paid.recorded };
          } else {
            const summary = S.charge(ask.req.rail, input.amountMicros, input.currency);
            state.payment = await withSummary(payments.chargePayment, summary, charge);
          }
          ask.done = true;
          charging = false;
          break;
        } catch (err) {
          charging = false;
          ask.failure = asUpdateFailure(err, FailureType.paymentFailed);
          ask.done = true;
          const refused = ask.failure instanceof ApplicationFailure ? ask.failure : undefined;
          shown.lastPaymentFailure = `${refused?.type ?? 'payment_failed'} on ${ask.req.rail}`;
          show();
          continue;
        }
      }
      recoveryAsked = false;
      const found = await lookup();
      if (found) {
        state.payment = found;
        break;
      }
      if (deadlinePassed && paymentAsks.length === 0) {
        paymentClosed = true;
        break;
      }
    }
    if (!deadlinePassed) deadline.cancel();
    // Requests still queued: the same payment again is answered with it, anything else is refused.
    for (const ask of paymentAsks.splice(0)) {
      const p = state.payment;
      const same =
        p !== undefined &&
        p.rail === ask.req.rail &&
        (ask.req.rail === 'agent_wallet' ||
          ask.req.transaction_id === undefined ||
          ask.req.transaction_id === p.transaction_id);
      if (!same)
        ask.failure = transitionRefused(p ? 'confirm another payment' : 'confirm payment', p ? 'paid' : 'expired');
      ask.done = true;
    }
    return state.payment;
  }

  let collected: PaymentRecord | undefined;
  if (resume?.payment) collected = resume.payment;
  else if (v2) collected = await collectPayment();
  else {
    // Payment, with a deadline. A capture still running at the deadline is waited for: no charge without goods.
    const paidInTime = await condition(() => state.payment !== undefined, input.paymentDeadlineSeconds * 1000, {
      summary: S.paymentDeadline(input.record.payment_deadline),
    });
    if (!paidInTime) {
      paymentClosed = true;
      await condition(() => !paymentInFlight);
    }
    collected = state.payment;
  }
  /** The workflow's end: waits for running Update handlers, answers the final state. */
  const finish = async (): Promise<OrderState> => {
    await condition(allHandlersFinished);
    return snapshot();
  };
  if (!collected) {
    await transition('expired');
    return finish();
  }
  const payment: PaymentRecord = collected;
  // Without a partner (whose commission is booked between the two), `paid` and `fulfilling` are one write, and a
  // single service's production and its `delivered` record one activity (FEWER_LOCAL_ACTIVITIES).
  const merged = local && input.partnerId === undefined && has(FEWER_LOCAL_ACTIVITIES);
  /** Where a repaired run resumes after payment: `paid`, `fulfilling` or `delivered`; undefined for any other run. */
  const resumedAt = resume?.payment && resume.status !== 'awaiting_payment' ? resume.status : undefined;
  if (resumedAt === undefined) {
    const paid: [OrderStatus, OrderPatch?][] = [['paid', { payment }]];
    await transitions(merged ? [...paid, ['fulfilling']] : paid, paidRecord ?? {});
    if (chargedAsk) chargedAsk.answer = snapshot();
  }
  // Partner commission: 20% of the payment received (issue 4 §4). Behind patched() so histories from before replay.
  const partnerId = input.partnerId !== undefined && has('partner-commission') ? input.partnerId : undefined;
  // Issue 10 §3: recorded pending here, credited only on acceptance, cancelled on a refund. Histories from before
  // credited at payment (and reverse on a refund); they keep that path.
  const commissionOnAcceptance = partnerId !== undefined && has('commission-pending-until-accepted');
  if (partnerId) {
    const commission = {
      orderId: input.orderId,
      partnerId,
      amountMicros: payment.amount_micros,
      agentId: input.agentId,
    };
    if (commissionOnAcceptance)
      await withSummary(commissions.recordCommission, S.commission('record', partnerId), commission);
    else await withSummary(commissions.creditCommission, S.commission('credit', partnerId), commission);
  }

  /** Returns the payment (wallet credit or provider refund) and takes back the partner's commission. */
  const refund = async (reason: string): Promise<RefundRecord> => {
    const record = await withSummary(
      bookkeeping.refundPayment,
      S.refund(payment.rail, payment.amount_micros, input.currency, reason),
      { orderId: input.orderId, payment, agentId: input.agentId, reason, at: nowIso() },
    );
    state.refund = record;
    if (partnerId) {
      await withSummary(commissions.reverseCommission, S.commission('reverse', partnerId), { orderId: input.orderId });
    }
    return record;
  };

  // A repaired run resumed at `delivered` has its goods out: only the review is left.
  if (resumedAt !== 'delivered') {
    if (resumedAt === 'paid' || (resumedAt === undefined && !merged)) await transition('fulfilling');
    // The same bytes as the charge's activity produced (and may have stored), should it have got that far.
    const issuedAt = issuedWithCharge ?? nowIso();
    /** What `deliverService` reported: the `delivered` transition's time and whether it wrote it. */
    let delivery: { at: string; recorded: boolean } | undefined;
    try {
      if (deliveredWithCharge) {
        state.deliverables = deliveredWithCharge.deliverables;
        delivery = { at: deliveredWithCharge.at, recorded: deliveredWithCharge.recorded };
      } else if (merged && input.includes.length === 0 && !engineering) {
        const done = await withSummary(producers.deliverService, S.deliver(input.serviceId), {
          orderId: input.orderId,
          serviceId: input.serviceId,
          inputs: input.inputs,
          issuedAt,
          delivered: { version: version + 1 },
        });
        state.deliverables = done.deliverables;
        delivery = { at: done.at, recorded: done.recorded };
      } else {
        state.deliverables = await fulfil(input, issuedAt, producers);
      }
    } catch (err) {
      state.failure = err instanceof Error ? err.message : String(err);
      await transition('failed', { failure: state.failure });
      await transition('refunded', { refund: await refund('fulfillment_failed') });
      return finish();
    }
    // Expert delivery: the blueprint is out; wait for the engineer (or the buyer's cancel after an SLA breach).
    const expert = engineering ? await engineering.run(payment) : undefined;
    if (expert?.outcome === 'cancelled') {
      await transition('cancelled', {
        refund: await refund(
          expert.reason ? `cancelled after SLA breach: ${expert.reason}` : 'cancelled after SLA breach',
        ),
      });
      return finish();
    }
    await transitions([['delivered', { deliverables: state.deliverables }]], delivery ?? {});
    // Monthly services: the subscription workflow takes over billing from here (issue 6 §2, workflows/subscription.ts).
    if (input.subscription) await startSubscription(input, payment, { waitingOn: view });
  }

  // Review window: silence means acceptance.
  const deliveredAt = resumedAt === 'delivered' && resume?.delivered_at ? Date.parse(resume.delivered_at) : Date.now();
  const reviewMs = Math.max(1, input.reviewWindowSeconds * 1000 - (Date.now() - deliveredAt));
  const autoAcceptAt = new Date(Date.now() + reviewMs).toISOString();
  shown.autoAcceptAt = autoAcceptAt;
  show();
  const reviewed = await condition(() => state.review !== undefined, reviewMs, {
    summary: S.reviewWindow(autoAcceptAt),
  });
  if (!reviewed || !state.review) state.review = { action: 'accept', automatic: true, at: nowIso() };
  const review = state.review;
  if (review.action === 'accept') {
    // Final and kept: the partner's commission becomes spendable (before the status, so an accepted order has it).
    if (commissionOnAcceptance) {
      await withSummary(commissions.releaseCommission, S.commission('release', partnerId), { orderId: input.orderId });
    }
    await transition('accepted', { review });
  } else {
    const refunded = await refund(review.reason ? `rejected: ${review.reason}` : 'rejected');
    if (input.subscription) await endSubscription(input.orderId, 'order rejected');
    await transition('rejected', { review, refund: refunded });
  }
  return finish();
}

/** A `confirmPayment` Update waiting for the main coroutine (MESSAGES_IN_MAIN): `failure` set when it is refused. */
interface PaymentAsk {
  req: ConfirmPaymentRequest;
  done: boolean;
  failure?: unknown;
  /** CHARGE_AND_DELIVER: the order as of its payment, the answer of the Update that paid it. */
  answer?: OrderState;
}

/** Single services run one activity; bundles run one child workflow per included service, then a manifest. */
async function fulfil(
  input: OrderWorkflowInput,
  issuedAt: string,
  producers: typeof remoteProducers,
): Promise<DeliverableRecord[]> {
  if (input.includes.length === 0) {
    return withSummary(producers.fulfilService, S.produce(input.serviceId), {
      orderId: input.orderId,
      serviceId: input.serviceId,
      inputs: input.inputs,
      issuedAt,
    });
  }
  const parent = workflowInfo().workflowId;
  const parts = await Promise.all(
    input.includes.map((serviceId, i) =>
      executeChild(fulfillmentWorkflow, {
        workflowId: `${parent}-part-${i + 1}-${serviceId}`,
        args: [{ orderId: input.orderId, serviceId, inputs: input.inputs, issuedAt }],
        staticSummary: `Bundle part ${serviceId} of ${input.serviceId}`,
      }),
    ),
  );
  const files = parts.flat();
  const manifest = await withSummary(producers.writeBundleManifest, S.manifest(input.serviceId), {
    orderId: input.orderId,
    serviceId: input.serviceId,
    inputs: input.inputs,
    issuedAt,
    parts: files,
  });
  return [manifest, ...files];
}

/** Child workflow: fulfils one included service of a bundle. */
export async function fulfillmentWorkflow(input: FulfillmentInput): Promise<DeliverableRecord[]> {
  const producers = patched('local-activities')
    ? withRemoteFallback(localProducers, remoteProducers, () => patched(LA_CANCEL_FALLBACK))
    : remoteProducers;
  setCurrentDetails(`**Producing** ${input.serviceId}, a bundle part of order ${input.orderId}`);
  const files = await withSummary(producers.fulfilService, S.produce(input.serviceId), input);
  setCurrentDetails(`**Produced** ${input.serviceId}: ${files.map((f) => f.name).join(', ')}`);
  return files;
}
