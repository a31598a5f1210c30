import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isDuplicateKey, type Database, type WalletDoc, type WalletEntryDoc, type WalletMovement } from '../db';
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

/** A new agent key: `ak_` + 256 random bits. */
const newAgentKey = (): string => `ak_${randomBytes(32).toString('base64url')}`;

/** sha256 hex of an agent key; only the hash is stored. */
export const hashAgentKey = (key: string): string => sha256Hex(key);

/** A wallet with its balance and ledger, oldest entry first. Amounts in integer micro-units. */
export interface WalletSnapshot {
  wallet: WalletDoc;
  balance_micros: number;
  entries: WalletEntryDoc[];
}

/** Ledger entry id: one entry per (wallet, transaction id), so a retried movement cannot write a second one. */
export const entryId = (agentId: string, txId: string) => `${agentId}#${txId}`;

/** How many recent movements a wallet document remembers (see {@link WalletRepository}). */
export const RECENT_MOVEMENTS = 256;

/**
 * Agent wallets (seed §2.9, issue 2 §5). The wallet document holds the balance; the ledger (`wallet_entries`) holds
 * one entry per movement, numbered by `seq`.
 *
 * A movement is one single-document atomic conditional update of the wallet: a debit matches only while
 * `balance_micros >= amount` (so parallel debits never overdraw, in one process or many) and only when the wallet's
 * `recent` list does not hold the transaction id (so a retried movement never applies twice). The same update bumps
 * `seq` and pushes the movement onto `recent`, so the ledger entry written next is derived from what the update
 * returned; a crash between the two leaves the movement in `recent`, and the retry (or the next read) writes the entry.
 * The ledger entry's `_id` (`<agent_id>#<tx_id>`) keeps a transaction id to one entry for good, after it has left `recent`.
 */
export class WalletRepository {
  constructor(private readonly d: Database) {}

