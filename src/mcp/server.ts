/**
 * The MCP server behind `POST /mcp`: protocol 2025-11-25 through `@modelcontextprotocol/sdk` (a new stateless
 * Server + StreamableHTTPServerTransport per request; JSON answers, an event stream when a tool call sends
 * notifications), and 2026-07-28 (`server/discover`, per-request `_meta`, no `initialize`, one message per POST)
 * answered directly. Both revisions serve the same tools, resources, prompts and completions (src/mcp/features.ts);
 * tool calls run the REST operation in-process.
 *
 * Source: issue 5 §3; issue 12 §1; ../shared/reference/api-conventions.md (MCP).
 */
import type { Context } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import { X402_PAYMENT_META, X402_PAYMENT_RESPONSE_META, findTool, toolList } from './tools';
import {
  LIST_HINTS,
  LOG_LEVELS,
  RESOURCES,
  RESOURCE_TEMPLATES,
  RPC,
  RpcError,
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
  FIXTURE_RESOURCES,
  FIXTURE_TEMPLATES,
  findFixtureTool,
  fixtureToolList,
  getFixturePrompt,
  readFixtureResource,
} from './conformance';

export { RpcError, type Dispatch, type ToolResult } from './features';

/** Server identity shown by `initialize` and `server/discover`. */
export const SERVER_INFO = { name: 'agent-commerce', title: 'Agent Commerce', version: '2.3.0' } as const;
/** The stateless protocol revision answered without `initialize`. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
/** Every revision served: 2026-07-28 here, the others through the SDK. */
export const SUPPORTED_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
const INSTRUCTIONS =
  'Buy automation services: list_services or discover_services, create_quote, create_order, get_wallet (shows the agent key once), ' +
  'confirm_payment (agent_key for wallet payments), get_order until delivered, verify_order, review_order. Resources: agent-commerce://catalogue, ' +
  'agent-commerce://orders/{order_id}. Failed calls are isError results whose text carries the RFC 9457 problem detail.';
const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** How /mcp is served: `fixtures` adds the conformance suite's diagnostic tools, resources and prompts (tests only). */
export interface McpOptions {
  fixtures: boolean;
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
    const headers: Record<string, string> = { accept: 'application/json', ...extra };
    if (req.bearer) headers.authorization = `Bearer ${req.bearer}`;
    else if (authorization) headers.authorization = authorization;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, {
      method: req.method,
      headers,
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
    });
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
 * @throws RpcError -32602 for an unknown tool, or a `_meta["x402/payment"]` that is not an x402 PaymentPayload
 */
export async function callTool(
  name: string,
  args: unknown,
  ctx: Pick<RequestContext, 'dispatch' | 'log'>,
  meta?: Record<string, unknown>,
): Promise<ToolResult> {
  const tool = findTool(name);
  if (!tool) throw new RpcError(RPC.InvalidParams, `Unknown tool: ${name}`);
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
      throw new RpcError(RPC.InvalidParams, `_meta["${X402_PAYMENT_META}"] is not an x402 PaymentPayload`);
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

/** The request's params as an object ({} when absent). */
const paramsOf = (p: unknown): Record<string, unknown> =>
  p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};

/**
 * Serves one MCP method for either revision (without the protocol envelope): tools, resources, prompts, completion.
 * @returns the result and, for cacheable results, the caching hints (SEP-2549); undefined for a method not served
 * @throws RpcError -32602 for unknown tools, prompts or resources (resources: `data.uri`, SEP-2164)
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
        ? toolList().map((t) =>
            ORDER_TASK_TOOLS.has(String(t.name)) ? { ...t, execution: { taskSupport: 'optional' } } : t,
          )
        : toolList();
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
      if (tasks && ORDER_TASK_TOOLS.has(name))
        return { result: createOrderTask(await callTool(name, p.arguments, ctx, paramsOf(p._meta))) };
      return { result: await callTool(name, p.arguments, ctx, paramsOf(p._meta)) };
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
      if (!prompt) throw new RpcError(RPC.InvalidParams, `Unknown prompt: ${name}`);
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

/** True when a tools/call must be answered as an event stream: a fixture that sends notifications, or a progress token. */
function wantsStream(method: unknown, params: Record<string, unknown>, opts: McpOptions): boolean {
  if (method !== 'tools/call') return false;
  const meta = paramsOf(params._meta);
  return (
    meta.progressToken !== undefined ||
    meta[META.logLevel] !== undefined ||
    (opts.fixtures && findFixtureTool(String(params.name ?? ''))?.streams === true)
  );
}

const CAPABILITIES = { tools: { listChanged: false }, resources: {}, prompts: {}, completions: {}, logging: {} };

