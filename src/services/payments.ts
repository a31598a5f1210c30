/**
 * Charging and refunding without Temporal or HTTP: the order, renewal, invoice and task payments of the workflows'
 * activities (activities/index.ts, activities/longRunning.ts) are these functions over narrow ports. Amounts are
 * integer micro-USD. Every ledger movement has a fixed transaction id (`order:<id>`, `refund:<id>`, …), so a retry
 * moves no money twice.
 *
 * Refusals are coded {@link ProblemError}s (src/errors.ts); the activities turn them into non-retryable failures
 * typed with the code (activities/failures.ts `asCodedFailure`), which the API answers with the same code.
 *
 * Source: seed §4 (payment rails), §2.5 (refund on reject); issue 6 (renewals, tasks); issue 11 §2.
 */
import { problem } from '../errors';
import type { PaymentLinkProvider } from '../payments/linkpay';
import type { X402PaymentRepository } from '../repos/x402Payments';
import { InsufficientFundsError, type WalletRepository } from '../repos/wallets';
import type { PaymentRail, PaymentRecord, RefundRecord } from '../domain/order';

/** The wallet ledger as payments use it. */
export type WalletLedger = Pick<WalletRepository, 'debit' | 'credit'>;

/** One wallet movement: `amountMicros` (integer micro-USD) under the once-only ledger id `txId`. */
export interface WalletMovement {
  agentId: string;
  amountMicros: number;
  txId: string;
  memo: string;
  /** What the movement is for, as the wallet's transaction list shows it (`order:<id>`, `subscription:<id>`, …). */
  source: string;
}

/** A captured or returned amount: the ledger or provider transaction id and the amount (integer micro-USD). */
export interface MovedMoney {
  transaction_id: string;
  amount_micros: number;
}

/**
 * Debits a wallet once under `txId` (a second call with the same id returns the first debit).
 * @throws ProblemError insufficient_funds with `balance_micros` and `amount_micros` when the balance is short.
 */
export async function chargeWallet(wallets: Pick<WalletLedger, 'debit'>, m: WalletMovement): Promise<MovedMoney> {
  try {
    const tx = await wallets.debit(m.agentId, m.amountMicros, m.txId, m.memo, m.source);
    return { transaction_id: tx.tx_id, amount_micros: tx.amount_micros };
  } catch (err) {
    if (err instanceof InsufficientFundsError) {
      throw problem('insufficient_funds', err.message, {
        balance_micros: err.balanceMicros,
        amount_micros: err.amountMicros,
      });
    }
    throw err;
  }
}

/** Credits a wallet once under `txId` (a refund; a second call with the same id returns the first credit). */
export async function refundToWallet(wallets: Pick<WalletLedger, 'credit'>, m: WalletMovement): Promise<MovedMoney> {
  const tx = await wallets.credit(m.agentId, m.amountMicros, m.txId, m.memo, m.source);
  return { transaction_id: tx.tx_id, amount_micros: m.amountMicros };
}

/**
 * Verifies a hosted-link payment (rail `linkpay_ncp`): the provider's transaction must exist, be bound to `payeeId`
 * (an order or an invoice id), be for exactly `amountMicros` and have succeeded. Never trusts the caller.
 * @throws ProblemError transaction_not_found, transaction_already_used (bound to something else),
 *   transaction_amount_mismatch, payment_failed (not succeeded).
 */
export async function verifyLinkPayment(
  linkpay: Pick<PaymentLinkProvider, 'getTransaction'>,
  req: { transactionId: string; payeeId: string; payee: 'order' | 'invoice'; amountMicros: number },
): Promise<MovedMoney> {
  const tx = await linkpay.getTransaction(req.transactionId);
  if (!tx) throw problem('transaction_not_found', `Unknown transaction ${req.transactionId}`);
  if (tx.order_id !== req.payeeId)
    throw problem('transaction_already_used', `Transaction ${tx.id} belongs to another ${req.payee}`);
  if (tx.amount_micros !== req.amountMicros) {
    throw problem(
      'transaction_amount_mismatch',
      `Transaction ${tx.id} is for ${tx.amount_micros} micro-USD, the ${req.payee} costs ${req.amountMicros}`,
    );
  }
  if (tx.status !== 'succeeded') throw problem('payment_failed', `Transaction ${tx.id} is ${tx.status}`);
  return { transaction_id: tx.id, amount_micros: tx.amount_micros };
}

