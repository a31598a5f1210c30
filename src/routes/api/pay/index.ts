import { getService, missingInputs, priceMicros } from '../../../domain/catalogue';
import { ProblemError, badRequest, forbidden, unauthorized } from '../../../errors';
import { orderSecretMatches } from '../../../http/buyer';
import { toProblem } from '../../../http/errors';
import { createOrder } from '../../../services/orders';
import { loadOrder, orderCreationPorts } from '../../orders';
import { requestBody, type AppDeps } from '../../context';
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
import { payOperations as ops } from './schema';

/** An order secret from a query or form value, or undefined. */
const secretOf = (v: unknown): string | undefined =>
  typeof v === 'string' && /^os_[A-Za-z0-9_-]{20,64}$/.test(v) ? v : undefined;

/**
 * The local hosted payment-link provider's pages (rail `linkpay_ncp`), HTML for humans (rendered in `pages.ts`):
 * - `GET /pay/orders/{order_id}`: the checkout while the order awaits payment on this rail; otherwise the order page
 *   (status and progress; with the order secret also the files with size and sha256, and accept / reject).
 * - `POST /pay/orders/{order_id}`: records the provider transaction and confirms the order through the same
 *   workflow Update the API uses, then shows the receipt with the link to the order page.
 * - `GET|POST /pay/services/{service_id}`: the service's `linkpay_url`; a human enters the inputs (labelled in words,
 *   `src/domain/inputLabels.ts`) and is sent to the checkout of a new order at the human price.
 * - The human's credential is the order secret carried in the link `/pay/orders/{order_id}?secret=os_...` (a capability
 *   link, shown on the receipt to keep); with it the order page offers accept / reject once the order is delivered
 *   (`POST /pay/orders/{order_id}/review`, a form). Issue 10 §1, issue 13.
 * Registered from the definitions in src/routes/api/pay/schema.ts.
 */
export function payRoutes(deps: AppDeps): OperationRouter {
  const router = new OperationRouter(deps);

  router.on(ops.checkout, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const service = getService(doc.service_id);
    const given = typeof ctx.query.secret === 'string' && ctx.query.secret !== '' ? ctx.query.secret : undefined;
    const secret = secretOf(given);
    const isBuyer = orderSecretMatches(doc.buyer_secret_hash, secret);
    if (doc.status === 'awaiting_payment' && doc.rails.includes('linkpay_ncp')) {
      sendPage(ctx, `Pay ${service?.name ?? doc.service_id}`, checkoutBody(doc, service, isBuyer ? secret : undefined));
      return;
    }
    const page = orderPageBody(
      doc,
      service,
      isBuyer ? secret : undefined,
      isBuyer ? 'buyer' : given ? 'wrong' : 'none',
    );
    sendPage(ctx, `Order: ${service?.name ?? doc.service_id}`, page.body, page.refreshSeconds);
  });

  router.on(ops.pay, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    if (!doc.rails.includes('linkpay_ncp'))
      throw new ProblemError(422, 'rail_not_offered', `${doc.service_id} has no payment link`);
    const body = requestBody(ctx) as { email?: unknown; secret?: unknown };
    const secret = secretOf(body.secret);
    const isBuyer = orderSecretMatches(doc.buyer_secret_hash, secret);
    const email = typeof body.email === 'string' && body.email.includes('@') ? body.email.slice(0, 254) : null;
    try {
      const tx = await deps.services.linkpay.createTransaction(doc._id, doc.amount_micros, doc.currency, email);
      const state = await deps.orderWorkflows.confirmPayment(doc._id, { rail: 'linkpay_ncp', transaction_id: tx.id });
      sendPage(ctx, 'Paid', receiptBody(doc, tx.id, state.status, isBuyer ? secret : undefined));
    } catch (err) {
      const problem = toProblem(err);
      sendPage(
        ctx,
        'Payment not completed',
        messageBody('Payment not completed', problem.status < 500 ? problem.message : 'Please try again.'),
      );
      ctx.status = problem.status;
    }
  });

  router.on(ops.serviceForm, (ctx) => {
    const service = getService(ctx.params.service_id ?? '');
    if (!service || service.linkpay_url === null)
      throw new ProblemError(404, 'service_not_found', `No payment link for ${ctx.params.service_id}`);
    sendPage(ctx, service.name, serviceFormBody(service, priceMicros(service, false)));
  });

  router.on(ops.serviceOrder, async (ctx) => {
    const service = getService(ctx.params.service_id ?? '');
    if (!service || service.linkpay_url === null)
      throw new ProblemError(404, 'service_not_found', `No payment link for ${ctx.params.service_id}`);
    const form = requestBody(ctx) as Record<string, unknown>;
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
      created = await createOrder(orderCreationPorts(deps), { service_id: service.id, email, inputs, is_agent: false });
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

  // The human buyer's review, from the order page whose link carries the order secret.
  router.on(ops.review, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const form = requestBody(ctx) as { secret?: unknown; action?: unknown; reason?: unknown };
    ctx.set('Referrer-Policy', 'no-referrer');
    // No secret is 401; any other secret than this order's (malformed or not) is someone else's credential: 403.
    if (typeof form.secret !== 'string' || form.secret === '')
      throw unauthorized(`Reviewing order ${doc._id} needs the link with its order secret`);
    const secret = secretOf(form.secret);
    if (!secret || !orderSecretMatches(doc.buyer_secret_hash, secret))
      throw forbidden(`Only the buyer may review order ${doc._id}`);
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

  return router;
}
