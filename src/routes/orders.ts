import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { getService, priceMicros, missingInputs, type ServiceDefinition } from '../domain/catalogue';
import { refuseUnavailableService } from '../domain/deliverables/availability';
import { missingTextgenSettings } from '../textgen';
import { longRunningTerms } from '../domain/longRunning';
import { longRunningView } from './longRunningView';
import { microsToUsd } from '../domain/money';
import type { OrderDoc } from '../db';
import { ProblemError, invalidTransition, notFound, unprocessable } from '../errors';
import { zodProblem } from '../http/errors';
import { etagMatches } from '../http/cachedJson';
import { newOrderSecret, requireBuyer } from '../http/buyer';
import { initialOrderDoc } from '../repos/orders';
import { sha256Hex } from '../storage/deliverables';
import { orderReceipt } from '../services/receipts';
import type { OrderState, OrderWorkflowInput, PaymentRail } from '../../workflows/shared';
import { requestBody, type AppDeps } from './context';
import { checkTarget, endpointView } from './webhooks';
import type { NewEndpoint } from '../repos/webhooks';
import { ConfirmPaymentRequest, OrderIdParam, OrderRequest, ReviewRequest, type Order } from './schemas';

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

/**
 * Spending a wallet needs its agent key (`Authorization: Bearer ak_...`); nobody else, operators included, can.
 * @throws ProblemError 401 without a key, 403 with a wrong one, 422 when the order names no agent.
 */
async function authorizeWalletSpend(ctx: Context, deps: AppDeps, order: OrderDoc): Promise<void> {
  if (!order.agent_id) throw unprocessable('payment_failed', 'The order has no agent_id, so no wallet can pay it', { param: 'rail' });
  await requireBuyer(ctx, deps.services.wallets, order, `pay from wallet ${order.agent_id}`);
}

/** Order operations (seed §4 and issue 2 §4). */
export function orderRoutes(deps: AppDeps): Router {
  const router = new Router();

  router.post('/api/v1/orders', async (ctx) => {
    const parsed = OrderRequest.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const { doc, webhook, orderSecret } = await createOrder(deps, { ...parsed.data, is_agent: true });
    ctx.status = 201;
    ctx.set('Location', `/api/v1/orders/${doc._id}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      ...orderView(doc, deps),
      ...(orderSecret ? { order_secret: orderSecret } : {}),
      ...(webhook ? { webhook: endpointView(webhook.endpoint, webhook) } : {}),
    };
  });

  router.get('/api/v1/orders/:order_id', async (ctx) => {
    let doc = await loadOrder(deps, ctx.params.order_id);
    // engineering / subscription / tasks of long-running orders (issue 6), present only where they apply.
    const render = async (d: OrderDoc) => {
      // The signed delivery receipt once delivered, the same on every read (issue 12 §3).
      const body = { ...orderView(d, deps), ...(await longRunningView(deps, d)), receipt: await orderReceipt(deps, d) };
      return { body, etag: `W/"${sha256Hex(JSON.stringify(body)).slice(0, 32)}"` };
    };
    let view = await render(doc);
    // Long poll (RFC 7240 `Prefer: wait=N` with the ETag the client holds): answer when the order changes,
    // or after N seconds (at most 60) with 304 if it has not.
    const ifNoneMatch = ctx.get('if-none-match');
    const wait = preferWaitSeconds(ctx.get('prefer'));
    if (wait > 0 && etagMatches(ifNoneMatch, view.etag)) {
      const deadline = Date.now() + wait * 1000;
      while (etagMatches(ifNoneMatch, view.etag) && Date.now() < deadline) {
        await deps.services.orders.waitForChange(doc._id, doc.version, deadline - Date.now());
        doc = (await deps.services.orders.get(doc._id)) ?? doc;
        view = await render(doc);
      }
      ctx.set('Preference-Applied', `wait=${wait}`);
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.set('ETag', view.etag);
    if (etagMatches(ifNoneMatch, view.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = view.body;
  });

  router.post('/api/v1/orders/:order_id/confirm_payment', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const parsed = ConfirmPaymentRequest.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const rail = (parsed.data.rail as PaymentRail | undefined) ?? inferRail(parsed.data.transaction_id);
    if (!doc.rails.includes(rail)) {
      throw unprocessable('rail_not_offered', `${doc.service_id} is not sold on ${rail}; rails: ${doc.rails.join(', ')}`, { param: 'rail', rails: doc.rails });
    }
    if (rail === 'agent_wallet') await authorizeWalletSpend(ctx, deps, doc);
    const state = await deps.orderWorkflows.confirmPayment(doc._id, {
      rail,
      ...(parsed.data.transaction_id ? { transaction_id: parsed.data.transaction_id } : {}),
    });
    ctx.body = orderView((await deps.services.orders.get(doc._id)) ?? doc, deps, state);
  });

  router.post('/api/v1/orders/:order_id/review', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    await requireBuyer(ctx, deps.services.wallets, doc, 'review');
    const parsed = ReviewRequest.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    const state = await deps.orderWorkflows.review(doc._id, {
      action: parsed.data.action,
      ...(parsed.data.reason ? { reason: parsed.data.reason } : {}),
    });
    ctx.body = orderView((await deps.services.orders.get(doc._id)) ?? doc, deps, state);
  });

  router.get('/api/v1/orders/:order_id/verification', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    if (doc.deliverables.length === 0) throw invalidTransition('verify deliverables', doc.status);
    const self = `${deps.config.PUBLIC_BASE_URL}/api/v1/orders/${doc._id}`;
    const manifest = await Promise.all(
      doc.deliverables.map(async (d) => {
        const bytes = await deps.services.store.get(d.sha256);
        const computed = bytes ? sha256Hex(bytes) : null;
        return {
          name: d.name,
          url: `${self}/deliverables/${encodeURIComponent(d.name)}`,
          size: d.size,
          media_type: d.media_type,
          recorded_sha256: d.sha256,
          computed_sha256: computed,
          match: computed === d.sha256 && bytes?.length === d.size,
        };
      }),
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      order_id: doc._id,
      status: manifest.every((m) => m.match) ? 'verified' : 'mismatch',
      algorithm: 'sha256',
      verified_at: new Date().toISOString(),
      manifest,
    };
  });

  router.get('/api/v1/orders/:order_id/deliverables/:name', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const d = doc.deliverables.find((x) => x.name === ctx.params.name);
    if (!d) throw notFound('deliverable_not_found', `Order ${doc._id} has no deliverable ${ctx.params.name}`);
    const bytes = await deps.services.store.get(d.sha256);
    if (!bytes) throw new ProblemError(500, 'internal_error', `blob ${d.sha256} missing`);
    ctx.type = d.media_type;
    ctx.set('ETag', `"${d.sha256}"`);
    ctx.set('Repr-Digest', `sha-256=:${Buffer.from(d.sha256, 'hex').toString('base64')}:`);
    ctx.set('Content-Disposition', `attachment; filename="${d.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = bytes;
  });

  router.get('/api/v1/orders/:order_id/events', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const events = await deps.services.events.list(doc._id);
    ctx.body = {
      order_id: doc._id,
      events: events.map((e) => ({ id: e._id, seq: e.seq, type: e.type, data: e.data, timestamp: e.created_at.toISOString() })),
    };
  });

  return router;
}
