/**
 * OpenAPI paths of the long-running order endpoints (issue 6): engineer queue, buyer cancel, subscriptions, tasks,
 * built from the zod schemas that validate the requests (src/routes/longRunningSchemas.ts).
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { buyerAuthorization, buyerOnlyResponses, type OpenApiHelpers } from './webhookOpenApi';
import { CancelBody, ClaimBody, PayInvoiceBody, ReadyBody, SubscriptionView, TaskBody, TaskView, UploadJsonBody } from './longRunningSchemas';

const operator = { header: z.object({ Authorization: z.string().meta({ description: 'Bearer <operator key> (or X-Operator-Key)' }) }) };
const orderPath = z.object({ order_id: z.string().meta({ description: 'Order id (ord_...)' }) });
const anyObject = z.record(z.string(), z.unknown());

/** `/api/v1/engineering/*`, `/api/v1/orders/{id}/cancel`, `/subscription*`, `/tasks*` path items. */
export function longRunningOpenApiPaths({ op, json, problem }: OpenApiHelpers): ZodOpenApiPathsObject {
  const buyerOnly = buyerOnlyResponses(problem);
  // The subscription answers carry the order id beside the subscription's own fields.
  const OrderSubscription = SubscriptionView.extend({ order_id: z.string() });
  const conflict = problem('Wrong state (invalid_state_transition), claimed by another engineer (already_claimed), not the claimer (engineering_not_claimed), name taken (deliverable_conflict), nothing uploaded (no_deliverables)');
  return {
    '/api/v1/engineering/queue': {
      get: op({
        summary: 'Expert-delivery orders waiting for an engineer, most urgent SLA first (operator)',
        requestParams: { ...operator, query: z.object({ engineer: z.string().optional(), unclaimed: z.enum(['true', 'false']).optional() }) },
        responses: { '200': { description: 'Queue', ...json(z.object({ count: z.number().int(), items: z.array(anyObject) })) }, '401': problem('Operator key required'), '403': problem('Not the operator key') },
      }),
    },
    '/api/v1/engineering/{order_id}/claim': {
      post: op({
        summary: 'An engineer claims the order (operator; claimEngineering Update)',
        requestParams: { path: orderPath, ...operator },
        requestBody: json(ClaimBody),
        responses: { '200': { description: 'The order', ...json(anyObject) }, '401': problem('Operator key required'), '404': problem('Unknown order'), '409': conflict },
      }),
    },
    '/api/v1/engineering/{order_id}/deliverables': {
      post: op({
        summary: 'Upload one deliverable (operator): JSON with base64 content, or the raw file with ?engineer=&name=',
        requestParams: { path: orderPath, ...operator, query: z.object({ engineer: z.string().optional(), name: z.string().optional() }) },
        requestBody: { content: { 'application/json': { schema: UploadJsonBody }, 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } } },
        responses: {
          '201': { description: 'Stored and recorded', ...json(z.object({ order_id: z.string(), deliverable: anyObject, uploads: z.array(anyObject) })) },
          '400': problem('Bad name or content'),
          '409': conflict,
          '413': problem('Larger than 25 MB'),
        },
      }),
    },
    '/api/v1/engineering/{order_id}/ready': {
      post: op({
        summary: 'The engineer marks the order ready: delivered, review window opens (operator; markReady Update)',
        requestParams: { path: orderPath, ...operator },
        requestBody: json(ReadyBody),
        responses: { '200': { description: 'The delivered order', ...json(anyObject) }, '409': conflict },
      }),
    },
    '/api/v1/orders/{order_id}/cancel': {
      post: op({
        summary: 'Buyer cancels an order past its SLA (sla_breached) for a full refund',
        requestParams: { path: orderPath, header: z.object({ Authorization: buyerAuthorization }) },
        requestBody: json(CancelBody),
        responses: { '200': { description: 'The cancelled, refunded order', ...json(anyObject) }, ...buyerOnly, '409': problem('Not past its SLA, or already delivered') },
      }),
    },
    '/api/v1/orders/{order_id}/subscription': {
      get: op({
        summary: 'The subscription of a monthly order with its charge log',
        requestParams: { path: orderPath },
        responses: { '200': { description: 'Subscription', ...json(OrderSubscription) }, '404': problem('Not a subscription'), '409': problem('Not started yet (starts at delivery)') },
      }),
    },
    '/api/v1/orders/{order_id}/subscription/cancel': {
      post: op({
        summary: 'Cancel at the end of the current period (at once while a renewal is unpaid); the buyer',
        requestParams: { path: orderPath, header: z.object({ Authorization: buyerAuthorization }) },
        requestBody: json(CancelBody),
        responses: { '200': { description: 'Subscription', ...json(OrderSubscription) }, ...buyerOnly, '409': problem('Already ended') },
      }),
    },
    '/api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay': {
      post: op({
        summary: 'Pay an open renewal invoice with a hosted-link transaction bound to the invoice id',
        requestParams: { path: orderPath.extend({ invoice_id: z.string() }), header: z.object({ Authorization: buyerAuthorization }) },
        requestBody: json(PayInvoiceBody),
        responses: {
          '200': { description: 'Renewed', ...json(OrderSubscription) },
          ...buyerOnly,
          '402': problem('Transaction unknown, failed or for another amount'),
          '404': problem('No such open invoice'),
          '409': problem('Transaction bound to something else'),
        },
      }),
    },
    '/api/v1/orders/{order_id}/tasks': {
      post: op({
        summary: 'Submit a further task to a per-task order, charged from the agent wallet at the quoted price',
        requestParams: { path: orderPath, header: z.object({ Authorization: z.string().meta({ description: 'Bearer agent key (ak_...)' }) }) },
        requestBody: json(TaskBody),
        responses: {
          '201': { description: 'Charged and delivered', ...json(TaskView) },
          '202': { description: 'Still running; poll Location', ...json(TaskView) },
          ...buyerOnly,
          '402': problem('insufficient_funds: the task is recorded as payment_failed'),
          '409': problem('The order is not delivered or accepted'),
          '422': problem('Not a per-task service (task_not_supported)'),
        },
      }),
      get: op({ summary: 'Further tasks of the order', requestParams: { path: orderPath }, responses: { '200': { description: 'Tasks', ...json(z.object({ order_id: z.string(), tasks: z.array(TaskView) })) } } }),
    },
    '/api/v1/orders/{order_id}/tasks/{n}': {
      get: op({
        summary: 'One task',
        requestParams: { path: orderPath.extend({ n: z.string() }) },
        responses: { '200': { description: 'Task', ...json(TaskView) }, '404': problem('No such task') },
      }),
    },
  };
}
