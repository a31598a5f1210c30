/**
 * MCP resources, prompts and argument completion of the product (issue 12 §1), the same at both protocol revisions:
 * the catalogue, the micro catalogue and the webhook event catalogue as resources, one service, an order and each of
 * its deliverables through URI templates; prompts that walk an agent through a purchase; completion of service ids
 * and capabilities. Resources are read through the REST operation (like tools), and their caching hints come from
 * its Cache-Control header.
 *
 * Source: issue 12 §1; MCP 2025-11-25 server/resources, server/prompts, server/utilities/completion; SEP-2164
 * (unknown resource: -32602 with data.uri); SEP-2549 (ttlMs, cacheScope).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { SERVICES, SERVICE_IDS } from '../domain/catalogue';
import type { ToolRequest } from './tools';

/** Answer of one in-process REST request: status, headers, parsed JSON body (or null) and the raw bytes. */
export interface DispatchResult {
  status: number;
  headers: Headers;
  body: unknown;
  bytes: Buffer;
}
/** Runs one REST request (with extra headers) against the server that received the MCP request. */
export type Dispatch = (req: ToolRequest, headers?: Record<string, string>) => Promise<DispatchResult>;

/** SEP-2549 caching hints of a result. */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}
/** Hints of the list results (tools, prompts, resources, templates): fixed per deployment, so public. */
export const LIST_HINTS: CacheHints = { ttlMs: 300_000, cacheScope: 'public' };

/** Caching hints from a REST Cache-Control header: `public, max-age=60` → public 60 s; anything else private (0 unless `private, max-age`). */
export function hintsFromCacheControl(value: string | null): CacheHints {
  const v = (value ?? '').toLowerCase();
  const maxAge = /max-age=(\d+)/.exec(v);
  if (v.includes('no-store') || !maxAge) return { ttlMs: 0, cacheScope: 'private' };
  return { ttlMs: Number(maxAge[1]) * 1000, cacheScope: v.includes('public') ? 'public' : 'private' };
}

/** One resource content as MCP defines it. */
export interface ResourceContent {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
}
/** A `resources/read` answer before its protocol envelope: contents and caching hints. */
export interface ReadResult {
  contents: ResourceContent[];
  hints: CacheHints;
}

const SCHEME = 'agent-commerce://';
const JSON_TYPE = 'application/json';

/** The fixed resources: `resources/list`. */
export const RESOURCES = [
  {
    uri: `${SCHEME}catalogue`,
    name: 'catalogue',
    title: 'Service catalogue',
    description:
      'Every service with agent prices, capabilities, negative constraints, payment rails and inputs (GET /api/v1/services).',
    mimeType: JSON_TYPE,
  },
  {
    uri: `${SCHEME}micro-catalogue`,
    name: 'micro-catalogue',
    title: 'Micro catalogue',
    description: 'Items sold per request over x402 (GET /api/v1/x402/micro).',
    mimeType: JSON_TYPE,
  },
  {
    uri: `${SCHEME}webhook-events`,
    name: 'webhook-events',
    title: 'Webhook event catalogue',
    description: 'Every webhook event type, the signing scheme and the retry schedule (GET /api/v1/webhooks/events).',
    mimeType: JSON_TYPE,
  },
] as const;
const RESOURCE_PATHS: Record<string, string> = {
  [`${SCHEME}catalogue`]: '/api/v1/services',
  [`${SCHEME}micro-catalogue`]: '/api/v1/x402/micro',
  [`${SCHEME}webhook-events`]: '/api/v1/webhooks/events',
};

