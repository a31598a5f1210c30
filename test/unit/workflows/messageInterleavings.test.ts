/**
 * Issue 24 §1, property-based: whatever messages arrive together, in whatever order, the history they leave replays.
 *
 * fast-check draws scenarios of bursts: each burst is several Updates and Signals of every handler of the
 * order workflow (confirmPayment, recoverPayment, review, and the expert order's claimEngineering, addDeliverable,
 * markReady, cancelOrder) or of the subscription workflow (payInvoice, cancelSubscription), sent at the same instant so
 * that the server hands them to the worker in one activation; between bursts, hours of workflow time may pass. Each
 * run's history is then replayed with `Worker.runReplayHistories` against the same code: any non-determinism (a
 * handler's command order depending on how the activation was cut, as issue 24 found for two `confirmPayment`s) fails
 * the property, and fast-check shrinks it to the smallest burst that shows it. Also checked on every run: a wallet is
 * debited at most once per order, and a refused Update never leaves money moved.
 *
 * No Queries in the bursts: with SDK 1.24.0, a Query answered while a local activity's result waits to be applied,
 * then an Update before the next workflow task, leave a history that Core itself cannot replay, whatever the workflow
 * does (test/integration/replay.test.ts keeps two such histories; docs/money-integrity.md; no upstream report of this
 * case found, the nearest is temporalio/sdk-typescript#1966). Queries are sent only when
 * the workflow has no workflow task in flight ({@link idle}), as the reconciliation does.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { orderWorkflow } from '../../../workflows/order';
import { subscriptionWorkflow } from '../../../workflows/subscription';
import {
  addDeliverableUpdate,
  cancelOrderUpdate,
  claimEngineeringUpdate,
  confirmPaymentUpdate,
  markReadyUpdate,
  orderWorkflowId,
  recoverPaymentSignal,
  reviewUpdate,
} from '../../../workflows/shared';
import {
  cancelSubscriptionUpdate,
  getSubscriptionQuery,
  payInvoiceUpdate,
  subscriptionWorkflowId,
} from '../../../workflows/subscriptionShared';
import { invoiceId } from '../../../src/domain/subscription';
import {
  buildExpertOrderInput,
  buildOrderInput,
  buildSubscriptionInput,
  buildSubscriptionTerms,
} from '../../fixtures/workflowInputs';
import {
  FakeWallet,
  createWorkflowTestEnv,
  fakeActivities,
  withDevServerWorker,
  withWorker,
} from '../../helpers/workflowTestEnv';
import { workflowBundle } from '../../helpers/workflowBundle';
import { saveHistory } from '../../helpers/histories';

const HOUR = 3600_000;
/** Runs per property: enough to meet two Updates in one activation many times over (each run sends several bursts). */
const RUNS = Number(process.env.INTERLEAVING_RUNS ?? 25);
/** Replays a reported failure: `FC_SEED=<seed>` (and `FC_PATH=<path>`) from fast-check's report. */
const REPLAY = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}) }
  : {};
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

/** One message of an order workflow. */
type OrderMessage =
  | { t: 'pay' }
  | { t: 'recover' }
  | { t: 'review'; action: 'accept' | 'reject' }
  | { t: 'claim'; engineer: 'e1' | 'e2'; reassign: boolean }
  | { t: 'upload'; engineer: 'e1' | 'e2'; name: 'a.md' | 'b.md' }
  | { t: 'ready'; engineer: 'e1' | 'e2' }
  | { t: 'cancel' };

const engineer = fc.constantFrom('e1' as const, 'e2' as const);
const orderMessage: fc.Arbitrary<OrderMessage> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ t: 'pay' as const }) },
  fc.constant({ t: 'recover' as const }),
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('review' as const), action: fc.constantFrom('accept', 'reject') }),
  },
);
const expertMessage: fc.Arbitrary<OrderMessage> = fc.oneof(
  { weight: 2, arbitrary: orderMessage },
  fc.record({ t: fc.constant('claim' as const), engineer, reassign: fc.boolean() }),
  fc.record({ t: fc.constant('upload' as const), engineer, name: fc.constantFrom('a.md' as const, 'b.md' as const) }),
  fc.record({ t: fc.constant('ready' as const), engineer }),
  fc.constant({ t: 'cancel' as const }),
);
/** Bursts of 1–4 messages sent at once, each followed by 0–12 hours of workflow time. */
const bursts = (message: fc.Arbitrary<OrderMessage>, maxHours = 12) =>
  fc.array(
    fc.record({ messages: fc.array(message, { minLength: 1, maxLength: 4 }), hoursAfter: fc.nat({ max: maxHours }) }),
    { minLength: 1, maxLength: 4 },
  );

/**
 * A message that did not settle in 60 s means a stuck workflow: that fails the run too. (20 s was met once in CI by
 * a run that passes alone in 2 s: two jest workers and the servers share 2 cores there.)
 */
