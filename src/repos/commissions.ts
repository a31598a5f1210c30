import { PARTNER_COMMISSION_PERCENT } from '../domain/catalogue';
import { percentOf } from '../domain/money';
import { isDuplicateKey, type CommissionDoc, type Database } from '../db';
import { InsufficientFundsError, entryId, type WalletRepository } from './wallets';

/** Ledger transaction id of the commission on an order (and period, for renewals). */
export const commissionTxId = (orderId: string, period?: string | null): string =>
  period ? `commission:${orderId}:${period}` : `commission:${orderId}`;
/** Ledger transaction id of the reversal of {@link commissionTxId}. */
export const commissionReversalTxId = (orderId: string, period?: string | null): string =>
  period ? `commission-reversal:${orderId}:${period}` : `commission-reversal:${orderId}`;

/** Argument of {@link CommissionRepository.record} and {@link CommissionRepository.credit}; integer micro-units. */
export interface CommissionCredit {
  orderId: string;
  /** Billing period of a renewal (e.g. `2026-04`); absent for a one-off deal. */
  period?: string;
  partnerId: string;
  /** The payment actually received (the commission is 20% of it), not the commission itself. */
  amountMicros: number;
  /** The buying agent's wallet, when the order has one (self-referral checks). */
  agentId?: string;
}

/** Reasons a commission is `not_eligible` (issue 10 §3). */
export const NOT_ELIGIBLE = {
  buyer: 'the partner is the buying agent',
  sameKey: 'the partner wallet and the buyer wallet share an agent key',
  unclaimed: 'the partner wallet is not claimed (it has no agent key)',
  zero: 'the commission rounds to 0',
} as const;

/**
 * Partner commissions (seed §1: "a partner agent can be credited a 20% commission (recurring or per deal) through
 * partner_id on a quote"; issue 4 §4, issue 10 §3). Money moves in the partner's wallet ledger under the transaction
 * ids `commission:<order>[:<period>]` and `commission-reversal:<order>[:<period>]`, each applicable once; the
 * `commissions` collection is the listing and the state, `commission_debts` what partners owe back.
 *
 * Orders: {@link record} at payment (`pending`, no money), {@link release} when the order is final and kept,
 * {@link reverse} when it is refunded (a pending commission is just `cancelled`). Renewals, which are final when paid,
 * and orders paid before issue 10 use {@link credit} (record and release at once). Every method is safe to retry.
 */
export class CommissionRepository {
  constructor(
    private readonly d: Database,
    private readonly wallets: WalletRepository,
  ) {}

  /**
   * Records 20% of `amountMicros` (rounded to the micro-unit, halves away from zero) as `pending`: nothing reaches
   * the partner's wallet until {@link release}. `not_eligible` (never paid) when the partner is the buying agent,
   * the partner's wallet is absent or has no agent key, both wallets have the same key, or the commission rounds to
   * 0. A second call returns the first record unchanged. Source: issue 10 §3.
   * @throws RangeError when `amountMicros` is not a non-negative safe integer.
   */
  async record(c: CommissionCredit): Promise<CommissionDoc> {
    if (!Number.isSafeInteger(c.amountMicros) || c.amountMicros < 0)
      throw new RangeError(`amountMicros must be a non-negative integer, got ${c.amountMicros}`);
    const id = commissionTxId(c.orderId, c.period);
    const existing = await this.d.commissions.findOne({ _id: id });
    if (existing) return existing;
    const commission = percentOf(c.amountMicros, PARTNER_COMMISSION_PERCENT);
    const reason = await this.ineligibility(c, commission);
    const doc: CommissionDoc = {
      _id: id,
      partner_id: c.partnerId,
      order_id: c.orderId,
      period: c.period ?? null,
      payment_micros: c.amountMicros,
      percent: PARTNER_COMMISSION_PERCENT,
      commission_micros: reason ? 0 : commission,
      status: reason ? 'not_eligible' : 'pending',
      reason,
      credit_tx_id: null,
      reversal_tx_id: null,
      owed_micros: 0,
      created_at: new Date(),
      reversed_at: null,
    };
    return this.insertOnce(doc);
  }

