/**
 * Expert delivery inside the order workflow (issue 6 §1): after the blueprint documents are produced, the order
 * waits in the engineer queue (`in_engineering`) for an engineer to claim it, upload deliverables and mark it ready.
 * The SLA clock runs from payment: at `escalateAtPercent` of `max_fulfillment_hours` an `order.sla_escalated`
 * progress entry, at the deadline `sla_breached`, after which the buyer may cancel (refunded by the caller) or keep
 * waiting.
 *
 * Runs in the order workflow itself (not a child), so the operators' Updates reach the workflow that waits and the
 * progress entries share the order's version and event numbering. Every write to the read model is made by the
 * main coroutine, in order: Update handlers only change state and queue their progress entry (`HandlerWrites`,
 * workflows/handlerWrites.ts), then wait until it is recorded.
 */
import { CancellationScope, condition, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { LongRunningActivities } from '../activities/longRunning';
import { orderSummaries as S } from './details';
import { addDeliverableUpdate, cancelOrderUpdate, claimEngineeringUpdate, markReadyUpdate } from './shared';
import {
  FailureType,
  ORDER_PROGRESS_EVENT_TYPES,
  canTransition,
  type DeliverableRecord,
  type EngineeringRecord,
  type OrderProgressEvent,
  type OrderState,
  type OrderStatus,
  type OrderWorkflowInput,
  type PaymentRecord,
} from '../src/domain/order';
import type { OrderPatch } from '../src/repos/orders';
import { HandlerWrites } from './handlerWrites';
import { RECORD_OPTIONS, copyJson as copy, nowIso, refusal, withSummary } from './policies';

/** Bookkeeping writes, retried until they succeed (as the order workflow's `records`). */
const records = proxyActivities<LongRunningActivities>(RECORD_OPTIONS);

/** What the expert part needs from the order workflow that hosts it. */
export interface OrderRuntime {
  input: OrderWorkflowInput;
  state: OrderState;
  transition(status: OrderStatus, patch?: OrderPatch): Promise<void>;
  /** Takes the next version number (shared by transitions and progress entries). */
  nextVersion(): number;
  snapshot(): OrderState;
  /** The newest status written to the read model (Update answers wait for it, so a read after them sees it). */
  recordedStatus?(): OrderStatus;
  /** Whether patch `id` applies to this run (workflows/order.ts MESSAGES_IN_MAIN: handlers call no `patched()`). */
  has?(id: string): boolean;
  /** Shows the order's current details again after a change here (issue 26 §1; not a command). */
  show?(): void;
  /**
   * workflows/order.ts OPERATOR_VIEW: one timer per SLA milestone (escalation, deadline), kept while engineer Updates
   * come and go, instead of a `condition` timeout cancelled and restarted at each (two events fewer per Update).
   */
  keepSlaTimer?: boolean;
}

/** How the engineering wait ended. `cancelled`: the buyer cancelled after the breach; the caller refunds. */
export type EngineeringOutcome = { outcome: 'ready' } | { outcome: 'cancelled'; reason: string };

const WAITING: readonly OrderStatus[] = ['in_engineering', 'sla_breached'];

/**
 * Registers the engineering and cancel Updates on the order workflow (call before the first await) and returns the
 * engineering loop, to run after the blueprint was produced.
 */
export function installEngineering(rt: OrderRuntime): { run(payment: PaymentRecord): Promise<EngineeringOutcome> } {
  const { input, state } = rt;
  const terms = input.expert;
  if (!terms) throw new Error('installEngineering needs input.expert');
  const writes = new HandlerWrites<{ event: OrderProgressEvent; data: Record<string, unknown> }>();
  let cancelReason: string | undefined;
  const show = (): void => rt.show?.();

  const enqueue = (event: OrderProgressEvent, data: Record<string, unknown>): number => {
    return writes.push({ event, data });
  };

  /** Refuses an operator Update unless the order waits for its engineer. */
  const requireWaiting = (operation: string): EngineeringRecord => {
    const eng = state.engineering;
    if (!eng || !WAITING.includes(state.status) || eng.ready_at !== null || cancelReason !== undefined) {
      throw refusal(
        `Cannot ${operation} while the order is ${state.status}`,
        FailureType.invalidTransition,
        state.status,
      );
    }
    return eng;
  };
  const requireClaimer = (eng: EngineeringRecord, engineer: string, operation: string): void => {
    if (eng.engineer !== engineer) {
      throw refusal(
        eng.engineer
          ? `Only ${eng.engineer}, who claimed the order, can ${operation}`
          : `Claim the order before you ${operation}`,
        FailureType.notClaimed,
        state.status,
      );
    }
  };

  setHandler(
    claimEngineeringUpdate,
    async (req) => {
      const eng = state.engineering;
      if (!eng || eng.engineer === req.engineer) return rt.snapshot();
      const previous = eng.engineer;
      eng.engineer = req.engineer;
      eng.claimed_at = nowIso();
      show();
      const n = enqueue('engineer_claimed', {
        engineer: req.engineer,
        ...(previous ? { previous_engineer: previous } : {}),
      });
      await condition(() => writes.done(n));
      return rt.snapshot();
    },
    {
      validator: (req) => {
        const eng = requireWaiting('claim the order');
        if (eng.engineer && eng.engineer !== req.engineer && !req.reassign) {
          throw refusal(
            `The order is claimed by ${eng.engineer}; send reassign: true to take it over`,
            FailureType.alreadyClaimed,
            state.status,
          );
        }
      },
    },
  );

  setHandler(
    addDeliverableUpdate,
    async (req) => {
      const eng = state.engineering;
      if (!eng || eng.uploads.some((u) => u.name === req.name)) return rt.snapshot();
      const record: DeliverableRecord = {
        name: req.name,
        sha256: req.sha256,
        size: req.size,
        media_type: req.media_type,
        service_id: input.serviceId,
      };
      eng.uploads.push(record);
      show();
      const n = enqueue('deliverable_uploaded', {
        engineer: req.engineer,
        name: req.name,
        sha256: req.sha256,
        size: req.size,
      });
      await condition(() => writes.done(n));
      return rt.snapshot();
    },
    {
      validator: (req) => {
        const eng = requireWaiting('upload a deliverable');
        requireClaimer(eng, req.engineer, 'upload deliverables');
        const clash = [...state.deliverables, ...eng.uploads].find((d) => d.name === req.name);
        // The same bytes under the same name again is a retry; other bytes under a taken name are refused.
        if (clash && !(clash.sha256 === req.sha256 && eng.uploads.includes(clash))) {
          throw refusal(
            `The order already has a deliverable named ${req.name}`,
            FailureType.deliverableConflict,
            state.status,
          );
        }
      },
    },
  );

  setHandler(
    markReadyUpdate,
    async (req) => {
      const eng = state.engineering;
      if (eng && eng.ready_at === null) {
        eng.ready_at = nowIso();
        eng.note = req.note ?? null;
        show();
      }
      await condition(() => state.status !== 'in_engineering' && state.status !== 'sla_breached');
      // Answer once `delivered` is in the read model; histories from before this rule answered earlier.
      const recorded = rt.recordedStatus;
      if (recorded && (rt.has ?? patched)('ready-answer-after-record')) {
        await condition(() => recorded() !== 'in_engineering' && recorded() !== 'sla_breached');
      }
      return rt.snapshot();
    },
    {
      validator: (req) => {
        const eng = state.engineering;
        // A retried "ready" by the same engineer answers with the delivered order.
        if (eng && eng.ready_at !== null && eng.engineer === req.engineer) return;
        const waiting = requireWaiting('mark the order ready');
        requireClaimer(waiting, req.engineer, 'mark it ready');
        if (waiting.uploads.length === 0) {
          throw refusal(
            'Upload at least one deliverable before marking the order ready',
            FailureType.noDeliverables,
            state.status,
          );
        }
      },
    },
  );

  setHandler(
    cancelOrderUpdate,
    async (req) => {
      cancelReason ??= req.reason ?? '';
      await condition(() => state.status === 'cancelled');
      return rt.snapshot();
    },
    {
      validator: (_req) => {
        if (cancelReason !== undefined) return;
        if (!canTransition(state.status, 'cancelled') || state.engineering?.ready_at !== null) {
          throw refusal(
            `Cannot cancel while the order is ${state.status}: only an order past its SLA can be cancelled`,
            FailureType.invalidTransition,
            state.status,
          );
        }
      },
    },
  );

  /** Appends one progress entry (read model, event, webhooks) without changing the status. */
  async function note(event: OrderProgressEvent, data: Record<string, unknown>): Promise<void> {
    const at = nowIso();
    const version = rt.nextVersion();
    state.progress.push({ status: state.status, at, event });
    show();
    const engineer = typeof data.engineer === 'string' ? data.engineer : null;
    await withSummary(records.recordProgress, S.progress(event, engineer), {
      orderId: input.orderId,
      version,
      status: state.status,
      event,
      at,
      patch: { engineering: copy(state.engineering ?? null) },
      eventType: ORDER_PROGRESS_EVENT_TYPES[event],
      eventData: { order_id: input.orderId, service_id: input.serviceId, status: state.status, event, details: data },
    });
  }

  return {
    async run(payment) {
      const paidAt = Date.parse(payment.paid_at);
      const slaMs = Math.round(terms.maxFulfillmentHours * 3_600_000);
      const deadline = paidAt + slaMs;
      const escalateAt = paidAt + Math.round((slaMs * terms.escalateAtPercent) / 100);
      const eng: EngineeringRecord = {
        queue: 'expert',
        assigned_at: nowIso(),
        sla_deadline: new Date(deadline).toISOString(),
        escalate_at: new Date(escalateAt).toISOString(),
        escalated_at: null,
        breached_at: null,
        engineer: null,
        claimed_at: null,
        uploads: [],
        ready_at: null,
        note: null,
      };
      state.engineering = eng;
      await rt.transition('in_engineering', { deliverables: state.deliverables, engineering: copy(eng) });
      /** keepSlaTimer: the running timer of the next SLA milestone (its time), and whether it fired. */
      let milestone: { at: number; scope: CancellationScope; fired: boolean } | undefined;
      const stopTimer = (): void => {
        if (milestone && !milestone.fired) milestone.scope.cancel();
      };
      const summary = (at: number) =>
        S.slaMilestone(at === escalateAt ? 'escalation' : 'deadline', new Date(at).toISOString());

      for (;;) {
        await writes.drainEach((next) => note(next.event, next.data));
        if (eng.ready_at !== null) {
          stopTimer();
          state.deliverables = [...state.deliverables, ...eng.uploads];
          return { outcome: 'ready' };
        }
        if (cancelReason !== undefined) {
          stopTimer();
          return { outcome: 'cancelled', reason: cancelReason };
        }
        const now = Date.now();
        if (eng.escalated_at === null && now >= escalateAt) {
          eng.escalated_at = nowIso();
          show();
          await note('sla_escalated', { sla_deadline: eng.sla_deadline, engineer: eng.engineer });
          continue;
        }
        if (eng.breached_at === null && now >= deadline) {
          eng.breached_at = nowIso();
          await rt.transition('sla_breached', { engineering: copy(eng) });
          continue;
        }
        const timer = eng.escalated_at === null ? escalateAt : eng.breached_at === null ? deadline : undefined;
        const woken = () => writes.pending || eng.ready_at !== null || cancelReason !== undefined;
        if (rt.keepSlaTimer) {
          if (timer !== undefined && milestone?.at !== timer) {
            stopTimer();
            const next: { at: number; scope: CancellationScope; fired: boolean } = {
              at: timer,
              scope: new CancellationScope(),
              fired: false,
            };
            milestone = next;
            next.scope
              .run(() => sleep(Math.max(1, timer - now), { summary: summary(timer) }))
              .then(
                () => (next.fired = true),
                () => undefined,
              );
          }
          const current = milestone;
          await condition(() => woken() || (current !== undefined && current.at === timer && current.fired));
        }
        // condition(fn, 0) would wait forever: a due timer is at least 1 ms away.
        else if (timer === undefined) await condition(woken);
        else await condition(woken, Math.max(1, timer - now), { summary: summary(timer) });
      }
    },
  };
}
