/**
 * Orders (seed §2.3 to §2.5, §2.10, §4; issue 2): the zod schemas of requests and answers, and the definition of
 * each operation (route, validation, OpenAPI operation and MCP tool come from it; src/routes/operation.ts).
 * Amounts are shown as USD numbers with an integer `*_micros` twin.
 */
import { z } from 'zod';
import { ORDER_STATUSES, PAYMENT_RAILS } from '../../../domain/order';
import { IdempotencyKeyHeader, defineOperation } from '../../operation';
import { CLOSED_ORDER_ERRORS, DELIVERABLE_DOWNLOAD_RESPONSES, Id, Micros, OrderPath, Time, Usd } from '../fields';
import { WebhookEndpoint } from '../webhooks/schema';
import { EngineeringView } from '../engineering/schema';
import { CancelBody, SubscriptionView } from '../subscriptions/schema';

export const PaymentRailSchema = z
  .enum(PAYMENT_RAILS as [string, ...string[]])
  .meta({ id: 'PaymentRail', description: 'Payment rail (seed §1).' });
export const OrderStatusSchema = z
  .enum(ORDER_STATUSES as [string, ...string[]])
  .meta({ id: 'OrderStatus', description: 'Order state (docs/api.md, "Order state machine").' });

const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/** Body of `POST /api/v1/orders` (seed §2.3 plus `inputs`). Give `service_id` or `quote_id` (or both, matching). */
export const OrderRequest = z
  .object({
    service_id: Id('Catalogued service id').optional(),
    quote_id: Id('Quote to honour').optional(),
    agent_id: Id('Buying agent; its wallet can pay').optional(),
    email: z.email().max(254).optional().meta({ description: 'Buyer contact' }),
    webhook_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .meta({ description: "Receives this order's events" }),
    inputs: z
      .record(z.string().max(64), InputValue)
      .default({})
      .meta({ description: 'Service inputs (catalogue `inputs`)' }),
  })
  .strict()
  .refine((b) => b.service_id !== undefined || b.quote_id !== undefined, {
    message: 'service_id or quote_id is required',
    path: ['service_id'],
  })
  .meta({ id: 'OrderRequest' });
export type OrderRequest = z.infer<typeof OrderRequest>;

/** How to pay an order on each rail its service offers. */
export const PaymentOptions = z
  .object({
    amount: Usd('Amount due'),
    amount_micros: Micros('Amount due'),
    currency: z.string(),
    rails: z.array(PaymentRailSchema),
    confirm_url: z.string().meta({ description: 'POST here to confirm a payment (seed §2.4)' }),
    linkpay_ncp: z.object({ checkout_url: z.string() }).optional(),
    agent_wallet: z.object({ wallet_url: z.string(), agent_id: z.string().nullable() }).optional(),
    x402_usdc: z
      .object({
        resource: z
          .string()
          .meta({ description: 'x402 resource of this order: POST it with an x402 client (PAYMENT-SIGNATURE)' }),
        method: z.literal('POST'),
        network: z.string().meta({ description: 'CAIP-2 network, e.g. eip155:8453' }),
        asset: z.string().meta({ description: 'USDC token address' }),
        pay_to: z.string(),
        amount: z.string().meta({ description: 'USDC atomic units (integer string)' }),
      })
      .optional(),
  })
  .meta({ id: 'PaymentOptions' });

export const Deliverable = z
  .object({
    name: z.string(),
    url: z.string(),
    sha256: z.string().meta({ description: 'Lowercase hex sha256 of the bytes at `url`' }),
    size: z.number().int().meta({ description: 'Bytes' }),
    media_type: z.string(),
    service_id: z.string(),
  })
  .meta({ id: 'Deliverable' });

/** A signed delivery receipt of an order (issue 12 §3). */
export const OrderReceipt = z
  .object({
    jws: z.string().meta({
      description:
        'Compact JWS, EdDSA (Ed25519), header `kid` and `typ: receipt+jwt`; claims `iss`, `sub` (order_id), `jti`, `iat`, `exp` and order_id, service_id, quote_id, amount (USD paid), amount_micros, currency, payment {rail, transaction_id, paid_at}, deliverables [{name, sha256, size, media_type}], delivered_at. Verify with the keys at /.well-known/jwks.json',
    }),
    kid: z.string().meta({ description: 'Key that signed it (JWKS `kid`)' }),
    issued_at: Time('`iat` of the receipt'),
    expires_at: Time('`exp` of the receipt; a later read issues a new receipt'),
  })
  .meta({ id: 'OrderReceipt' });

