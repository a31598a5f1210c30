/**
 * Replay by `payment-identifier` (x402 specs/extensions/payment_identifier.md, "Idempotency Behavior"): a purchase
 * retried with the same payment id gets the stored response without a second charge. Ids are scoped by resource
 * path (X402PaymentRepository.paymentIdKey) and bound to a fingerprint of the purchase (scheme, network, asset,
 * amount in integer micro-units, payTo, method, path, query, body) and to the payer. A first request that died
 * mid-purchase (issue 14) is finished, or its id released, by a resend of the same signed payload.
 * Source: x402 v2 payment-identifier extension; issue 3 §2; issue 14; issue 27 §2.
 */
import type { Context } from 'koa';
import type { PaymentPayload } from '@x402/core/types';
import type { X402PaymentDoc, X402PaymentIdDoc } from '../db';
import { type ProblemError, problem } from '../errors';
import { sha256Hex } from '../hash';
import { CLAIM_LEASE_MS, X402PaymentRepository } from '../repos/x402Payments';
import { authorizationOf, parsePaymentHeader, paymentIdentifierOf } from './paymentHeader';
import {
  goodsOf,
  pendingBody,
  quoteOfHeld,
  receipt,
  settledResponseOf,
  writePaymentError,
  writeReplay,
} from './responses';
import { SETTLEMENT_PENDING_REASON } from './settlementFailure';
import { type PaymentSession, deliverSettled, type SellerDeps } from './session';
import type { PaidResource, Sale } from './types';

/** A payment id as this request claims it: the id and the record `claimPaymentId` inserts. */
export interface PaymentIdScope {
  id: string;
  doc: Pick<X402PaymentIdDoc, '_id' | 'payment_id' | 'resource' | 'payload_hash' | 'payer' | 'fingerprint'>;
}

/**
 * Scope, hash and fingerprint of the payment id `payload` carries (null when it carries none); `payTo` is the
 * seller's address, part of the fingerprint.
 */
export function paymentIdScope(
  sale: Pick<Sale, 'ctx' | 'quote'>,
  payload: PaymentPayload,
  payTo: string,
): PaymentIdScope | null {
  const { ctx, quote } = sale;
  const id = paymentIdentifierOf(payload);
  if (!id) return null;
  const a = payload.accepted;
  const bodyHash =
    ctx.method === 'GET' || ctx.method === 'HEAD'
      ? ''
      : sha256Hex(JSON.stringify((ctx.request as { body?: unknown }).body ?? null));
  const fingerprint = sha256Hex(
    JSON.stringify([
      a.scheme,
      a.network,
      a.asset.toLowerCase(),
      String(quote.priceMicros),
      payTo.toLowerCase(),
      ctx.method,
      ctx.path,
      ctx.querystring,
      bodyHash,
    ]),
  );
  const doc = {
    _id: X402PaymentRepository.paymentIdKey(ctx.path, id),
    payment_id: id,
    resource: ctx.path,
    payload_hash: sha256Hex(JSON.stringify(payload)),
    payer: authorizationOf(payload).payer,
    fingerprint,
  };
  return { id, doc };
}

/**
 * Answers a request whose payment id was seen before (`existing`):
 * - same payload: the stored response, without verifying again (a resend may no longer verify once settled);
 * - another payload, same purchase: verified first (it proves the payer), then the stored response, not settled;
 * - still pending: 202 with the receipt; settled meanwhile: the goods; failed: the id is released (409, retry);
 * - another purchase (fingerprint), or another payer: 409; still running: 409 with Retry-After.
 * @throws ProblemError 409 `payment_identifier_conflict` or `payment_in_progress`; 500 `internal_error` for a record
 *   pointing at nothing.
 */
