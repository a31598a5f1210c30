/**
 * ACP 2026-04-17 merchant routes (issue 37 §1), registered from their definitions in ./schema.ts behind their gates
 * (./policy.ts: the platform, the ACP headers, its own session). The sessions are src/services/checkoutSessions.ts;
 * their ACP form ./view.ts. Errors are ACP's `{type, code, message, param}` (src/http/acp.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { CheckoutSessionDoc } from '../../../db';
import { problem } from '../../../errors';
import { checkSigningKey } from '../../../http/acpSignature';
import { idempotentCreation } from '../../../http/idempotency';
import { CheckoutSessionWorkflows } from '../../../temporal/checkoutSessions';
import { checkTarget } from '../../../webhooks/ssrf';
import { FEED_TARGET_COUNTRY, feedProducts } from '../../../domain/acpFeed';
import { pushFeed } from '../../../services/acpFeed';
import { CheckoutSessionRepository } from '../../../repos/checkoutSessions';
import {
  ACP_VERSION,
  cancelCheckoutSession,
  cardPayments,
  completeCheckoutSession,
  createCheckoutSession,
  delegateWalletPayment,
  freshSessionIds,
  settleX402Session,
  updateCheckoutSession,
  type CheckoutPorts,
  type SessionIds,
} from '../../../services/checkoutSessions';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { orderCreationPorts } from '../../orders';
import { platformGate, sessionGate, walletGate, type AcpCaller, type SessionCaller } from './policy';
import { orderPaymentResource, x402GatewayOf } from '../x402';
import { checkoutOperations as ops } from './schema';
import { unsupportedMessages, type UnsupportedMessage } from './unsupported';
import { sessionView } from './view';

/** The buyer without `tax_exemption` (answered `unsupported`, never stored). */
const buyerOf = <B extends { tax_exemption?: unknown }>(buyer: B | undefined): Omit<B, 'tax_exemption'> | undefined => {
  if (!buyer) return undefined;
  const { tax_exemption: _dropped, ...rest } = buyer;
  return rest;
};

/** Ids of a new session from the request's Idempotency-Key claim (a retry after a crash names the same ones). */
function sessionIds(ctx: Context): SessionIds {
  const c = idempotentCreation(ctx);
  if (!c) return freshSessionIds();
  return {
    sessionId: `cs_${c.name('checkout session')}`,
    quoteId: `quo_${c.name('quote')}`,
    orderId: `ord_${c.name('order')}`,
    seed: c.name('order seed', 32),
    at: c.at,
  };
}

/** The session and platform a session gate let through. */
const checked = (caller: AcpCaller): SessionCaller => caller as SessionCaller;

/**
 * The application layer's ports for checkout sessions of either protocol (ACP here, UCP in ../ucp): the sessions, the
 * order's creation and payment on each rail, the platforms' webhooks and the session workflow.
 */
export function checkoutPorts(deps: AppDeps, repo: CheckoutSessionRepository): CheckoutPorts {
  return {
    sessions: repo,
    quotes: { quotes: deps.services.quotes, config: deps.config },
    creation: orderCreationPorts(deps),
    order: (id) => deps.services.orders.get(id),
    confirmWalletPayment: (id) => deps.orderWorkflows.confirmPayment(id, { rail: 'agent_wallet' }),
    cards: cardPayments(deps.services.stripe, (id, req) => deps.orderWorkflows.confirmPayment(id, req)),
    acpWebhooks: deps.services.webhooks,
    sessionWorkflow: new CheckoutSessionWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE),
  };
}

