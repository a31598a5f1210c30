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
import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';

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

/** Arguments of {@link webhookDeliveryWorkflow}. */
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

  if (input.run === 0 && input.orderId !== null) {
    let recheckMs = 60_000;
    for (;;) {
      // Reset before the check: a signal arriving during it is kept.
      nudged = false;
      if (!(await acts.hasPendingPredecessor(input))) break;
      await condition(() => nudged, recheckMs);
      recheckMs = Math.min(recheckMs * 2, 3600_000);
    }
  }

  let result: DeliveryResult = { status: 'failed', attempts: 0, reason: 'exhausted' };
  for (let n = 1; n <= RETRY_SCHEDULE_MS.length; n++) {
    const attempts = n;
    const outcome = await delivery.attemptDelivery({ ...input, attempt: n, nextDelayMs: delayBefore(n + 1) });
    if (outcome.kind === 'delivered') {
      result = { status: 'delivered', attempts };
      break;
    }
    if (outcome.kind === 'stop' || outcome.retryInMs === null) {
      result = { status: 'failed', attempts, reason: outcome.kind === 'stop' ? outcome.reason : 'exhausted' };
      break;
    }
    await sleep(outcome.retryInMs);
  }
  await acts.settleMessage({ ...input, status: result.status, ...(result.reason ? { reason: result.reason } : {}) });
  return result;
}
