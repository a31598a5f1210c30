/**
 * `npm run demo`: acts as an agent against a running `npm start` (issue 2 §7). Lists services, quotes
 * automation-wf, orders it with real inputs, has its wallet funded by the operator, pays from the wallet,
 * follows progress, downloads each deliverable and checks its sha256, then accepts. Exits non-zero on any failure.
 *
 * Environment: API_URL (default http://127.0.0.1:3000), OPERATOR_KEY (default: the key file of the running `npm start`
 * or `npm run start:cluster`, scripts/lib/operatorKey.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { localOperatorKey } from './lib/operatorKey';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');

function step(message: string): void {
  console.log(`\n▶ ${message}`);
}

async function call(
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(api + urlPath, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new Error(`${method} ${urlPath} → ${res.status}: ${text}`);
  return json;
}

async function main(): Promise<void> {
  const operatorKey = await localOperatorKey(api);
  if (!operatorKey)
    throw new Error('No operator key: set OPERATOR_KEY or run npm start first (it writes .data/operator-key)');
  const agentId = `demo-agent-${randomBytes(3).toString('hex')}`;

  step('GET /api/v1/services');
  const catalogue = await call('GET', '/api/v1/services');
  console.log(`  ${catalogue.services.length} services, protocol ${catalogue.protocol}`);
  for (const s of catalogue.services)
    console.log(`  - ${s.id.padEnd(22)} agent $${s.agent_price} · ${s.estimated_fulfillment}`);

  step('POST /api/v1/quote {service_id: automation-wf}');
  const quote = await call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  console.log(
    `  quote ${quote.quote_id}: $${quote.amount} (${quote.amount_micros} micro-USD), expires ${quote.expires_at}`,
  );

  step('POST /api/v1/orders with real inputs');
  const order = await call(
    'POST',
    '/api/v1/orders',
    {
      quote_id: quote.quote_id,
      agent_id: agentId,
      inputs: { workflow_type: 'new_lead_to_crm', source_app: 'Typeform', target_app: 'HubSpot' },
    },
    { 'idempotency-key': `demo-${agentId}` },
  );
  console.log(
    `  order ${order.order_id}: ${order.status}, $${order.amount}; rails ${order.payment_options.rails.join(', ')}`,
  );

  step(`GET /api/v1/wallets/${agentId} (creates it and shows the agent key once)`);
  const wallet = await call('GET', `/api/v1/wallets/${agentId}`);
  const agentKey: string = wallet.agent_key;
  console.log(`  wallet created, balance $${wallet.balance}`);

  step('Operator credits the wallet with $100');
  const credit = await call(
    'POST',
    `/api/v1/wallets/${agentId}/credits`,
    { amount: 100, transaction_id: `demo-fund-${agentId}` },
    { authorization: `Bearer ${operatorKey}` },
  );
  console.log(`  balance $${credit.balance}`);

  step('POST confirm_payment from the agent wallet');
  const paid = await call(
    'POST',
    `/api/v1/orders/${order.order_id}/confirm_payment`,
    {},
    { authorization: `Bearer ${agentKey}` },
  );
  console.log(
    `  ${paid.status}: paid $${paid.payment.amount} by ${paid.payment.rail} (${paid.payment.transaction_id})`,
  );

  step('Following progress');
  let current = paid;
  const deadline = Date.now() + 120_000;
  let seen = 0;
  while (current.status !== 'delivered') {
    for (const p of current.progress.slice(seen)) console.log(`  ${p.at}  ${p.status}`);
    seen = current.progress.length;
    if (Date.now() > deadline) throw new Error(`order stuck in ${current.status}`);
    if (['failed', 'refunded', 'expired'].includes(current.status)) throw new Error(`order ended ${current.status}`);
    await new Promise((r) => setTimeout(r, 250));
    current = await call('GET', `/api/v1/orders/${order.order_id}`);
  }
  for (const p of current.progress.slice(seen)) console.log(`  ${p.at}  ${p.status}`);

  step('Downloading deliverables and checking sha256');
  for (const d of current.deliverables) {
    const res = await fetch(d.url);
    if (!res.ok) throw new Error(`download ${d.name} → ${res.status}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== d.sha256) throw new Error(`${d.name}: sha256 ${digest} ≠ recorded ${d.sha256}`);
    console.log(
      `  ✓ ${d.name.padEnd(36)} ${String(bytes.length).padStart(6)} B  ${d.media_type.padEnd(28)} ${digest.slice(0, 16)}…`,
    );
  }
  const verification = await call('GET', `/api/v1/orders/${order.order_id}/verification`);
  console.log(`  server verification: ${verification.status}`);
  if (verification.status !== 'verified') throw new Error('verification failed');

  step('POST review {action: accept}');
  const accepted = await call(
    'POST',
    `/api/v1/orders/${order.order_id}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${agentKey}` },
  );
  console.log(`  order ${accepted.status}`);
  const after = await call('GET', `/api/v1/wallets/${agentId}`, undefined, { authorization: `Bearer ${agentKey}` });
  console.log(`  wallet balance $${after.balance}`);
  if (accepted.status !== 'accepted') throw new Error('order not accepted');
  console.log('\nDemo completed.');
}

main().catch((err) => {
  console.error(`\n✗ ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
