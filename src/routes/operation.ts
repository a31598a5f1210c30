/**
 * One definition per API operation (issue 11 §1): method, path, zod request and response schemas, the error codes it
 * answers, who may call it, its summary and (optionally) its MCP tool. From that one object come
 * - the Koa route ({@link OperationRouter.on}), which is also the gate (issue 27 §1): the declared auth is enforced
 *   for every kind and every declared part of the request is parsed before the handler runs;
 * - the OpenAPI operation ({@link openApiOperation}, gathered by src/routes/openapi.ts);
 * - the MCP tool's input schema and REST call, when `mcp` is set (src/mcp/tools.ts).
 *
 * Source: issue 11 §1, issue 27 §1; Outline's `routes/api/<resource>/` layout and `server/policies/`
 * (../shared/reference/style.md).
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
import { zodProblem } from '../http/errors';
import { requestBody, type AppDeps } from './context';
import { actorOf, isRefusal, operatorOnly, refusalProblem, type Actor, type Verdict } from './gate';
/** HTTP methods the API uses. */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call an operation; a list means any of them (each request is granted by one, named by the policy):
 * - `none`: anyone (beside another kind: when the request touches nothing the other kind protects);
 * - `buyer`: the buyer of the order (its agent key, or the order secret of an order without agent; src/http/buyer.ts);
 * - `agent_key`: the owner of a wallet, by its agent key;
 * - `operator`: the operator key;
 * - `endpoint_owner`: a webhook endpoint's management token, or the agent key of the agent that owns it;
 * - `order_secret`: the human buyer, by the order secret of the link, sent in the form (`/pay` pages);
 * - `x402`: paid per request (the x402 payment middleware asks and settles);
 * - `booking_owner`: a hosted booking page's owner, by its owner key (`bpk_…`; issue 38 §2);
 * - `platform`: an agent platform, by the ACP API key the operator issued it (`acp_…`; issue 37 §1);
 * - `ucp_platform`: a UCP platform, by its profile (`UCP-Agent`) and an RFC 9421 signature with one of its keys
 *   (issue 37 §2; src/http/ucp.ts verifies it before the route).
 * The router enforces them (issue 27 §1): `operator` alone before anything else; every other kind but `none` and
 * `x402` through the policy the route is mounted with ({@link Gate}).
 */
export type Auth =
  | 'none'
  | 'buyer'
  | 'agent_key'
  | 'operator'
  | 'endpoint_owner'
  | 'order_secret'
  | 'x402'
  | 'platform'
  | 'ucp_platform'
  | 'booking_owner';

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
  /**
   * A checkout protocol's MCP binding instead of this service's tool shape: arguments `meta` (the protocol's headers),
   * `id` (the path parameter) and the body under the binding's name (`payload`: ACP openrpc.agentic_checkout.json;
   * `checkout`: UCP mcp.openrpc.json); failures are JSON-RPC errors carrying the protocol's error (src/mcp/tools.ts).
   */
  binding?: 'acp' | 'ucp';
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
    /** JSON body, parsed by the router (unless the request is in another media type `content` documents). */
    body?: z.ZodType;
    /** Request headers beside the credential header the `auth` implies. */
    headers?: z.ZodObject;
    /**
     * Documented body content that the handler reads itself: forms, raw uploads, or a JSON body whose refusals are
     * another protocol's (JSON-RPC on /mcp, the x402 audit's workflow).
     */
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

/** The auth kinds a definition declares, as a union (`'buyer' | 'x402'` for `['buyer', 'x402']`). */
export type AuthOf<D extends Pick<OperationDefinition, 'auth'>> = D['auth'] extends readonly (infer K extends Auth)[]
  ? K
  : D['auth'] & Auth;

/** The JSON body as the handler sees it: absent when the request came in another media type `content` documents. */
type BodyOf<D extends OperationDefinition> = RequestOf<D>['content'] extends object
  ? Out<RequestOf<D>['body'], unknown> | undefined
  : Out<RequestOf<D>['body'], unknown>;

