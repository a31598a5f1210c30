/**
 * The order activities that write several things at once (issue 9 §3), called directly against the real database:
 * `recordTransitions` (consecutive transitions in one write) and `deliverService` (production and the `delivered`
 * record in one activity), with their retries.
 */
import { createActivities, type TransitionRecord } from '../../activities';
import type { EventDoc, OrderDoc } from '../../src/db';
import { type Services } from '../../src/ports';
import { initialOrderDoc } from '../../src/repos/orders';
import { transitionEventData, type OrderStatus } from '../../workflows/shared';
import { buildOrderInput } from '../fixtures/workflowInputs';
import { isolatedServices } from '../helpers/services';

let services: Services;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ services, dispose } = await isolatedServices('orderacts'));
}, 120_000);

afterAll(async () => {
  await dispose?.();
});

/** The activities over the real repositories, with the webhook fan-out recording what it was given. */
function activities(orders = services.orders) {
  const fannedOut: { event: EventDoc; order?: OrderDoc }[] = [];
  const acts = createActivities({
    orders,
    events: services.events,
    wallets: services.wallets,
    linkpay: services.linkpay,
    store: services.store,
    webhooks: {
      fanOut: async (event, order) => {
        fannedOut.push({ event, ...(order ? { order } : {}) });
      },
      fanOutAll: async (items) => {
        fannedOut.push(...items);
      },
    },
  });
  return { acts, fannedOut };
}

/** A recorded order awaiting payment. */
async function newOrder() {
  const input = buildOrderInput({ agentId: 'acts-agent' });
  await services.orders.ensure(initialOrderDoc(input));
  return input;
}

const step = (orderId: string, version: number, status: OrderStatus, patch = {}): TransitionRecord => ({
  orderId,
  version,
  status,
  at: new Date(Date.UTC(2026, 10, 26, 12, 0, version)).toISOString(),
  patch,
  eventSeq: version,
  eventData: transitionEventData(orderId, 'automation-wf', status, patch),
});

const payment = { rail: 'agent_wallet' as const, transaction_id: 'order:x', amount_micros: 69_000_000, paid_at: 'now' };

test('recordTransitions writes paid and fulfilling in one update, with both events and their webhooks in order', async () => {
  const input = await newOrder();
  const { acts, fannedOut } = activities();
  const steps = [step(input.orderId, 2, 'paid', { payment }), step(input.orderId, 3, 'fulfilling')];
  await acts.recordTransitions(steps);

  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'fulfilling', version: 3, payment });
  expect(order?.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'paid', 'fulfilling']);
  expect((await services.events.list(input.orderId)).map((e) => [e.seq, e.type])).toEqual([
    [2, 'order.paid'],
    [3, 'order.fulfillment_started'],
  ]);
  // Each event goes out with the order as it was right after its own transition.
  expect(fannedOut.map((f) => [f.event.seq, f.order?.status, f.order?.version, f.order?.progress.length])).toEqual([
    [2, 'paid', 2, 2],
    [3, 'fulfilling', 3, 3],
  ]);

  // A retry writes nothing twice and sends the stored events again (their deliveries are idempotent).
  await acts.recordTransitions(steps);
  const again = await services.orders.get(input.orderId);
  expect(again?.progress).toHaveLength(3);
  expect(await services.events.list(input.orderId)).toHaveLength(2);
  expect(fannedOut.slice(2).map((f) => f.event._id)).toEqual(fannedOut.slice(0, 2).map((f) => f.event._id));
});

test('deliverService stores the files and records delivered; a retry answers the delivery recorded first', async () => {
  const input = await newOrder();
  const { acts } = activities();
  await acts.recordTransitions([step(input.orderId, 2, 'paid', { payment }), step(input.orderId, 3, 'fulfilling')]);
  const request = {
    orderId: input.orderId,
    serviceId: 'automation-wf',
    inputs: input.inputs,
    issuedAt: '2026-11-26T12:00:00.000Z',
    delivered: { version: 4 },
  };
  const first = await acts.deliverService(request);
  expect(first.recorded).toBe(true);
  expect(first.deliverables.length).toBeGreaterThan(0);
  for (const d of first.deliverables) expect(await services.store.get(d.sha256)).not.toBeNull();
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'delivered', version: 4, deliverables: first.deliverables });
  expect(order?.progress.at(-1)).toEqual({ status: 'delivered', at: first.at });
  const events = await services.events.list(input.orderId);
  expect(events.at(-1)).toMatchObject({ seq: 4, type: 'order.delivered' });
  expect(events.at(-1)?.data.deliverables).toEqual(first.deliverables);

  // An attempt the workflow never heard of, producing other bytes, answers what the first one recorded.
  const retry = await acts.deliverService({ ...request, inputs: { ...input.inputs, target_app: 'Salesforce' } });
  expect(retry).toEqual({ deliverables: first.deliverables, at: first.at, recorded: true });
  expect((await services.orders.get(input.orderId))?.deliverables).toEqual(first.deliverables);
});

test('deliverService whose record fails still answers the stored files, and says the transition is not recorded', async () => {
  const input = await newOrder();
  const failing = Object.create(services.orders) as typeof services.orders;
  failing.applyTransitions = async () => {
    throw new Error('database away');
  };
  const { acts } = activities(failing);
  const result = await acts.deliverService({
    orderId: input.orderId,
    serviceId: 'automation-wf',
    inputs: input.inputs,
    issuedAt: '2026-11-26T12:00:00.000Z',
    delivered: { version: 2 },
  });
  expect(result.recorded).toBe(false);
  expect(result.deliverables.length).toBeGreaterThan(0);
  for (const d of result.deliverables) expect(await services.store.get(d.sha256)).not.toBeNull();
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'awaiting_payment', version: 1 });
});
