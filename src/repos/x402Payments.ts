import { randomBytes } from 'node:crypto';
import type { Filter } from 'mongodb';
import { isDuplicateKey, type Database, type X402PaymentDoc, type X402PaymentIdDoc } from '../db';
import { sha256Hex } from '../hash';

/** New ledger id: `x4p_` + 96 random bits. */
export const newX402PaymentId = (): string => `x4p_${randomBytes(12).toString('base64url')}`;

/** What a claim records about the payment before it is settled. Amount in integer micro-units. */
export type X402Claim = Pick<
  X402PaymentDoc,
  | 'resource'
  | 'resource_kind'
  | 'resource_ref'
  | 'order_id'
  | 'amount_micros'
  | 'asset'
  | 'network'
  | 'pay_to'
  | 'payer'
  | 'nonce'
  | 'valid_before'
  | 'payment_id'
>;

/**
 * Milliseconds a `settling` claim is held without renewal: the request renews it while settlement runs, so a claim
 * whose request died (its process was killed) is reconciled within about this time plus a sweep (issue 14).
 */
export const CLAIM_LEASE_MS = 15_000;

/** Why {@link X402PaymentRepository.claim} refused: the authorization or the order is already taken. */
export type ClaimRefusal =
  { refused: 'authorization'; existing: X402PaymentDoc | null } | { refused: 'order'; existing: X402PaymentDoc | null };

/** One page of the ledger, newest first; `next_cursor` is null on the last page. */
export interface X402LedgerPage {
  payments: X402PaymentDoc[];
  next_cursor: string | null;
}

/** Statuses the ledger shows (issue 3 §7); `settling` is a claim whose settlement is still running. */
export const X402_STATUSES = ['settling', 'settled', 'pending', 'failed'] as const;
export type X402Status = (typeof X402_STATUSES)[number];

/** The fields a successful settlement sets on a ledger entry. */
function settledFields(transaction: string, now: Date) {
  return {
    status: 'settled' as const,
    transaction,
    tx_key: transaction.toLowerCase(),
    error_reason: null,
    error_message: null,
    settled_at: now,
    updated_at: now,
  };
}

/**
 * The x402 payments ledger (collection `x402_payments`, issue 3 §2 and §7) and the `payment-identifier` store
 * (`x402_payment_ids`). Every step is a single-document write; claims are unique-index inserts (the authorization,
 * the transaction hash and the order each held by one entry at a time, through unique and partial unique indexes).
 */
