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

/** Sends a cached JSON body with its ETag; answers 304 Not Modified when the client's `If-None-Match` matches. */
export function sendCachedJson(ctx: Context, body: CachedJson): void {
  ctx.set('ETag', body.etag);
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body.bytes;
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
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
