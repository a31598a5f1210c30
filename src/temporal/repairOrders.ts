/**
 * Repairs order workflows whose history the current code cannot replay (issue 24 §1): before the
 * `messages-in-main-coroutine` patch, two Updates accepted in one workflow task could record their commands in an
 * order that a replay does not reproduce, and such a run fails every workflow task from then on (`[TMPRL1100]
 * Nondeterminism error`): the paid order can be neither reviewed nor refunded. A run is broken when
 * `Worker.runReplayHistory` of its history fails ({@link replayFailure}).
 *
 * A broken run is terminated and replaced: by a new run of the current code that resumes where the read model stands
 * (`input.resume`: awaiting payment, paid, fulfilling, or delivered and awaiting review), or, for any other status
 * (engineering, SLA breach, failed), by failing forward: the payment is refunded once (`refund:<order_id>`) and the
 * read model says `refunded`. Nothing is written for a run that replays.
 */
import { DeterminismViolationError } from '@temporalio/workflow';
import { ReplayError, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { OrderRepository } from '../repos/orders';
import type { OrderDoc } from '../db';
import { refundOrder, type OrderPaymentPorts } from '../services/payments';
import { SA, orderWorkflowId } from '../../workflows/shared';
import { type OrderResume, type OrderWorkflowInput } from '../domain/order';

/** What the repair reads and writes. */
export interface RepairPorts {
  client: Client;
  taskQueue: string;
  orders: Pick<OrderRepository, 'get' | 'rewriteStatus'>;
  payments: Pick<OrderPaymentPorts, 'wallets' | 'linkpay'>;
  /** The worker's workflow bundle: the code a broken history is replayed against. */
  workflowBundle: WorkflowBundleWithSourceMap;
  /**
   * The workers' data converter (issue 26 §1: `temporalDataConverter(config)`), so that a history whose payloads are
   * encrypted replays; default: the SDK's (payloads in clear).
   */
  dataConverter?: DataConverter;
}

/** What was done for one order: `ok` (replays), `resumed` (new run), `refunded` (failed forward), or `skipped`. */
export interface RepairOutcome {
  order_id: string;
  action: 'ok' | 'resumed' | 'refunded' | 'skipped';
  status?: string;
  detail?: string;
}

const RESUMABLE: readonly OrderResume['status'][] = ['awaiting_payment', 'paid', 'fulfilling', 'delivered'];

/**
 * Checks the running order workflows (or only `orderIds`) and repairs the broken ones; `dryRun` only reports.
 * @throws on a Temporal or database error (nothing is half-done per order: terminate, then start or refund).
 */
export async function repairBrokenOrders(
  ports: RepairPorts,
  opts: { orderIds?: string[]; dryRun?: boolean } = {},
): Promise<RepairOutcome[]> {
  const ids = opts.orderIds ?? (await runningOrderIds(ports.client));
  const outcomes: RepairOutcome[] = [];
  for (const orderId of ids) outcomes.push(await repairOne(ports, orderId, opts.dryRun ?? false));
  return outcomes;
}

/**
 * Replays `history` against the worker's code: undefined when it replays, else the error that says it cannot, a
 * `DeterminismViolationError` (`[TMPRL1100]`: the commands differ) or a `ReplayError` (Core's state machines refuse
 * the history, e.g. `UpdateMachine in state CompletedCommandCreated …`: SDK 1.24.0 writes such histories when a Query
 * meets a local activity, docs/money-integrity.md). Either way every workflow task of that run fails.
 * @throws any other error (a history that cannot be read, a bundle that does not load).
 */
export async function replayFailure(
  ports: Pick<RepairPorts, 'workflowBundle' | 'dataConverter'>,
  history: temporal.api.history.v1.IHistory,
  workflowId: string,
): Promise<DeterminismViolationError | ReplayError | undefined> {
  try {
    await Worker.runReplayHistory(
      { workflowBundle: ports.workflowBundle, ...(ports.dataConverter ? { dataConverter: ports.dataConverter } : {}) },
      history,
      workflowId,
    );
    return undefined;
  } catch (err) {
    if (err instanceof DeterminismViolationError || err instanceof ReplayError) return err;
    throw err;
  }
}

/** Order ids of every running `orderWorkflow` (visibility query). */
async function runningOrderIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  const query = "WorkflowType = 'orderWorkflow' AND ExecutionStatus = 'Running'";
  for await (const wf of client.workflow.list({ query })) {
    if (wf.workflowId.startsWith('order-') && !wf.workflowId.includes('-part-')) ids.push(wf.workflowId.slice(6));
  }
  return ids;
}

async function repairOne(ports: RepairPorts, orderId: string, dryRun: boolean): Promise<RepairOutcome> {
  const handle = ports.client.workflow.getHandle(orderWorkflowId(orderId));
  const history = await handle.fetchHistory();
  if (!(await replayFailure(ports, history, handle.workflowId))) return { order_id: orderId, action: 'ok' };
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const raw = started?.input?.payloads?.[0]?.data;
  const order = await ports.orders.get(orderId);
  if (!raw || !order) return { order_id: orderId, action: 'skipped', detail: 'no workflow input or no order record' };
  const input = JSON.parse(Buffer.from(raw).toString('utf8')) as OrderWorkflowInput;
  const status = order.status as OrderResume['status'];
  if (dryRun) return { order_id: orderId, action: 'skipped', status: order.status, detail: 'dry run: broken' };

  const reason = 'repair: history not replayable by the current code (issue 24); replaced';
  if (RESUMABLE.includes(status)) {
    const resume = resumeOf(order, status);
    await handle.terminate(reason);
    await ports.client.workflow.start('orderWorkflow', {
      taskQueue: ports.taskQueue,
      workflowId: handle.workflowId,
      args: [{ ...input, resume }],
      typedSearchAttributes: [
        { key: SA.orderStatus, value: status },
        { key: SA.serviceId, value: input.serviceId },
        ...(input.agentId ? [{ key: SA.agentId, value: input.agentId }] : []),
      ],
      staticSummary: `Order ${orderId} (repaired at ${status})`,
    });
    return { order_id: orderId, action: 'resumed', status };
  }
  // Fail forward: the money goes back once, and the read model says so.
  await handle.terminate(reason);
  const payment = order.payment;
  const at = new Date().toISOString();
  const refund = payment
    ? await refundOrder(ports.payments, {
        orderId,
        payment,
        ...(input.agentId ? { agentId: input.agentId } : {}),
        reason: 'repair of a broken workflow',
        at,
      })
    : undefined;
  await ports.orders.rewriteStatus(
    orderId,
    { status: order.status, version: order.version },
    {
      status: 'refunded',
      progress: [...order.progress, { status: 'refunded', at }],
      ...(refund ? { refund } : {}),
    },
  );
  return { order_id: orderId, action: 'refunded', status: order.status };
}

/** Where the new run starts: the read model's status, version, progress, payment and deliverables. */
function resumeOf(order: OrderDoc, status: OrderResume['status']): OrderResume {
  const progress = order.progress.map((p) => ({ ...p }));
  const delivered = [...progress].reverse().find((p) => p.status === 'delivered' && !p.event);
  return {
    status,
    version: order.version,
    progress,
    ...(order.payment ? { payment: order.payment } : {}),
    deliverables: order.deliverables,
    ...(delivered ? { delivered_at: delivered.at } : {}),
  };
}