  /**
   * Returns the wallet, creating it if absent. When this call created it, `agentKey` carries the wallet's key, shown
   * this once (only its hash is stored). An existing wallet without a key (created by a credit or a commission) is
   * not claimed here: only {@link claim}, on the operator's word, gives it a key (issue 10 §2).
   */
  async open(agentId: string): Promise<{ wallet: WalletDoc; agentKey?: string }> {
    const existing = await this.d.wallets.findOne({ _id: agentId });
    if (existing) return { wallet: existing };
    const agentKey = newAgentKey();
    const wallet: WalletDoc = { ...emptyWallet(agentId, new Date()), key_hash: hashAgentKey(agentKey) };
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

  /**
   * Gives a wallet that has no key one, atomically (one winner among concurrent callers); returns the new agent key,
   * shown this once, or undefined when the wallet is absent or already has a key.
   */
  async claim(agentId: string): Promise<string | undefined> {
    const agentKey = newAgentKey();
    const claimed = await this.d.wallets.findOneAndUpdate(
      { _id: agentId, key_hash: null },
      { $set: { key_hash: hashAgentKey(agentKey) } },
    );
    return claimed ? agentKey : undefined;
  }

  /**
   * Replaces the key of a wallet whose current key is `currentKey`; returns the new key (shown once), or undefined
   * when `currentKey` no longer opens the wallet (a concurrent rotation won).
   */
  async rotateKey(agentId: string, currentKey: string): Promise<string | undefined> {
    const agentKey = newAgentKey();
    const rotated = await this.d.wallets.findOneAndUpdate(
      { _id: agentId, key_hash: hashAgentKey(currentKey) },
      { $set: { key_hash: hashAgentKey(agentKey) } },
    );
    return rotated ? agentKey : undefined;
  }

  /** The wallet or null. */
  get(agentId: string): Promise<WalletDoc | null> {
    return this.d.wallets.findOne({ _id: agentId });
  }

  /** The id of the wallet that `agentKey` opens, or null (compared by the key's sha256, as stored). */
  async idOfKey(agentKey: string): Promise<string | null> {
    const w = await this.d.wallets.findOne({ key_hash: hashAgentKey(agentKey) }, { projection: { _id: 1 } });
    return w?._id ?? null;
  }

  /** Balance in integer micro-units; 0 for an absent wallet. */
  async balance(agentId: string): Promise<number> {
    const w = await this.d.wallets.findOne({ _id: agentId }, { projection: { balance_micros: 1 } });
    return w?.balance_micros ?? 0;
  }

  /** The wallet with balance and ledger, oldest entry first, or null. */
  async snapshot(agentId: string): Promise<WalletSnapshot | null> {
    const wallet = await this.get(agentId);
    if (!wallet) return null;
    let entries = await this.d.walletEntries.find({ agent_id: agentId }).sort({ seq: 1 }).toArray();
    if ((entries.at(-1)?.seq ?? 0) < wallet.seq) {
      // A movement whose entry a crashed process did not write: write it from the wallet's memory, then re-read.
      await Promise.all(wallet.recent.map((m) => this.writeEntry(agentId, m)));
      entries = await this.d.walletEntries.find({ agent_id: agentId }).sort({ seq: 1 }).toArray();
    }
    return { wallet, balance_micros: wallet.balance_micros, entries };
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
  async debit(
    agentId: string,
    amountMicros: number,
    txId: string,
    memo: string,
    source: string,
  ): Promise<WalletEntryDoc> {
    checkAmount(amountMicros);
    const done = await this.applied(agentId, txId);
    if (done) return done;
    const movement = { tx_id: txId, type: 'debit' as const, amount_micros: amountMicros, memo, source };
    const wallet = await this.d.wallets.findOneAndUpdate(
      { _id: agentId, balance_micros: { $gte: amountMicros }, 'recent.tx_id': { $ne: txId } },
      [movementPipeline(movement, -amountMicros)],
      { returnDocument: 'after' },
    );
    if (wallet) return this.writeEntry(agentId, lastMovement(wallet));
    // Not applied now: already applied (a retry after a crash), or the balance is short, or there is no wallet.
    const current = await this.get(agentId);
    const earlier = current?.recent.find((m) => m.tx_id === txId);
    if (earlier) return this.writeEntry(agentId, earlier);
    throw new InsufficientFundsError(agentId, current?.balance_micros ?? 0, amountMicros);
  }

  /**
   * Credits `amountMicros` under transaction id `txId`, creating the wallet (without a key) if needed.
   * Idempotent like {@link debit}.
   * @throws RangeError when the amount is not a positive safe integer.
   */
  async credit(
    agentId: string,
    amountMicros: number,
    txId: string,
    memo: string,
    source: string,
  ): Promise<WalletEntryDoc> {
    checkAmount(amountMicros);
    const done = await this.applied(agentId, txId);
    if (done) return done;
    const movement = { tx_id: txId, type: 'credit' as const, amount_micros: amountMicros, memo, source };
    for (let attempt = 0; attempt < 3; attempt++) {
      const wallet = await this.d.wallets.findOneAndUpdate(
        { _id: agentId, 'recent.tx_id': { $ne: txId } },
        [movementPipeline(movement, amountMicros)],
        { returnDocument: 'after' },
      );
      if (wallet) return this.writeEntry(agentId, lastMovement(wallet));
      const current = await this.get(agentId);
      const earlier = current?.recent.find((m) => m.tx_id === txId);
      if (earlier) return this.writeEntry(agentId, earlier);
      if (!current) {
        try {
          await this.d.wallets.insertOne(emptyWallet(agentId, new Date()));
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
    }
    throw new Error(`wallet ${agentId}: credit ${txId} could not be applied`);
  }

  /** The ledger entry of a transaction id already applied, or null. */
  private applied(agentId: string, txId: string): Promise<WalletEntryDoc | null> {
    return this.d.walletEntries.findOne({ _id: entryId(agentId, txId) });
  }

  /**
   * The movement recorded under `txId` in the agent's wallet, or null: the ledger entry, else the wallet's own list of
   * recent movements (a crash between the wallet's update and the entry's write leaves only the latter).
   */
  async findMovement(agentId: string, txId: string): Promise<WalletEntryDoc | null> {
    const entry = await this.applied(agentId, txId);
    if (entry) return entry;
    const recent = (await this.get(agentId))?.recent.find((m) => m.tx_id === txId);
    return recent ? this.writeEntry(agentId, recent) : null;
  }

  /** Writes the ledger entry of a movement the wallet recorded; idempotent (the entry's `_id` is its transaction id). */
  private async writeEntry(agentId: string, m: WalletMovement): Promise<WalletEntryDoc> {
    const entry: WalletEntryDoc = {
      _id: entryId(agentId, m.tx_id),
      agent_id: agentId,
      seq: m.seq,
      tx_id: m.tx_id,
      type: m.type,
      amount_micros: m.amount_micros,
      balance_after_micros: m.balance_after_micros,
      memo: m.memo,
      source: m.source,
      at: m.at,
    };
    try {
      await this.d.walletEntries.insertOne(entry);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    return entry;
  }
}

function checkAmount(amountMicros: number): void {
  if (!Number.isSafeInteger(amountMicros) || amountMicros <= 0) {
    throw new RangeError(`amount must be a positive integer of micro-units, got ${amountMicros}`);
  }
}

function emptyWallet(agentId: string, now: Date): WalletDoc {
  return { _id: agentId, currency: 'USD', key_hash: null, balance_micros: 0, seq: 0, recent: [], created_at: now };
}

function lastMovement(wallet: WalletDoc): WalletMovement {
  const m = wallet.recent.at(-1);
  if (!m) throw new Error(`wallet ${wallet._id}: update returned no movement`);
  return m;
}

/**
 * The update of one movement as an aggregation-pipeline stage, so `seq` and `balance_after_micros` of the pushed
 * movement are computed from the same document state the update applies to: add `delta` to the balance, bump `seq`,
 * append the movement to `recent` and keep the newest {@link RECENT_MOVEMENTS}.
 */
function movementPipeline(
  m: Pick<WalletMovement, 'tx_id' | 'type' | 'amount_micros' | 'memo' | 'source'>,
  delta: number,
): Record<string, unknown> {
  return {
    $set: {
      balance_micros: { $add: ['$balance_micros', delta] },
      seq: { $add: ['$seq', 1] },
      recent: {
        $slice: [
          {
            $concatArrays: [
              '$recent',
              [
                {
                  ...literal(m),
                  seq: { $add: ['$seq', 1] },
                  balance_after_micros: { $add: ['$balance_micros', delta] },
                  // Not `$$NOW`: DocumentDB 0.106 refuses it in updates (enabled from 0.108, documentdb/documentdb#305).
                  at: { $literal: new Date() },
                },
              ],
            ],
          },
          -RECENT_MOVEMENTS,
        ],
      },
    },
  };
}

/** Wraps plain values in `$literal`, so strings starting with `$` are not read as field paths. */
function literal(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { $literal: v }]));
}