/** The x402 payments ledger as the order-payment check reads it (src/repos/x402Payments.ts). */
export type X402Ledger = Pick<X402PaymentRepository, 'getByTransaction'>;

/**
 * Verifies an x402 order payment (rail `x402_usdc`) against the x402 ledger, in one read: the entry holding
 * `transactionId` (the settlement's transaction hash, settled at `POST /x402/orders/{id}`) must be for `orderId`, be
 * settled, and be for exactly `amountMicros` (integer micro-USD = USDC atomic units). The unique transaction index
 * means no other order can hold the hash. Never trusts the caller.
 * @throws ProblemError invalid_request (no transaction_id), transaction_not_found, transaction_already_used (it paid
 *   another order or a catalogue resource), payment_failed (not settled), transaction_amount_mismatch.
 */
export async function verifyX402Payment(
  ledger: X402Ledger,
  req: { transactionId?: string; orderId: string; amountMicros: number },
): Promise<MovedMoney> {
  if (!req.transactionId) {
    throw problem('invalid_request', 'transaction_id (the x402 settlement transaction hash) is required for x402_usdc');
  }
  const p = await ledger.getByTransaction(req.transactionId);
  if (!p) throw problem('transaction_not_found', `No x402 settlement with transaction ${req.transactionId}`);
  if (p.order_id !== req.orderId) {
    // Never which order: transaction hashes are public on chain, and an order id reads its order (issue 36 §2).
    throw problem(
      'transaction_already_used',
      `Transaction ${req.transactionId} paid ${p.order_id ? 'another order' : 'a paid resource'}, not this order`,
    );
  }
  if (p.status !== 'settled') throw problem('payment_failed', `x402 payment ${p._id} is ${p.status}, not settled`);
  if (p.refund) throw problem('payment_failed', `x402 payment ${p._id} was given back to its payer`);
  if (p.amount_micros !== req.amountMicros) {
    throw problem(
      'transaction_amount_mismatch',
      `Transaction ${req.transactionId} paid ${p.amount_micros} micro-USD, the order costs ${req.amountMicros}`,
    );
  }
  return { transaction_id: p.transaction ?? req.transactionId, amount_micros: p.amount_micros };
}

/** What charging and refunding an order needs. */
export interface OrderPaymentPorts {
  wallets: WalletLedger;
  linkpay: Pick<PaymentLinkProvider, 'getTransaction' | 'refund'>;
  /** The x402 ledger, for {@link verifyX402Payment}; absent: the x402_usdc rail is refused (x402 not configured). */
  x402?: X402Ledger;
}

/** A payment to capture for an order; `amountMicros` is the order's price (integer micro-USD), `paidAt` ISO 8601. */
export interface ChargeRequest {
  orderId: string;
  rail: PaymentRail;
  transactionId?: string;
  amountMicros: number;
  agentId?: string;
  paidAt: string;
}

/** A captured payment to return (`at` ISO 8601). */
export interface RefundRequest {
  orderId: string;
  payment: PaymentRecord;
  agentId?: string;
  reason: string;
  at: string;
}

/**
 * Verifies and captures an order's payment on its rail. agent_wallet: debits the agent's wallet under
 * `order:<orderId>` (one debit per order, ever). linkpay_ncp: {@link verifyLinkPayment}. x402_usdc:
 * {@link verifyX402Payment} against the x402 ledger.
 * @throws ProblemError payment_failed (no agent wallet; x402 not configured), invalid_request (no transaction_id
 *   for linkpay_ncp or x402_usdc), insufficient_funds, and those of {@link verifyLinkPayment} and
 *   {@link verifyX402Payment}.
 */