export class X402PaymentRepository {
  /** Settled records written after their answer went out ({@link recordSettled}), until they land. */
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly d: Database) {}

  /**
   * Records a successful settlement of a claim without making the caller wait: the buyer's answer goes out while
   * the write is in flight. Safe because the claim (with the goods) was durable before the money moved and the
   * chain holds the outcome: if this write is lost (the process dies), the claim's lease lapses and the orphan
   * sweeper reconciles it from the chain as settled. Reads through this repository wait for records in flight
   * first, so this process never shows its own answered purchase as `settling`; {@link flush} awaits them.
   * Returns the entry as {@link markSettled} will leave it (built from `claim`). `onError` gets a failed write.
   */
  recordSettled(claim: X402PaymentDoc, transaction: string, onError: (err: unknown) => void): X402PaymentDoc {
    const settled = settledFields(transaction, new Date());
    // An update, not markSettled's findOneAndUpdate: the entry is built from the claim, so reading back its goods
    // would only cost the database and the API (about 60 KB decoded per purchase, measured).
    const write = this.d.x402Payments.updateOne({ _id: claim._id }, { $set: settled }).then((r) => {
      if (r.matchedCount === 0)
        onError(new Error(`ledger entry ${claim._id} vanished before its settlement was recorded`));
    }, onError);
    this.recording.add(write);
    void write.finally(() => this.recording.delete(write));
    return { ...claim, ...settled };
  }

  /** Waits until the settlement records in flight now ({@link recordSettled}) have landed or failed. */
  async flush(): Promise<void> {
    if (this.recording.size) await Promise.all([...this.recording]);
  }

  /**
   * Claims an authorization (and the order, for order payments) by inserting a `settling` entry. Call it before
   * settlement (the gateway does so while the payment is verified, and withdraws the claim if verification fails): of
   * two requests carrying the same signed payload, one insert wins.
   * @returns the new entry, or why the claim was refused (with the entry holding the claim, when readable).
   */
  async claim(c: X402Claim, goods: unknown = null): Promise<X402PaymentDoc | ClaimRefusal> {
    const id = newX402PaymentId();
    const now = new Date();
    const doc: X402PaymentDoc = {
      _id: id,
      status: 'settling',
      lease_until: new Date(now.getTime() + CLAIM_LEASE_MS),
      ...c,
      payer: c.payer.toLowerCase(),
      nonce: c.nonce.toLowerCase(),
      auth_key: authKey(c.network, c.payer, c.nonce),
      transaction: null,
      tx_key: null,
      order_key: c.order_id ? `order:${c.order_id}` : null,
      error_reason: null,
      error_message: null,
      delivery_token_hash: null,
      delivery: goods ?? null,
      created_at: now,
      updated_at: now,
      settled_at: null,
    };
    try {
      await this.d.x402Payments.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.flush();
      const sameAuth = await this.d.x402Payments.findOne({ auth_key: doc.auth_key });
      if (sameAuth) return { refused: 'authorization', existing: sameAuth };
      if (doc.order_key)
        return { refused: 'order', existing: await this.d.x402Payments.findOne({ order_key: doc.order_key }) };
      throw err;
    }
  }

  /**
   * Records a successful settlement. The unique `tx_key` index refuses a transaction hash another entry holds.
   * @throws MongoServerError 11000 when `transaction` is already recorded on another entry.
   */
  markSettled(id: string, transaction: string, confirmationDue = false): Promise<X402PaymentDoc | null> {
    const now = new Date();
    return this.d.x402Payments.findOneAndUpdate(
      { _id: id },
      {
        $set: {
          ...settledFields(transaction, now),
          // An order payment: the order is confirmed next; until then the lease says whether anyone is on it.
          ...(confirmationDue
            ? { confirmation_due: true as const, lease_until: new Date(now.getTime() + CLAIM_LEASE_MS) }
            : {}),
        },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * Records that the order this settled payment pays is confirmed: clears `confirmation_due`, and a `delivery_failed`
   * note left by an earlier attempt that could not reach the order (the order has this payment: no refund is due).
   */
  async markOrderConfirmed(id: string): Promise<void> {
    // One write for both: a note is cleared only where it says delivery_failed.
    const noted = { $eq: ['$error_reason', 'delivery_failed'] };
    await this.d.x402Payments.updateOne(
      { _id: id, $or: [{ confirmation_due: true }, { error_reason: 'delivery_failed' }] },
      [
        {
          $set: {
            error_reason: { $cond: [noted, null, '$error_reason'] },
            error_message: { $cond: [noted, null, '$error_message'] },
            updated_at: new Date(),
          },
        },
        { $unset: 'confirmation_due' },
      ],
    );
  }

  /**
   * Records a settlement that came back pending with its transaction hash (null when the facilitator's answer was
   * lost), and the goods to hand out once it settles. Returns the delivery token (shown once; only its hash is kept).
   */
  async markPending(
    id: string,
    transaction: string | null,
    reason: string,
    message: string | null,
    deliveryBody: unknown,
  ): Promise<string> {
    const token = `dlv_${randomBytes(24).toString('base64url')}`;
    await this.d.x402Payments.updateOne(
      { _id: id },
      {
        $set: {
          status: 'pending',
          transaction,
          ...(transaction ? { tx_key: transaction.toLowerCase() } : {}),
          error_reason: reason,
          error_message: message,
          delivery_token_hash: sha256Hex(token),
          delivery: deliveryBody ?? null,
          updated_at: new Date(),
        },
      },
    );
    return token;
  }

  /**
   * Records a failed settlement. The order claim is released (another payment may pay the order); the
   * authorization claim stays: a failed authorization is not settled again through this service.
   */
  async markFailed(
    id: string,
    reason: string,
    message: string | null,
    transaction: string | null = null,
  ): Promise<void> {
    await this.d.x402Payments.updateOne(
      { _id: id },
      {
        $set: {
          status: 'failed',
          error_reason: reason,
          error_message: message,
          order_key: null,
          ...(transaction ? { transaction, tx_key: transaction.toLowerCase() } : {}),
          updated_at: new Date(),
        },
      },
    );
  }

  /**
   * Notes on a settled entry that the step after settlement (confirming an order) failed: the money moved, so
   * the entry stays settled and carries `error_reason: delivery_failed` for operators (a refund may be due).
   * `final` (a refusal, e.g. the order expired meanwhile) also ends the confirmation; otherwise (the order
   * workflow was unreachable) `confirmation_due` stays and the sweeper retries once the lease lapses.
   * For an order's payment, only while the confirmation is due: once another request (a duplicate of the same
   * payment) confirmed the order, a late failure of this one notes nothing. Written unconditionally, it was a false
   * refund alarm no sweeper would clear (the cluster chaos drill: a duplicate's confirmation failed with the frontend
   * killed, after the first had confirmed).
   */
  async noteDeliveryFailure(id: string, message: string, final = true): Promise<void> {
    await this.d.x402Payments.updateOne(
      // An item's payment has no order to confirm: its note always stands.
      { _id: id, $or: [{ order_id: null }, { confirmation_due: true }] },
      {
        $set: { error_reason: 'delivery_failed', error_message: message, updated_at: new Date() },
        ...(final ? { $unset: { confirmation_due: '' } } : {}),
      },
    );
  }

  /**
   * Marks settled entry `id` as owing its payer a refund (issue 36 §1); keeps an earlier request's reason and time.
   * @returns the entry after the write, or null when it is not settled.
   */
  async requestRefund(id: string, reason: string): Promise<X402PaymentDoc | null> {
    const now = new Date();
    await this.d.x402Payments.updateOne(
      { _id: id, status: 'settled', refund: { $exists: false } },
      {
        $set: {
          refund: { status: 'due', reason, transaction: null, requested_at: now, sent_at: null },
          updated_at: now,
        },
      },
    );
    return this.d.x402Payments.findOne({ _id: id, status: 'settled' });
  }

  /** Records that the refund of entry `id` is on chain in `transaction` (idempotent). */
  async markRefunded(id: string, transaction: string): Promise<void> {
    const now = new Date();
    await this.d.x402Payments.updateOne(
      { _id: id, 'refund.status': 'due' },
      { $set: { 'refund.status': 'sent', 'refund.transaction': transaction, 'refund.sent_at': now, updated_at: now } },
    );
  }

  /**
   * Deletes a `settling` claim whose money never moved (its payment failed verification, the facilitator could not
   * be asked, or settlement refused it before sending anything): the authorization may then be claimed again.
   * No-op for any other status.
   */
  async withdrawClaim(id: string): Promise<void> {
    await this.d.x402Payments.deleteOne({ _id: id, status: 'settling', transaction: null });
  }

  /**
   * Extends the lease of a claim still `settling`, or settled with its order not yet confirmed (its request is
   * alive); see {@link CLAIM_LEASE_MS}.
   */
  async renewClaim(id: string): Promise<void> {
    await this.d.x402Payments.updateOne(
      { _id: id, $or: [{ status: 'settling' }, { confirmation_due: true }] },
      { $set: { lease_until: new Date(Date.now() + CLAIM_LEASE_MS) } },
    );
  }

  /**
   * Takes over a `settling` claim whose lease ran out (its request died), for a resend of the same signed payment:
   * the lease is renewed only if it is still the one read, so of two resends one wins.
   * @returns the entry now held, or null when another request renewed or finished it first.
   */
  takeOverClaim(id: string, lease: Date | null): Promise<X402PaymentDoc | null> {
    const now = new Date();
    return this.d.x402Payments.findOneAndUpdate(
      { _id: id, status: 'settling', lease_until: lease ?? { $exists: false } },
      { $set: { lease_until: new Date(now.getTime() + CLAIM_LEASE_MS), updated_at: now } },
      { returnDocument: 'after' },
    );
  }

  /**
   * Settled order payments whose order was never confirmed and whose lease ran out at `now` (the request died
   * between settlement and the order's `confirmPayment`), oldest lease first.
   */
  staleConfirmations(now: Date, limit: number): Promise<X402PaymentDoc[]> {
    return this.d.x402Payments
      .find({ confirmation_due: true, lease_until: { $lt: now } })
      .sort({ lease_until: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Claims still `settling` whose lease ran out at `now` (their request died), oldest first. Claims written before
   * leases carry none: they count as dead `legacyAgeMs` after creation.
   */
  async staleClaims(now: Date, limit: number, legacyAgeMs: number): Promise<X402PaymentDoc[]> {
    await this.flush();
    return this.d.x402Payments
      .find({
        status: 'settling',
        $or: [
          { lease_until: { $lt: now } },
          { lease_until: { $exists: false }, created_at: { $lt: new Date(now.getTime() - legacyAgeMs) } },
        ],
      })
      .sort({ created_at: 1 })
      .limit(limit)
      .toArray();
  }

  /** The entry holding a signed authorization (network, payer, nonce), if any. */
  async getByAuthorization(network: string, payer: string, nonce: string): Promise<X402PaymentDoc | null> {
    await this.flush();
    return this.d.x402Payments.findOne({ auth_key: authKey(network, payer, nonce) });
  }

  /** One entry by ledger id. */
  async get(id: string): Promise<X402PaymentDoc | null> {
    await this.flush();
    return this.d.x402Payments.findOne({ _id: id });
  }

  /** The entry holding a transaction hash (case-insensitive). */
  async getByTransaction(transaction: string): Promise<X402PaymentDoc | null> {
    await this.flush();
    return this.d.x402Payments.findOne({ tx_key: transaction.toLowerCase() });
  }

  /** The order's settled payment, if any (`order_key` is unique: one payment in flight or settled per order). */
  async getSettledForOrder(orderId: string): Promise<X402PaymentDoc | null> {
    await this.flush();
    // A settlement given back (issue 36 §1) never pays the order again.
    return this.d.x402Payments.findOne({
      order_key: `order:${orderId}`,
      status: 'settled',
      refund: { $exists: false },
    });
  }

  /** Whether a claim on the order is still `settling` or `pending` (its money may yet move). */
  async hasUnresolvedForOrder(orderId: string): Promise<boolean> {
    await this.flush();
    const p = await this.d.x402Payments.findOne(
      { order_key: `order:${orderId}`, status: { $in: ['settling', 'pending'] } },
      { projection: { _id: 1 } },
    );
    return p !== null;
  }

  /** The entry whose pending goods are behind this delivery token. */
  async getByDeliveryToken(token: string): Promise<X402PaymentDoc | null> {
    await this.flush();
    return this.d.x402Payments.findOne({ delivery_token_hash: sha256Hex(token) });
  }

  /**
   * Ledger page, newest first. `cursor` is the opaque `next_cursor` of the previous page.
   * @throws Error('bad cursor') when the cursor cannot be decoded.
   */
  async list(opts: {
    limit: number;
    cursor?: string;
    status?: X402Status;
    resource_kind?: string;
  }): Promise<X402LedgerPage> {
    await this.flush();
    const filter: Filter<X402PaymentDoc> = {};
    if (opts.status) filter.status = opts.status;
    if (opts.resource_kind) filter.resource_kind = opts.resource_kind;
    if (opts.cursor) {
      const { t, id } = decodeCursor(opts.cursor);
      filter.$or = [{ created_at: { $lt: new Date(t) } }, { created_at: new Date(t), _id: { $lt: id } }];
    }
    const docs = await this.d.x402Payments
      .find(filter)
      .sort({ created_at: -1, _id: -1 })
      .limit(opts.limit + 1)
      .toArray();
    const page = docs.slice(0, opts.limit);
    const last = page[page.length - 1];
    return {
      payments: page,
      next_cursor: docs.length > opts.limit && last ? encodeCursor(last.created_at.getTime(), last._id) : null,
    };
  }

  // --- payment-identifier store -------------------------------------------------------------------------------

  /** Key of a payment id within one resource (the spec asks to scope ids by route). */
  static paymentIdKey(resource: string, paymentId: string): string {
    return sha256Hex(`${resource}\n${paymentId}`);
  }

  /** The stored record of a payment id, or null. */
  getPaymentId(key: string): Promise<X402PaymentIdDoc | null> {
    return this.d.x402PaymentIds.findOne({ _id: key });
  }

  /**
   * Claims a payment id for a purchase now starting. A stale `in_flight` claim (its request died) older than
   * `staleMs` is taken over; the takeover is a delete followed by the same unique insert, so two takers cannot both win.
   * @returns null when claimed, else the record holding the id.
   */
  async claimPaymentId(
    doc: Omit<X402PaymentIdDoc, 'state' | 'payment_ref' | 'response' | 'created_at' | 'updated_at'>,
    staleMs = 120_000,
  ): Promise<X402PaymentIdDoc | null> {
    const now = new Date();
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.d.x402PaymentIds.insertOne({
          ...doc,
          state: 'in_flight',
          payment_ref: null,
          response: null,
          created_at: now,
          updated_at: now,
        });
        return null;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await this.getPaymentId(doc._id);
        if (!existing) continue;
        if (existing.state === 'in_flight' && existing.updated_at.getTime() < now.getTime() - staleMs) {
          await this.d.x402PaymentIds.deleteOne({ _id: doc._id, state: 'in_flight', updated_at: existing.updated_at });
          continue;
        }
        return existing;
      }
    }
    return this.getPaymentId(doc._id);
  }

  /** Stores the delivered response under the payment id (state `done`) or the pending payment (state `pending`). */
  async completePaymentId(
    key: string,
    state: 'done' | 'pending',
    paymentRef: string,
    response: X402PaymentIdDoc['response'],
  ): Promise<void> {
    await this.d.x402PaymentIds.updateOne(
      { _id: key },
      { $set: { state, payment_ref: paymentRef, response, updated_at: new Date() } },
    );
  }

  /** Releases a payment id whose purchase did not deliver, so the buyer can retry with it. */
  async releasePaymentId(key: string): Promise<void> {
    await this.d.x402PaymentIds.deleteOne({ _id: key });
  }
}

/** The claim key of an authorization: network, lowercase payer and lowercase nonce. */
export const authKey = (network: string, payer: string, nonce: string): string =>
  `${network}|${payer.toLowerCase()}|${nonce.toLowerCase()}`;

function encodeCursor(t: number, id: string): string {
  return Buffer.from(JSON.stringify({ t, id })).toString('base64url');
}

function decodeCursor(cursor: string): { t: number; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; id?: unknown };
    if (typeof v.t === 'number' && Number.isFinite(v.t) && typeof v.id === 'string') return { t: v.t, id: v.id };
  } catch {
    // fall through
  }
  throw new Error('bad cursor');
}
