import Router from '@koa/router';
import { notFound } from '../errors';
import { zodProblem } from '../http/errors';
import { createQuote, signedQuoteView } from '../services/quotes';
import { QuoteRequest } from './schemas';
import { requestBody, type AppDeps } from './context';

export { quoteView } from '../services/quotes';

/**
 * `POST /api/v1/quote` → 201 binding quote (seed §2.2, issue 2 §3). The amount is the catalogue price for the
 * buyer kind, so the same request against the same catalogue version gives the same amount. Both answers carry `jws`,
 * the quote signed (issue 12 §3).
 * Errors: 400 invalid body, 404 service_not_found, 503 signing_unavailable.
 */
export function quoteRoutes(deps: AppDeps): Router {
  const router = new Router();

  router.post('/api/v1/quote', async (ctx) => {
    const parsed = QuoteRequest.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const quote = await createQuote(deps, parsed.data);
    ctx.status = 201;
    ctx.set('Location', `/api/v1/quotes/${quote._id}`);
    ctx.body = await signedQuoteView(deps, quote);
  });

  router.get('/api/v1/quotes/:quote_id', async (ctx) => {
    const quote = await deps.services.db.quotes.findOne({ _id: ctx.params.quote_id ?? '' });
    if (!quote) throw notFound('quote_not_found', `No quote ${ctx.params.quote_id}`);
    ctx.body = await signedQuoteView(deps, quote);
  });

  return router;
}