/**
 * The request of an operation, each part parsed by its schema (a part without one is as sent). The router parses
 * every part before the handler runs; a loader or policy that reads a part earlier parses it then.
 * @throws ProblemError 400 `invalid_request` naming the first offending field (`param`), when a part is read.
 */
export interface OperationInput<D extends OperationDefinition> {
  readonly params: Out<RequestOf<D>['params'], Record<string, string>>;
  readonly query: Out<RequestOf<D>['query'], Record<string, unknown>>;
  /** The declared headers by their declared names (absent ones undefined); without a schema, the raw headers. */
  readonly headers: Out<RequestOf<D>['headers'], Record<string, string | string[] | undefined>>;
  readonly body: BodyOf<D>;
}

/**
 * The request as it was sent, for lookups in which an id that cannot exist is simply not found (404), as an unknown
 * one is (an order id, a micro item id, a template sku): a loader reads it, a handler never does.
 */
export interface RawRequest {
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
}

/** Who was let in, and by which of the kinds the definition declares. */
export interface Access<D extends OperationDefinition> {
  readonly actor: Actor;
  readonly as: AuthOf<D>;
}

/**
 * How an operation reaches the resource it acts on and decides who may (issue 27 §1; Outline's `policies/`):
 * - `load`: the resource, or a ProblemError (404 unknown, 409 / 422 when it cannot take this operation);
 * - `authorize`: the actor's right on it, as a {@link Verdict}: the declared kind that grants the request, or a
 *   refusal (401 / 403). Required when the definition declares a kind other than `none`, `x402` or `operator` alone
 *   (those the router checks itself); not allowed otherwise;
 * - `parse`: a parser of the query for an operation that words its own refusals (400 naming the parameter).
 * Loaders and policies live with their resource (`src/routes/api/<resource>/policy.ts`).
 */
export interface Gate<D extends OperationDefinition, R> {
  load?(input: OperationInput<D>, raw: RawRequest): R | Promise<R>;
  authorize?(actor: Actor, resource: R, input: OperationInput<D>): Verdict<AuthOf<D>> | Promise<Verdict<AuthOf<D>>>;
  parse?: { query?(raw: RawRequest['query']): Out<RequestOf<D>['query'], Record<string, unknown>> };
}

/**
 * A handler of one operation: the request parsed, the resource loaded and the actor's right on it checked.
 * @param resource what the gate's `load` returned (undefined without one)
 */
export type OperationHandler<D extends OperationDefinition, R = undefined> = (
  ctx: Context,
  input: OperationInput<D>,
  resource: R,
  access: Access<D>,
) => unknown;

/** What the gate of a middleware-served operation ({@link OperationRouter.use}) leaves for its middleware. */
export interface Gated<D extends OperationDefinition, R> {
  readonly input: OperationInput<D>;
  readonly resource: R;
  readonly access: Access<D>;
}

/**
 * `value` parsed by `schema` (as it is without one), for a request part whose schema depends on the request (a raw
 * upload names its file in the query). @throws ProblemError 400 `invalid_request` naming the field.
 */
export function parsePart(
  schema: z.ZodType | undefined,
  value: unknown,
  where: 'path' | 'query' | 'header' | 'body',
): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodProblem(parsed.error, where);
  return parsed.data;
}

type Part = 'params' | 'query' | 'headers' | 'body';

/** The media types of `content` other than JSON: a request in one of them leaves the JSON `body` unparsed. */
const otherMedia = (def: OperationDefinition): boolean =>
  Object.keys(def.request?.content ?? {}).some((t) => t !== 'application/json');

/** The declared headers of a request by their declared names ('' from Koa for an absent one is undefined). */
function declaredHeaders(ctx: Context, schema: z.ZodObject): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(schema.shape).map((name) => [name, ctx.get(name) || undefined]));
}

