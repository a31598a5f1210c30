/**
 * Request telemetry of this API process: the raw material of the paid observation feed (`/x402/obs/*`, seed §2.13,
 * issue 3 §5).
 *
 * Decision: kept in memory, per process, in a bounded ring buffer (default 100,000 requests, at most 24 hours), not
 * in MongoDB. Reasons: recording must cost nothing on the request path (no write per request), and the feed is a
 * sample of recent behaviour, not an archive. Limits, stated in every reading: the data starts at process start (a
 * restart empties it), each API replica sees only its own traffic, and when the buffer is full the oldest requests
 * are dropped first.
 *
 * What is kept per request: time, method, matched route pattern (`/x402/item/:id`, not the concrete path, so ids are
 * not stored), status, user-agent product token, whether the caller looks like an agent, and an identity: the
 * `X-Agent-Id` header or the `agent_id` query parameter when sent, otherwise a salted hash of client IP and
 * User-Agent (the salt is random per process, so identities cannot be joined across restarts or with other data).
 * Excluded: CORS preflights (OPTIONS) and `/health` (probes, not visitors).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Context, Middleware } from 'koa';

/** One recorded request. `at` in epoch milliseconds. */
export interface RequestRecord {
  at: number;
  method: string;
  /** Matched route pattern, or `(unmatched)`. */
  route: string;
  status: number;
  /** First product token of the User-Agent, e.g. `python-requests`, `curl`, `Mozilla`; `(none)` without one. */
  client: string;
  /** True when the caller is not a browser: agents, scripts, SDKs, crawlers. */
  agent: boolean;
  /** Stable identity within this process (see the module comment). */
  identity: string;
  /** True when the identity came from the caller (`X-Agent-Id` / `agent_id`), false when derived from IP and UA. */
  declared_identity: boolean;
  /** The request carried a PAYMENT-SIGNATURE header. */
  paid_attempt: boolean;
}

/** Options of {@link RequestTelemetry}. */
export interface TelemetryOptions {
  capacity?: number;
  /** Records older than this are dropped, ms. Default 24 h. */
  retentionMs?: number;
  now?: () => number;
}

/** Tokens that mark automated clients even when the UA starts with Mozilla/ (crawler and AI agent UAs do). */
const AGENT_HINTS =
  /(bot|crawler|spider|agent|gpt|claude|anthropic|openai|perplexity|python|curl|wget|node|undici|axios|go-http|okhttp|java|httpx|aiohttp|x402|langchain|llama|headless)/i;

