import type { OrderDoc } from '../../../db';
import { getService, missingInputs, priceMicros } from '../../../domain/catalogue';
import { ProblemError, badRequest } from '../../../errors';
import { toProblem } from '../../../http/errors';
import { createOrder } from '../../../services/orders';
import { confirmLinkPayment, idempotentOrder, orderCreationPorts } from '../../orders';
import type { RefundRecord } from '../../../domain/order';
import { formatUsd } from '../../../domain/money';
import { idempotentCreation } from '../../../http/idempotency';
import type { AppDeps } from '../../context';
import {
  checkoutBody,
  messageBody,
  orderPageBody,
  receiptBody,
  reviewedBody,
  sendPage,
  serviceFormBody,
} from './pages';
import { OperationRouter } from '../../operation';
import { orderOfPath } from '../orders/policy';
import { linkHolder, linkServiceOfPath, orderSecretHolder, secretOf } from './policy';
import { payOperations as ops } from './schema';
import type Stripe from 'stripe';
import type { RecordedPayment, StripeLinkProvider } from '../../../payments/stripe';

/** What the payer is told of a payment given back. */
const refundWords = (r: RefundRecord): string => {
  const payment = `Your payment of ${formatUsd(r.amount_micros)} (transaction ${r.transaction_id})`;
  return r.status === 'completed' ? `${payment} was refunded.` : `${payment} is owed back to you; we will refund it.`;
};

/**
 * The local hosted payment-link provider's pages (rail `linkpay_ncp`), HTML for humans (rendered in `pages.ts`):
 * - `GET /pay/orders/{order_id}`: the checkout while the order awaits payment on this rail; otherwise the order page
 *   (status and progress; with the order secret also the files with size and sha256, and accept / reject).
 * - `POST /pay/orders/{order_id}`: records the provider transaction and confirms the order through the same
 *   workflow Update the API uses, then shows the receipt with the link to the order page; an order whose workflow has
 *   closed refunds that transaction and says so (409 / 410, issue 36).
 * - `GET|POST /pay/services/{service_id}`: the service's `linkpay_url`; a human enters the inputs (labelled in words,
 *   `src/domain/inputLabels.ts`) and is sent to the checkout of a new order at the human price.
 * - The human's credential is the order secret carried in the link `/pay/orders/{order_id}?secret=os_...` (a capability
 *   link, shown on the receipt to keep); with it the order page offers accept / reject once the order is delivered
 *   (`POST /pay/orders/{order_id}/review`, a form). Issue 10 §1, issue 13.
 * Registered from the definitions in src/routes/api/pay/schema.ts; who the human is, ./policy.ts.
 */
/** Seconds the hosted form holds an order while it takes the card payment and confirms it (issue 36 §1). */
const LINK_HOLD_SECONDS = 60;

