import { createHash } from 'node:crypto';
import type { Context } from 'koa';

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
 * `ctx.fresh`: that one ignores the header when the request says `Cache-Control: no-cache`, which fetch() adds to
 * every conditional request, while an origin server should still answer 304.
 */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => opaque(t) === opaque(etag));
}

/** Sends a cached JSON body with its ETag; answers 304 Not Modified when the client's `If-None-Match` matches. */
export function sendCachedJson(ctx: Context, body: CachedJson): void {
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
