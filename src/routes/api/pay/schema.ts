/**
 * The local hosted payment-link provider's pages (rail `linkpay_ncp`; issue 10 §1): HTML for humans, with forms.
 * Operation definitions (src/routes/operation.ts); the pages are src/routes/pay.ts.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';
import { OrderPath } from '../fields';

const html = (description: string): ResponseSpec => ({ description, content: { 'text/html': { schema: z.string() } } });
const form = (schema: z.ZodType) => ({ 'application/x-www-form-urlencoded': { schema } });
const ServicePath = z.object({ service_id: z.string() });

/** The payment-link page operations. */
export const payOperations = {
  checkout: defineOperation({
    id: 'payCheckoutPage',
    method: 'get',
    path: '/pay/orders/{order_id}',
    summary: "Hosted checkout page (linkpay_ncp); with ?secret=os_... the buyer's page (review once delivered)",
    auth: 'none',
    request: { params: OrderPath, query: z.object({ secret: z.string().optional().meta({ description: 'The order secret' }) }) },
    responses: { '200': html('The page') },
    errors: { order_not_found: 'Unknown order' },
  }),
  pay: defineOperation({
    id: 'payCheckout',
    method: 'post',
    path: '/pay/orders/{order_id}',
    summary: 'Pay (form): records the provider transaction and confirms the order',
    auth: 'none',
    request: { params: OrderPath, content: form(z.object({ email: z.string().optional(), secret: z.string().optional() })) },
    responses: { '200': html('Receipt'), '402': html('Payment refused'), '409': html('Not awaiting payment') },
    errors: { order_not_found: 'Unknown order', rail_not_offered: 'No payment link for this service' },
  }),
  review: defineOperation({
    id: 'payReview',
    method: 'post',
    path: '/pay/orders/{order_id}/review',
    summary: "The human buyer's accept / reject (form), with the order secret from the link",
    auth: 'none',
    request: {
      params: OrderPath,
      content: form(z.object({ secret: z.string(), action: z.enum(['accept', 'reject']), reason: z.string().optional() })),
    },
    responses: { '200': html('Recorded'), '409': html('Order not delivered') },
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
    summary: "A service's payment link: the inputs form",
    auth: 'none',
    request: { params: ServicePath },
    responses: { '200': html('The form') },
    errors: { service_not_found: 'No payment link for this service' },
  }),
  serviceOrder: defineOperation({
    id: 'payServiceOrder',
    method: 'post',
    path: '/pay/services/{service_id}',
    summary: 'Creates the order at the human price and redirects to its checkout (with the order secret in the link)',
    auth: 'none',
    request: { params: ServicePath, content: form(z.record(z.string(), z.string())) },
    responses: { '302': { description: 'To /pay/orders/{order_id}?secret=os_...' }, '422': html('Inputs missing') },
    errors: { service_not_found: 'No payment link for this service' },
  }),
};
