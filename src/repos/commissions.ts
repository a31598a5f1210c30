import { PARTNER_COMMISSION_PERCENT } from '../domain/catalogue';
import { percentOf } from '../domain/money';
import { isDuplicateKey, type CommissionDoc, type Database } from '../db';
import { InsufficientFundsError, type WalletRepository } from './wallets';

/** Ledger transaction id of the commission on an order (and period, for renewals). */
export const commissionTxId = (orderId: string, period?: string | null): string =>
  period ? `commission:${orderId}:${period}` : `commission:${orderId}`;
/** Ledger transaction id of the reversal of {@link commissionTxId}. */
export const commissionReversalTxId = (orderId: string, period?: string | null): string =>
  period ? `commission-reversal:${orderId}:${period}` : `commission-reversal:${orderId}`;

/** Argument of {@link CommissionRepository.credit}; amounts in integer micro-units. */
export interface CommissionCredit {
  orderId: string;
  /** Billing period of a renewal (e.g. `2026-04`); absent for a one-off deal. */
  period?: string;
  partnerId: string;
  /** The payment actually received (the commission is 20% of it), not the commission itself. */
  amountMicros: number;
  /** The buying agent: a partner buying for itself earns nothing (it would be a 20% self-discount). */
  agentId?: string;
}

/**
 * Partner commissions (seed §1: "a partner agent can be credited a 20% commission (recurring or per deal) through
 * partner_id on a quote"; issue 4 §4). Money moves in the partner's wallet ledger under the transaction ids
 * `commission:<order>[:<period>]` and `commission-reversal:<order>[:<period>]`, each applicable once; the
 * `commissions` collection is the listing and the reversal state. Every method is safe to retry.
 */
export class CommissionRepository {
  constructor(
    private readonly d: Database,
    private readonly wallets: WalletRepository,
  ) {}

  /**
   * Credits 20% of `amountMicros` (rounded to the micro-unit, halves away from zero) to the partner's wallet, which
   * is created without a key if absent (the partner claims it with `GET /api/v1/wallets/{partner_id}`).
   * Not credited (status `not_eligible`) when the partner is the buying agent or the commission rounds to 0.
   * @throws RangeError when `amountMicros` is not a non-negative safe integer.
   */
  async credit(c: CommissionCredit): Promise<CommissionDoc> {
    if (!Number.isSafeInteger(c.amountMicros) || c.amountMicros < 0) throw new RangeError(`amountMicros must be a non-negative integer, got ${c.amountMicros}`);
    const id = commissionTxId(c.orderId, c.period);
    const commission = percentOf(c.amountMicros, PARTNER_COMMISSION_PERCENT);
    const reason =
      c.agentId !== undefined && c.agentId === c.partnerId
        ? 'the partner is the buying agent'
        : commission <= 0
          ? 'the commission rounds to 0'
          : null;
    let tx: string | null = null;
    if (!reason) {
      const memo = `${PARTNER_COMMISSION_PERCENT}% partner commission on order ${c.orderId}${c.period ? ` (period ${c.period})` : ''}`;
      tx = (await this.wallets.credit(c.partnerId, commission, id, memo, `commission:order:${c.orderId}`)).tx_id;
    }
    const doc: CommissionDoc = {
      _id: id,
      partner_id: c.partnerId,
      order_id: c.orderId,
      period: c.period ?? null,
      payment_micros: c.amountMicros,
      percent: PARTNER_COMMISSION_PERCENT,
      commission_micros: reason ? 0 : commission,
      status: reason ? 'not_eligible' : 'credited',
      reason,
      credit_tx_id: tx,
      reversal_tx_id: null,
      owed_micros: 0,
      created_at: new Date(),
      reversed_at: null,
    };
    return this.insertOnce(doc);
  }

  /**
   * Reverses a credited commission after its payment was refunded: debits the partner's wallet. When the balance is
   * short, nothing is debited and the whole commission is recorded as owed (`reversal_owed`, `owed_micros`): the
   * buyer's refund never waits on the partner. No commission, or one already reversed, is a no-op.
   * @returns the commission after the reversal, or null when the order carried none.
   */
  async reverse(orderId: string, period?: string | null): Promise<CommissionDoc | null> {
    const id = commissionTxId(orderId, period);
    const doc = await this.d.commissions.findOne({ _id: id });
    if (!doc || doc.status !== 'credited') return doc;
    const txId = commissionReversalTxId(orderId, period);
    let patch: Partial<CommissionDoc>;
    try {
      await this.wallets.debit(doc.partner_id, doc.commission_micros, txId, `Reversal of the commission on order ${orderId} (refunded)`, `commission-reversal:order:${orderId}`);
      patch = { status: 'reversed', reversal_tx_id: txId, reversed_at: new Date() };
    } catch (err) {
      if (!(err instanceof InsufficientFundsError)) throw err;
      patch = { status: 'reversal_owed', owed_micros: doc.commission_micros, reversed_at: new Date() };
    }
    await this.d.commissions.updateOne({ _id: id, status: 'credited' }, { $set: patch });
    return this.d.commissions.findOne({ _id: id });
  }

  /** A partner's commissions, newest first (at most `limit`). */
  list(partnerId: string, limit = 500): Promise<CommissionDoc[]> {
    return this.d.commissions.find({ partner_id: partnerId }).sort({ created_at: -1, _id: 1 }).limit(limit).toArray();
  }

  private async insertOnce(doc: CommissionDoc): Promise<CommissionDoc> {
    try {
      await this.d.commissions.insertOne(doc);
      return doc;
    } catch (err) {
      if (!(isDuplicateKey(err))) throw err;
      return (await this.d.commissions.findOne({ _id: doc._id })) ?? doc;
    }
  }
}
