import Router from '@koa/router';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { CatalogueEnvelope } from '../domain/catalogue';
import {
  ConfirmPaymentRequest,
  Order,
  OrderEvents,
  OrderRequest,
  Quote,
  QuoteRequest,
  ReviewRequest,
  Verification,
  Wallet,
  WalletCredit,
  WalletCreditRequest,
  WalletKey,
} from './schemas';
import type { AppDeps } from './context';
import { x402OpenApiPaths } from './x402OpenApi';
import { longRunningOpenApiPaths } from './longRunningOpenApi';
import { agentOpenApiPaths } from './agentOpenApi';
import { buyerAuthorization, buyerOnlyResponses, webhookOpenApiPaths } from './webhookOpenApi';

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

/** A public Ed25519 JWK (RFC 8037). */
const PublicJwk = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().meta({ description: 'Public key, base64url' }),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .meta({ id: 'PublicJwk' });
/** GET /.well-known/jwks.json (issue 12 §3). */
const Jwks = z.object({ keys: z.array(PublicJwk) }).meta({ id: 'Jwks' });
/** GET /.well-known/did.json: did:web document with JsonWebKey2020 verification methods. */
const DidDocument = z
  .object({
    '@context': z.array(z.string()),
    id: z.string().meta({ description: 'did:web:<host>' }),
    verificationMethod: z.array(
      z.object({
        id: z.string().meta({ description: '<did>#<kid>' }),
        type: z.literal('JsonWebKey2020'),
        controller: z.string(),
        publicKeyJwk: z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string() }),
      }),
    ),
    assertionMethod: z.array(z.string()),
  })
  .meta({ id: 'DidDocument' });

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });
const idempotencyKey = z.string().max(255).optional().meta({ description: 'Retry-safe POST (api-conventions: Idempotency-Key)' });
const orderPath = z.object({ order_id: z.string().meta({ description: 'Order id (ord_...)' }) });


/** 304 of the GETs served from a body serialized once with its ETag (catalogue, discovery, micro catalogue). */
const notModified = { '304': { description: 'Not modified: If-None-Match held the current ETag' } };

