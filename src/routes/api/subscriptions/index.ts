/**
 * Subscription routes of monthly services (issue 6 §2), registered from their definitions in ./schema.ts.
 * - `GET  /api/v1/orders/{order_id}/subscription` the subscription with its charge log
 * - `POST /api/v1/orders/{order_id}/subscription/cancel {reason?}` cancel at the end of the period (at once while a
 *   renewal is unpaid)
 * - `POST /api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay {transaction_id}` pay a renewal invoice
 *   (rails other than agent_wallet) with a hosted-link transaction bound to the invoice id
 * Loading and who may act: ./policy.ts, checked by each operation's gate.
 */
import { SubscriptionRepository } from '../../../repos/subscriptions';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { subscriptionBuyerGate, subscriptionOfPath } from './policy';
import { subscriptionOperations as ops } from './schema';
import { subscriptionView } from './view';

/** The subscription routes. */
export function subscriptionRoutes(deps: AppDeps): OperationRouter {
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const subscriptions = new SubscriptionRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  return new OperationRouter(deps)
    .on(ops.get, { load: subscriptionOfPath(deps, subscriptions) }, (ctx, _input, { doc, s }) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { order_id: doc._id, ...subscriptionView(s, base) };
    })
    .on(
      ops.cancel,
      subscriptionBuyerGate(deps, subscriptions, 'cancel the subscription of'),
      async (ctx, input, { doc }) => {
        const { reason } = input.body;
        await workflows.cancelSubscription(doc._id, reason ? { reason } : {});
        const s = await subscriptions.get(doc._id);
        ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
      },
    )
    .on(
      ops.payInvoice,
      subscriptionBuyerGate(deps, subscriptions, 'pay an invoice of'),
      async (ctx, input, { doc }) => {
        const { transaction_id } = input.body;
        await workflows.payInvoice(doc._id, { invoice_id: input.params.invoice_id, transaction_id });
        const s = await subscriptions.get(doc._id);
        ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
      },
    );
}
