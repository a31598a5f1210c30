/**
 * The MCP server behind `POST /mcp`, both revisions through the official SDK's server package,
 * `@modelcontextprotocol/server` v2, with a fresh low-level Server per request (mcpServer): 2025-11-25 over its
 * stateless streamable HTTP transport (`initialize`; JSON answers, an event stream when a tool call sends
 * notifications), 2026-07-28 through `createMcpHandler` (`server/discover`, per-request `_meta`, no `initialize`, one
 * message per POST, `subscriptions/listen`, the tasks extension). Both revisions serve the same tools, resources,
 * prompts and completions (src/mcp/features.ts) through serveMethod; tool calls run the REST operation in-process.
 *
 * Source: issue 5 §3; issue 12 §1; issue 27 §6 (MCP through the official SDK);
 * ../shared/reference/api-conventions.md (MCP); docs/decisions/0028-mcp-2026-07-28-handler.md.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  Server,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  type McpHttpHandler,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import {
  X402_PAYMENT_META,
  X402_PAYMENT_RESPONSE_META,
  findTool,
  toolList,
  type ToolCatalog,
  type ToolDefinition,
} from './tools';
import { ProblemError, problem } from '../errors';
import { UCP_LOOPBACK_HEADER, attestUcpLoopback, ucpErrorOf, ucpMcpPlatform } from '../http/ucp';
import { jsonPathOf } from '../http/acp';
import {
  LIST_HINTS,
  LOG_LEVELS,
  RESOURCES,
  RESOURCE_TEMPLATES,
  complete,
  getPrompt,
  promptList,
  readResource,
  type CacheHints,
  type Dispatch,
  type LogLevel,
  type RequestContext,
  type ToolResult,
} from './features';
import type { Db } from 'mongodb';
import {
  FIXTURE_TASK_TOOLS,
  ORDER_TASK_TOOLS,
  TASKS_EXTENSION,
  TASK_METHODS,
  createFixtureTask,
  createOrderTask,
  missingTasksCapability,
  runFixtureSync,
  serveTaskMethod,
  tasksNegotiated,
} from './tasks';
import {
  FIXTURE_PROMPTS,
  FIXTURE_STATE,
  FIXTURE_RESOURCES,
  FIXTURE_TEMPLATES,
  findFixtureTool,
  fixtureToolList,
  getFixturePrompt,
  readFixtureResource,
} from './conformance';

export type { Dispatch, ToolResult } from './features';

/** Server identity shown by `initialize` and `server/discover`. */
export const SERVER_INFO = { name: 'agent-commerce', title: 'Agent Commerce', version: '2.3.0' } as const;
/** The stateless protocol revision answered without `initialize`. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
/** Every revision served: 2026-07-28 here, the others through the SDK. */
export const SUPPORTED_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
const INSTRUCTIONS =
  'Buy automation services: list_services or discover_services, create_quote, create_order, get_wallet (shows the agent key once), ' +
  'confirm_payment (agent_key for wallet payments), get_order until delivered, verify_order, review_order. Resources: agent-commerce://catalogue, ' +
  'agent-commerce://orders/{order_id}. Failed calls are isError results whose text carries the RFC 9457 problem detail. ' +
  'Agent platforms: ACP checkout tools (create_checkout_session … cancel_checkout_session, meta + id + payload) and UCP ' +
  'checkout tools (create_checkout … cancel_checkout, meta + id + checkout) answer failures as JSON-RPC errors.';

/** How /mcp is served: `fixtures` adds the conformance suite's diagnostic tools, resources and prompts (tests only). */
export interface McpOptions {
  fixtures: boolean;
  /** The tools served: the service's (`/mcp`, default) or UCP's MCP binding (`/ucp/mcp`). */
  catalog?: ToolCatalog;
  /** Where the fixtures' tasks live (order tasks are the orders themselves). */
  db?: Db;
}

/**
 * Dispatch over the very socket server that received the MCP request (its local address and port), so tool calls
 * go through the whole middleware stack (errors, idempotency) exactly like REST calls. The caller's Authorization
 * header is forwarded unless the tool names its own bearer token.
 */
