/**
 * Refunds one x402 settlement that no order kept (issue 36 §1), through the `refundX402Payment` activity, retried
 * until the refund is on chain (the refund's EIP-3009 nonce makes every attempt the same transfer, so it lands at most
 * once). Started by the API with id `x402-refund-<payment_id>` when `POST /x402/orders/{id}` settled a payment the
 * order then refused; its result is the outcome the client is told.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { X402Activities } from '../activities/x402';
import type { X402RefundOutcome } from '../src/services/x402Refunds';
import { CHAIN_OPTIONS, withSummary } from './policies';

/** Chain reads and writes, and the order's Update: CHAIN_OPTIONS (workflows/policies.ts). */
const chain = proxyActivities<X402Activities>(CHAIN_OPTIONS);

/** Input of {@link x402RefundWorkflow}: the ledger entry and why it is refunded (kept on the entry). */
export interface X402RefundInput {
  paymentId: string;
  reason: string;
}

/** The refund's outcome: `sent` with its transaction, `due` (held for an operator) or `not_due`. */
export async function x402RefundWorkflow(input: X402RefundInput): Promise<X402RefundOutcome> {
  return withSummary(chain.refundX402Payment, `Refund x402 payment ${input.paymentId} on chain`, input);
}
