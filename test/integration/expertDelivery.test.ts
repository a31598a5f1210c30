/**
 * Expert delivery over days (issue 6 §1) on Temporal's time-skipping test server, through the real API and worker:
 * a custom_7_days order (robot-control-system, 168 h) from payment to acceptance with the 80% escalation; the SLA
 * breach with the buyer's cancel and full refund; a breach where the buyer keeps waiting and the engineer delivers;
 * a worker shut down during the long wait and replaced. With RECORD_HISTORIES=1 the first order's history is written
 * to test/fixtures/histories/ for the replay test.
 */
import path from 'node:path';
import { saveHistory } from '../helpers/histories';
import { OPERATOR_KEY } from '../helpers/stack';
import {
  fundAgent,
  startTimeSkippingStack,
  waitForOrderTs,
  type TimeSkippingStack,
} from '../helpers/timeSkippingStack';
import { orderWorkflowId } from '../../workflows/shared';

let stack: TimeSkippingStack;
const op = { authorization: `Bearer ${OPERATOR_KEY}` };
const HOUR = 3600_000;

// One test server per test: its clock is global to all workflows on it.
beforeEach(async () => {
  stack = await startTimeSkippingStack();
}, 120_000);
afterEach(async () => {
  await stack?.stop();
});

const robotInputs = {
  robot_type: 'six-axis arm',
  controller: 'ROS 2 Humble',
  objective: 'pick and place parcels from a conveyor',
};

/** Creates a robot-control-system order for a funded agent, pays it from the wallet, waits for the engineer queue. */
async function paidExpertOrder(agentId: string): Promise<{ orderId: string; key: string }> {
  const key = await fundAgent(stack, agentId, 499);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'robot-control-system',
    agent_id: agentId,
    inputs: robotInputs,
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    { authorization: `Bearer ${key}` },
  );
  expect(paid.status).toBe(200);
  await waitForOrderTs(stack, orderId, (o) => o.status === 'in_engineering');
  return { orderId, key };
}

const statuses = (o: { progress: { status: string; event?: string }[] }) =>
  o.progress.map((p) => (p.event ? `${p.status}:${p.event}` : p.status));

async function eventTypes(orderId: string): Promise<string[]> {
  const res = await stack.call('GET', `/api/v1/orders/${orderId}/events`);
  expect(res.status).toBe(200);
  return (res.body.events as { type: string }[]).map((e) => e.type);
}

