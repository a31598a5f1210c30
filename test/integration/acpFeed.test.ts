/**
 * The ACP product feed (issue 37 §1; ACP 2026-04-17 openapi.feed.yaml, rfc.product_feeds.md; decision 0039), against
 * the real API and database: the 14 catalogue services read as feed `Product`s, each validated against the copied
 * schema.feed.json, each variant id taken as a checkout item; and the push to a platform's agent-hosted Feed API (a
 * local server that validates what it receives against the same schemas): the feed created once, every product
 * upserted, again on the next push into the same feed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICE_IDS, getService } from '../../src/domain/catalogue';
import { ACP_VERSION, conforms, issuePlatform } from '../helpers/acpSpec';
import { OPERATOR_KEY, startStack, type Stack } from '../helpers/stack';

let stack: Stack;

/** A platform's Feed API: feeds by id; every request recorded; bodies checked against the feed schema. */
async function feedApi() {
  const feeds = new Map<string, Map<string, unknown>>();
  const requests: { method: string; path: string; headers: http.IncomingHttpHeaders; body: unknown }[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, any>) : null;
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const send = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (req.method === 'POST' && path === '/feeds') {
        conforms('feed#/$defs/CreateFeedRequest', body);
        const meta = { id: `feed_${++n}`, target_country: body?.target_country, updated_at: new Date().toISOString() };
        conforms('feed#/$defs/FeedMetadata', meta);
        feeds.set(meta.id, new Map());
        return send(201, meta);
      }
      const m = /^\/feeds\/([^/]+)\/products$/.exec(path);
      if (req.method === 'PATCH' && m) {
        const feed = feeds.get(decodeURIComponent(m[1]!));
        if (!feed) return send(404, { type: 'invalid_request', code: 'feed_not_found', message: 'Feed not found' });
        conforms('feed#/$defs/UpsertProductsRequest', body);
        for (const p of body!.products as { id: string }[]) feed.set(p.id, p);
        return send(200, { id: m[1], accepted: true });
      }
      send(404, { type: 'invalid_request', code: 'not_found', message: 'Not found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    feeds,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('GET /acp/feed/products: the 14 services as feed Products within schema.feed.json, each variant a checkout item', async () => {
  const res = await stack.call('GET', '/acp/feed/products');
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
  conforms('feed#/$defs/ProductsResponse', res.body);
  const products = res.body.products as Record<string, any>[];
  expect(products).toHaveLength(14);
  for (const p of products) conforms('feed#/$defs/Product', p);
  expect(products.map((p) => p.variants[0].id)).toEqual([...SERVICE_IDS]);

  const platformKey = await issuePlatform(stack, 'feed-reader');
  for (const p of products) {
    const variant = p.variants[0];
    const service = getService(variant.id)!;
    expect(variant.price).toEqual({ amount: Math.round(service.agent_price * 100), currency: 'USD' });
    // The variant id is what a session takes: an available one opens a session at the feed's price.
    const session = await stack.call(
      'POST',
      '/checkout_sessions',
      { line_items: [{ id: variant.id }], currency: 'usd', capabilities: {} },
      {
        authorization: `Bearer ${platformKey}`,
        'api-version': ACP_VERSION,
        'idempotency-key': `feed-${variant.id}`,
      },
    );
    if (variant.availability.available) {
      expect(session.status).toBe(201);
      expect(session.body.line_items[0].unit_amount).toBe(variant.price.amount);
    } else {
      expect(variant.availability.status).toBe('temporarily_unavailable');
      expect(session.status).toBe(201);
    }
  }
  // The monthly service sells its first month through a session; the feed says how it is billed.
  expect(products.find((p) => p.variants[0].id === 'ai-receptionist')?.variants[0]).toMatchObject({
    availability: { available: true, status: 'in_stock' },
    variant_options: expect.arrayContaining([{ name: 'Billing', value: 'monthly' }]),
  });
}, 120_000);

test("the operator pushes the feed to a platform's Feed API: created once, every product upserted, the same feed next time", async () => {
  const api = await feedApi();
  try {
    const platform = await stack.call(
      'POST',
      '/api/v1/acp/platforms',
      { name: 'feed-platform' },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    const id = platform.body.id as string;
    const push = (body: Record<string, unknown>, key: string | null = OPERATOR_KEY) =>
      stack.call('POST', `/api/v1/acp/platforms/${id}/feed`, body, key ? { authorization: `Bearer ${key}` } : {});

    expect((await push({ url: api.url }, null)).status).toBe(401);
    expect((await push({})).status).toBe(400);
    const first = await push({ url: api.url, api_key: 'platform-feed-credential' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ platform_id: id, url: api.url, created: true, accepted: true, pushed: 14 });
    const feed = api.feeds.get(first.body.feed_id)!;
    expect([...feed.keys()].sort()).toEqual(SERVICE_IDS.map((s) => `prod_${s}`).sort());
    for (const p of feed.values()) conforms('feed#/$defs/Product', p);
    for (const r of api.requests) {
      expect(r.headers.authorization).toBe('Bearer platform-feed-credential');
      expect(r.headers['api-version']).toBe(ACP_VERSION);
      expect(r.headers['idempotency-key']).toMatch(/\S/);
    }
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /feeds',
      `PATCH /feeds/${first.body.feed_id}/products`,
    ]);

    // The next push (URL and credential kept): into the same feed, no new one.
    const second = await push({});
    expect(second.body).toMatchObject({ feed_id: first.body.feed_id, created: false, accepted: true });
    expect(api.requests.at(-1)?.headers.authorization).toBe('Bearer platform-feed-credential');
    expect(api.feeds.size).toBe(1);
    // The platform dropped the feed: created again.
    api.feeds.clear();
    const third = await push({});
    expect(third.body).toMatchObject({ created: true, accepted: true });
    expect(api.feeds.get(third.body.feed_id)?.size).toBe(14);

    const unknown = await stack.call(
      'POST',
      '/api/v1/acp/platforms/acpp_nope/feed',
      { url: api.url },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(unknown.status).toBe(404);
    // A Feed API that refuses: 424, the request's dependency failed (no 5xx of this service).
    const refused = await push({ url: `${api.url}/elsewhere` });
    expect(refused.status).toBe(424);
    expect(refused.body.code).toBe('feed_push_failed');
  } finally {
    await api.close();
  }
}, 60_000);
