/**
 * x402 (seed §2.12, §2.13, §4, §6.3; issue 3; docs/x402.md): the micro and template catalogues, the resources paid per
 * request (they answer 402 with `PAYMENT-REQUIRED` until a valid `PAYMENT-SIGNATURE` is sent; their input and output
 * JSON Schemas are also in each 402's bazaar extension), the order rail, pending deliveries, the discovery document
 * and the ledger. Schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { MicroCatalogueEnvelope } from '../../../products/micro';
import { X402_STATUSES } from '../../../repos/x402Payments';
import { defineOperation, problemResponse, type OperationDefinition, type ResponseSpec } from '../../operation';
import { OrderPath } from '../fields';

const Receipt = z
  .object({
    payment_id: z.string(),
    status: z.enum(X402_STATUSES),
    transaction: z.string().nullable(),
    network: z.string(),
    payer: z.string(),
    amount: z.number().meta({ description: 'USD (= USDC)' }),
    amount_micros: z.number().int().meta({ description: 'USDC atomic units' }),
    asset: z.string(),
    pay_to: z.string(),
  })
  .meta({ id: 'X402Receipt' });

const Goods = z
  .object({ payment: Receipt })
  .catchall(z.unknown())
  .meta({ id: 'X402Goods', description: 'The goods of the resource plus the settled payment' });

const Pending = z
  .object({
    status: z.literal('settlement_pending'),
    reason: z.string(),
    detail: z.string(),
    payment: Receipt,
    delivery_url: z.string().nullable(),
  })
  .meta({ id: 'X402Pending' });

const LedgerEntry = z
  .object({
    payment_id: z.string(),
    status: z.enum(X402_STATUSES),
    resource: z.string().meta({
      description:
        'The resource paid; an order payment shows it as {base}/x402/orders/{order_id}, the template, except to the operator',
    }),
    resource_kind: z.string(),
    resource_ref: z.string().nullable().meta({
      description: 'The item id or sku bought; null for an order payment except to the operator',
    }),
    order_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'The order paid (null: none); the operator view only, since an order id reads the order' }),
    amount: z.number(),
    amount_micros: z.number().int(),
    currency: z.literal('USDC'),
    asset: z.string(),
    network: z.string(),
    pay_to: z.string(),
    payer: z.string(),
    transaction: z.string().nullable(),
    error_reason: z
      .string()
      .nullable()
      .meta({ description: 'Stable reason code of a failure or a pending settlement' }),
    error_message: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Internal text of the failure; the operator view only' }),
    created_at: z.string(),
    updated_at: z.string(),
    settled_at: z.string().nullable(),
  })
  .meta({
    id: 'X402LedgerEntry',
    description:
      'A ledger entry. Without the operator key: no order_id, no error_message, and an order payment named by its template only (issue 36 §2)',
  });

const Ledger = z
  .object({
    payments: z.array(LedgerEntry),
    count: z.number().int(),
    next_cursor: z.string().nullable(),
    next: z.string().nullable(),
  })
  .meta({ id: 'X402Ledger' });

const ResourceEntry = z
  .object({
    resource: z.string(),
    method: z.enum(['GET', 'POST']),
    price_usd: z.number().nullable(),
    amount: z.string().nullable().meta({ description: 'price_usd × 1,000,000 as an integer string' }),
    priced_per_item: z.boolean(),
    asset: z.literal('USDC'),
    asset_address: z.string(),
    network: z.string(),
    scheme: z.literal('exact'),
    pay_to: z.string(),
    description: z.string(),
    price_range: z.object({ count: z.number().int(), min_usd: z.number(), max_usd: z.number() }).optional(),
    how_to_price_it: z.string().optional(),
  })
  .meta({ id: 'X402ResourceEntry' });

const Discovery = z
  .object({
    x402_version: z.literal(2),
    enabled: z.boolean(),
    micro_tier: z.object({
      name: z.string(),
      count: z.number().int(),
      price_range_usd: z.array(z.number()).length(2),
      total_value_usd: z.number(),
      why: z.string(),
      buy: z.string(),
      catalogue: z.string(),
    }),
    facilitator: z.string(),
    wallet: z.string(),
    currency: z.literal('USDC'),
    network: z.string(),
    resources: z.array(ResourceEntry),
    item_count: z.number().int(),
    note: z.string(),
    facilitator_network_support: z.object({ supported: z.boolean(), detail: z.string() }),
  })
  .meta({
    id: 'X402Discovery',
    description: "Seed §2.13; this project's own path (the x402 specification defines none)",
  });

const TemplateCatalogue = z
  .object({
    name: z.string(),
    currency: z.literal('USD'),
    count: z.number().int(),
    price_range: z.object({ count: z.number().int(), min_usd: z.number(), max_usd: z.number() }),
    how_to_buy: z.array(z.string()),
    templates: z.array(
      z.object({
        sku: z.string(),
        title: z.string(),
        price_usd: z.number(),
        amount: z.string(),
        sector: z.string(),
        description: z.string(),
        apps: z.array(z.string()),
        node_count: z.number().int(),
        credentials_needed: z.array(z.string()),
        resource: z.string(),
      }),
    ),
  })
  .meta({ id: 'X402TemplateCatalogue' });

/** Query of `GET /api/v1/x402/payments`. */
export const ListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(512).optional(),
    status: z.enum(X402_STATUSES).optional(),
    resource_kind: z.string().max(40).optional(),
    transaction: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'a 0x-prefixed 32-byte transaction hash')
      .optional()
      .meta({ description: 'A settlement transaction hash (0x + 64 hex): the payment it settled, if any' }),
  })
  .strict();