/** An order as `GET /api/v1/orders/{order_id}` shows it. */
export const Order = z
  .object({
    order_id: z.string().meta({ description: '128-bit random id; whoever holds it can follow the order' }),
    service_id: z.string(),
    status: OrderStatusSchema,
    progress: z.array(
      z.object({
        status: OrderStatusSchema,
        at: Time('When the state was entered'),
        event: z
          .enum(['sla_escalated', 'engineer_claimed', 'deliverable_uploaded'])
          .optional()
          .meta({ description: 'Progress within the status (expert delivery, issue 6)' }),
      }),
    ),
    amount: Usd('Order amount'),
    amount_micros: Micros('Order amount'),
    currency: z.string(),
    billing: z.string(),
    quote_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    partner_id: z.string().nullable(),
    webhook_url: z.string().nullable(),
    payment: z
      .object({
        rail: PaymentRailSchema,
        transaction_id: z.string(),
        amount: Usd('Paid'),
        paid_at: Time('Payment time'),
      })
      .nullable(),
    payment_options: PaymentOptions.nullable().meta({ description: 'Present while the order awaits payment' }),
    payment_deadline: Time('Unpaid orders expire then'),
    deliverables: z.array(Deliverable),
    review: z
      .object({
        action: z.enum(['accept', 'reject']),
        reason: z.string().optional(),
        automatic: z.boolean(),
        at: z.string(),
      })
      .nullable(),
    refund: z
      .object({
        status: z.enum(['completed', 'due']),
        rail: PaymentRailSchema,
        amount: Usd('Refunded'),
        amount_micros: Micros('Refunded').optional(),
        transaction_id: z.string().optional(),
        reason: z.string(),
        at: z.string(),
      })
      .nullable(),
    failure: z.string().nullable(),
    links: z.object({ self: z.string(), verification: z.string(), review: z.string(), confirm_payment: z.string() }),
    created_at: Time('Creation time'),
    updated_at: Time('Last change'),
    engineering: EngineeringView.optional().meta({
      description: 'Expert-delivery orders from in_engineering on (issue 6)',
    }),
    subscription: SubscriptionView.nullable()
      .optional()
      .meta({ description: 'Monthly services: the subscription (null until delivery)' }),
    tasks: z
      .object({
        submit_url: z.string(),
        price: z.number(),
        items: z.array(z.object({ task: z.number().int(), status: z.string(), url: z.string() })),
      })
      .optional()
      .meta({ description: 'Per-task services: further tasks' }),
    receipt: OrderReceipt.nullable().optional().meta({
      description:
        'GET /api/v1/orders/{order_id} only: the signed delivery receipt once the order is delivered (also when accepted or rejected later), null before. The same receipt on every read until its expires_at',
    }),
    webhook: WebhookEndpoint.optional().meta({
      description:
        'Only in the creation response of an order with webhook_url: its endpoint, signing secret and management token (shown once)',
    }),
    order_secret: z.string().optional().meta({
      description:
        "Only in the creation response of an order without agent_id, shown once: the buyer's credential (`Authorization: Bearer os_...`) for every action that changes the order (review, cancel, subscription, x402 payment)",
    }),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

/** Body of `POST /api/v1/orders/{order_id}/confirm_payment` (seed §2.4 plus an explicit rail). */
export const ConfirmPaymentRequest = z
  .object({
    transaction_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: 'Provider transaction id (linkpay_ncp: lp_...)' }),
    rail: PaymentRailSchema.optional().meta({
      description:
        'Rail paid on. Default: linkpay_ncp when transaction_id starts with lp_, x402_usdc when it is a 0x hash, agent_wallet otherwise',
    }),
  })
  .strict()
  .meta({ id: 'ConfirmPaymentRequest' });
export type ConfirmPaymentRequest = z.infer<typeof ConfirmPaymentRequest>;

/** Body of `POST /api/v1/orders/{order_id}/review` (seed §2.5). */
export const ReviewRequest = z
  .object({
    action: z.enum(['accept', 'reject']),
    reason: z.string().max(2000).optional(),
  })
  .strict()
  .meta({ id: 'ReviewRequest' });