export async function chargeOrder(ports: OrderPaymentPorts, req: ChargeRequest): Promise<PaymentRecord> {
  switch (req.rail) {
    case 'agent_wallet': {
      if (!req.agentId) throw problem('payment_failed', 'The order has no agent_id, so no wallet can pay it');
      const tx = await chargeWallet(ports.wallets, {
        agentId: req.agentId,
        amountMicros: req.amountMicros,
        txId: `order:${req.orderId}`,
        memo: `Order ${req.orderId}`,
        source: `order:${req.orderId}`,
      });
      return { rail: 'agent_wallet', ...tx, paid_at: req.paidAt };
    }
    case 'linkpay_ncp': {
      if (!req.transactionId) throw problem('invalid_request', 'transaction_id is required for linkpay_ncp');
      const tx = await verifyLinkPayment(ports.linkpay, {
        transactionId: req.transactionId,
        payeeId: req.orderId,
        payee: 'order',
        amountMicros: req.amountMicros,
      });
      return { rail: 'linkpay_ncp', ...tx, paid_at: req.paidAt };
    }
    case 'x402_usdc': {
      // Settled over x402 at POST /x402/orders/{id}; verified against the x402_payments ledger (issue 3 §8).
      if (!ports.x402) throw problem('payment_failed', 'x402 is not configured on this worker');
      const tx = await verifyX402Payment(ports.x402, req);
      return { rail: 'x402_usdc', ...tx, paid_at: req.paidAt };
    }
  }
}

/** What {@link findOrderPayment} reads: the three rails' records of money already taken. */
export interface PaymentLookupPorts {
  wallets: Pick<WalletRepository, 'findMovement'>;
  linkpay: Pick<PaymentLinkProvider, 'findSucceededForOrder'>;
  /**
   * The order's settled x402 payment (src/repos/x402Payments.ts `getSettledForOrder`), and whether a claim on the order
   * is still settling or pending (`hasUnresolvedForOrder`); absent without x402.
   */
  x402?: {
    getSettledForOrder(orderId: string): Promise<{ transaction: string | null; amount_micros: number } | null>;
    hasUnresolvedForOrder(orderId: string): Promise<boolean>;
  };
}

/**
 * Which order to look up, on which rails, for how much (integer micro-USD); `paidAt` stamps a found payment. `final`:
 * the order expires if nothing is found (its payment deadline passed), so money still moving must be waited for.
 */
export interface PaymentLookup {
  orderId: string;
  rails: readonly PaymentRail[];
  amountMicros: number;
  agentId?: string;
  paidAt: string;
  final?: boolean;
}

/**
 * Thrown by {@link findOrderPayment} for a `final` lookup while an x402 claim on the order is still settling or
 * pending: its money may yet move (the claim's request died mid-settlement; the x402 sweeper resolves it). The order
 * workflow's lookup is retried until the claim is settled (adopted) or failed (the order expires, nothing taken).
 */
export class PaymentStillMovingError extends Error {
  constructor(orderId: string) {
    super(`an x402 settlement for order ${orderId} is still in flight`);
    this.name = 'PaymentStillMovingError';
  }
}

/**
 * Money already taken for an order whose confirmation never reached its workflow (a crash between the debit and the
 * Update's acceptance, a buyer who paid the link and left): the `order:<id>` wallet debit, the order's succeeded
 * payment-link transaction, or its settled x402 payment, on the order's rails, for exactly its price; undefined when
 * there is none. Read-only: the caller adopts (or refunds) what it finds. Issue 24 §2.
 * @throws PaymentStillMovingError for a `final` lookup while an x402 claim on the order is unresolved.
 */
