/**
 * Public forms of an order (seed §2.3 to §2.5, §4; issue 6 for the long-running members): the read model, overlaid
 * with a fresher workflow state when one is at hand, and how to pay it on each rail.
 */
import type { OrderDoc } from '../../../db';
import { getService } from '../../../domain/catalogue';
import { isPerTaskService } from '../../../domain/longRunning';
import { microsToUsd } from '../../../domain/money';
import { SubscriptionRepository } from '../../../repos/subscriptions';
import { TaskRepository } from '../../../repos/tasks';
import type { OrderState } from '../../../domain/order';
import type { AppDeps } from '../../context';
import { engineeringView } from '../engineering/view';
import { subscriptionView } from '../subscriptions/view';
import type { Order } from './schema';

/**
 * Public form of an order: the read model, overlaid with a fresher workflow state when one is at hand (an Update's
 * answer: the route need not read the order again after it).
 */
export function orderView(doc: OrderDoc, deps: AppDeps, live?: OrderState): Order {
  const base = deps.config.PUBLIC_BASE_URL;
  const self = `${base}/api/v1/orders/${doc._id}`;
  const fresh = live && live.progress.length >= doc.progress.length ? live : undefined;
  const status = fresh ? fresh.status : doc.status;
  const progress = fresh ? fresh.progress : doc.progress;
  // The read model's updated_at is its last transition's time: the live state's last step, when that is newer.
  const lastAt = fresh?.progress.at(-1)?.at;
  const updatedAt =
    lastAt !== undefined && Date.parse(lastAt) > doc.updated_at.getTime() ? new Date(lastAt) : doc.updated_at;
  const payment = live?.payment ?? doc.payment ?? null;
  const deliverables = live && live.deliverables.length > 0 ? live.deliverables : doc.deliverables;
  const review = live?.review ?? doc.review ?? null;
  const refund = live?.refund ?? doc.refund ?? null;
  return {
    order_id: doc._id,
    service_id: doc.service_id,
    status,
    progress,
    amount: microsToUsd(doc.amount_micros),
    amount_micros: doc.amount_micros,
    currency: doc.currency,
    billing: doc.billing,
    quote_id: doc.quote_id,
    agent_id: doc.agent_id,
    partner_id: doc.partner_id,
    webhook_url: doc.webhook_url,
    payment: payment
      ? {
          rail: payment.rail,
          transaction_id: payment.transaction_id,
          amount: microsToUsd(payment.amount_micros),
          paid_at: payment.paid_at,
        }
      : null,
    payment_options: status === 'awaiting_payment' ? paymentOptions(doc, deps) : null,
    payment_deadline: doc.payment_deadline.toISOString(),
    deliverables: deliverables.map((d) => ({ ...d, url: `${self}/deliverables/${encodeURIComponent(d.name)}` })),
    review: review ? { ...review } : null,
    refund: refund ? { ...refund, amount: microsToUsd(refund.amount_micros) } : null,
    failure: live?.failure ?? doc.failure,
    links: {
      self,
      verification: `${self}/verification`,
      review: `${self}/review`,
      confirm_payment: `${self}/confirm_payment`,
    },
    created_at: doc.created_at.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

/** How to pay the order on each rail its service offers (seed §4: payment endpoints per rail). */
function paymentOptions(doc: OrderDoc, deps: AppDeps): Order['payment_options'] {
  const base = deps.config.PUBLIC_BASE_URL;
  const rails = doc.rails;
  return {
    amount: microsToUsd(doc.amount_micros),
    amount_micros: doc.amount_micros,
    currency: doc.currency,
    rails,
    confirm_url: `${base}/api/v1/orders/${doc._id}/confirm_payment`,
    ...(rails.includes('linkpay_ncp')
      ? { linkpay_ncp: { checkout_url: deps.services.linkProvider.checkoutUrl(doc._id) } }
      : {}),
    ...(rails.includes('agent_wallet')
      ? {
          agent_wallet: {
            wallet_url: doc.agent_id
              ? `${base}/api/v1/wallets/${encodeURIComponent(doc.agent_id)}`
              : `${base}/api/v1/wallets/{agent_id}`,
            agent_id: doc.agent_id,
          },
        }
      : {}),
    // x402: POST the resource with an x402 client; settlement confirms the order (issue 3 §8).
    ...(rails.includes('x402_usdc')
      ? {
          x402_usdc: {
            resource: `${base}/x402/orders/${doc._id}`,
            method: 'POST',
            network: deps.config.X402_NETWORK,
            asset: deps.config.X402_ASSET,
            pay_to: deps.config.X402_PAY_TO,
            amount: String(doc.amount_micros),
          },
        }
      : {}),
  };
}

/**
 * The long-running members of an order's view: `engineering` for expert orders that reached the queue,
 * `subscription` (null until it starts at delivery) for monthly services, `tasks` for per-task services.
 */
export async function longRunningView(deps: AppDeps, doc: OrderDoc): Promise<Record<string, unknown>> {
  const base = deps.config.PUBLIC_BASE_URL;
  const out: Record<string, unknown> = {};
  const engineering = engineeringView(doc, base);
  if (engineering) out.engineering = engineering;
  if (doc.billing === 'monthly') {
    const s = await new SubscriptionRepository(deps.services.db).get(doc._id);
    out.subscription = s ? subscriptionView(s, base) : null;
  }
  const service = getService(doc.service_id);
  if (service && isPerTaskService(service)) {
    const tasks = await new TaskRepository(deps.services.db).list(doc._id);
    out.tasks = {
      submit_url: `${base}/api/v1/orders/${doc._id}/tasks`,
      price: microsToUsd(doc.amount_micros),
      items: tasks.map((t) => ({
        task: t.number,
        status: t.status,
        url: `${base}/api/v1/orders/${doc._id}/tasks/${t.number}`,
      })),
    };
  }
  return out;
}

/** An order answered after an Update (`state`, fresher than the read model for a moment) with its long-running members. */
export async function orderWithLongRunning(
  deps: AppDeps,
  doc: OrderDoc,
  state: OrderState,
): Promise<Record<string, unknown>> {
  const fresh = (await deps.services.orders.get(doc._id)) ?? doc;
  return { ...orderView(fresh, deps, state), ...(await longRunningView(deps, fresh)) };
}
