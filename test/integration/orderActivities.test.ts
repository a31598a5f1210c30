/**
 * The order activities that write several things at once (issue 9 §3), called directly against the real database:
 * `recordTransitions` (consecutive transitions in one write), `chargeAndRecordPaid` (the charge and `paid` in one
 * activity) and `deliverService` (production and the `delivered`
 * record in one activity), with their retries.
 */
import { createActivities, PRODUCE_WITH_CHARGE_MS, type TransitionRecord } from '../../activities';
import type { EventDoc, OrderDoc } from '../../src/db';
import { type Services } from '../../src/ports';
import { initialOrderDoc } from '../../src/repos/orders';
import type { DeliverableStore } from '../../src/storage/deliverables';
import { transitionEventData, type OrderStatus, type OrderWorkflowInput } from '../../src/domain/order';
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
function activities(orders = services.orders, store: DeliverableStore = services.store) {
  const fannedOut: { event: EventDoc; order?: OrderDoc }[] = [];
  const acts = createActivities({
    orders,
    events: services.events,
    wallets: services.wallets,
    linkpay: services.linkpay,
    store,
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

/** The `deliverService` request of an automation-wf order whose `delivered` is transition `version`. */
const delivery = (input: OrderWorkflowInput, version: number) => ({
  orderId: input.orderId,
  serviceId: input.serviceId,
  inputs: input.inputs,
  issuedAt: '2026-11-26T12:00:00.000Z',
  delivered: { version },
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
  const request = delivery(input, 4);
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

test('recordTransitions after paid was written alone (by an earlier worker) writes fulfilling too', async () => {
  const input = await newOrder();
  const { acts } = activities();
  const paid = step(input.orderId, 2, 'paid', { payment });
  await acts.recordTransition(paid);
  await acts.recordTransitions([paid, step(input.orderId, 3, 'fulfilling')]);
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'fulfilling', version: 3, payment });
  expect(order?.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'paid', 'fulfilling']);
  expect((await services.events.list(input.orderId)).map((e) => e.seq)).toEqual([2, 3]);
});

test('deliverService whose production fails after an earlier attempt recorded the delivery answers that delivery', async () => {
  const input = await newOrder();
  const { acts } = activities();
  const request = delivery(input, 2);
  const first = await acts.deliverService(request);
  expect(first.recorded).toBe(true);
  const brokenStore = {
    put: async () => {
      throw new Error('disk full');
    },
    get: services.store.get.bind(services.store),
  };
  const { acts: failing } = activities(services.orders, brokenStore);
  // The goods were delivered: no failure (which would refund them) once a delivery is on record.
  expect(await failing.deliverService(request)).toEqual(first);
  // Without a recorded delivery the failure is the activity's.
  const other = await newOrder();
  await expect(failing.deliverService({ ...request, orderId: other.orderId })).rejects.toThrow('disk full');
});

test('deliverService of a service with language work stores the files and leaves the record to the workflow', async () => {
  const input = buildOrderInput({ agentId: 'acts-agent', serviceId: 'automation-audit' });
  await services.orders.ensure(initialOrderDoc(input));
  const { acts } = activities();
  const result = await acts.deliverService({
    orderId: input.orderId,
    serviceId: 'automation-audit',
    inputs: { business_description: 'We repair bicycles and take bookings by phone.' },
    issuedAt: '2026-11-26T12:00:00.000Z',
    delivered: { version: 2 },
  });
  expect(result.recorded).toBe(false);
  expect(result.deliverables.length).toBeGreaterThan(0);
  for (const d of result.deliverables) expect(await services.store.get(d.sha256)).not.toBeNull();
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'awaiting_payment', version: 1 });
  expect(await services.events.list(input.orderId)).toEqual([]);
});

test('deliverService whose record fails still answers the stored files, and says the transition is not recorded', async () => {
  const input = await newOrder();
  const failing = Object.create(services.orders) as typeof services.orders;
  failing.applyTransitions = async () => {
    throw new Error('database away');
  };
  const { acts } = activities(failing);
  const result = await acts.deliverService(delivery(input, 2));
  expect(result.recorded).toBe(false);
  expect(result.deliverables.length).toBeGreaterThan(0);
  for (const d of result.deliverables) expect(await services.store.get(d.sha256)).not.toBeNull();
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'awaiting_payment', version: 1 });

  // What the workflow does then: the same transition (number, time, files) through recordTransition, until done.
  await activities().acts.recordTransition({
    ...step(input.orderId, 2, 'delivered', { deliverables: result.deliverables }),
    at: result.at,
  });
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'delivered', version: 2, deliverables: result.deliverables });
  expect(order?.progress.at(-1)).toEqual({ status: 'delivered', at: result.at });
  const events = await services.events.list(input.orderId);
  expect(events.map((e) => [e.seq, e.type])).toEqual([[2, 'order.delivered']]);
  expect(events[0]?.data.deliverables).toEqual(result.deliverables);
});

