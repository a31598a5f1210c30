import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Middleware } from 'koa';
import { requestIdOf } from '../telemetry/logger';

/** A JSON response body serialized once, with a strong ETag over its bytes. */
export interface CachedJson {
  bytes: Buffer;
  etag: string;
}

/** Serializes `value` once (UTF-8 JSON) and derives its ETag (sha256, base64url, first 27 characters). */
export function cachedJson(value: unknown): CachedJson {
  const bytes = Buffer.from(JSON.stringify(value), 'utf8');
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

/**
 * True when an `If-None-Match` header names `etag` (RFC 9110 §13.1.2: weak comparison, `*` matches). Not Koa's
 * `ctx.fresh`: that one ignores the header when the request says `Cache-Control: no-cache` (jshttp/fresh#16), which
 * fetch() adds to every conditional request, while an origin server should still answer 304.
 */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => opaque(t) === opaque(etag));
}

/** Marks the response being written as the same for every caller of this URL for `ttlMs` (see {@link ResponseCache}). */
export function markShared(ctx: Context, ttlMs: number): void {
  (ctx.state as { sharedResponseTtlMs?: number }).sharedResponseTtlMs = ttlMs;
}

/**
 * Sends a cached JSON body with its ETag; answers 304 Not Modified when the client's `If-None-Match` matches. The
 * answer is the same for every caller of the URL, so it is marked shared for `ttlMs`.
 */
