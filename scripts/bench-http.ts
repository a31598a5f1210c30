/**
 * `npm run bench:http`: the public GET routes of a running `npm start` beside a bare Koa app serving the same bytes
 * (issue 9 §3). For each route the bytes, status and headers the API answers are fetched once; a bare Koa app in a
 * process of its own (scripts/bench/bareKoa.ts) answers exactly those; then autocannon (50 connections, DURATION seconds each, default 10) measures both,
 * alternating, and the table shows requests/s, p50/p99 latency and the API's share of the bare app's throughput.
 * Each route is first run unmeasured for WARMUP seconds (default 2) on both. Asserts nothing. Environment: API_URL
 * (default http://127.0.0.1:3000), DURATION, CONNECTIONS, WARMUP.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);

/** The routes of the issue: catalogue, discovery, micro catalogue and the 402 challenge of a micro item. */
async function routes(): Promise<string[]> {
  const micro = (await (await fetch(`${api}/api/v1/x402/micro?limit=1`)).json()) as { items?: { id: string }[] };
  const item = micro.items?.[0]?.id;
  if (!item) throw new Error('the micro catalogue returned no item');
  return ['/api/v1/services', '/api/v1/discover', '/api/v1/x402/micro', `/x402/item/${item}`];
}

interface Sample {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

async function sample(route: string): Promise<Sample> {
  const res = await fetch(api + route);
  const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
  return {
    status: res.status,
    headers: [...res.headers.entries()].filter(([k]) => !skip.has(k)),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

const warmup = Number(process.env.WARMUP ?? 2);

async function run(url: string, seconds = duration): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: seconds, pipelining: 1 });
}

async function main(): Promise<void> {
  const list = await routes();
  const samples = new Map<string, Sample>();
  for (const r of list) samples.set(r, await sample(r));
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-http-')), 'samples.json');
  writeFileSync(
    file,
    JSON.stringify(
      Object.fromEntries([...samples].map(([url, s]) => [url, { ...s, body: s.body.toString('base64') }])),
    ),
  );
  const bare = spawn(
    path.join(__dirname, '..', 'node_modules', '.bin', 'tsx'),
    [path.join(__dirname, 'bench', 'bareKoa.ts'), file],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const barePort = await new Promise<number>((resolve, reject) => {
    bare.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    bare.once('exit', (code) => reject(new Error(`bare Koa exited (${String(code)})`)));
  });
  console.log(
    `autocannon: ${connections} connections, ${duration} s per run after ${warmup} s warm-up; API ${api}, bare Koa on :${barePort}\n`,
  );
  console.log(
    `${'route'.padEnd(44)} ${'status'.padStart(6)} ${'bytes'.padStart(7)}   ${'API req/s'.padStart(10)} ${'p50'.padStart(5)} ${'p99'.padStart(5)}   ${'bare req/s'.padStart(10)} ${'p50'.padStart(5)} ${'p99'.padStart(5)}   API/bare`,
  );
  for (const route of list) {
    const s = samples.get(route)!;
    // Unmeasured warm-up of both (JIT, connection pools), then the measured runs.
    if (warmup > 0) {
      await run(api + route, warmup);
      await run(`http://127.0.0.1:${barePort}${route}`, warmup);
    }
    const a = await run(api + route);
    const b = await run(`http://127.0.0.1:${barePort}${route}`);
    const errors = a.non2xx - (s.status >= 300 ? a.requests.total : 0);
    console.log(
      `${route.slice(0, 44).padEnd(44)} ${String(s.status).padStart(6)} ${String(s.body.length).padStart(7)}   ${a.requests.average.toFixed(0).padStart(10)} ${String(a.latency.p50).padStart(5)} ${String(a.latency.p99).padStart(5)}   ${b.requests.average.toFixed(0).padStart(10)} ${String(b.latency.p50).padStart(5)} ${String(b.latency.p99).padStart(5)}   ${((a.requests.average / b.requests.average) * 100).toFixed(0).padStart(6)} %${errors > 0 || a.errors > 0 ? `  (${a.errors} errors)` : ''}`,
    );
  }
  console.log('\nlatencies in ms; targets: API ≥ 90 % of bare Koa, p99 < 10 ms');
  bare.kill();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
