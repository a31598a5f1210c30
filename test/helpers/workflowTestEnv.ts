/**
 * Workflow unit tests (issue 11 §4): the real workflow code on Temporal's time-skipping test server with fake
 * activities, no database and no API, so a workflow change is checked in seconds. Timers of hours or months pass
 * when a test waits for a result or calls `env.sleep`.
 *
 * The activities are the production activity functions where they hold business rules over a wallet (charges,
 * refunds: transaction ids, insufficient funds), built over an in-memory {@link FakeWallet}, and jest functions for
 * the rest (read-model writes, producers, commissions), so tests assert what the workflow asked for.
 */
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityPorts } from '../../activities';
import type { CommissionActivities } from '../../activities/commissions';
import {
  createLongRunningActivities,
  type LongRunningActivities,
  type LongRunningPorts,
} from '../../activities/longRunning';
import { InsufficientFundsError, type WalletRepository } from '../../src/repos/wallets';
import type { WalletEntryDoc } from '../../src/db';
import { SEARCH_ATTRIBUTES } from '../../workflows/shared';
import { ORDER_TRANSITIONS, type DeliverableRecord, type OrderState } from '../../src/domain/order';
import { workflowBundle } from './workflowBundle';
import type { ReceptionistActivities } from '../../activities/receptionists';

/** Starts a time-skipping test server (TEMPORAL_TEST_SERVER_PATH, test/globalSetup.ts) with the search attributes. */
export async function createWorkflowTestEnv(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH must be set (test/globalSetup.ts)');
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
  // The time-skipping server knows only the search attributes registered on it (the workflows upsert some).
  const types = temporal.api.enums.v1.IndexedValueType;
  const indexed: Record<
    (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES],
    temporal.api.enums.v1.IndexedValueType
  > = {
    Keyword: types.INDEXED_VALUE_TYPE_KEYWORD,
    Int: types.INDEXED_VALUE_TYPE_INT,
    Datetime: types.INDEXED_VALUE_TYPE_DATETIME,
  };
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, indexed[type]]),
    ),
  });
  return env;
}

/** Every activity the workflows call, as one object a worker registers. */
export type AllActivities = Activities & CommissionActivities & LongRunningActivities & ReceptionistActivities;

/** Each activity a jest mock with its real signature. */
export type MockedActivities = { [K in keyof AllActivities]: jest.MockedFunction<AllActivities[K]> };

/** An in-memory agent wallet: balances per agent, debits and credits once per transaction id. */
export class FakeWallet {
  readonly balances = new Map<string, number>();
  /** Every movement applied, in order. */
  readonly entries: { agentId: string; amountMicros: number; txId: string; kind: 'debit' | 'credit' }[] = [];

  /** Debits once per `txId`; a short balance throws {@link InsufficientFundsError} like the repository. */
  readonly debit = jest.fn(async (agentId: string, amountMicros: number, txId: string): Promise<WalletEntryDoc> => {
    const seen = this.entries.find((e) => e.txId === txId);
    if (!seen) {
      const balance = this.balances.get(agentId) ?? 0;
      if (balance < amountMicros) throw new InsufficientFundsError(agentId, balance, amountMicros);
      this.balances.set(agentId, balance - amountMicros);
      this.entries.push({ agentId, amountMicros, txId, kind: 'debit' });
    }
    return { tx_id: txId, amount_micros: amountMicros } as WalletEntryDoc;
  });

  /** Credits once per `txId`. */
  readonly credit = jest.fn(async (agentId: string, amountMicros: number, txId: string): Promise<WalletEntryDoc> => {
    if (!this.entries.some((e) => e.txId === txId)) {
      this.balances.set(agentId, (this.balances.get(agentId) ?? 0) + amountMicros);
      this.entries.push({ agentId, amountMicros, txId, kind: 'credit' });
    }
    return { tx_id: txId, amount_micros: amountMicros } as WalletEntryDoc;
  });

  /** The movement under `txId`, as the repository's `findMovement` answers it (null when none). */
  readonly findMovement = jest.fn(async (agentId: string, txId: string): Promise<WalletEntryDoc | null> => {
    const e = this.entries.find((m) => m.agentId === agentId && m.txId === txId);
    return e ? ({ tx_id: txId, amount_micros: e.amountMicros, type: e.kind } as WalletEntryDoc) : null;
  });

  constructor(balances: Record<string, number> = {}) {
    for (const [agent, micros] of Object.entries(balances)) this.balances.set(agent, micros);
  }
}

