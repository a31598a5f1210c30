/**
 * What operators read in the Temporal Web UI (issue 26 §1): each order's current details at each stage (the
 * `__temporal_workflow_metadata` query the Web UI reads), the `WaitingOn` / `WaitingSince` search attributes
 * (`describe()`), summaries on the timeline's activities and timers, and the history event counts of a simple wallet
 * order, an expert order and a subscription month (docs/operators.md). Time-skipping test server with fake
 * activities; the visibility query operators type runs on the dev server (the time-skipping server has no list).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { orderWorkflow } from '../../../workflows/order';
import { subscriptionWorkflow } from '../../../workflows/subscription';
import { webhookDeliveryWorkflow } from '../../../workflows/webhooks';
import { x402ReconcileWorkflow } from '../../../workflows/x402Reconcile';
import { utc } from '../../../workflows/details';
import {
  SA,
  addDeliverableUpdate,
  claimEngineeringUpdate,
  confirmPaymentUpdate,
  getStateQuery,
  markReadyUpdate,
  orderWorkflowId,
  reviewUpdate,
} from '../../../workflows/shared';
import { type OrderState, type OrderWorkflowInput } from '../../../src/domain/order';
import { periodOf, type SubscriptionInput } from '../../../src/domain/subscription';
import { subscriptionWorkflowId } from '../../../workflows/subscriptionShared';
import { buildExpertOrderInput, buildOrderInput, buildSubscriptionInput } from '../../fixtures/workflowInputs';
import { binaries } from '../../../scripts/lib/servers';
import { saveHistory } from '../../helpers/histories';
import {
  FakeWallet,
  createWorkflowTestEnv,
  eventually,
  fakeActivities,
  withDevServerWorker,
  withWorker,
} from '../../helpers/workflowTestEnv';

const HOUR = 3600_000;
const run = promisify(execFile);

/**
 * With RECORD_HISTORIES=1, stores `handle`'s history as replay fixture `name` (test/integration/replay.test.ts: the
 * runs of each patch keep replaying; `order-wallet-rejected-operator-view.json` was recorded here before
 * `paid-recorded-with-charge`, `…-paid-with-charge.json` before `order-recorded-at-creation`, `…-recorded-at-creation.json`
 * before `charge-and-deliver`).
 */
async function record(name: string, handle: WorkflowHandle): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  saveHistory(path.resolve(__dirname, '..', '..', 'fixtures', 'histories', name), await handle.fetchHistory());
}
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

/** The search attributes the API sets when it starts an order (src/temporal/orders.ts). */
const orderStartAttributes = (input: OrderWorkflowInput) => [
  { key: SA.orderStatus, value: 'awaiting_payment' },
  { key: SA.serviceId, value: input.serviceId },
  { key: SA.waitingOn, value: 'payment' },
  { key: SA.waitingSince, value: new Date(input.record.created_at) },
];

const startOrder = (client: Client, input: OrderWorkflowInput, taskQueue: string) =>
  client.workflow.start(orderWorkflow, {
    taskQueue,
    workflowId: orderWorkflowId(input.orderId),
    args: [input],
    typedSearchAttributes: orderStartAttributes(input),
  });

/** The current details, as the Web UI reads them (`__temporal_workflow_metadata`). */
const details = async (handle: WorkflowHandle): Promise<string> =>
  (await handle.query(workflowMetadataQuery)).currentDetails ?? '';
const headline = async (handle: WorkflowHandle): Promise<string> => (await details(handle)).split('\n')[0] ?? '';

/** `WaitingOn` and `WaitingSince` (ISO) as `describe()` shows them. */
async function waiting(handle: WorkflowHandle): Promise<{ on?: string; since?: string }> {
  const sa = (await handle.describe()).typedSearchAttributes;
  return { on: sa.get(SA.waitingOn), since: sa.get(SA.waitingSince)?.toISOString() };
}

/** The time of the newest progress entry of `status`. */
const at = (state: OrderState, status: string): string =>
  [...state.progress].reverse().find((p) => p.status === status && p.event === undefined)?.at ?? '';

