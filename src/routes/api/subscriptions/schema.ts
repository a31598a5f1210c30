/**
 * Subscriptions of monthly services (issue 6 §2): the order pays period 1; the subscription workflow renews every
 * month. Schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';
import { CLOSED_ORDER_ERRORS, OrderPath } from '../fields';

const Reason = z.string().max(1000);

/** Body of `POST /api/v1/orders/{order_id}/cancel` and `.../subscription/cancel`. */
export const CancelBody = z.object({ reason: Reason.optional() });

/** Body of `POST /api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay`. */
export const PayInvoiceBody = z.object({
  transaction_id: z
    .string()
    .min(1)
    .max(200)
    .meta({ description: 'Hosted-link (linkpay_ncp) transaction bound to the invoice id, for its exact amount' }),
});

const Charge = z.object({
  period: z.number().int(),
  attempt: z.number().int(),
  status: z.enum(['paid', 'failed', 'invoiced']),
  amount: z.number(),
  amount_micros: z.number().int(),
  rail: z.string(),
  transaction_id: z.string().nullable(),
  failure: z.string().nullable(),
  invoice_id: z.string().nullable(),
  due_at: z.string().nullable(),
  at: z.string(),
});

/** A subscription as `GET /api/v1/orders/{order_id}` (field `subscription`) shows it. */
export const SubscriptionView = z
  .object({
    status: z.enum(['active', 'past_due', 'cancelled', 'suspended']),
    rail: z.string(),
    amount: z.number().meta({ description: 'Price per month (USD)' }),
    amount_micros: z.number().int(),
    current_period: z.object({ number: z.number().int(), start: z.string(), end: z.string() }),
    next_charge_at: z.string().nullable(),
    cancel_at_period_end: z.boolean(),
    cancel_reason: z.string().nullable(),
    ended_at: z.string().nullable(),
    dunning: z.object({ retries_done: z.number().int(), next_retry_at: z.string().nullable() }).nullable(),
    open_invoice: z
      .object({
        invoice_id: z.string(),
        period: z.number().int(),
        amount: z.number(),
        amount_micros: z.number().int(),
        due_at: z.string(),
        pay_url: z.string(),
      })
      .nullable(),
    past_charges: z.array(Charge),
    links: z.object({ cancel: z.string() }),
  })
  .meta({ id: 'Subscription' });

/** A subscription answer: the order id beside the subscription's own fields. */
const OrderSubscription = SubscriptionView.extend({ order_id: z.string() });

/** The subscription operations. */
export const subscriptionOperations = {
  get: defineOperation({
    id: 'getSubscription',
    method: 'get',
    path: '/api/v1/orders/{order_id}/subscription',
    summary: 'The subscription of a monthly order with its charge log',
    auth: 'none',
    request: { params: OrderPath },
    responses: { '200': { description: 'Subscription', json: OrderSubscription } },
    errors: {
      order_not_found: 'Unknown order',
      subscription_not_found: 'Not a subscription',
      invalid_state_transition: 'Not started yet (starts at delivery)',
    },
  }),
  cancel: defineOperation({
    id: 'cancelSubscription',
    method: 'post',
    path: '/api/v1/orders/{order_id}/subscription/cancel',
    summary: 'Cancel at the end of the current period (at once while a renewal is unpaid); the buyer',
    auth: 'buyer',
    request: { params: OrderPath, body: CancelBody },
    responses: { '200': { description: 'Subscription', json: OrderSubscription } },
    errors: {
      order_not_found: 'Unknown order',
      subscription_not_found: 'Not a subscription',
      invalid_state_transition: 'Already ended, or not started',
      ...CLOSED_ORDER_ERRORS,
    },
  }),
  payInvoice: defineOperation({
    id: 'paySubscriptionInvoice',
    method: 'post',
    path: '/api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay',
    summary: 'Pay an open renewal invoice with a hosted-link transaction bound to the invoice id',
    auth: 'buyer',
    request: { params: OrderPath.extend({ invoice_id: z.string() }), body: PayInvoiceBody },
    responses: { '200': { description: 'Renewed', json: OrderSubscription } },
    errors: {
      order_not_found: 'Unknown order',
      invoice_not_found: 'No such open invoice',
      subscription_not_found: 'Not a subscription',
      payment_failed: 'Transaction failed',
      transaction_not_found: 'Transaction unknown',
      transaction_amount_mismatch: 'Transaction for another amount',
      transaction_already_used: 'Transaction bound to something else',
      invalid_state_transition: 'The subscription takes no payment now',
      ...CLOSED_ORDER_ERRORS,
    },
  }),
};