/** The `chargeAndRecordPaid` request of a wallet-paid order whose `paid` is transition 2. */
const paidCharge = (input: OrderWorkflowInput, agentId: string) => ({
  orderId: input.orderId,
  rail: 'agent_wallet' as const,
  amountMicros: input.amountMicros,
  agentId,
  paidAt: '2026-11-27T12:00:00.000Z',
  serviceId: input.serviceId,
  paid: { version: 2, thenFulfilling: true },
});

test('chargeAndRecordPaid debits once and records paid → fulfilling; a retry answers the time recorded first', async () => {
  const agentId = `acts-pay-${Date.now()}`;
  await services.wallets.credit(agentId, 100_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = await newOrder();
  const { acts, fannedOut } = activities();
  const first = await acts.chargeAndRecordPaid(paidCharge(input, agentId));
  expect(first).toMatchObject({ recorded: true, payment: { rail: 'agent_wallet', amount_micros: input.amountMicros } });
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'fulfilling', version: 3, payment: first.payment });
  expect(order?.progress.slice(1)).toEqual([
    { status: 'paid', at: first.at },
    { status: 'fulfilling', at: first.at },
  ]);
  expect((await services.events.list(input.orderId)).map((e) => [e.seq, e.type])).toEqual([
    [2, 'order.paid'],
    [3, 'order.fulfillment_started'],
  ]);
  expect(fannedOut.map((f) => f.order?.status)).toEqual(['paid', 'fulfilling']);
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);

  // An attempt lost with its worker, run again later: no second debit, no second record, the first time answered.
  await new Promise((r) => setTimeout(r, 5));
  const retry = await acts.chargeAndRecordPaid(paidCharge(input, agentId));
  expect(retry).toEqual({ payment: first.payment, at: first.at, recorded: true });
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);
  expect((await services.orders.get(input.orderId))?.progress).toHaveLength(3);
  expect(await services.events.list(input.orderId)).toHaveLength(2);
});

test('chargeAndDeliver debits once, stores the goods and records paid → fulfilling → delivered in one write; a retry answers the first', async () => {
  const agentId = `acts-fused-${Date.now()}`;
  await services.wallets.credit(agentId, 100_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = await newOrder();
  const { acts, fannedOut } = activities();
  const request = {
    ...paidCharge(input, agentId),
    deliver: { inputs: input.inputs, issuedAt: '2026-12-02T12:00:00.000Z' },
  };
  const first = await acts.chargeAndDeliver(request);
  expect(first).toMatchObject({
    recorded: true,
    payment: { rail: 'agent_wallet', amount_micros: input.amountMicros },
    delivery: { recorded: true },
  });
  const goods = first.delivery!.deliverables;
  expect(goods.length).toBeGreaterThan(0);
  for (const d of goods) expect((await services.store.get(d.sha256))?.length).toBe(d.size);
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'delivered', version: 4, payment: first.payment, deliverables: goods });
  expect(order?.progress.slice(1)).toEqual([
    { status: 'paid', at: first.at },
    { status: 'fulfilling', at: first.at },
    { status: 'delivered', at: first.delivery!.at },
  ]);
  expect((await services.events.list(input.orderId)).map((e) => [e.seq, e.type])).toEqual([
    [2, 'order.paid'],
    [3, 'order.fulfillment_started'],
    [4, 'order.delivered'],
  ]);
  // Each webhook shows the order as it was after its own transition: no goods before `delivered`.
  expect(fannedOut.map((f) => [f.order?.status, f.order?.deliverables.length])).toEqual([
    ['paid', 0],
    ['fulfilling', 0],
    ['delivered', goods.length],
  ]);
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);

  // An attempt lost with its worker, run again: no second debit, no second record, the first delivery answered.
  const retry = await acts.chargeAndDeliver(request);
  expect(retry).toEqual(first);
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);
  expect(await services.events.list(input.orderId)).toHaveLength(3);
});

test('chargeAndDeliver whose production fails keeps the charge, records paid → fulfilling alone and leaves the goods to the workflow', async () => {
  const agentId = `acts-fused-fail-${Date.now()}`;
  await services.wallets.credit(agentId, 100_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = await newOrder();
  const broken: DeliverableStore = {
    put: async () => {
      throw new Error('disk full');
    },
    get: async () => null,
  };
  const result = await activities(services.orders, broken).acts.chargeAndDeliver({
    ...paidCharge(input, agentId),
    deliver: { inputs: input.inputs, issuedAt: '2026-12-02T12:00:00.000Z' },
  });
  expect(result).toMatchObject({ recorded: true, payment: { rail: 'agent_wallet' } });
  expect(result.delivery).toBeUndefined();
  expect(await services.orders.get(input.orderId)).toMatchObject({
    status: 'fulfilling',
    version: 3,
    deliverables: [],
  });
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);
  // The workflow's `deliverService` then delivers as transition 4.
  const delivered = await activities().acts.deliverService(delivery(input, 4));
  expect(delivered.recorded).toBe(true);
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'delivered', version: 4 });
});

