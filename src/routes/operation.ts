/**
 * One definition per API operation (issue 11 §1): method, path, zod request and response schemas, the error codes it
 * answers, who may call it, its summary and (optionally) its MCP tool. From that one object come
 * - the Koa route ({@link OperationRouter.on}) with its request validation ({@link OperationInput});
 * - the OpenAPI operation ({@link openApiOperation}, gathered by src/routes/openapi.ts);
 * - the MCP tool's input schema and REST call, when `mcp` is set (src/mcp/tools.ts).
 *
 * Source: issue 11 §1; Outline's `routes/api/<resource>/` layout (../shared/reference/style.md).
 */
import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type {
  ZodOpenApiContentObject,
  ZodOpenApiOperationObject,
  ZodOpenApiResponseObject,
  ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { ERRORS, type ErrorCode } from '../errors';
import { requireOperator } from '../http/auth';
import { zodProblem } from '../http/errors';
import { requestBody, type AppDeps } from './context';

/** HTTP methods the API uses. */
export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * Who may call an operation. `none`: anyone; `buyer`: the order's agent key or order secret (src/http/buyer.ts);
 * `agent_key`: a wallet's agent key; `operator`: the operator key (checked before the handler runs when it is the only
 * kind); `endpoint_owner`: a webhook endpoint's management token or its agent's key; `x402`: paid per request.
 * The handlers keep their own guards for the mixed kinds (the order must be loaded to know its buyer).
 */
export type Auth = 'none' | 'buyer' | 'agent_key' | 'operator' | 'endpoint_owner' | 'x402';

/** One documented answer: a JSON body (`json`), other media types (`content`) or none. */
export interface ResponseSpec {
  description: string;
  json?: z.ZodType;
  content?: ZodOpenApiContentObject;
  headers?: z.ZodObject;
}

/** How an operation is offered as an MCP tool (src/mcp/tools.ts builds the tool from the operation). */
export interface McpExposure {
  name: string;
  title: string;
  description: string;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** The credential argument the tool takes, sent as `Authorization: Bearer`: the agent key or the buyer's. */
  credential?: 'agent_key' | 'buyer';
  /** Tool argument → the path parameter it fills, where their names differ. */
  args?: Record<string, string>;
  /** The tool's input when it is not derived (path parameters + body or query + credential). */
  input?: z.ZodType;
  /** Output schema; default the JSON schema of the operation's first 2xx answer; `false` for none. */
  output?: z.ZodType | false;
  /** Paid per call over x402. */
  paid?: boolean;
}

/** An error code the operation answers, with what it means here (its status comes from the code's definition). */
export type ErrorSpec = string | { description: string; status: number };

/** The definition of one operation. */
export interface OperationDefinition {
  /** OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** OpenAPI path template: `/api/v1/orders/{order_id}`. */
  path: string;
  summary: string;
  description?: string;
  auth: Auth | readonly Auth[];
  request?: {
    params?: z.ZodObject;
    query?: z.ZodType;
    /** JSON body. */
    body?: z.ZodType;
    /** Request headers beside the credential header the `auth` implies. */
    headers?: z.ZodObject;
    /** Documented body content other than (or beside) JSON: forms, raw uploads. */
    content?: ZodOpenApiContentObject;
  };
  responses: Record<`${1 | 2 | 3 | 4 | 5}${string}`, ResponseSpec>;
  errors?: Partial<Record<ErrorCode, ErrorSpec>>;
  mcp?: McpExposure;
}

/** Identity function that keeps the literal types of a definition. */
export const defineOperation = <const D extends OperationDefinition>(d: D): D => d;

type Out<S, Fallback> = S extends z.ZodType ? z.output<S> : Fallback;
type RequestOf<D extends OperationDefinition> = NonNullable<D['request']>;

/**
 * The validated request of an operation. Each part is parsed by its schema on first read, so a handler's own guards
 * (credential, the resource exists) still come before a 400 for a bad body, as they did.
 * @throws ProblemError 400 `invalid_request` naming the first offending field (`param`).
 */
export interface OperationInput<D extends OperationDefinition> {
  readonly params: Out<RequestOf<D>['params'], Record<string, string>>;
  readonly query: Out<RequestOf<D>['query'], Record<string, unknown>>;
  readonly body: Out<RequestOf<D>['body'], unknown>;
}

/** A handler of one operation. */
export type OperationHandler<D extends OperationDefinition> = (ctx: Context, input: OperationInput<D>) => unknown;

/**
 * `value` parsed by `schema` (as it is without one), for a request part whose schema depends on the request (a raw
 * upload names its file in the query). @throws ProblemError 400 `invalid_request` naming the field.
 */
export function parsePart(schema: z.ZodType | undefined, value: unknown, where: 'path' | 'query' | 'body'): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodProblem(parsed.error, where);
  return parsed.data;
}

function inputOf<D extends OperationDefinition>(ctx: Context, def: D): OperationInput<D> {
  const cache: Partial<Record<'params' | 'query' | 'body', unknown>> = {};
  const read = (part: 'params' | 'query' | 'body', value: () => unknown, where: 'path' | 'query' | 'body') => {
    if (!(part in cache)) cache[part] = parsePart(def.request?.[part], value(), where);
    return cache[part];
  };
  return {
    get params() {
      return read('params', () => ctx.params, 'path');
    },
    get query() {
      return read('query', () => ctx.query, 'query');
    },
    get body() {
      return read('body', () => requestBody(ctx), 'body');
    },
  } as OperationInput<D>;
}