/** The request of `def`, each part parsed on first read (the gate reads them all before the handler). */
function lazyInput<D extends OperationDefinition>(
  ctx: Context,
  def: D,
  parseQuery: ((raw: RawRequest['query']) => unknown) | undefined,
): OperationInput<D> {
  const cache: Partial<Record<Part, unknown>> = {};
  const parse: Record<Part, () => unknown> = {
    params: () => parsePart(def.request?.params, ctx.params, 'path'),
    query: () => (parseQuery ? parseQuery(ctx.query) : parsePart(def.request?.query, ctx.query, 'query')),
    headers: () => {
      const schema = def.request?.headers;
      return schema ? parsePart(schema, declaredHeaders(ctx, schema), 'header') : ctx.headers;
    },
    // Without a JSON schema, the body as the body parser left it (a form on the /pay pages).
    body: () =>
      def.request?.body && otherMedia(def) && !ctx.is('application/json')
        ? undefined
        : parsePart(def.request?.body, requestBody(ctx), 'body'),
  };
  const read = (part: Part) => {
    if (!(part in cache)) cache[part] = parse[part]();
    return cache[part];
  };
  return {
    get params() {
      return read('params');
    },
    get query() {
      return read('query');
    },
    get headers() {
      return read('headers');
    },
    get body() {
      return read('body');
    },
  } as OperationInput<D>;
}

/** The auth kinds of a definition as a list. */
export const authKinds = (def: Pick<OperationDefinition, 'auth'>): readonly Auth[] =>
  typeof def.auth === 'string' ? [def.auth] : def.auth;

/**
 * Whether mounting `def` needs a policy: it declares a kind other than `none` and `x402` (the payment middleware's
 * own), and not the operator alone (the router checks the operator key itself).
 */
export function needsPolicy(def: Pick<OperationDefinition, 'auth'>): boolean {
  const kinds = authKinds(def).filter((k) => k !== 'none' && k !== 'x402');
  return kinds.length > 0 && !(kinds.length === 1 && kinds[0] === 'operator' && !authKinds(def).includes('none'));
}

/** Koa path of an OpenAPI path template (`{order_id}` → `:order_id`). */
export const koaPath = (template: string): string => template.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

const GATED = Symbol('gated');
type GatedState = Gated<OperationDefinition, unknown> & { def: OperationDefinition };

/**
 * What the gate of `def` left for the middleware serving it ({@link OperationRouter.use}): the parsed request, the
 * loaded resource (typed by the `gate` it was mounted with) and the access. @throws Error when `def` is not the
 * operation this request was routed to.
 */
export function gated<D extends OperationDefinition, R = undefined>(
  ctx: Context,
  def: D,
  _gate?: Gate<D, R>,
): Gated<D, R> {
  const state = (ctx.state as Record<symbol, GatedState | undefined>)[GATED];
  if (!state || state.def !== def) throw new Error(`${def.id}: no gate ran for this request`);
  return state as unknown as Gated<D, R>;
}

/**
 * A router whose routes are registered from operation definitions only, each behind its gate: the actor, the
 * operator check (operator alone), the resource (`load`), the actor's right on it (`authorize`), then every declared
 * part parsed, then the handler. Mounting refuses a definition whose declared kinds would go unchecked.
 */
export class OperationRouter {
  readonly router = new Router();
  constructor(private readonly deps: Pick<AppDeps, 'config'>) {}

  /**
   * Registers `def` with `handler` behind its gate (see the class comment).
   * @throws Error at mounting when `def` needs a policy and `gate.authorize` is missing, or has one it cannot use.
   */
  on<const D extends OperationDefinition>(def: D, handler: OperationHandler<D>): this;
  on<const D extends OperationDefinition, R>(def: D, gate: Gate<D, R>, handler: OperationHandler<D, R>): this;
  on<const D extends OperationDefinition, R>(
    def: D,
    gateOrHandler: Gate<D, R> | OperationHandler<D, R>,
    maybeHandler?: OperationHandler<D, R>,
  ): this {
    const [gate, handler] =
      typeof gateOrHandler === 'function'
        ? [{}, gateOrHandler]
        : [gateOrHandler, maybeHandler as OperationHandler<D, R>];
    const pass = this.gate(def, gate as Gate<D, R>);
    this.router.register(koaPath(def.path), [def.method], async (ctx: Context) => {
      const { input, resource, access } = await pass(ctx);
      await handler(ctx, input, resource, access);
    });
    return this;
  }