/** The deliverable a fake producer returns for `serviceId`. */
export function fakeDeliverable(serviceId: string, name = 'README.md'): DeliverableRecord {
  return { name, sha256: 'a'.repeat(64), size: 42, media_type: 'text/markdown', service_id: serviceId };
}

/**
 * The activities of a test: charges and refunds are the production functions over `wallet` (wrapped in jest
 * functions, so calls can be asserted); everything else a jest function that resolves with a plausible answer.
 */
export function fakeActivities(wallet: FakeWallet): MockedActivities {
  const ports = {
    wallets: wallet as unknown as WalletRepository,
    linkpay: { findSucceededForOrder: async () => null },
  };
  const orderActs = createActivities(ports as unknown as ActivityPorts);
  const longActs = createLongRunningActivities(ports as unknown as LongRunningPorts);
  const commission = async (req: { orderId: string; period?: string; partnerId?: string; amountMicros?: number }) => ({
    order_id: req.orderId,
    period: req.period ?? null,
    partner_id: req.partnerId ?? 'partner',
    amount_micros: Math.round((req.amountMicros ?? 0) * 0.2),
  });
  const acts = {
    recordOrder: jest.fn(async () => undefined),
    recordTransition: jest.fn(async () => undefined),
    recordTransitions: jest.fn(async () => undefined),
    chargePayment: jest.fn(orderActs.chargePayment),
    // Charges through the `chargePayment` fake (so a test's charge assertions hold for both paths) and reports `paid`
    // (and `fulfilling`) written, as the real activity does when the database answers.
    chargeAndRecordPaid: jest.fn(async (req) => ({
      payment: await acts.chargePayment(req),
      at: new Date().toISOString(),
      recorded: true,
    })),
    // Charges through the `chargePayment` fake and produces through the `fulfilService` fake (so a test's charge and
    // producer behaviour hold for every path); a failed production answers without the delivery, as the real one.
    chargeAndDeliver: jest.fn(async (req) => {
      const payment = await acts.chargePayment(req);
      const at = new Date().toISOString();
      try {
        const deliverables = await acts.fulfilService({
          orderId: req.orderId,
          serviceId: req.serviceId,
          ...req.deliver,
        });
        return { payment, at, recorded: true, delivery: { deliverables, at, recorded: true } };
      } catch {
        return { payment, at, recorded: true };
      }
    }),
    findOrderPayment: jest.fn(orderActs.findOrderPayment),
    fulfilService: jest.fn(async (input) => [fakeDeliverable(input.serviceId)]),
    // Produces through the `fulfilService` fake (so a test's producer behaviour holds for both) and reports the
    // `delivered` transition written, as the real activity does when the database answers.
    deliverService: jest.fn(async (input) => ({
      deliverables: await acts.fulfilService(input),
      at: new Date().toISOString(),
      recorded: true,
    })),
    writeBundleManifest: jest.fn(async (input) => fakeDeliverable(input.serviceId, 'bundle-manifest.json')),
    refundPayment: jest.fn(orderActs.refundPayment),
    creditCommission: jest.fn(commission),
    recordCommission: jest.fn(commission),
    releaseCommission: jest.fn(commission),
    reverseCommission: jest.fn(commission),
    recordProgress: jest.fn(async () => undefined),
    openSubscription: jest.fn(async () => undefined),
    recordSubscription: jest.fn(async () => undefined),
    setReceptionistState: jest.fn(async () => 'applied' as const),
    chargeRenewal: jest.fn(longActs.chargeRenewal),
    verifyInvoicePayment: jest.fn(async (req) => ({
      transaction_id: req.transactionId,
      amount_micros: req.amountMicros,
    })),
    chargeTask: jest.fn(longActs.chargeTask),
    produceTask: jest.fn(async (req) => [fakeDeliverable(req.serviceId)]),
    refundTask: jest.fn(longActs.refundTask),
    recordTask: jest.fn(async () => undefined),
  } as unknown as MockedActivities;
  return acts;
}

/**
 * The statuses and versions the workflow had written, in call order: one per `recordTransition`, each of a
 * `recordTransitions`, the `paid` (and `fulfilling`) of a `chargeAndRecordPaid`, the `paid`, `fulfilling` (and
 * `delivered`) of a `chargeAndDeliver` and the `delivered` of a `deliverService` that reported them recorded.
 */
