/**
 * Further tasks of per-task services (task-worker, issue 6 §3), registered from their definitions in ./schema.ts.
 * One order buys one task (its own task_prompt); further tasks on a delivered or accepted order are charged one by one
 * from the order's agent wallet at the order's quoted per-task price:
 * - `POST /api/v1/orders/{order_id}/tasks {task_prompt, format?}` (Bearer agent key) → 201 delivered task, 402 when the
 *   wallet is short, 202 while it still runs
 * - `GET  /api/v1/orders/{order_id}/tasks`, `.../tasks/{n}`, `.../tasks/{n}/deliverables/{name}`
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { OrderDoc } from '../../../db';
import { getService, missingInputs } from '../../../domain/catalogue';
import { isPerTaskService } from '../../../domain/longRunning';
import { invalidTransition, notFound, problem, unprocessable } from '../../../errors';
import { requireBuyer } from '../../../http/buyer';
import { TaskRepository } from '../../../repos/tasks';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import type { AppDeps } from '../../context';
import { taskView } from '../../longRunningView';
import { OperationRouter } from '../../operation';
import { loadOrder } from '../../orders';
import { sendDeliverable } from '../../deliverableDownload';
import { taskOperations as ops } from './schema';

/** How long `POST .../tasks` waits for the task's outcome before answering 202. */
export const TASK_WAIT_MS = 15_000;

/** Order statuses in which a per-task order takes further tasks: its own task was delivered and not refunded. */
const TASKABLE = ['delivered', 'accepted'];

/**
 * Spending the order's wallet needs its agent key (`Authorization: Bearer ak_...`).
 * @throws ProblemError 401 without a key, 403 with a wrong one, 422 when the order names no agent.
 */
async function authorizeWallet(ctx: Context, deps: AppDeps, order: OrderDoc): Promise<string> {
  if (!order.agent_id)
    throw unprocessable('task_not_supported', 'The order has no agent_id, so no wallet can pay its tasks');
  await requireBuyer(ctx, deps.services.wallets, order, 'pay a task of');
  return order.agent_id;
}

/** A task number in a path; anything else finds no task (404). */
const TaskNumber = z.coerce.number().int().min(1).max(1_000_000);

/** The task routes. */
export function taskRoutes(deps: AppDeps): OperationRouter {
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const tasks = new TaskRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  /** @throws ProblemError 404 `order_not_found` / `task_not_found`. */
  const loadTask = async (orderId: string | undefined, n: string | undefined) => {
    const doc = await loadOrder(deps, orderId);
    const num = TaskNumber.safeParse(n);
    const t = num.success ? await tasks.get(doc._id, num.data) : null;
    if (!t) throw notFound('task_not_found', `Order ${doc._id} has no task ${n}`);
    return t;
  };

  return new OperationRouter(deps)
    .on(ops.submit, async (ctx, input) => {
      const doc = await loadOrder(deps, ctx.params.order_id);
      const service = getService(doc.service_id);
      if (!service || !isPerTaskService(service)) {
        throw unprocessable(
          'task_not_supported',
          `${doc.service_id} is billed ${doc.billing}; further tasks are for per_task services`,
        );
      }
      const body = input.body;
      const agentId = await authorizeWallet(ctx, deps, doc);
      if (!TASKABLE.includes(doc.status)) throw invalidTransition('submit a further task', doc.status);
      const inputs = { task_prompt: body.task_prompt, ...(body.format ? { format: body.format } : {}) };
      const missing = missingInputs(service, inputs);
      if (missing.length > 0)
        throw unprocessable('missing_inputs', `${service.id} needs inputs: ${missing.join(', ')}`, { missing });
      const task = await tasks.create(doc._id, inputs, doc.amount_micros);
      const result = await workflows.runTask(
        {
          orderId: doc._id,
          taskNumber: task.number,
          serviceId: doc.service_id,
          agentId,
          amountMicros: doc.amount_micros,
          inputs,
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
    .on(ops.list, async (ctx) => {
      const doc = await loadOrder(deps, ctx.params.order_id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { order_id: doc._id, tasks: (await tasks.list(doc._id)).map((t) => taskView(t, base)) };
    })
    .on(ops.get, async (ctx) => {
      const t = await loadTask(ctx.params.order_id, ctx.params.n);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = taskView(t, base);
    })
    .on(ops.deliverable, async (ctx) => {
      const t = await loadTask(ctx.params.order_id, ctx.params.n);
      const d = t.deliverables.find((x) => x.name === ctx.params.name);
      if (!d) throw notFound('deliverable_not_found', `Task ${t.number} has no deliverable ${ctx.params.name}`);
      await sendDeliverable(ctx, deps.services.store, d);
    });
}