export type ReviewRequest = z.infer<typeof ReviewRequest>;

/** Verification result (seed §2.10). */
export const Verification = z
  .object({
    order_id: z.string(),
    status: z.enum(['verified', 'mismatch']),
    algorithm: z.literal('sha256'),
    verified_at: Time('When the bytes were rehashed'),
    manifest: z.array(
      z.object({
        name: z.string(),
        url: z.string(),
        size: z.number().int(),
        media_type: z.string(),
        recorded_sha256: z.string(),
        computed_sha256: z.string().nullable(),
        match: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'Verification' });

/** Answer of `GET /api/v1/orders/{order_id}/events`: the order's events, numbered by `seq`. */
export const OrderEvents = z
  .object({
    order_id: z.string(),
    events: z.array(
      z.object({ id: z.string(), seq: z.number().int(), type: z.string(), data: z.unknown(), timestamp: z.string() }),
    ),
  })
  .meta({ id: 'OrderEvents' });

/** An order id as the API issues them (`ord_` + at least 128 random bits, base64url). */
export const OrderIdParam = z.string().regex(/^ord_[A-Za-z0-9_-]{22,64}$/, 'not an order id');

const read = { readOnlyHint: true, openWorldHint: false } as const;
const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

/** The order operations. */
export const orderOperations = {
  create: defineOperation({
    id: 'createOrder',
    method: 'post',
    path: '/api/v1/orders',
    summary: 'Create an order (starts its workflow)',
    auth: 'none',
    request: { body: OrderRequest, headers: IdempotencyKeyHeader },
    responses: { '201': { description: 'Order created, awaiting payment', json: Order } },
    errors: {
      invalid_request: 'Invalid body',
      service_not_found: 'Unknown service',
      quote_not_found: 'Unknown quote',
      quote_expired: 'Quote expired',
      quote_service_mismatch: 'The quote is for another service',
      missing_inputs: 'Required inputs missing',
      text_generation_unavailable:
        'The service needs a text-generation model this deployment lacks (TEXTGEN_* settings)',
      webhook_target_forbidden: 'webhook_url resolves to a non-public address',
    },
    mcp: {
      name: 'create_order',
      title: 'Create an order',
      description:
        "Creates an order from a quote_id or service_id with the service inputs (POST /api/v1/orders). It awaits payment; payment_options say how to pay. With webhook_url the answer carries that endpoint's signing secret once.",
      annotations: write,
    },
  }),
  get: defineOperation({
    id: 'getOrder',
    method: 'get',
    path: '/api/v1/orders/{order_id}',
    summary: 'Order state, progress and deliverables',
    description:
      'Long poll: send the ETag you hold in If-None-Match and `Prefer: wait=N` (seconds, at most 60, RFC 7240); the answer comes when the order changes, or after N seconds as 304.',
    auth: 'none',
    request: {
      params: OrderPath,
      headers: z.object({
        'If-None-Match': z.string().optional().meta({ description: 'ETag of the order as the client holds it' }),
        Prefer: z
          .string()
          .optional()
          .meta({ description: '`wait=N`: hold the request up to N seconds (at most 60) for a change' }),
      }),
    },
    responses: {
      '200': { description: 'Order (with its signed `receipt` once delivered)', json: Order },
      '304': { description: 'Unchanged (the held ETag still applies)' },
    },
    errors: {
      order_not_found: 'Unknown order',
      signing_unavailable: 'Signing keys unavailable (delivered order: its receipt cannot be issued)',
    },
    mcp: {
      name: 'get_order',
      title: 'Get an order',
      description:
        'Order status, progress through the state machine, payment, deliverables with sha256 and URLs (GET /api/v1/orders/{order_id}).',
      annotations: read,
    },
  }),
  confirmPayment: defineOperation({
    id: 'confirmPayment',
    method: 'post',
    path: '/api/v1/orders/{order_id}/confirm_payment',
    summary: 'Verify a payment and start fulfillment',
    description: "The agent_wallet rail needs the agent key of the order's wallet.",
    auth: ['none', 'agent_key'],
    request: { params: OrderPath, body: ConfirmPaymentRequest, headers: IdempotencyKeyHeader },
    responses: { '200': { description: 'Paid; fulfillment started', json: Order } },
    errors: {
      order_not_found: 'Unknown order',
      payment_failed: 'Payment refused',
      insufficient_funds: 'The wallet balance is short',
      transaction_not_found: 'Unknown transaction',
      transaction_amount_mismatch: 'The transaction is for another amount',
      invalid_state_transition: 'Order not awaiting payment',
      transaction_already_used: 'Transaction used by another order',
      rail_not_offered: 'Rail not offered; or agent_wallet on an order without agent_id (payment_failed)',
      ...CLOSED_ORDER_ERRORS,
    },
    mcp: {
      name: 'confirm_payment',
      title: 'Confirm payment',
      description:
        'Verifies a payment and starts fulfillment (POST /api/v1/orders/{order_id}/confirm_payment). agent_wallet needs the agent key; linkpay_ncp a transaction_id.',
      annotations: { ...write, idempotentHint: true },
      credential: 'agent_key',
    },
  }),
  verify: defineOperation({
    id: 'verifyOrder',
    method: 'get',
    path: '/api/v1/orders/{order_id}/verification',
    summary: 'Recompute deliverable checksums',
    auth: 'none',
    request: { params: OrderPath },
    responses: { '200': { description: 'Verification', json: Verification } },
    errors: { order_not_found: 'Unknown order', invalid_state_transition: 'Nothing delivered yet' },
    mcp: {
      name: 'verify_order',
      title: 'Verify deliverables',
      description:
        'Rehashes every deliverable and compares with the recorded sha256 (GET /api/v1/orders/{order_id}/verification).',
      annotations: read,
    },
  }),
  review: defineOperation({
    id: 'reviewOrder',
    method: 'post',
    path: '/api/v1/orders/{order_id}/review',
    summary: 'Accept or reject the delivery (the buyer)',
    auth: 'buyer',
    request: { params: OrderPath, body: ReviewRequest, headers: IdempotencyKeyHeader },
    responses: { '200': { description: 'Review recorded; final order', json: Order } },
    errors: {
      order_not_found: 'Unknown order',
      invalid_state_transition: 'Order not delivered',
      ...CLOSED_ORDER_ERRORS,
    },
    mcp: {
      name: 'review_order',
      title: 'Review a delivery',
      description:
        "Accepts or rejects a delivered order (POST /api/v1/orders/{order_id}/review); rejecting refunds the payment. Only the buyer may: the order's agent key or order secret.",
      annotations: write,
      credential: 'buyer',
    },
  }),
  events: defineOperation({
    id: 'listOrderEvents',
    method: 'get',
    path: '/api/v1/orders/{order_id}/events',
    summary: "The order's numbered events (order.created, order.paid, ...), oldest first",
    auth: 'none',
    request: { params: OrderPath },
    responses: { '200': { description: 'Events', json: OrderEvents } },
    errors: { order_not_found: 'Unknown order' },
  }),
  deliverable: defineOperation({
    id: 'getDeliverable',
    method: 'get',
    path: '/api/v1/orders/{order_id}/deliverables/{name}',
    summary: 'Download a deliverable (ETag and Repr-Digest carry its sha256)',
    auth: 'none',
    request: { params: OrderPath.extend({ name: z.string().meta({ description: 'Deliverable name' }) }) },
    // The bytes in the deliverable's own media type, streamed (issue 25 §2).
    responses: DELIVERABLE_DOWNLOAD_RESPONSES,
    errors: {
      order_not_found: 'Unknown order',
      deliverable_not_found: 'The order has no deliverable of this name',
      range_not_satisfiable: 'The Range starts past the last byte',
    },
  }),
  cancel: defineOperation({
    id: 'cancelOrder',
    method: 'post',
    path: '/api/v1/orders/{order_id}/cancel',
    summary: 'Buyer cancels an order past its SLA (sla_breached) for a full refund',
    auth: 'buyer',
    request: { params: OrderPath, body: CancelBody },
    responses: { '200': { description: 'The cancelled, refunded order', json: z.record(z.string(), z.unknown()) } },
    errors: {
      order_not_found: 'Unknown order',
      invalid_state_transition: 'Not past its SLA, or already delivered',
      ...CLOSED_ORDER_ERRORS,
    },
  }),
};
