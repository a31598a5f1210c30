import Router from '@koa/router';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { CatalogueEnvelope } from '../domain/catalogue';
import type { AppDeps } from './context';
import { Problem, buyerOnlyResponses, json, openApiOperation, problemResponse as problem } from './operation';
import { API_OPERATIONS } from './operations';

export { Problem } from './operation';

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

/** The path items of every operation defined once (src/routes/operation.ts). */
function operationPaths(): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const def of API_OPERATIONS) {
    paths[def.path] = { ...paths[def.path], [def.method]: op(openApiOperation(def)) };
  }
  return paths;
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
      ...operationPaths(),
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
