/** The shared micro-cache of public GET answers (src/http/cachedJson.ts, issue 9 §3). */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Koa from 'koa';
import { JsonMemo, ResponseCache, markShared, sendCachedJson } from '../../src/http/cachedJson';

let server: Server;
let base: string;
const hits: Record<string, number> = {};
const servedFromCache: string[] = [];

beforeAll(async () => {
  const app = new Koa();
  const cache = new ResponseCache((hit) => servedFromCache.push(`${hit.status} ${hit.req.url}`));
  app.use(cache.middleware());
  const memo = new JsonMemo();
  app.use((ctx) => {
    hits[ctx.path] = (hits[ctx.path] ?? 0) + 1;
    if (ctx.path === '/shared') {
      sendCachedJson(
        ctx,
        memo.get(ctx.url, () => ({ q: ctx.query.q ?? null })),
      );
    } else if (ctx.path === '/challenge') {
      markShared(ctx, 60_000);
      ctx.status = 402;
      ctx.set('PAYMENT-REQUIRED', 'abc');
      // What the rate limiter sets on the request that runs the chain.
      ctx.set('RateLimit', '"address";r=59;t=60');
      ctx.body = { paid: Boolean(ctx.get('payment-signature')) };
    } else if (ctx.path === '/short') {
      markShared(ctx, 1);
      ctx.body = { n: hits[ctx.path] };
    } else {
      ctx.body = { n: hits[ctx.path] };
    }
  });
  // Hits are answered ahead of Koa, as the API's handler does (src/app.ts).
  server = createServer(cache.wrap(app.callback())).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

test('a shared answer is served again without running the route, with the same bytes, headers and ETag', async () => {
  const a = await fetch(`${base}/shared?q=1`);
  const b = await fetch(`${base}/shared?q=1`);
  expect(hits['/shared']).toBe(1);
  expect(await b.text()).toBe(await a.text());
  expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
  const notModified = await fetch(`${base}/shared?q=1`, {
    headers: { 'if-none-match': a.headers.get('etag') as string },
  });
  expect(notModified.status).toBe(304);
  expect(notModified.headers.get('etag')).toBe(a.headers.get('etag'));
  expect(notModified.headers.get('content-type')).toBeNull();
  // Every answer from the cache is reported (the API records it in its telemetry).
  expect(servedFromCache).toEqual(['200 /shared?q=1', '304 /shared?q=1']);
  await fetch(`${base}/shared?q=2`);
  expect(hits['/shared']).toBe(2);
});

test('requests carrying a payment or a credential always reach the route', async () => {
  expect((await fetch(`${base}/challenge`)).status).toBe(402);
  const hit = await fetch(`${base}/challenge`);
  expect(hit.headers.get('payment-required')).toBe('abc');
  // The budget of the request that filled the entry is not replayed: a hit is not counted.
  expect(hit.headers.get('ratelimit')).toBeNull();
  expect(hits['/challenge']).toBe(1);
  const paid = await fetch(`${base}/challenge`, { headers: { 'payment-signature': 'xyz' } });
  expect(await paid.json()).toEqual({ paid: true });
  await fetch(`${base}/challenge`, { headers: { authorization: 'Bearer k' } });
  expect(hits['/challenge']).toBe(3);
});

test('unmarked answers are never cached and marked ones expire', async () => {
  await fetch(`${base}/private`);
  await fetch(`${base}/private`);
  expect(hits['/private']).toBe(2);
  await fetch(`${base}/short`);
  await new Promise((r) => setTimeout(r, 5));
  expect(await (await fetch(`${base}/short`)).json()).toEqual({ n: 2 });
});

test('an expired answer is refreshed by one request while concurrent ones still get the old one', async () => {
  const app = new Koa();
  const cache = new ResponseCache();
  app.use(cache.middleware());
  let runs = 0;
  let release: () => void = () => undefined;
  app.use(async (ctx) => {
    runs++;
    const n = runs;
    if (n === 2) await new Promise<void>((r) => (release = r)); // the refresh is slow
    // TTL 300 ms, so stale answers are served up to 600 ms after storing: wide margins on a loaded machine.
    markShared(ctx, 300);
    ctx.body = { n };
  });
  const srv = createServer(cache.wrap(app.callback())).listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/x`;
  try {
    expect(await (await fetch(url)).json()).toEqual({ n: 1 });
    await new Promise((r) => setTimeout(r, 350)); // expired, within the grace
    const refreshing = fetch(url);
    await new Promise((r) => setTimeout(r, 20));
    const during = await Promise.all([fetch(url), fetch(url), fetch(url)]);
    expect(await Promise.all(during.map((r) => r.json()))).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    expect(runs).toBe(2);
    release();
    expect(await (await refreshing).json()).toEqual({ n: 2 });
    expect(await (await fetch(url)).json()).toEqual({ n: 2 });
    expect(runs).toBe(2);
    // Past the grace (at most the TTL again) nothing stale is served: the next request runs the route.
    await new Promise((r) => setTimeout(r, 700));
    expect(await (await fetch(url)).json()).toEqual({ n: 3 });
  } finally {
    srv.close();
  }
});
