/**
 * The x402 payment middleware for Koa: quote, then verify ∥ claim, then one `switch` on the processing result, as
 * `@x402/hono`'s `paymentMiddlewareFromHTTPServer` switches on `processHTTPRequest`'s:
 * - `no-payment-required`: never for a paid route (500);
 * - `payment-error`: the 402 (or 400) of `@x402/core` as problem details; a bare 402 of catalogue goods is shared
 *   from the response cache for {@link CHALLENGE_TTL_MS};
 * - `payment-verified`: the payment session settles, records and delivers (./session.ts).
 * A payment id seen before is answered by replay (./replay.ts) instead. Source: x402 v2 HTTP transport; issue 3 §1,
 * §2; issue 27 §2.
 */
import type { Middleware } from 'koa';
import type { HTTPProcessResult } from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import { markShared } from '../http/cachedJson';
import { ProblemError, problem } from '../errors';
import type { ClaimRefusal } from '../repos/x402Payments';
import { FacilitatorReason } from './facilitator/reasons';
import { authorizationOf, invalidHeader, parsePaymentHeader } from './paymentHeader';
import { answerFromPaymentId, answerResendAfterRefusal, paymentIdScope } from './replay';
import { writePaymentError } from './responses';
import { CHALLENGE_TTL_MS } from './server';
import { PaymentSession, type SellerDeps, type VerifiedPayment } from './session';
import type { PaidQuote, PaidResource } from './types';

/**
 * Koa middleware selling `resource` per request over x402 (see src/x402/gateway.ts for the whole flow). Refusals
 * are thrown as ProblemError: the quote's own (404, 400, 409, 401/403), 400 `invalid_payment_header` for a malformed
 * PAYMENT-SIGNATURE or an x402 v1 X-PAYMENT, 502 `facilitator_error`, 409 `payment_in_progress` /
 * `payment_identifier_conflict`.
 */
export function paymentMiddleware(deps: SellerDeps, resource: PaidResource): Middleware {
  return async (ctx) => {
    const header = ctx.get('payment-signature');
    let quote: PaidQuote;
    try {
      quote = await resource.quote(ctx);
    } catch (err) {
      // A resend of a purchase that went through: its quote may no longer apply (409: the order it paid is paid).
      // Not for 401/403: who may pay is checked first, resend or not.
      if (header && err instanceof ProblemError && err.status === 409) {
        if (await answerResendAfterRefusal(deps, { ctx, resource, header })) return;
      }
      throw err;
    }
    if (!header && ctx.get('x-payment')) {
      throw invalidHeader('X-PAYMENT (x402 version 1) is not supported: send an x402 v2 payload in PAYMENT-SIGNATURE');
    }
    const payload = header ? parsePaymentHeader(header) : null;
    await deps.server.ensureInitialized();
    const http = deps.server.httpServerFor(ctx, quote);
    const context = deps.server.requestContext(ctx, header);
    ctx.set('Cache-Control', 'no-store');

    const pid = payload ? paymentIdScope({ ctx, quote }, payload, deps.settings.payTo) : null;
    const paymentIdKey = pid?.doc._id ?? null;
    const session = new PaymentSession(deps, { ctx, resource, quote, http, context, paymentIdKey });
    if (pid) {
      // No takeover by age: answerFromPaymentId asks the ledger how far the first request got.
      const claimed = await deps.ledger.claimPaymentId(pid.doc, Number.POSITIVE_INFINITY);
      if (claimed) return answerFromPaymentId(deps, session, pid, claimed);
    }
    let delivered = false;
    try {
      delivered = await sell(deps, session, payload);
    } finally {
      if (pid && !delivered) await deps.ledger.releasePaymentId(pid.doc._id).catch(() => undefined);
    }
  };
}

/**
 * Verify ∥ claim, then the switch on the processing result. Returns true when goods (or a pending receipt) went
 * out. The goods are built and the authorization claimed while the payment is verified (both wait on a round trip
 * of their own; goods are pure and the claim names only our own requirements and the payload's authorization). A
 * claim whose payment then fails verification is withdrawn, so that nothing is kept for a payment never settled.
 */