/** Waits (real time) until the order's event log holds `type`: Updates answer before their event is appended. */
async function waitForEvent(orderId: string, type: string): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const types = await eventTypes(orderId);
    if (types.includes(type) || Date.now() > deadline) return types;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('custom_7_days order: blueprint at once, engineer queue, escalation at 80%, delivery, acceptance', async () => {
  const { orderId, key } = await paidExpertOrder('agent-expert-1');
  const order = (await stack.call('GET', `/api/v1/orders/${orderId}`)).body;
  // What can be produced at once is delivered at once: the blueprint documents, checksummed.
  expect(order.deliverables.length).toBeGreaterThan(0);
  expect(order.deliverables.every((d: { service_id: string }) => d.service_id === 'robot-control-system')).toBe(true);
  const paidAt = Date.parse(order.payment.paid_at);
  expect(Date.parse(order.engineering.sla_deadline) - paidAt).toBe(168 * HOUR);
  expect(Date.parse(order.engineering.escalate_at) - paidAt).toBe(Math.round(0.8 * 168 * HOUR));
  expect(order.engineering).toMatchObject({
    queue: 'expert',
    engineer: null,
    escalated_at: null,
    breached_at: null,
    can_cancel: false,
  });

  // Operators only.
  expect((await stack.call('GET', '/api/v1/engineering/queue')).status).toBe(401);
  const queue = await stack.call('GET', '/api/v1/engineering/queue?unclaimed=true', undefined, op);
  expect(queue.status).toBe(200);
  const item = (queue.body.items as { order_id: string }[]).find((i) => i.order_id === orderId);
  expect(item).toMatchObject({ service_id: 'robot-control-system', engineer: null, breached: false });

  // Uploads before a claim are refused; the claim is an Update with a validator.
  const early = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/deliverables`,
    { engineer: 'alice', name: 'x.txt', content_base64: 'aGk=' },
    op,
  );
  expect(early.status).toBe(409);
  expect(early.body.code).toBe('engineering_not_claimed');
  const claim = await stack.call('POST', `/api/v1/engineering/${orderId}/claim`, { engineer: 'alice' }, op);
  expect(claim.status).toBe(200);
  expect(claim.body.engineering).toMatchObject({ engineer: 'alice' });
  const steal = await stack.call('POST', `/api/v1/engineering/${orderId}/claim`, { engineer: 'bob' }, op);
  expect(steal.status).toBe(409);
  expect(steal.body.code).toBe('already_claimed');

  const controller = Buffer.from('# controller.py\nprint("pick")\n');
  const up1 = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/deliverables`,
    {
      engineer: 'alice',
      name: 'robot-controller.py',
      media_type: 'text/x-python',
      content_base64: controller.toString('base64'),
    },
    op,
  );
  expect(up1.status).toBe(201);
  expect(up1.body.deliverable.size).toBe(controller.length);
  // Another file under a taken name is refused; the same file again is a harmless retry.
  const clash = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/deliverables`,
    { engineer: 'alice', name: 'robot-controller.py', content_base64: 'b3RoZXI=' },
    op,
  );
  expect(clash.status).toBe(409);
  expect(clash.body.code).toBe('deliverable_conflict');

  // Five and a half days pass: past 80% of 168 h, the order is escalated (a progress entry and an event).
  await stack.env.sleep(135 * HOUR);
  const escalated = await waitForOrderTs(stack, orderId, (o) => o.engineering?.escalated_at !== null);
  expect(escalated.status).toBe('in_engineering');
  expect(statuses(escalated)).toContain('in_engineering:sla_escalated');

  // A raw upload (the file as the body), then ready: delivered with the blueprint and the engineer's files.
  const report = Buffer.from('%PDF-1.4 commissioning report\n');
  const up2 = await fetch(
    `${stack.url}/api/v1/engineering/${orderId}/deliverables?engineer=alice&name=commissioning-report.pdf`,
    {
      method: 'POST',
      headers: { ...op, 'content-type': 'application/pdf' },
      body: report,
    },
  );
  expect(up2.status).toBe(201);
  const ready = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/ready`,
    { engineer: 'alice', note: 'tested on the line' },
    op,
  );
  expect(ready.status).toBe(200);
  expect(ready.body.status).toBe('delivered');
  const names = (ready.body.deliverables as { name: string }[]).map((d) => d.name);
  expect(names).toEqual(expect.arrayContaining(['robot-controller.py', 'commissioning-report.pdf']));
  expect(names.length).toBe(order.deliverables.length + 2);
  const verification = await stack.call('GET', `/api/v1/orders/${orderId}/verification`);
  expect(verification.body.status).toBe('verified');
  const pdf = await fetch(`${stack.url}/api/v1/orders/${orderId}/deliverables/commissioning-report.pdf`);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expect(Buffer.from(await pdf.arrayBuffer()).equals(report)).toBe(true);

  // The buyer reviews as for any order.
  const review = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${key}` },
  );
  expect(review.status).toBe(200);
  expect(review.body.status).toBe('accepted');
  const final = await waitForOrderTs(stack, orderId, (o) => o.status === 'accepted');
  expect(statuses(final)).toEqual([
    'awaiting_payment',
    'paid',
    'fulfilling',
    'in_engineering',
    'in_engineering:engineer_claimed',
    'in_engineering:deliverable_uploaded',
    'in_engineering:sla_escalated',
    'in_engineering:deliverable_uploaded',
    'delivered',
    'accepted',
  ]);
  expect(await waitForEvent(orderId, 'order.accepted')).toEqual([
    'order.created',
    'order.paid',
    'order.fulfillment_started',
    'order.in_engineering',
    'order.engineer_claimed',
    'order.deliverable_uploaded',
    'order.sla_escalated',
    'order.deliverable_uploaded',
    'order.delivered',
    'order.accepted',
  ]);
  expect(await stack.services.wallets.balance('agent-expert-1')).toBe(0);
  const queueAfter = await stack.call('GET', '/api/v1/engineering/queue', undefined, op);
  expect((queueAfter.body.items as { order_id: string }[]).some((i) => i.order_id === orderId)).toBe(false);

  if (process.env.RECORD_HISTORIES === '1') {
    const history = await stack.env.client.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory();
    const file = path.resolve(__dirname, '..', 'fixtures', 'histories', 'expert-custom-7-days.json');
    saveHistory(file, history);
  }
});

test('SLA breach: the buyer is told, may cancel for a full refund', async () => {
  const { orderId, key } = await paidExpertOrder('agent-expert-2');
  // Before the deadline the buyer cannot cancel.
  const tooEarly = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/cancel`,
    { reason: 'impatient' },
    { authorization: `Bearer ${key}` },
  );
  expect(tooEarly.status).toBe(409);
  expect(tooEarly.body.current_status).toBe('in_engineering');
  await stack.env.sleep(169 * HOUR);
  const breached = await waitForOrderTs(stack, orderId, (o) => o.status === 'sla_breached');
  expect(breached.engineering).toMatchObject({ can_cancel: true });
  expect(breached.engineering.breached_at).not.toBeNull();
  expect(breached.engineering.escalated_at).not.toBeNull();
  const types = await eventTypes(orderId);
  expect(types).toEqual(expect.arrayContaining(['order.sla_escalated', 'order.sla_breached']));
  expect(types.indexOf('order.sla_escalated')).toBeLessThan(types.indexOf('order.sla_breached'));

  const cancelled = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/cancel`,
    { reason: 'needed it this week' },
    { authorization: `Bearer ${key}` },
  );
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.status).toBe('cancelled');
  expect(cancelled.body.refund).toMatchObject({ status: 'completed', rail: 'agent_wallet', amount: 499 });
  expect(await stack.services.wallets.balance('agent-expert-2')).toBe(499_000_000);
  expect((await waitForEvent(orderId, 'order.cancelled')).slice(-1)).toEqual(['order.cancelled']);
  // The engineer can no longer deliver a cancelled order.
  const late = await stack.call('POST', `/api/v1/engineering/${orderId}/claim`, { engineer: 'carol' }, op);
  expect(late.status).toBe(409);
});

test('SLA breach: the buyer keeps waiting, the engineer delivers, the buyer accepts', async () => {
  const { orderId, key } = await paidExpertOrder('agent-expert-3');
  await stack.env.sleep(170 * HOUR);
  await waitForOrderTs(stack, orderId, (o) => o.status === 'sla_breached');
  expect((await stack.call('POST', `/api/v1/engineering/${orderId}/claim`, { engineer: 'dave' }, op)).status).toBe(200);
  expect((await stack.call('POST', `/api/v1/engineering/${orderId}/ready`, { engineer: 'dave' }, op)).body.code).toBe(
    'no_deliverables',
  );
  const up = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/deliverables`,
    {
      engineer: 'dave',
      name: 'late-delivery.md',
      media_type: 'text/markdown',
      content_base64: Buffer.from('# done\n').toString('base64'),
    },
    op,
  );
  expect(up.status).toBe(201);
  const ready = await stack.call('POST', `/api/v1/engineering/${orderId}/ready`, { engineer: 'dave' }, op);
  expect(ready.body.status).toBe('delivered');
  // Cancelling is over once delivered.
  expect(
    (await stack.call('POST', `/api/v1/orders/${orderId}/cancel`, {}, { authorization: `Bearer ${key}` })).status,
  ).toBe(409);
  const review = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${key}` },
  );
  expect(review.body.status).toBe('accepted');
  expect(statuses(review.body)).toEqual(expect.arrayContaining(['sla_breached', 'delivered', 'accepted']));
});

test('a worker shut down during the days-long wait is replaced; the order completes', async () => {
  const { orderId, key } = await paidExpertOrder('agent-expert-4');
  expect((await stack.call('POST', `/api/v1/engineering/${orderId}/claim`, { engineer: 'erin' }, op)).status).toBe(200);
  await stack.stopWorker();
  // Five days and ten hours pass with no worker at all. (The test server does not move time past a fired timer
  // whose workflow task no worker picks up, so the outage ends before the escalation is due.)
  await stack.env.sleep(130 * HOUR);
  const meanwhile = (await stack.call('GET', `/api/v1/orders/${orderId}`)).body;
  expect(meanwhile.status).toBe('in_engineering');
  expect(meanwhile.engineering.escalated_at).toBeNull();
  // A new worker has no cached state: it rebuilds the order from its history, then the clock runs on.
  await stack.startWorker();
  await stack.env.sleep(10 * HOUR);
  await waitForOrderTs(stack, orderId, (o) => o.engineering?.escalated_at !== null);
  const up = await stack.call(
    'POST',
    `/api/v1/engineering/${orderId}/deliverables`,
    { engineer: 'erin', name: 'firmware.bin', content_base64: Buffer.from([1, 2, 3, 4]).toString('base64') },
    op,
  );
  expect(up.status).toBe(201);
  const ready = await stack.call('POST', `/api/v1/engineering/${orderId}/ready`, { engineer: 'erin' }, op);
  expect(ready.body.status).toBe('delivered');
  const review = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${key}` },
  );
  expect(review.body.status).toBe('accepted');
  // Exactly once: one escalation, one debit.
  await waitForEvent(orderId, 'order.accepted');
  expect((await eventTypes(orderId)).filter((t) => t === 'order.sla_escalated')).toHaveLength(1);
  expect(await stack.services.wallets.balance('agent-expert-4')).toBe(0);
});
