/**
 * The bare Koa app of `npm run bench:http`, in its own process like the API: answers each sampled route with the
 * exact status, headers and bytes the API gave. Usage: `tsx scripts/bench/bareKoa.ts <samples.json>`; prints its
 * port on stdout once listening.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

interface Sample {
  status: number;
  headers: [string, string][];
  body: string;
}

const samples = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Record<string, Sample>).map(
    ([url, s]) => [url, { ...s, bytes: Buffer.from(s.body, 'base64') }],
  ),
);
const app = new Koa();
app.use((ctx) => {
  const s = samples.get(ctx.url);
  if (!s) {
    ctx.status = 404;
    return;
  }
  ctx.status = s.status;
  for (const [k, v] of s.headers) ctx.set(k, v);
  ctx.body = s.bytes;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