export function loopbackDispatch(ctx: Context): Dispatch {
  const socket = ctx.req.socket;
  const host = socket.localAddress ?? '127.0.0.1';
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
  const authorization = ctx.get('authorization');
  return async (req, extra = {}) => {
    const url = new URL(req.path, base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}), ...extra };
    if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
    else if (authorization) headers.authorization = authorization;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const sent = req.body !== undefined ? JSON.stringify(req.body) : undefined;
    if (req.ucpProfile !== undefined) {
      // UCP over MCP: the MCP request's own signature proves the platform; the REST call carries that proof.
      const platform = await ucpMcpPlatform(ctx);
      if (platform.profileUrl !== req.ucpProfile)
        throw problem(
          'invalid_profile_url',
          'meta["ucp-agent"].profile is not the profile of the signed UCP-Agent header',
        );
      delete headers.authorization;
      headers['ucp-agent'] = `profile="${platform.profileUrl}"`;
      headers[UCP_LOOPBACK_HEADER] = attestUcpLoopback(platform.profileUrl, req.method, url.pathname, sent ?? '');
    }
    const res = await fetch(url, { method: req.method, headers, ...(sent !== undefined ? { body: sent } : {}) });
    const bytes = Buffer.from(await res.arrayBuffer());
    let body: unknown = null;
    if (/json/.test(res.headers.get('content-type') ?? '') || !res.headers.get('content-type')) {
      try {
        body = bytes.length ? JSON.parse(bytes.toString('utf8')) : null;
      } catch {
        body = { text: bytes.toString('utf8') };
      }
    }
    return { status: res.status, headers: res.headers, body, bytes };
  };
}

const text = (t: string) => ({ type: 'text', text: t });

/**
 * An isError result an agent can read with any client (issue 12 §1, typescript-sdk issue 1943): the problem detail
 * as text (a summary line, then the problem JSON), and as `structuredContent` only for a tool without an output
 * schema, where the client does not validate it.
 */
function problemResult(status: number, problem: Record<string, unknown>, hasOutputSchema: boolean): ToolResult {
  const title = typeof problem.title === 'string' ? problem.title : `HTTP ${status}`;
  const detail = typeof problem.detail === 'string' ? `: ${problem.detail}` : '';
  return {
    content: [
      text(`${title}${detail} (HTTP ${status}, code ${String(problem.code ?? 'unknown')})`),
      text(JSON.stringify(problem)),
    ],
    ...(hasOutputSchema ? {} : { structuredContent: problem }),
    isError: true,
  };
}

/**
 * Validates the arguments and runs a product tool. 2xx → `structuredContent` (and its JSON as text); a problem
 * detail → an isError result (see problemResult); arguments the input schema refuses → an isError result naming each
 * refused argument (SEP-1303), so the model can correct them.
 * @throws ProtocolError -32602 for an unknown tool, or a `_meta["x402/payment"]` that is not an x402 PaymentPayload
 */
export async function callTool(
  name: string,
  args: unknown,
  ctx: Pick<RequestContext, 'dispatch' | 'log'>,
  meta?: Record<string, unknown>,
  catalog: ToolCatalog = 'service',
): Promise<ToolResult> {
  const tool = findTool(name, catalog);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  if (tool.binding) return callBindingTool(tool, tool.binding, args, ctx);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 20)
      .map((i) => ({ param: i.path.join('.') || '(root)', message: i.message }));
    return {
      content: [text(`Invalid arguments for ${name}: ${issues.map((i) => `${i.param}: ${i.message}`).join('; ')}`)],
      isError: true,
    };
  }
  const payment = tool.paid ? meta?.[X402_PAYMENT_META] : undefined;
  let extra: Record<string, string> = {};
  if (payment !== undefined) {
    try {
      extra = {
        'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(
          payment as Parameters<typeof encodePaymentSignatureHeader>[0],
        ),
      };
    } catch {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `_meta["${X402_PAYMENT_META}"] is not an x402 PaymentPayload`,
      );
    }
  }
  const req = tool.request(args ?? {});
  const { status, headers, body } = await ctx.dispatch(req, extra);
  await ctx.log(status < 400 ? 'debug' : 'warning', `${name}: ${req.method} ${req.path} answered ${status}`);
  const structured =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body };
  if (status >= 200 && status < 300) {
    const settled = tool.paid ? headers.get('payment-response') : null;
    return {
      content: [text(JSON.stringify(structured))],
      structuredContent: structured,
      ...(settled ? { _meta: { [X402_PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(settled) } } : {}),
    };
  }
  const required = tool.paid && status === 402 ? headers.get('payment-required') : null;
  if (required) {
    // x402 MCP transport: the PaymentRequired object is the structured content of an isError result.
    const paymentRequired = decodePaymentRequiredHeader(required) as unknown as Record<string, unknown>;
    return {
      content: [
        text(
          `Payment required: pay with x402 and retry with _meta["${X402_PAYMENT_META}"]. ${JSON.stringify(paymentRequired)}`,
        ),
      ],
      structuredContent: paymentRequired,
      isError: true,
    };
  }
  return problemResult(status, structured, tool.output !== undefined);
}