  /**
   * Credits a `pending` commission: what the partner owes back is paid off first (`debt_offset_micros`), the rest
   * reaches the wallet under `commission:<order>[:<period>]`. Other states are returned unchanged (a cancelled one
   * stays unpaid). Idempotent. Source: issue 10 §3.
   * @returns the commission, or null when there is none.
   */
  async release(orderId: string, period?: string | null): Promise<CommissionDoc | null> {
    const id = commissionTxId(orderId, period);
    // The claim comes first, so a concurrent cancel (conditional on `pending`) cannot follow a payout.
    await this.d.commissions.updateOne(
      { _id: id, status: 'pending' },
      { $set: { status: 'credited', credited_at: new Date(), releasing: true } },
    );
    const doc = await this.d.commissions.findOne({ _id: id });
    if (doc?.status === 'credited' && doc.releasing) return this.settle(doc);
    return doc;
  }

  /**
   * Records and releases at once: for payments that are final when received (subscription renewals) and for orders
   * paid before issue 10 (their workflows credit at payment). Eligibility as {@link record}.
   * @throws RangeError as {@link record}.
   */
  async credit(c: CommissionCredit): Promise<CommissionDoc> {
    const doc = await this.record(c);
    if (doc.status !== 'pending') return doc;
    return (await this.release(c.orderId, c.period)) ?? doc;
  }

  /**
   * After the payment was refunded: a `pending` commission becomes `cancelled` (no money moves); a `credited` one is
   * taken back: the wallet is debited what it holds, up to the commission, and the rest is owed
   * (`reversal_owed`, `owed_micros`, added to the partner's debt, which later commissions pay off first). The buyer's
   * refund never waits on the partner. Other states (or none) are a no-op. Idempotent. Source: issue 10 §3.
   * @returns the commission after the change, or null when the order carried none.
   */
  async reverse(orderId: string, period?: string | null): Promise<CommissionDoc | null> {
    const id = commissionTxId(orderId, period);
    await this.d.commissions.updateOne(
      { _id: id, status: 'pending' },
      { $set: { status: 'cancelled', cancelled_at: new Date() } },
    );
    let doc = await this.d.commissions.findOne({ _id: id });
    if (!doc || doc.status !== 'credited') return doc;
    if (doc.releasing) doc = await this.settle(doc); // finish a release cut short: take back what was given
    const partner = doc.partner_id;
    const target = doc.commission_micros;
    const txId = commissionReversalTxId(orderId, period);
    let owed = await this.debtMove(partner, txId);
    let debited: number;
    if (owed !== null) {
      debited = target - owed;
    } else {
      debited = (await this.appliedAmount(partner, txId)) ?? (await this.debitUpTo(partner, target, txId, orderId));
      owed = target - debited;
      if (owed > 0) await this.addDebt(partner, txId, owed);
    }
    await this.d.commissions.updateOne(
      { _id: id, status: 'credited' },
      {
        $set: {
          status: owed > 0 ? 'reversal_owed' : 'reversed',
          reversal_tx_id: debited > 0 ? txId : null,
          reversal_debited_micros: debited,
          owed_micros: owed,
          reversed_at: new Date(),
        },
      },
    );
    return this.d.commissions.findOne({ _id: id });
  }

  /** A partner's commissions, newest first (at most `limit`). */
  list(partnerId: string, limit = 500): Promise<CommissionDoc[]> {
    return this.d.commissions.find({ partner_id: partnerId }).sort({ created_at: -1, _id: 1 }).limit(limit).toArray();
  }

  /** What the partner still owes back from reversals, in integer micro-units (0 when nothing). Source: issue 10 §3. */
  async owed(partnerId: string): Promise<number> {
    return (await this.d.commissionDebts.findOne({ _id: partnerId }))?.owed_micros ?? 0;
  }

  /** Why the commission may not be paid, or null. What can be told apart is documented in docs/agent-self-service.md. */
  private async ineligibility(c: CommissionCredit, commission: number): Promise<string | null> {
    if (c.agentId !== undefined && c.agentId === c.partnerId) return NOT_ELIGIBLE.buyer;
    const partner = await this.wallets.get(c.partnerId);
    if (!partner?.key_hash) return NOT_ELIGIBLE.unclaimed;
    if (c.agentId !== undefined) {
      const buyer = await this.wallets.get(c.agentId);
      if (buyer?.key_hash && buyer.key_hash === partner.key_hash) return NOT_ELIGIBLE.sameKey;
    }
    return commission <= 0 ? NOT_ELIGIBLE.zero : null;
  }