export function payRoutes(deps: AppDeps): OperationRouter {
  const router = new OperationRouter(deps);
  const order = { load: orderOfPath(deps) };
  const linkService = { load: linkServiceOfPath };

  router.on(ops.checkout, order, (ctx, { query }, doc) => {
    const service = getService(doc.service_id);
    const holder = linkHolder(doc, query.secret);
    const secret = holder === 'buyer' ? secretOf(query.secret) : undefined;
    if (doc.status === 'awaiting_payment' && doc.rails.includes('linkpay_ncp')) {
      const page = checkoutBody(doc, service, secret, deps.services.linkProvider.kind);
      sendPage(ctx, `Pay ${service?.name ?? doc.service_id}`, page);
      return;
    }
    const page = orderPageBody(doc, service, secret, holder);
    sendPage(ctx, `Order: ${service?.name ?? doc.service_id}`, page.body, page.refreshSeconds);
  });

  router.on(ops.pay, order, async (ctx, input, doc) => {
    if (!doc.rails.includes('linkpay_ncp'))
      throw new ProblemError(422, 'rail_not_offered', `${doc.service_id} has no payment link`);
    const body = (input.body ?? {}) as { email?: unknown; secret?: unknown };
    const secret = linkHolder(doc, body.secret) === 'buyer' ? secretOf(body.secret) : undefined;
    const email = typeof body.email === 'string' && body.email.includes('@') ? body.email.slice(0, 254) : null;
    const stripe = deps.services.stripe;
    if (stripe) {
      // Stripe takes the card on its own page; its webhook confirms the order (stripeWebhook below).
      if (doc.status !== 'awaiting_payment') {
        sendPage(
          ctx,
          'Payment not completed',
          messageBody('Payment not completed', `The order is ${doc.status.replace(/_/g, ' ')}, not awaiting payment.`),
        );
        ctx.status = 409;
        return;
      }
      const service = getService(doc.service_id);
      const session = await stripe.createCheckoutSession({
        orderId: doc._id,
        amountMicros: doc.amount_micros,
        description: service?.name ?? doc.service_id,
        returnUrl: `${deps.config.PUBLIC_BASE_URL}/pay/orders/${doc._id}${secret ? `?secret=${encodeURIComponent(secret)}` : ''}`,
        expiresAt: doc.payment_deadline,
      });
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.status = 303;
      ctx.redirect(session.url);
      return;
    }
    let held = false;
    try {
      // Reserve the order for this card payment before taking it: another rail paying meanwhile (an x402 settlement
      // in flight) is refused here, with nothing charged (issue 36 §1). An older worker without the Update: unheld.
      held = (await deps.orderWorkflows.holdPayment(doc._id, LINK_HOLD_SECONDS, 'linkpay_ncp')) !== null;
      const tx = await deps.services.linkpay.createTransaction(doc._id, doc.amount_micros, doc.currency, email);
      // The card was charged: the hold stays until it lapses, so no other rail can pay while this payment is settled
      // (the reconciliation adopts or refunds it if its confirmation is lost).
      held = false;
      // The money is taken before the Update: an order found closed gives it back (issue 36).
      const state = await confirmLinkPayment(deps, doc._id, tx.id, () =>
        deps.orderWorkflows.confirmPayment(doc._id, { rail: 'linkpay_ncp', transaction_id: tx.id }),
      );
      sendPage(ctx, 'Paid', receiptBody(doc, tx.id, state.status, secret));
    } catch (err) {
      if (held) await deps.orderWorkflows.holdPayment(doc._id, 0, 'linkpay_ncp').catch(() => undefined);
      const problem = toProblem(err);
      const refund = problem.extra.refund as RefundRecord | undefined;
      sendPage(
        ctx,
        'Payment not completed',
        messageBody(
          'Payment not completed',
          problem.status < 500 ? problem.message : 'Please try again.',
          ...(refund ? [refundWords(refund)] : []),
        ),
      );
      ctx.status = problem.status;
    }
  });

  router.on(ops.serviceForm, linkService, (ctx, _input, service) => {
    sendPage(ctx, service.name, serviceFormBody(service, priceMicros(service, false)));
  });

  router.on(ops.serviceOrder, linkService, async (ctx, input, service) => {
    const form = (input.body ?? {}) as Record<string, unknown>;
    const inputs: Record<string, string> = {};
    for (const name of Object.keys(service.inputs)) {
      const v = form[name];
      if (typeof v === 'string' && v.trim() !== '') inputs[name] = v.trim().slice(0, 2000);
    }
    const missing = missingInputs(service, inputs);
    const email =
      typeof form.email === 'string' && form.email.includes('@') ? form.email.trim().slice(0, 254) : undefined;
    if (missing.length > 0 || !email) {
      // The form again, with what was typed and the missing fields named in words.
      const typed = { ...inputs, ...(typeof form.email === 'string' ? { email: form.email.slice(0, 254) } : {}) };
      sendPage(
        ctx,
        `Missing details: ${service.name}`,
        serviceFormBody(service, priceMicros(service, false), typed, [...missing, ...(email ? [] : ['email'])]),
      );
      ctx.status = 422;
      return;
    }
    let created: Awaited<ReturnType<typeof createOrder>>;
    try {
      created = await createOrder(orderCreationPorts(deps), {
        service_id: service.id,
        email,
        inputs,
        is_agent: false,
        ...idempotentOrder(idempotentCreation(ctx)),
      });
    } catch (err) {
      // A refusal (e.g. text_generation_unavailable) is said on a page, as a human reads it, not as JSON.
      const problem = toProblem(err);
      if (problem.status >= 500) throw err;
      sendPage(
        ctx,
        `Not available: ${service.name}`,
        messageBody(`${service.name} cannot be ordered here`, problem.message),
      );
      ctx.status = problem.status;
      return;
    }
    const { doc, orderSecret } = created;
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(`/pay/orders/${doc._id}?secret=${encodeURIComponent(orderSecret ?? '')}`);
  });

  // The human buyer's review, from the order page whose link carries the order secret (checked by the gate).
  const review = {
    load: orderOfPath(deps),
    authorize: (_actor: unknown, doc: OrderDoc, input: { readonly body: unknown }) =>
      orderSecretHolder(doc, input.body),
  };
  router.on(ops.review, review, async (ctx, input, doc) => {
    const form = (input.body ?? {}) as { secret?: unknown; action?: unknown; reason?: unknown };
    const secret = secretOf(form.secret) ?? '';
    ctx.set('Referrer-Policy', 'no-referrer');
    const action = form.action === 'accept' || form.action === 'reject' ? form.action : null;
    if (!action) throw badRequest('action must be accept or reject', 'action');
    const reason =
      typeof form.reason === 'string' && form.reason.trim() !== '' ? form.reason.trim().slice(0, 500) : undefined;
    try {
      const state = await deps.orderWorkflows.review(doc._id, { action, ...(reason ? { reason } : {}) });
      sendPage(ctx, 'Review recorded', reviewedBody(doc._id, secret, action, state.status, state.refund?.status));
    } catch (err) {
      const problem = toProblem(err);
      sendPage(
        ctx,
        'Review not recorded',
        messageBody('Review not recorded', problem.status < 500 ? problem.message : 'Please try again.'),
      );
      ctx.status = problem.status;
    }
  });

  router.on(ops.stripeWebhook, async (ctx) => {
    const stripe = deps.services.stripe;
    if (!stripe) throw new ProblemError(404, 'not_found', "Stripe is not this deployment's payment-link provider");
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const event = stripe.verifyEvent(raw, ctx.get('stripe-signature') || undefined);
    ctx.body = await settleStripeEvent(deps, stripe, event);
  });

  return router;
}