/** UCP's JSON-RPC error code of a UCP error code answered with HTTP `status` (overview, "Error Handling"). */
function ucpRpcCode(status: number, code: string): number {
  if (['invalid_profile_url', 'profile_unreachable', 'profile_malformed', 'version_unsupported'].includes(code))
    return -32001;
  if (code === 'digest_mismatch' || code === 'algorithm_unsupported') return -32600;
  return status >= 500 && status !== 503 ? -32603 : -32000;
}

/** The JSON-RPC error of a protocol error answered with HTTP `status` (the REST answer's body, the protocol's shape). */
function bindingError(protocol: 'acp' | 'ucp', status: number, body: Record<string, unknown>): ProtocolError {
  if (protocol === 'acp') {
    // ACP's MCP examples: -32000, data the ACP Error, its param a JSONPath into the tool's arguments.
    const param = typeof body.param === 'string' ? body.param : undefined;
    const data = {
      ...body,
      ...(param ? { param: param.startsWith('$') ? param.replace(/^\$/, '$.payload') : param } : {}),
    };
    return new ProtocolError(-32000, String(body.message ?? `HTTP ${status}`), data);
  }
  const code = String(body.code ?? 'error');
  return new ProtocolError(ucpRpcCode(status, code), String(body.content ?? `HTTP ${status}`), body);
}

/**
 * Runs a checkout protocol's tool (ACP's or UCP's MCP binding): the envelope (meta, id, the body being an object) is
 * checked here, the rest by the REST operation it calls. 2xx → `structuredContent` (and its JSON as text; UCP's
 * business outcomes without a checkout included); anything else → a JSON-RPC error with the protocol's error as
 * `data` (ACP: -32000 and `{type, code, message, param}`; UCP: its code table and `{code, content}`).
 * @throws ProtocolError as above
 */
async function callBindingTool(
  tool: ToolDefinition,
  binding: NonNullable<ToolDefinition['binding']>,
  args: unknown,
  ctx: Pick<RequestContext, 'dispatch' | 'log'>,
): Promise<ToolResult> {
  const parsed = binding.envelope.safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = `$.${issue?.path.join('.') ?? ''}`;
    const message = `${where}: ${issue?.message ?? 'invalid'}`;
    if (binding.protocol === 'acp')
      throw new ProtocolError(-32000, message, {
        type: 'invalid_request',
        code:
          issue?.code === 'invalid_type' && issue.input === undefined ? 'missing_required_field' : 'invalid_request',
        message,
        param: jsonPathOf(issue?.path.join('.') ?? ''),
      });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, message, { code: 'invalid_request', content: message });
  }
  const req = tool.request(args as never);
  let answer;
  try {
    answer = await ctx.dispatch(req);
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    throw bindingError(binding.protocol, err.status, { ...ucpErrorOf({ code: err.code, detail: err.detail }) });
  }
  const { status, body } = answer;
  await ctx.log(status < 400 ? 'debug' : 'warning', `${tool.name}: ${req.method} ${req.path} answered ${status}`);
  const structured =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body };
  if (status >= 200 && status < 300)
    return { content: [text(JSON.stringify(structured))], structuredContent: structured };
  throw bindingError(binding.protocol, status, structured);
}

/** The request's params as an object ({} when absent). */
const paramsOf = (p: unknown): Record<string, unknown> =>
  p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};

/**
 * Serves one MCP method for either revision (without the protocol envelope): tools, resources, prompts, completion.
 * @returns the result and, for cacheable results, the caching hints (SEP-2549); undefined for a method not served
 * @throws ProtocolError -32602 for unknown tools, prompts or resources (resources: `data.uri`, SEP-2164)
 */
