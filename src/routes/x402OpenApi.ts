/**
 * OpenAPI operations of the x402 endpoints (issue 3; docs/x402.md). Merged into the document by
 * src/routes/openapi.ts with its response helpers. The paid resources answer 402 with `PAYMENT-REQUIRED` until a
 * valid `PAYMENT-SIGNATURE` is sent; their input and output JSON Schemas are also in each 402's bazaar extension.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { MicroCatalogueEnvelope } from '../domain/micro';
import { X402_STATUSES } from '../repos/x402Payments';
import { buyerAuthorization, buyerOnlyResponses } from './operation';

/** The helpers openapi.ts builds operations with. */
export interface X402OpenApiHelpers {
  op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject;
  json(schema: z.ZodType): { content: { 'application/json': { schema: z.ZodType } } };
  problem(description: string): ZodOpenApiResponseObject;
}

const paymentSignature = z.object({
  'PAYMENT-SIGNATURE': z.string().optional().meta({ description: 'base64 JSON of an x402 v2 PaymentPayload (scheme exact, EIP-3009 authorization)' }),
});

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

const Goods = z.object({ payment: Receipt }).catchall(z.unknown()).meta({ id: 'X402Goods', description: 'The goods of the resource plus the settled payment' });

const Pending = z
  .object({ status: z.literal('settlement_pending'), reason: z.string(), detail: z.string(), payment: Receipt, delivery_url: z.string().nullable() })
  .meta({ id: 'X402Pending' });

const LedgerEntry = z
  .object({
    payment_id: z.string(),
    status: z.enum(X402_STATUSES),
    resource: z.string(),
    resource_kind: z.string(),
    resource_ref: z.string().nullable(),
    order_id: z.string().nullable(),
    amount: z.number(),
    amount_micros: z.number().int(),
    currency: z.literal('USDC'),
    asset: z.string(),
    network: z.string(),
    pay_to: z.string(),
    payer: z.string(),
    transaction: z.string().nullable(),
    error_reason: z.string().nullable(),
    error_message: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    settled_at: z.string().nullable(),
  })
  .meta({ id: 'X402LedgerEntry' });

const Ledger = z
  .object({ payments: z.array(LedgerEntry), count: z.number().int(), next_cursor: z.string().nullable(), next: z.string().nullable() })
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
  .meta({ id: 'X402Discovery', description: "Seed §2.13; this project's own path (the x402 specification defines none)" });

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

