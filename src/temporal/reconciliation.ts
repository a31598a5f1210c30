/**
 * The Temporal client side of the books reconciliation (issue 24 §3): the order-workflow port the reconciliation
 * asks and signals (wired into the activity by the worker), running `booksReconciliationWorkflow` now for an operator,
 * and the Schedule `books-reconciliation` the worker creates at start.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { ReconciliationReport } from '../domain/reconciliation';
import { unavailable } from '../errors';
import type { OrderWorkflowPort } from '../services/reconciliation';
import { getStateQuery, orderWorkflowId, recoverPaymentSignal } from '../../workflows/shared';
import { type OrderState } from '../domain/order';
import { booksReconciliationWorkflow, type BooksReconciliationInput } from '../../workflows/reconciliation';

/** What {@link orderWorkflowId} puts before an order id. */
const ORDER_ID_PREFIX = orderWorkflowId('');
/** Closed order workflows listed per `recent` run at most. */
const MAX_CLOSED_LISTED = 10_000;

/** How long {@link untilNoWorkflowTask} waits for a workflow's task to end before the Query is sent anyway. */
const QUERY_IDLE_WAIT_MS = 3_000;

/**
 * Waits (up to {@link QUERY_IDLE_WAIT_MS}, polling `describe`) until the workflow has no workflow task scheduled or
 * running, so the `getState` Query that follows reaches it between tasks. Why: with SDK 1.24.0, a Query answered
 * while a local activity's result waits to reach the workflow, followed by an Update before the next task, leaves a
 * history the SDK cannot replay (test/integration/replay.test.ts, "upstream", which names the nearest upstream
 * reports; docs/money-integrity.md). Local
 * activities run only inside a workflow task, and the orders this reconciliation asks about are those with a payment
 * in flight. A task starting between the last `describe` and the Query still meets it: narrower, not closed.
 */
async function untilNoWorkflowTask(handle: WorkflowHandle, first: WorkflowExecutionDescription): Promise<void> {
  const deadline = Date.now() + QUERY_IDLE_WAIT_MS;
  let description = first;
  while (description.raw.pendingWorkflowTask && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    description = await handle.describe();
  }
}

/** Id of the Schedule that runs the reconciliation (one per namespace). */
export const RECONCILIATION_SCHEDULE_ID = 'books-reconciliation';

/**
 * The order workflows as the reconciliation sees them: `describe` tells running from closed (no worker needed); a
 * closed workflow's final state is its result (from the history, no worker needed); a running one's state is the
 * `getState` Query (needs a worker), skipped with `query: false`; the workflows closed since a moment come from one
 * visibility listing.
 */
export function orderWorkflowPort(client: Client): OrderWorkflowPort {
  return {
    async orderWorkflowState(orderId, opts = {}) {
      const handle = client.workflow.getHandle(orderWorkflowId(orderId));
      let description: WorkflowExecutionDescription;
      try {
        description = await handle.describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
      const status = description.status.name;
      if (status === 'RUNNING') {
        if (opts.query === false) return { running: true };
        await untilNoWorkflowTask(handle, description);
        return { running: true, state: await handle.query(getStateQuery) };
      }
      // Failed, terminated, cancelled or timed out: no final state to read.
      if (status !== 'COMPLETED') return { running: false };
      return { running: false, state: (await handle.result()) as OrderState };
    },
    async recoverPayment(orderId, reason) {
      await client.workflow.getHandle(orderWorkflowId(orderId)).signal(recoverPaymentSignal, { reason });
    },
    async closedSince(since) {
      const query = `WorkflowType = 'orderWorkflow' AND ExecutionStatus != 'Running' AND CloseTime >= '${since.toISOString()}'`;
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query })) {
        if (wf.workflowId.startsWith(ORDER_ID_PREFIX)) ids.push(wf.workflowId.slice(ORDER_ID_PREFIX.length));
        // A window this full means a backlog: the next full run asks every open order anyway.
        if (ids.length >= MAX_CLOSED_LISTED) break;
      }
      return ids;
    },
  };
}

/** Runs the books reconciliation as a workflow for an operator and answers its report. */
export class BooksReconciliationWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts `booksReconciliationWorkflow` (id `books-reconciliation-manual-<time>-<random>`) and waits for its report.
   * @throws ProblemError 503 dependency_unavailable when the workflow failed (its activity ran out of retries: the
   *   database was away); Temporal connection errors pass through (the API answers them 503).
   */
  async run(input: BooksReconciliationInput): Promise<ReconciliationReport> {
    try {
      return await this.client.workflow.execute(booksReconciliationWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: `${RECONCILIATION_SCHEDULE_ID}-manual-${Date.now()}-${randomBytes(4).toString('hex')}`,
        args: [input],
        staticSummary: `Books reconciliation (operator${input.repair === false ? ', no repairs' : ''})`,
      });
    } catch (err) {
      if (err instanceof WorkflowFailedError)
        throw unavailable(`The reconciliation did not complete: ${err.cause?.message ?? err.message}`, 5);
      throw err;
    }
  }
}

/** Options of {@link ensureReconciliationSchedule}. */
export interface ReconciliationScheduleOptions {
  taskQueue: string;
  /** Seconds between runs; 0 deletes the schedule (reconciliation off). */
  intervalSeconds: number;
  /** Default {@link RECONCILIATION_SCHEDULE_ID}. */
  scheduleId?: string;
}

/**
 * Creates the Schedule that runs `booksReconciliationWorkflow` (with repairs) every `intervalSeconds`, overlap SKIP
 * (a run still going makes the next one wait for its turn), catch-up window one interval. Idempotent: an existing
 * schedule is left as it is (`created: false`). With `intervalSeconds` 0 the schedule is deleted if present. Issue 24 §3.
 */
export async function ensureReconciliationSchedule(
  client: Client,
  opts: ReconciliationScheduleOptions,
): Promise<'created' | 'exists' | 'deleted' | 'off'> {
  const scheduleId = opts.scheduleId ?? RECONCILIATION_SCHEDULE_ID;
  if (opts.intervalSeconds <= 0) {
    try {
      await client.schedule.getHandle(scheduleId).delete();
      return 'deleted';
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return 'off';
      throw err;
    }
  }
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: `${opts.intervalSeconds}s` }] },
      action: {
        type: 'startWorkflow',
        workflowType: booksReconciliationWorkflow,
        workflowId: scheduleId,
        taskQueue: opts.taskQueue,
        args: [{ repair: true }],
      },
      policies: { overlap: 'SKIP', catchupWindow: `${Math.max(opts.intervalSeconds, 10)}s` },
      memo: { purpose: 'Reconciliation that proves the books (issue 24 §3)' },
    });
    return 'created';
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return 'exists';
    throw err;
  }
}