export async function serveMethod(
  method: string,
  ctx: RequestContext,
  opts: McpOptions,
): Promise<{ result: Record<string, unknown>; hints?: CacheHints } | undefined> {
  const p = ctx.params;
  const stateless = ctx.revision === STATELESS_PROTOCOL_VERSION;
  switch (method) {
    case 'tools/list': {
      // 2026-07-28: tools that run as tasks say so (SEP-2663 `execution.taskSupport`).
      const product = stateless
        ? toolList(opts.catalog).map((t) =>
            ORDER_TASK_TOOLS.has(String(t.name)) ? { ...t, execution: { taskSupport: 'optional' } } : t,
          )
        : toolList(opts.catalog);
      const fixtureTasks = Object.entries(FIXTURE_TASK_TOOLS).map(([name, t]) => ({
        name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(stateless ? { execution: { taskSupport: t.taskSupport } } : {}),
      }));
      return {
        result: { tools: [...product, ...(opts.fixtures ? [...fixtureToolList(), ...fixtureTasks] : [])] },
        hints: LIST_HINTS,
      };
    }
    case 'tools/call': {
      const name = String(p.name ?? '');
      const tasks = stateless && tasksNegotiated(ctx.clientCapabilities);
      const fixture = opts.fixtures ? findFixtureTool(name) : undefined;
      if (fixture) return { result: await fixture.run(paramsOf(p.arguments), ctx) };
      const fixtureTask = opts.fixtures ? FIXTURE_TASK_TOOLS[name] : undefined;
      if (fixtureTask && Object.hasOwn(FIXTURE_TASK_TOOLS, name)) {
        if (tasks && opts.db) return { result: await createFixtureTask(opts.db, name, paramsOf(p.arguments), ctx) };
        if (fixtureTask.taskSupport === 'required') throw missingTasksCapability(`Tool ${name}`);
        return { result: await runFixtureSync(name, paramsOf(p.arguments)) };
      }
      if (tasks && ORDER_TASK_TOOLS.has(name) && opts.catalog !== 'ucp')
        return { result: createOrderTask(await callTool(name, p.arguments, ctx, paramsOf(p._meta))) };
      return { result: await callTool(name, p.arguments, ctx, paramsOf(p._meta), opts.catalog) };
    }
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
      if (!stateless) return undefined;
      if (!tasksNegotiated(ctx.clientCapabilities)) throw missingTasksCapability(method);
      return { result: await serveTaskMethod(method, ctx, opts.db) };
    case 'resources/list':
      return { result: { resources: [...RESOURCES, ...(opts.fixtures ? FIXTURE_RESOURCES : [])] }, hints: LIST_HINTS };
    case 'resources/templates/list':
      return {
        result: { resourceTemplates: [...RESOURCE_TEMPLATES, ...(opts.fixtures ? FIXTURE_TEMPLATES : [])] },
        hints: LIST_HINTS,
      };
    case 'resources/read': {
      const uri = String(p.uri ?? '');
      const read = (opts.fixtures ? readFixtureResource(uri) : undefined) ?? (await readResource(uri, ctx.dispatch));
      return { result: { contents: read.contents }, hints: read.hints };
    }
    case 'prompts/list':
      return {
        result: {
          prompts: [
            ...promptList(),
            ...(opts.fixtures
              ? FIXTURE_PROMPTS.filter((f) => stateless || !f.name.startsWith('test_input_required'))
              : []),
          ],
        },
        hints: LIST_HINTS,
      };
    case 'prompts/get': {
      const name = String(p.name ?? '');
      const args = paramsOf(p.arguments);
      const fixture =
        opts.fixtures && (stateless || !name.startsWith('test_input_required'))
          ? getFixturePrompt(name, args, ctx)
          : undefined;
      const prompt = fixture ?? getPrompt(name, args);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
      return { result: prompt as Record<string, unknown> };
    }
    case 'completion/complete': {
      const ref = paramsOf(p.ref) as { type: string; name?: string; uri?: string };
      const arg = paramsOf(p.argument) as { name: string; value: string };
      return {
        result: { completion: complete(ref, { name: String(arg.name ?? ''), value: String(arg.value ?? '') }) },
      };
    }
    default:
      return undefined;
  }
}