const EventType = temporal.api.enums.v1.EventType;
const name = (e: temporal.api.history.v1.IHistoryEvent) =>
  (EventType[e.eventType ?? 0] ?? String(e.eventType)).replace('EVENT_TYPE_', '');

/** Events that put a bar on the Web UI timeline (activities, local activities, timers) and their summaries. */
function timeline(history: temporal.api.history.v1.IHistory): { event: string; summary: string | null }[] {
  return (history.events ?? [])
    .filter((e) => {
      const n = name(e);
      if (n === 'ACTIVITY_TASK_SCHEDULED' || n === 'TIMER_STARTED') return true;
      return n === 'MARKER_RECORDED' && e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
    })
    .map((e) => {
      const data = e.userMetadata?.summary?.data;
      return { event: name(e), summary: data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : null };
    });
}

/** Event counts by type, for the log. */
function counts(history: temporal.api.history.v1.IHistory): Record<string, number> {
  const by: Record<string, number> = {};
  for (const e of history.events ?? []) by[name(e)] = (by[name(e)] ?? 0) + 1;
  return by;
}

test('a wallet order: payment due, a refused attempt, review window, refunded after rejection; WaitingOn follows', async () => {
  const wallet = new FakeWallet({ 'agent-o': 1_000_000 });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-o' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await startOrder(env.client, input, taskQueue);
    expect(await details(handle)).toBe(
      [
        `**Payment due** — 69.00 USD on \`linkpay_ncp\`, \`x402_usdc\` or \`agent_wallet\`, expires ${utc(input.record.payment_deadline)}`,
        '',
        `- Order \`${input.orderId}\` · automation-wf · 69.00 USD`,
      ].join('\n'),
    );
    expect(await waiting(handle)).toEqual({ on: 'payment', since: input.record.created_at });

    await expect(handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] })).rejects.toThrow();
    expect(await details(handle)).toContain('- Last payment attempt refused: insufficient\\_funds on agent\\_wallet');

    wallet.balances.set('agent-o', 100_000_000);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    const delivered = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'delivered',
    );
    const autoAccept = new Date(Date.parse(at(delivered, 'delivered')) + input.reviewWindowSeconds * 1000);
    expect(await headline(handle)).toBe(
      `**Waiting for the buyer's review** — auto-accept at ${utc(autoAccept.toISOString())}`,
    );
    expect(await details(handle)).toContain(
      `- Paid 69.00 USD on \`agent_wallet\` at ${utc(delivered.payment?.paid_at ?? '')}`,
    );
    expect(await waiting(handle)).toEqual({ on: 'buyer_review', since: at(delivered, 'delivered') });

    const final = await handle.executeUpdate(reviewUpdate, { args: [{ action: 'reject', reason: 'wrong CRM' }] });
    expect(await headline(handle)).toBe('**Refunded 69.00 USD after rejection**: wrong CRM');
    expect(await waiting(handle)).toEqual({ on: 'nothing', since: at(final, 'rejected') });

    await record('order-wallet-rejected-charge-and-deliver.json', handle);
    // Every activity, local activity and timer on the timeline says what it is. The order's record is its creator's
    // (issue 25 §4): no `Record order` at the start.
    expect(timeline(await handle.fetchHistory())).toEqual([
      { event: 'TIMER_STARTED', summary: `Payment deadline: expires at ${utc(input.record.payment_deadline)}` },
      {
        event: 'MARKER_RECORDED',
        summary: 'Charge 69.00 USD on agent_wallet, produce automation-wf, record paid → fulfilling → delivered',
      },
      {
        event: 'MARKER_RECORDED',
        summary: 'Charge 69.00 USD on agent_wallet, produce automation-wf, record paid → fulfilling → delivered',
      },
      { event: 'TIMER_STARTED', summary: `Review window: auto-accept at ${utc(autoAccept.toISOString())}` },
      { event: 'MARKER_RECORDED', summary: 'Refund 69.00 USD on agent_wallet (rejected: wrong CRM)' },
      { event: 'MARKER_RECORDED', summary: 'Record rejected' },
    ]);
  });
});

