/**
 * Quote routes (seed §2.2, issue 2 §3), registered from their definitions in ./schema.ts. The amount is the catalogue
 * price for the buyer kind, so the same request against the same catalogue version gives the same amount. Both answers
 * carry `jws`, the quote signed (issue 12 §3).
 */
import { notFound } from '../../../errors';
import { createQuote } from '../../../services/quotes';
import { idempotentCreation } from '../../../http/idempotency';
import { signedQuoteView } from './view';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { quoteOperations as ops } from './schema';

/** The quote routes. */
export function quoteRoutes(deps: AppDeps): OperationRouter {
  /** The quote of the path. @throws ProblemError 404 `quote_not_found`. */
  const quoteOfPath = async (input: { readonly params: { quote_id: string } }) => {
    const quote = await deps.services.quotes.get(input.params.quote_id);
    if (!quote) throw notFound('quote_not_found', `No quote ${input.params.quote_id}`);
    return quote;
  };
  return new OperationRouter(deps)
    .on(ops.create, async (ctx, input) => {
      // With an Idempotency-Key the quote id comes from the key's claim: a retry returns the stored quote (issue 36).
      const creation = idempotentCreation(ctx);
      const quote = await createQuote(
        { quotes: deps.services.quotes, config: deps.config },
        input.body,
        creation ? `quo_${creation.name('quote')}` : undefined,
      );
      ctx.status = 201;
      ctx.set('Location', `/api/v1/quotes/${quote._id}`);
      ctx.body = await signedQuoteView(deps, quote);
    })
    .on(ops.get, { load: quoteOfPath }, async (ctx, _input, quote) => {
      ctx.body = await signedQuoteView(deps, quote);
    });
}
