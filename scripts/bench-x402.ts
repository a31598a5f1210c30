/**
 * `npm run bench:x402`: paid x402 purchases from the API beside the official `@x402/hono` middleware selling the same
 * micro item (same requirements, facilitator and chain; scripts/bench/honoSeller.ts in its own process), both bought
 * with the unmodified `@x402/fetch` client (issue 9 §3). Against a running `npm start` (local anvil chain and
 * facilitator): sequential purchases interleaved one by one, then 8 in flight against each. Prints latency
 * percentiles, throughput and the ratios; asserts nothing. Each purchase really settles on the local chain.
 * Environment: API_URL, BUYER_KEY (default anvil account #1, a public test key), SEQUENTIAL (20), PARALLEL (40),
 * X402_RPC_URL (http://127.0.0.1:8545): on a local anvil chain a buyer short of the run's cost is minted the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS, fundBuyer, usdcBalanceOf } from './lib/chain';
import { pct } from './bench/stats';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const sequential = Number(process.env.SEQUENTIAL ?? 20);
const parallel = Number(process.env.PARALLEL ?? 40);
const inFlight = 8;

/**
 * Makes sure `buyer` holds `needed` atomic units of `asset`: mints the difference on a local anvil chain (fundBuyer
 * refuses any other node).
 * @throws Error when the buyer is short and the chain is not a local anvil node.
 */
async function ensureFunds(buyer: Address, asset: Address, needed: bigint): Promise<void> {
  const rpcUrl = process.env.X402_RPC_URL ?? 'http://127.0.0.1:8545';
  const held = await usdcBalanceOf(rpcUrl, asset, buyer);
  if (held < needed) await fundBuyer(rpcUrl, asset, buyer, needed - held);
}

async function main(): Promise<void> {
  const doc = (await (await fetch(`${api}/.well-known/x402`)).json()) as { facilitator: string };
  const micro = (await (await fetch(`${api}/api/v1/x402/micro`)).json()) as { items: { id: string; price: number }[] };
  const item = [...micro.items].sort((a, b) => a.price - b.price)[0]!;
  const ours = `${api}/x402/item/${item.id}`;
  const required = decodePaymentRequiredHeader((await fetch(ours)).headers.get('payment-required') ?? '');
  const req = required.accepts[0]!;
  const buyer = privateKeyToAccount((process.env.BUYER_KEY ?? ANVIL_KEYS.buyer) as Hex);
  await ensureFunds(buyer.address, req.asset as Address, BigInt(req.amount) * BigInt(2 * (sequential + parallel + 1)));

  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-x402-')), 'seller.json');
  writeFileSync(
    file,
    JSON.stringify({
      facilitatorUrl: doc.facilitator,
      itemId: item.id,
      network: req.network,
      asset: req.asset,
      payTo: req.payTo,
      amount: req.amount,
      extra: req.extra,
      maxTimeoutSeconds: req.maxTimeoutSeconds,
    }),
  );
  const seller = spawn(
    path.join(__dirname, '..', 'node_modules', '.bin', 'tsx'),
    [path.join(__dirname, 'bench', 'honoSeller.ts'), file],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    seller.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    seller.once('exit', (code) => reject(new Error(`hono seller exited (${String(code)})`)));
  });
  const reference = `http://127.0.0.1:${port}/x402/item/${item.id}`;

  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  const pay = wrapFetchWithPayment(fetch, client);
  const buy = async (url: string): Promise<number> => {
    const t = performance.now();
    const res = await pay(url);
    const body = await res.text();
    if (res.status !== 200 || !res.headers.get('payment-response'))
      throw new Error(`${url} → ${res.status} ${body.slice(0, 300)}`);
    return performance.now() - t;
  };
  // Warm-up: both sellers fetch the facilitator's supported kinds on first use.
  await buy(ours);
  await buy(reference);

  const seq = { ours: [] as number[], hono: [] as number[] };
  for (let i = 0; i < sequential; i++) {
    seq.ours.push(await buy(ours));
    seq.hono.push(await buy(reference));
  }
  const burst = async (url: string) => {
    let next = 0;
    const t = performance.now();
    const lat: number[] = [];
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < parallel) lat.push(await buy(url));
      }),
    );
    return { lat, rate: parallel / ((performance.now() - t) / 1000) };
  };
  const burstOurs = await burst(ours);
  const burstHono = await burst(reference);
  seller.kill();

  const row = (name: string, ms: number[], rate?: number) =>
    `${name.padEnd(34)} n=${String(ms.length).padStart(3)}  p50 ${pct(ms, 50).toFixed(1).padStart(6)} ms  p95 ${pct(ms, 95).toFixed(1).padStart(6)} ms${rate ? `  ${rate.toFixed(1).padStart(5)} purchases/s` : ''}`;
  console.log(`item ${item.id} (${req.amount} atomic units), facilitator ${doc.facilitator}, buyer @x402/fetch`);
  console.log(row('API, sequential', seq.ours));
  console.log(row('@x402/hono, sequential', seq.hono));
  console.log(row(`API, ${inFlight} in flight`, burstOurs.lat, burstOurs.rate));
  console.log(row(`@x402/hono, ${inFlight} in flight`, burstHono.lat, burstHono.rate));
  console.log(
    `\nsequential p50: API ${(pct(seq.ours, 50) / pct(seq.hono, 50)).toFixed(2)} × hono (target ≤ 1.1 ×); throughput at ${inFlight} in flight: ${((burstOurs.rate / burstHono.rate) * 100).toFixed(0)} % of hono (target ≥ 90 %)`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