test('an expert order: engineer queue, claimed, upload, escalated, delivered, accepted; WaitingOn engineer then buyer_review', async () => {
  const input = buildExpertOrderInput({
    agentId: 'agent-x',
    expert: { maxFulfillmentHours: 10, escalateAtPercent: 80 },
  });
  const acts = fakeActivities(new FakeWallet({ 'agent-x': input.amountMicros }));
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await startOrder(env.client, input, taskQueue);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    const queued = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'in_engineering',
    );
    const eng = queued.engineering;
    if (!eng) throw new Error('no engineering record');
    expect(await headline(handle)).toBe(`**In engineering** (unclaimed) — SLA deadline ${utc(eng.sla_deadline)}`);
    expect(await details(handle)).toContain(`- Escalates at ${utc(eng.escalate_at)}`);
    const since = at(queued, 'in_engineering');
    expect(await waiting(handle)).toEqual({ on: 'engineer', since });

    const claimed = await handle.executeUpdate(claimEngineeringUpdate, { args: [{ engineer: 'eve' }] });
    const claimedAt = utc(claimed.engineering?.claimed_at ?? '');
    expect(await headline(handle)).toBe(
      `**In engineering** (engineer eve, claimed ${claimedAt}) — SLA deadline ${utc(eng.sla_deadline)}`,
    );
    await handle.executeUpdate(addDeliverableUpdate, {
      args: [{ engineer: 'eve', name: 'controller.py', sha256: 'b'.repeat(64), size: 12, media_type: 'text/x-python' }],
    });
    expect(await headline(handle)).toBe(
      `**In engineering** (engineer eve, claimed ${claimedAt}; 1 upload) — SLA deadline ${utc(eng.sla_deadline)}`,
    );
    expect(await details(handle)).toContain('- Uploads: controller.py');

    // Past 80 % of the 10 h SLA: escalated, still waiting on the engineer since the queue was entered.
    await env.sleep(8.5 * HOUR);
    const escalated = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.engineering?.escalated_at != null,
    );
    expect(await details(handle)).toContain(`- Escalated at ${utc(escalated.engineering?.escalated_at ?? '')}`);
    expect(await waiting(handle)).toEqual({ on: 'engineer', since });

    const ready = await handle.executeUpdate(markReadyUpdate, { args: [{ engineer: 'eve' }] });
    expect(await headline(handle)).toMatch(/^\*\*Waiting for the buyer's review\*\* — auto-accept at /);
    expect(await details(handle)).toContain(`- Delivered ${utc(at(ready, 'delivered'))}: README.md, controller.py`);
    expect(await waiting(handle)).toEqual({ on: 'buyer_review', since: at(ready, 'delivered') });

    const final = await handle.executeUpdate(reviewUpdate, { args: [{ action: 'accept' }] });
    expect(await headline(handle)).toBe(`**Accepted** by the buyer at ${utc(at(final, 'accepted'))}`);
    expect(await waiting(handle)).toEqual({ on: 'nothing', since: at(final, 'accepted') });

    await record('expert-recorded-at-creation.json', handle);
    const bars = timeline(await handle.fetchHistory());
    expect(bars.filter((b) => b.summary === null)).toEqual([]);
    expect(bars.map((b) => b.summary)).toEqual(
      expect.arrayContaining([
        'Record engineer_claimed (eve)',
        'Record deliverable_uploaded (eve)',
        `SLA escalation at ${utc(eng.escalate_at)}`,
        `SLA deadline at ${utc(eng.sla_deadline)}`,
        'Record sla_escalated (eve)',
        'Record delivered',
      ]),
    );
  });
});

