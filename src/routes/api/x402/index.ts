/**
 * x402 routes (seed §2.12, §2.13, §4, §6.3; issue 3):
 * - `GET /api/v1/x402/micro`: the micro catalogue envelope;
 * - `GET /x402/item/{id}`: one micro item, paid per request;
 * - `GET /api/v1/x402/templates`: the template catalogue (sku and price of each);
 * - paid resources: `GET /x402/template?sku=`, `POST /x402/audit`, `GET /x402/agent-starter`, `GET /x402/obs/tick`,
 *   `GET /x402/obs/agents`, `GET /x402/obs/methodology`;
 * - `POST /x402/orders/{order_id}`: pays an order over the x402_usdc rail (issue 3 §8);
 * - `GET /x402/deliveries/{token}`: goods of a settlement that came back pending, once it settled;
 * - `GET /.well-known/x402`: the payment discovery document (the project's own path: the x402 specification
 *   defines none);
 * - `GET /api/v1/x402/payments`, `GET /api/v1/x402/payments/{payment_id}`: the ledger.
 * Registered from the definitions in ./schema.ts, each behind its gate (./policy.ts; paying an order: the buyer).
 */
import type { z } from 'zod';
import { JsonMemo, sendCachedJson } from '../../../http/cachedJson';
import { microCatalogue, microItemGoods } from '../../../products/micro';
import { agentStarterBundle } from '../../../products/x402/agentStarter';
import { InvalidWorkflowError, auditWorkflow, workflowOfBody } from '../../../products/x402/audit';
import { agentsSnapshot, methodologyDocument, tickReading } from '../../../products/x402/observations';
import {
  AGENT_STARTER_BAZAAR,
  AUDIT_BAZAAR,
  ITEM_BAZAAR,
  OBS_AGENTS_BAZAAR,
  OBS_METHODOLOGY_BAZAAR,
  OBS_TICK_BAZAAR,
  ORDER_BAZAAR,
  PAID_RESOURCES,
  TEMPLATE_BAZAAR,
  paidResource,
} from '../../../products/x402/resources';
import { TEMPLATES, getTemplate, templatePriceRange } from '../../../products/x402/templates';
import { ProblemError, badRequest, invalidTransition, notFound, problem, unprocessable } from '../../../errors';
import type { Context } from 'koa';
import type { OrderDoc, X402PaymentDoc } from '../../../db';
import type { RequestTelemetry } from '../../../http/telemetry';
import { sha256Hex as sha256 } from '../../../hash';
import {
  X402Gateway,
  receipt,
  settledResponseOf,
  type PaidQuote,
  type PaidResource,
  type X402Settings,
} from '../../../x402/koa';
import { x402ReconcileWorkflow } from '../../../../workflows/x402Reconcile';
import { x402RefundWorkflow } from '../../../../workflows/x402Refund';
import type { X402RefundOutcome } from '../../../services/x402Refunds';
import { requestBody, type AppDeps } from '../../context';
import { OperationRouter, gated } from '../../operation';
import { buyerGate } from '../orders/policy';
import { orderView } from '../orders/view';
import { itemOfPath, ledgerReader, templateOfQuery } from './policy';
import { type ListQuery, x402Operations as ops } from './schema';
import { paymentView, publicPaymentView } from './view';

/** Extra dependencies of the x402 routes, built by `createApp`. */
export interface X402RouteDeps {
  telemetry: RequestTelemetry;
}

/** Workflow id of the reconciliation of a pending settlement (workflows/x402Reconcile.ts). */
/** How long a refused order payment's answer waits for its on-chain refund (anvil: well under a second). */
const REFUND_WAIT_MS = 10_000;

export const x402ReconcileWorkflowId = (paymentId: string): string => `x402-reconcile-${paymentId}`;

/** x402 settings from the configuration. */
export function x402Settings(config: AppDeps['config']): X402Settings {
  return {
    network: config.X402_NETWORK,
    asset: config.X402_ASSET,
    assetName: config.X402_ASSET_NAME,
    assetVersion: config.X402_ASSET_VERSION,
    payTo: config.X402_PAY_TO,
    facilitatorUrl: config.X402_FACILITATOR_URL.replace(/\/$/, ''),
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  };
}

/** One gateway per application (its x402ResourceServer, claims and sweeper), shared by every route selling over x402. */
const gateways = new WeakMap<AppDeps, X402Gateway>();