test('chargeAndDeliver whose storage is slow answers within its budget with the payment recorded and the goods left to the workflow', async () => {
  const agentId = `acts-fused-slow-${Date.now()}`;
  await services.wallets.credit(agentId, 100_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = await newOrder();
  const stalled: DeliverableStore = {
    put: () => new Promise(() => undefined),
    putMany: () => new Promise(() => undefined),
    get: async () => null,
  };
  const started = Date.now();
  const result = await activities(services.orders, stalled).acts.chargeAndDeliver({
    ...paidCharge(input, agentId),
    deliver: { inputs: input.inputs, issuedAt: '2026-12-02T12:00:00.000Z' },
  });
  const took = Date.now() - started;
  expect(took).toBeGreaterThanOrEqual(PRODUCE_WITH_CHARGE_MS);
  expect(took).toBeLessThan(PRODUCE_WITH_CHARGE_MS + 5_000); // well inside the payment's 10 s timeout
  expect(result).toMatchObject({ recorded: true, payment: { rail: 'agent_wallet' } });
  expect(result.delivery).toBeUndefined();
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'fulfilling', version: 3 });
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);
});

test('chargeAndRecordPaid refused for funds records nothing; a failed record keeps the charge and says so', async () => {
  const agentId = `acts-short-${Date.now()}`;
  await services.wallets.credit(agentId, 1_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = await newOrder();
  await expect(activities().acts.chargeAndRecordPaid(paidCharge(input, agentId))).rejects.toMatchObject({
    type: 'insufficient_funds',
    nonRetryable: true,
  });
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'awaiting_payment', version: 1 });
  expect(await services.events.list(input.orderId)).toEqual([]);

  await services.wallets.credit(agentId, 100_000_000, `topup2:${agentId}`, 'test top-up', 'test');
  const failing = Object.create(services.orders) as typeof services.orders;
  failing.applyTransitions = async () => {
    throw new Error('database away');
  };
  const result = await activities(failing).acts.chargeAndRecordPaid(paidCharge(input, agentId));
  expect(result).toMatchObject({ recorded: false, payment: { rail: 'agent_wallet' } });
  expect(await services.wallets.balance(agentId)).toBe(101_000_000 - input.amountMicros);
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'awaiting_payment', version: 1 });
});

test('the first transition of an order whose creator died writes the order, order.created and its webhooks first', async () => {
  // The API started the workflow and died before writing anything (issue 25 §4): no order, no event.
  const agentId = `acts-orphan-${Date.now()}`;
  await services.wallets.credit(agentId, 100_000_000, `topup:${agentId}`, 'test top-up', 'test');
  const input = buildOrderInput({ agentId });
  const { acts, fannedOut } = activities();
  const paid = await acts.chargeAndRecordPaid({ ...paidCharge(input, agentId), create: input });
  expect(paid.recorded).toBe(true);
  const order = await services.orders.get(input.orderId);
  expect(order).toMatchObject({ status: 'fulfilling', version: 3, agent_id: agentId, payment: paid.payment });
  expect(order?.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'paid', 'fulfilling']);
  expect((await services.events.list(input.orderId)).map((e) => [e.seq, e.type])).toEqual([
    [1, 'order.created'],
    [2, 'order.paid'],
    [3, 'order.fulfillment_started'],
  ]);
  // order.created goes out before the events that follow it, with the order as created.
  expect(fannedOut.map((f) => [f.event.seq, f.order?.status])).toEqual([
    [1, 'awaiting_payment'],
    [2, 'paid'],
    [3, 'fulfilling'],
  ]);
  expect(await services.wallets.balance(agentId)).toBe(100_000_000 - input.amountMicros);

  // An order that expires unpaid with no record (recordTransitions): the same, then `expired`.
  const expiring = buildOrderInput({ agentId });
  await acts.recordTransition({ ...step(expiring.orderId, 2, 'expired'), create: expiring });
  expect(await services.orders.get(expiring.orderId)).toMatchObject({ status: 'expired', version: 2 });
  expect((await services.events.list(expiring.orderId)).map((e) => e.type)).toEqual(['order.created', 'order.expired']);
});

test('the first transition of an order its creator recorded writes nothing again, also on a retry', async () => {
  const input = await newOrder();
  const { acts, fannedOut } = activities();
  const steps = [
    { ...step(input.orderId, 2, 'paid', { payment }), create: input },
    step(input.orderId, 3, 'fulfilling'),
  ];
  await acts.recordTransitions(steps);
  await acts.recordTransitions(steps);
  expect(await services.orders.get(input.orderId)).toMatchObject({ status: 'fulfilling', version: 3 });
  // No order.created from the transition: the creator wrote it (newOrder writes the read model only).
  expect((await services.events.list(input.orderId)).map((e) => e.seq)).toEqual([2, 3]);
  expect(fannedOut.map((f) => f.event.seq)).toEqual([2, 3, 2, 3]);
});