test('a subscription between renewals waits on its renewal; a refused debit makes it wait on payment', async () => {
  const anchor = new Date(await env.currentTimeMs()).toISOString();
  const input: SubscriptionInput = buildSubscriptionInput({ agentId: 'agent-d', anchor });
  const wallet = new FakeWallet({ 'agent-d': 0 });
  const acts = fakeActivities(wallet);
  const p1 = periodOf(anchor, 1);
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await env.client.workflow.start(subscriptionWorkflow, {
      taskQueue,
      workflowId: subscriptionWorkflowId(input.orderId),
      args: [input],
    });
    expect(await headline(handle)).toBe(`**Period 1** — renewal 2 on ${utc(p1.end)}`);
    // Started without the attributes (the order's startChild sets them): the run upserts them itself.
    expect(await waiting(handle)).toEqual({ on: 'renewal', since: p1.start });
    await env.sleep(Date.parse(p1.end) - Date.parse(anchor) + 60_000);
    await eventually(
      () => waiting(handle),
      (w) => w.on === 'payment',
    );
    expect(await headline(handle)).toMatch(/^\*\*Payment failed\*\* for period 2 — retry 1 at /);
    expect(await details(handle)).toContain('- Last charge refused: insufficient\\_funds');
    await handle.terminate('test over');
  });
});

test('a webhook delivery waits on its receiver between attempts; an x402 settlement on chain; nothing at the end', async () => {
  let attempts = 0;
  let checks = 0;
  const acts = {
    hasPendingPredecessor: jest.fn(async () => false),
    attemptDelivery: jest.fn(async () =>
      ++attempts < 3
        ? { kind: 'failed' as const, status: 500, retryInMs: 5_000 }
        : { kind: 'delivered' as const, status: 200 },
    ),
    settleMessage: jest.fn(async () => undefined),
    reconcileX402Payment: jest.fn(async () => ({
      payment_id: 'x4p_1',
      order_id: 'ord_x',
      status: ++checks < 3 ? ('pending' as const) : ('settled' as const),
      transaction: null,
      reason: null,
    })),
    confirmX402Order: jest.fn(async () => ({ confirmed: true, order_status: 'paid', reason: null })),
  };
  await withWorker(env, acts, async (taskQueue) => {
    const delivery = await env.client.workflow.start(webhookDeliveryWorkflow, {
      taskQueue,
      workflowId: `webhook-evt_view-wep_view-${taskQueue}`,
      args: [{ messageId: 'msg_1', eventId: 'evt_1', endpointId: 'wep_1', orderId: 'ord_w', seq: 3, run: 0 }],
    });
    expect(await delivery.result()).toEqual({ status: 'delivered', attempts: 3 });
    expect(await headline(delivery)).toBe('**Delivered** after 3 attempts');
    expect((await waiting(delivery)).on).toBe('nothing');
    const bars = timeline(await delivery.fetchHistory()).map((b) => b.summary ?? '');
    expect(bars.filter((b) => /^Attempt \d+ of 10/.test(b))).toHaveLength(5); // 3 attempts, 2 retry timers
    expect(bars).toContain('Record the delivery delivered');

    const settlement = await env.client.workflow.start(x402ReconcileWorkflow, {
      taskQueue,
      workflowId: `x402-reconcile-x4p_view-${taskQueue}`,
      args: [{ paymentId: 'x4p_1' }],
    });
    expect((await settlement.result()).status).toBe('settled');
    expect(await headline(settlement)).toBe('**Settled** — order `ord_x` confirmed');
    expect((await waiting(settlement)).on).toBe('nothing');
    expect(acts.confirmX402Order).toHaveBeenCalledTimes(1);
  });
  // A delivery that succeeds at once records no patch marker and no WaitingOn.
  attempts = 2;
  await withWorker(env, acts, async (taskQueue) => {
    const quick = await env.client.workflow.start(webhookDeliveryWorkflow, {
      taskQueue,
      workflowId: `webhook-evt_quick-wep_view-${taskQueue}`,
      args: [{ messageId: 'msg_2', eventId: 'evt_2', endpointId: 'wep_1', orderId: null, seq: 1, run: 0 }],
    });
    await quick.result();
    expect(await waiting(quick)).toEqual({ on: undefined, since: undefined });
  });
});

/** A run's history length and its events by type. */
interface Measured {
  total: number;
  by: Record<string, number>;
}

