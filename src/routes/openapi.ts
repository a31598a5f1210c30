/**
 * The OpenAPI 3.1 document (`GET /api/v1/openapi.json`, issue 10 §5): every operation's definition
 * (src/routes/operations.ts) plus the answers the shared middleware gives to every operation.
 */
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { openApiOperation, problemResponse as problem } from './operation';
import { API_OPERATIONS } from './operations';

export { Problem } from './operation';

/** One operation; every operation can also answer 500 (details not exposed). */
function op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject {
  // An operation that words its own 500 (the ACP operations' Error) keeps it.
  return { ...o, responses: { '500': problem('Internal error (details not exposed)'), ...o.responses } };
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
        '400': problem(
          'Malformed or invalid request (JSON syntax, a forbidden key, nesting deeper than 64, an invalid parameter)',
        ),
        '429': problem('Rate limited: retry after Retry-After seconds'),
        '503': problem('A dependency (database or Temporal) is unavailable: retry after Retry-After seconds'),
        ...(path.includes('{') ? { '404': problem('Not found') } : {}),
        ...(method === 'post' || method === 'patch'
          ? {
              '409': problem('A request with this Idempotency-Key is still running'),
              '422': problem('Idempotency-Key reused with another request'),
            }
          : {}),
        ...(o.requestBody
          ? {
              '413': problem('Request body too large'),
              '415': problem('The body is not JSON (forms only on /pay pages)'),
            }
          : {}),
      };
      next[method] = { ...o, responses: { ...common, ...o.responses } };
    }
    out[path] = next as ZodOpenApiPathsObject[string];
  }
  return out;
}

/** The path items of every operation, each from its one definition (src/routes/operation.ts). */
function operationPaths(): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const def of API_OPERATIONS) {
    paths[def.path] = { ...paths[def.path], [def.method]: op(openApiOperation(def)) };
  }
  return paths;
}

/** Builds the OpenAPI 3.1 document from the operation definitions, whose zod schemas also validate the requests. */
export function openApiDocument(baseUrl: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Commerce API',
      version: '2.3.0',
      description:
        'Commerce API for software agents and humans; every order is a durable Temporal workflow. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: baseUrl }],
    paths: withCommonAnswers(operationPaths()),
  });
}
