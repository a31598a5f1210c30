import Router from '@koa/router';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { CatalogueEnvelope } from '../domain/catalogue';
import {
  ConfirmPaymentRequest,
  Order,
  OrderRequest,
  Quote,
  QuoteRequest,
  ReviewRequest,
  Verification,
  Wallet,
  WalletCreditRequest,
} from './schemas';
import type { AppDeps } from './context';
import { x402OpenApiPaths } from './x402OpenApi';
import { longRunningOpenApiPaths } from './longRunningOpenApi';
import { agentOpenApiPaths } from './agentOpenApi';
import { webhookOpenApiPaths } from './webhookOpenApi';

/** RFC 9457 problem details with this API's extension members. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.string().meta({ description: 'Stable error code' }),
    param: z.string().optional().meta({ description: 'The input that was wrong' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'Problem' });

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });
const idempotencyKey = z.string().max(255).optional().meta({ description: 'Retry-safe POST (api-conventions: Idempotency-Key)' });
const orderPath = z.object({ order_id: z.string().meta({ description: 'Order id (ord_...)' }) });

function op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject {
  return { ...o, responses: { ...o.responses, '500': problem('Internal error (details not exposed)') } };
}

/** Builds the OpenAPI 3.1 document from the same zod schemas that validate requests. */
export function openApiDocument(baseUrl: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Commerce API',
      version: '2.3.0',
      description: 'Commerce API for software agents and humans; every order is a durable Temporal workflow. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: baseUrl }],
    paths: {
      '/health': { get: op({ summary: 'Service health', responses: { '200': { description: 'All dependencies up' }, '503': { description: 'A dependency is down' } } }) },
      '/api/v1/services': { get: op({ summary: 'Service catalogue', responses: { '200': { description: 'Catalogue', ...json(CatalogueEnvelope) } } }) },
      '/api/v1/quote': {
        post: op({
          summary: 'Create a binding quote',
          requestParams: { header: z.object({ 'Idempotency-Key': idempotencyKey }) },
          requestBody: json(QuoteRequest),
          responses: { '201': { description: 'Quote created', ...json(Quote) }, '400': problem('Invalid body'), '404': problem('Unknown service') },
        }),
      },
      '/api/v1/orders': {
        post: op({
          summary: 'Create an order (starts its workflow)',
          requestParams: { header: z.object({ 'Idempotency-Key': idempotencyKey }) },
          requestBody: json(OrderRequest),
          responses: {
            '201': { description: 'Order created, awaiting payment', ...json(Order) },
            '400': problem('Invalid body'),
            '404': problem('Unknown service or quote'),
            '409': problem('Quote expired'),
            '422': problem('Missing inputs or quote/service mismatch'),
          },
        }),
      },
      '/api/v1/orders/{order_id}': {
        get: op({
          summary: 'Order state, progress and deliverables',
          description:
            'Long poll: send the ETag you hold in If-None-Match and `Prefer: wait=N` (seconds, at most 60, RFC 7240); the answer comes when the order changes, or after N seconds as 304.',
          requestParams: {
            path: orderPath,
            header: z.object({
              'If-None-Match': z.string().optional().meta({ description: 'ETag of the order as the client holds it' }),
              Prefer: z.string().optional().meta({ description: '`wait=N`: hold the request up to N seconds (at most 60) for a change' }),
            }),
          },
          responses: { '200': { description: 'Order', ...json(Order) }, '304': { description: 'Unchanged (the held ETag still applies)' }, '404': problem('Unknown order') },
        }),
      },
      '/api/v1/orders/{order_id}/confirm_payment': {
        post: op({
          summary: 'Verify a payment and start fulfillment',
          requestParams: { path: orderPath, header: z.object({ 'Idempotency-Key': idempotencyKey, Authorization: z.string().optional().meta({ description: 'Bearer agent key (agent_wallet rail)' }) }) },
          requestBody: json(ConfirmPaymentRequest),
          responses: {
            '200': { description: 'Paid; fulfillment started', ...json(Order) },
            '401': problem('Agent key missing'),
            '402': problem('Payment refused'),
            '403': problem('Wrong agent key'),
            '404': problem('Unknown order'),
            '409': problem('Order not awaiting payment, or transaction used by another order'),
            '422': problem('Rail not offered'),
          },
        }),
      },
      '/api/v1/orders/{order_id}/verification': {
        get: op({ summary: 'Recompute deliverable checksums', requestParams: { path: orderPath }, responses: { '200': { description: 'Verification', ...json(Verification) }, '404': problem('Unknown order'), '409': problem('Nothing delivered yet') } }),
      },
      '/api/v1/orders/{order_id}/review': {
        post: op({
          summary: 'Accept or reject the delivery',
          requestParams: { path: orderPath, header: z.object({ 'Idempotency-Key': idempotencyKey }) },
          requestBody: json(ReviewRequest),
          responses: { '200': { description: 'Review recorded; final order', ...json(Order) }, '404': problem('Unknown order'), '409': problem('Order not delivered') },
        }),
      },
      '/api/v1/orders/{order_id}/deliverables/{name}': {
        get: op({
          summary: 'Download a deliverable (ETag and Repr-Digest carry its sha256)',
          requestParams: { path: orderPath.extend({ name: z.string() }) },
          responses: { '200': { description: 'The bytes' }, '404': problem('Unknown order or deliverable') },
        }),
      },
      '/api/v1/wallets/{agent_id}': {
        get: op({
          summary: 'Agent wallet (created if absent; the agent key is shown once)',
          requestParams: { path: z.object({ agent_id: z.string() }) },
          responses: { '200': { description: 'Wallet', ...json(Wallet) }, '401': problem('Key required'), '403': problem('Wrong key') },
        }),
      },
      '/api/v1/wallets/{agent_id}/credits': {
        post: op({
          summary: 'Credit a wallet (operator key)',
          requestParams: { path: z.object({ agent_id: z.string() }) },
          requestBody: json(WalletCreditRequest),
          responses: { '201': { description: 'Credited' }, '401': problem('Operator key required') },
        }),
      },
      ...agentOpenApiPaths({ op, json, problem }),
      ...webhookOpenApiPaths({ op, json, problem }),
      ...x402OpenApiPaths({ op, json, problem }),
      ...longRunningOpenApiPaths({ op, json, problem }),
    },
  });
}

/** `GET /api/v1/openapi.json`. */
export function openApiRoutes(deps: AppDeps): Router {
  const router = new Router();
  let cached: unknown;
  router.get('/api/v1/openapi.json', (ctx) => {
    cached ??= openApiDocument(deps.config.PUBLIC_BASE_URL);
    ctx.body = cached;
  });
  return router;
}
