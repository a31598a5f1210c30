/**
 * `npm run bench`: throughput and latency of the order path against a running `npm start` (or API_URL).
 * Prints figures; asserts nothing. N orders (BENCH_ORDERS, default 200) with CONCURRENCY (default 20) in flight, one
 * agent wallet per lane (BENCH_ONE_WALLET=1: all lanes spend one wallet, whose movements serialize):
 * create → confirm_payment (wallet) → delivered, then quote latency and the catalogue read.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const keyFile = path.resolve(__dirname, '..', '.data', 'operator-key');
const operatorKey = process.env.OPERATOR_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '');
const total = Number(process.env.BENCH_ORDERS ?? 200);
const concurrency = Number(process.env.CONCURRENCY ?? 20);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(api + p, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

function report(name: string, ms: number[]): void {
  console.log(`${name.padEnd(28)} n=${String(ms.length).padStart(4)}  p50 ${pct(ms, 50).toFixed(1).padStart(7)} ms  p95 ${pct(ms, 95).toFixed(1).padStart(7)} ms  p99 ${pct(ms, 99).toFixed(1).padStart(7)} ms`);
}

async function main(): Promise<void> {
  if (!operatorKey) throw new Error('set OPERATOR_KEY or run npm start first');
  const oneWallet = process.env.BENCH_ONE_WALLET === '1';
  const run = randomBytes(3).toString('hex');
  const lanes = await Promise.all(
    Array.from({ length: oneWallet ? 1 : concurrency }, async (_, i) => {
      const agent = `bench-${run}-${i}`;
      const wallet = await call('GET', `/api/v1/wallets/${agent}`);
      await call('POST', `/api/v1/wallets/${agent}/credits`, { amount: 69 * total, transaction_id: `bench-${agent}` }, { authorization: `Bearer ${operatorKey}` });
      return { agent, auth: { authorization: `Bearer ${wallet.agent_key}` } };
    }),
  );

  const create: number[] = [];
  const confirm: number[] = [];
  const endToEnd: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      const { agent, auth } = lanes[oneWallet ? 0 : lane]!;
      while (next < total) {
        next++;
        const t0 = performance.now();
        const order = await call('POST', '/api/v1/orders', { service_id: 'automation-wf', agent_id: agent, inputs: { workflow_type: 'sync', source_app: 'Typeform', target_app: 'HubSpot' } });
        const t1 = performance.now();
        await call('POST', `/api/v1/orders/${order.order_id}/confirm_payment`, {}, auth);
        const t2 = performance.now();
        for (;;) {
          const o = await call('GET', `/api/v1/orders/${order.order_id}`);
          if (o.status === 'delivered') break;
          await new Promise((r) => setTimeout(r, 20));
        }
        create.push(t1 - t0);
        confirm.push(t2 - t1);
        endToEnd.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`\n${total} orders, concurrency ${concurrency}, ${lanes.length} wallet(s), ${seconds.toFixed(1)} s → ${(total / seconds).toFixed(1)} orders/s created, paid and delivered`);
  report('POST /orders', create);
  report('POST confirm_payment', confirm);
  report('create → delivered', endToEnd);

  const quotes: number[] = [];
  const services: number[] = [];
  for (let i = 0; i < 200; i++) {
    let t = performance.now();
    await call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    quotes.push(performance.now() - t);
    t = performance.now();
    await call('GET', '/api/v1/services');
    services.push(performance.now() - t);
  }
  report('POST /quote (serial)', quotes);
  report('GET /services (serial)', services);
  let debits = 0;
  for (const { agent, auth } of lanes) {
    const after = await call('GET', `/api/v1/wallets/${agent}`, undefined, auth);
    debits += after.transactions.filter((t: { type: string }) => t.type === 'debit').length;
  }
  console.log(`wallet check: ${debits} debits for ${total} orders across ${lanes.length} wallet(s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
