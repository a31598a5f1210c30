import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';

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
const UNSHARED_RESPONSE_HEADERS = new Set(['content-length', 'date', 'ratelimit', 'ratelimit-policy']);

/** Request headers that make an answer caller-specific: never served from or stored into the shared cache. */
const CREDENTIAL_HEADERS = ['payment-signature', 'x-payment', 'authorization', 'x-operator-key', 'cookie'];

interface SharedResponse {
  until: number;
  /** After `until` and before this, the entry is still served while one request refreshes it. */
  staleUntil: number;
  refreshing: boolean;
  status: number;
  headers: [string, string][];
  body: Buffer;
  etag: string | undefined;
  /** The router's matched pattern, restored on a hit for the telemetry that reads it. */
  route: unknown;
}

/**
 * A micro-cache of public GET answers that routes marked shared ({@link markShared}): the catalogue, discovery, the
 * micro catalogue and bare 402 challenges. The first request of a URL runs the whole chain (validation, the route);
 * later ones, within the route's TTL, are answered here with the same status, headers and bytes (304 when the
 * client holds the ETag), skipping every later layer. Once expired, one request refreshes an entry while the others
 * are still served the old answer, for at most {@link STALE_GRACE_MS} more. Mount it first: a hit is handed to `onHit` (the telemetry
 * recorders) once answered, a miss runs the chain, where the telemetry middlewares measure it as usual. Bounded: past
 * `maxEntries` URLs the oldest goes. Source: issue 9 §3.
 */
export class ResponseCache {
  private readonly entries = new Map<string, SharedResponse>();

  constructor(
    private readonly onHit: (ctx: Context, startedAt: bigint) => void = () => undefined,
    private readonly maxEntries = 2_000,
  ) {}

  middleware(): Middleware {
    // Not an async function: a hit answers without creating a promise (on Node 20 every promise also runs the
    // AsyncLocalStorage hooks that the Temporal client turns on).
    return (ctx, next) => {
      // Only anonymous GETs: a request carrying a payment or a credential always runs the whole chain.
      if (ctx.method !== 'GET' || CREDENTIAL_HEADERS.some((h) => ctx.get(h))) return next();
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
      if (hit && (hit.until > now || (hit.refreshing && hit.staleUntil > now))) {
        const startedAt = process.hrtime.bigint();
        (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute = hit.route;
        for (const [k, v] of hit.headers) ctx.set(k, v);
        if (hit.etag && etagMatches(ctx.get('if-none-match'), hit.etag)) {
          ctx.status = 304;
        } else {
          ctx.status = hit.status;
          ctx.body = hit.body;
        }
        this.onHit(ctx, startedAt);
        return;
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
    const headers = Object.entries(ctx.response.headers)
      .filter(([k]) => !UNSHARED_RESPONSE_HEADERS.has(k))
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)] as [string, string]);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const now = Date.now();
    this.entries.set(ctx.url, {
      until: now + ttl,
      staleUntil: now + ttl + Math.min(ttl, STALE_GRACE_MS),
      refreshing: false,
      status: ctx.status,
      headers,
      body,
      etag: ctx.response.get('etag') || undefined,
      route: (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute,
    });
  }
}