/** True when a 2025-11-25 tools/call must be answered as an event stream: a fixture that sends notifications, or a progress token. */
function wantsStream(method: unknown, params: Record<string, unknown>, opts: McpOptions): boolean {
  if (method !== 'tools/call') return false;
  const meta = paramsOf(params._meta);
  return (
    meta.progressToken !== undefined ||
    meta[LOG_LEVEL_META_KEY] !== undefined ||
    (opts.fixtures && findFixtureTool(String(params.name ?? ''))?.streams === true)
  );
}

const CAPABILITIES = { tools: { listChanged: false }, resources: {}, prompts: {}, completions: {}, logging: {} };

/** The spec methods both revisions serve through serveMethod (`server/discover` and `initialize` are the SDK's). */
const METHODS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
] as const;

/**
 * A fresh v2 low-level Server for one request (both revisions are stateless), every method of src/mcp/features.ts
 * delegated to serveMethod; at 2026-07-28 also the tasks extension's `tasks/get`, `tasks/update` and `tasks/cancel`
 * (extension methods, SEP-2663). What the request carries reaches serveMethod as a RequestContext: the params with
 * the non-reserved `_meta`, and at 2026-07-28 the envelope's client capabilities and log level, `inputResponses` and
 * `requestState` (the raw string: conformance.ts verifies its own HMAC). At 2025-11-25 nothing survives between
 * requests (no `logging/setLevel`), so product tools send no log messages there.
 */
function mcpServer(dispatch: Dispatch, opts: McpOptions, era: 'legacy' | 'modern'): Server {
  const modern = era === 'modern';
  const server = new Server(SERVER_INFO, {
    capabilities: modern ? { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } } : CAPABILITIES,
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: [...SUPPORTED_VERSIONS],
    // The fixtures sign their requestState: the SDK verifies it before a handler runs (-32602 when tampered).
    ...(opts.fixtures ? { requestState: { verify: FIXTURE_STATE.verify } } : {}),
    cacheHints: {
      'server/discover': LIST_HINTS,
      'tools/list': LIST_HINTS,
      'prompts/list': LIST_HINTS,
      'resources/list': LIST_HINTS,
      'resources/templates/list': LIST_HINTS,
    },
  });
  const serve = async (method: string, params: unknown, sctx: ServerContext): Promise<Record<string, unknown>> => {
    const req = sctx.mcpReq;
    const envelope = (req.envelope ?? {}) as Record<string, unknown>;
    const level = envelope[LOG_LEVEL_META_KEY];
    const minLevel = modern && typeof level === 'string' ? LOG_LEVELS.indexOf(level as LogLevel) : -1;
    const state = req.requestState();
    const rctx: RequestContext = {
      dispatch,
      revision: modern ? STATELESS_PROTOCOL_VERSION : '2025-11-25',
      params: {
        ...paramsOf(params),
        ...(req._meta ? { _meta: { ...req._meta } } : {}),
        ...(req.inputResponses ? { inputResponses: req.inputResponses } : {}),
        ...(state !== undefined ? { requestState: state } : {}),
      },
      clientCapabilities: modern
        ? paramsOf(envelope[CLIENT_CAPABILITIES_META_KEY])
        : (server.getClientCapabilities() as Record<string, unknown> | undefined),
      notify: (m, p) => req.notify({ method: m, params: p } as Parameters<typeof req.notify>[0]),
      async log(lvl, data) {
        if (minLevel >= 0 && LOG_LEVELS.indexOf(lvl) >= minLevel)
          await this.notify('notifications/message', { level: lvl, logger: 'agent-commerce', data });
      },
    };
    const served = await serveMethod(method, rctx, opts);
    if (!served) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`);
    return modern ? { ...served.result, ...(served.hints ?? {}) } : served.result;
  };
  for (const method of METHODS)
    server.setRequestHandler(method, (async (req: { params?: unknown }, sctx: ServerContext) =>
      serve(method, req.params, sctx)) as never);
  if (modern)
    for (const method of TASK_METHODS)
      server.setRequestHandler(method, { params: z.looseObject({}) }, (params, sctx) => serve(method, params, sctx));
  return server;
}

/**
 * True when the request speaks 2026-07-28: that header, `server/discover`, a `_meta` protocol version, or a header
 * naming a revision the SDK does not serve (answered with UnsupportedProtocolVersionError).
 */
export function isStatelessRequest(ctx: Context, body: unknown): boolean {
  const msg = paramsOf(body);
  const header = ctx.get('mcp-protocol-version');
  if (header === STATELESS_PROTOCOL_VERSION || msg.method === 'server/discover') return true;
  if (paramsOf(paramsOf(msg.params)._meta)[PROTOCOL_VERSION_META_KEY] !== undefined) return true;
  return header !== '' && !SUPPORTED_PROTOCOL_VERSIONS.includes(header);
}

/** The dispatch of each request handed to the 2026-07-28 handler, for its server factory. */
const exchanges = new WeakMap<Request, Dispatch>();
/** One 2026-07-28 handler per McpOptions (the route creates its options once). */
const modernHandlers = new WeakMap<McpOptions, McpHttpHandler>();

/** The 2026-07-28 handler of these options, created on first use (`legacy: 'reject'`: handleWithSdk serves 2025-11-25). */
function modernHandler(opts: McpOptions): McpHttpHandler {
  let handler = modernHandlers.get(opts);
  if (!handler) {
    handler = createMcpHandler(
      ({ requestInfo }) => {
        const dispatch = requestInfo && exchanges.get(requestInfo);
        if (!dispatch) throw new Error('MCP request without its dispatch');
        return mcpServer(dispatch, opts, 'modern');
      },
      { legacy: 'reject', responseMode: 'auto' },
    );
    modernHandlers.set(opts, handler);
  }
  return handler;
}

/** The Koa request as a web Request (headers, no body: the parsed body goes to the SDK as `parsedBody`). */
function webRequest(ctx: Context): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(ctx.headers)) {
    if (v === undefined || k === 'content-length' || k === 'transfer-encoding') continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  // A client that goes away ends the exchange (and a subscriptions/listen stream) on the SDK's side too.
  const abort = new AbortController();
  ctx.res.on('close', () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  return new Request(new URL(ctx.originalUrl, `http://${ctx.host || '127.0.0.1'}`), {
    method: ctx.method,
    headers,
    signal: abort.signal,
  });
}

