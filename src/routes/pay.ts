import { getService, missingInputs, priceMicros } from '../domain/catalogue';
import { formatUsd } from '../domain/money';
import { ProblemError, badRequest, forbidden, unauthorized } from '../errors';
import { orderSecretMatches } from '../http/buyer';
import { toProblem } from '../http/errors';
import { createOrder, loadOrder } from './orders';
import { requestBody, type AppDeps } from './context';
import { OperationRouter } from './operation';
import { payOperations as ops } from './api/pay/schema';

/** An order secret from a query or form value, or undefined. */
const secretOf = (v: unknown): string | undefined => (typeof v === 'string' && /^os_[A-Za-z0-9_-]{20,64}$/.test(v) ? v : undefined);

const esc = (s: unknown): string =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
.card{border:1px solid #ddd;border-radius:12px;padding:1.5rem}.price{font-size:2rem;font-weight:600}button{font-size:1rem;padding:.7rem 1.4rem;border:0;border-radius:8px;background:#1f6feb;color:#fff;cursor:pointer}
label{display:block;margin:.6rem 0 .2rem}input,textarea{width:100%;padding:.5rem;box-sizing:border-box}.muted{color:#666;font-size:.9rem}code{word-break:break-all}</style></head>
<body>${body}</body></html>`;
}

/**
 * The local hosted payment-link provider's pages (rail `linkpay_ncp`):
 * - `GET /pay/orders/{order_id}`: checkout; shows service and price and a Pay button.
 * - `POST /pay/orders/{order_id}`: records the provider transaction and confirms the order through the same
 *   workflow Update the API uses, then shows the receipt.
 * - `GET|POST /pay/services/{service_id}`: the service's `linkpay_url`; a human enters the inputs and is sent to
 *   the checkout of a new order at the human price.
 * - The human's credential is the order secret carried in the link `/pay/orders/{order_id}?secret=os_...` (a capability
 *   link, shown on the receipt to keep); with it the page offers accept / reject once the order is delivered
 *   (`POST /pay/orders/{order_id}/review`, a form). Issue 10 §1.
 * Registered from the definitions in src/routes/api/pay/schema.ts.
 */
export function payRoutes(deps: AppDeps): OperationRouter {
  const router = new OperationRouter(deps);

  router.on(ops.checkout, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const service = getService(doc.service_id);
    const secret = secretOf(ctx.query.secret);
    const isBuyer = orderSecretMatches(doc.buyer_secret_hash, secret);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (doc.status !== 'awaiting_payment' || !doc.rails.includes('linkpay_ncp')) {
      const review =
        isBuyer && doc.status === 'delivered'
          ? `<form method="post" action="/pay/orders/${esc(doc._id)}/review"><input type="hidden" name="secret" value="${esc(secret)}">
<p>${doc.deliverables.map((d) => `<a href="/api/v1/orders/${esc(doc._id)}/deliverables/${esc(encodeURIComponent(d.name))}">${esc(d.name)}</a>`).join('<br>')}</p>
<label for="reason">Reason (optional)</label><input id="reason" name="reason" maxlength="500">
<p><button type="submit" name="action" value="accept">Accept</button> <button type="submit" name="action" value="reject">Reject and refund</button></p></form>`
          : '';
      ctx.body = page('Order', `<div class="card"><h1>${esc(service?.name ?? doc.service_id)}</h1>
<p>This order is <strong>${esc(doc.status)}</strong>${doc.payment ? `; payment <code>${esc(doc.payment.transaction_id)}</code>` : ''}.</p>${review}
<p class="muted">Order <code>${esc(doc._id)}</code></p></div>`);
      return;
    }
    ctx.body = page(`Pay ${service?.name ?? doc.service_id}`, `<div class="card"><h1>${esc(service?.name ?? doc.service_id)}</h1>
<p>${esc(service?.description ?? '')}</p><p class="price">${esc(formatUsd(doc.amount_micros))}</p>
<form method="post" action="/pay/orders/${esc(doc._id)}">${isBuyer ? `<input type="hidden" name="secret" value="${esc(secret)}">` : ''}<label for="email">E-mail for the receipt (optional)</label>
<input id="email" name="email" type="email" value="${esc(doc.email ?? '')}"><p><button type="submit">Pay ${esc(formatUsd(doc.amount_micros))}</button></p></form>
<p class="muted">Order <code>${esc(doc._id)}</code> · pay before ${esc(doc.payment_deadline.toISOString())}</p></div>`);
  });

  router.on(ops.pay, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    ctx.type = 'text/html; charset=utf-8';
    if (!doc.rails.includes('linkpay_ncp')) throw new ProblemError(422, 'rail_not_offered', `${doc.service_id} has no payment link`);
    const body = requestBody(ctx) as { email?: unknown; secret?: unknown };
    const secret = secretOf(body.secret);
    const manage = orderSecretMatches(doc.buyer_secret_hash, secret)
      ? `<p>Keep this link: it is how you review the delivery (accept, or reject for a refund): <a href="/pay/orders/${esc(doc._id)}?secret=${esc(secret)}">manage your order</a>.</p>`
      : '';
    ctx.set('Referrer-Policy', 'no-referrer');
    const email = typeof body.email === 'string' && body.email.includes('@') ? body.email.slice(0, 254) : null;
    try {
      const tx = await deps.services.linkpay.createTransaction(doc._id, doc.amount_micros, doc.currency, email);
      const state = await deps.orderWorkflows.confirmPayment(doc._id, { rail: 'linkpay_ncp', transaction_id: tx.id });
      ctx.body = page('Paid', `<div class="card"><h1>Payment received</h1><p class="price">${esc(formatUsd(doc.amount_micros))}</p>
<p>Transaction <code>${esc(tx.id)}</code>. The order is <strong>${esc(state.status)}</strong>; fulfillment has started.</p>
${manage}<p><a href="/api/v1/orders/${esc(doc._id)}">Follow the order</a></p></div>`);
    } catch (err) {
      const problem = toProblem(err);
      ctx.status = problem.status;
      ctx.body = page('Payment not completed', `<div class="card"><h1>Payment not completed</h1><p>${esc(problem.status < 500 ? problem.message : 'Please try again.')}</p></div>`);
    }
  });

  router.on(ops.serviceForm, (ctx) => {
    const service = getService(ctx.params.service_id ?? '');
    if (!service || service.linkpay_url === null) throw new ProblemError(404, 'service_not_found', `No payment link for ${ctx.params.service_id}`);
    const fields = Object.entries(service.inputs)
      .map(([name, req]) => `<label for="${esc(name)}">${esc(name)}${req === 'required' ? ' *' : ''}</label><input id="${esc(name)}" name="${esc(name)}"${req === 'required' ? ' required' : ''}>`)
      .join('\n');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(service.name, `<div class="card"><h1>${esc(service.name)}</h1><p>${esc(service.description ?? '')}</p>
<p class="price">${esc(formatUsd(priceMicros(service, false)))}</p>
<form method="post" action="/pay/services/${esc(service.id)}">${fields}<label for="email">E-mail *</label><input id="email" name="email" type="email" required>
<p><button type="submit">Continue to payment</button></p></form></div>`);
  });

  router.on(ops.serviceOrder, async (ctx) => {
    const service = getService(ctx.params.service_id ?? '');
    if (!service || service.linkpay_url === null) throw new ProblemError(404, 'service_not_found', `No payment link for ${ctx.params.service_id}`);
    const form = requestBody(ctx) as Record<string, unknown>;
    const inputs: Record<string, string> = {};
    for (const name of Object.keys(service.inputs)) {
      const v = form[name];
      if (typeof v === 'string' && v.trim() !== '') inputs[name] = v.trim().slice(0, 2000);
    }
    const missing = missingInputs(service, inputs);
    const email = typeof form.email === 'string' && form.email.includes('@') ? form.email.trim().slice(0, 254) : undefined;
    if (missing.length > 0 || !email) {
      ctx.status = 422;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page('Missing details', `<div class="card"><p>Please fill in: ${esc([...missing, ...(email ? [] : ['email'])].join(', '))}.</p><p><a href="/pay/services/${esc(service.id)}">Back</a></p></div>`);
      return;
    }
    const { doc, orderSecret } = await createOrder(deps, { service_id: service.id, email, inputs, is_agent: false });
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.redirect(`/pay/orders/${doc._id}?secret=${encodeURIComponent(orderSecret ?? '')}`);
  });

  // The human buyer's review, from the link that carries the order secret.
  router.on(ops.review, async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    const form = requestBody(ctx) as { secret?: unknown; action?: unknown; reason?: unknown };
    const secret = secretOf(form.secret);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!secret) throw unauthorized(`Reviewing order ${doc._id} needs the link with its order secret`);
    if (!orderSecretMatches(doc.buyer_secret_hash, secret)) throw forbidden(`Only the buyer may review order ${doc._id}`);
    const action = form.action === 'accept' || form.action === 'reject' ? form.action : null;
    if (!action) throw badRequest('action must be accept or reject', 'action');
    const reason = typeof form.reason === 'string' && form.reason.trim() !== '' ? form.reason.trim().slice(0, 500) : undefined;
    try {
      const state = await deps.orderWorkflows.review(doc._id, { action, ...(reason ? { reason } : {}) });
      ctx.body = page('Review recorded', `<div class="card"><h1>${action === 'accept' ? 'Accepted' : 'Rejected'}</h1>
<p>The order is <strong>${esc(state.status)}</strong>${state.refund ? `; refund ${esc(state.refund.status)}` : ''}.</p></div>`);
    } catch (err) {
      const problem = toProblem(err);
      ctx.status = problem.status;
      ctx.body = page('Review not recorded', `<div class="card"><h1>Review not recorded</h1><p>${esc(problem.status < 500 ? problem.message : 'Please try again.')}</p></div>`);
    }
  });

  return router;
}