  /** Pays a claimed commission out: debt first, then the wallet; clears `releasing`. */
  private async settle(doc: CommissionDoc): Promise<CommissionDoc> {
    const partner = doc.partner_id;
    const tx = doc._id;
    // A credit already in the wallet fixes the split (its offset, if any, is already in the debt's moves).
    let net = await this.appliedAmount(partner, tx);
    if (net === null) {
      net = doc.commission_micros - (await this.payOffDebt(partner, tx, doc.commission_micros));
      if (net > 0) {
        const offset = doc.commission_micros - net;
        const memo = `${doc.percent}% partner commission on order ${doc.order_id}${doc.period ? ` (period ${doc.period})` : ''}${offset > 0 ? `, ${offset} micro-USD of it paid what the partner owed` : ''}`;
        await this.wallets.credit(partner, net, tx, memo, `commission:order:${doc.order_id}`);
      }
    }
    await this.d.commissions.updateOne(
      { _id: tx, releasing: true },
      {
        $set: { credit_tx_id: net > 0 ? tx : null, debt_offset_micros: doc.commission_micros - net },
        $unset: { releasing: '' },
      },
    );
    return (await this.d.commissions.findOne({ _id: tx })) ?? doc;
  }

  /** Amount of the wallet movement `txId` already applied, or null. */
  private async appliedAmount(agentId: string, txId: string): Promise<number | null> {
    const entry = await this.d.walletEntries.findOne(
      { _id: entryId(agentId, txId) },
      { projection: { amount_micros: 1 } },
    );
    if (entry) return entry.amount_micros;
    // Applied but its ledger entry not yet written (see WalletRepository): the wallet remembers it.
    const recent = (await this.wallets.get(agentId))?.recent.find((m) => m.tx_id === txId);
    return recent ? recent.amount_micros : null;
  }

  /** Debits what the wallet holds, up to `target`; returns the amount debited (0 when empty). */
  private async debitUpTo(agentId: string, target: number, txId: string, orderId: string): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const amount = Math.min(await this.wallets.balance(agentId), target);
      if (amount <= 0) return 0;
      try {
        const memo = `Reversal of the commission on order ${orderId} (refunded)${amount < target ? `: ${target - amount} micro-USD owed` : ''}`;
        return (await this.wallets.debit(agentId, amount, txId, memo, `commission-reversal:order:${orderId}`))
          .amount_micros;
      } catch (err) {
        if (!(err instanceof InsufficientFundsError)) throw err; // spent meanwhile: read the balance again
      }
    }
    return 0;
  }

  /** The debt change recorded under `txId` (positive: added), or null. */
  private async debtMove(partnerId: string, txId: string): Promise<number | null> {
    const debt = await this.d.commissionDebts.findOne({ _id: partnerId });
    const move = debt?.moves.find((m) => m.tx_id === txId);
    return move ? move.delta_micros : null;
  }

  /** Adds `amount` to the partner's debt under `txId`, once. */
  private async addDebt(partnerId: string, txId: string, amount: number): Promise<void> {
    try {
      await this.d.commissionDebts.insertOne({ _id: partnerId, owed_micros: 0, moves: [], updated_at: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const at = new Date();
    await this.d.commissionDebts.updateOne(
      { _id: partnerId, 'moves.tx_id': { $ne: txId } },
      {
        $inc: { owed_micros: amount },
        $push: { moves: { tx_id: txId, delta_micros: amount, at } },
        $set: { updated_at: at },
      },
    );
  }

  /** Takes up to `amount` off the partner's debt under `txId`, once (compare-and-set); returns what it took. */
  private async payOffDebt(partnerId: string, txId: string, amount: number): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const debt = await this.d.commissionDebts.findOne({ _id: partnerId });
      if (!debt) return 0;
      const earlier = debt.moves.find((m) => m.tx_id === txId);
      if (earlier) return -earlier.delta_micros;
      const offset = Math.min(debt.owed_micros, amount);
      if (offset <= 0) return 0;
      const at = new Date();
      const res = await this.d.commissionDebts.updateOne(
        { _id: partnerId, owed_micros: debt.owed_micros, 'moves.tx_id': { $ne: txId } },
        {
          $inc: { owed_micros: -offset },
          $push: { moves: { tx_id: txId, delta_micros: -offset, at } },
          $set: { updated_at: at },
        },
      );
      if (res.modifiedCount === 1) return offset;
    }
    throw new Error(`commission debt of ${partnerId}: too much contention to apply ${txId}`);
  }

  private async insertOnce(doc: CommissionDoc): Promise<CommissionDoc> {
    try {
      await this.d.commissions.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return (await this.d.commissions.findOne({ _id: doc._id })) ?? doc;
    }
  }
}
