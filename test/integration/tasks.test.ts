/**
 * Per-task billing (issue 6 §3, task-worker) against the real API, worker, Temporal server and database: one order
 * buys one task; further tasks are submitted to the order and each is charged from the agent wallet at the quoted
 * per-task price, producing its own checksummed deliverables.
 */
import { createHash } from 'node:crypto';
import { startStack, waitForOrder, fundedAgent, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('further tasks are charged one by one from the wallet and each yields its own deliverables', async () => {
  const key = await fundedAgent(stack, 'agent-tasks', 30);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'task-worker',
    agent_id: 'agent-tasks',
    inputs: { task_prompt: 'Research the three cheapest CRM tools for a 5-person agency', format: 'markdown' },
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  const tasksUrl = `/api/v1/orders/${orderId}/tasks`;
  // Not before the order's own task was delivered.
  const early = await stack.call('POST', tasksUrl, { task_prompt: 'too early' }, { authorization: `Bearer ${key}` });
  expect(early.status).toBe(409);
  expect(
    (
      await stack.call(
        'POST',
        `/api/v1/orders/${orderId}/confirm_payment`,
        { rail: 'agent_wallet' },
        { authorization: `Bearer ${key}` },
      )
    ).status,
  ).toBe(200);
  const delivered = await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
  expect(delivered.tasks).toEqual({ submit_url: `${stack.url}${tasksUrl}`, price: 15, items: [] });
  expect(await stack.services.wallets.balance('agent-tasks')).toBe(15_000_000);

  // The wallet pays, so its key is needed.
  expect((await stack.call('POST', tasksUrl, { task_prompt: 'Compare HubSpot vs Pipedrive' })).status).toBe(401);
  expect(
    (
      await stack.call(
        'POST',
        tasksUrl,
        { task_prompt: 'Compare HubSpot vs Pipedrive' },
        { authorization: 'Bearer ak_wrong' },
      )
    ).status,
  ).toBe(403);
  expect(
    (await stack.call('POST', tasksUrl, { format: 'json' }, { authorization: `Bearer ${key}` })).body,
  ).toMatchObject({ status: 400, param: 'task_prompt' });

  const task = await stack.call(
    'POST',
    tasksUrl,
    { task_prompt: 'Compare HubSpot vs Pipedrive for a 5-person agency', format: 'json' },
    { authorization: `Bearer ${key}` },
  );
  expect(task.status).toBe(201);
  expect(task.headers.get('location')).toBe(`${tasksUrl}/2`);
  expect(task.body).toMatchObject({
    task: 2,
    status: 'delivered',
    amount: 15,
    charge: { transaction_id: `task:${orderId}:2`, amount: 15 },
  });
  expect(task.body.deliverables.length).toBeGreaterThan(0);
  for (const d of task.body.deliverables as { url: string; sha256: string; size: number }[]) {
    const res = await fetch(d.url);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(sha256(bytes)).toBe(d.sha256);
    expect(bytes.length).toBe(d.size);
  }
  const result = await fetch(
    (task.body.deliverables as { name: string; url: string }[]).find((d) => d.name.endsWith('.json'))!.url,
  );
  expect(await result.text()).toContain('HubSpot');
  expect(await stack.services.wallets.balance('agent-tasks')).toBe(0);

  // The wallet is empty: the next task is refused with 402 and recorded as such, nothing is produced.
  const broke = await stack.call(
    'POST',
    tasksUrl,
    { task_prompt: 'Summarize our Q3 pipeline' },
    { authorization: `Bearer ${key}` },
  );
  expect(broke.status).toBe(402);
  expect(broke.body.code).toBe('insufficient_funds');
  expect(broke.body.task).toMatchObject({ task: 3 });
  const list = await stack.call('GET', tasksUrl);
  expect((list.body.tasks as { task: number; status: string }[]).map((t) => `${t.task}:${t.status}`)).toEqual([
    '2:delivered',
    '3:payment_failed',
  ]);
  const order = await stack.call('GET', `/api/v1/orders/${orderId}`);
  expect(order.body.tasks.items).toHaveLength(2);
  const events = (await stack.call('GET', `/api/v1/orders/${orderId}/events`)).body.events as { type: string }[];
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['order.task_delivered', 'order.task_failed']));
  expect((await stack.call('GET', `${tasksUrl}/9`)).status).toBe(404);
});

test('only per-task services take further tasks', async () => {
  const key = await fundedAgent(stack, 'agent-not-tasks', 0);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    agent_id: 'agent-not-tasks',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
  });
  const res = await stack.call(
    'POST',
    `/api/v1/orders/${created.body.order_id}/tasks`,
    { task_prompt: 'x' },
    { authorization: `Bearer ${key}` },
  );
  expect(res.status).toBe(422);
  expect(res.body.code).toBe('task_not_supported');
});