/** The ACP routes. */
export function checkoutRoutes(deps: AppDeps): OperationRouter {
  const repo = new CheckoutSessionRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;
  const textgenConfigured = Boolean(deps.config.TEXTGEN_BASE_URL && deps.config.TEXTGEN_MODEL);
  const ports = checkoutPorts(deps, repo);
  const card = deps.services.stripe
    ? {
        psp: 'stripe',
        environment: deps.config.DEPLOYMENT_ENV === 'production' ? ('production' as const) : ('test' as const),
      }
    : undefined;
  const answer = async (
    ctx: Context,
    doc: CheckoutSessionDoc,
    status = 200,
    unsupported: UnsupportedMessage[] = [],
  ) => {
    const order =
      doc.status === 'open' || doc.status === 'canceled' ? null : await deps.services.orders.get(doc.order_id);
    ctx.status = status;
    ctx.set('Cache-Control', 'no-store');
    const key = ctx.get('idempotency-key');
    if (key) ctx.set('Idempotency-Key', key);
    const view = sessionView(doc, order, base, (micros) => ({ ...x402GatewayOf(deps).requirementsFor(micros) }), card);
    ctx.body = { ...view, messages: [...view.messages, ...unsupported] };
  };
  return new OperationRouter(deps)
    .on(ops.create, platformGate(repo, true), async (ctx, input, caller) => {
      const { line_items, currency, buyer, metadata } = input.body;
      if (currency.toLowerCase() !== 'usd')
        throw problem('invalid_request', 'Sessions are in usd', { param: '$.currency' });
      const item = line_items[0] as (typeof line_items)[number];
      const doc = await createCheckoutSession(
        ports,
        checked(caller).platform._id,
        { item, buyer: buyerOf(buyer), metadata },
        sessionIds(ctx),
      );
      ctx.set('Location', `/checkout_sessions/${doc._id}`);
      await answer(ctx, doc, 201, unsupportedMessages(input.body));
    })
    .on(ops.get, sessionGate(repo, false), async (ctx, _input, caller) => {
      await answer(ctx, checked(caller).session);
    })
    .on(ops.update, sessionGate(repo, true), async (ctx, input, caller) => {
      const { line_items, buyer, metadata } = input.body;
      const doc = await updateCheckoutSession(ports, checked(caller).session, {
        item: line_items?.[0],
        buyer: buyerOf(buyer),
        metadata,
      });
      await answer(ctx, doc, 200, unsupportedMessages(input.body));
    })
    .on(ops.complete, sessionGate(repo, true), async (ctx, input, caller) => {
      const { payment_data, buyer } = input.body;
      const token = payment_data.instrument?.credential.token;
      let doc = await completeCheckoutSession(ports, checked(caller).session, {
        handler_id: payment_data.handler_id,
        token,
        buyer: buyerOf(buyer),
      });
      if (doc.status === 'complete_in_progress' && doc.payment?.handler_id === 'x402') {
        // The x402 rail itself pays the session's order with the request's payload (claim, verify, hold, settle,
        // confirmPayment, a refused settlement refunded): as POST /x402/orders/{id} with PAYMENT-SIGNATURE.
        const order = await deps.services.orders.get(doc.order_id);
        if (order && !order.payment) {
          ctx.req.headers['payment-signature'] = token;
          await x402GatewayOf(deps).middleware(orderPaymentResource(deps, () => order))(ctx, async () => undefined);
          // 402 (not settled, with PAYMENT-REQUIRED) or a refusal stands as answered; 202 is a settlement pending
          // on chain, which its reconciliation confirms: the session stays complete_in_progress meanwhile.
          if (ctx.status !== 200 && ctx.status !== 202) return;
        }
        doc = await settleX402Session(ports, doc);
      }
      await answer(ctx, doc, 200, unsupportedMessages(input.body));
    })
    .on(ops.cancel, sessionGate(repo, true), async (ctx, _input, caller) => {
      await answer(ctx, await cancelCheckoutSession(ports, checked(caller).session));
    })
    .on(ops.delegatePayment, walletGate(deps), async (ctx, input, caller) => {
      const c = idempotentCreation(ctx);
      const token = await delegateWalletPayment(
        repo,
        caller.agentId ?? '',
        { allowance: input.body.allowance, metadata: input.body.metadata },
        c ? `vt_${c.name('delegated token')}` : undefined,
        c?.at,
      );
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        id: token._id,
        created: token.created_at.toISOString(),
        metadata: { ...token.metadata, source: 'agent_wallet', merchant_id: token.merchant_id },
      };
    })
    .on(ops.createPlatform, async (ctx, input) => {
      const { name, request_signing, webhook } = input.body;
      if (request_signing) checkSigningKey(request_signing, 'request_signing.jwk');
      if (webhook) await checkTarget(webhook.url, deps.config.DEV_MODE, 'webhook.url');
      const hook = webhook
        ? { url: webhook.url, secret: webhook.secret ?? `whsec_${randomBytes(32).toString('base64url')}` }
        : null;
      const { platform, apiKey } = await repo.createPlatform(name, { request_signing, webhook: hook });
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        id: platform._id,
        name: platform.name,
        api_key: apiKey,
        request_signing: request_signing ? { alg: request_signing.alg } : null,
        webhook: hook,
        created_at: platform.created_at.toISOString(),
      };
    })
    .on(ops.feedProducts, (ctx) => {
      // Feed prices are discovery-time signals (rfc.product_feeds.md §3.3): a few minutes' cache is fine.
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = { products: feedProducts(base, textgenConfigured) };
    })
    .on(ops.pushFeed, async (ctx, input) => {
      const platform = await repo.platform(input.params.platform_id);
      if (!platform) throw problem('acp_platform_not_found', `No ACP platform ${input.params.platform_id}`);
      const { url: given, api_key, target_country } = input.body;
      const url = given ?? platform.feed?.url;
      if (!url) throw problem('invalid_request', 'Give the URL of the platform’s Feed API', { param: 'url' });
      await checkTarget(url, deps.config.DEV_MODE, 'url');
      // Another Feed API is another feed: its id there is not the old one.
      const kept = platform.feed && platform.feed.url === url ? platform.feed : undefined;
      const apiKey = api_key ?? kept?.api_key;
      const result = await pushFeed(
        { url, apiKey, feedId: kept?.feed_id, targetCountry: target_country ?? FEED_TARGET_COUNTRY },
        feedProducts(base, textgenConfigured),
      );
      await repo.setPlatformFeed(platform._id, { url, api_key: apiKey, feed_id: result.feedId });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        platform_id: platform._id,
        url,
        feed_id: result.feedId,
        created: result.created,
        accepted: result.accepted,
        pushed: result.pushed,
      };
    })
    .on(ops.discovery, (ctx) => {
      ctx.body = {
        protocol: {
          name: 'acp',
          version: ACP_VERSION,
          supported_versions: [ACP_VERSION],
          documentation_url: `${base}/api/v1/openapi.json`,
        },
        api_base_url: base,
        transports: ['rest', 'mcp'],
        capabilities: { services: ['checkout', 'delegate_payment'], supported_currencies: ['usd'] },
      };
    });
}
