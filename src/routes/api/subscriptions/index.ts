/**
 * Subscription routes of monthly services (issue 6 §2), registered from their definitions in ./schema.ts.
 * - `GET  /api/v1/orders/{order_id}/subscription` the subscription with its charge log
 * - `POST /api/v1/orders/{order_id}/subscription/cancel {reason?}` cancel at the end of the period (at once while a
 *   renewal is unpaid)
 * - `POST /api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay {transaction_id}` pay a renewal invoice
 *   (rails other than agent_wallet) with a hosted-link transaction bound to the invoice id
 */
import { invalidTransition, notFound } from '../../../errors';
import { requireBuyer } from '../../../http/buyer';
import { SubscriptionRepository } from '../../../repos/subscriptions';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import type { AppDeps } from '../../context';
import { subscriptionView } from '../../longRunningView';
import { OperationRouter } from '../../operation';
import { loadOrder } from '../../orders';
import { subscriptionOperations as ops } from './schema';

/** The subscription routes. */
export function subscriptionRoutes(deps: AppDeps): OperationRouter {
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const subscriptions = new SubscriptionRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  /** The order and its subscription. @throws ProblemError 404 not a subscription, 409 not started yet. */
  const loadSubscription = async (orderId: string | undefined) => {
    const doc = await loadOrder(deps, orderId);
    const s = await subscriptions.get(doc._id);
    if (!s) {
      if (doc.billing === 'monthly')
        throw invalidTransition('manage the subscription (it starts when the order is delivered)', doc.status);
      throw notFound('subscription_not_found', `Order ${doc._id} is not a subscription (billing ${doc.billing})`);
    }
    return { doc, s };
  };

  return new OperationRouter(deps)
    .on(ops.get, async (ctx) => {
      const { doc, s } = await loadSubscription(ctx.params.order_id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { order_id: doc._id, ...subscriptionView(s, base) };
    })
    .on(ops.cancel, async (ctx, input) => {
      const { doc } = await loadSubscription(ctx.params.order_id);
      await requireBuyer(ctx, deps.services.wallets, doc, 'cancel the subscription of');
      const { reason } = input.body;
      await workflows.cancelSubscription(doc._id, reason ? { reason } : {});
      const s = await subscriptions.get(doc._id);
      ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
    })
    .on(ops.payInvoice, async (ctx, input) => {
      const { doc } = await loadSubscription(ctx.params.order_id);
      await requireBuyer(ctx, deps.services.wallets, doc, 'pay an invoice of');
      const { transaction_id } = input.body;
      await workflows.payInvoice(doc._id, { invoice_id: ctx.params.invoice_id ?? '', transaction_id });
      const s = await subscriptions.get(doc._id);
      ctx.body = { order_id: doc._id, ...(s ? subscriptionView(s, base) : {}) };
    });
}