/** One operation; every operation can also answer 500 (details not exposed). */
function op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject {
  return { ...o, responses: { ...o.responses, '500': problem('Internal error (details not exposed)') } };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Adds the answers the shared middleware can give to every operation it applies to (issue 10 §5), unless the
 * operation describes them itself: 400 (malformed JSON, a `__proto__` key, nesting deeper than 64, an invalid
 * parameter), 429 (rate limit); 404 where the path names a resource; on POST and PATCH the Idempotency-Key answers
 * (409 in flight, 422 reused with another body); with a request body 413 and 415.
 */
function withCommonAnswers(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const out: ZodOpenApiPathsObject = {};
  for (const [path, item] of Object.entries(paths)) {
    const next: Record<string, unknown> = { ...item };
    for (const method of METHODS) {
      const o = item[method];
      if (!o) continue;
      const common: ZodOpenApiResponsesObject = {
        '400': problem('Malformed or invalid request (JSON syntax, a forbidden key, nesting deeper than 64, an invalid parameter)'),
        '429': problem('Rate limited: retry after Retry-After seconds'),
        '503': problem('A dependency (database or Temporal) is unavailable: retry after Retry-After seconds'),
        ...(path.includes('{') ? { '404': problem('Not found') } : {}),
        ...(method === 'post' || method === 'patch'
          ? { '409': problem('A request with this Idempotency-Key is still running'), '422': problem('Idempotency-Key reused with another request') }
          : {}),
        ...(o.requestBody ? { '413': problem('Request body too large'), '415': problem('The body is not JSON (forms only on /pay pages)') } : {}),
      };
      next[method] = { ...o, responses: { ...common, ...o.responses } };
    }
    out[path] = next as ZodOpenApiPathsObject[string];
  }
  return out;
}

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

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
    paths: withCommonAnswers({
      '/health': { get: op({ summary: 'Service health', responses: { '200': { description: 'All dependencies up' }, '503': { description: 'A dependency is down' } } }) },
      '/api/v1/services': { get: op({ summary: 'Service catalogue', responses: { '200': { description: 'Catalogue', ...json(CatalogueEnvelope) }, ...notModified } }) },
      '/api/v1/openapi.json': { get: op({ summary: 'This document (OpenAPI 3.1)', responses: { '200': { description: 'The OpenAPI document', ...json(z.record(z.string(), z.unknown())) } } }) },
      '/api/v1/quotes/{quote_id}': {
        get: op({
          summary: 'A stored quote',
          requestParams: { path: z.object({ quote_id: z.string().meta({ description: 'Quote id (quo_...)' }) }) },
          responses: { '200': { description: 'Quote (signed: `jws`)', ...json(Quote) }, '404': problem('Unknown quote'), '503': problem('Signing keys unavailable') },
        }),
      },
      '/api/v1/quote': {
        post: op({
          summary: 'Create a binding quote',
          requestParams: { header: z.object({ 'Idempotency-Key': idempotencyKey }) },
          requestBody: json(QuoteRequest),
          responses: {
            '201': { description: 'Quote created (signed: `jws`)', ...json(Quote) },
            '400': problem('Invalid body'),
            '404': problem('Unknown service'),
            '503': problem('Signing keys unavailable'),
          },
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
            '422': problem('Missing inputs, quote/service mismatch, or the service needs a text-generation model this deployment lacks (text_generation_unavailable)'),
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
          responses: {
            '200': { description: 'Order (with its signed `receipt` once delivered)', ...json(Order) },
            '304': { description: 'Unchanged (the held ETag still applies)' },
            '404': problem('Unknown order'),
            '503': problem('Signing keys unavailable (delivered order: its receipt cannot be issued)'),
          },
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
          summary: 'Accept or reject the delivery (the buyer)',
          requestParams: { path: orderPath, header: z.object({ 'Idempotency-Key': idempotencyKey, Authorization: buyerAuthorization }) },
          requestBody: json(ReviewRequest),
          responses: {
            '200': { description: 'Review recorded; final order', ...json(Order) },
            ...buyerOnlyResponses(problem),
            '404': problem('Unknown order'),
            '409': problem('Order not delivered'),
          },
        }),
      },
      '/api/v1/orders/{order_id}/events': {
        get: op({
          summary: "The order's numbered events (order.created, order.paid, ...), oldest first",
          requestParams: { path: orderPath },
          responses: { '200': { description: 'Events', ...json(OrderEvents) }, '404': problem('Unknown order') },
        }),
      },
      '/pay/orders/{order_id}': {
        get: op({
          summary: 'Hosted checkout page (linkpay_ncp); with ?secret=os_... the buyer\'s page (review once delivered)',
          requestParams: { path: orderPath, query: z.object({ secret: z.string().optional().meta({ description: 'The order secret' }) }) },
          responses: { '200': html('The page'), '404': problem('Unknown order') },
        }),
        post: op({
          summary: 'Pay (form): records the provider transaction and confirms the order',
          requestParams: { path: orderPath },
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: z.object({ email: z.string().optional(), secret: z.string().optional() }) } } },
          responses: { '200': html('Receipt'), '402': html('Payment refused'), '404': problem('Unknown order'), '409': html('Not awaiting payment'), '422': problem('No payment link for this service') },
        }),
      },
      '/pay/orders/{order_id}/review': {
        post: op({
          summary: "The human buyer's accept / reject (form), with the order secret from the link",
          requestParams: { path: orderPath },
          requestBody: {
            content: { 'application/x-www-form-urlencoded': { schema: z.object({ secret: z.string(), action: z.enum(['accept', 'reject']), reason: z.string().optional() }) } },
          },
          responses: { '200': html('Recorded'), ...buyerOnlyResponses(problem), '404': problem('Unknown order'), '409': html('Order not delivered') },
        }),
      },
      '/pay/services/{service_id}': {
        get: op({ summary: "A service's payment link: the inputs form", requestParams: { path: z.object({ service_id: z.string() }) }, responses: { '200': html('The form'), '404': problem('No payment link for this service') } }),
        post: op({
          summary: 'Creates the order at the human price and redirects to its checkout (with the order secret in the link)',
          requestParams: { path: z.object({ service_id: z.string() }) },
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: z.record(z.string(), z.string()) } } },
          responses: { '302': { description: 'To /pay/orders/{order_id}?secret=os_...' }, '404': problem('No payment link for this service'), '422': html('Inputs missing') },
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
          summary: 'Credit a wallet (operator key); a wallet without a key gets one, shown once in agent_key',
          requestParams: { path: z.object({ agent_id: z.string() }) },
          requestBody: json(WalletCreditRequest),
          responses: { '201': { description: 'Credited', ...json(WalletCredit) }, '400': problem('Invalid amount'), '401': problem('Operator key required') },
        }),
      },
      '/api/v1/wallets/{agent_id}/key': {
        post: op({
          summary: 'Rotate the agent key (the owner, with the current key) or issue one for a wallet without a key (operator)',
          requestParams: { path: z.object({ agent_id: z.string() }), header: z.object({ Authorization: z.string().optional().meta({ description: 'Bearer <current agent key> or <operator key>' }) }) },
          responses: {
            '201': { description: 'The new key, shown once', ...json(WalletKey) },
            '401': problem('No credential'),
            '403': problem('The credential does not open the wallet'),
            '404': problem('No such wallet (operator)'),
            '409': problem('The wallet has a key; only its owner rotates it'),
          },
        }),
      },
      '/.well-known/jwks.json': {
        get: op({
          summary: 'Public keys of signed quotes and receipts (JWKS, RFC 7517)',
          description:
            'Ed25519 keys (`kty` OKP, `crv` Ed25519, `alg` EdDSA): the key signing now and every retired key until its retire_after, which is at least the validity of anything it signed (issue 12 §3).',
          responses: { '200': { description: 'JSON Web Key Set', ...json(Jwks) }, '503': problem('Signing keys unavailable') },
        }),
      },
      '/.well-known/did.json': {
        get: op({
          summary: "This service's did:web document: the same keys, for x402 offer-receipt verifiers (kid = did:web:<host>#<kid>)",
          responses: { '200': { description: 'DID document', ...json(DidDocument) }, '503': problem('Signing keys unavailable') },
        }),
      },
      ...agentOpenApiPaths({ op, json, problem }),
      ...webhookOpenApiPaths({ op, json, problem }),
      ...x402OpenApiPaths({ op, json, problem }),
      ...longRunningOpenApiPaths({ op, json, problem }),
    }),
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
