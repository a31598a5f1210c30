/**
 * One ACP checkout session's durable timer and finisher (issue 37 §1, decision 0032): id `checkout-session-<id>`,
 * started by the API when the session is created and signalled (`completing`, signal-with-start) before complete
 * records its commitment. It sleeps until the session's expiry and then closes an open session (`expired`); once
 * complete has started it waits {@link FINISH_AFTER_MS} and completes a session still left `complete_in_progress`
 * (the API died between the commitment, the order's start and the charge): the same `completeCheckoutSession` as the
 * API's, keyed by the session's fixed order id, so whoever finishes first creates the order and charges it once.
 */
import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { CheckoutSessionActivities } from '../activities/checkoutSessions';
import { withSummary } from './policies';

/** Sent before complete records its commitment; a finisher then runs after {@link FINISH_AFTER_MS}. */
export const sessionCompletingSignal = defineSignal('completing');

/** How long the finisher leaves a running complete to the request that started it, milliseconds. */
export const FINISH_AFTER_MS = 5_000;

/** Rounds of wait → settle before the workflow gives up (each update with a new quote moves the expiry once). */
const MAX_ROUNDS = 100;

const acts = proxyActivities<CheckoutSessionActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Input: the session and its expiry (RFC 3339) when the workflow started. */
export interface CheckoutSessionWorkflowInput {
  sessionId: string;
  expiresAt: string;
}

/** Waits for the session's expiry or its complete, settles it, and returns the session's last status. */
export async function checkoutSessionWorkflow(input: CheckoutSessionWorkflowInput): Promise<string> {
  let completing = false;
  setHandler(sessionCompletingSignal, () => {
    completing = true;
  });
  let expiresAt = Date.parse(input.expiresAt);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const signalled = await condition(() => completing, Math.max(1, expiresAt - Date.now()), {
      summary: 'Until the session expires or complete starts',
    });
    if (signalled) {
      completing = false;
      await sleep(FINISH_AFTER_MS, { summary: 'Leave the complete to its request first' });
    }
    const settled = await withSummary(
      acts.settleCheckoutSession,
      signalled ? 'Finish the complete if it was left in progress' : 'Expire the session if it is still open',
      { sessionId: input.sessionId },
    );
    if (settled.done) return settled.status;
    expiresAt = Date.parse(settled.expiresAt);
  }
  return 'open';
}