/** The URI templates: `resources/templates/list`. Orders and deliverables need the buyer's credential (Authorization). */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${SCHEME}services/{service_id}`,
    name: 'service',
    title: 'One service',
    description: 'One catalogue entry by service id.',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: `${SCHEME}orders/{order_id}`,
    name: 'order',
    title: 'An order',
    description:
      "An order's status, payment and deliverables (GET /api/v1/orders/{order_id}); the buyer's credential as Authorization.",
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: `${SCHEME}orders/{order_id}/deliverables/{name}`,
    name: 'deliverable',
    title: 'A deliverable of an order',
    description:
      'The bytes of one deliverable (GET /api/v1/orders/{order_id}/deliverables/{name}); text as text, anything else as base64 blob.',
  },
] as const;

const TEMPLATE_PATTERNS: {
  re: RegExp;
  path: (m: string[]) => string;
  pick?: (body: unknown, m: string[]) => unknown;
}[] = [
  {
    re: /^agent-commerce:\/\/services\/([^/]+)$/,
    path: () => '/api/v1/services',
    pick: (body, m) => ((body as { services?: { id: string }[] })?.services ?? []).find((s) => s.id === m[1]),
  },
  { re: /^agent-commerce:\/\/orders\/([^/]+)$/, path: (m) => `/api/v1/orders/${m[1]}` },
  {
    re: /^agent-commerce:\/\/orders\/([^/]+)\/deliverables\/([^/]+)$/,
    path: (m) => `/api/v1/orders/${m[1]}/deliverables/${m[2]}`,
  },
];

const notFound = (uri: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Resource not found', { uri });
const isText = (type: string) => /^text\/|[/+]json\b|[/+]xml\b|^application\/(javascript|yaml)/.test(type);

/**
 * Reads a product resource through its REST operation.
 * @returns contents (JSON and text as `text`, other bytes as base64 `blob`) and caching hints from Cache-Control
 * @throws ProtocolError -32602 `Resource not found` with `data.uri` for an unknown URI or a 404; -32602 with the problem
 *   (`data.status`, `data.code`) for other refusals (401/403 without the buyer's credential)
 */
export async function readResource(uri: string, dispatch: Dispatch): Promise<ReadResult> {
  let path = RESOURCE_PATHS[uri];
  let pick: ((body: unknown) => unknown) | undefined;
  if (!path) {
    for (const t of TEMPLATE_PATTERNS) {
      const m = t.re.exec(uri);
      if (!m) continue;
      let parts: string[];
      try {
        parts = m.map((s) => decodeURIComponent(s));
      } catch {
        throw notFound(uri);
      }
      path = t.path(parts.map((s) => encodeURIComponent(s)));
      if (t.pick) pick = (b) => t.pick!(b, parts);
      break;
    }
  }
  if (!path) throw notFound(uri);
  const res = await dispatch({ method: 'GET', path });
  if (res.status === 404) throw notFound(uri);
  if (res.status < 200 || res.status >= 300) {
    const p = (res.body ?? {}) as { title?: string; detail?: string; code?: string };
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${p.title ?? `HTTP ${res.status}`}${p.detail ? `: ${p.detail}` : ''}`,
      {
        uri,
        status: res.status,
        code: p.code,
      },
    );
  }
  const hints = hintsFromCacheControl(res.headers.get('cache-control'));
  const type = (res.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
  if (pick) {
    const item = pick(res.body);
    if (item === undefined) throw notFound(uri);
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(item) }], hints };
  }
  if (isText(type)) return { contents: [{ uri, mimeType: type, text: res.bytes.toString('utf8') }], hints };
  return { contents: [{ uri, mimeType: type, blob: res.bytes.toString('base64') }], hints };
}

/** A prompt argument as MCP lists it. */
export interface PromptArgument {
  name: string;
  description: string;
  required?: boolean;
}
/** A prompt message (text only here). */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: { type: 'text'; text: string } | Record<string, unknown>;
}
interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  render(args: Record<string, string>): PromptMessage[];
}

const user = (text: string): PromptMessage => ({ role: 'user', content: { type: 'text', text } });

/** The product prompts: `prompts/list` and `prompts/get`. */
export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'procure_for_goal',
    title: 'Procure a service for this goal',
    description: 'Find and buy the automation service that meets a goal within a budget.',
    arguments: [
      { name: 'goal', description: 'What the service must achieve, in plain words', required: true },
      { name: 'budget', description: 'Highest price to pay, USD (default 100)' },
      { name: 'capability', description: 'A capability tag the service must have (completable)' },
    ],
    render: (a) => [
      user(
        [
          `Procure a service for this goal: ${a.goal}`,
          `Budget: ${a.budget ?? '100'} USD.${a.capability ? ` Required capability: ${a.capability}.` : ''}`,
          'Steps: 1. call procure with objective, budget and auto_purchase: false to see the plan and its quote',
          `(or discover_services${a.capability ? ` with capability "${a.capability}"` : ''} and compare); 2. if the plan fits, get_wallet for your agent_id,`,
          'then procure again with auto_purchase: true and agent_key, or create_order and confirm_payment; 3. follow the order with get_order',
          '(or read the resource agent-commerce://orders/{order_id}) until delivered; 4. verify_order, then review_order accept or reject.',
          'Errors are RFC 9457 problem details: read code and detail before retrying.',
        ].join('\n'),
      ),
    ],
  },
  {
    name: 'buy_service',
    title: 'Buy a catalogued service',
    description: 'Quote, order, pay from the agent wallet and follow one service to delivery.',
    arguments: [
      { name: 'service_id', description: 'Catalogued service id (completable)', required: true },
      { name: 'agent_id', description: 'The buying agent (its wallet pays)' },
    ],
    render: (a) => [
      user(
        [
          `Buy the service ${a.service_id}${a.agent_id ? ` for agent ${a.agent_id}` : ''}.`,
          `1. Read agent-commerce://services/${a.service_id} for its price and required inputs. 2. create_quote with service_id.`,
          '3. create_order with quote_id, agent_id and every required input. 4. get_wallet (the agent_key is shown once), then confirm_payment',
          'with rail agent_wallet and agent_key. 5. get_order until status is delivered; verify_order; review_order with the agent_key.',
        ].join('\n'),
      ),
    ],
  },
];