async function settle<T>(p: Promise<T>): Promise<T | Error> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error('message unanswered after 60 s')), 60_000);
  });
  try {
    return await Promise.race([
      p.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function send(handle: WorkflowHandle<typeof orderWorkflow>, m: OrderMessage): Promise<unknown> {
  switch (m.t) {
    case 'pay':
      return handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    case 'recover':
      return handle.signal(recoverPaymentSignal, { reason: 'property test' });
    case 'review':
      return handle.executeUpdate(reviewUpdate, { args: [{ action: m.action }] });
    case 'claim':
      return handle.executeUpdate(claimEngineeringUpdate, { args: [{ engineer: m.engineer, reassign: m.reassign }] });
    case 'upload':
      return handle.executeUpdate(addDeliverableUpdate, {
        args: [
          {
            engineer: m.engineer,
            name: m.name,
            sha256: m.name === 'a.md' ? 'a'.repeat(64) : 'b'.repeat(64),
            size: 10,
            media_type: 'text/markdown',
          },
        ],
      });
    case 'ready':
      return handle.executeUpdate(markReadyUpdate, { args: [{ engineer: m.engineer }] });
    case 'cancel':
      return handle.executeUpdate(cancelOrderUpdate, { args: [{ reason: 'property test' }] });
  }
}

/** Where a history that fails to replay is kept, for `temporal workflow show` or a replay test (git-ignored). */
const ARTIFACTS = process.env.TEST_ARTIFACTS_DIR ?? path.resolve(__dirname, '..', '..', '..', 'test-artifacts');

/** True when the workflow has no workflow task scheduled or running: a Query then cannot meet a local activity. */
async function idle(handle: WorkflowHandle): Promise<boolean> {
  return !(await handle.describe()).raw.pendingWorkflowTask;
}

/** Replays the histories against the workflow code; returns `workflowId: error` for each that fails (and keeps its history). */
async function replayFailures(
  histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[],
): Promise<string[]> {
  const failures: string[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
    if (!r.error) continue;
    failures.push(`${r.workflowId}: ${String(r.error)}`);
    const history = histories.find((h) => h.workflowId === r.workflowId)?.history;
    if (history) failures.push(`history kept in ${keep(r.workflowId, history)}`);
  }
  return failures;
}

/** Writes a history to the artifacts folder (test/helpers/histories.ts format, for `loadHistory`); returns its path. */
function keep(workflowId: string, history: temporal.api.history.v1.IHistory): string {
  const file = path.join(ARTIFACTS, 'interleavings', `${workflowId}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  return saveHistory(file, history);
}

/** Sends the bursts to an order, lets it run to its end (or stops it, for an expert order still waiting), fetches its history. */
async function runOrder(
  taskQueue: string,
  wallet: FakeWallet,
  input: ReturnType<typeof buildOrderInput>,
  plan: { messages: OrderMessage[]; hoursAfter: number }[],
): Promise<{ workflowId: string; history: temporal.api.history.v1.IHistory; stuck: string[] }> {
  const handle = await env.client.workflow.start(orderWorkflow, {
    taskQueue,
    workflowId: orderWorkflowId(input.orderId),
    args: [input],
  });
  const stuck: string[] = [];
  for (const burst of plan) {
    const answers = await Promise.all(burst.messages.map((m) => settle(send(handle, m))));
    // An Update racing the run's end is never answered by the time-skipping test server (sdk-java#1903; the real
    // server fails it): unanswered counts as stuck only while the run is still open.
    const open = answers.some((a) => a instanceof Error && /unanswered/.test(a.message))
      ? (await handle.describe()).status.name === 'RUNNING'
      : false;
    answers.forEach((a, i) => {
      if (open && a instanceof Error && /unanswered/.test(a.message))
        stuck.push(`${burst.messages[i]?.t}: ${a.message}`);
    });
    if (burst.hoursAfter > 0) await env.sleep(burst.hoursAfter * HOUR);
  }
  const { status } = await handle.describe();
  if (input.expert && status.name === 'RUNNING') {
    await handle.terminate('property test: done');
  } else {
    const end = await settle(handle.result());
    if (end instanceof Error) stuck.push(`result: ${end.message}`);
  }
  const history = await handle.fetchHistory();
  if (stuck.length > 0) stuck.push(`history kept in ${keep(handle.workflowId, history)}`);
  return { workflowId: handle.workflowId, history, stuck };
}

/** The debits of `order:<id>` per order id in the fake wallet (never more than one per order). */
const debitsPerOrder = (wallet: FakeWallet): number[] => {
  const counts = new Map<string, number>();
  for (const e of wallet.entries.filter((x) => x.kind === 'debit' && x.txId.startsWith('order:'))) {
    counts.set(e.txId, (counts.get(e.txId) ?? 0) + 1);
  }
  return [...counts.values()];
};

test('orders: any bursts of payment, recovery and review messages leave a history that replays', async () => {
  const wallet = new FakeWallet();
  const acts = fakeActivities(wallet);
  await withWorker(env, acts, async (taskQueue) => {
    await fc.assert(
      fc.asyncProperty(bursts(orderMessage), fc.boolean(), async (plan, funded) => {
        const input = buildOrderInput({ agentId: `agent-${Math.random().toString(36).slice(2, 10)}` });
        if (funded && input.agentId) wallet.balances.set(input.agentId, input.amountMicros);
        const run = await runOrder(taskQueue, wallet, input, plan);
        expect(run.stuck).toEqual([]);
        expect(await replayFailures([run])).toEqual([]);
        expect(debitsPerOrder(wallet).every((n) => n === 1)).toBe(true);
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });
}, 600_000);

test('expert orders: bursts of engineer, cancel, payment and review Updates leave a history that replays', async () => {
  const wallet = new FakeWallet();
  const acts = fakeActivities(wallet);
  await withWorker(env, acts, async (taskQueue) => {
    await fc.assert(
      // Up to 4 h between bursts (escalation at 8 h is still reached across bursts): the time-skipping server's skips
      // after a terminated run cost real time in proportion (sdk-java#3088), and 12 h skips timed this test out in CI.
      fc.asyncProperty(bursts(expertMessage, 4), async (plan) => {
        const agentId = `agent-${Math.random().toString(36).slice(2, 10)}`;
        const input = buildExpertOrderInput({ agentId, expert: { maxFulfillmentHours: 10, escalateAtPercent: 80 } });
        wallet.balances.set(agentId, input.amountMicros);
        // Paid first, so the engineer's Updates meet an order in engineering.
        const run = await runOrder(taskQueue, wallet, input, [{ messages: [{ t: 'pay' }], hoursAfter: 0 }, ...plan]);
        expect(run.stuck).toEqual([]);
        expect(await replayFailures([run])).toEqual([]);
        expect(debitsPerOrder(wallet).every((n) => n === 1)).toBe(true);
      }),
      { numRuns: Math.max(5, Math.round(RUNS / 2)), endOnFailure: true, ...REPLAY },
    );
  });
}, 900_000);

type InvoiceMessage = { t: 'pay'; right: boolean } | { t: 'cancel' };
const invoiceMessage: fc.Arbitrary<InvoiceMessage> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('pay' as const), right: fc.boolean() }) },
  fc.constant({ t: 'cancel' as const }),
);

test('subscriptions: bursts of payInvoice and cancel Updates on an open invoice leave a history that replays', async () => {
  const wallet = new FakeWallet();
  const acts = fakeActivities(wallet);
  // On the dev server: no time passes here, and the real server answers an Update racing the workflow's end.
  await withDevServerWorker(acts, async (client, taskQueue) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(invoiceMessage, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        async (plan) => {
          // Period 1 began 32 days ago, so it has ended: the workflow renews at once and opens the invoice of period 2
          // (due in 6 days), with no time to wait.
          const anchor = new Date(Date.now() - 32 * 24 * HOUR).toISOString();
          const input = buildSubscriptionInput({
            anchor,
            terms: buildSubscriptionTerms(),
            firstPayment: {
              rail: 'linkpay_ncp',
              transaction_id: `lp_${Math.random().toString(36).slice(2)}`,
              amount_micros: 39_000_000,
              paid_at: anchor,
            },
          });
          const handle = await client.workflow.start(subscriptionWorkflow, {
            taskQueue,
            workflowId: subscriptionWorkflowId(input.orderId),
            args: [input],
          });
          const open = invoiceId(input.orderId, 2);
          for (
            let i = 0;
            i < 100 && !((await idle(handle)) && (await handle.query(getSubscriptionQuery)).open_invoice);
            i++
          ) {
            await new Promise((r) => setTimeout(r, 50));
          }
          const stuck: string[] = [];
          for (const burst of plan) {
            const answers = await Promise.all(
              burst.map((m) =>
                settle(
                  m.t === 'pay'
                    ? handle.executeUpdate(payInvoiceUpdate, {
                        args: [{ invoice_id: m.right ? open : 'inv_other', transaction_id: 'lp_renewal' }],
                      })
                    : handle.executeUpdate(cancelSubscriptionUpdate, { args: [{ reason: 'property test' }] }),
                ),
              ),
            );
            answers.forEach((a, i) => {
              if (a instanceof Error && /unanswered/.test(a.message)) stuck.push(`${burst[i]?.t}: ${a.message}`);
            });
          }
          expect(stuck).toEqual([]);
          // The first run (the one the bursts met), whether it continued as new, ended, or still waits.
          const first = client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
          const history = await first.fetchHistory();
          // Stop whichever run is current, so no subscription of this run renews in the next one's time skips.
          await handle.terminate('property test: done').catch((err: unknown) => {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          });
          expect(await replayFailures([{ workflowId: handle.workflowId, history }])).toEqual([]);
        },
      ),
      { numRuns: Math.max(5, Math.round(RUNS / 2)), endOnFailure: true, ...REPLAY },
    );
  });
}, 600_000);
