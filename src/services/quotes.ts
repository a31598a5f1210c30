/**
 * Quote creation without HTTP: used by `POST /api/v1/quote` and by the procurement activities. The public forms of a
 * quote are the routes' (src/routes/api/quotes/view.ts).
 *
 * Source: seed §2.2 (quote request: service_id, is_agent default true, partner_id), §1 (20% partner commission);
 * issue 2 §3 (binding, deterministic quotes).
 */
import { randomBytes } from 'node:crypto';
import {
  CATALOGUE_VERSION,
  PARTNER_COMMISSION_PERCENT,
  TERMS_VERSION,
  getService,
  priceMicros,
} from '../domain/catalogue';
import { percentOf } from '../domain/money';
import type { Config } from '../config';
import type { QuoteDoc } from '../db';
import { notFound } from '../errors';
import type { QuoteRepository } from '../repos/quotes';

/** What quote creation needs: the quote store and the validity (`QUOTE_TTL_SECONDS`). */
export interface QuotePorts {
  quotes: Pick<QuoteRepository, 'insert'>;
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

/**
 * Stores a binding quote: the catalogue price for the buyer kind (integer micro-USD) and, with a partner, its 20%
 * commission. With `quoteId` given, a second call with the same id returns the stored quote (retry-safe).
 * @throws ProblemError service_not_found (404).
 */
export async function createQuote(ports: QuotePorts, req: NewQuote, quoteId?: string): Promise<QuoteDoc> {
  const service = getService(req.service_id);
  if (!service) throw notFound('service_not_found', `No service ${req.service_id}; see GET /api/v1/services`);
  const amount = priceMicros(service, req.is_agent);
  const now = new Date();
  return ports.quotes.insert({
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
    expires_at: new Date(now.getTime() + ports.config.QUOTE_TTL_SECONDS * 1000),
  });
}
