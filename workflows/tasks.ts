/**
 * One further task of a per-task order (issue 6 §3, task-worker), id `task-<order_id>-<n>`: charge the agent
 * wallet the order's per-task price (`task:<order_id>:<n>`), produce the task's deliverables, record the outcome.
 * A production failure after every retry refunds the charge. Tasks are accepted on delivery (no review window):
 * the buyer pays per task it submits, and a task's documents are produced from its own prompt alone.
 */
import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { LongRunningActivities } from '../activities/longRunning';
import { money, taskDetails, type TaskStep } from './details';
import { CAPTURE_OPTIONS, PRODUCE_OPTIONS, RECORD_OPTIONS, businessFailure, nowIso, withSummary } from './policies';
import { TASK_EVENT_TYPES, type TaskInput, type TaskResult } from '../src/domain/subscription';

const records = proxyActivities<LongRunningActivities>(RECORD_OPTIONS);
const payments = proxyActivities<LongRunningActivities>(CAPTURE_OPTIONS);
/** Heartbeats per stored file (issue 14): a dead worker's attempt is retried after 10 s, not 5 minutes. */
const producers = proxyActivities<LongRunningActivities>(PRODUCE_OPTIONS);

/** Charges, produces and records task `input.taskNumber`; returns its outcome. */
export async function taskWorkflow(input: TaskInput): Promise<TaskResult> {
  const show = (step: TaskStep, result?: TaskResult): void =>
    setCurrentDetails(
      taskDetails({
        orderId: input.orderId,
        taskNumber: input.taskNumber,
        serviceId: input.serviceId,
        amountMicros: input.amountMicros,
        step,
        ...(result ? { result } : {}),
      }),
    );
  const finish = async (result: TaskResult): Promise<TaskResult> => {
    show('recording', result);
    await withSummary(records.recordTask, `Record task ${input.taskNumber} ${result.status}`, {
      orderId: input.orderId,
      taskNumber: input.taskNumber,
      result,
      eventType: result.status === 'delivered' ? TASK_EVENT_TYPES.delivered : TASK_EVENT_TYPES.failed,
      at: nowIso(),
    });
    show(result.status, result);
    return result;
  };
  const price = money(input.amountMicros, 'USD');

  let charge: TaskResult['charge'];
  show('charging');
  try {
    const tx = await withSummary(
      payments.chargeTask,
      `Charge task ${input.taskNumber}: ${price} from the agent wallet`,
      {
        orderId: input.orderId,
        taskNumber: input.taskNumber,
        agentId: input.agentId,
        amountMicros: input.amountMicros,
      },
    );
    charge = { ...tx, at: nowIso() };
  } catch (err) {
    const cause = businessFailure(err);
    if (!cause) throw err;
    return finish({
      status: 'payment_failed',
      charge: null,
      deliverables: [],
      refund: null,
      failure: { code: cause.type ?? 'payment_failed', message: cause.message },
    });
  }

  show('producing');
  try {
    const deliverables = await withSummary(
      producers.produceTask,
      `Produce task ${input.taskNumber} (${input.serviceId})`,
      {
        orderId: input.orderId,
        taskNumber: input.taskNumber,
        serviceId: input.serviceId,
        inputs: input.inputs,
        issuedAt: input.requestedAt,
      },
    );
    return await finish({ status: 'delivered', charge, deliverables, refund: null, failure: null });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const refund = await withSummary(records.refundTask, `Refund task ${input.taskNumber}: ${price}`, {
      orderId: input.orderId,
      taskNumber: input.taskNumber,
      agentId: input.agentId,
      amountMicros: charge.amount_micros,
      reason: 'task_failed',
      at: nowIso(),
    });
    return finish({ status: 'failed', charge, deliverables: [], refund, failure: { code: 'task_failed', message } });
  }
}