/**
 * Writes the SDK's web Response to Koa: an event stream is piped as it is produced (Koa steps aside); any other
 * answer becomes `ctx.status`, headers and `ctx.body` (JSON parsed, then amended), so the middleware around it sees
 * an ordinary answer.
 */
async function sendResponse(ctx: Context, res: Response, opts: McpOptions): Promise<void> {
  const type = res.headers.get('content-type') ?? '';
  if (res.body && type.startsWith('text/event-stream')) {
    ctx.respond = false;
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k] = v));
    ctx.res.writeHead(res.status, out);
    await pipeline(Readable.fromWeb(res.body as WebReadableStream), ctx.res);
    return;
  }
  ctx.status = res.status;
  res.headers.forEach((v, k) => {
    if (k !== 'content-length') ctx.set(k, v);
  });
  const text = await res.text();
  if (!text) {
    ctx.body = null;
    return;
  }
  ctx.type = type || 'application/json';
  ctx.body = /json/.test(type) ? amend(JSON.parse(text) as unknown, opts) : text;
}

/**
 * The three places where `@modelcontextprotocol/server` 2.4.0 answers 2026-07-28 differently from this endpoint's
 * contract, put back on its JSON answer (issue 27 §6, docs/decisions/0028-mcp-2026-07-28-handler.md):
 * - `server/discover`: the SDK lists only 2026-era revisions in `supportedVersions` (`Server._ondiscover`, installed
 *   by `createMcpHandler` over any handler of ours); this endpoint also serves 2025-11-25, so every revision is listed.
 * - `tools/list`: the SDK deletes `execution` from every listed tool at 2026-07-28 (rev2026 codec,
 *   `enforceDeletedFields`), although the tasks extension (SEP-2663) declares `execution.taskSupport` there.
 * - a CreateTaskResult (`resultType: 'task'`, flat): the SDK adds `content: []` to a tool result without content
 *   (`normalizeContentlessToolResult`: it knows a nested `task` key, not the extension's flat task); removed again.
 * Any other answer is returned as it is (a 2025-11-25 tools/list has no `execution`: serveMethod adds none there).
 * No upstream issue was found for any of the three in modelcontextprotocol/typescript-sdk (searched 2026-11-27); the
 * decision record says what would let each go.
 */
