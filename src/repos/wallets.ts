import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MongoServerError } from 'mongodb';
import type { Database, WalletDoc, WalletTransaction } from '../db';

/** Raised by {@link WalletRepository.debit} when the balance does not cover the amount. */
export class InsufficientFundsError extends Error {
  override readonly name = 'InsufficientFundsError';
  constructor(
    readonly agentId: string,
    readonly balanceMicros: number,
    readonly amountMicros: number,
  ) {
    super(`Wallet ${agentId} holds ${balanceMicros} micro-USD, ${amountMicros} needed`);
  }
}

/** sha256 hex of an agent key; only the hash is stored. */
export const hashAgentKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * Agent wallets (seed §2.9, issue 2 §5). Every movement is one atomic single-document update that carries a
 * transaction id: the filter refuses an overdraft and a second application of the same id, so parallel debits
 * never overdraw and a retried debit never applies twice. Amounts are integer micro-units.
 */
export class WalletRepository {
  constructor(private readonly d: Database) {}

  /**
   * Returns the wallet, creating it if absent. When this call created it, `agentKey` carries the wallet's key,
   * shown this once (only its hash is stored).
   */
  async open(agentId: string): Promise<{ wallet: WalletDoc; agentKey?: string }> {
    const agentKey = `ak_${randomBytes(32).toString('base64url')}`;
    const now = new Date();
    // A wallet created by a credit has no key yet: the first reader claims it.
    const claimed = await this.d.wallets.findOneAndUpdate(
      { _id: agentId, key_hash: null },
      { $set: { key_hash: hashAgentKey(agentKey), updated_at: now } },
      { returnDocument: 'after' },
    );
    if (claimed) return { wallet: claimed, agentKey };
    const existing = await this.d.wallets.findOne({ _id: agentId });
    if (existing) return { wallet: existing };
    const wallet: WalletDoc = {
      _id: agentId,
      balance_micros: 0,
      currency: 'USD',
      key_hash: hashAgentKey(agentKey),
      transactions: [],
      created_at: now,
      updated_at: now,
    };
    try {
      await this.d.wallets.insertOne(wallet);
      return { wallet, agentKey };
    } catch (err) {
      if (err instanceof MongoServerError && err.code === 11000) {
        const raced = await this.d.wallets.findOne({ _id: agentId });
        if (raced) return { wallet: raced };
      }
      throw err;
    }
  }

  /** Creates the wallet without a key if absent (a credit may arrive before the agent ever looked). */
  private async ensure(agentId: string): Promise<void> {
    const now = new Date();
    await this.d.wallets.updateOne(
      { _id: agentId },
      { $setOnInsert: { balance_micros: 0, currency: 'USD', key_hash: null, transactions: [], created_at: now, updated_at: now } },
      { upsert: true },
    );
  }

  /** The wallet or null. */
  get(agentId: string): Promise<WalletDoc | null> {
    return this.d.wallets.findOne({ _id: agentId });
  }

  /** True when `key` is the wallet's agent key (constant-time comparison of the hashes). */
  static keyMatches(wallet: WalletDoc, key: string | undefined): boolean {
    if (!key || !wallet.key_hash) return false;
    const a = Buffer.from(hashAgentKey(key), 'hex');
    const b = Buffer.from(wallet.key_hash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * Debits `amountMicros` under transaction id `txId`. Idempotent: a second call with the same id returns the
   * first transaction without moving money.
   * @throws InsufficientFundsError when the wallet is absent or its balance is lower than the amount.
   * @throws RangeError when the amount is not a positive safe integer.
   */
  async debit(agentId: string, amountMicros: number, txId: string, memo: string, source: string): Promise<WalletTransaction> {
    return this.move('debit', agentId, amountMicros, txId, memo, source);
  }

  /**
   * Credits `amountMicros` under transaction id `txId`, creating the wallet if needed. Idempotent like {@link debit}.
   * @throws RangeError when the amount is not a positive safe integer.
   */
  async credit(agentId: string, amountMicros: number, txId: string, memo: string, source: string): Promise<WalletTransaction> {
    await this.ensure(agentId);
    return this.move('credit', agentId, amountMicros, txId, memo, source);
  }

  private async move(
    type: 'credit' | 'debit',
    agentId: string,
    amountMicros: number,
    txId: string,
    memo: string,
    source: string,
  ): Promise<WalletTransaction> {
    if (!Number.isSafeInteger(amountMicros) || amountMicros <= 0) {
      throw new RangeError(`amount must be a positive integer of micro-units, got ${amountMicros}`);
    }
    const tx: WalletTransaction = { id: txId, type, amount_micros: amountMicros, memo, source, at: new Date() };
    const filter =
      type === 'debit'
        ? { _id: agentId, balance_micros: { $gte: amountMicros }, 'transactions.id': { $ne: txId } }
        : { _id: agentId, 'transactions.id': { $ne: txId } };
    const updated = await this.d.wallets.findOneAndUpdate(filter, {
      $inc: { balance_micros: type === 'debit' ? -amountMicros : amountMicros },
      $push: { transactions: tx },
      $set: { updated_at: tx.at },
    });
    if (updated) return tx;
    // Nothing matched: either the id was applied before (idempotent replay) or the debit is not covered.
    const wallet = await this.d.wallets.findOne({ _id: agentId });
    const previous = wallet?.transactions.find((t) => t.id === txId);
    if (previous) return previous;
    throw new InsufficientFundsError(agentId, wallet?.balance_micros ?? 0, amountMicros);
  }
}

/** A wallet transaction with its running balance, as the API shows it. */
export interface WalletTransactionView extends WalletTransaction {
  balance_after_micros: number;
}

/** Adds running balances to a wallet's transactions (they are stored in application order). */
export function withRunningBalance(transactions: readonly WalletTransaction[]): WalletTransactionView[] {
  let balance = 0;
  return transactions.map((t) => {
    balance += t.type === 'credit' ? t.amount_micros : -t.amount_micros;
    return { ...t, balance_after_micros: balance };
  });
}