/** The auth kinds of a definition as a list. */
export const authKinds = (def: Pick<OperationDefinition, 'auth'>): readonly Auth[] =>
  typeof def.auth === 'string' ? [def.auth] : def.auth;

/** Koa path of an OpenAPI path template (`{order_id}` → `:order_id`). */
export const koaPath = (template: string): string => template.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * A router whose routes are registered from operation definitions only: the route, the operator check and the
 * request validation come from the definition.
 */
export class OperationRouter {
  readonly router = new Router();
  constructor(private readonly deps: Pick<AppDeps, 'config'>) {}

  /** Registers `def` with `handler`, behind the operator check when the operator is the only caller `def` allows. */
  on<const D extends OperationDefinition>(def: D, handler: OperationHandler<D>): this {
    const operatorOnly = authKinds(def).length === 1 && authKinds(def)[0] === 'operator';
    this.router.register(koaPath(def.path), [def.method], async (ctx: Context) => {
      if (operatorOnly) requireOperator(ctx, this.deps.config.OPERATOR_KEY);
      await handler(ctx, inputOf(ctx, def));
    });
    return this;
  }

  /**
   * Registers `def` served by Koa middleware as it is (the x402 gateway answers paid resources itself): no operator
   * check and no input, the middleware reads the request.
   */
  use(def: OperationDefinition, ...middleware: RouterMiddleware[]): this {
    this.router.register(koaPath(def.path), [def.method], middleware);
    return this;
  }
}

// --- OpenAPI ---------------------------------------------------------------------------------------------------

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

/** A JSON body in OpenAPI terms. */
export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
/** A problem-details answer in OpenAPI terms. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem as z.ZodType } },
});

/** `Idempotency-Key` (api-conventions): a retried POST answers as the first one did. */
export const IdempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Retry-safe POST (api-conventions: Idempotency-Key)' }),
});

const AUTH_HEADER: Partial<Record<Auth, string>> = {
  buyer: "Bearer <the agent key of the order's agent_id, or the order secret (os_...) of an order without one>",
  agent_key: 'Bearer <agent key> (ak_...)',
  operator: 'Bearer <operator key> (or X-Operator-Key)',
  endpoint_owner: 'Bearer <management token> (wht_...) or the agent key (ak_...)',
};
const AUTH_401: Partial<Record<Auth, string>> = {
  buyer: "No credential: send the buyer's",
  agent_key: 'Agent key missing',
  operator: 'Operator key required',
  endpoint_owner: 'Management token or agent key required',
};
const AUTH_403: Partial<Record<Auth, string>> = {
  buyer: "Not the buyer's credential",
  agent_key: 'Wrong agent key',
  operator: 'Not the operator key',
  endpoint_owner: 'The token does not manage this endpoint',
};

const responseObject = (r: ResponseSpec): ZodOpenApiResponseObject => ({
  description: r.description,
  ...(r.headers ? { headers: r.headers } : {}),
  ...(r.json || r.content
    ? { content: { ...(r.json ? { 'application/json': { schema: r.json } } : {}), ...(r.content ?? {}) } }
    : {}),
});

/** The problem answers of the listed error codes, one per status, each naming its codes. */
function errorResponses(errors: OperationDefinition['errors'] = {}): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, string[]>();
  for (const [code, spec] of Object.entries(errors) as [ErrorCode, ErrorSpec][]) {
    const status = typeof spec === 'string' ? ERRORS[code].status : spec.status;
    const text = typeof spec === 'string' ? spec : spec.description;
    byStatus.set(status, [...(byStatus.get(status) ?? []), `${text} (${code})`]);
  }
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, texts] of byStatus) out[`${status}` as `4${string}`] = problemResponse(texts.join('; '));
  return out;
}

/** The OpenAPI operation of a definition (the document adds the answers every operation shares). */
export function openApiOperation(def: OperationDefinition): ZodOpenApiOperationObject {
  const kinds = authKinds(def).filter((k) => AUTH_HEADER[k]);
  const authHeader =
    kinds.length > 0
      ? z.object({
          Authorization: z
            .string()
            .optional()
            .meta({ description: kinds.map((k) => AUTH_HEADER[k]).join(', or ') }),
        })
      : undefined;
  const header =
    authHeader && def.request?.headers
      ? authHeader.extend(def.request.headers.shape)
      : (def.request?.headers ?? authHeader);
  const authAnswers: ZodOpenApiResponsesObject =
    kinds.length > 0
      ? {
          '401': problemResponse(kinds.map((k) => AUTH_401[k]).join('; ')),
          '403': problemResponse(kinds.map((k) => AUTH_403[k]).join('; ')),
        }
      : {};
  const requestParams = {
    ...(def.request?.params ? { path: def.request.params } : {}),
    ...(def.request?.query ? { query: def.request.query as z.ZodObject } : {}),
    ...(header ? { header } : {}),
  };
  const body = def.request?.body ? { 'application/json': { schema: def.request.body } } : {};
  const content = { ...body, ...(def.request?.content ?? {}) };
  const responses: ZodOpenApiResponsesObject = { ...authAnswers, ...errorResponses(def.errors) };
  for (const [status, r] of Object.entries(def.responses)) responses[status as `2${string}`] = responseObject(r);
  return {
    operationId: def.id,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(Object.keys(content).length > 0 ? { requestBody: { content } } : {}),
    responses,
  };
}