const problemSpec = (description: string): ResponseSpec => ({
  description,
  content: problemResponse(description).content,
});

const PaymentSignature = z.object({
  'PAYMENT-SIGNATURE': z
    .string()
    .optional()
    .meta({ description: 'base64 JSON of an x402 v2 PaymentPayload (scheme exact, EIP-3009 authorization)' }),
});

/** The answers every paid resource can give, plus its own refusals. */
const paidResponses = (refusals: Record<`4${string}`, ResponseSpec> = {}): OperationDefinition['responses'] => ({
  '200': {
    description: 'The goods; PAYMENT-RESPONSE carries the settlement',
    headers: z.object({ 'PAYMENT-RESPONSE': z.string() }),
    json: Goods,
  },
  '202': { description: 'Paid, settlement not confirmed yet: goods at delivery_url once settled', json: Pending },
  '400': problemSpec('Malformed PAYMENT-SIGNATURE (invalid_payment_header) or bad input'),
  '402': {
    ...problemSpec(
      'Payment required or refused (reason in PAYMENT-REQUIRED.error); PAYMENT-REQUIRED carries the exact requirements',
    ),
    headers: z.object({
      'PAYMENT-REQUIRED': z.string().meta({ description: 'base64 JSON of the x402 v2 PaymentRequired' }),
    }),
  },
  '409': problemSpec('payment-identifier conflict or a purchase with it still running'),
  '502': problemSpec('The facilitator cannot be reached (facilitator_error)'),
  ...refusals,
});

/** A resource paid per request, GET unless said otherwise. */
const paid = <const P extends string>(
  id: string,
  path: P,
  summary: string,
  description: string,
  extra: Partial<Pick<OperationDefinition, 'method' | 'request' | 'mcp' | 'auth'>> = {},
  refusals: Record<`4${string}`, ResponseSpec> = {},
) =>
  defineOperation({
    id,
    method: extra.method ?? 'get',
    path,
    summary,
    description: `${description} Paid per request over x402 (docs/x402.md).`,
    auth: extra.auth ?? 'x402',
    request: {
      ...extra.request,
      headers: extra.request?.headers ? extra.request.headers.extend(PaymentSignature.shape) : PaymentSignature,
    },
    responses: paidResponses(refusals),
    ...(extra.mcp ? { mcp: extra.mcp } : {}),
  });

