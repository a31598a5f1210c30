/**
 * Giving back an x402 settlement that nothing kept (issue 36 §1): an order payment the order refused (another rail
 * paid it first, or it ended unpaid), or goods never delivered. Shared by the API (the refusal of
 * `POST /x402/orders/{id}`, through the refund workflow), the x402 confirmation activity and the books reconciliation.
 *
 * A refund is sent only when the order provably does not hold this payment: the order's own state (its workflow,
 * closed ones too) names another payment, or none while it can no longer take one. A running order that holds no
 * payment is left to `recoverPayment`, which adopts the settlement instead. Amounts are USDC atomic units.
 */
import type { X402PaymentDoc } from '../db';
import type { PaymentRecord } from '../domain/order';
import type { X402PaymentRepository } from '../repos/x402Payments';
import type { X402Refunder } from '../x402/refund';

/** What the refund needs: the ledger, the refunder (absent: refunds are held for an operator) and the order's state. */
export interface X402RefundPorts {
  ledger: Pick<X402PaymentRepository, 'get' | 'requestRefund' | 'markRefunded'>;
  refunder?: X402Refunder;
  /**
   * The payment order `orderId` holds and whether it can still take one (`open`); null when no such order exists.
   * @throws when the order cannot be read now (the caller retries).
   */
  orderPayment(orderId: string): Promise<{ payment: PaymentRecord | undefined; open: boolean } | null>;
}

/** What became of a refund request. */
export type X402RefundOutcome =
  | { status: 'sent'; transaction: string }
  /** Owed, and held for an operator: no refund key is configured (`detail` says so). */
  | { status: 'due'; detail: string }
  /** Not owed: the order holds this payment, or may still adopt it, or the entry is not a settled payment. */
  | { status: 'not_due'; detail: string };

/** Is `p` the payment `held` records? */
const holds = (held: PaymentRecord | undefined, p: X402PaymentDoc): boolean =>
  held?.rail === 'x402_usdc' && held.transaction_id.toLowerCase() === (p.transaction ?? '').toLowerCase();

/**
 * Refunds settled x402 payment `paymentId` on chain when nothing kept it (see the module comment); at most once,
 * whatever the retries (the refund's EIP-3009 nonce is derived from the payment id).
 * @throws when the order or the chain cannot be read now, or the refund is not on chain yet: retry.
 */
export async function refundX402Settlement(
  ports: X402RefundPorts,
  req: { paymentId: string; reason: string },
): Promise<X402RefundOutcome> {
  const p = await ports.ledger.get(req.paymentId);
  if (!p || p.status !== 'settled' || !p.transaction) {
    return { status: 'not_due', detail: `x402 payment ${req.paymentId} is not a settled payment` };
  }
  if (p.refund?.status === 'sent' && p.refund.transaction) return { status: 'sent', transaction: p.refund.transaction };
  if (p.order_id) {
    const order = await ports.orderPayment(p.order_id);
    if (order && holds(order.payment, p)) return { status: 'not_due', detail: 'the order holds this payment' };
    if (order && order.open && !order.payment) {
      return { status: 'not_due', detail: 'the order is open without a payment: it adopts this one' };
    }
  }
  const due = await ports.ledger.requestRefund(p._id, req.reason);
  if (!due) return { status: 'not_due', detail: `x402 payment ${p._id} is no longer settled` };
  if (!ports.refunder) {
    return { status: 'due', detail: 'no refund key is configured (X402_REFUND_PRIVATE_KEY): held for an operator' };
  }
  const sent = await ports.refunder.refund({
    id: p._id,
    payer: p.payer,
    amount_micros: p.amount_micros,
    asset: p.asset,
    network: p.network,
    pay_to: p.pay_to,
  });
  await ports.ledger.markRefunded(p._id, sent.transaction);
  return { status: 'sent', transaction: sent.transaction };
}
