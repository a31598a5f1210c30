/**
 * The HTTP side of orders: the public view, loading by id, rail inference, `Prefer: wait`. Creating an order is the
 * application layer's (src/services/orders.ts); {@link orderCreationPorts} wires it to the API's dependencies.
 */
import type { OrderDoc } from '../db';
import { microsToUsd } from '../domain/money';
import { notFound } from '../errors';
import type { OrderCreationPorts } from '../services/orders';
import type { OrderState, PaymentRail } from '../../workflows/shared';
import type { AppDeps } from './context';
import { OrderIdParam, type Order } from './api/orders/schema';

/** Default rail when the caller names none: by the shape of the transaction id (documented on the schema). */
export function inferRail(transactionId: string | undefined): PaymentRail {
  if (!transactionId) return 'agent_wallet';
  if (transactionId.startsWith('lp_')) return 'linkpay_ncp';
  if (/^0x[0-9a-fA-F]{64}$/.test(transactionId)) return 'x402_usdc';
  return 'linkpay_ncp';
}

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
      ? { linkpay_ncp: { checkout_url: deps.services.linkpay.checkoutUrl(doc._id) } }
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

/** Seconds of an RFC 7240 `Prefer: wait=N` header, capped at 60; 0 when absent or malformed. */
export function preferWaitSeconds(prefer: string): number {
  const m = /(?:^|[,;\s])wait=(\d{1,5})(?:$|[,;\s])/i.exec(prefer);
  return m ? Math.min(60, Number(m[1])) : 0;
}

/** Loads an order or throws 404 `order_not_found`. */
export async function loadOrder(deps: AppDeps, orderId: string | undefined): Promise<OrderDoc> {
  const id = OrderIdParam.safeParse(orderId);
  const doc = id.success ? await deps.services.orders.get(id.data) : null;
  if (!doc) throw notFound('order_not_found', `No order ${orderId}`);
  return doc;
}

/** The ports of order creation (src/services/orders.ts) from the API's dependencies. */
export function orderCreationPorts(deps: AppDeps): OrderCreationPorts {
  return {
    quotes: deps.services.quotes,
    orders: deps.services.orders,
    webhooks: deps.services.webhooks,
    startOrderWorkflow: (input, serviceName) => deps.orderWorkflows.start(input, serviceName),
    config: deps.config,
  };
}