  /**
   * Registers `def` served by Koa middleware (the x402 payment middleware answers paid resources itself), behind the
   * same gate; the middleware reads what the gate left with {@link gated}.
   */
  use<const D extends OperationDefinition>(def: D, ...middleware: RouterMiddleware[]): this;
  use<const D extends OperationDefinition, R>(def: D, gate: Gate<D, R>, ...middleware: RouterMiddleware[]): this;
  use<const D extends OperationDefinition, R>(
    def: D,
    first: Gate<D, R> | RouterMiddleware,
    ...rest: RouterMiddleware[]
  ): this {
    const [gate, middleware] = typeof first === 'function' ? [{}, [first, ...rest]] : [first, rest];
    const pass = this.gate(def, gate as Gate<D, R>);
    const enter: RouterMiddleware = async (ctx, next) => {
      const state: GatedState = { def, ...(await pass(ctx as Context)) } as GatedState;
      (ctx.state as Record<symbol, GatedState>)[GATED] = state;
      await next();
    };
    this.router.register(koaPath(def.path), [def.method], [enter, ...middleware]);
    return this;
  }

  /** The per-request gate of `def`, after the mounting checks. */
  private gate<D extends OperationDefinition, R>(
    def: D,
    gate: Gate<D, R>,
  ): (ctx: Context) => Promise<{ input: OperationInput<D>; resource: R; access: Access<D> }> {
    const kinds = authKinds(def);
    const policy = needsPolicy(def);
    if (policy && !gate.authorize)
      throw new Error(`${def.id} declares auth ${kinds.join(', ')}: mount it with a policy (gate.authorize)`);
    if (!policy && gate.authorize)
      throw new Error(`${def.id} declares auth ${kinds.join(', ')}, which the router checks itself: drop the policy`);
    const operatorAlone = kinds.length === 1 && kinds[0] === 'operator';
    const fixed = (operatorAlone ? 'operator' : kinds.includes('none') ? 'none' : 'x402') as AuthOf<D>;
    return async (ctx) => {
      const actor = actorOf(ctx, this.deps.config.OPERATOR_KEY);
      if (operatorAlone) {
        const verdict = operatorOnly(actor);
        if (isRefusal(verdict)) throw refusalProblem(verdict);
      }
      const input = lazyInput(ctx, def, gate.parse?.query);
      const resource = (gate.load ? await gate.load(input, { params: ctx.params, query: ctx.query }) : undefined) as R;
      let as = fixed;
      if (gate.authorize) {
        const verdict = await gate.authorize(actor, resource, input);
        if (isRefusal(verdict)) throw refusalProblem(verdict);
        if (!kinds.includes(verdict))
          throw new Error(`${def.id}: its policy granted ${verdict}, which it does not declare`);
        as = verdict;
      }
      // Every declared part, parsed in this order, before the handler (a 400 names the first offending field).
      const parsed = {
        params: input.params,
        query: input.query,
        headers: input.headers,
        body: input.body,
      } as OperationInput<D>;
      return { input: parsed, resource, access: { actor, as } };
    };
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
  platform: 'Bearer <ACP platform API key> (acp_...)',
  booking_owner: 'Bearer <booking page owner key> (bpk_...)',
};
const AUTH_401: Partial<Record<Auth, string>> = {
  buyer: "No credential: send the buyer's",
  agent_key: 'Agent key missing',
  operator: 'Operator key required',
  endpoint_owner: 'Management token or agent key required',
  platform: 'Platform API key required',
  booking_owner: 'Owner key required',
};
const AUTH_403: Partial<Record<Auth, string>> = {
  buyer: "Not the buyer's credential",
  agent_key: 'Wrong agent key',
  operator: 'Not the operator key',
  endpoint_owner: 'The token does not manage this endpoint',
  platform: 'Not a platform API key',
  booking_owner: "Not this page's owner key",
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
