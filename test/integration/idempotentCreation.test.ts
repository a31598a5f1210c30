/**
 * An Idempotency-Key binds to what the request creates (issue 36 hole 3, Stripe's rule: same key, same object), against
 * the real API, worker, Temporal server and database. The crash is modelled where it hurts most: the first request
 * did all its work (task charged, order or endpoint written, procurement paid) and the API died before it stored its
 * answer, so its claim is left in flight; once the lease has lapsed the client's retry runs the handler again. That
 * retry must answer the same resource (same id, same status, same secrets) and charge nothing more. Before the fix it
 * made a second task and charged it again ($15 twice), a second order, endpoint, quote and procurement.
 */
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { ProblemError } from '../../src/errors';
import { sha256Hex } from '../../src/hash';
import {
  callerScope,
  idempotencyMiddleware,
  idempotencyRecordId,
  idempotentCreation,
} from '../../src/http/idempotency';
import { startStack, waitForOrder, fundedAgent, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

/**
 * As if the API had died after the request's work and before it stored the answer: the claim of (credential, path,
 * key) is left in flight with its lease lapsed, as a dead process leaves it (src/http/idempotency.ts).
 */
async function asIfCrashed(path: string, key: string, authorization?: string): Promise<void> {
  const id = idempotencyRecordId(callerScope(authorization ?? '', '', undefined), path, key);
  const r = await stack.services.db.idempotencyKeys.updateOne(
    { _id: id },
    { $set: { state: 'in_flight', response: null, lease_until: new Date(Date.now() - 1) } },
  );
  expect(r.matchedCount).toBe(1);
}

/** Debits of the agent's ledger whose transaction id starts with `prefix`. */
const debits = (agentId: string, prefix: string) =>
  stack.services.db.walletEntries.find({ agent_id: agentId, type: 'debit', tx_id: { $regex: `^${prefix}` } }).toArray();

test('a task retried after a crash is the same task, charged once', async () => {
  const key = await fundedAgent(stack, 'agent-idem-task', 60);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'task-worker',
    agent_id: 'agent-idem-task',
    inputs: { task_prompt: 'List three CRM tools', format: 'markdown' },
  });
  const orderId = created.body.order_id as string;
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    bearer(key),
  );
  expect(paid.status).toBe(200);
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered');

  const path = `/api/v1/orders/${orderId}/tasks`;
  const body = { task_prompt: 'Compare HubSpot vs Pipedrive', format: 'json' };
  const headers = { ...bearer(key), 'idempotency-key': 'task-crash-1' };
  const first = await stack.call('POST', path, body, headers);
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ task: 2, status: 'delivered', charge: { transaction_id: `task:${orderId}:2` } });

  await asIfCrashed(path, 'task-crash-1', `Bearer ${key}`);
  const retry = await stack.call('POST', path, body, headers);
  expect(retry.headers.get('idempotent-replayed')).toBeNull(); // the handler ran again
  expect(retry.status).toBe(201);
  expect(retry.headers.get('location')).toBe(`${path}/2`);
  expect(retry.body).toMatchObject({ task: 2, status: 'delivered', charge: first.body.charge });

  const listed = await stack.call('GET', path);
  expect(listed.body.tasks.map((t: { task: number }) => t.task)).toEqual([2]);
  expect((await debits('agent-idem-task', `task:${orderId}:`)).map((d) => d.tx_id)).toEqual([`task:${orderId}:2`]);
  expect(await stack.services.wallets.balance('agent-idem-task')).toBe(60_000_000 - 15_000_000 - 15_000_000);

  // The same key with another body is refused, as before; another key is another task.
  const conflict = await stack.call('POST', path, { task_prompt: 'Something else' }, headers);
  expect([conflict.status, conflict.body.code]).toEqual([422, 'idempotency_conflict']);
  const next = await stack.call('POST', path, body, { ...bearer(key), 'idempotency-key': 'task-crash-2' });
  expect(next.body.task).toBe(3);
}, 120_000);

test('an order retried after a crash is the same order, with the same secrets and webhook endpoint', async () => {
  const path = '/api/v1/orders';
  const body = {
    service_id: 'automation-wf',
    email: 'idem-order@example.com',
    webhook_url: 'http://127.0.0.1:9/hook',
    inputs: automationInputs,
  };
  const headers = { 'idempotency-key': 'order-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70' };
  const first = await stack.call('POST', path, body, headers);
  expect(first.status).toBe(201);
  expect(first.body.order_secret).toMatch(/^os_/);
  expect(first.body.webhook.management_token).toMatch(/^wht_/);

  await asIfCrashed(path, 'order-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70');
  const retry = await stack.call('POST', path, body, headers);
  expect(retry.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.status).toBe(201);
  expect(retry.headers.get('location')).toBe(first.headers.get('location'));
  expect(retry.body).toEqual(first.body);
  expect(await stack.services.db.orders.countDocuments({ email: 'idem-order@example.com' })).toBe(1);
  expect(await stack.services.db.webhookEndpoints.countDocuments({ url: body.webhook_url })).toBe(1);
  expect(await stack.services.db.events.countDocuments({ order_id: first.body.order_id })).toBe(1);
});

