/**
 * HTML of the hosted payment-link pages (`/pay/...`, rail `linkpay_ncp`) that humans use: the service form, the
 * checkout, the receipt and the order page (issue 10 §1, issue 13). Pure rendering, no I/O: `pay.ts` loads and acts.
 *
 * Every value is HTML-escaped; the pages carry no script, only one inline stylesheet allowed by its hash in the
 * Content-Security-Policy, so the forms work as plain form POSTs and the order page follows progress by
 * `<meta http-equiv="refresh">`.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { OrderDoc } from '../../../db';
import type { ServiceDefinition } from '../../../domain/catalogue';
import { inputField } from '../../../domain/inputLabels';
import { formatUsd } from '../../../domain/money';
import type { OrderStatus } from '../../../domain/order';

/** HTML-escapes any value (text and attribute contexts). */
export const esc = (s: unknown): string =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;line-height:1.45}
.card{border:1px solid #ddd;border-radius:12px;padding:1.5rem;margin-bottom:1rem}.price{font-size:2rem;font-weight:600}
button{font-size:1rem;padding:.7rem 1.4rem;border:0;border-radius:8px;background:#1f6feb;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#b42318;border:1px solid #b42318}
label{display:block;margin:.9rem 0 .2rem;font-weight:600}input,textarea{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
textarea{min-height:4.5rem}.help{color:#555;font-size:.9rem;margin:.2rem 0 0}.muted{color:#666;font-size:.9rem}
code{word-break:break-all}.status{font-size:1.3rem}.notice{background:#fff8e1;border-radius:8px;padding:.6rem .8rem}
.error{background:#fdecea;border-radius:8px;padding:.6rem .8rem}ol.progress{padding-left:1.2rem}ol.progress li{margin:.3rem 0}
table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:.4rem .3rem;border-top:1px solid #eee}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}dd{margin:0;white-space:pre-wrap}`;

/**
 * Content-Security-Policy of every page: nothing may load or run but the page's own stylesheet (by its sha256);
 * forms post only to this origin; no framing.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Sends `body` as an HTML page titled `title` with the headers every `/pay` page carries: CSP, no referrer (links
 * carry the order secret), no sniffing, no caching. `refreshSeconds` reloads the page (the order page while it moves).
 */
export function sendPage(ctx: Context, title: string, body: string, refreshSeconds?: number): void {
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  const refresh = refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">${refresh}<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

/** A message page (one card with a heading and escaped paragraphs). */
export function messageBody(heading: string, ...paragraphs: string[]): string {
  return `<div class="card"><h1>${esc(heading)}</h1>${paragraphs.map((p) => `<p>${esc(p)}</p>`).join('')}</div>`;
}

/**
 * The service's payment-link form: every input with its label, help text and example in words (src/domain/inputLabels.ts),
 * then the buyer's e-mail. `values` refills the fields after a refused submission; `missing` names the fields to fill.
 */
export function serviceFormBody(
  service: ServiceDefinition,
  humanPriceMicros: number,
  values: Record<string, string> = {},
  missing: string[] = [],
): string {
  const field = (
    name: string,
    required: boolean,
    def: { label: string; help: string; control: string; example?: string },
  ): string => {
    const id = `f-${name}`;
    const attrs = `id="${esc(id)}" name="${esc(name)}"${required ? ' required' : ''}${def.example ? ` placeholder="${esc(def.example)}"` : ''}${def.help ? ` aria-describedby="${esc(id)}-help"` : ''}${missing.includes(name) ? ' aria-invalid="true"' : ''}`;
    const control =
      def.control === 'textarea'
        ? `<textarea ${attrs} maxlength="2000">${esc(values[name] ?? '')}</textarea>`
        : `<input ${attrs} type="${esc(def.control)}" maxlength="${def.control === 'email' ? 254 : 2000}" value="${esc(values[name] ?? '')}">`;
    return `<label for="${esc(id)}">${esc(def.label)} <span class="muted">(${required ? 'required' : 'optional'})</span></label>${control}${
      def.help ? `<p class="help" id="${esc(id)}-help">${esc(def.help)}</p>` : ''
    }`;
  };
  const labelOf = (name: string) => (name === 'email' ? 'Your e-mail' : inputField(service.id, name).label);
  const fields = Object.entries(service.inputs).map(([name, req]) =>
    field(name, req === 'required', inputField(service.id, name)),
  );
  fields.push(
    field('email', true, {
      label: 'Your e-mail',
      help: 'For the receipt and the link to follow and review your order.',
      control: 'email',
      example: 'you@example.com',
    }),
  );
  const error =
    missing.length > 0
      ? `<p class="error" role="alert">Please fill in: ${esc(missing.map(labelOf).join(', '))}.</p>`
      : '';
  return `<div class="card"><h1>${esc(service.name)}</h1><p>${esc(service.description ?? '')}</p>
<p class="price">${esc(formatUsd(humanPriceMicros))}</p>${error}
<form method="post" action="/pay/services/${esc(service.id)}">${fields.join('\n')}
<p><button type="submit">Continue to payment</button></p></form></div>`;
}

/** The checkout of an order awaiting payment: what was asked for (labels in words), the price and a Pay button. */
export function checkoutBody(
  doc: OrderDoc,
  service: ServiceDefinition | undefined,
  secret: string | undefined,
  provider: 'local' | 'stripe' = 'local',
): string {
  const serviceId = doc.service_id;
  const given = Object.entries(doc.inputs ?? {}).filter(([, v]) => v !== '' && v !== null && v !== undefined);
  const summary =
    given.length > 0
      ? `<h2>Your details</h2><dl>${given.map(([k, v]) => `<dt>${esc(inputField(serviceId, k).label)}</dt><dd>${esc(Array.isArray(v) ? v.join(', ') : v)}</dd>`).join('')}</dl>`
      : '';
  return `<div class="card"><h1>${esc(service?.name ?? serviceId)}</h1>
<p>${esc(service?.description ?? '')}</p><p class="price">${esc(formatUsd(doc.amount_micros))}</p>${summary}
<form method="post" action="/pay/orders/${esc(doc._id)}">${secret ? `<input type="hidden" name="secret" value="${esc(secret)}">` : ''}
<label for="email">E-mail for the receipt <span class="muted">(optional)</span></label>
<input id="email" name="email" type="email" maxlength="254" value="${esc(doc.email ?? '')}"><p><button type="submit">${provider === 'stripe' ? `Pay ${esc(formatUsd(doc.amount_micros))} by card` : `Pay ${esc(formatUsd(doc.amount_micros))}`}</button></p></form>
${provider === 'stripe' ? STRIPE_NOTICE : TEST_MODE_NOTICE}
<p class="muted">Order <code>${esc(doc._id)}</code> · pay before ${esc(when(doc.payment_deadline.toISOString()))}</p></div>`;
}

/**
 * Said on the local provider's checkout (issue 37 §3): pressing Pay records a payment and charges no card. That
 * provider is refused when the deployment declares itself production (src/config.ts).
 */
export const TEST_MODE_NOTICE =
  '<p class="notice" id="test-mode" role="note"><strong>Test mode:</strong> no card is charged and no money moves. This payment page is the service’s local test provider.</p>';

/** Said on the Stripe checkout: the card is entered on Stripe's page, never here. */
const STRIPE_NOTICE =
  '<p class="muted" id="card-processor">You enter your card on Stripe’s secure payment page; this service never sees it.</p>';

/** The receipt after paying: the transaction, and the link to the order page (with the secret when the payer holds it). */
export function receiptBody(
  doc: OrderDoc,
  transactionId: string,
  status: OrderStatus,
  secret: string | undefined,
): string {
  const orderPage = `/pay/orders/${doc._id}${secret ? `?secret=${encodeURIComponent(secret)}` : ''}`;
  const keep = secret
    ? `<p>Keep this link: it is how you follow the order and review the delivery (accept, or reject for a refund): <a href="${esc(orderPage)}">${esc(orderPage)}</a></p>`
    : '';
  return `<div class="card"><h1>Payment received</h1><p class="price">${esc(formatUsd(doc.amount_micros))}</p>
<p>Transaction <code>${esc(transactionId)}</code>. The order is <strong>${esc(STATUS_WORDS[status].title.toLowerCase())}</strong>; we are preparing it now.</p>
${keep}<p><a href="${esc(orderPage)}">Follow the order</a></p></div>`;
}

/** Status in words: a title and what it means for the buyer. */
export const STATUS_WORDS: Readonly<Record<OrderStatus, { title: string; text: string }>> = {
  awaiting_payment: { title: 'Awaiting payment', text: 'The order is waiting for its payment.' },
  paid: { title: 'Paid', text: 'Payment received; preparing your order starts now.' },
  fulfilling: { title: 'Being prepared', text: 'Your files are being prepared.' },
  in_engineering: { title: 'With our engineers', text: 'The blueprint is ready; an engineer is completing the work.' },
  sla_breached: {
    title: 'Late',
    text: 'The work is later than promised. You may still receive it, or cancel for a full refund.',
  },
  delivered: {
    title: 'Delivered',
    text: 'Your files are ready. Please check them, then accept or reject the delivery.',
  },
  accepted: { title: 'Accepted', text: 'You accepted the delivery. Thank you.' },
  rejected: { title: 'Rejected', text: 'You rejected the delivery; the payment is refunded.' },
  failed: { title: 'Failed', text: 'We could not prepare the order; the payment is being refunded.' },
  refunded: { title: 'Refunded', text: 'The order could not be completed and the payment was refunded.' },
  expired: { title: 'Expired', text: 'The order was not paid in time.' },
  cancelled: { title: 'Cancelled', text: 'The order was cancelled and the payment refunded.' },
};

const EVENT_WORDS: Record<string, string> = {
  sla_escalated: 'Escalated: the deadline is near',
  engineer_claimed: 'An engineer took the work',
  deliverable_uploaded: 'A file was added',
};

/** Statuses the order leaves on its own soon, so the page reloads itself to show the next step. */
const MOVING: ReadonlySet<OrderStatus> = new Set(['paid', 'fulfilling']);
/** Seconds between reloads while the order is moving. */
export const ORDER_PAGE_REFRESH_SECONDS = 2;

/** "2026-11-22T10:57:54.033Z" → "2026-11-22 10:57:54 UTC". */
const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

/** A byte count in words: "5,515 bytes (5.4 KB)". */
export function sizeInWords(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1000) return exact;
  const [n, unit] = bytes < 1_000_000 ? [bytes / 1000, 'KB'] : [bytes / 1_000_000, 'MB'];
  return `${exact} (${n.toFixed(1)} ${unit})`;
}

/**
 * The human order page: status in words, progress (each status change and progress event with its time), and for
 * the buyer (whose link carries the order secret): each deliverable with its download link, size and sha256, and
 * accept / reject forms once delivered. `secretState` says whether the link carried the right secret, a wrong one, or none.
 */
export function orderPageBody(
  doc: OrderDoc,
  service: ServiceDefinition | undefined,
  secret: string | undefined,
  secretState: 'buyer' | 'wrong' | 'none',
): { body: string; refreshSeconds?: number } {
  const id = doc._id;
  const words = STATUS_WORDS[doc.status];
  const isBuyer = secretState === 'buyer' && secret !== undefined;
  const progress = doc.progress
    .map((p) => {
      const what = p.event ? (EVENT_WORDS[p.event] ?? p.event) : STATUS_WORDS[p.status].title;
      return `<li data-status="${esc(p.status)}"${p.event ? ` data-event="${esc(p.event)}"` : ''}><time datetime="${esc(p.at)}">${esc(when(p.at))}</time> — ${esc(what)}</li>`;
    })
    .join('');
  const payment = doc.payment
    ? `<p>Paid ${esc(formatUsd(doc.payment.amount_micros))} · transaction <code>${esc(doc.payment.transaction_id)}</code></p>`
    : '';
  const review = doc.review
    ? `<p>${doc.review.action === 'accept' ? 'Accepted' : 'Rejected'}${doc.review.automatic ? ' automatically at the end of the review window' : ''} on ${esc(when(doc.review.at))}${doc.review.reason ? `: “${esc(doc.review.reason)}”` : ''}.</p>`
    : '';
  const refund = doc.refund
    ? `<p>Refund of ${esc(formatUsd(doc.refund.amount_micros))}: ${doc.refund.status === 'completed' ? 'completed' : 'due'}.</p>`
    : '';

  const parts: string[] = [
    `<div class="card"><h1>${esc(service?.name ?? doc.service_id)}</h1>
<p class="status">Status: <strong id="status" data-status="${esc(doc.status)}">${esc(words.title)}</strong></p><p>${esc(words.text)}</p>${payment}${review}${refund}
<h2>Progress</h2><ol class="progress" id="progress">${progress}</ol>
<p class="muted">Order <code>${esc(id)}</code></p></div>`,
  ];

  if (isBuyer && doc.deliverables.length > 0) {
    const rows = doc.deliverables
      .map((d) => {
        const href = `/api/v1/orders/${encodeURIComponent(id)}/deliverables/${encodeURIComponent(d.name)}`;
        return `<tr class="deliverable" data-name="${esc(d.name)}"><td><a href="${esc(href)}" download="${esc(d.name)}">${esc(d.name)}</a><br><span class="muted">${esc(d.media_type)}</span></td>
<td class="size" data-bytes="${esc(d.size)}">${esc(sizeInWords(d.size))}</td><td>sha256 <code class="sha256">${esc(d.sha256)}</code></td></tr>`;
      })
      .join('');
    parts.push(`<div class="card"><h2>Your files</h2><table id="deliverables"><thead><tr><th>File</th><th>Size</th><th>Checksum</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Each file’s sha256 lets you check the download is exactly what was delivered.</p></div>`);
  }

  if (isBuyer && doc.status === 'delivered') {
    const action = `/pay/orders/${esc(id)}/review`;
    const hidden = `<input type="hidden" name="secret" value="${esc(secret)}">`;
    parts.push(`<div class="card" id="review"><h2>Review the delivery</h2>
<form method="post" action="${action}">${hidden}<input type="hidden" name="action" value="accept"><p><button type="submit" id="accept">Accept the delivery</button></p></form>
<form method="post" action="${action}">${hidden}<input type="hidden" name="action" value="reject">
<label for="reason">What is wrong <span class="muted">(optional)</span></label><textarea id="reason" name="reason" maxlength="500"></textarea>
<p><button type="submit" class="secondary" id="reject">Reject and refund</button></p></form></div>`);
  }

  if (secretState === 'wrong') {
    parts.push(
      `<p class="notice" role="alert">This link’s secret does not belong to this order: it shows the status only. Use the link from your receipt to see your files and review the order.</p>`,
    );
  } else if (secretState === 'none' && doc.buyer_secret_hash) {
    parts.push(
      `<p class="notice">This page shows the status only. The link from your receipt (with its secret) shows your files and lets you review the delivery.</p>`,
    );
  }
  return { body: parts.join('\n'), ...(MOVING.has(doc.status) ? { refreshSeconds: ORDER_PAGE_REFRESH_SECONDS } : {}) };
}

/** The page after a review: the outcome, and the way back to the order page. */
export function reviewedBody(
  id: string,
  secret: string,
  action: 'accept' | 'reject',
  status: OrderStatus,
  refundStatus: string | undefined,
): string {
  const back = `/pay/orders/${encodeURIComponent(id)}?secret=${encodeURIComponent(secret)}`;
  return `<div class="card"><h1>${action === 'accept' ? 'Delivery accepted' : 'Delivery rejected'}</h1>
<p>The order is <strong id="status" data-status="${esc(status)}">${esc(STATUS_WORDS[status].title.toLowerCase())}</strong>${refundStatus ? `; refund ${esc(refundStatus)}` : ''}.</p>
<p><a href="${esc(back)}">Back to your order</a></p></div>`;
}