export async function answerFromPaymentId(
  deps: SellerDeps,
  session: PaymentSession,
  pid: PaymentIdScope,
  existing: X402PaymentIdDoc,
): Promise<void> {
  const { ctx, quote } = session.sale;
  if (existing.fingerprint !== pid.doc.fingerprint) {
    throw problem('payment_identifier_conflict', `payment-identifier ${pid.id} was used for another purchase`, {
      param: 'payment-identifier',
    });
  }
  if (existing.state === 'in_flight') return answerInFlight(deps, session, pid, existing);
  if (existing.state === 'pending') return answerPending(deps, session.sale, pid, existing);
  const stored = existing.response;
  if (!stored) throw problem('internal_error', `payment-identifier ${existing._id} done without a response`);
  if (existing.payload_hash === pid.doc.payload_hash) return writeReplay(ctx, stored);
  // A re-signed payload for the same purchase: authenticate it (facilitator verify), then answer without settling.
  const result = await session.verify();
  if (result.type === 'payment-error') {
    return writePaymentError(ctx, result.response, { quote, settings: deps.settings });
  }
  if (result.type === 'payment-verified') {
    await result.cancellationDispatcher.cancel({ reason: 'after_verify_aborted' }).catch(() => undefined);
    if (authorizationOf(result.paymentPayload).payer !== existing.payer) {
      throw problem('payment_identifier_conflict', `payment-identifier ${pid.id} belongs to another payer`, {
        param: 'payment-identifier',
      });
    }
  }
  writeReplay(ctx, stored);
}

/** A payment id whose payment came back pending: its ledger entry says where it stands now. */
async function answerPending(deps: SellerDeps, sale: Sale, pid: PaymentIdScope, existing: X402PaymentIdDoc) {
  const payment = existing.payment_ref ? await deps.ledger.get(existing.payment_ref) : null;
  if (payment?.status === 'settled') return answerSettledResend(deps, sale, existing._id, payment);
  if (payment?.status === 'failed') {
    await deps.ledger.releasePaymentId(existing._id);
    throw problem(
      'payment_in_progress',
      `The earlier payment with payment-identifier ${pid.id} failed (${payment.error_reason}); retry to pay again`,
      {},
      { headers: { 'Retry-After': '0' } },
    );
  }
  if (!payment) throw problem('internal_error', `payment-identifier ${existing._id} points at no ledger entry`);
  sale.ctx.status = 202;
  sale.ctx.set('Retry-After', '5');
  sale.ctx.body = pendingBody(receipt(payment), payment.error_reason ?? SETTLEMENT_PENDING_REASON, null);
}

/**
 * A payment id whose first request has not finished, or died (its process was killed; issue 14). With the same
 * signed payload, the ledger says how far it got: settled with its goods kept → the goods, and the id is done;
 * failed, or never claimed and older than a claim lease → the id is released for a new attempt; otherwise still
 * running → 409 with Retry-After. The payment id is what proves the buyer here: the signed payload alone is
 * public on chain once settled.
 */
async function answerInFlight(
  deps: SellerDeps,
  session: PaymentSession,
  pid: PaymentIdScope,
  existing: X402PaymentIdDoc,
): Promise<void> {
  const running = () =>
    problem(
      'payment_in_progress',
      `A purchase with payment-identifier ${pid.id} is still running; retry shortly`,
      {},
      { headers: { 'Retry-After': '2' } },
    );
  if (existing.payload_hash !== pid.doc.payload_hash) throw running();
  const held = await heldBy(deps, parsePaymentHeader(session.sale.ctx.get('payment-signature')));
  if (held && held.resource === existing.resource) {
    // Settled: the goods kept on the entry; an order payment's order is confirmed here if its request died first.
    if (held.status === 'settled' && held.delivery != null) {
      return answerSettledResend(deps, session.sale, existing._id, held);
    }
    // A claim whose request died before the facilitator answered: this resend carries the same signed payment,
    // so it finishes the purchase instead of waiting minutes for the authorization to expire.
    if (held.status === 'settling' && (held.lease_until?.getTime() ?? 0) < Date.now()) {
      const mine = await deps.ledger.takeOverClaim(held._id, held.lease_until ?? null);
      if (mine) return settleTakenOver(deps, session, mine, running);
    }
    if (held.status !== 'failed') throw running();
  } else if (existing.updated_at.getTime() > Date.now() - CLAIM_LEASE_MS) {
    throw running();
  }
  await deps.ledger.releasePaymentId(existing._id);
  throw problem(
    'payment_in_progress',
    `The earlier purchase with payment-identifier ${pid.id} did not complete; retry to pay again`,
    {},
    { headers: { 'Retry-After': '0' } },
  );
}