/** The x402 gateway of `deps`'s application, made once (the x402 routes and ACP's x402 payment handler use it). */
export function x402GatewayOf(deps: AppDeps): X402Gateway {
  const known = gateways.get(deps);
  if (known) return known;
  const settings = x402Settings(deps.config);
  const made = new X402Gateway({
    settings,
    // Signed offers and receipts, x402 `offer-receipt` extension (issue 12 §3).
    offerReceipt: deps.signing.x402Issuer(),
    ledger: deps.services.x402Payments,
    log: deps.log ?? ((err) => console.error(err)),
    onPending: async (payment) => {
      await deps.temporal.workflow.start(x402ReconcileWorkflow, {
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        workflowId: x402ReconcileWorkflowId(payment._id),
        args: [{ paymentId: payment._id }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Reconcile x402 payment ${payment._id} (${payment.transaction ?? 'no transaction hash'})`,
      });
    },
  });
  gateways.set(deps, made);
  return made;
}

/**
 * An order as a paid x402 resource (issue 3 §8, issue 36 §1): priced at the order's amount, held by its workflow's
 * `holdPayment` while the authorization can settle, confirmed by `confirmPayment` once settled, a refused settlement
 * refunded on chain. `orderOf` is the order the request pays (after its gate). Shared by `POST /x402/orders/{id}` and
 * ACP's x402 payment handler.
 * @throws ProblemError (from quote) 422 `rail_not_offered`, 409 `invalid_state_transition`.
 */
export function orderPaymentResource(deps: AppDeps, orderOf: (ctx: Context) => OrderDoc): PaidResource {
  return {
    quote(ctx) {
      const doc = orderOf(ctx);
      if (!doc.rails.includes('x402_usdc')) {
        throw unprocessable(
          'rail_not_offered',
          `${doc.service_id} is not sold on x402_usdc; rails: ${doc.rails.join(', ')}`,
          { param: 'rail', rails: doc.rails },
        );
      }
      if (doc.status !== 'awaiting_payment') throw invalidTransition('pay', doc.status);
      if (doc.payment_deadline.getTime() <= Date.now()) throw invalidTransition('pay', 'expired');
      return {
        priceMicros: doc.amount_micros,
        description: `Order ${doc._id}: ${doc.service_id}`,
        kind: 'order',
        ref: doc._id,
        orderId: doc._id,
        bazaar: ORDER_BAZAAR,
      };
    },
    produce: () => ({}),
    async reserve(_ctx, quote, claim) {
      // Held while the authorization can still settle (plus a margin), at most 10 minutes (issue 36 §1).
      const seconds = Math.min(600, Math.max(30, claim.valid_before - Math.floor(Date.now() / 1000) + 60));
      const orderId = quote.orderId as string;
      const held = await deps.orderWorkflows.holdPayment(orderId, seconds);
      return async () => {
        if (held) await deps.orderWorkflows.holdPayment(orderId, 0);
      };
    },
    async deliver(_ctx, quote, payment) {
      const orderId = quote.orderId as string;
      let state;
      try {
        state = await deps.orderWorkflows.confirmPayment(orderId, {
          rail: 'x402_usdc',
          transaction_id: payment.transaction ?? '',
        });
      } catch (err) {
        // Settled, then refused (another rail paid first, or the order ended): the money goes back (issue 36 §1).
        if (err instanceof ProblemError && err.status < 500) throw await refundRefused(deps, payment, err);
        throw err;
      }
      const doc = await deps.services.orders.get(orderId);
      if (!doc) throw notFound('order_not_found', `No order ${orderId}`);
      return { order: orderView(doc, deps, state) };
    },
  };
}

/**
 * Refunds a settled payment the order refused, through `x402RefundWorkflow` (id `x402-refund-<payment_id>`, one per
 * payment), waiting up to {@link REFUND_WAIT_MS} for it. Returns the problem to answer: 409 `payment_refunded` with
 * the refund's transaction once it is on chain; the order's own refusal (with `refund: {status}`) otherwise. A
 * refund not confirmed in time stays with its workflow, and the books reconciliation repairs any that never started.
 */
async function refundRefused(deps: AppDeps, payment: X402PaymentDoc, refusal: ProblemError): Promise<ProblemError> {
  const reason = `order ${payment.order_id ?? '?'} refused the payment: ${refusal.code}`;
  let outcome: X402RefundOutcome | null = null;
  try {
    const handle = await deps.temporal.workflow.start(x402RefundWorkflow, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: `x402-refund-${payment._id}`,
      args: [{ paymentId: payment._id, reason }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `Refund x402 payment ${payment._id}: ${reason}`,
    });
    outcome = await Promise.race([
      handle.result(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), REFUND_WAIT_MS).unref()),
    ]);
  } catch (err) {
    deps.log?.(err);
  }
  if (outcome?.status === 'sent') {
    return new ProblemError(
      409,
      'payment_refunded',
      `The order was already paid or has ended (${refusal.detail ?? refusal.code}); this payment of ${payment.amount_micros} micro-USDC was refunded on chain in ${outcome.transaction}`,
      { ...refusal.extra, refund: { status: 'sent', transaction: outcome.transaction } },
    );
  }
  const status = outcome?.status === 'not_due' ? 'not_due' : 'pending';
  return new ProblemError(
    refusal.status,
    refusal.code,
    status === 'pending'
      ? `${refusal.detail ?? refusal.message}; this payment is being refunded on chain`
      : (refusal.detail ?? refusal.message),
    { ...refusal.extra, refund: { status } },
  );
}

/** The x402 routes; see the module comment. */
export function x402Routes(deps: AppDeps, extra: X402RouteDeps): OperationRouter {
  const router = new OperationRouter(deps);
  const base = deps.config.PUBLIC_BASE_URL;
  const settings = x402Settings(deps.config);
  const gateway = x402GatewayOf(deps);
  const { telemetry } = extra;
  // Claims orphaned by a request that died mid-settlement are reconciled too (docs/x402.md, "Known limits").
  gateway.startOrphanSweeper();

  // --- catalogues ---------------------------------------------------------------------------------------------

  const memo = new JsonMemo(4);
  router.on(ops.micro, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    sendCachedJson(
      ctx,
      memo.get('micro', () => microCatalogue(base)),
    );
  });

  router.on(ops.templates, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      name: 'Automation templates',
      currency: 'USD',
      count: TEMPLATES.length,
      price_range: templatePriceRange(),
      how_to_buy: [
        `GET ${base}/x402/template?sku=<sku> without payment: HTTP 402 with PAYMENT-REQUIRED quoting that sku's price`,
        'Pay exactly the quoted USDC amount on chain eip155:8453 (sign the EIP-3009 authorization)',
        'Re-send the request with PAYMENT-SIGNATURE: the n8n workflow JSON comes back in that response',
      ],
      templates: TEMPLATES.map((t) => ({
        sku: t.sku,
        title: t.title,
        price_usd: t.price_usd,
        amount: String(t.price_micros),
        sector: t.sector,
        description: t.description,
        apps: t.apps,
        node_count: t.workflow.nodes.length,
        credentials_needed: t.credentials_needed,
        resource: `${base}/x402/template?sku=${t.sku}`,
      })),
    };
  });

  // --- paid resources -----------------------------------------------------------------------------------------

  const fixed = (path: string, bazaar: PaidQuote['bazaar']): PaidQuote => {
    const r = paidResource(path);
    return { priceMicros: r.price_micros ?? 0, description: r.description, kind: r.kind, ref: null, bazaar };
  };

  const itemGate = { load: itemOfPath(base) };
  const item: PaidResource = {
    quote(ctx) {
      const found = gated(ctx, ops.item, itemGate).resource;
      return {
        priceMicros: found.price_micros,
        description: `${found.title} (${found.kind}, ${found.file})`,
        kind: 'micro_item',
        ref: found.id,
        bazaar: ITEM_BAZAAR,
      };
    },
    produce(ctx) {
      const found = gated(ctx, ops.item, itemGate).resource;
      const content = microItemGoods(found);
      return {
        item: { ...found },
        file: found.file,
        media_type: 'application/json',
        sha256: sha256(JSON.stringify(content)),
        content,
      };
    },
  };
  router.use(ops.item, itemGate, gateway.middleware(item));

  const templateGate = { load: templateOfQuery(base) };
  const template: PaidResource = {
    quote(ctx) {
      const t = gated(ctx, ops.template, templateGate).resource;
      return {
        priceMicros: t.price_micros,
        description: `Automation template ${t.sku}: ${t.title}`,
        kind: 'template',
        ref: t.sku,
        bazaar: TEMPLATE_BAZAAR,
      };
    },
    produce(_ctx, quote) {
      const t = getTemplate(quote.ref ?? '');
      if (!t) throw problem('template_not_found', `No template ${quote.ref}`);
      const { workflow, ...meta } = t;
      return {
        template: meta,
        file: `${t.sku}.json`,
        media_type: 'application/json',
        sha256: sha256(JSON.stringify(workflow)),
        workflow,
      };
    },
  };
  router.use(ops.template, templateGate, gateway.middleware(template));

  const audit: PaidResource = {
    quote() {
      return fixed('/x402/audit', AUDIT_BAZAAR);
    },
    produce(ctx) {
      return { ...auditWorkflow(workflowOfBody(requestBody(ctx))) };
    },
  };
  // The body is checked before a payment is asked: nobody pays for an audit of something that is not a workflow.
  router.use(
    ops.audit,
    async (ctx, next) => {
      try {
        auditWorkflow(workflowOfBody(requestBody(ctx)));
      } catch (err) {
        if (err instanceof InvalidWorkflowError) throw problem('invalid_workflow', err.message, { param: err.param });
        throw err;
      }
      await next();
    },
    gateway.middleware(audit),
  );

  router.use(
    ops.agentStarter,
    gateway.middleware({
      quote: () => fixed('/x402/agent-starter', AGENT_STARTER_BAZAAR),
      produce: () => ({ ...agentStarterBundle(base) }),
    }),
  );

  router.use(
    ops.obsTick,
    gateway.middleware({
      quote: () => fixed('/x402/obs/tick', OBS_TICK_BAZAAR),
      produce: () => tickReading(telemetry.window(telemetry.retentionMs), Date.now(), telemetry.stats()),
    }),
  );
  router.use(
    ops.obsAgents,
    gateway.middleware({
      quote: () => fixed('/x402/obs/agents', OBS_AGENTS_BAZAAR),
      produce: () => agentsSnapshot(telemetry.window(telemetry.retentionMs), Date.now(), telemetry.stats()),
    }),
  );
  router.use(
    ops.obsMethodology,
    gateway.middleware({
      quote: () => fixed('/x402/obs/methodology', OBS_METHODOLOGY_BAZAAR),
      produce: () => methodologyDocument(telemetry.stats()),
    }),
  );

  // --- x402 as an order rail (issue 3 §8) ---------------------------------------------------------------------

  // Who may pay an order is checked before a payment is asked: its buyer (401 / 403), resend or not.
  const payGate = buyerGate(deps, 'pay');
  const orderResource = orderPaymentResource(deps, (ctx) => gated(ctx, ops.payOrder, payGate).resource);
  router.use(ops.payOrder, payGate, gateway.middleware(orderResource));

  // --- pending deliveries -------------------------------------------------------------------------------------

  /** The payment of a pending delivery's token. @throws ProblemError 404 `not_found`. */
  const deliveryOfPath = async (input: { readonly params: { token: string } }) => {
    const token = input.params.token;
    const payment = /^dlv_[A-Za-z0-9_-]{20,64}$/.test(token)
      ? await deps.services.x402Payments.getByDeliveryToken(token)
      : null;
    if (!payment) throw notFound('not_found', 'No delivery with this token');
    return payment;
  };
  router.on(ops.delivery, { load: deliveryOfPath }, (ctx, _input, payment) => {
    ctx.set('Cache-Control', 'no-store');
    if (payment.status === 'settled') {
      const response = settledResponseOf(payment);
      for (const [k, v] of Object.entries(response.headers)) ctx.set(k, v);
      ctx.body = response.body;
      return;
    }
    if (payment.status === 'failed') {
      // Gone rather than 402: these goods will never be delivered, so there is nothing to pay again.
      throw problem(
        'payment_failed',
        `Payment ${payment._id} did not settle (${payment.error_reason}); nothing was charged and these goods will not be delivered`,
        { payment: receipt(payment) },
        { status: 410 },
      );
    }
    ctx.status = 202;
    ctx.set('Retry-After', '5');
    ctx.body = {
      status: payment.status,
      payment: receipt(payment),
      detail: 'The settlement is not confirmed yet; retry shortly',
    };
  });

  // --- discovery and ledger -----------------------------------------------------------------------------------

  router.on(ops.discovery, async (ctx) => {
    const micro = microCatalogue(base);
    const support = await facilitatorSupport(gateway, settings);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      x402_version: 2,
      enabled: true,
      micro_tier: {
        name: micro.name,
        count: micro.count,
        price_range_usd: micro.price_range,
        total_value_usd: micro.total_value_usd,
        why: micro.why,
        buy: `GET ${base}/x402/item/{id}: HTTP 402 with PAYMENT-REQUIRED, pay the exact USDC amount, re-send with PAYMENT-SIGNATURE`,
        catalogue: `${base}/api/v1/x402/micro`,
      },
      facilitator: settings.facilitatorUrl,
      wallet: settings.payTo,
      currency: 'USDC',
      network: settings.network,
      resources: PAID_RESOURCES.map((r) => ({
        resource: `${base}${r.path}`,
        method: r.method,
        price_usd: r.price_usd,
        amount: r.price_micros === null ? null : String(r.price_micros),
        priced_per_item: r.priced_per_item,
        asset: 'USDC',
        asset_address: settings.asset,
        network: settings.network,
        scheme: 'exact',
        pay_to: settings.payTo,
        description: r.description,
        ...(r.priced_per_item
          ? {
              price_range: templatePriceRange(),
              how_to_price_it: `GET ${base}/api/v1/x402/templates lists every sku with its price; the 402 of ${base}/x402/template?sku=<sku> quotes that sku's price`,
            }
          : {}),
      })),
      item_count: micro.count + PAID_RESOURCES.length,
      note: "This document is this service's own discovery file; the x402 specification (v2) defines no /.well-known/x402. Amounts are USDC atomic units (price_usd × 1,000,000). Every 402 also carries the x402 bazaar extension with the resource's input and output schema.",
      facilitator_network_support: support,
    };
  });

  // The full ledger is the operator's view; anyone may look up one payment by its transaction hash (public on chain
  // anyway), in the public form: nothing that names the order it paid (issue 10 §2, issue 36 §2).
  router.on(ops.payments, { authorize: ledgerReader }, async (ctx, input, _none, access) => {
    const query = input.query;
    const view = access.as === 'operator' ? paymentView : publicPaymentView;
    ctx.set('Cache-Control', 'no-store');
    if (query.transaction) {
      const p = await deps.services.x402Payments.getByTransaction(query.transaction);
      const payments = p ? [view(p, base)] : [];
      ctx.body = { payments, count: payments.length, next_cursor: null, next: null };
      return;
    }
    let page;
    try {
      page = await deps.services.x402Payments.list(query);
    } catch (err) {
      if (err instanceof Error && err.message === 'bad cursor')
        throw badRequest('cursor is not one this API issued', 'cursor');
      throw err;
    }
    ctx.body = {
      payments: page.payments.map((p) => view(p, base)),
      count: page.payments.length,
      next_cursor: page.next_cursor,
      next: page.next_cursor
        ? `${base}/api/v1/x402/payments?${new URLSearchParams({ ...stringQuery(query), cursor: page.next_cursor }).toString()}`
        : null,
    };
  });

  /** The ledger entry of the path. @throws ProblemError 404 `not_found`. */
  const paymentOfPath = async (input: { readonly params: { payment_id: string } }) => {
    const p = await deps.services.x402Payments.get(input.params.payment_id);
    if (!p) throw notFound('not_found', `No x402 payment ${input.params.payment_id}`);
    return p;
  };
  // Anyone who has the payment id (a transaction lookup gives it) sees the public form; the operator key, every field.
  router.on(ops.payment, { load: paymentOfPath }, (ctx, _input, p, access) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = access.actor.operator ? paymentView(p, base) : publicPaymentView(p, base);
  });

  return router;
}

