/**
 * Reconciles one x402 settlement that came back pending (issue 3 §2): asks the chain, through the
 * `reconcileX402Payment` activity, until the ledger entry is settled or failed, backing off from 2 seconds to
 * 5 minutes, for at most `maxWaitSeconds` (default 24 hours); a settled payment for an order then confirms the order
 * (`confirmX402Order`). Started by the API with id `x402-reconcile-<payment_id>`.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { ReconcileResult, X402Activities } from '../activities/x402';

/** Chain reads and the order's Update: heartbeating, so an attempt lost with its worker is retried after 10 s (issue 14). */
const chain = proxyActivities<X402Activities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Input of {@link x402ReconcileWorkflow}. */
export interface X402ReconcileInput {
  paymentId: string;
  maxWaitSeconds?: number;
}

/** Polls until the payment is settled or failed; returns the last result (status `pending` when time ran out). */
export async function x402ReconcileWorkflow(input: X402ReconcileInput): Promise<ReconcileResult> {
  const deadline = Date.now() + (input.maxWaitSeconds ?? 24 * 3600) * 1000;
  let delayMs = 2_000;
  for (;;) {
    const result = await chain.reconcileX402Payment({ paymentId: input.paymentId });
    if (result.status === 'settled' && result.order_id) {
      // An order paid by this settlement is marked paid through the order workflow's confirmPayment Update.
      await chain.confirmX402Order({ paymentId: input.paymentId });
    }
    if (result.status !== 'pending' && result.status !== 'settling') return result;
    if (Date.now() + delayMs > deadline) return result;
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, 5 * 60_000);
  }
}
