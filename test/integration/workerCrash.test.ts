/**
 * A worker process killed with SIGKILL while an order is being fulfilled, then restarted: the order completes
 * exactly once (one debit, one set of deliverables, no repeated transitions or events).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startStack, waitForOrder, fundedAgent, type Stack } from '../helpers/stack';

let stack: Stack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The in-process worker polls another task queue, so only the child worker process runs these orders.
  stack = await startStack();
}, 120_000);
/** SIGKILL to the whole process group: tsx runs the worker in a child process of its own. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

afterAll(async () => {
  for (const c of children) killGroup(c);
  await stack?.stop();
});

/** Starts `worker/index.ts` as its own process on the stack's task queue and waits until it polls. */
function startWorkerProcess(taskQueue: string): Promise<ChildProcess> {
  const root = path.resolve(__dirname, '..', '..');
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'worker', 'index.ts')], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: stack.config.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: stack.config.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: taskQueue,
      MONGODB_URI: stack.config.MONGODB_URI,
      MONGODB_DB: stack.config.MONGODB_DB,
      DATA_DIR: stack.config.DATA_DIR,
      PUBLIC_BASE_URL: stack.config.PUBLIC_BASE_URL,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('worker: task queue')) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out.slice(-2000)}`)));
  });
}

test('SIGKILL during fulfillment, restart: the order completes exactly once', async () => {
  const queue = stack.config.TEMPORAL_TASK_QUEUE;
  // Stop the in-process worker: from here on only worker processes serve the task queue.
  stack.worker.shutdown();
  const first = await startWorkerProcess(queue);
  const key = await fundedAgent(stack, 'agent-crash', 500);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'growth-pack',
    agent_id: 'agent-crash',
    inputs: { business_name: 'Northwind Clinic', growth_goals: 'more bookings', contact_email: 'ops@northwind.example' },
  });
  expect(created.status).toBe(201);
  const id = created.body.order_id as string;
  const paid = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${key}` });
  expect(paid.status).toBe(200);
  killGroup(first);
  await new Promise<void>((resolve) => (first.exitCode !== null || first.signalCode !== null ? resolve() : first.once('exit', () => resolve())));
  const statusAtKill = (await stack.call('GET', `/api/v1/orders/${id}`)).body.status;

  await startWorkerProcess(queue);
  const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered', 60_000);
  // The read model may still say awaiting_payment: the Update answers as soon as the workflow has the payment,
  // and the kill can land before the transition is written. Either way the order must complete once.
  expect(['awaiting_payment', 'paid', 'fulfilling', 'delivered']).toContain(statusAtKill);
  expect(delivered.progress.map((p: { status: string }) => p.status)).toEqual(['awaiting_payment', 'paid', 'fulfilling', 'delivered']);
  const names = delivered.deliverables.map((d: { name: string }) => d.name);
  expect(new Set(names).size).toBe(names.length);
  expect(new Set(delivered.deliverables.map((d: { service_id: string }) => d.service_id)).size).toBe(6);

  const wallet = await stack.services.wallets.snapshot('agent-crash');
  expect(wallet?.entries.filter((e) => e.type === 'debit')).toHaveLength(1);
  expect(wallet?.balance_micros).toBe(500_000_000 - 299_000_000);
  const events = await stack.services.events.list(id);
  expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]); // 1 = order.created (recordOrder)
  const verification = await stack.call('GET', `/api/v1/orders/${id}/verification`);
  expect(verification.body.status).toBe('verified');
}, 120_000);