/** The x402 operations. */
export const x402Operations = {
  micro: defineOperation({
    id: 'getMicroCatalogue',
    method: 'get',
    path: '/api/v1/x402/micro',
    summary: 'Micro catalogue (seed §2.12)',
    auth: 'none',
    responses: {
      '200': { description: '489 items', json: MicroCatalogueEnvelope },
      '304': { description: 'Not modified: If-None-Match held the current ETag' },
    },
    mcp: {
      name: 'micro_catalogue',
      title: 'Micro catalogue',
      description: 'Low-priced items sold per request over x402 (GET /api/v1/x402/micro), with how to buy them.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  }),
  templates: defineOperation({
    id: 'listTemplates',
    method: 'get',
    path: '/api/v1/x402/templates',
    summary: 'Template catalogue: every sku with its price',
    auth: 'none',
    responses: { '200': { description: '18 templates', json: TemplateCatalogue } },
  }),
  item: paid(
    'buyMicroItem',
    '/x402/item/{id}',
    'One micro item, returned inline',
    'Priced by the item (0.99–2.99 USD).',
    {
      request: {
        params: z.object({ id: z.string().min(1).max(200).meta({ description: 'Item id from micro_catalogue' }) }),
      },
      mcp: {
        name: 'buy_micro_item',
        title: 'Buy a micro item (x402)',
        description:
          'Buys one micro-catalogue item (GET /x402/item/{item_id}), paid per call in USDC with x402: without payment the result is isError with the x402 PaymentRequired in structuredContent; retry with the signed PaymentPayload in _meta["x402/payment"] to get the item, with the settlement in _meta["x402/payment-response"].',
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
        args: { item_id: 'id' },
        output: false,
        paid: true,
      },
    },
    { '404': problemSpec('Unknown item (no payment asked; item_not_found)') },
  ),
  template: paid(
    'buyTemplate',
    '/x402/template',
    'One automation template (n8n workflow JSON)',
    "The 402 quotes the named sku's own price (19–362 USD).",
    { request: { query: z.object({ sku: z.string() }) } },
    { '404': problemSpec('Unknown sku (template_not_found)') },
  ),
  audit: paid(
    'buyAudit',
    '/x402/audit',
    'Written audit report of one n8n workflow (49 USD)',
    'Body: the n8n workflow JSON, or {"workflow": {...}}; checked before payment is asked.',
    {
      method: 'post',
      request: {
        content: {
          'application/json': {
            schema: z
              .object({})
              .catchall(z.unknown())
              .meta({ description: 'n8n workflow JSON: {name?, nodes, connections, settings?}' }),
          },
        },
      },
    },
  ),
  agentStarter: paid(
    'buyAgentStarter',
    '/x402/agent-starter',
    'Three agent starter templates plus integration notes (149 USD)',
    'n8n workflows that order, follow signed events and sample the paid feed.',
  ),
  obsTick: paid(
    'buyObservationTick',
    '/x402/obs/tick',
    'One reading of agent traffic (0.001 USD)',
    'Agent visits, distinct identities, share hitting a single endpoint over the last hour.',
  ),
  obsAgents: paid(
    'buyObservationAgents',
    '/x402/obs/agents',
    'Agent behaviour snapshot (0.3 USD)',
    '24 hours of agent traffic with methodology and limits attached.',
  ),
  obsMethodology: paid(
    'buyObservationMethodology',
    '/x402/obs/methodology',
    'Observation feed methodology (0.1 USD)',
    'Definitions, exclusions, storage and caveats.',
  ),
  payOrder: paid(
    'payOrderX402',
    '/x402/orders/{order_id}',
    'Pay an order on the x402_usdc rail',
    "Priced at the order's amount; settlement confirms the order through its workflow.",
    { method: 'post', auth: ['buyer', 'x402'], request: { params: OrderPath } },
    {
      '401': problemSpec("No credential: send the buyer's"),
      '403': problemSpec("Not the buyer's credential"),
      '404': problemSpec('Unknown order'),
      '422': problemSpec('The service is not sold on x402_usdc'),
    },
  ),
  delivery: defineOperation({
    id: 'getX402Delivery',
    method: 'get',
    path: '/x402/deliveries/{token}',
    summary: 'Goods of a settlement that came back pending',
    auth: 'none',
    request: { params: z.object({ token: z.string() }) },
    responses: {
      '200': { description: 'Settled: the goods', json: Goods },
      '202': {
        description: 'Still pending',
        json: z.object({ status: z.string(), payment: Receipt, detail: z.string() }),
      },
    },
    errors: {
      not_found: 'Unknown token',
      payment_failed: { status: 410, description: 'The payment failed; nothing was charged' },
    },
  }),
  discovery: defineOperation({
    id: 'getX402Discovery',
    method: 'get',
    path: '/.well-known/x402',
    summary: 'Payment discovery document (seed §2.13)',
    auth: 'none',
    responses: { '200': { description: 'Discovery document', json: Discovery } },
  }),
  payments: defineOperation({
    id: 'listX402Payments',
    method: 'get',
    path: '/api/v1/x402/payments',
    summary: 'The x402 payments ledger, newest first (operator key); anyone may look up one payment by ?transaction=',
    description:
      'Without the operator key only `transaction` lookups are answered, in the public form of an entry: no order_id, no error_message, an order payment named by its path template (transaction hashes are public on chain; an order id reads its order).',
    auth: ['none', 'operator'],
    request: { query: ListQuery },
    responses: { '200': { description: 'One page', json: Ledger } },
    errors: { invalid_request: 'Bad query or cursor' },
  }),
  payment: defineOperation({
    id: 'getX402Payment',
    method: 'get',
    path: '/api/v1/x402/payments/{payment_id}',
    summary: 'One ledger entry',
    description:
      'Anyone: the public form of the entry (status, amount, transaction, reason code; no order_id, no error_message, an order payment named by its path template). The operator key: every field.',
    auth: 'none',
    request: { params: z.object({ payment_id: z.string() }) },
    responses: { '200': { description: 'Entry', json: LedgerEntry } },
    errors: { not_found: 'Unknown payment' },
  }),
};
