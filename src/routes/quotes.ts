import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { CATALOGUE_VERSION, PARTNER_COMMISSION_PERCENT, TERMS_VERSION, getService, priceMicros } from '../domain/catalogue';
import { microsToUsd, percentOf } from '../domain/money';
import type { QuoteDoc } from '../db';
import { notFound } from '../errors';
import { zodProblem } from '../http/errors';
import { QuoteRequest, type Quote } from './schemas';
import { requestBody, type AppDeps } from './context';

/** Public form of a stored quote. */
export function quoteView(q: QuoteDoc): Quote {
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
 * `POST /api/v1/quote` → 201 binding quote (seed §2.2, issue 2 §3). The amount is the catalogue price for the
 * buyer kind, so the same request against the same catalogue version gives the same amount.
 * Errors: 400 invalid body, 404 service_not_found.
 */
export function quoteRoutes(deps: AppDeps): Router {
  const router = new Router();

  router.post('/api/v1/quote', async (ctx) => {
    const parsed = QuoteRequest.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const req = parsed.data;
    const service = getService(req.service_id);
    if (!service) throw notFound('service_not_found', `No service ${req.service_id}; see GET /api/v1/services`);
    const amount = priceMicros(service, req.is_agent);
    const now = new Date();
    const quote: QuoteDoc = {
      _id: `quo_${randomBytes(16).toString('base64url')}`,
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
    await deps.services.db.quotes.insertOne(quote);
    ctx.status = 201;
    ctx.set('Location', `/api/v1/quotes/${quote._id}`);
    ctx.body = quoteView(quote);
  });

  router.get('/api/v1/quotes/:quote_id', async (ctx) => {
    const quote = await deps.services.db.quotes.findOne({ _id: ctx.params.quote_id ?? '' });
    if (!quote) throw notFound('quote_not_found', `No quote ${ctx.params.quote_id}`);
    ctx.body = quoteView(quote);
  });

  return router;
}