export async function recordedTransitions(acts: MockedActivities): Promise<{ status: string; version: number }[]> {
  const calls: { order: number; steps: { status: string; version: number }[] }[] = [];
  acts.recordTransition.mock.calls.forEach(([t], i) =>
    calls.push({ order: acts.recordTransition.mock.invocationCallOrder[i] ?? 0, steps: [t] }),
  );
  acts.recordTransitions.mock.calls.forEach(([ts], i) =>
    calls.push({ order: acts.recordTransitions.mock.invocationCallOrder[i] ?? 0, steps: ts }),
  );
  const charges = await Promise.allSettled(acts.chargeAndRecordPaid.mock.results.map((r) => r.value));
  acts.chargeAndRecordPaid.mock.calls.forEach(([req], i) => {
    const outcome = charges[i];
    if (outcome?.status !== 'fulfilled' || !outcome.value.recorded) return;
    const { version, thenFulfilling } = req.paid;
    calls.push({
      order: acts.chargeAndRecordPaid.mock.invocationCallOrder[i] ?? 0,
      steps: [{ status: 'paid', version }, ...(thenFulfilling ? [{ status: 'fulfilling', version: version + 1 }] : [])],
    });
  });
  const fused = await Promise.allSettled(acts.chargeAndDeliver.mock.results.map((r) => r.value));
  acts.chargeAndDeliver.mock.calls.forEach(([req], i) => {
    const outcome = fused[i];
    if (outcome?.status !== 'fulfilled' || !outcome.value.recorded) return;
    const { version } = req.paid;
    calls.push({
      order: acts.chargeAndDeliver.mock.invocationCallOrder[i] ?? 0,
      steps: [
        { status: 'paid', version },
        { status: 'fulfilling', version: version + 1 },
        ...(outcome.value.delivery ? [{ status: 'delivered', version: version + 2 }] : []),
      ],
    });
  });
  const deliveries = await Promise.allSettled(acts.deliverService.mock.results.map((r) => r.value));
  acts.deliverService.mock.calls.forEach(([input], i) => {
    const outcome = deliveries[i];
    if (outcome?.status !== 'fulfilled' || !outcome.value.recorded) return;
    calls.push({
      order: acts.deliverService.mock.invocationCallOrder[i] ?? 0,
      steps: [{ status: 'delivered', version: input.delivered.version }],
    });
  });
  return calls
    .sort((a, b) => a.order - b.order)
    .flatMap((c) => c.steps.map(({ status, version }) => ({ status, version })));
}

/**
 * Runs `test` with a worker of the real workflows and `activities` on a fresh task queue of `env`, then shuts the
 * worker down. `test` gets the task queue to start workflows on.
 */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  activities: object,
  test: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `wf-unit-${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
  return worker.runUntil(test(taskQueue));
}

/**
 * Runs `test` with a worker of the real workflow code on the run's Temporal dev server (TEMPORAL_ADDRESS, set by
 * test/globalSetup.ts), for tests that need no time skipping and must meet the real server's Update semantics (the
 * time-skipping test server can leave an Update unanswered when its workflow completes meanwhile: sdk-java#1903).
 */
export async function withDevServerWorker<T>(
  activities: object,
  test: (client: Client, taskQueue: string) => Promise<T>,
): Promise<T> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS must be set (test/globalSetup.ts)');
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `wf-unit-${randomBytes(4).toString('hex')}`;
  const [connection, nativeConnection] = await Promise.all([
    Connection.connect({ address }),
    NativeConnection.connect({ address }),
  ]);
  try {
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
    });
    return await worker.runUntil(test(new Client({ connection, namespace }), taskQueue));
  } finally {
    await Promise.allSettled([connection.close(), nativeConnection.close()]);
  }
}

/** Polls `read` (real time) until `predicate` holds for its answer; throws with the last answer after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  predicate: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not reached; last: ${JSON.stringify(last)}`);
}

/**
 * The status changes of `state.progress` that the state table (`ORDER_TRANSITIONS`, rendered in docs/api.md) does not
 * allow, as `from -> to`; empty when the workflow kept to it. Progress entries within a status are skipped.
 */
export function disallowedTransitions(state: OrderState): string[] {
  const statuses = state.progress.filter((p) => p.event === undefined).map((p) => p.status);
  return statuses.slice(1).flatMap((to, i) => {
    const from = statuses[i];
    return from !== undefined && ORDER_TRANSITIONS[from].includes(to) ? [] : [`${from} -> ${to}`];
  });
}
