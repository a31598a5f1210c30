import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isDuplicateKey, type Database, type WalletDoc, type WalletEntryDoc } from '../db';
import { sha256Hex } from '../hash';

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
export const hashAgentKey = (key: string): string => sha256Hex(key);

/** A wallet with its balance and ledger, oldest entry first. Amounts in integer micro-units. */
export interface WalletSnapshot {
  wallet: WalletDoc;
  balance_micros: number;
  entries: WalletEntryDoc[];
}

const entryId = (agentId: string, seq: number) => `${agentId}#${String(seq).padStart(12, '0')}`;

/**
 * Agent wallets (seed §2.9, issue 2 §5) as an append-only ledger. A movement reads the newest entry, computes the
 * new balance and inserts entry `seq + 1`; the insert is a single-document atomic claim (unique `_id`), so two
 * movements computed from the same balance cannot both land, and the loser recomputes. A debit whose new balance
 * would be negative is refused, so parallel debits never overdraw; a transaction id applies at most once
 * (unique index), so a retried debit never applies twice.
 *
 * Why not `findOneAndUpdate` with a `$gte` filter: FerretDB v1 on SQLite evaluates the filter and applies the update
 * in two steps (FerretDB issue 3040), so concurrent debits overdraw there. Unique-index inserts are atomic on both.
 */
export class WalletRepository {
  /** Movements of one wallet from this process run one after another: fewer lost claims to retry. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly d: Database) {}

  /**
   * Returns the wallet, creating it if absent. When this call created it (or claimed a wallet a credit created),
   * `agentKey` carries the wallet's key, shown this once (only its hash is stored).
   */
  async open(agentId: string): Promise<{ wallet: WalletDoc; agentKey?: string }> {
    const agentKey = `ak_${randomBytes(32).toString('base64url')}`;
    const keyHash = hashAgentKey(agentKey);
    // A wallet created by a credit has no key yet: the first reader claims it. The compare-and-set is re-read,
    // because on FerretDB two claims may both report success; only the stored hash wins.
    const unclaimed = await this.d.wallets.findOne({ _id: agentId });
    if (unclaimed && unclaimed.key_hash === null) {
      await this.d.wallets.updateOne({ _id: agentId, key_hash: null }, { $set: { key_hash: keyHash } });
      const after = await this.d.wallets.findOne({ _id: agentId });
      if (after?.key_hash === keyHash) return { wallet: after, agentKey };
      if (after) return { wallet: after };
    }
    if (unclaimed) return { wallet: unclaimed };
    const wallet: WalletDoc = { _id: agentId, currency: 'USD', key_hash: keyHash, created_at: new Date() };
    try {
      await this.d.wallets.insertOne(wallet);
      return { wallet, agentKey };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const raced = await this.d.wallets.findOne({ _id: agentId });
      if (!raced) throw err;
      return { wallet: raced };
    }
  }

  /** The wallet or null. */
  get(agentId: string): Promise<WalletDoc | null> {
    return this.d.wallets.findOne({ _id: agentId });
  }

  /** Balance (integer micro-units) from the newest ledger entry; 0 for an empty or absent wallet. */
  async balance(agentId: string): Promise<number> {
    return (await this.newest(agentId))?.balance_after_micros ?? 0;
  }

  /** The wallet with balance and ledger, or null. */
  async snapshot(agentId: string): Promise<WalletSnapshot | null> {
    const wallet = await this.get(agentId);
    if (!wallet) return null;
    const entries = await this.d.walletEntries.find({ agent_id: agentId }).sort({ seq: 1 }).toArray();
    return { wallet, balance_micros: entries.at(-1)?.balance_after_micros ?? 0, entries };
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
   * first entry without moving money.
   * @throws InsufficientFundsError when the wallet is absent or its balance is lower than the amount.
   * @throws RangeError when the amount is not a positive safe integer.
   */
  debit(agentId: string, amountMicros: number, txId: string, memo: string, source: string): Promise<WalletEntryDoc> {
    return this.serial(agentId, () => this.move('debit', agentId, amountMicros, txId, memo, source));
  }

  /**
   * Credits `amountMicros` under transaction id `txId`, creating the wallet (without a key) if needed.
   * Idempotent like {@link debit}.
   * @throws RangeError when the amount is not a positive safe integer.
   */
  async credit(agentId: string, amountMicros: number, txId: string, memo: string, source: string): Promise<WalletEntryDoc> {
    await this.ensure(agentId);
    return this.serial(agentId, () => this.move('credit', agentId, amountMicros, txId, memo, source));
  }

  private async ensure(agentId: string): Promise<void> {
    try {
      await this.d.wallets.insertOne({ _id: agentId, currency: 'USD', key_hash: null, created_at: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  private newest(agentId: string): Promise<WalletEntryDoc | null> {
    return this.d.walletEntries.find({ agent_id: agentId }).sort({ seq: -1 }).limit(1).next();
  }

  private serial<T>(agentId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(agentId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(agentId, tail);
    void tail.then(() => {
      if (this.queues.get(agentId) === tail) this.queues.delete(agentId);
    });
    return run;
  }

  private async move(
    type: 'credit' | 'debit',
    agentId: string,
    amountMicros: number,
    txId: string,
    memo: string,
    source: string,
  ): Promise<WalletEntryDoc> {
    if (!Number.isSafeInteger(amountMicros) || amountMicros <= 0) {
      throw new RangeError(`amount must be a positive integer of micro-units, got ${amountMicros}`);
    }
    for (let attempt = 0; attempt < 200; attempt++) {
      const previous = await this.d.walletEntries.findOne({ agent_id: agentId, tx_id: txId });
      if (previous) return previous;
      const newest = await this.newest(agentId);
      const balance = newest?.balance_after_micros ?? 0;
      const after = type === 'debit' ? balance - amountMicros : balance + amountMicros;
      if (type === 'debit' && (after < 0 || (!newest && !(await this.get(agentId))))) {
        throw new InsufficientFundsError(agentId, balance, amountMicros);
      }
      const seq = (newest?.seq ?? 0) + 1;
      const entry: WalletEntryDoc = {
        _id: entryId(agentId, seq),
        agent_id: agentId,
        seq,
        tx_id: txId,
        type,
        amount_micros: amountMicros,
        balance_after_micros: after,
        memo,
        source,
        at: new Date(),
      };
      try {
        await this.d.walletEntries.insertOne(entry);
        return entry;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another movement claimed this sequence number (or applied this id): recompute from the new newest entry.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
      }
    }
    throw new Error(`wallet ${agentId}: too much contention, try again`);
  }
}