/** `prompts/list` entries. */
export function promptList(): Record<string, unknown>[] {
  return PROMPTS.map(({ name, title, description, arguments: args }) => ({
    name,
    title,
    description,
    arguments: args,
  }));
}

/**
 * `prompts/get` of a product prompt.
 * @returns the description and messages, or undefined when no product prompt has that name
 * @throws ProtocolError -32602 when a required argument is missing
 */
export function getPrompt(
  name: string,
  args: Record<string, unknown> = {},
): { description: string; messages: PromptMessage[] } | undefined {
  const p = PROMPTS.find((x) => x.name === name);
  if (!p) return undefined;
  const values: Record<string, string> = {};
  for (const a of p.arguments) {
    const v = args[a.name];
    if (v === undefined || v === '') {
      if (a.required)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Missing required argument ${a.name} for prompt ${name}`,
        );
      continue;
    }
    values[a.name] = String(v).slice(0, 2000);
  }
  return { description: p.description, messages: p.render(values) };
}

const CAPABILITIES = [...new Set(SERVICES.flatMap((s) => s.capabilities))].sort();

/** A completion reference (`ref/prompt` by name or `ref/resource` by URI template). */
export interface CompletionRef {
  type: string;
  name?: string;
  uri?: string;
}

/**
 * `completion/complete` for the enum-like arguments: service ids (prompt `buy_service`, template
 * `agent-commerce://services/{service_id}`) and capabilities (prompt `procure_for_goal`). Prefix match first, then
 * substring; at most 100 values. Any other argument completes to nothing.
 */
export function complete(
  ref: CompletionRef,
  argument: { name: string; value: string },
): { values: string[]; total: number; hasMore: boolean } {
  let pool: readonly string[] = [];
  if (
    argument.name === 'service_id' &&
    ((ref.type === 'ref/prompt' && ref.name === 'buy_service') ||
      (ref.type === 'ref/resource' && ref.uri === `${SCHEME}services/{service_id}`))
  )
    pool = SERVICE_IDS;
  if (argument.name === 'capability' && ref.type === 'ref/prompt' && ref.name === 'procure_for_goal')
    pool = CAPABILITIES;
  const v = (argument.value ?? '').toLowerCase();
  const matches = [
    ...pool.filter((x) => x.toLowerCase().startsWith(v)),
    ...pool.filter((x) => !x.toLowerCase().startsWith(v) && x.toLowerCase().includes(v)),
  ];
  return { values: matches.slice(0, 100), total: matches.length, hasMore: matches.length > 100 };
}

/** MCP logging levels, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** One MCP logging level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a handler knows about the request it serves, at either revision. */
export interface RequestContext {
  dispatch: Dispatch;
  /** `2025-11-25` (SDK, initialize) or `2026-07-28` (stateless, per-request `_meta`). */
  revision: string;
  /** The request's `params` (`_meta`, and at 2026-07-28 `inputResponses` and `requestState`). */
  params: Record<string, unknown>;
  /** Client capabilities: `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28) or from initialize (unknown when stateless). */
  clientCapabilities?: Record<string, unknown>;
  /** Sends a notification on the response stream (dropped when the answer is plain JSON). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** Sends `notifications/message` when the level passes the requested one (2026-07-28: `_meta` logLevel; else never). */
  log(level: LogLevel, data: unknown): Promise<void>;
}

/** A tool call result as MCP defines it. */
export interface ToolResult {
  [key: string]: unknown;
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}
