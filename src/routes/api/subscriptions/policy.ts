/**
 * Loading a monthly order's subscription and who may act on it (issue 6 §2; issue 27 §1): anyone holding the order id
 * reads it; cancelling it or paying an invoice is the buyer's (the order's credential: src/routes/api/orders/policy.ts).
 */
import type { OrderDoc, SubscriptionDoc } from '../../../db';
import { invalidTransition, notFound } from '../../../errors';
import type { SubscriptionRepository } from '../../../repos/subscriptions';
import type { AppDeps } from '../../context';
import type { Actor } from '../../gate';
import type { RawRequest } from '../../operation';
import { buyerOf, loadOrder } from '../orders/policy';

/** An order and its subscription. */
export interface OrderSubscription {
  doc: OrderDoc;
  s: SubscriptionDoc;
}

/**
 * Loader of the subscription of the order of the path.
 * @throws ProblemError 404 `order_not_found` / `subscription_not_found` (not a monthly order), 409 not started yet.
 */
export function subscriptionOfPath(deps: Pick<AppDeps, 'services'>, subscriptions: SubscriptionRepository) {
  return async (_input: unknown, raw: RawRequest): Promise<OrderSubscription> => {
    const doc = await loadOrder(deps, raw.params.order_id);
    const s = await subscriptions.get(doc._id);
    if (!s) {
      if (doc.billing === 'monthly')
        throw invalidTransition('manage the subscription (it starts when the order is delivered)', doc.status);
      throw notFound('subscription_not_found', `Order ${doc._id} is not a subscription (billing ${doc.billing})`);
    }
    return { doc, s };
  };
}

/** The gate of a buyer's action on the subscription (`auth: 'buyer'`); `action` words the refusals. */
export function subscriptionBuyerGate(
  deps: Pick<AppDeps, 'services'>,
  subscriptions: SubscriptionRepository,
  action: string,
) {
  return {
    load: subscriptionOfPath(deps, subscriptions),
    authorize: (actor: Actor, { doc }: OrderSubscription) => buyerOf(deps.services.wallets, actor, doc, action),
  };
}