function stringQuery(q: z.infer<typeof ListQuery>): Record<string, string> {
  const out: Record<string, string> = { limit: String(q.limit) };
  if (q.status) out.status = q.status;
  if (q.resource_kind) out.resource_kind = q.resource_kind;
  return out;
}

/** `facilitator_network_support` from a real `GET /supported` on the configured facilitator (cached 10 s). */
async function facilitatorSupport(
  gateway: X402Gateway,
  settings: X402Settings,
): Promise<{ supported: boolean; detail: string }> {
  try {
    const supported = await gateway.supported();
    const kind = supported.kinds.find(
      (k) => k.x402Version === 2 && k.scheme === 'exact' && k.network === settings.network,
    );
    const signers = Object.entries(supported.signers ?? {})
      .map(([ns, addrs]) => `${ns}: ${addrs.join(', ')}`)
      .join('; ');
    return kind
      ? {
          supported: true,
          detail: `GET ${settings.facilitatorUrl}/supported lists scheme exact on ${settings.network} (x402 v2)${signers ? `; signers ${signers}` : ''}`,
        }
      : {
          supported: false,
          detail: `GET ${settings.facilitatorUrl}/supported does not list exact on ${settings.network}; it lists ${supported.kinds.map((k) => `${k.scheme}@${k.network} v${k.x402Version}`).join(', ') || 'nothing'}`,
        };
  } catch (err) {
    return {
      supported: false,
      detail: `GET ${settings.facilitatorUrl}/supported failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}