/** A fresh SDK server for one request (the SDK's stateless pattern), every method delegated to serveMethod. */
function sdkServer(dispatch: Dispatch, opts: McpOptions): Server {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  const schemas = [
    ListToolsRequestSchema,
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ReadResourceRequestSchema,
    ListPromptsRequestSchema,
    GetPromptRequestSchema,
    CompleteRequestSchema,
  ];
  for (const schema of schemas) {
    server.setRequestHandler(schema as typeof CallToolRequestSchema, async (req, extra) => {
      const ctx: RequestContext = {
        dispatch,
        revision: '2025-11-25',
        params: paramsOf(req.params),
        clientCapabilities: server.getClientCapabilities() as Record<string, unknown> | undefined,
        notify: (method, params) => extra.sendNotification({ method, params } as never),
        // Stateless: no logging/setLevel survives the request, so product tools send no log messages at this revision.
        log: async () => undefined,
      };
      const served = await serveMethod(req.method, ctx, opts);
      return served!.result as never;
    });
  }
  return server;
}

type JsonRpcId = string | number | null;
const rpcError = (id: JsonRpcId, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});
const rpcResult = (id: JsonRpcId, result: unknown) => ({ jsonrpc: '2.0', id, result });

/**
 * True when the request speaks 2026-07-28: that header, `server/discover`, a `_meta` protocol version, or a header
 * naming a revision the SDK does not serve (answered with UnsupportedProtocolVersionError).
 */
export function isStatelessRequest(ctx: Context, body: unknown): boolean {
  const msg = paramsOf(body);
  const header = ctx.get('mcp-protocol-version');
  if (header === STATELESS_PROTOCOL_VERSION || msg.method === 'server/discover') return true;
  if (paramsOf(paramsOf(msg.params)._meta)[META.protocolVersion] !== undefined) return true;
  return header !== '' && !SUPPORTED_PROTOCOL_VERSIONS.includes(header);
}

/** Methods 2026-07-28 removed: answered 404 / -32601 like unknown ones. */
const REMOVED_METHODS = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * The 2026-07-28 revision: one JSON-RPC request per POST, each carrying `_meta` with the protocol version and the
 * client capabilities (else 400 / -32602); the `MCP-Protocol-Version` header must equal that version (else 400 /
 * -32020), which must be 2026-07-28 (else 400 / -32022 with the supported versions); `Mcp-Method` (and `Mcp-Name` for
 * tools/call, prompts/get, resources/read) must match the body (SEP-2243, else 400 / -32020). Results carry `resultType`,
 * the server identity in `_meta`, and caching hints where cacheable. Removed and unknown methods: 404 / -32601.
 * A tool call that sends notifications (progress, `_meta` logLevel) is answered as an event stream.
 */
