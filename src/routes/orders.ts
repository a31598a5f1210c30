import { randomBytes } from 'node:crypto';
import { getService, priceMicros, missingInputs, type ServiceDefinition } from '../domain/catalogue';
import { refuseUnavailableService } from '../domain/deliverables/availability';
import { missingTextgenSettings } from '../textgen';
import { longRunningTerms } from '../domain/longRunning';
import { microsToUsd } from '../domain/money';
import type { OrderDoc } from '../db';
import { ProblemError, notFound, unprocessable } from '../errors';
import { newOrderSecret } from '../http/buyer';
import { initialOrderDoc } from '../repos/orders';
import type { OrderState, OrderWorkflowInput, PaymentRail } from '../../workflows/shared';
import type { AppDeps } from './context';
import { checkTarget } from '../webhooks/ssrf';
import type { NewEndpoint } from '../repos/webhooks';
import { OrderIdParam, type Order } from './api/orders/schema';

/** New order id: `ord_` + 128 random bits (the id is a capability: whoever holds it can follow the order). */
export const newOrderId = (): string => `ord_${randomBytes(16).toString('base64url')}`;

/** Default rail when the caller names none: by the shape of the transaction id (documented on the schema). */
export function inferRail(transactionId: string | undefined): PaymentRail {
  if (!transactionId) return 'agent_wallet';
  if (transactionId.startsWith('lp_')) return 'linkpay_ncp';
  if (/^0x[0-9a-fA-F]{64}$/.test(transactionId)) return 'x402_usdc';
  return 'linkpay_ncp';
}

/**
 * Public form of an order: the read model, overlaid with a fresher workflow state when one is at hand
 * (an Update's answer is newer than the read model for a moment).
 */
export function orderView(doc: OrderDoc, deps: AppDeps, live?: OrderState): Order {
  const base = deps.config.PUBLIC_BASE_URL;
  const self = `${base}/api/v1/orders/${doc._id}`;
  const status = live && live.progress.length >= doc.progress.length ? live.status : doc.status;
  const progress = live && live.progress.length >= doc.progress.length ? live.progress : doc.progress;
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
      ? { rail: payment.rail, transaction_id: payment.transaction_id, amount: microsToUsd(payment.amount_micros), paid_at: payment.paid_at }
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
    updated_at: doc.updated_at.toISOString(),
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
    ...(rails.includes('linkpay_ncp') ? { linkpay_ncp: { checkout_url: deps.services.linkpay.checkoutUrl(doc._id) } } : {}),
    ...(rails.includes('agent_wallet')
      ? { agent_wallet: { wallet_url: doc.agent_id ? `${base}/api/v1/wallets/${encodeURIComponent(doc.agent_id)}` : `${base}/api/v1/wallets/{agent_id}`, agent_id: doc.agent_id } }
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

/** Facts an order is created from; shared by the JSON API and the hosted payment link. */
export interface NewOrder {
  service_id?: string;
  quote_id?: string;
  agent_id?: string;
  email?: string;
  webhook_url?: string;
  inputs: Record<string, string | number | boolean | string[]>;
  /** Price kind when no quote is given; the JSON API uses the agent price (seed §2.2 default is_agent = true). */
  is_agent: boolean;
  /** Fixed order id, so a retried creation (procurement activity) makes one order; default a new random id. */
  order_id?: string;
}

/**
 * Validates and creates an order: starts its workflow (id `order-<order_id>`), then writes the read model.
 * The workflow writes the same record itself, so a crash between the two leaves no half-written order.
 * With `webhook_url`, registers the order's own webhook endpoint first and returns its secret (shown once). Without
 * `agent_id`, returns the order secret (`orderSecret`, shown once), the buyer's credential for later actions.
 * @throws ProblemError 404 quote_not_found / service_not_found, 409 quote_expired, 422 quote_service_mismatch / missing_inputs /
 *   text_generation_unavailable / webhook_target_forbidden.
 */
export async function createOrder(
  deps: AppDeps,
  req: NewOrder,
): Promise<{ doc: OrderDoc; service: ServiceDefinition; webhook?: NewEndpoint; orderSecret?: string }> {
  const now = new Date();
  if (req.webhook_url) await checkTarget(req.webhook_url, deps.config.DEV_MODE, 'webhook_url');
  const quote = req.quote_id ? await deps.services.db.quotes.findOne({ _id: req.quote_id }) : null;
  if (req.quote_id && !quote) throw notFound('quote_not_found', `No quote ${req.quote_id}`);
  if (quote && quote.expires_at.getTime() <= now.getTime()) {
    throw new ProblemError(409, 'quote_expired', `Quote ${quote._id} expired at ${quote.expires_at.toISOString()}; request a new one`, {
      expired_at: quote.expires_at.toISOString(),
    });
  }
  if (quote && req.service_id && req.service_id !== quote.service_id) {
    throw unprocessable('quote_service_mismatch', `Quote ${quote._id} is for ${quote.service_id}, not ${req.service_id}`, { param: 'service_id' });
  }
  const serviceId = quote?.service_id ?? req.service_id ?? '';
  const service = getService(serviceId);
  if (!service) throw notFound('service_not_found', `No service ${serviceId}; see GET /api/v1/services`);
  const missing = missingInputs(service, req.inputs);
  if (missing.length > 0) {
    throw unprocessable('missing_inputs', `${service.id} needs inputs: ${missing.join(', ')}`, { param: 'inputs', missing });
  }
  refuseUnavailableService(service, missingTextgenSettings(deps.config));
  const orderId = req.order_id ?? newOrderId();
  // Without an agent wallet, the buyer's credential is a secret of this order, shown once (issue 10 §1).
  const secret = req.agent_id ? undefined : newOrderSecret();
  const input: OrderWorkflowInput = {
    orderId,
    record: {
      quote_id: quote?._id ?? null,
      agent_id: req.agent_id ?? null,
      email: req.email ?? null,
      webhook_url: req.webhook_url ?? null,
      partner_id: quote?.partner_id ?? null,
      billing: service.billing,
      is_agent: quote?.is_agent ?? req.is_agent,
      created_at: now.toISOString(),
      payment_deadline: new Date(now.getTime() + deps.config.PAYMENT_DEADLINE_SECONDS * 1000).toISOString(),
      ...(secret ? { buyer_secret_hash: secret.hash } : {}),
    },
    serviceId: service.id,
    includes: service.includes ?? [],
    rails: service.payment_rails,
    amountMicros: quote?.amount_micros ?? priceMicros(service, req.is_agent),
    currency: service.currency,
    ...(req.agent_id ? { agentId: req.agent_id } : {}),
    ...(quote?.partner_id ? { partnerId: quote.partner_id } : {}),
    inputs: req.inputs,
    paymentDeadlineSeconds: deps.config.PAYMENT_DEADLINE_SECONDS,
    reviewWindowSeconds: deps.config.REVIEW_WINDOW_SECONDS,
    // Expert SLA clock, monthly subscription terms (issue 6).
    ...longRunningTerms(service),
  };
  // The order's own webhook endpoint exists before the workflow emits order.created (issue 5 §1).
  const webhook = req.webhook_url
    ? await deps.services.webhooks.register({ url: req.webhook_url, agentId: null, orderId, events: [] })
    : undefined;
  await deps.orderWorkflows.start(input, service.name);
  const doc = initialOrderDoc(input);
  await deps.services.orders.ensure(doc);
  return { doc, service, ...(webhook ? { webhook } : {}), ...(secret ? { orderSecret: secret.secret } : {}) };
}
