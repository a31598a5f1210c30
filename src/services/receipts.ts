/**
 * Signed delivery receipts of orders (issue 12 §3): issued when an order is first read as delivered, stored, and shown
 * unchanged on every later read until they expire (RECEIPT_TTL_SECONDS), then issued again.
 */
import type { Database, OrderDoc, ReceiptDoc } from '../db';
import { isDuplicateKey } from '../db';
import { microsToUsd } from '../domain/money';
import type { ReceiptFacts, SignedReceipt, Signing } from '../signing/signer';

/** Statuses of an order whose deliverables have been delivered (and are final). */
const DELIVERED_STATUSES = new Set(['delivered', 'accepted', 'rejected']);

/** What receipt issuance needs. */
export interface ReceiptDeps {
  services: { db: Pick<Database, 'receipts'> };
  signing: Pick<Signing, 'signReceipt'>;
}

/**
 * The facts a receipt signs, or null while the order has no delivery: order and service ids, the amount paid (USD and
 * integer micro-units), rail and transaction id, every deliverable's name, sha256, size and media type, delivery time.
 */
export function receiptFacts(doc: OrderDoc): ReceiptFacts | null {
  if (!DELIVERED_STATUSES.has(doc.status) || !doc.payment || doc.deliverables.length === 0) return null;
  const delivered = [...doc.progress].reverse().find((p) => p.status === 'delivered' && !p.event);
  return {
    order_id: doc._id,
    service_id: doc.service_id,
    quote_id: doc.quote_id,
    amount: microsToUsd(doc.payment.amount_micros),
    amount_micros: doc.payment.amount_micros,
    currency: doc.currency,
    payment: { rail: doc.payment.rail, transaction_id: doc.payment.transaction_id, paid_at: doc.payment.paid_at },
    deliverables: doc.deliverables.map((d) => ({
      name: d.name,
      sha256: d.sha256,
      size: d.size,
      media_type: d.media_type,
    })),
    delivered_at: delivered?.at ?? doc.updated_at.toISOString(),
  };
}

const view = (r: ReceiptDoc): SignedReceipt => ({
  jws: r.jws,
  kid: r.kid,
  issued_at: r.issued_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
});

/**
 * Receipts this process has shown, by order id, until they expire: a delivered order read again costs no database
 * command (issue 39 §2). Bounded; the oldest entry goes first.
 */
const shown = new Map<string, ReceiptDoc>();
const SHOWN_MAX = 2_000;

function remember(r: ReceiptDoc): SignedReceipt {
  shown.delete(r._id);
  shown.set(r._id, r);
  if (shown.size > SHOWN_MAX) shown.delete(shown.keys().next().value!);
  return view(r);
}

/**
 * The order's signed delivery receipt, or null before delivery. Issued once (an upsert that inserts only when absent:
 * concurrent readers in several processes end up showing the same receipt) and re-issued only after `expires_at`.
 * @throws ProblemError 503 signing_unavailable when no key can sign.
 */
export async function orderReceipt(deps: ReceiptDeps, doc: OrderDoc, now = new Date()): Promise<SignedReceipt | null> {
  const facts = receiptFacts(doc);
  if (!facts) return null;
  const cached = shown.get(doc._id);
  if (cached && cached.expires_at.getTime() > now.getTime()) return view(cached);
  const receipts = deps.services.db.receipts;
  const issue = async (): Promise<ReceiptDoc> => {
    const signed = await deps.signing.signReceipt(facts, now);
    return {
      _id: doc._id,
      jws: signed.jws,
      kid: signed.kid,
      issued_at: new Date(signed.issued_at),
      expires_at: new Date(signed.expires_at),
    };
  };
  // One command whether or not another reader issued it first: the stored receipt wins.
  const next = await issue();
  const { _id, ...fields } = next;
  const stored = await receipts
    .findOneAndUpdate({ _id }, { $setOnInsert: fields }, { upsert: true, returnDocument: 'after' })
    .catch(async (err: unknown) => {
      // Two upserts at once: the loser's insert meets the winner's document.
      if (!isDuplicateKey(err)) throw err;
      return receipts.findOne({ _id });
    });
  if (stored && stored.expires_at.getTime() > now.getTime()) return remember(stored);
  // Expired: replace it unless another reader already did.
  const replaced = stored
    ? await receipts.findOneAndReplace({ _id, jws: stored.jws }, next, { returnDocument: 'after' })
    : null;
  if (replaced) return remember(replaced);
  const winner = await receipts.findOne({ _id });
  return winner ? remember(winner) : view(next);
}
