/**
 * The MCP tools: one per exposed API operation, built from the operation's definition (its `mcp` member; input = path
 * parameters + body or query + the credential argument; output = its 2xx JSON schema), and run by calling that REST
 * operation in-process (src/mcp/server.ts), so MCP and REST cannot drift apart.
 *
 * Source: issue 5 §3; seed §4 (operations), §2.2 to §2.10; ../shared/reference/api-conventions.md (MCP).
 */
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
import { receptionistOperations } from '../routes/api/receptionists/schema';

/** The HTTP request a tool call becomes. `query` values are appended as a query string. */
export interface ToolRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Sent as `Authorization: Bearer <token>` instead of the MCP request's own Authorization header. */
  bearer?: string;
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

/**
 * The tool of an operation exposed to MCP (`def.mcp`): its input is the path parameters (renamed by `mcp.args`), the
 * body (POST) or query (GET), and `agent_key` when the operation takes a credential; its request fills the path with
 * those arguments and sends the rest as the body or query string, the credential as the Bearer token.
 */
export function toolOf(def: OperationDefinition): ToolDefinition {
  const m = def.mcp;
  if (!m) throw new Error(`${def.id} is not exposed as an MCP tool`);
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

/** The `tools/list` entries, computed once. */
export function toolList(): JsonObject[] {
  listCache ??= TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolJsonSchema(t.input, 'input'),
    ...(t.output ? { outputSchema: toolJsonSchema(t.output, 'output') } : {}),
    annotations: { title: t.title, ...t.annotations },
  }));
  return listCache;
}
let listCache: JsonObject[] | undefined;

/** The tool named `name`, if any. */
export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}
