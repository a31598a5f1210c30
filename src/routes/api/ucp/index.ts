/**
 * UCP business routes (issue 37 §2): the profile at `/.well-known/ucp` and the checkout capability over REST, on the
 * same sessions and orders as ACP (src/services/checkoutSessions.ts; UCP's own mapping src/services/ucpCheckout.ts).
 * The platform is verified before the route (src/http/ucp.ts); errors are UCP's `{code, content}`; complete answers
 * are signed (RFC 9421, our Ed25519 key).
 */
import type { Context } from 'koa';
import { checkoutPorts } from '../checkout';
import type { CheckoutSessionDoc } from '../../../db';
import { ProblemError, problem } from '../../../errors';
import { idempotentCreation } from '../../../http/idempotency';
import { sendSignedUcpAnswer, ucpPlatformOf } from '../../../http/ucp';
import { CheckoutSessionRepository } from '../../../repos/checkoutSessions';
import {
  cancelCheckoutSession,
  completeCheckoutSession,
  createCheckoutSession,
  freshSessionIds,
  updateCheckoutSession,
  type SessionIds,
} from '../../../services/checkoutSessions';
import {
  businessProfile,
  CHECKOUT_CAP,
  negotiate,
  ORDER_CAP,
  ucpCheckoutView,
  ucpPlatformId,
  UCP_VERSION,
  type UcpMessage,
} from '../../../services/ucpCheckout';
import { sameTerms, signMerchantAuthorization, verifyCheckoutMandate } from '../../../ucp/ap2';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { ucpOrderGate, ucpPlatformGate, ucpSessionGate, type UcpCaller } from './policy';
import { ucpOrderEntity } from '../../../webhooks/ucp';
import type { OrderStatus } from '../../../domain/order';
import { ucpOperations as ops } from './schema';

/** Whether this business offers the AP2 mandate extension (issue 37 §2; src/ucp/ap2.ts). */
const OFFER_AP2 = true;

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

/** The session a session gate let through. */
const sessionOf = (caller: UcpCaller): CheckoutSessionDoc => caller.session as CheckoutSessionDoc;

/** The line item of a create or update request as the sessions take it. */
const itemOf = (li: { item: { id: string }; quantity: number }) => ({ id: li.item.id, quantity: li.quantity });

/** The service's inputs of a request as the sessions take them (`metadata.inputs`). */
const metadataOf = (inputs: Record<string, unknown> | undefined) => (inputs ? { inputs } : undefined);