export function sendCachedJson(ctx: Context, body: CachedJson, ttlMs = 60_000): void {
  markShared(ctx, ttlMs);
  ctx.set('ETag', body.etag);
  if (etagMatches(ctx.get('if-none-match'), body.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body.bytes;
}

/**
 * Serialized bodies by key (e.g. a normalized query string), for GET routes whose answer depends only on the key:
 * the catalogue, discovery, the micro catalogue (issue 9 §3: within 90 % of a bare Koa app). Bounded: past
 * `maxEntries` the oldest entry goes.
 */
export class JsonMemo {
  private readonly entries = new Map<string, CachedJson>();

  constructor(private readonly maxEntries = 256) {}

  /** The cached body for `key`, built with `build` on first use. */
  get(key: string, build: () => unknown): CachedJson {
    let hit = this.entries.get(key);
    if (!hit) {
      hit = cachedJson(build());
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, hit);
    }
    return hit;
  }
}

/** How long past its TTL an entry may be served while one request refreshes it (at most its TTL again). */
export const STALE_GRACE_MS = 10_000;

/**
 * Response headers not replayed from the cache: framing, and the RateLimit fields, which describe the budget of the
 * request that filled the entry (a hit is not counted, draft-ietf-httpapi-ratelimit-headers).
 */
const UNSHARED_RESPONSE_HEADERS = new Set(['content-length', 'date', 'ratelimit', 'ratelimit-policy', 'x-request-id']);

/** What {@link ResponseCache.wrap}'s handler returns for a hit: one settled promise, not one per hit. */
const ANSWERED = Promise.resolve();

/** Headers a 304 does not carry (what Koa strips from an empty response). */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding']);

interface SharedResponse {
  until: number;
  /** After `until` and before this, the entry is still served while one request refreshes it. */
  staleUntil: number;
  refreshing: boolean;
  status: number;
  /** Every header of the answer, Content-Length included. */
  headers: Record<string, string>;
  /** The headers of a 304 Not Modified for it. */
  notModifiedHeaders: Record<string, string>;
  body: Buffer;
  etag: string | undefined;
  /** The router's matched pattern, handed to the telemetry. */
  route: unknown;
}

/** What a cache hit hands to the telemetry recorders (no Koa context is built for it). */
export interface CacheHit {
  req: IncomingMessage;
  /** Path without the query string. */
  path: string;
  status: number;
  /** The router's pattern that produced the entry (`/x402/item/:id`). */
  route: unknown;
  /** `process.hrtime.bigint()` when the request reached the cache. */
  startedAt: bigint;
  /** The hit's request id, returned as its `X-Request-Id` (issue 27 §5). */
  requestId: string;
}

/** True when the request carries a payment or a credential: its answer is its own, never a shared one. */
function carriesCredential(h: IncomingHttpHeaders): boolean {
  return Boolean(h.authorization || h['payment-signature'] || h['x-payment'] || h['x-operator-key'] || h.cookie);
}

/**
 * A micro-cache of public GET answers that routes marked shared ({@link markShared}): the catalogue, discovery, the
 * micro catalogue and bare 402 challenges. The first request of a URL runs the whole chain (validation, the route);
 * later ones, within the route's TTL, are answered by {@link serve} straight from Node's request handler, before Koa
 * builds a context (issue 9 §3: the hit costs less than a bare Koa app answering the same bytes), with the same
 * status, headers and bytes (304 when the client holds the ETag). Once expired, one request refreshes an entry while
 * the others are still served the old answer, for at most {@link STALE_GRACE_MS} more. Only anonymous GETs: a request
 * carrying a payment or a credential always runs the whole chain. Bounded: past `maxEntries` URLs the oldest goes.
 * Source: issue 9 §3.
 */
export class ResponseCache {
  private readonly entries = new Map<string, SharedResponse>();

  /**
   * @param onHit called once a hit is answered (the telemetry recorders).
   * @param maxEntries URLs kept at most.
   */
  constructor(
    private readonly onHit: (hit: CacheHit) => void = () => undefined,
    private readonly maxEntries = 2_000,
  ) {}

  /**
   * Answers `req` from the cache when an entry is fresh (or stale while another request refreshes it), without Koa.
   * @returns true when it answered; false when the request must run the whole chain.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || carriesCredential(req.headers)) return false;
    const url = req.url ?? '';
    const hit = this.entries.get(url);
    if (!hit) return false;
    const now = Date.now();
    if (!(hit.until > now || (hit.refreshing && hit.staleUntil > now))) return false;
    const startedAt = process.hrtime.bigint();
    // Each hit is a request of its own: its own id (the stored headers hold none).
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    const ifNoneMatch = req.headers['if-none-match'];
    let status = hit.status;
    if (hit.etag && ifNoneMatch && etagMatches(ifNoneMatch, hit.etag)) {
      status = 304;
      res.writeHead(304, hit.notModifiedHeaders).end();
    } else {
      res.writeHead(status, hit.headers).end(hit.body);
    }
    const q = url.indexOf('?');
    try {
      this.onHit({ req, path: q < 0 ? url : url.slice(0, q), status, route: hit.route, startedAt, requestId });
    } catch {
      // Telemetry must not take the process down: this runs outside Koa's error handling.
    }
    return true;
  }

  /** Wraps a Node request handler (Koa's `callback()`) so cache hits never reach it. */
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return (req, res) => (this.serve(req, res) ? ANSWERED : handler(req, res));
  }

  /**
   * Koa middleware (mount it first): stores the answers routes marked shared, and lets one request refresh an expired
   * entry while {@link serve} keeps answering the others with the stale copy.
   */
  middleware(): Middleware {
    return (ctx, next) => {
      if (ctx.method !== 'GET' || carriesCredential(ctx.req.headers)) return next();
      const hit = this.entries.get(ctx.url);
      const now = Date.now();
      if (hit && hit.until <= now && hit.staleUntil > now && !hit.refreshing) {
        // Expired: this request refreshes it; the others meanwhile get the stale copy (RFC 5861
        // stale-while-revalidate), so an expiry under load is not a stampede through every later layer.
        hit.refreshing = true;
        return next().then(
          () => {
            hit.refreshing = false;
            this.store(ctx);
          },
          (err: unknown) => {
            hit.refreshing = false;
            throw err;
          },
        );
      }
      return next().then(() => this.store(ctx));
    };
  }

  /** Keeps the answer just written when its route marked it shared ({@link markShared}). */
  private store(ctx: Context): void {
    const ttl = (ctx.state as { sharedResponseTtlMs?: number }).sharedResponseTtlMs;
    if (!ttl || ctx.status === 304 || ctx.body === undefined || ctx.body === null) return;
    const body = Buffer.isBuffer(ctx.body)
      ? ctx.body
      : typeof ctx.body === 'string'
        ? Buffer.from(ctx.body)
        : Buffer.from(JSON.stringify(ctx.body));
    const headers: Record<string, string> = {};
    const notModifiedHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.response.headers)) {
      if (UNSHARED_RESPONSE_HEADERS.has(k) || v === undefined) continue;
      const value = Array.isArray(v) ? v.join(', ') : String(v);
      headers[k] = value;
      if (!BODY_HEADERS.has(k)) notModifiedHeaders[k] = value;
    }
    headers['content-length'] = String(body.length);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const now = Date.now();
    this.entries.set(ctx.url, {
      until: now + ttl,
      staleUntil: now + ttl + Math.min(ttl, STALE_GRACE_MS),
      refreshing: false,
      status: ctx.status,
      headers,
      notModifiedHeaders,
      body,
      etag: ctx.response.get('etag') || undefined,
      route: (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute,
    });
  }
}
