/**
 * Webhook delivery: one workflow per (event, endpoint), id `webhook-<event_id>-<endpoint_id>` (manual retries add
 * `-retry-<n>`). Every attempt is an activity and every wait a durable timer, so each attempt is in the history and
 * in `webhook_deliveries`, and a delivery survives worker and server restarts.
 *
 * Ordering: before its first attempt the workflow waits until no earlier event of the same order is still pending
 * for the same endpoint (the predecessor signals when it settles; a slow re-check covers a lost signal). So a
 * receiver gets one order's events in sequence order; a failing event holds back the later ones of that order until
 * it is delivered or given up.
 *
 * Source: issue 5 §2; ../shared/reference/api-conventions.md (Standard Webhooks retry schedule).
 */
import {
  condition,
  defineSignal,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import type { DeliveryInput } from '../src/domain/events';
import { utc, webhookDetails, type WebhookDetailsInput } from './details';
import { withSummary } from './policies';
import { SA } from './shared';

/**
 * Delay before each attempt in milliseconds: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h
 * (10 attempts over about 3 days 3.6 hours). Every delay but the first gets ±10% jitter.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  14 * 3600_000,
  20 * 3600_000,
  24 * 3600_000,
];

/** Relative jitter applied to each delay (±). */
export const RETRY_JITTER = 0.1;

/** How a delivery ended. */
export interface DeliveryResult {
  status: 'delivered' | 'failed';
  attempts: number;
  /** Why it stopped without delivering: `exhausted`, `gone` (410), `endpoint_disabled`, `endpoint_deleted`, `forbidden_target`. */
  reason?: string;
}

/** Signal from the predecessor (same order, same endpoint) when it settles. */
export const predecessorSettledSignal = defineSignal('predecessorSettled');

const RETRY = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 5,
} as const;
/** Bookkeeping: milliseconds of database work (issue 14: an attempt lost with its worker is retried after seconds). */
const acts = proxyActivities<WebhookActivities>({ startToCloseTimeout: '10 seconds', retry: RETRY });
/** The HTTP attempt has its own 15 s timeout and heartbeats while it waits for the receiver. */
const delivery = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '45 seconds',
  heartbeatTimeout: '10 seconds',
  retry: RETRY,
});

/**
 * Issue 26 §1: a delivery that has to wait (an earlier event of its order, or a failed attempt's retry) sets
 * `WaitingOn = receiver` since then, and `nothing` when it ends. Asked lazily, at the first wait, so a delivery that
 * succeeds at once records no patch marker and no upsert.
 */
const OPERATOR_VIEW = 'operator-view';

/** Delay before attempt `n` (1-based) with jitter; deterministic under replay (workflow Math.random is seeded). */
function delayBefore(n: number): number | null {
  const base = RETRY_SCHEDULE_MS[n - 1];
  if (base === undefined) return null;
  if (base === 0) return 0;
  return Math.round(base * (1 + (Math.random() * 2 - 1) * RETRY_JITTER));
}

/** Delivers one event to one endpoint with the retry schedule; returns how it ended. */
export async function webhookDeliveryWorkflow(input: DeliveryInput): Promise<DeliveryResult> {
  let nudged = false;
  setHandler(predecessorSettledSignal, () => {
    nudged = true;
  });
  const max = RETRY_SCHEDULE_MS.length;
  const show = (d: Omit<WebhookDetailsInput, 'eventId' | 'endpointId' | 'orderId' | 'maxAttempts'>): void =>
    setCurrentDetails(
      webhookDetails({
        eventId: input.eventId,
        endpointId: input.endpointId,
        orderId: input.orderId,
        maxAttempts: max,
        ...d,
      }),
    );
  /** OPERATOR_VIEW, asked at the first wait; `waiting`: WaitingOn was set (so the end sets it back to nothing). */
  let view: boolean | undefined;
  let waiting = false;
  const waitOnReceiver = (): void => {
    if (waiting) return;
    view ??= patched(OPERATOR_VIEW);
    if (!view) return;
    waiting = true;
    upsertSearchAttributes([
      { key: SA.waitingOn, value: 'receiver' },
      { key: SA.waitingSince, value: new Date() },
    ]);
  };
  const at = (ms: number): string => new Date(Date.now() + ms).toISOString();

  if (input.run === 0 && input.orderId !== null) {
    let recheckMs = 60_000;
    for (;;) {
      // Reset before the check: a signal arriving during it is kept.
      nudged = false;
      const pending = await withSummary(
        acts.hasPendingPredecessor,
        `Look for an earlier event of order ${input.orderId} still pending for this endpoint`,
        input,
      );
      if (!pending) break;
      show({ step: 'predecessor', attempt: 0, nextAt: at(recheckMs) });
      waitOnReceiver();
      await condition(() => nudged, recheckMs, { summary: `Earlier event pending: re-check at ${utc(at(recheckMs))}` });
      recheckMs = Math.min(recheckMs * 2, 3600_000);
    }
  }

  let result: DeliveryResult = { status: 'failed', attempts: 0, reason: 'exhausted' };
  for (let n = 1; n <= max; n++) {
    const attempts = n;
    show({ step: 'attempting', attempt: n });
    const outcome = await withSummary(delivery.attemptDelivery, `Attempt ${n} of ${max}: POST to the endpoint`, {
      ...input,
      attempt: n,
      nextDelayMs: delayBefore(n + 1),
    });
    if (outcome.kind === 'delivered') {
      result = { status: 'delivered', attempts };
      break;
    }
    if (outcome.kind === 'stop' || outcome.retryInMs === null) {
      result = { status: 'failed', attempts, reason: outcome.kind === 'stop' ? outcome.reason : 'exhausted' };
      break;
    }
    const nextAt = at(outcome.retryInMs);
    show({ step: 'retrying', attempt: n, lastStatus: outcome.status, nextAt });
    waitOnReceiver();
    await sleep(outcome.retryInMs, { summary: `Attempt ${n + 1} of ${max} at ${utc(nextAt)}` });
  }
  show({ step: result.status, attempt: result.attempts, ...(result.reason ? { reason: result.reason } : {}) });
  if (waiting) {
    upsertSearchAttributes([
      { key: SA.waitingOn, value: 'nothing' },
      { key: SA.waitingSince, value: new Date() },
    ]);
  }
  await withSummary(acts.settleMessage, `Record the delivery ${result.status}`, {
    ...input,
    status: result.status,
    ...(result.reason ? { reason: result.reason } : {}),
  });
  return result;
}
