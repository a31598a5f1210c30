/**
 * The MCP server behind `POST /mcp`: protocol 2025-11-25 through `@modelcontextprotocol/sdk` (a new stateless
 * Server + StreamableHTTPServerTransport per request, JSON answers), and the 2026-07-28 style (`server/discover`,
 * no `initialize`, one message per POST) answered directly. Tool calls run the REST operation in-process.
 *
 * Source: issue 5 §3; ../shared/reference/api-conventions.md (MCP).
 */
import type { Context } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { X402_PAYMENT_META, X402_PAYMENT_RESPONSE_META, findTool, toolList, type ToolRequest } from './tools';

/** Server identity shown by `initialize` and `server/discover`. */
export const SERVER_INFO = { name: 'agent-commerce', title: 'Agent Commerce', version: '2.3.0' } as const;
/** The stateless protocol revision answered without `initialize`. */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';
const INSTRUCTIONS =
  'Buy automation services: list_services or discover_services, create_quote, create_order, get_wallet (shows the agent key once), ' +
  'confirm_payment (agent_key for wallet payments), get_order until delivered, verify_order, review_order. Errors are RFC 9457 problem details.';

/** A tool call result as MCP defines it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** Runs one REST request for a tool (with extra headers); resolves the status, response headers and parsed JSON body. */
export type Dispatch = (req: ToolRequest, headers?: Record<string, string>) => Promise<{ status: number; headers: Headers; body: unknown }>;

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
    const res = await fetch(url, { method: req.method, headers, ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}) });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = { text };
    }
    return { status: res.status, headers: res.headers, body };
  };
}

/**
 * Validates the arguments and runs the tool. 2xx → `structuredContent`; 4xx/5xx problem → `isError: true` with the
 * problem in `structuredContent` and its title and detail as text.
 * @throws McpError InvalidParams for an unknown tool or arguments its input schema refuses (JSON-RPC errors).
 */
export async function callTool(name: string, args: unknown, dispatch: Dispatch, meta?: Record<string, unknown>): Promise<ToolResult> {
  const tool = findTool(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`, {
      errors: parsed.error.issues.slice(0, 20).map((i) => ({ param: i.path.join('.'), message: i.message })),
    });
  }
  const payment = tool.paid ? meta?.[X402_PAYMENT_META] : undefined;
  let extra: Record<string, string> = {};
  if (payment !== undefined) {
    try {
      extra = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payment as Parameters<typeof encodePaymentSignatureHeader>[0]) };
    } catch {
      throw new McpError(ErrorCode.InvalidParams, `_meta["${X402_PAYMENT_META}"] is not an x402 PaymentPayload`);
    }
  }
  const { status, headers, body } = await dispatch(tool.request(args ?? {}), extra);
  const structured = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { result: body };
  if (status >= 200 && status < 300) {
    const settled = tool.paid ? headers.get('payment-response') : null;
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      ...(settled ? { _meta: { [X402_PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(settled) } } : {}),
    };
  }
  const required = tool.paid && status === 402 ? headers.get('payment-required') : null;
  if (required) {
    // x402 MCP transport: the PaymentRequired object is the structured content of an isError result.
    const paymentRequired = decodePaymentRequiredHeader(required) as unknown as Record<string, unknown>;
    return {
      content: [{ type: 'text', text: `Payment required: pay with x402 and retry with _meta["${X402_PAYMENT_META}"]. ${JSON.stringify(paymentRequired)}` }],
      structuredContent: paymentRequired,
      isError: true,
    };
  }
  const title = typeof structured.title === 'string' ? structured.title : `HTTP ${status}`;
  const detail = typeof structured.detail === 'string' ? `: ${structured.detail}` : '';
  return { content: [{ type: 'text', text: `${title}${detail} (HTTP ${status}, code ${String(structured.code ?? 'unknown')})` }], structuredContent: structured, isError: true };
}

/** A fresh SDK server for one request (the SDK's stateless pattern). */
function sdkServer(dispatch: Dispatch): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() as never }));
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(req.params.name, req.params.arguments, dispatch, req.params._meta));
  return server;
}

type JsonRpcId = string | number | null;
const rpcError = (id: JsonRpcId, code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
const rpcResult = (id: JsonRpcId, result: unknown) => ({ jsonrpc: '2.0', id, result });

/** True when the request speaks the stateless 2026-07-28 revision (by header or by method). */
export function isStatelessRequest(ctx: Context, body: unknown): boolean {
  const method = (body as { method?: unknown } | null)?.method;
  return ctx.get('mcp-protocol-version') === STATELESS_PROTOCOL_VERSION || method === 'server/discover';
}

/**
 * The 2026-07-28 style: no `initialize`, one JSON-RPC request per POST; `server/discover`, `ping`, `tools/list`,
 * `tools/call`. A `_meta` protocol version must match the header; unknown methods answer HTTP 404 with -32601.
 */
export async function handleStateless(ctx: Context, body: unknown, dispatch: Dispatch): Promise<void> {
  ctx.type = 'application/json';
  ctx.set('MCP-Protocol-Version', STATELESS_PROTOCOL_VERSION);
  const msg = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown>; name?: unknown; arguments?: unknown } } | null;
  const id: JsonRpcId = typeof msg?.id === 'string' || typeof msg?.id === 'number' ? msg.id : null;
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    ctx.status = 400;
    ctx.body = rpcError(id, ErrorCode.InvalidRequest, 'Send one JSON-RPC 2.0 request per POST');
    return;
  }
  const header = ctx.get('mcp-protocol-version');
  const metaVersion = msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? msg.params?._meta?.protocolVersion;
  if (typeof metaVersion === 'string' && header && metaVersion !== header) {
    ctx.status = 400;
    ctx.body = rpcError(id, ErrorCode.InvalidRequest, `MCP-Protocol-Version ${header} does not match _meta protocol version ${metaVersion}`);
    return;
  }
  if (msg.id === undefined) {
    ctx.status = 202;
    ctx.body = null;
    return;
  }
  ctx.status = 200;
  switch (msg.method) {
    case 'server/discover':
      ctx.body = rpcResult(id, {
        protocolVersion: STATELESS_PROTOCOL_VERSION,
        supportedVersions: [STATELESS_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
        serverInfo: SERVER_INFO,
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        tools: toolList(),
      });
      return;
    case 'ping':
      ctx.body = rpcResult(id, {});
      return;
    case 'tools/list':
      ctx.body = rpcResult(id, { tools: toolList() });
      return;
    case 'tools/call':
      try {
        ctx.body = rpcResult(id, await callTool(String(msg.params?.name ?? ''), msg.params?.arguments, dispatch, msg.params?._meta));
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        ctx.body = rpcError(id, err.code, err.message, err.data);
      }
      return;
    default:
      ctx.status = 404;
      ctx.body = rpcError(id, ErrorCode.MethodNotFound, `Method not found: ${msg.method}`);
  }
}

/**
 * Hands the request to the SDK (2025-11-25 and earlier): a new Server and a stateless transport
 * (`sessionIdGenerator: undefined`, JSON responses), closed when the response ends.
 */
export async function handleWithSdk(ctx: Context, body: unknown, dispatch: Dispatch): Promise<void> {
  const server = sdkServer(dispatch);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  ctx.respond = false;
  await transport.handleRequest(ctx.req, ctx.res, body);
}