/** Classifies a User-Agent: its first product token and whether it looks automated. */
export function classifyUserAgent(ua: string): { client: string; agent: boolean } {
  const trimmed = ua.trim();
  if (!trimmed) return { client: '(none)', agent: true };
  const client = (trimmed.split(/[\s/;(]/)[0] ?? '(none)').slice(0, 40) || '(none)';
  const browser = /^Mozilla\//.test(trimmed) && !AGENT_HINTS.test(trimmed);
  return { client, agent: !browser };
}

/**
 * The in-memory telemetry store and its Koa middleware. The ring is kept in columns (typed arrays for numbers and
 * flags, arrays of shared strings) rather than one object per request: in a heap snapshot of the API the full ring
 * was 100,001 record objects (most of its 12 MB of plain objects), and every request left a long-lived object behind
 * for the garbage collector (issue 9 §3).
 */
export class RequestTelemetry {
  readonly capacity: number;
  readonly retentionMs: number;
  /** Process start (epoch ms): the beginning of the data. */
  readonly since: number;
  private readonly at: Float64Array;
  private readonly status: Uint16Array;
  /** Bit 0: agent, bit 1: declared identity, bit 2: paid attempt. */
  private readonly flags: Uint8Array;
  private readonly methods: string[];
  private readonly routes: string[];
  private readonly clients: string[];
  private readonly identitiesAt: string[];
  private next = 0;
  private size = 0;
  private dropped = 0;
  private readonly salt = randomBytes(16);
  private readonly identities = new Map<string, string>();
  private readonly userAgents = new Map<string, { client: string; agent: boolean }>();
  private readonly now: () => number;

  constructor(opts: TelemetryOptions = {}) {
    this.capacity = opts.capacity ?? 100_000;
    this.retentionMs = opts.retentionMs ?? 24 * 3600 * 1000;
    this.now = opts.now ?? Date.now;
    this.since = this.now();
    this.at = new Float64Array(this.capacity);
    this.status = new Uint16Array(this.capacity);
    this.flags = new Uint8Array(this.capacity);
    this.methods = new Array<string>(this.capacity).fill('');
    this.routes = new Array<string>(this.capacity).fill('');
    this.clients = new Array<string>(this.capacity).fill('');
    this.identitiesAt = new Array<string>(this.capacity).fill('');
  }

  /** Records one request. */
  record(r: RequestRecord): void {
    this.put(r.at, r.method, r.route, r.status, r.client, r.agent, r.identity, r.declared_identity, r.paid_attempt);
  }

  private put(
    at: number,
    method: string,
    route: string,
    status: number,
    client: string,
    agent: boolean,
    identity: string,
    declared: boolean,
    paid: boolean,
  ): void {
    if (this.size === this.capacity) this.dropped++;
    const i = this.next;
    this.at[i] = at;
    this.status[i] = status;
    this.flags[i] = (agent ? 1 : 0) | (declared ? 2 : 0) | (paid ? 4 : 0);
    this.methods[i] = method;
    this.routes[i] = route;
    this.clients[i] = client;
    this.identitiesAt[i] = identity;
    this.next = (i + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** Records within the last `windowMs` (and the retention), oldest first. */
  window(windowMs: number): RequestRecord[] {
    const from = this.now() - Math.min(windowMs, this.retentionMs);
    const out: RequestRecord[] = [];
    for (let n = 0; n < this.size; n++) {
      const i = (this.next - this.size + n + this.capacity) % this.capacity;
      const at = this.at[i] as number;
      if (at < from) continue;
      const flags = this.flags[i] as number;
      out.push({
        at,
        method: this.methods[i] as string,
        route: this.routes[i] as string,
        status: this.status[i] as number,
        client: this.clients[i] as string,
        agent: (flags & 1) !== 0,
        identity: this.identitiesAt[i] as string,
        declared_identity: (flags & 2) !== 0,
        paid_attempt: (flags & 4) !== 0,
      });
    }
    return out;
  }

  /** Counters for the methodology: size, capacity, how many records the full buffer dropped. */
  stats(): { stored: number; capacity: number; dropped: number; since: string; retention_hours: number } {
    return {
      stored: this.size,
      capacity: this.capacity,
      dropped: this.dropped,
      since: new Date(this.since).toISOString(),
      retention_hours: this.retentionMs / 3_600_000,
    };
  }

  /** {@link classifyUserAgent}, remembered per User-Agent string (clients repeat theirs; the regexes cost). */
  private classify(ua: string): { client: string; agent: boolean } {
    let hit = this.userAgents.get(ua);
    if (!hit) {
      hit = classifyUserAgent(ua);
      if (this.userAgents.size >= 10_000) this.userAgents.clear();
      this.userAgents.set(ua, hit);
    }
    return hit;
  }

  /**
   * Identity of a request: the declared agent id (`X-Agent-Id`, else the `agent_id` query parameter), else a salted
   * hash of client IP and User-Agent.
   */
  identityOf(declaredId: string, ip: string, userAgent: string): { identity: string; declared: boolean } {
    if (declaredId) return { identity: `agent:${declaredId.slice(0, 128)}`, declared: true };
    const key = `${ip}\n${userAgent}`;
    let identity = this.identities.get(key);
    if (!identity) {
      identity = `anon:${createHash('sha256').update(this.salt).update(key).digest('hex').slice(0, 16)}`;
      // A hash per request was a measurable share of a cached GET; clients repeat, so keep the recent ones.
      if (this.identities.size >= 10_000) this.identities.clear();
      this.identities.set(key, identity);
    }
    return { identity, declared: false };
  }

  /** Koa middleware recording every request after it was answered (mount before the routers). */
  middleware(): Middleware {
    return async (ctx, next) => {
      try {
        await next();
      } finally {
        this.observe(ctx);
      }
    };
  }

  /** Records an answered request (what {@link middleware} does after the chain). */
  observe(ctx: Context): void {
    const agentId = ctx.query.agent_id;
    this.observeRequest(
      ctx.method,
      ctx.path,
      ctx.req.headers,
      ctx.ip,
      typeof agentId === 'string' ? agentId : '',
      (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute,
      ctx.status,
    );
  }

  /**
   * Records an answered request from its parts, for answers given without a Koa context (the response cache).
   * @param queryAgentId the `agent_id` query parameter when sent once, else ''.
   * @param matchedRoute the router's pattern; anything but a string counts as `(unmatched)`.
   */
  observeRequest(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    ip: string,
    queryAgentId: string,
    matchedRoute: unknown,
    status: number,
  ): void {
    if (method === 'OPTIONS' || path === '/health') return;
    const userAgent = headers['user-agent'] ?? '';
    const ua = this.classify(userAgent);
    const xAgentId = headers['x-agent-id'];
    const id = this.identityOf((typeof xAgentId === 'string' ? xAgentId : '') || queryAgentId, ip, userAgent);
    this.put(
      this.now(),
      method,
      typeof matchedRoute === 'string' ? matchedRoute : '(unmatched)',
      status,
      ua.client,
      ua.agent,
      id.identity,
      id.declared,
      Boolean(headers['payment-signature']),
    );
  }
}
