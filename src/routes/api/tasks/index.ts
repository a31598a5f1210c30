/**
 * Further tasks of per-task services (task-worker, issue 6 §3), registered from their definitions in ./schema.ts.
 * One order buys one task (its own task_prompt); further tasks on a delivered or accepted order are charged one by one
 * from the order's agent wallet at the order's quoted per-task price:
 * - `POST /api/v1/orders/{order_id}/tasks {task_prompt, format?}` (Bearer agent key) → 201 delivered task, 402 when the
 *   wallet is short, 202 while it still runs
 * - `GET  /api/v1/orders/{order_id}/tasks`, `.../tasks/{n}`, `.../tasks/{n}/deliverables/{name}`
 * Loading and who may submit: ./policy.ts, checked by each operation's gate.
 */
import { missingInputs } from '../../../domain/catalogue';
import { invalidTransition, notFound, problem, unprocessable } from '../../../errors';
import { idempotentCreation } from '../../../http/idempotency';
import { TaskRepository } from '../../../repos/tasks';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { sendDeliverable } from '../../deliverableDownload';
import { orderOfPath } from '../orders/policy';
import { taskOfPath, taskSubmitGate } from './policy';
import { taskOperations as ops } from './schema';
import { taskView } from './view';

/** How long `POST .../tasks` waits for the task's outcome before answering 202. */
export const TASK_WAIT_MS = 15_000;

/** Order statuses in which a per-task order takes further tasks: its own task was delivered and not refunded. */
const TASKABLE = ['delivered', 'accepted'];

/** The task routes. */
export function taskRoutes(deps: AppDeps): OperationRouter {
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const tasks = new TaskRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  const task = { load: taskOfPath(deps, tasks) };

  return new OperationRouter(deps)
    .on(ops.submit, taskSubmitGate(deps), async (ctx, input, { doc, service, agentId }) => {
      const body = input.body;
      if (!TASKABLE.includes(doc.status)) throw invalidTransition('submit a further task', doc.status);
      const inputs = { task_prompt: body.task_prompt, ...(body.format ? { format: body.format } : {}) };
      const missing = missingInputs(service, inputs);
      if (missing.length > 0)
        throw unprocessable('missing_inputs', `${service.id} needs inputs: ${missing.join(', ')}`, { missing });
      // With an Idempotency-Key, a retry after a crash finds the task the first request created (issue 36): the
      // same number, so the same workflow and the same charge `task:<order_id>:<n>`, never a second one.
      const creation = idempotentCreation(ctx);
      const task = await tasks.create(
        doc._id,
        inputs,
        doc.amount_micros,
        creation ? { token: creation.name('task'), at: creation.at } : undefined,
      );
      const result = await workflows.runTask(
        {
          orderId: doc._id,
          taskNumber: task.number,
          serviceId: doc.service_id,
          agentId,
          amountMicros: task.amount_micros,
          inputs: task.inputs,
          requestedAt: task.requested_at.toISOString(),
        },
        TASK_WAIT_MS,
      );
      const fresh = (await tasks.get(doc._id, task.number)) ?? task;
      const view = taskView(fresh, base);
      ctx.set('Location', `/api/v1/orders/${doc._id}/tasks/${task.number}`);
      if (!result) {
        ctx.status = 202;
        ctx.body = view;
        return;
      }
      if (result.status === 'payment_failed') {
        const code = result.failure?.code === 'insufficient_funds' ? 'insufficient_funds' : 'payment_failed';
        throw problem(code, result.failure?.message ?? 'The task could not be charged', { task: view });
      }
      ctx.status = 201;
      // The outcome may be newer than the read model for a moment; the workflow's result is authoritative.
      ctx.body = { ...view, status: result.status, failure: result.failure };
    })
    .on(ops.list, { load: orderOfPath(deps) }, async (ctx, _input, doc) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { order_id: doc._id, tasks: (await tasks.list(doc._id)).map((t) => taskView(t, base)) };
    })
    .on(ops.get, task, (ctx, _input, t) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = taskView(t, base);
    })
    .on(ops.deliverable, task, async (ctx, { params }, t) => {
      const d = t.deliverables.find((x) => x.name === params.name);
      if (!d) throw notFound('deliverable_not_found', `Task ${t.number} has no deliverable ${params.name}`);
      await sendDeliverable(ctx, deps.services.store, d);
    });
}
