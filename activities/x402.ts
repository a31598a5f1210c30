/**
 * x402 activities (issue 3 §2, §8): reconciling a settlement that came back pending, and confirming the order it
 * pays. Activities are the only code touching MongoDB and the chain. An x402 order payment is checked against the
 * ledger by the application layer, beside the other rails (src/services/payments.ts `verifyX402Payment`).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { X402PaymentDoc } from '../src/db';
import { ProblemError } from '../src/errors';
import type { X402PaymentRepository } from '../src/repos/x402Payments';
import type { SettlementChain } from '../src/x402/settlementChain';
import { FailureType, type ConfirmPaymentRequest, type OrderState } from '../src/domain/order';
import { whileHeartbeating } from './heartbeat';
import { refundX402Settlement, type X402RefundOutcome, type X402RefundPorts } from '../src/services/x402Refunds';

/** What the x402 activities need. */
export interface X402ActivityPorts {
  payments: X402PaymentRepository;
  chain: SettlementChain;
  /** Confirms orders paid by a settlement that was pending (the API's OrderWorkflows); absent: not confirmed. */
  orderWorkflows?: {
    confirmPayment(orderId: string, req: ConfirmPaymentRequest): Promise<OrderState>;
    /** The order's state (closed workflows too): tells a refusal from an order this payment already paid. */
    state(orderId: string): Promise<OrderState>;
  };
  /**
   * Issue 36 §1: refunds settlements nothing kept (src/services/x402Refunds.ts): the refunder (absent: held for an
   * operator) and the order's payment as its workflow (or, for one that ended without a result, its read model) has it.
   */
  refunds?: Pick<X402RefundPorts, 'refunder' | 'orderPayment'>;
}

/** Outcome of one reconciliation attempt. */
export interface ReconcileResult {
  payment_id: string;
  /** The order the payment is for, if any (confirmed once settled). */
  order_id: string | null;
  status: X402PaymentDoc['status'];
  transaction: string | null;
  reason: string | null;
}

/** Seconds after `validBefore` before an authorization that is nowhere on chain counts as never settling. */
export const EXPIRY_GRACE_SECONDS = 120;

/** Does the receipt carry the transfer the ledger entry expects (token, payer → pay_to, exact amount)? */
function transferMatches(
  p: X402PaymentDoc,
  transfers: { token: string; from: string; to: string; value: bigint }[],
): boolean {
  return transfers.some(
    (t) =>
      t.token === p.asset.toLowerCase() &&
      t.from === p.payer.toLowerCase() &&
      t.to === p.pay_to.toLowerCase() &&
      t.value === BigInt(p.amount_micros),
  );
}