export async function findOrderPayment(
  ports: PaymentLookupPorts,
  req: PaymentLookup,
): Promise<PaymentRecord | undefined> {
  const found = (rail: PaymentRail, transactionId: string, amountMicros: number): PaymentRecord | undefined =>
    amountMicros === req.amountMicros
      ? { rail, transaction_id: transactionId, amount_micros: amountMicros, paid_at: req.paidAt }
      : undefined;
  for (const rail of req.rails) {
    if (rail === 'agent_wallet' && req.agentId) {
      const m = await ports.wallets.findMovement(req.agentId, `order:${req.orderId}`);
      if (m?.type === 'debit') return found(rail, m.tx_id, m.amount_micros);
    } else if (rail === 'linkpay_ncp') {
      const tx = await ports.linkpay.findSucceededForOrder(req.orderId);
      if (tx) return found(rail, tx.id, tx.amount_micros);
    } else if (rail === 'x402_usdc' && ports.x402) {
      const p = await ports.x402.getSettledForOrder(req.orderId);
      if (p?.transaction) return found(rail, p.transaction, p.amount_micros);
      // No charge without goods: an order must not expire under a settlement that may still land.
      if (req.final && (await ports.x402.hasUnresolvedForOrder(req.orderId)))
        throw new PaymentStillMovingError(req.orderId);
    }
  }
  return undefined;
}

/**
 * Returns an order's captured payment. agent_wallet: credits the wallet under `refund:<orderId>` (once). linkpay_ncp:
 * refunds at the provider. Otherwise (x402_usdc, or a provider that refused) the refund is recorded as `due` (an
 * on-chain refund is an operator transfer).
 */
export async function refundOrder(
  ports: Pick<OrderPaymentPorts, 'wallets' | 'linkpay'>,
  req: RefundRequest,
): Promise<RefundRecord> {
  const base = { rail: req.payment.rail, amount_micros: req.payment.amount_micros, reason: req.reason, at: req.at };
  if (req.payment.rail === 'agent_wallet' && req.agentId) {
    const tx = await refundToWallet(ports.wallets, {
      agentId: req.agentId,
      amountMicros: req.payment.amount_micros,
      txId: `refund:${req.orderId}`,
      memo: `Refund of order ${req.orderId}`,
      source: `refund:${req.orderId}`,
    });
    return { ...base, status: 'completed', transaction_id: tx.transaction_id };
  }
  if (req.payment.rail === 'linkpay_ncp' && (await ports.linkpay.refund(req.payment.transaction_id))) {
    return { ...base, status: 'completed', transaction_id: req.payment.transaction_id };
  }
  return { ...base, status: 'due' };
}

/** A payment-link transaction to give back because its order can no longer take it (`at` ISO 8601). */
export interface StrandedLinkPayment {
  orderId: string;
  transactionId: string;
  /** The order's captured payment's transaction id, if it has one (its read model): that one is never returned. */
  capturedTransactionId?: string;
  reason: string;
  at: string;
}

/**
 * Refunds a payment-link transaction taken for an order whose workflow has closed without it (issue 36: the hosted
 * form records the payment before the `confirmPayment` Update, which then meets the closed order). Only a transaction
 * bound to that order, succeeded, and not the order's captured payment is refunded; the provider's refund is keyed
 * by the transaction id, so a retry refunds nothing twice.
 * @returns the refund (`completed`, also when an earlier call refunded it; `due` when the provider refused it), or
 *   null when there is nothing to return (unknown, another order's, or the order's own payment).
 */
export async function refundStrandedLinkPayment(
  linkpay: Pick<PaymentLinkProvider, 'getTransaction' | 'refund'>,
  req: StrandedLinkPayment,
): Promise<RefundRecord | null> {
  const tx = await linkpay.getTransaction(req.transactionId);
  if (!tx || tx.order_id !== req.orderId || tx.id === req.capturedTransactionId) return null;
  const base = { rail: 'linkpay_ncp' as const, amount_micros: tx.amount_micros, reason: req.reason, at: req.at };
  // Refunded by an earlier attempt: the same answer again.
  return tx.status === 'refunded' || (await linkpay.refund(tx.id))
    ? { ...base, status: 'completed', transaction_id: tx.id }
    : { ...base, status: 'due', transaction_id: tx.id };
}
