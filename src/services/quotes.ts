/**
 * Quote creation without HTTP: used by `POST /api/v1/quote` and by the procurement activities.
 *
 * Source: seed §2.2 (quote request: service_id, is_agent default true, partner_id), §1 (20% partner commission);
 * issue 2 §3 (binding, deterministic quotes).
 */
import { randomBytes } from 'node:crypto';
import { CATALOGUE_VERSION, PARTNER_COMMISSION_PERCENT, TERMS_VERSION, getService, priceMicros } from '../domain/catalogue';
import { microsToUsd, percentOf } from '../domain/money';
import type { Config } from '../config';
import { isDuplicateKey, type Database, type QuoteDoc } from '../db';
import { notFound } from '../errors';
import type { Quote } from '../routes/api/quotes/schema';
import type { Signing } from '../signing/signer';

/** What quote creation needs (the API's `AppDeps` has it). */
export interface QuoteDeps {
  services: { db: Pick<Database, 'quotes'> };
  config: Pick<Config, 'QUOTE_TTL_SECONDS'>;
}

/** A quote request after validation (seed §2.2). */
export interface NewQuote {
  service_id: string;
  is_agent: boolean;
  partner_id?: string | undefined;
}

/** New quote id: `quo_` + 128 random bits. */
export const newQuoteId = (): string => `quo_${randomBytes(16).toString('base64url')}`;

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

/**
 * Stores a binding quote: the catalogue price for the buyer kind (integer micro-units) and, with a partner, its 20%
 * commission. With `quoteId` given, a second call with the same id returns the stored quote (retry-safe).
 * @throws ProblemError 404 service_not_found.
 */
export async function createQuote(deps: QuoteDeps, req: NewQuote, quoteId?: string): Promise<QuoteDoc> {
  const service = getService(req.service_id);
  if (!service) throw notFound('service_not_found', `No service ${req.service_id}; see GET /api/v1/services`);
  const amount = priceMicros(service, req.is_agent);
  const now = new Date();
  const quote: QuoteDoc = {
    _id: quoteId ?? newQuoteId(),
    service_id: service.id,
    is_agent: req.is_agent,
    amount_micros: amount,
    currency: service.currency,
    billing: service.billing,
    partner_id: req.partner_id ?? null,
    commission_micros: req.partner_id ? percentOf(amount, PARTNER_COMMISSION_PERCENT) : null,
    terms_version: service.terms_version ?? TERMS_VERSION,
    catalogue_version: CATALOGUE_VERSION,
    created_at: now,
    expires_at: new Date(now.getTime() + deps.config.QUOTE_TTL_SECONDS * 1000),
  };
  try {
    await deps.services.db.quotes.insertOne(quote);
  } catch (err) {
    if (!(quoteId && isDuplicateKey(err))) throw err;
    const existing = await deps.services.db.quotes.findOne({ _id: quoteId });
    if (!existing) throw err;
    return existing;
  }
  return quote;
}
