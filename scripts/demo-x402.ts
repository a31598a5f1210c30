/**
 * `npm run demo:x402`: an agent with no account buys over x402 from a running `npm start` (issue 3 §9). Reads the
 * discovery document, shows a 402 challenge, buys a micro item and a paid resource (the cheapest template) with
 * `@x402/fetch`, and prints the on-chain transactions (block, gas, USDC transfer) and balances. Exits non-zero on
 * any failure.
 *
 * Environment: API_URL (default http://127.0.0.1:3000), X402_RPC_URL (default http://127.0.0.1:8545),
 * BUYER_KEY (default anvil account #1, the test buyer `npm start` funds). The demo refuses to sign unless the RPC
 * is an anvil node: the test key must never sign for a real chain.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, formatUnits, http, parseEventLogs, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from './lib/chain';
import { SETTLEMENT_EVENTS_ABI } from '../src/x402/settlementChain';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const rpcUrl = process.env.X402_RPC_URL ?? 'http://127.0.0.1:8545';
const buyerKey = (process.env.BUYER_KEY ?? ANVIL_KEYS.buyer) as Hex;

const step = (m: string) => console.log(`\n▶ ${m}`);
const usdc = (v: bigint) => `${formatUnits(v, 6)} USDC`;

async function getJson(path: string): Promise<any> {
  const res = await fetch(api + path);
  if (!res.ok) throw new Error(`GET ${path} → ${res.status}: ${await res.text()}`);
  return res.json();
}

async function main(): Promise<void> {
  const chain = createPublicClient({ transport: http(rpcUrl) });
  const clientVersion = await chain.request({ method: 'web3_clientVersion' }).catch(() => '');
  if (!String(clientVersion).toLowerCase().startsWith('anvil')) {
    throw new Error(
      `${rpcUrl} is not the local anvil chain (${String(clientVersion) || 'no answer'}); the demo only signs with test keys against anvil`,
    );
  }
  const buyer = privateKeyToAccount(buyerKey);
  const erc20 = [
    {
      type: 'function',
      name: 'balanceOf',
      stateMutability: 'view',
      inputs: [{ name: 'a', type: 'address' }],
      outputs: [{ type: 'uint256' }],
    },
  ] as const;

  step('GET /.well-known/x402');
  const doc = await getJson('/.well-known/x402');
  console.log(`  x402 v${doc.x402_version} on ${doc.network}, pay-to ${doc.wallet}, facilitator ${doc.facilitator}`);
  console.log(
    `  facilitator supports the network: ${doc.facilitator_network_support.supported} (${doc.facilitator_network_support.detail})`,
  );
  console.log(
    `  ${doc.item_count} things for sale: ${doc.micro_tier.count} micro items + ${doc.resources.length} paid resources`,
  );
  const asset = doc.resources[0].asset_address as Hex;
  const payTo = doc.wallet as Hex;
  const balances = async () => ({
    buyer: await chain.readContract({ address: asset, abi: erc20, functionName: 'balanceOf', args: [buyer.address] }),
    payTo: await chain.readContract({ address: asset, abi: erc20, functionName: 'balanceOf', args: [payTo] }),
  });
  const before = await balances();
  console.log(`  buyer ${buyer.address}: ${usdc(before.buyer)}; pay-to: ${usdc(before.payTo)}`);

  step('GET /api/v1/x402/micro');
  const micro = await getJson('/api/v1/x402/micro');
  const item = micro.items[0];
  console.log(
    `  ${micro.count} items ${JSON.stringify(micro.by_kind)}, ${micro.price_range[0]}–${micro.price_range[1]} USD; buying ${item.id} (${item.price} USD)`,
  );

  step(`GET /x402/item/${item.id} without payment`);
  const unpaid = await fetch(`${api}/x402/item/${item.id}`);
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  const req = required.accepts[0];
  console.log(
    `  HTTP ${unpaid.status}; PAYMENT-REQUIRED: ${req?.scheme} ${req?.amount} atomic units of ${req?.asset} on ${req?.network} to ${req?.payTo}`,
  );

  const client = new x402Client();
  registerExactEvmScheme(client, { signer: buyer });
  client.setSpendControls({ maxAmountPerPayment: '$400' });
  const pay = wrapFetchWithPayment(fetch, client);
  const paymentIds: string[] = [];

  const template = (await getJson('/api/v1/x402/templates')).templates.sort(
    (a: { price_usd: number }, b: { price_usd: number }) => a.price_usd - b.price_usd,
  )[0];
  for (const [label, url] of [
    [`micro item ${item.id}`, `${api}/x402/item/${item.id}`],
    [`template ${template.sku} (${template.price_usd} USD)`, `${api}/x402/template?sku=${template.sku}`],
  ] as const) {
    step(`Buy ${label} with @x402/fetch`);
    const res = await pay(url);
    if (res.status !== 200) throw new Error(`${url} → ${res.status}: ${await res.text()}`);
    const settle = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
    const body = (await res.json()) as {
      content?: unknown;
      workflow?: { nodes: unknown[] };
      payment: { payment_id: string };
    };
    const goods = body.content ?? body.workflow;
    console.log(`  HTTP 200, ${JSON.stringify(goods).length} bytes of goods; ledger entry ${body.payment.payment_id}`);
    paymentIds.push(body.payment.payment_id);
    const receipt = await chain.getTransactionReceipt({ hash: settle.transaction as Hex });
    console.log(`  transaction ${settle.transaction}`);
    console.log(
      `    block ${receipt.blockNumber}, status ${receipt.status}, gas ${receipt.gasUsed} paid by ${receipt.from} (the facilitator)`,
    );
    for (const t of parseEventLogs({ abi: SETTLEMENT_EVENTS_ABI, logs: receipt.logs, eventName: 'Transfer' })) {
      console.log(`    Transfer ${usdc(t.args.value)} from ${t.args.from} to ${t.args.to}`);
    }
  }

  step('Balances and ledger');
  const after = await balances();
  console.log(`  buyer: ${usdc(before.buyer)} → ${usdc(after.buyer)} (${usdc(after.buyer - before.buyer)})`);
  console.log(`  pay-to: ${usdc(before.payTo)} → ${usdc(after.payTo)} (+${usdc(after.payTo - before.payTo)})`);
  // The buyer reads its own ledger entries by payment id (the full ledger is the operator's view).
  for (const id of paymentIds) {
    const p = await getJson(`/api/v1/x402/payments/${id}`);
    console.log(`  ${p.created_at} ${p.status} ${p.amount} USDC ${p.resource} ${p.transaction}`);
  }
  console.log('\nDone.');
}

main().catch((err) => {
  console.error(`\n✖ ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