test('a procurement retried after a crash is the same procurement and order, paid once', async () => {
  const key = await fundedAgent(stack, 'agent-idem-procure', 80);
  const path = '/api/v1/procure';
  const body = {
    objective: 'An n8n workflow to sync new Typeform leads into HubSpot',
    budget: 80,
    agent_id: 'agent-idem-procure',
    inputs: automationInputs,
  };
  const headers = { ...bearer(key), 'idempotency-key': 'procure-crash-1' };
  const first = await stack.call('POST', path, body, headers);
  expect(first.status).toBe(201);
  expect(first.body.status).toBe('completed');

  await asIfCrashed(path, 'procure-crash-1', `Bearer ${key}`);
  const retry = await stack.call('POST', path, body, headers);
  expect(retry.headers.get('idempotent-replayed')).toBeNull();
  expect(retry.status).toBe(201);
  expect(retry.body.procurement_id).toBe(first.body.procurement_id);
  expect(retry.body.order.order_id).toBe(first.body.order.order_id);
  expect(retry.body.quote.quote_id).toBe(first.body.quote.quote_id);
  expect(await stack.services.db.procurements.countDocuments({ agent_id: 'agent-idem-procure' })).toBe(1);
  expect(await stack.services.db.orders.countDocuments({ agent_id: 'agent-idem-procure' })).toBe(1);
  expect((await debits('agent-idem-procure', 'order:')).length).toBe(1);
  expect(await stack.services.wallets.balance('agent-idem-procure')).toBe(80_000_000 - 69_000_000);
}, 120_000);

test('a quote and a webhook endpoint retried after a crash are the same ones', async () => {
  const quoteBody = { service_id: 'automation-wf', is_agent: true };
  const q1 = await stack.call('POST', '/api/v1/quote', quoteBody, {
    'idempotency-key': 'quote-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
  });
  expect(q1.status).toBe(201);
  await asIfCrashed('/api/v1/quote', 'quote-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70');
  const q2 = await stack.call('POST', '/api/v1/quote', quoteBody, {
    'idempotency-key': 'quote-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
  });
  expect(q2.headers.get('idempotent-replayed')).toBeNull();
  expect(q2.status).toBe(201);
  expect(q2.body).toEqual(q1.body);

  const hookBody = { url: 'http://127.0.0.1:9/idem-endpoint', events: ['order.delivered'] };
  const w1 = await stack.call('POST', '/api/v1/webhooks', hookBody, {
    'idempotency-key': 'hook-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
  });
  expect(w1.status).toBe(200);
  expect(w1.body.management_token).toMatch(/^wht_/);
  await asIfCrashed('/api/v1/webhooks', 'hook-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70');
  const w2 = await stack.call('POST', '/api/v1/webhooks', hookBody, {
    'idempotency-key': 'hook-crash-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
  });
  expect(w2.headers.get('idempotent-replayed')).toBeNull();
  expect(w2.status).toBe(200);
  expect(w2.body).toEqual(w1.body);
  expect(await stack.services.db.webhookEndpoints.countDocuments({ url: hookBody.url })).toBe(1);
  // The token shown again still manages the endpoint.
  const owned = await stack.call('GET', `/api/v1/webhooks/${w1.body.id}`, undefined, bearer(w2.body.management_token));
  expect(owned.status).toBe(200);
});

test('a 5xx keeps the claim for the retry: it is taken over at once with the same names and time', async () => {
  const seen: { name: string; at: string }[] = [];
  let fail = true;
  const app = new Koa();
  app.use(async (ctx, next) => {
    (ctx.request as { body?: unknown }).body = { same: 'body' };
    await next();
  });
  app.use(idempotencyMiddleware(stack.services.db, 3600));
  app.use((ctx) => {
    const c = idempotentCreation(ctx);
    seen.push({ name: c?.name('thing') ?? 'none', at: c?.at.toISOString() ?? 'none' });
    if (fail) {
      fail = false;
      throw new ProblemError(503, 'dependency_unavailable', 'down for a moment');
    }
    ctx.status = 201;
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
    const post = (key?: string) =>
      fetch(url, { method: 'POST', headers: key ? { 'idempotency-key': key } : {} }).then((r) => r.status);
    expect(await post('five-hundred-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70')).toBe(503);
    expect(await post('five-hundred-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70')).toBe(201);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]!.name).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Another key names another thing; no key, nothing derived.
    expect(await post('another-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70')).toBe(201);
    expect(seen[2]!.name).not.toBe(seen[0]!.name);
    expect(await post()).toBe(201);
    expect(seen[3]!.name).toBe('none');
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('a retry of a request made before the scope was renamed (2026-12-02) still finds its first answer', async () => {
  const app = new Koa();
  let runs = 0;
  app.use(idempotencyMiddleware(stack.services.db, 3600));
  app.use((ctx) => {
    runs++;
    ctx.status = 201;
    ctx.body = { made: runs };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const key = 'legacy-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70';
    // The record as the older code stored it: sha256 of `<sha256(credential)>\n<path>\n<key>`.
    const legacy = callerScope('Bearer ak_old', '', undefined).legacy!('/things', key);
    await stack.services.db.idempotencyKeys.insertOne({
      _id: legacy,
      request_hash: sha256Hex(JSON.stringify(null)),
      state: 'done',
      response: { status: 201, body: { made: 0 }, headers: {} },
      created_at: new Date(),
      lease_until: new Date(),
      seed: 'c2VlZA',
    });
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/things`, {
      method: 'POST',
      headers: { 'idempotency-key': key, authorization: 'Bearer ak_old' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(await res.json()).toEqual({ made: 0 });
    expect(runs).toBe(0);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