/** Builds the x402 activities over their ports. */
export function createX402Activities(ports: X402ActivityPorts | undefined) {
  const need = (): X402ActivityPorts => {
    if (!ports)
      throw ApplicationFailure.nonRetryable('x402 is not configured on this worker', FailureType.paymentFailed);
    return ports;
  };

  return {
    /**
     * One reconciliation step of a pending x402 settlement: with a transaction hash, its receipt decides (success
     * with the expected Transfer → settled; reverted or another transfer → failed); without one (the facilitator's
     * answer was lost), the token's `AuthorizationUsed(payer, nonce)` event names the transaction. An authorization
     * past `validBefore` (plus a grace period) that is nowhere on chain can never settle → failed. Otherwise pending.
     * Idempotent: entries already settled or failed are returned as they are.
     */
    async reconcileX402Payment(input: { paymentId: string }): Promise<ReconcileResult> {
      // Chain reads can be slow: heartbeat so a dead worker's attempt is retried in seconds (issue 14).
      return whileHeartbeating(() => reconcile(input));
    },

    /**
     * Confirms the order of a settled x402 payment through the order workflow's `confirmPayment` Update (the same
     * path as `POST /x402/orders/{id}` takes when settlement is immediate). A refusal (the order expired or was paid
     * otherwise meanwhile) is noted on the ledger entry as `delivery_failed`: the money moved, a refund may be due.
     * Heartbeats while the Update runs (it waits on the order workflow).
     */
    async confirmX402Order(input: {
      paymentId: string;
    }): Promise<{ confirmed: boolean; order_status: string | null; reason: string | null }> {
      return whileHeartbeating(() => confirm(input));
    },

    /**
     * Issue 36 §1: refunds settled x402 payment `paymentId` on chain when no order kept it (another rail paid the
     * order first, or it ended unpaid); at most once whatever the retries. Run by `x402RefundWorkflow` and after a
     * refused confirmation. A refund not on chain yet fails the attempt (retried).
     */
    async refundX402Payment(input: { paymentId: string; reason: string }): Promise<X402RefundOutcome> {
      return whileHeartbeating(() => refund(input));
    },
  };

  /** See `refundX402Payment`. */
  async function refund(input: { paymentId: string; reason: string }): Promise<X402RefundOutcome> {
    const { payments, refunds } = need();
    if (!refunds) return { status: 'due', detail: 'refunds are not configured on this worker: held for an operator' };
    return refundX402Settlement({ ledger: payments, ...refunds }, input);
  }

  /** One reconciliation step (see `reconcileX402Payment`). */
  async function reconcile(input: { paymentId: string }): Promise<ReconcileResult> {
    const { payments, chain } = need();
    const p = await payments.get(input.paymentId);
    if (!p)
      throw ApplicationFailure.nonRetryable(`No x402 payment ${input.paymentId}`, FailureType.transactionNotFound);
    const result = (
      status: X402PaymentDoc['status'],
      transaction: string | null,
      reason: string | null,
    ): ReconcileResult => ({
      payment_id: p._id,
      order_id: p.order_id,
      status,
      transaction,
      reason,
    });
    if (p.status === 'settled' || p.status === 'failed') return result(p.status, p.transaction, p.error_reason);

    const tx = p.transaction ?? (await chain.findAuthorizationTx(p.asset, p.payer, p.nonce));
    if (tx) {
      const receipt = await chain.receipt(tx);
      if (receipt?.status === 'success') {
        if (transferMatches(p, receipt.transfers)) {
          await payments.markSettled(p._id, tx, p.order_id !== null);
          // An orphaned claim: its request died before answering. An order is confirmed next (the workflow calls
          // confirmX402Order); goods kept with a payment-identifier go to the buyer's retry with that id. Otherwise
          // the buyer paid and got nothing: say so for the operator.
          const recoverable = p.order_id !== null || (p.payment_id !== null && p.delivery != null);
          if (p.status === 'settling' && !recoverable) {
            await payments.noteDeliveryFailure(
              p._id,
              'the request died before delivering; settled on chain, found by reconciliation: refund or deliver by hand',
            );
            return result('settled', tx, 'delivery_failed');
          }
          return result('settled', tx, null);
        }
        await payments.markFailed(
          p._id,
          'transfer_event_mismatch',
          `transaction ${tx} does not transfer ${p.amount_micros} from ${p.payer} to ${p.pay_to}`,
          tx,
        );
        return result('failed', tx, 'transfer_event_mismatch');
      }
      if (receipt?.status === 'reverted') {
        await payments.markFailed(p._id, 'transaction_reverted', `transaction ${tx} reverted`, tx);
        return result('failed', tx, 'transaction_reverted');
      }
    }
    if (p.valid_before > 0 && (await chain.latestTimestamp()) > p.valid_before + EXPIRY_GRACE_SECONDS) {
      // Still not mined and the authorization expired: a late inclusion would revert, so nothing can move now.
      const used = await chain.findAuthorizationTx(p.asset, p.payer, p.nonce);
      if (!used) {
        await payments.markFailed(
          p._id,
          'authorization_expired_unsettled',
          `authorization expired at ${p.valid_before} without settling`,
          tx,
        );
        return result('failed', tx, 'authorization_expired_unsettled');
      }
    }
    return result('pending', tx, p.error_reason);
  }

  /** See `confirmX402Order`. */
  async function confirm(input: {
    paymentId: string;
  }): Promise<{ confirmed: boolean; order_status: string | null; reason: string | null }> {
    const { payments, orderWorkflows } = need();
    const p = await payments.get(input.paymentId);
    if (!p || p.status !== 'settled' || !p.order_id || !p.transaction) {
      return {
        confirmed: false,
        order_status: null,
        reason: p ? `payment is ${p.status}${p.order_id ? '' : ' and for no order'}` : 'no such payment',
      };
    }
    if (!orderWorkflows)
      return { confirmed: false, order_status: null, reason: 'order confirmation is not configured on this worker' };
    try {
      const state = await orderWorkflows.confirmPayment(p.order_id, {
        rail: 'x402_usdc',
        transaction_id: p.transaction,
      });
      await payments.markOrderConfirmed(p._id);
      return { confirmed: true, order_status: state.status, reason: null };
    } catch (err) {
      if (err instanceof ProblemError && err.status < 500) {
        // Refused because the order already has this very payment (confirmed by another path, then moved on or
        // ended): confirmed, no refund due (issue 24: the chaos drill's false refund alarms).
        // An order that cannot be asked now (the frontend restarting) fails this attempt, retried: a refusal is
        // noted only once the order's own state says the payment is not its.
        const held = await orderWorkflows.state(p.order_id).catch((e: unknown) => {
          if (e instanceof ProblemError && e.code === 'order_not_found') return undefined;
          throw e;
        });
        if (
          held?.payment?.rail === 'x402_usdc' &&
          held.payment.transaction_id.toLowerCase() === p.transaction.toLowerCase()
        ) {
          await payments.markOrderConfirmed(p._id);
          return { confirmed: true, order_status: held.status, reason: null };
        }
        await payments.noteDeliveryFailure(
          p._id,
          `order ${p.order_id} not confirmed: ${err.code}: ${err.detail ?? err.message}`,
        );
        // The money moved and the order will not take it: give it back (issue 36 §1).
        await refund({ paymentId: p._id, reason: `order ${p.order_id} refused the payment: ${err.code}` });
        return { confirmed: false, order_status: null, reason: err.code };
      }
      throw err;
    }
  }
}

/** The x402 activity interface the workflows proxy (type only). */
export type X402Activities = ReturnType<typeof createX402Activities>;
