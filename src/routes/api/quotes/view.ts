/**
 * Public forms of a stored quote (seed §2.2; issue 12 §3 for `jws`), shown by the quote and procurement routes.
 */
import type { QuoteDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';
import type { Signing } from '../../../signing/signer';
import type { Quote } from './schema';

/** Public form of a stored quote (USD numbers with integer micro-unit twins), without its signature. */
export function quoteView(q: QuoteDoc): Omit<Quote, 'jws'> {
  return {
    quote_id: q._id,
    service_id: q.service_id,
    is_agent: q.is_agent,
    amount: microsToUsd(q.amount_micros),
    amount_micros: q.amount_micros,
    currency: q.currency,
    billing: q.billing,
    partner_id: q.partner_id,
    commission: q.commission_micros === null ? null : microsToUsd(q.commission_micros),
    commission_micros: q.commission_micros,
    terms_version: q.terms_version,
    catalogue_version: q.catalogue_version,
    created_at: q.created_at.toISOString(),
    expires_at: q.expires_at.toISOString(),
  };
}

/**
 * Public form of a stored quote with `jws`: its facts signed as a compact JWS (issue 12 §3; `typ` quote+jwt, EdDSA,
 * verify with GET /.well-known/jwks.json). Signed when shown, from the stored facts only, so every read of a quote
 * gives the same claims (and the same JWS while the signing key is the same).
 * @throws ProblemError 503 signing_unavailable when no key can sign.
 */
export async function signedQuoteView(deps: { signing: Pick<Signing, 'signQuote'> }, q: QuoteDoc): Promise<Quote> {
  const facts = quoteView(q);
  return { ...facts, jws: await deps.signing.signQuote(facts) };
}