export async function handleStateless(
  ctx: Context,
  body: unknown,
  dispatch: Dispatch,
  opts: McpOptions = { fixtures: false },
): Promise<void> {
  ctx.type = 'application/json';
  ctx.set('MCP-Protocol-Version', STATELESS_PROTOCOL_VERSION);
  const msg = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
  const id: JsonRpcId = typeof msg?.id === 'string' || typeof msg?.id === 'number' ? msg.id : null;
  const fail = (status: number, code: number, message: string, data?: unknown) => {
    ctx.status = status;
    ctx.body = rpcError(id, code, message, data);
  };
  if (
    !msg ||
    typeof msg !== 'object' ||
    Array.isArray(msg) ||
    msg.jsonrpc !== '2.0' ||
    typeof msg.method !== 'string'
  ) {
    return fail(400, RPC.InvalidRequest, 'Send one JSON-RPC 2.0 request per POST');
  }
  if (msg.id === undefined) {
    ctx.status = 202;
    ctx.body = null;
    return;
  }
  const params = paramsOf(msg.params);
  const meta = params._meta;
  const metaObj = paramsOf(meta);
  const version = metaObj[META.protocolVersion];
  const caps = metaObj[META.clientCapabilities];
  if (
    meta !== Object(meta) ||
    Array.isArray(meta) ||
    typeof version !== 'string' ||
    !caps ||
    typeof caps !== 'object' ||
    Array.isArray(caps)
  ) {
    return fail(
      400,
      RPC.InvalidParams,
      `Invalid params: _meta must carry "${META.protocolVersion}" and "${META.clientCapabilities}"`,
    );
  }
  const header = ctx.get('mcp-protocol-version');
  if (header && header !== version)
    return fail(
      400,
      RPC.HeaderMismatch,
      `MCP-Protocol-Version header ${header} does not match _meta protocol version ${version}`,
    );
  if (version !== STATELESS_PROTOCOL_VERSION) {
    return fail(
      400,
      RPC.UnsupportedVersion,
      `Unsupported protocol version ${version} (2025-11-25 and earlier start with initialize)`,
      { supported: SUPPORTED_VERSIONS, requested: version },
    );
  }
  const method = msg.method;
  // SEP-2243: Mcp-Method must name the body's method, and Mcp-Name its tool, prompt or resource.
  const methodHeader = ctx.get('mcp-method').trim();
  if (methodHeader !== method)
    return fail(
      400,
      RPC.HeaderMismatch,
      `Mcp-Method header ${methodHeader ? `"${methodHeader}"` : '(missing)'} does not match the method ${method}`,
    );
  const named =
    method === 'resources/read'
      ? params.uri
      : method === 'tools/call' || method === 'prompts/get'
        ? params.name
        : TASK_METHODS.has(method)
          ? params.taskId
          : undefined;
  const nameHeader = ctx.get('mcp-name').trim();
  if (typeof named === 'string' && nameHeader !== named)
    return fail(
      400,
      RPC.HeaderMismatch,
      `Mcp-Name header ${nameHeader ? `"${nameHeader}"` : '(missing)'} does not match ${named}`,
    );
  const inputs = params.inputResponses;
  if (
    inputs !== undefined &&
    (paramsOf(inputs) !== inputs || Object.values(inputs as object).some((v) => paramsOf(v) !== v))
  ) {
    return fail(200, RPC.InvalidParams, 'inputResponses must be an object of response objects');
  }
  const level = metaObj[META.logLevel];
  const minLevel = typeof level === 'string' ? LOG_LEVELS.indexOf(level as LogLevel) : -1;
  const stream = wantsStream(method, params, opts) && /text\/event-stream/.test(ctx.get('accept'));
  let streaming = false;
  const send = (frame: unknown) => ctx.res.write(`event: message\ndata: ${JSON.stringify(frame)}\n\n`);
  const rctx: RequestContext = {
    dispatch,
    revision: STATELESS_PROTOCOL_VERSION,
    params,
    clientCapabilities: caps as Record<string, unknown>,
    async notify(m, p) {
      if (!stream) return;
      if (!streaming) {
        streaming = true;
        ctx.respond = false;
        ctx.res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          'mcp-protocol-version': STATELESS_PROTOCOL_VERSION,
        });
      }
      send({ jsonrpc: '2.0', method: m, params: p });
    },
    async log(lvl, data) {
      if (minLevel >= 0 && LOG_LEVELS.indexOf(lvl) >= minLevel)
        await this.notify('notifications/message', { level: lvl, logger: 'agent-commerce', data });
    },
  };
  let answer: unknown;
  let status = 200;
  if (method === 'server/discover') {
    answer = rpcResult(id, {
      resultType: 'complete',
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: {
        tools: { listChanged: false },
        resources: {},
        prompts: {},
        completions: {},
        logging: {},
        extensions: { [TASKS_EXTENSION]: {} },
      },
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
      ...LIST_HINTS,
      _meta: { [META.serverInfo]: SERVER_INFO },
    });
  } else if (REMOVED_METHODS.has(method)) {
    status = 404;
    answer = rpcError(id, RPC.MethodNotFound, `Method not found: ${method} (removed in ${STATELESS_PROTOCOL_VERSION})`);
  } else {
    try {
      const served = await serveMethod(method, rctx, opts);
      if (!served) {
        status = 404;
        answer = rpcError(id, RPC.MethodNotFound, `Method not found: ${method}`);
      } else {
        const r = served.result;
        answer = rpcResult(id, {
          resultType: 'complete',
          ...r,
          ...(served.hints ?? {}),
          _meta: { ...paramsOf(r._meta), [META.serverInfo]: SERVER_INFO },
        });
      }
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      status = err.httpStatus ?? 200;
      answer = rpcError(id, err.code, err.message, err.data);
    }
  }
  if (streaming) {
    send(answer);
    ctx.res.end();
    return;
  }
  ctx.status = status;
  ctx.body = answer;
}

/**
 * Hands the request to the SDK (2025-11-25 and earlier): a new Server and a stateless transport
 * (`sessionIdGenerator: undefined`), closed when the response ends. JSON answers, except a tool call that sends
 * notifications (progress token, or a logging fixture), which is answered as an event stream.
 */
export async function handleWithSdk(
  ctx: Context,
  body: unknown,
  dispatch: Dispatch,
  opts: McpOptions = { fixtures: false },
): Promise<void> {
  const msg = paramsOf(body);
  const server = sdkServer(dispatch, opts);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsStream(msg.method, paramsOf(msg.params), opts),
  });
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, body);
}
