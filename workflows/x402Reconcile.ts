/**
 * Reconciles one x402 settlement that came back pending (issue 3 §2): asks the chain, through the
 * `reconcileX402Payment` activity, until the ledger entry is settled or failed, backing off from 2 seconds to
 * 5 minutes, for at most `maxWaitSeconds` (default 24 hours); a settled payment for an order then confirms the order
 * (`confirmX402Order`). Started by the API with id `x402-reconcile-<payment_id>`.
 */
import { patched, proxyActivities, setCurrentDetails, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { ReconcileResult, X402Activities } from '../activities/x402';
import { utc, x402Details } from './details';
import { CHAIN_OPTIONS, withSummary } from './policies';
import { SA } from './shared';

/**
 * Issue 26 §1: a settlement still pending after the first check sets `WaitingOn = settlement` (since then), and
 * `nothing` at the end. Asked lazily, at the first wait: one that settles at once records nothing.
 */
const OPERATOR_VIEW = 'operator-view';

/** Chain reads and writes, and the order's Update: CHAIN_OPTIONS (workflows/policies.ts). */
const chain = proxyActivities<X402Activities>(CHAIN_OPTIONS);

/** Input of {@link x402ReconcileWorkflow}. */
export interface X402ReconcileInput {
  paymentId: string;
  maxWaitSeconds?: number;
}

/** Polls until the payment is settled or failed; returns the last result (status `pending` when time ran out). */
export async function x402ReconcileWorkflow(input: X402ReconcileInput): Promise<ReconcileResult> {
  const deadline = Date.now() + (input.maxWaitSeconds ?? 24 * 3600) * 1000;
  const givesUpAt = new Date(deadline).toISOString();
  let delayMs = 2_000;
  let view: boolean | undefined;
  let waiting = false;
  const done = (result: ReconcileResult): ReconcileResult => {
    setCurrentDetails(
      x402Details({
        paymentId: input.paymentId,
        status: result.status,
        orderId: result.order_id,
        checks: 0,
        givesUpAt,
        reason: result.reason,
      }),
    );
    if (waiting) {
      upsertSearchAttributes([
        { key: SA.waitingOn, value: 'nothing' },
        { key: SA.waitingSince, value: new Date() },
      ]);
    }
    return result;
  };
  for (let checks = 1; ; checks++) {
    const result = await withSummary(
      chain.reconcileX402Payment,
      `Check the settlement of ${input.paymentId} on chain (check ${checks})`,
      { paymentId: input.paymentId },
    );
    if (result.status === 'settled' && result.order_id) {
      // An order paid by this settlement is marked paid through the order workflow's confirmPayment Update.
      await withSummary(chain.confirmX402Order, `Confirm the payment of order ${result.order_id}`, {
        paymentId: input.paymentId,
      });
    }
    if (result.status !== 'pending' && result.status !== 'settling') return done(result);
    if (Date.now() + delayMs > deadline) return done(result);
    const nextAt = new Date(Date.now() + delayMs).toISOString();
    setCurrentDetails(
      x402Details({
        paymentId: input.paymentId,
        status: result.status,
        orderId: result.order_id,
        checks,
        nextAt,
        givesUpAt,
      }),
    );
    if (!waiting) {
      view ??= patched(OPERATOR_VIEW);
      if (view) {
        waiting = true;
        upsertSearchAttributes([
          { key: SA.waitingOn, value: 'settlement' },
          { key: SA.waitingSince, value: new Date() },
        ]);
      }
    }
    await sleep(delayMs, { summary: `Next settlement check at ${utc(nextAt)}` });
    delayMs = Math.min(delayMs * 2, 5 * 60_000);
  }
}