/** Paths of the x402 catalogues, paid resources, discovery document and ledger. */
export function x402OpenApiPaths({ op, json, problem }: X402OpenApiHelpers): ZodOpenApiPathsObject {
  const paid = (summary: string, description: string, extra: Partial<ZodOpenApiOperationObject> = {}, refusals: ZodOpenApiResponsesObject = {}) =>
    op({
      summary,
      description: `${description} Paid per request over x402 (docs/x402.md).`,
      ...extra,
      requestParams: { ...(extra.requestParams ?? {}), header: paymentSignature },
      responses: {
        '200': { description: 'The goods; PAYMENT-RESPONSE carries the settlement', headers: z.object({ 'PAYMENT-RESPONSE': z.string() }), ...json(Goods) },
        '202': { description: 'Paid, settlement not confirmed yet: goods at delivery_url once settled', ...json(Pending) },
        '400': problem('Malformed PAYMENT-SIGNATURE (invalid_payment_header) or bad input'),
        '402': {
          ...problem('Payment required or refused (reason in PAYMENT-REQUIRED.error); PAYMENT-REQUIRED carries the exact requirements'),
          headers: z.object({ 'PAYMENT-REQUIRED': z.string().meta({ description: 'base64 JSON of the x402 v2 PaymentRequired' }) }),
        },
        '409': problem('payment-identifier conflict or a purchase with it still running'),
        '502': problem('The facilitator cannot be reached (facilitator_error)'),
        ...refusals,
      },
    });
  return {
    '/api/v1/x402/micro': { get: op({ summary: 'Micro catalogue (seed §2.12)', responses: { '200': { description: '489 items', ...json(MicroCatalogueEnvelope) }, '304': { description: 'Not modified: If-None-Match held the current ETag' } } }) },
    '/api/v1/x402/templates': { get: op({ summary: 'Template catalogue: every sku with its price', responses: { '200': { description: '18 templates', ...json(TemplateCatalogue) } } }) },
    '/x402/item/{id}': {
      get: paid('One micro item, returned inline', 'Priced by the item (0.99–2.99 USD).', { requestParams: { path: z.object({ id: z.string() }) } }, { '404': problem('Unknown item (no payment asked)') }),
    },
    '/x402/template': {
      get: paid('One automation template (n8n workflow JSON)', "The 402 quotes the named sku's own price (19–362 USD).", { requestParams: { query: z.object({ sku: z.string() }) } }, {
        '404': problem('Unknown sku'),
      }),
    },
    '/x402/audit': {
      post: paid('Written audit report of one n8n workflow (49 USD)', 'Body: the n8n workflow JSON, or {"workflow": {...}}; checked before payment is asked.', {
        requestBody: json(z.object({}).catchall(z.unknown()).meta({ description: 'n8n workflow JSON: {name?, nodes, connections, settings?}' })),
      }),
    },
    '/x402/agent-starter': { get: paid('Three agent starter templates plus integration notes (149 USD)', 'n8n workflows that order, follow signed events and sample the paid feed.') },
    '/x402/obs/tick': { get: paid('One reading of agent traffic (0.001 USD)', 'Agent visits, distinct identities, share hitting a single endpoint over the last hour.') },
    '/x402/obs/agents': { get: paid('Agent behaviour snapshot (0.3 USD)', '24 hours of agent traffic with methodology and limits attached.') },
    '/x402/obs/methodology': { get: paid('Observation feed methodology (0.1 USD)', 'Definitions, exclusions, storage and caveats.') },
    '/x402/orders/{order_id}': {
      post: paid('Pay an order on the x402_usdc rail', "Priced at the order's amount; settlement confirms the order through its workflow.", {
        requestParams: { path: z.object({ order_id: z.string() }), header: z.object({ Authorization: buyerAuthorization }) },
      }, { ...buyerOnlyResponses(problem), '404': problem('Unknown order'), '422': problem('The service is not sold on x402_usdc') }),
    },
    '/x402/deliveries/{token}': {
      get: op({
        summary: 'Goods of a settlement that came back pending',
        requestParams: { path: z.object({ token: z.string() }) },
        responses: { '200': { description: 'Settled: the goods', ...json(Goods) }, '202': { description: 'Still pending', ...json(z.object({ status: z.string(), payment: Receipt, detail: z.string() })) }, '404': problem('Unknown token'), '410': problem('The payment failed; nothing was charged') },
      }),
    },
    '/.well-known/x402': { get: op({ summary: 'Payment discovery document (seed §2.13)', responses: { '200': { description: 'Discovery document', ...json(Discovery) } } }) },
    '/api/v1/x402/payments': {
      get: op({
        summary: 'The x402 payments ledger, newest first (operator key); anyone may look up one payment by ?transaction=',
        description: 'Without the operator key only `transaction` lookups are answered, and their entries show no order_id.',
        requestParams: {
          query: z.object({
            limit: z.number().int().min(1).max(200).optional(),
            cursor: z.string().optional(),
            status: z.enum(X402_STATUSES).optional(),
            resource_kind: z.string().optional(),
            transaction: z.string().optional().meta({ description: 'A settlement transaction hash (0x + 64 hex): the payment it settled, if any' }),
          }),
          header: z.object({ Authorization: z.string().optional().meta({ description: 'Bearer <operator key> (or X-Operator-Key) for the full ledger' }) }),
        },
        responses: {
          '200': { description: 'One page', ...json(Ledger) },
          '400': problem('Bad query or cursor'),
          '401': problem('The full ledger needs the operator key'),
          '403': problem('Not the operator key'),
        },
      }),
    },
    '/api/v1/x402/payments/{payment_id}': {
      get: op({ summary: 'One ledger entry', requestParams: { path: z.object({ payment_id: z.string() }) }, responses: { '200': { description: 'Entry', ...json(LedgerEntry) }, '404': problem('Unknown payment') } }),
    },
  };
}
