/**
 * The local hosted payment-link provider's pages (rail `linkpay_ncp`; issue 10 §1): HTML for humans, with forms.
 * Operation definitions (src/routes/operation.ts); the handlers are src/routes/api/pay/index.ts, the HTML src/routes/api/pay/pages.ts.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';
import { OrderPath } from '../fields';

const html = (description: string): ResponseSpec => ({ description, content: { 'text/html': { schema: z.string() } } });
const form = (schema: z.ZodType) => ({ 'application/x-www-form-urlencoded': { schema } });
const ServicePath = z.object({ service_id: z.string() });
/** Headers of the human pages (src/routes/api/pay/pages.ts). */
const pageHeaders = z.object({
  'Content-Security-Policy': z
    .string()
    .meta({ description: "No script; the page's own stylesheet only; forms post to this origin" }),
  'Referrer-Policy': z.string().meta({ description: 'no-referrer: links carry the order secret' }),
});

/** The payment-link page operations. */
export const payOperations = {
  checkout: defineOperation({
    id: 'payCheckoutPage',
    method: 'get',
    path: '/pay/orders/{order_id}',
    summary: "A human's page of the order: the checkout while it awaits payment (linkpay_ncp), then the order page",
    description:
      'HTML without script (Content-Security-Policy, Referrer-Policy: no-referrer). The order page shows the status and its progress in words, ' +
      'reloading itself while the order is paid or being prepared. With the order secret in `secret` it also lists each deliverable ' +
      '(download link, size, sha256) and, once delivered, the accept / reject forms (POST /pay/orders/{order_id}/review); ' +
      'without it, or with another secret, the status only.',
    auth: 'none',
    request: {
      params: OrderPath,
      query: z.object({
        secret: z.string().optional().meta({ description: 'The order secret (os_...) from the link' }),
      }),
    },
    responses: { '200': { ...html('The checkout or the order page'), headers: pageHeaders } },
    errors: { order_not_found: 'Unknown order' },
  }),
  pay: defineOperation({
    id: 'payCheckout',
    method: 'post',
    path: '/pay/orders/{order_id}',
    summary:
      'Pay (form): records the provider transaction and confirms the order, or sends the buyer to Stripe Checkout',
    description:
      'Local provider (test mode, no card charged): records the payment and confirms the order at once. Stripe ' +
      "(LINK_PROVIDER=stripe): opens the order's Checkout Session and answers 303 to Stripe's page; Stripe's webhook " +
      '(POST /api/v1/payments/stripe/webhook) confirms the order once the card is charged.',
    auth: 'none',
    request: {
      params: OrderPath,
      content: form(z.object({ email: z.string().optional(), secret: z.string().optional() })),
    },
    responses: {
      '200': html('Receipt (local provider)'),
      '303': { description: "LINK_PROVIDER=stripe: to the order's Stripe Checkout page, which takes the card" },
      '402': html('Payment refused'),
      '409': html("Not awaiting payment, or the order's workflow has ended: a payment taken is refunded, and said"),
      '410': html("The order's workflow history is gone: a payment taken is refunded, and said"),
    },
    errors: { order_not_found: 'Unknown order', rail_not_offered: 'No payment link for this service' },
  }),
  review: defineOperation({
    id: 'payReview',
    method: 'post',
    path: '/pay/orders/{order_id}/review',
    summary: "The human buyer's accept / reject (form), with the order secret from the link",
    auth: 'order_secret',
    request: {
      params: OrderPath,
      content: form(
        z.object({ secret: z.string(), action: z.enum(['accept', 'reject']), reason: z.string().optional() }),
      ),
    },
    responses: {
      '200': html('Recorded: the outcome and the link back to the order page'),
      '409': html("Order not delivered, or the order's workflow has ended"),
      '410': html("The order's workflow history is gone"),
    },
    errors: {
      order_not_found: 'Unknown order',
      unauthorized: "No credential: send the buyer's (the order secret of the link)",
      forbidden: "Not the buyer's credential",
      invalid_request: 'action must be accept or reject',
    },
  }),
  serviceForm: defineOperation({
    id: 'payServicePage',
    method: 'get',
    path: '/pay/services/{service_id}',
    summary: "A service's payment link: the inputs form, each input labelled and explained in words",
    auth: 'none',
    request: { params: ServicePath },
    responses: { '200': { ...html('The form'), headers: pageHeaders } },
    errors: { service_not_found: 'No payment link for this service' },
  }),
  serviceOrder: defineOperation({
    id: 'payServiceOrder',
    method: 'post',
    path: '/pay/services/{service_id}',
    summary: 'Creates the order at the human price and redirects to its checkout (with the order secret in the link)',
    auth: 'none',
    request: { params: ServicePath, content: form(z.record(z.string(), z.string())) },
    responses: {
      '302': { description: 'To /pay/orders/{order_id}?secret=os_...' },
      '422': html(
        'Inputs missing: the form again, the missing fields named; or the service cannot be ordered here (e.g. it needs a text-generation model): a page saying why',
      ),
    },
    errors: { service_not_found: 'No payment link for this service' },
  }),
  stripeWebhook: defineOperation({
    id: 'stripeWebhook',
    method: 'post',
    path: '/api/v1/payments/stripe/webhook',
    summary: "Stripe's webhook events (LINK_PROVIDER=stripe): a paid Checkout Session confirms its order",
    description:
      'Verified with the `Stripe-Signature` header against STRIPE_WEBHOOK_SECRET (`stripe.webhooks.constructEvent`). ' +
      '`checkout.session.completed` and `checkout.session.async_payment_succeeded` of a paid session, and ' +
      '`payment_intent.succeeded` of a delegated card charge that was processing, confirm the order ' +
      "through the order's workflow, once however often the event comes; a payment the order can no longer take is " +
      'refunded at Stripe; `payment_intent.payment_failed` is noted. Only sessions and intents this service created ' +
      'are acted on. Other events are acknowledged and ignored. A 5xx asks Stripe to deliver again.',
    auth: 'none',
    request: {
      headers: z.object({
        'Stripe-Signature': z.string().optional().meta({ description: 't=<unix time>,v1=<HMAC-SHA256 hex>' }),
      }),
      content: { 'application/json': { schema: z.looseObject({}).meta({ description: 'A Stripe Event' }) } },
    },
    responses: {
      '200': {
        description: 'Received; what it did',
        json: z.object({
          received: z.literal(true),
          event_id: z.string(),
          outcome: z.enum(['confirmed', 'refunded', 'pending', 'failed', 'ignored']).meta({
            description:
              'confirmed: the order took the payment; refunded: given back at Stripe (the order closed or was paid otherwise); pending: the running order refused it for now (its deadline lookup or the reconciliation adopts or refunds it); failed: a card PaymentIntent of this service failed (nothing taken); ignored: not a paid Checkout Session or PaymentIntent this service created',
          }),
          order_id: z.string().optional(),
          transaction_id: z.string().optional().meta({ description: 'The PaymentIntent id (pi_…)' }),
        }),
      },
    },
    errors: {
      webhook_signature_invalid: 'Stripe-Signature missing, stale (over 5 minutes) or not matching the body',
      not_found: 'Stripe is not the payment-link provider here',
    },
  }),
};