async function sell(deps: SellerDeps, session: PaymentSession, payload: PaymentPayload | null): Promise<boolean> {
  const { ctx, quote, context } = session.sale;
  if (payload) session.startClaim(payload);
  let result: HTTPProcessResult;
  try {
    result = await session.verify();
  } catch (err) {
    await session.withdraw();
    throw err;
  }
  switch (result.type) {
    case 'no-payment-required':
      await session.withdraw();
      throw problem('internal_error', 'x402 route matched no payment option');
    case 'payment-error':
      await session.withdraw();
      writePaymentError(ctx, result.response, { quote, settings: deps.settings });
      // A bare 402 of catalogue goods is the same for every caller (src/http/cachedJson.ts ResponseCache); an
      // order's stops applying once the order is paid.
      if (!context.paymentHeader && ctx.status === 402 && quote.kind !== 'order') markShared(ctx, CHALLENGE_TTL_MS);
      return false;
    case 'payment-verified':
      return settleVerified(deps, session, result);
  }
}

/** A verified payment: waits for the claim step, then settle → record → deliver (or the claim's refusal). */
async function settleVerified(
  deps: SellerDeps,
  session: PaymentSession,
  result: VerifiedPayment & Pick<Extract<HTTPProcessResult, { type: 'payment-verified' }>, 'cancellationDispatcher'>,
): Promise<boolean> {
  let refusal: ClaimRefusal | null;
  try {
    refusal = await session.claimed();
  } catch (err) {
    await result.cancellationDispatcher.cancel({ reason: 'handler_threw', error: err }).catch(() => undefined);
    throw err;
  }
  if (refusal) {
    await answerRefusedClaim(deps, session, refusal, result);
    return false;
  }
  const { ctx, resource, quote } = session.sale;
  let unreserve: (() => Promise<void>) | null = null;
  if (resource.reserve && session.claim) {
    try {
      unreserve = await resource.reserve(ctx, quote, session.claim);
    } catch (err) {
      // Refused before any money moved (another rail is paying the order): the claim goes, nothing is kept.
      await session.withdraw();
      await result.cancellationDispatcher.cancel({ reason: 'handler_threw', error: err }).catch(() => undefined);
      throw err;
    }
  }
  let answered = false;
  try {
    answered = await session.settle(result);
    return answered;
  } finally {
    session.release();
    // A settlement that did not go through (402 written) releases what it reserved; a settled or pending one keeps it.
    if (!answered && ctx.status === 402 && unreserve) await unreserve().catch(() => undefined);
  }
}

/**
 * Answers a refused claim. The order is held by another payment: 409 `payment_in_progress`. The authorization is
 * held by another request: 402 `invalid_exact_evm_nonce_already_used` with a fresh PAYMENT-REQUIRED.
 * @throws ProblemError 409 `payment_in_progress` for an order held by another payment.
 */
async function answerRefusedClaim(
  deps: SellerDeps,
  session: PaymentSession,
  refusal: ClaimRefusal,
  verified: VerifiedPayment,
): Promise<void> {
  const { ctx, quote, http } = session.sale;
  if (refusal.refused === 'order') {
    throw problem(
      'payment_in_progress',
      `Another x402 payment for order ${quote.orderId} is being settled or has settled`,
      { order_id: quote.orderId },
    );
  }
  // The same signed authorization is being (or was) settled by another request: this one is not settled again.
  const auth = authorizationOf(verified.paymentPayload);
  await deps.server.challenge(ctx, {
    requirements: verified.paymentRequirements,
    http,
    reason: FacilitatorReason.nonceAlreadyUsed,
    quote,
    detail: `This authorization (payer ${auth.payer}, nonce ${auth.nonce}) is already ${refusal.existing?.status ?? 'claimed'} by another request`,
  });
}
