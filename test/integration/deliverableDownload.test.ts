/**
 * Downloads streamed from the GridFS store (src/routes/deliverableDownload.ts, issue 25 §2) over real HTTP: the
 * headers (ETag, Repr-Digest, Content-Length, Accept-Ranges), 304 for If-None-Match, 206 for one range (also a suffix
 * or open-ended one, honouring If-Range), 416 past the end, and a 500 problem for a blob that is gone.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { MongoClient, type Db } from 'mongodb';
import { problemMiddleware } from '../../src/http/errors';
import { sendDeliverable, type DeliverableRef } from '../../src/routes/deliverableDownload';
import { GridFsDeliverableStore } from '../../src/storage/gridfs';
import { sha256Hex } from '../../src/storage/deliverables';

let client: MongoClient;
let db: Db;
let server: Server;
let base: string;
const content = randomBytes(400_000);
const refs = new Map<string, DeliverableRef>();

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGODB_URI as string);
  db = client.db(`download_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  const store = new GridFsDeliverableStore(db);
  const blob = await store.put(content);
  refs.set('report.bin', { name: 'report.bin', media_type: 'application/octet-stream', ...blob });
  const empty = await store.put(Buffer.alloc(0));
  refs.set('empty.txt', { name: 'empty.txt', media_type: 'text/plain', ...empty });
  const gone = sha256Hex(Buffer.from('never stored'));
  refs.set('gone.json', { name: 'gone.json', media_type: 'application/json', sha256: gone, size: 12 });
  const app = new Koa();
  app.use(problemMiddleware(() => undefined));
  app.use(async (ctx) => {
    const d = refs.get(ctx.path.slice(1));
    if (d) await sendDeliverable(ctx, store, d, { attachment: true });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await db.dropDatabase().catch(() => undefined);
  await client.close();
});

const sha = () => refs.get('report.bin')!.sha256;
const get = (name: string, headers: Record<string, string> = {}) => fetch(`${base}/${name}`, { headers });

test('200: the whole blob, streamed, with ETag, Repr-Digest, Content-Length and Accept-Ranges', async () => {
  const res = await get('report.bin');
  expect(res.status).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  expect(body.equals(content)).toBe(true);
  expect(res.headers.get('etag')).toBe(`"${sha()}"`);
  expect(res.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(sha(), 'hex').toString('base64')}:`);
  expect(res.headers.get('content-length')).toBe(String(content.length));
  expect(res.headers.get('accept-ranges')).toBe('bytes');
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="report.bin"');
  const empty = await get('empty.txt');
  expect(empty.status).toBe(200);
  expect((await empty.arrayBuffer()).byteLength).toBe(0);
});

test('304 when If-None-Match holds the ETag', async () => {
  const res = await get('report.bin', { 'if-none-match': `"other", "${sha()}"` });
  expect(res.status).toBe(304);
  expect(res.headers.get('etag')).toBe(`"${sha()}"`);
});

test('206 for one range: closed, open-ended, suffix, past the end (cut); Repr-Digest still of the whole', async () => {
  const cases: [string, number, number][] = [
    ['bytes=0-99', 0, 99],
    ['bytes=261100-261200', 261_100, 261_200],
    ['bytes=399000-', 399_000, 399_999],
    ['bytes=-500', 399_500, 399_999],
    ['bytes=-1000000', 0, 399_999],
    ['bytes=399990-500000', 399_990, 399_999],
  ];
  for (const [range, start, end] of cases) {
    const res = await get('report.bin', { range });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${content.length}`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(res.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(sha(), 'hex').toString('base64')}:`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content.subarray(start, end + 1))).toBe(true);
  }
  const matching = await get('report.bin', { range: 'bytes=10-19', 'if-range': `"${sha()}"` });
  expect(matching.status).toBe(206);
  await matching.arrayBuffer();
});

test('200 when the range is ignored: several ranges, another unit, bad syntax, a stale If-Range', async () => {
  const ignored: Record<string, string>[] = [
    { range: 'bytes=0-1,5-6' },
    { range: 'items=0-1' },
    { range: 'bytes=5-1' },
    { range: 'bytes=0-9', 'if-range': '"stale"' },
  ];
  for (const headers of ignored) {
    const res = await get('report.bin', headers);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(content.length);
  }
});

test('416 with Content-Range bytes */size for a range past the end (and any range of an empty blob)', async () => {
  for (const [name, range, size] of [
    ['report.bin', 'bytes=400000-', content.length],
    ['report.bin', 'bytes=-0', content.length],
    ['empty.txt', 'bytes=0-0', 0],
  ] as const) {
    const res = await get(name, { range });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(((await res.json()) as { code: string }).code).toBe('range_not_satisfiable');
  }
});

test('a blob missing from the store is a 500 problem, not an empty 200', async () => {
  const res = await get('gone.json');
  expect(res.status).toBe(500);
  expect(((await res.json()) as { code: string }).code).toBe('internal_error');
});
