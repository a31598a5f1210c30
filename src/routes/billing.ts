/**
 * Subscription and per-task endpoints (issue 6 §2, §3).
 *
 * Monthly services (ai-receptionist): the order pays period 1; the subscription workflow renews every month.
 * - `GET  /api/v1/orders/{order_id}/subscription` the subscription with its charge log
 * - `POST /api/v1/orders/{order_id}/subscription/cancel {reason?}` cancel at the end of the period (at once while a
 *   renewal is unpaid)
 * - `POST /api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay {transaction_id}` pay a renewal invoice
 *   (rails other than agent_wallet) with a hosted-link transaction bound to the invoice id
 *
 * Per-task services (task-worker): one order buys one task (its own task_prompt). Further tasks on a delivered or
 * accepted order are charged one by one from the order's agent wallet at the order's quoted per-task price:
 * - `POST /api/v1/orders/{order_id}/tasks {task_prompt, format?}` (Bearer agent key) → 201 delivered task, 402 when the
 *   wallet is short, 202 while it still runs
 * - `GET  /api/v1/orders/{order_id}/tasks`, `.../tasks/{n}`, `.../tasks/{n}/deliverables/{name}`
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { OrderDoc } from '../db';
import { getService, missingInputs } from '../domain/catalogue';
import { isPerTaskService } from '../domain/longRunning';
import { ProblemError, invalidTransition, notFound, problem, unprocessable } from '../errors';
import { requireBuyer } from '../http/buyer';
import { zodProblem } from '../http/errors';
import { SubscriptionRepository } from '../repos/subscriptions';
import { TaskRepository } from '../repos/tasks';
import { LongRunningWorkflows } from '../temporal/longRunning';
import { requestBody, type AppDeps } from './context';
import { CancelBody, PayInvoiceBody, TaskBody } from './longRunningSchemas';
import { subscriptionView, taskView } from './longRunningView';
import { loadOrder } from './orders';

/** How long `POST .../tasks` waits for the task's outcome before answering 202. */
export const TASK_WAIT_MS = 15_000;

/** Order statuses in which a per-task order takes further tasks: its own task was delivered and not refunded. */
const TASKABLE = ['delivered', 'accepted'];

/**
 * Spending the order's wallet needs its agent key (`Authorization: Bearer ak_...`).
 * @throws ProblemError 401 without a key, 403 with a wrong one, 422 when the order names no agent.
 */
async function authorizeWallet(ctx: Context, deps: AppDeps, order: OrderDoc): Promise<string> {
  if (!order.agent_id) throw unprocessable('task_not_supported', 'The order has no agent_id, so no wallet can pay its tasks');
  await requireBuyer(ctx, deps.services.wallets, order, 'pay a task of');
  return order.agent_id;
}

const TaskNumber = z.coerce.number().int().min(1).max(1_000_000);

/** Subscription and task routes. */
export function billingRoutes(deps: AppDeps): Router {
  const router = new Router();
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const subscriptions = new SubscriptionRepository(deps.services.db);
  const tasks = new TaskRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  const loadSubscription = async (orderId: string | undefined) => {
    const doc = await loadOrder(deps, orderId);
    const s = await subscriptions.get(doc._id);
    if (!s) {
      if (doc.billing === 'monthly') throw invalidTransition('manage the subscription (it starts when the order is delivered)', doc.status);
      throw notFound('subscription_not_found', `Order ${doc._id} is not a subscription (billing ${doc.billing})`);
    }
    return { doc, s };
  };

  router.get('/api/v1/orders/:order_id/subscription', async (ctx) => {
    const { doc, s } = await loadSubscription(ctx.params.order_id);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { order_id: doc._id, ...subscriptionView(s, base) };
  });

  router.post('/api/v1/orders/:order_id/subscription/cancel', async (ctx) => {
    const { doc } = await loadSubscription(ctx.params.order_id);
    await requireBuyer(ctx, deps.services.wallets, doc, 'cancel the subscription of');
    const parsed = CancelBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    await workflows.cancelSubscription(doc._id, parsed.data.reason ? { reason: parsed.data.reason } : {});
    const s = await subscriptions.get(doc._id);
    ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
  });

  router.post('/api/v1/orders/:order_id/subscription/invoices/:invoice_id/pay', async (ctx) => {
    const { doc } = await loadSubscription(ctx.params.order_id);
    await requireBuyer(ctx, deps.services.wallets, doc, 'pay an invoice of');
    const parsed = PayInvoiceBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    await workflows.payInvoice(doc._id, { invoice_id: ctx.params.invoice_id ?? '', transaction_id: parsed.data.transaction_id });
    const s = await subscriptions.get(doc._id);
    ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
  });

  router.post('/api/v1/orders/:order_id/tasks', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const service = getService(doc.service_id);
    if (!service || !isPerTaskService(service)) {
      throw unprocessable('task_not_supported', `${doc.service_id} is billed ${doc.billing}; further tasks are for per_task services`);
    }
    const parsed = TaskBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const agentId = await authorizeWallet(ctx, deps, doc);
    if (!TASKABLE.includes(doc.status)) throw invalidTransition('submit a further task', doc.status);
    const inputs = { task_prompt: parsed.data.task_prompt, ...(parsed.data.format ? { format: parsed.data.format } : {}) };
    const missing = missingInputs(service, inputs);
    if (missing.length > 0) throw unprocessable('missing_inputs', `${service.id} needs inputs: ${missing.join(', ')}`, { missing });
    const task = await tasks.create(doc._id, inputs, doc.amount_micros);
    const result = await workflows.runTask(
      { orderId: doc._id, taskNumber: task.number, serviceId: doc.service_id, agentId, amountMicros: doc.amount_micros, inputs, requestedAt: task.requested_at.toISOString() },
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
  });

  router.get('/api/v1/orders/:order_id/tasks', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { order_id: doc._id, tasks: (await tasks.list(doc._id)).map((t) => taskView(t, base)) };
  });

  const loadTask = async (orderId: string | undefined, n: string | undefined) => {
    const doc = await loadOrder(deps, orderId);
    const num = TaskNumber.safeParse(n);
    const t = num.success ? await tasks.get(doc._id, num.data) : null;
    if (!t) throw notFound('task_not_found', `Order ${doc._id} has no task ${n}`);
    return t;
  };

  router.get('/api/v1/orders/:order_id/tasks/:n', async (ctx) => {
    const t = await loadTask(ctx.params.order_id, ctx.params.n);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = taskView(t, base);
  });

  router.get('/api/v1/orders/:order_id/tasks/:n/deliverables/:name', async (ctx) => {
    const t = await loadTask(ctx.params.order_id, ctx.params.n);
    const d = t.deliverables.find((x) => x.name === ctx.params.name);
    if (!d) throw notFound('deliverable_not_found', `Task ${t.number} has no deliverable ${ctx.params.name}`);
    const bytes = await deps.services.store.get(d.sha256);
    if (!bytes) throw new ProblemError(500, 'internal_error', `blob ${d.sha256} missing`);
    ctx.type = d.media_type;
    ctx.set('ETag', `"${d.sha256}"`);
    ctx.set('Repr-Digest', `sha-256=:${Buffer.from(d.sha256, 'hex').toString('base64')}:`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = bytes;
  });

  return router;
}