test('history events: a wallet order, an expert order and a subscription month (docs/operators.md)', async () => {
  const wallet = new FakeWallet({ 'agent-m': 10_000_000_000 });
  const acts = fakeActivities(wallet);
  const measured: Record<string, Measured> = {};
  await withWorker(env, acts, async (taskQueue) => {
    // A simple order: paid from the wallet, produced, accepted when the review window lapses.
    const order = buildOrderInput({ agentId: 'agent-m' });
    const oh = await startOrder(env.client, order, taskQueue);
    await oh.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    await oh.result();
    const oHistory = await oh.fetchHistory();
    measured.wallet = { total: oHistory.events?.length ?? 0, by: counts(oHistory) };

    // An expert order: paid, claimed, one upload, marked ready, accepted by the buyer.
    const expert = buildExpertOrderInput({
      agentId: 'agent-m',
      expert: { maxFulfillmentHours: 10, escalateAtPercent: 80 },
    });
    const eh = await startOrder(env.client, expert, taskQueue);
    await eh.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    await eventually(
      () => eh.query(getStateQuery),
      (s) => s.status === 'in_engineering',
    );
    await eh.executeUpdate(claimEngineeringUpdate, { args: [{ engineer: 'eve' }] });
    await eh.executeUpdate(addDeliverableUpdate, {
      args: [{ engineer: 'eve', name: 'c.py', sha256: 'b'.repeat(64), size: 1, media_type: 'text/x-python' }],
    });
    await eh.executeUpdate(markReadyUpdate, { args: [{ engineer: 'eve' }] });
    await eh.executeUpdate(reviewUpdate, { args: [{ action: 'accept' }] });
    await eh.result();
    const eHistory = await eh.fetchHistory();
    measured.expert = { total: eHistory.events?.length ?? 0, by: counts(eHistory) };

    // A subscription month: the run serving period 2 (started as continue-as-new starts it: WaitingOn set), its
    // renewal debited from the wallet, then continue-as-new.
    const anchor = new Date(await env.currentTimeMs()).toISOString();
    const sub = buildSubscriptionInput({ agentId: 'agent-m', anchor, period: 2, version: 3, firstPayment: undefined });
    const p2 = periodOf(anchor, 2);
    const sh = await env.client.workflow.start(subscriptionWorkflow, {
      taskQueue,
      workflowId: subscriptionWorkflowId(sub.orderId),
      args: [sub],
      typedSearchAttributes: [
        { key: SA.waitingOn, value: 'renewal' },
        { key: SA.waitingSince, value: new Date(p2.start) },
      ],
    });
    await env.sleep(Date.parse(p2.end) - Date.parse(anchor) + 60_000);
    const month = env.client.workflow.getHandle(sh.workflowId, sh.firstExecutionRunId);
    await eventually(
      async () => (await month.describe()).status.name,
      (s) => s === 'CONTINUED_AS_NEW',
    );
    const sHistory = await month.fetchHistory();
    await record('subscription-month-operator-view.json', month);
    measured.subscriptionMonth = { total: sHistory.events?.length ?? 0, by: counts(sHistory) };
    // The next run starts waiting on its renewal since period 3 began, with no upsert of its own.
    const next = env.client.workflow.getHandle(sh.workflowId);
    expect(await waiting(next)).toEqual({ on: 'renewal', since: periodOf(anchor, 3).start });
    expect(await headline(next)).toBe(`**Period 3** — renewal 4 on ${utc(periodOf(anchor, 3).end)}`);
    await next.terminate('test over');
  });
  console.log(`history events (issue 26 §1):\n${JSON.stringify(measured, null, 1)}`);
  // Measured 2026-11-27 (docs/operators.md): before issue 26 27 / 65 / 24; after 27 / 61 / 24; after the charge
  // records `paid` (issue 25 §4) 26 / 60 / 24; with the order recorded by its creator (issue 25 §4) 25 / 59 / 24;
  // with the goods produced by the charge's activity (issue 39 §2, 2026-12-02) 24 / 59 / 24.
  expect(measured.wallet?.total).toBeLessThanOrEqual(24);
  expect(measured.expert?.total).toBeLessThanOrEqual(59);
  // 24 + the marker of receptionist-follows-subscription (marker and its search-attribute upsert; issue 38 §1).
  expect(measured.subscriptionMonth?.total).toBeLessThanOrEqual(26);
  // One patch marker per run, whatever patches it decides, and two local activities: the charge with the goods and
  // paid → fulfilling → delivered, then record accepted.
  expect(measured.wallet?.by.MARKER_RECORDED).toBe(3);
});

