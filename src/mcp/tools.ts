/**
 * The MCP tools: one per exposed API operation, built from the operation's definition (its `mcp` member; input = path
 * parameters + body or query + the credential argument; output = its 2xx JSON schema), and run by calling that REST
 * operation in-process (src/mcp/server.ts), so MCP and REST cannot drift apart.
 *
 * Source: issue 5 §3; seed §4 (operations), §2.2 to §2.10; ../shared/reference/api-conventions.md (MCP).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { OperationDefinition } from '../routes/operation';
import { orderOperations } from '../routes/api/orders/schema';
import { quoteOperations } from '../routes/api/quotes/schema';
import { walletOperations } from '../routes/api/wallets/schema';
import { webhookOperations } from '../routes/api/webhooks/schema';
import { discoveryOperations } from '../routes/api/discovery/schema';
import { procurementOperations } from '../routes/api/procurements/schema';
import { trustOperations } from '../routes/api/trust/schema';
import { x402Operations } from '../routes/api/x402/schema';
import { catalogueOperations } from '../routes/api/catalogue/schema';
import { checkoutOperations } from '../routes/api/checkout/schema';
import { ucpOperations } from '../routes/api/ucp/schema';
import { receptionistOperations } from '../routes/api/receptionists/schema';

/** The HTTP request a tool call becomes. `query` values are appended as a query string. */
export interface ToolRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>` instead of the MCP request's own Authorization header. */
  bearer?: string;
  /** Request headers (a protocol binding's `meta`: API-Version, Idempotency-Key, …). */
  headers?: Record<string, string>;
  /**
   * UCP binding: the profile the call's `meta["ucp-agent"]` names. The dispatch sends the request as the platform the
   * MCP request's own RFC 9421 signature proved (it must be this profile), src/http/ucp.ts `attestUcpLoopback`.
   */
  ucpProfile?: string;
}

/** Key of the x402 PaymentPayload in a tool call's `_meta` (x402 `specs/transports-v2/mcp.md`). */
export const X402_PAYMENT_META = 'x402/payment';
/** Key of the x402 settlement response in a paid tool result's `_meta`. */
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response';

/** One MCP tool: name, description, zod input (and output, when the REST answer has a schema) and its REST call. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output?: z.ZodType;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** Paid per call over x402: the REST resource answers 402 until `_meta["x402/payment"]` carries a payment. */
  paid?: boolean;
  /**
   * A checkout protocol's binding: only `envelope` (meta, id, the body being an object) is checked here, the body by
   * the REST operation itself; failures are JSON-RPC errors with the protocol's error as `data` (src/mcp/server.ts).
   */
  binding?: { protocol: 'acp' | 'ucp'; envelope: z.ZodType };
  /** Builds the REST request from the arguments as sent (validated, not transformed: the REST API parses them). */
  request(args: z.input<I>): ToolRequest;
}

const AgentKey = z.string().min(1).max(256).optional().meta({
  description:
    "The agent's wallet key (ak_...); sent as Authorization: Bearer. Default: the MCP request's Authorization header",
});
const BuyerKey = z.string().min(1).max(256).optional().meta({
  description:
    "The buyer's credential: the agent key (ak_...) of the order's agent_id, or the order secret (os_...) returned when an order without agent_id was created; sent as Authorization: Bearer. Default: the MCP request's Authorization header",
});
const enc = encodeURIComponent;
const without = <T extends Record<string, unknown>>(o: T, ...keys: string[]) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** The first 2xx JSON schema of an operation: the tool's output schema. */
function successSchema(def: OperationDefinition): z.ZodType | undefined {
  const ok = Object.entries(def.responses)
    .filter(([status]) => status.startsWith('2'))
    .sort(([a], [b]) => a.localeCompare(b));
  return ok.find(([, r]) => r.json)?.[1].json;
}

/** ACP's `meta` (openrpc.agentic_checkout.json `components.schemas.meta`): the HTTP headers of a REST call. */
const AcpMeta = z
  .looseObject({
    api_version: z.string().min(1).max(64).meta({ description: 'ACP version (2026-04-17); the API-Version header' }),
    idempotency_key: z.string().min(1).max(255).optional().meta({
      description:
        'The Idempotency-Key header; a retry with the same key answers as the first call did (a fresh key when omitted)',
    }),
    request_id: z.string().max(255).optional(),
    user_agent: z.string().max(512).optional(),
    accept_language: z.string().max(255).optional(),
    signature: z.string().max(512).optional().meta({
      description:
        'Required when the platform registered a key: Signature over `<timestamp>.<RFC 8785 JSON of payload>` (`{}` without payload)',
    }),
    timestamp: z.string().max(64).optional().meta({ description: 'RFC 3339; the Timestamp header' }),
  })
  .meta({
    description:
      'Protocol metadata mapped from ACP HTTP headers (the platform API key is the MCP request’s Authorization)',
  });

/** UCP's `meta` (mcp.openrpc.json `components.schemas.meta`); `required` adds `idempotency-key` (complete, cancel). */
const ucpMeta = (keyRequired: boolean) =>
  z
    .looseObject({
      'ucp-agent': z.looseObject({
        profile: z.string().min(1).max(2_048).meta({ description: "URL of the platform's UCP profile" }),
      }),
      'idempotency-key': keyRequired ? z.string().min(1).max(255) : z.string().min(1).max(255).optional(),
    })
    .meta({
      description:
        'UCP request metadata; the MCP request itself is signed (RFC 9421) by a key of this profile, with the UCP-Agent header',
    });

/** ACP's request headers of a binding call's `meta`. */
function acpHeaders(meta: Record<string, unknown>, post: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  const put = (name: string, v: unknown) => {
    if (typeof v === 'string') h[name] = v;
  };
  put('API-Version', meta.api_version);
  put('Idempotency-Key', meta.idempotency_key ?? (post ? `mcp_${randomUUID()}` : undefined));
  put('Request-Id', meta.request_id);
  put('User-Agent', meta.user_agent);
  put('Accept-Language', meta.accept_language);
  put('Signature', meta.signature);
  put('Timestamp', meta.timestamp);
  return h;
}

/**
 * The tool of an operation offered through a checkout protocol's MCP binding (`def.mcp.binding`): arguments `meta`,
 * `id` (when the path has a parameter) and the JSON body under `payload` (ACP) or `checkout` (UCP); the request is
 * the REST operation with the body as sent and `meta` as its headers, so MCP and REST share one implementation.
 */
function bindingToolOf(def: OperationDefinition, m: NonNullable<OperationDefinition['mcp']>): ToolDefinition {
  const protocol = m.binding as 'acp' | 'ucp';
  const bodyArg = protocol === 'acp' ? 'payload' : 'checkout';
  const hasId = def.path.includes('{');
  const body = def.request?.body as z.ZodObject | undefined;
  const bodyOptional = def.id === 'cancelCheckoutSession' || def.id === 'ucpCancelCheckout';
  const meta = protocol === 'acp' ? AcpMeta : ucpMeta(bodyOptional || def.id === 'ucpCompleteCheckout');
  const params = def.request?.params as z.ZodObject | undefined;
  const id =
    (params?.shape.id as z.ZodString | undefined) ??
    z.string().min(1).max(128).meta({ description: 'The checkout session id (cs_...)' });
  const shape = {
    meta,
    ...(hasId ? { id } : {}),
    ...(body && !(protocol === 'ucp' && bodyOptional) ? { [bodyArg]: bodyOptional ? body.optional() : body } : {}),
  };
  const envelopeShape = {
    meta,
    ...(hasId ? { id } : {}),
    ...(body ? { [bodyArg]: bodyOptional ? z.looseObject({}).optional() : z.looseObject({}) } : {}),
  };
  const output = m.output === false ? undefined : (m.output ?? successSchema(def));
  return {
    name: m.name,
    title: m.title,
    description: m.description,
    input: z.object(shape),
    ...(output ? { output } : {}),
    annotations: m.annotations,
    binding: { protocol, envelope: z.object(envelopeShape) },
    request(args) {
      const a = args as Record<string, unknown>;
      const metaArg = (a.meta ?? {}) as Record<string, unknown>;
      const path = def.path.replace(/\{[A-Za-z0-9_]+\}/, () => enc(String(a.id ?? '')));
      const method = def.method.toUpperCase() as ToolRequest['method'];
      const sent = def.method === 'get' ? undefined : (a[bodyArg] ?? {});
      if (protocol === 'acp')
        return { method, path, headers: acpHeaders(metaArg, method !== 'GET'), ...(sent ? { body: sent } : {}) };
      const agent = (metaArg['ucp-agent'] ?? {}) as { profile?: unknown };
      const key = metaArg['idempotency-key'];
      return {
        method,
        path,
        headers: {
          ...(typeof key === 'string'
            ? { 'Idempotency-Key': key }
            : method !== 'GET'
              ? { 'Idempotency-Key': randomUUID() }
              : {}),
        },
        ucpProfile: String(agent.profile ?? ''),
        ...(sent ? { body: sent } : {}),
      };
    },
  };
}

/**
 * The tool of an operation exposed to MCP (`def.mcp`): its input is the path parameters (renamed by `mcp.args`), the
 * body (POST) or query (GET), and `agent_key` when the operation takes a credential; its request fills the path with
 * those arguments and sends the rest as the body or query string, the credential as the Bearer token.
 */
export function toolOf(def: OperationDefinition): ToolDefinition {
  const m = def.mcp;
  if (!m) throw new Error(`${def.id} is not exposed as an MCP tool`);
  if (m.binding) return bindingToolOf(def, m);
  const argOf = (param: string) => Object.entries(m.args ?? {}).find(([, p]) => p === param)?.[0] ?? param;
  const params = def.request?.params;
  const paramShape = params ? Object.fromEntries(Object.entries(params.shape).map(([k, v]) => [argOf(k), v])) : {};
  const credential = m.credential === 'buyer' ? BuyerKey : m.credential === 'agent_key' ? AgentKey : undefined;
  const extra = { ...paramShape, ...(credential ? { agent_key: credential } : {}) };
  const payload = (def.method === 'get' ? def.request?.query : def.request?.body) as z.ZodObject | undefined;
  const input =
    m.input ??
    (!payload
      ? z.object(extra).strict()
      : Object.keys(extra).length === 0
        ? def.method === 'get'
          ? payload.strict()
          : payload
        : payload.extend(extra));
  const output = m.output === false ? undefined : (m.output ?? successSchema(def));
  return {
    name: m.name,
    title: m.title,
    description: m.description,
    input,
    ...(output ? { output } : {}),
    annotations: m.annotations,
    ...(m.paid ? { paid: true } : {}),
    request(args) {
      const a = args as Record<string, unknown>;
      const path = def.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, p: string) => enc(String(a[argOf(p)] ?? '')));
      const rest = without(a, ...Object.keys(extra));
      const bearer = credential && typeof a.agent_key === 'string' && a.agent_key ? { bearer: a.agent_key } : {};
      if (def.method === 'get')
        return { method: 'GET', path, ...(payload ? { query: rest as ToolRequest['query'] } : {}), ...bearer };
      return { method: 'POST', path, ...(payload ? { body: rest } : {}), ...bearer };
    },
  };
}

/** Every tool, in the order `tools/list` shows them (a purchase reads top to bottom). */
export const TOOLS: readonly ToolDefinition[] = [
  toolOf(catalogueOperations.services),
  toolOf(discoveryOperations.discover),
  toolOf(discoveryOperations.negotiate),
  toolOf(quoteOperations.create),
  toolOf(orderOperations.create),
  toolOf(orderOperations.get),
  toolOf(orderOperations.confirmPayment),
  toolOf(orderOperations.verify),
  toolOf(orderOperations.review),
  toolOf(procurementOperations.procure),
  toolOf(walletOperations.get),
  toolOf(trustOperations.status),
  toolOf(x402Operations.micro),
  toolOf(x402Operations.item),
  toolOf(webhookOperations.register),
  toolOf(webhookOperations.events),
  // ACP 2026-04-17's MCP binding (spec/2026-04-17/openrpc/openrpc.agentic_checkout.json).
  toolOf(checkoutOperations.create),
  toolOf(checkoutOperations.get),
  toolOf(checkoutOperations.update),
  toolOf(checkoutOperations.complete),
  toolOf(checkoutOperations.cancel),
  // UCP's checkout tools (source/services/shopping/mcp.openrpc.json); its whole binding is UCP_TOOLS, at /ucp/mcp.
  toolOf(ucpOperations.create),
  toolOf(ucpOperations.get),
  toolOf(ucpOperations.update),
  toolOf(ucpOperations.complete),
  toolOf(ucpOperations.cancel),
  // Issue 38 §1: a visitor (or an agent) talks to a hosted receptionist.
  toolOf(receptionistOperations.message),
];

type JsonObject = Record<string, unknown>;

/** Drops `additionalProperties: false` everywhere: an output schema describes answers, it must not break on a new field. */
function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (node && typeof node === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'additionalProperties' && v === false) continue;
      out[k] = openObjects(v);
    }
    return out;
  }
  return node;
}

/**
 * JSON Schema (draft-07, as the SDK's validator expects) of a zod object schema, with the root inlined so that it
 * has `type: "object"` as MCP requires. `io` picks the input side (defaults optional) or the output side.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const js = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonObject;
  delete js.$schema;
  const ref = js.$ref;
  const defs = js.definitions as Record<string, JsonObject> | undefined;
  if (typeof ref === 'string' && ref.startsWith('#/definitions/') && defs) {
    const root = defs[ref.slice('#/definitions/'.length)];
    delete js.$ref;
    if (root) Object.assign(js, root);
  }
  js.type = 'object';
  return io === 'output' ? (openObjects(js) as JsonObject) : js;
}

/**
 * UCP's shopping service over MCP as /.well-known/ucp names it (`/ucp/mcp`): its checkout tools and the order
 * capability's `get_order`, which on `/mcp` is the seed's own tool of that name (seed §4) with other arguments.
 */
export const UCP_TOOLS: readonly ToolDefinition[] = [
  ...TOOLS.filter((t) => t.binding?.protocol === 'ucp'),
  toolOf(ucpOperations.getOrder),
];

/** Which tools an MCP endpoint serves: `service` at `/mcp`, `ucp` at `/ucp/mcp`. */
export type ToolCatalog = 'service' | 'ucp';

const catalogTools = (catalog: ToolCatalog): readonly ToolDefinition[] => (catalog === 'ucp' ? UCP_TOOLS : TOOLS);

/** The `tools/list` entries of `catalog`, computed once. */
export function toolList(catalog: ToolCatalog = 'service'): JsonObject[] {
  const cached = listCache.get(catalog);
  if (cached) return cached;
  const list = catalogTools(catalog).map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolJsonSchema(t.input, 'input'),
    ...(t.output ? { outputSchema: toolJsonSchema(t.output, 'output') } : {}),
    annotations: { title: t.title, ...t.annotations },
  }));
  listCache.set(catalog, list);
  return list;
}
const listCache = new Map<ToolCatalog, JsonObject[]>();

/** The tool of `catalog` named `name`, if any. */
export function findTool(name: string, catalog: ToolCatalog = 'service'): ToolDefinition | undefined {
  return catalogTools(catalog).find((t) => t.name === name);
}