/** The UCP routes. */
export function ucpRoutes(deps: AppDeps): OperationRouter {
  const repo = new CheckoutSessionRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;
  const ports = checkoutPorts(deps, repo);

  /**
   * Answers the checkout view, with `ap2.merchant_authorization` when AP2 was negotiated for the session; `sign` signs
   * the answer (RFC 9421 over `@status`, Content-Digest, Content-Type).
   */
  const answer = async (
    ctx: Context,
    doc: CheckoutSessionDoc,
    opts: { status?: number; sign?: boolean; messages?: UcpMessage[] } = {},
  ) => {
    const order =
      doc.status === 'open' || doc.status === 'canceled' ? null : await deps.services.orders.get(doc.order_id);
    const view = ucpCheckoutView(doc, order, base, { messages: opts.messages });
    if (doc.ucp?.ap2)
      view.ap2 = { merchant_authorization: await signMerchantAuthorization(view, await deps.signing.rawSigner()) };
    const body = JSON.stringify(view);
    ctx.status = opts.status ?? 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    if (opts.sign) await sendSignedUcpAnswer(ctx, await deps.signing.rawSigner(), body);
    else ctx.body = body;
  };

  /** A business outcome without a checkout (error_response.json), HTTP 200. */
  const outcome = (ctx: Context, code: string, content: string, path?: string) => {
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      ucp: { version: UCP_VERSION, status: 'error' as const },
      messages: [{ type: 'error' as const, code, content, severity: 'unrecoverable', ...(path ? { path } : {}) }],
      continue_url: `${base}/api/v1/services`,
    };
  };

  return new OperationRouter(deps)
    .on(ops.profile, async (ctx) => {
      const { keys } = await deps.signing.jwks();
      // Profiles are public and cacheable (overview, "Profile Requirements: Hosting": public, max-age ≥ 60).
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = businessProfile(base, keys as Record<string, unknown>[], OFFER_AP2);
    })
    .on(ops.create, ucpPlatformGate(), async (ctx, input, caller) => {
      const platform = ucpPlatformOf(ctx);
      if (!platform) throw problem('signature_missing', 'Sign the request');
      const neg = negotiate(platform.profile, OFFER_AP2);
      if (!neg.checkout)
        return outcome(ctx, 'capabilities_incompatible', `No compatible capabilities: ${CHECKOUT_CAP} ${UCP_VERSION}`);
      const { line_items, buyer, service_inputs } = input.body;
      let doc: CheckoutSessionDoc;
      try {
        doc = await createCheckoutSession(
          ports,
          ucpPlatformId(caller.profileUrl),
          { item: itemOf(line_items[0] as (typeof line_items)[number]), buyer, metadata: metadataOf(service_inputs) },
          sessionIds(ctx),
        );
      } catch (err) {
        if (err instanceof ProblemError && err.code === 'invalid_request' && err.extra.param === '$.line_items[0].id')
          return outcome(ctx, 'item_unavailable', err.detail ?? 'Not for sale', '$.line_items[0].item.id');
        throw err;
      }
      if (!doc.ucp) {
        const ucp = { profile_url: caller.profileUrl, webhook_url: neg.order ? neg.webhookUrl : null, ap2: neg.ap2 };
        doc = (await repo.update(doc, { ucp })) ?? (await repo.get(doc._id)) ?? doc;
      }
      ctx.set('Location', `/checkout-sessions/${doc._id}`);
      await answer(ctx, doc, { status: 201 });
    })
    .on(ops.get, ucpSessionGate(repo), async (ctx, _input, caller) => {
      await answer(ctx, sessionOf(caller));
    })
    .on(ops.update, ucpSessionGate(repo), async (ctx, input, caller) => {
      const session = sessionOf(caller);
      // Checkout, "Accepted completion": an update during complete leaves the checkout as it is, with a message.
      if (session.status === 'complete_in_progress')
        return answer(ctx, session, {
          messages: [
            {
              type: 'error',
              code: 'complete_in_progress',
              content: 'Complete Checkout was accepted; the checkout cannot be updated',
              severity: 'recoverable',
            },
          ],
        });
      const { line_items, buyer, service_inputs } = input.body;
      const doc = await updateCheckoutSession(ports, session, {
        item: itemOf(line_items[0] as (typeof line_items)[number]),
        buyer,
        metadata: metadataOf(service_inputs),
      });
      await answer(ctx, doc);
    })
    .on(ops.complete, ucpSessionGate(repo), async (ctx, input, caller) => {
      const session = sessionOf(caller);
      // AP2 negotiated: the session is locked to mandates (ap2-mandates.md, "Business Verification").
      if (session.ucp?.ap2) {
        const mandate = input.body.ap2?.checkout_mandate;
        if (!mandate) throw problem('mandate_required', 'AP2 was negotiated: send ap2.checkout_mandate');
        const authorized = await verifyCheckoutMandate(mandate, {
          checkoutId: session._id,
          audience: base,
          platformKeys: ucpPlatformOf(ctx)?.profile.keys ?? [],
          businessKeys: (await deps.signing.jwks()).keys,
        });
        if (!sameTerms(authorized, ucpCheckoutView(session, null, base)))
          throw problem('mandate_scope_mismatch', 'The mandate authorizes other terms than this checkout now has');
      }
      const instruments = input.body.payment.instruments;
      const instrument = instruments.find((i) => i.selected) ?? instruments[0];
      if (!instrument)
        throw problem('invalid_request', 'Select a payment instrument', { param: 'payment.instruments' });
      let doc: CheckoutSessionDoc;
      try {
        doc = await completeCheckoutSession(ports, session, {
          handler_id: instrument.handler_id,
          token: instrument.credential?.token,
        });
      } catch (err) {
        // Not ready: the checkout as it is, `incomplete` with its messages (a business outcome, not an error).
        if (err instanceof ProblemError && err.code === 'checkout_session_not_ready')
          return answer(ctx, session, { sign: true });
        throw err;
      }
      await answer(ctx, doc, { sign: true });
    })
    .on(ops.getOrder, ucpOrderGate(repo), async (ctx, _input, caller) => {
      const session = caller.session;
      const order = session ? await deps.services.orders.get(session.order_id) : null;
      ctx.set('Cache-Control', 'no-store');
      if (!session || !order) {
        ctx.body = {
          ucp: {
            version: UCP_VERSION,
            status: 'error' as const,
            capabilities: { [ORDER_CAP]: [{ version: UCP_VERSION }] },
          },
          messages: [
            { type: 'error' as const, code: 'not_found', severity: 'unrecoverable', content: 'Order not found.' },
          ],
        };
        return;
      }
      const last = order.progress.at(-1);
      ctx.body = ucpOrderEntity(order, {
        status: order.status as OrderStatus,
        checkoutId: session._id,
        // The snapshot's one fulfillment event is the order's latest transition (its version names it).
        eventId: `${order._id}:v${order.version}`,
        occurredAt: last ? new Date(last.at) : order.updated_at,
        publicBaseUrl: base,
      });
    })
    .on(ops.cancel, ucpSessionGate(repo), async (ctx, _input, caller) => {
      await answer(ctx, await cancelCheckoutSession(ports, sessionOf(caller)));
    });
}
