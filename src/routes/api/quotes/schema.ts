/**
 * Quotes (seed §2.2; issue 2 §3, issue 12 §3): schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { IdempotencyKeyHeader, defineOperation } from '../../operation';
import { Id, Micros, Time, Usd } from '../fields';

/** Body of `POST /api/v1/quote` (seed §2.2). */
export const QuoteRequest = z
  .object({
    service_id: Id('Catalogued service id'),
    is_agent: z
      .boolean()
      .default(true)
      .meta({ description: 'Agent price when true (default), human price when false' }),
    partner_id: Id('Partner credited a 20% commission').optional(),
  })
  .strict()
  .meta({ id: 'QuoteRequest' });
export type QuoteRequest = z.infer<typeof QuoteRequest>;

/** A binding quote (issue 2 §3). */
export const Quote = z
  .object({
    quote_id: z.string(),
    service_id: z.string(),
    is_agent: z.boolean(),
    amount: Usd('Price to pay'),
    amount_micros: Micros('Price to pay'),
    currency: z.string(),
    billing: z.string(),
    partner_id: z.string().nullable(),
    commission: Usd('Partner commission, 20% of the amount').nullable(),
    commission_micros: Micros('Partner commission').nullable(),
    terms_version: z.string(),
    catalogue_version: z.string(),
    created_at: Time('Creation time'),
    expires_at: Time('An order placed with the quote before this time pays `amount`'),
    jws: z
      .string()
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      .meta({
        description:
          'The quote signed (issue 12 §3): compact JWS, EdDSA (Ed25519), header `kid` and `typ: quote+jwt`; claims `iss` (this API), `sub` and `jti` (quote_id), `iat` (created_at), `exp` (expires_at) and every other member of this quote. Verify with the keys at /.well-known/jwks.json',
      }),
  })
  .meta({ id: 'Quote' });
export type Quote = z.infer<typeof Quote>;

/** The quote operations. */
export const quoteOperations = {
  create: defineOperation({
    id: 'createQuote',
    method: 'post',
    path: '/api/v1/quote',
    summary: 'Create a binding quote',
    auth: 'none',
    request: { body: QuoteRequest, headers: IdempotencyKeyHeader },
    responses: { '201': { description: 'Quote created (signed: `jws`)', json: Quote } },
    errors: {
      invalid_request: 'Invalid body',
      service_not_found: 'Unknown service',
      signing_unavailable: 'Signing keys unavailable',
    },
    mcp: {
      name: 'create_quote',
      title: 'Create a quote',
      description:
        'A binding, deterministic price quote for a service (POST /api/v1/quote); pass partner_id to credit a partner.',
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
  }),
  get: defineOperation({
    id: 'getQuote',
    method: 'get',
    path: '/api/v1/quotes/{quote_id}',
    summary: 'A stored quote',
    auth: 'none',
    request: { params: z.object({ quote_id: z.string().meta({ description: 'Quote id (quo_...)' }) }) },
    responses: { '200': { description: 'Quote (signed: `jws`)', json: Quote } },
    errors: { quote_not_found: 'Unknown quote', signing_unavailable: 'Signing keys unavailable' },
  }),
};