/** Runs the Temporal CLI against the dev server (the commands docs/operators.md gives); returns its stdout. */
async function cli(args: string[]): Promise<string> {
  const { stdout } = await run(binaries().temporal, [...args, '--address', process.env.TEMPORAL_ADDRESS ?? ''], {
    timeout: 30_000,
  });
  return stdout;
}

test("an operator's view on the dev server: the WaitingOn queries and the CLI commands of docs/operators.md", async () => {
  const input = buildExpertOrderInput({ agentId: 'agent-v' });
  const acts = fakeActivities(new FakeWallet({ 'agent-v': input.amountMicros }));
  await withDevServerWorker(acts, async (client, taskQueue) => {
    const handle = await startOrder(client, input, taskQueue);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'in_engineering',
    );
    // A workflow that sets no WaitingOn (a procurement whose activities this worker lacks: it just retries).
    const other = await client.workflow.start('procurementWorkflow', {
      taskQueue,
      workflowId: `procurement-prc_view_${taskQueue}`,
      args: [{ procurementId: 'prc_view', requirements: [], budgetMicros: 1, currency: 'USD', autoPurchase: false }],
    });
    const ids = async (query: string): Promise<string[]> => {
      const found: string[] = [];
      for await (const w of client.workflow.list({ query: `${query} AND TaskQueue = '${taskQueue}'` })) {
        found.push(w.workflowId);
      }
      return found.sort();
    };
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    const twoDaysAgo = new Date(Date.now() - 48 * HOUR).toISOString();
    // "Waiting on an engineer for more than 48 hours" with "now" a minute ahead finds it; 48 hours ago, not yet.
    await eventually(
      () => ids(`WaitingOn = 'engineer' AND WaitingSince < '${inAMinute}'`),
      (found) => found.includes(handle.workflowId),
    );
    expect(await ids(`WaitingOn = 'engineer' AND WaitingSince < '${twoDaysAgo}'`)).toEqual([]);
    expect(await ids(`WaitingOn = 'payment'`)).toEqual([]);
    expect(await ids(`ExecutionStatus = 'Running' AND WaitingOn IS NULL`)).toEqual([other.workflowId]);

    // The same through the CLI, as an operator types it.
    const listed = await cli([
      'workflow',
      'list',
      '--query',
      `WorkflowType = 'orderWorkflow' AND WaitingOn = 'engineer' AND WaitingSince < '${inAMinute}' AND TaskQueue = '${taskQueue}'`,
    ]);
    expect(listed).toContain(handle.workflowId);
    expect(await cli(['workflow', 'metadata', '--workflow-id', handle.workflowId])).toContain(
      '**In engineering** (unclaimed)',
    );
    await cli([
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      handle.workflowId,
      '--name',
      'claimEngineering',
      '--input',
      '{"engineer":"eve"}',
    ]);
    expect((await handle.query(getStateQuery)).engineering?.engineer).toBe('eve');
    await cli([
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      handle.workflowId,
      '--name',
      'claimEngineering',
      '--input',
      '{"engineer":"frank","reassign":true}',
    ]);
    expect(await cli(['workflow', 'query', '--workflow-id', handle.workflowId, '--type', 'getState'])).toContain(
      '"engineer":"frank"',
    );
    // A signal an order in engineering ignores (it looks for a lost payment only while awaiting payment).
    await cli([
      'workflow',
      'signal',
      '--workflow-id',
      handle.workflowId,
      '--name',
      'recoverPayment',
      '--input',
      '{"reason":"operator check"}',
    ]);
    expect(await headline(handle)).toMatch(/^\*\*In engineering\*\* \(engineer frank, claimed /);
    await Promise.all([handle.terminate('test over'), other.terminate('test over')]);
  });
});