/**
 * Settles a claim taken over from a dead request, with the resent payload: verified again first (an authorization
 * the dead request got settled no longer verifies; reconciliation then finds its transfer on chain). Any settlement
 * failure is recorded as pending and reconciled, never as failed: the dead request's own settlement may still land.
 * @throws ProblemError 409 `payment_in_progress` (from `running`) when the payload no longer verifies
 *   (reconciliation started).
 */
async function settleTakenOver(
  deps: SellerDeps,
  session: PaymentSession,
  claim: X402PaymentDoc,
  running: () => ProblemError,
): Promise<void> {
  session.adopt(claim);
  try {
    // Whether the dead request's settlement landed is on chain: the facilitator's verify, never the offline one.
    const result = await session.verify(true);
    if (result.type !== 'payment-verified') {
      await deps.reconcile(claim._id);
      throw running();
    }
    await session.settle(result);
  } finally {
    session.release();
  }
}

/**
 * A resend whose quote was refused (the order it paid is no longer awaiting payment): when the same signed payload
 * with its payment-identifier already bought this resource, answers as for any resend (the stored response, or the
 * order confirmed and shown). Returns false when there is no such purchase (the refusal stands).
 */
export async function answerResendAfterRefusal(
  deps: SellerDeps,
  request: { ctx: Context; resource: PaidResource; header: string },
): Promise<boolean> {
  const { ctx, resource, header } = request;
  let payload: PaymentPayload;
  try {
    payload = parsePaymentHeader(header);
  } catch {
    return false;
  }
  const id = paymentIdentifierOf(payload);
  if (!id) return false;
  const existing = await deps.ledger.getPaymentId(X402PaymentRepository.paymentIdKey(ctx.path, id));
  if (!existing || existing.payload_hash !== sha256Hex(JSON.stringify(payload))) return false;
  if (existing.state === 'done' && existing.response) {
    writeReplay(ctx, existing.response);
    return true;
  }
  const held = await heldBy(deps, payload);
  if (!held || held.resource !== existing.resource || held.status !== 'settled') return false;
  await answerSettledResend(deps, { ctx, resource, quote: quoteOfHeld(held) }, existing._id, held);
  return true;
}

/**
 * A resend of a payment that settled: the goods kept on the entry, and for an order payment whose request died
 * before confirming the order, the order confirmed now and shown; the payment id is then done.
 */
async function answerSettledResend(
  deps: SellerDeps,
  sale: Sale,
  paymentIdKey: string,
  held: X402PaymentDoc,
): Promise<void> {
  const stored = settledResponseOf(held);
  const response = held.confirmation_due
    ? await deliverSettled(deps, sale, { payment: held, goods: goodsOf(held), headers: stored.headers })
    : stored;
  await deps.ledger.completePaymentId(paymentIdKey, 'done', held._id, response);
  writeReplay(sale.ctx, response);
}

/** The ledger entry holding the payload's signed authorization, if any. */
function heldBy(deps: SellerDeps, payload: PaymentPayload): Promise<X402PaymentDoc | null> {
  const auth = authorizationOf(payload);
  return payload.accepted?.network
    ? deps.ledger.getByAuthorization(payload.accepted.network, auth.payer, auth.nonce)
    : Promise.resolve(null);
}