function amend(answer: unknown, opts: McpOptions): unknown {
  const result = paramsOf(paramsOf(answer).result);
  if (Array.isArray(result.supportedVersions)) result.supportedVersions = [...SUPPORTED_VERSIONS];
  if (result.resultType === 'task' && Array.isArray(result.content) && result.content.length === 0)
    delete result.content;
  const tools = result.tools;
  if (!Array.isArray(tools) || result.resultType === undefined) return answer;
  const support = (name: string): string | undefined =>
    ORDER_TASK_TOOLS.has(name)
      ? 'optional'
      : opts.fixtures && Object.hasOwn(FIXTURE_TASK_TOOLS, name)
        ? FIXTURE_TASK_TOOLS[name]!.taskSupport
        : undefined;
  for (const tool of tools as Record<string, unknown>[]) {
    const taskSupport = support(String(tool.name));
    if (taskSupport && tool.execution === undefined) tool.execution = { taskSupport };
  }
  return answer;
}

/**
 * 2026-07-28 through `createMcpHandler` of `@modelcontextprotocol/server` v2 (issue 27 §6), a fresh low-level Server
 * per request (mcpServer). The SDK checks the envelope (`_meta` protocol version and client capabilities, else
 * 400 / -32602), the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers (SEP-2243, 400 / -32020) and the
 * version (400 / -32022 with the supported versions; a request naming no version at all is 400 / -32602, answered
 * here); answers `server/discover`, `subscriptions/listen`, removed and
 * unknown methods (404 / -32601); stamps `resultType`, caching fields (`ttlMs`, `cacheScope`) and the server identity
 * in `_meta`; answers JSON, or an event stream when a handler sends a notification (progress, `_meta` logLevel)
 * before its result. -32021 (a missing client capability) is answered with HTTP 400.
 */
export async function handleStateless(
  ctx: Context,
  body: unknown,
  dispatch: Dispatch,
  opts: McpOptions = { fixtures: false },
): Promise<void> {
  // A request that names no protocol version at all (a `server/discover` without the header and without `_meta`) is
  // malformed: 2026-07-28 basic/index, "A request missing any required field is malformed; the server MUST reject it
  // with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request." The SDK
  // answers it -32022, which the revision keeps for a version it names and the server does not implement.
  const msg = paramsOf(body);
  const meta = paramsOf(paramsOf(msg.params)._meta);
  if (ctx.get('mcp-protocol-version') === '' && meta[PROTOCOL_VERSION_META_KEY] === undefined) {
    ctx.status = 400;
    ctx.body = {
      jsonrpc: '2.0',
      id: typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null,
      error: {
        code: -32602,
        message: `Invalid params: the request names no protocol version; send params._meta["${PROTOCOL_VERSION_META_KEY}"] and the MCP-Protocol-Version header`,
        data: { envelope: { missing: Object.keys(meta).length === 0 ? ['_meta'] : [PROTOCOL_VERSION_META_KEY] } },
      },
    };
    return;
  }
  const request = webRequest(ctx);
  exchanges.set(request, dispatch);
  await sendResponse(ctx, await modernHandler(opts).fetch(request, { parsedBody: body }), opts);
}

/**
 * 2025-11-25 and earlier through the v2 SDK's streamable HTTP transport, stateless (`sessionIdGenerator: undefined`):
 * a new Server (mcpServer, `initialize` answered by the SDK) and transport per request, closed when the answer has
 * been written. JSON answers, except a tool call that sends notifications (progress token, or a logging fixture),
 * which is answered as an event stream. (createMcpHandler's own stateless fallback always answers with an event
 * stream, so this revision is wired by hand.)
 */
export async function handleWithSdk(
  ctx: Context,
  body: unknown,
  dispatch: Dispatch,
  opts: McpOptions = { fixtures: false },
): Promise<void> {
  const msg = paramsOf(body);
  const server = mcpServer(dispatch, opts, 'legacy');
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsStream(msg.method, paramsOf(msg.params), opts),
  });
  try {
    await server.connect(transport);
    await sendResponse(ctx, await transport.handleRequest(webRequest(ctx), { parsedBody: body }), opts);
  } finally {
    await transport.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}
