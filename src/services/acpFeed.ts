/**
 * Pushes the catalogue's product feed to an agent platform's Feed API (ACP 2026-04-17 `openapi.feed.yaml`,
 * `rfc.product_feeds.md` §3.4 "API-Based Incremental Upserts"): the Feed API is hosted by the agent and the merchant
 * calls it. Creates the feed once (`POST /feeds`, the id is kept on the platform), then upserts every product
 * (`PATCH /feeds/{id}/products`, the whole current `Product` per id, as the RFC recommends). Decision 0039.
 */
import { randomUUID } from 'node:crypto';
import type { FeedProduct } from '../domain/acpFeed';
import { problem } from '../errors';

/** ACP version of the Feed API calls. */
const FEED_API_VERSION = '2026-04-17';
/** How long one Feed API call may take, ms. */
const FEED_TIMEOUT_MS = 10_000;

/** Where a platform takes its feed: its Feed API base URL, its credential and, once created, the feed id. */
export interface FeedTarget {
  url: string;
  apiKey?: string | undefined;
  feedId?: string | undefined;
  targetCountry: string;
}

/** The outcome of a push: the feed id (new or kept), whether the platform accepted the upsert, products sent. */
export interface FeedPushResult {
  feedId: string;
  created: boolean;
  accepted: boolean;
  pushed: number;
}

/**
 * Creates the platform's feed when `target.feedId` is absent (or the platform no longer knows it: 404), then upserts
 * `products` into it.
 * @throws ProblemError 424 `feed_push_failed` when the platform's Feed API answers an error, or no JSON, or times out
 */
export async function pushFeed(
  target: FeedTarget,
  products: readonly FeedProduct[],
  fetchFn: typeof fetch = fetch,
): Promise<FeedPushResult> {
  const base = target.url.replace(/\/+$/, '');
  const call = async (method: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
    let res: Response;
    try {
      res = await fetchFn(`${base}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'api-version': FEED_API_VERSION,
          'idempotency-key': randomUUID(),
          ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(FEED_TIMEOUT_MS),
      });
    } catch (err) {
      throw problem('feed_push_failed', `${method} ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await res.text();
    try {
      return { status: res.status, json: text ? (JSON.parse(text) as unknown) : null };
    } catch {
      return { status: res.status, json: null };
    }
  };
  const fail = (what: string, r: { status: number; json: unknown }) =>
    problem('feed_push_failed', `${what} answered ${r.status}: ${JSON.stringify(r.json)?.slice(0, 300) ?? ''}`);

  const create = async (): Promise<string> => {
    const r = await call('POST', '/feeds', { target_country: target.targetCountry });
    const id = (r.json as { id?: unknown } | null)?.id;
    if (r.status !== 201 || typeof id !== 'string' || !id) throw fail('POST /feeds', r);
    return id;
  };
  let created = false;
  let feedId = target.feedId;
  if (!feedId) {
    feedId = await create();
    created = true;
  }
  const upsert = (id: string) => call('PATCH', `/feeds/${encodeURIComponent(id)}/products`, { products });
  let r = await upsert(feedId);
  if (r.status === 404 && !created) {
    // The platform dropped the feed: create it again, once.
    feedId = await create();
    created = true;
    r = await upsert(feedId);
  }
  if (r.status !== 200) throw fail(`PATCH /feeds/${feedId}/products`, r);
  const accepted = (r.json as { accepted?: unknown } | null)?.accepted === true;
  return { feedId, created, accepted, pushed: products.length };
}