/** What a Stripe event did: the answer of the webhook route. */
export interface StripeEventOutcome {
  received: true;
  event_id: string;
  outcome: 'confirmed' | 'refunded' | 'pending' | 'failed' | 'ignored';
  order_id?: string;
  transaction_id?: string;
}

/**
 * Feeds a verified Stripe event to the order's workflow (issue 37 §3). A paid Checkout Session
 * (`checkout.session.completed`, `checkout.session.async_payment_succeeded`), or a delegated card PaymentIntent that
 * succeeded after answering `processing` (`payment_intent.succeeded`), is mirrored, then confirmed through the same
 * `confirmPayment` Update as the local page's Pay, by its PaymentIntent id: the same event twice, or at the same
 * moment, records one payment and confirms it once (the workflow answers a payment it holds with itself). A payment
 * its order cannot take (the order closed, or paid otherwise) is refunded at Stripe (`confirmLinkPayment`, as the
 * local page's are). `payment_intent.payment_failed` is noted (nothing was taken). Only objects this service created
 * and recorded (`stripe_objects`, same order and amount) are acted on: on a shared Stripe account another merchant's
 * sessions and intents are acknowledged and ignored, never refunded. Other events are ignored too.
 * @returns `confirmed`, `refunded`, `pending` (a running order refused it for now: its deadline lookup or the
 *   reconciliation adopts or refunds it), `failed` (a recorded intent failed) or `ignored`.
 * @throws what is transient (the database, Temporal, Stripe): the route answers 5xx and Stripe delivers again.
 */
export async function settleStripeEvent(
  deps: AppDeps,
  stripe: StripeLinkProvider,
  event: Stripe.Event,
): Promise<StripeEventOutcome> {
  const base = { received: true as const, event_id: event.id };
  let recorded: RecordedPayment | null;
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      recorded = await stripe.recordCheckoutSession(event.data.object);
      break;
    case 'payment_intent.succeeded':
      // A delegated card charge that answered `processing` (ACP card_tokenized) and went through since.
      recorded = await stripe.recordPaymentIntent(event.data.object);
      break;
    case 'payment_intent.payment_failed': {
      // Nothing was taken: noted, and the order keeps waiting for a payment until its deadline.
      const failed = await stripe.notePaymentIntentFailed(event.data.object);
      return failed
        ? { ...base, outcome: 'failed', order_id: failed.order_id, transaction_id: failed._id }
        : { ...base, outcome: 'ignored' };
    }
    default:
      return { ...base, outcome: 'ignored' };
  }
  if (!recorded) return { ...base, outcome: 'ignored' };
  const { tx } = recorded;
  const about = { order_id: tx.order_id, transaction_id: tx.id };
  if (tx.status === 'refunded') return { ...base, ...about, outcome: 'refunded' };
  if (!(await deps.services.orders.get(tx.order_id))) {
    if (!(await stripe.refund(tx.id)))
      throw new Error(`Stripe refused to refund ${tx.id} of unknown order ${tx.order_id}`);
    return { ...base, ...about, outcome: 'refunded' };
  }
  try {
    await confirmLinkPayment(deps, tx.order_id, tx.id, () =>
      deps.orderWorkflows.confirmPayment(tx.order_id, { rail: 'linkpay_ncp', transaction_id: tx.id }),
    );
    return { ...base, ...about, outcome: 'confirmed' };
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status >= 500) throw err;
    return { ...base, ...about, outcome: err.extra.refund ? 'refunded' : 'pending' };
  }
}
