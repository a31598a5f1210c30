/**
 * zod schemas of the commerce API: they validate requests, type the handlers and generate the OpenAPI 3.1
 * document (`GET /api/v1/openapi.json`). Amounts are shown as USD numbers with an integer `*_micros` twin.
 *
 * Source: seed §2.2 to §2.5, §2.9, §2.10, §4; issue 2.
 */
import { z } from 'zod';
import { isUsdAmount } from '../domain/money';
import { ORDER_STATUSES, PAYMENT_RAILS } from '../../workflows/shared';
import { WebhookEndpoint } from './webhookSchemas';
import { EngineeringView, SubscriptionView } from './longRunningSchemas';

const Id = (description: string) => z.string().min(1).max(128).regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only').meta({ description });
const Usd = (description: string) => z.number().meta({ description: `${description} (USD)` });
const Micros = (description: string) => z.number().int().meta({ description: `${description} (integer micro-units, 1 USD = 1,000,000)` });
const Time = (description: string) => z.string().meta({ description: `${description} (RFC 3339 time)` });

export const PaymentRailSchema = z.enum(PAYMENT_RAILS as [string, ...string[]]).meta({ id: 'PaymentRail', description: 'Payment rail (seed §1).' });
export const OrderStatusSchema = z.enum(ORDER_STATUSES as [string, ...string[]]).meta({ id: 'OrderStatus', description: 'Order state (README, "Order state machine").' });

/** Body of `POST /api/v1/quote` (seed §2.2). */
export const QuoteRequest = z
  .object({
    service_id: Id('Catalogued service id'),
    is_agent: z.boolean().default(true).meta({ description: 'Agent price when true (default), human price when false' }),
    partner_id: Id('Partner credited a 20% commission').optional(),
  })
  .strict()
  .meta({ id: 'QuoteRequest' });
export type QuoteRequest = z.infer<typeof QuoteRequest>;

/** A binding quote (issue 2 §3). */
export const Quote = z
  .object({
    quote_id: z.string(),
    service_id: z.string(),
    is_agent: z.boolean(),
    amount: Usd('Price to pay'),
    amount_micros: Micros('Price to pay'),
    currency: z.string(),
    billing: z.string(),
    partner_id: z.string().nullable(),
    commission: Usd('Partner commission, 20% of the amount').nullable(),
    commission_micros: Micros('Partner commission').nullable(),
    terms_version: z.string(),
    catalogue_version: z.string(),
    created_at: Time('Creation time'),
    expires_at: Time('An order placed with the quote before this time pays `amount`'),
    jws: z
      .string()
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      .meta({
        description:
          'The quote signed (issue 12 §3): compact JWS, EdDSA (Ed25519), header `kid` and `typ: quote+jwt`; claims `iss` (this API), `sub` and `jti` (quote_id), `iat` (created_at), `exp` (expires_at) and every other member of this quote. Verify with the keys at /.well-known/jwks.json',
      }),
  })
  .meta({ id: 'Quote' });
export type Quote = z.infer<typeof Quote>;

const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/** Body of `POST /api/v1/orders` (seed §2.3 plus `inputs`). Give `service_id` or `quote_id` (or both, matching). */
export const OrderRequest = z
  .object({
    service_id: Id('Catalogued service id').optional(),
    quote_id: Id('Quote to honour').optional(),
    agent_id: Id('Buying agent; its wallet can pay').optional(),
    email: z.email().max(254).optional().meta({ description: 'Buyer contact' }),
    webhook_url: z.url({ protocol: /^https?$/ }).max(2048).optional().meta({ description: 'Receives this order\'s events' }),
    inputs: z.record(z.string().max(64), InputValue).default({}).meta({ description: 'Service inputs (catalogue `inputs`)' }),
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
        resource: z.string().meta({ description: 'x402 resource of this order: POST it with an x402 client (PAYMENT-SIGNATURE)' }),
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
        event: z.enum(['sla_escalated', 'engineer_claimed', 'deliverable_uploaded']).optional().meta({ description: 'Progress within the status (expert delivery, issue 6)' }),
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
      .object({ rail: PaymentRailSchema, transaction_id: z.string(), amount: Usd('Paid'), paid_at: Time('Payment time') })
      .nullable(),
    payment_options: PaymentOptions.nullable().meta({ description: 'Present while the order awaits payment' }),
    payment_deadline: Time('Unpaid orders expire then'),
    deliverables: z.array(Deliverable),
    review: z.object({ action: z.enum(['accept', 'reject']), reason: z.string().optional(), automatic: z.boolean(), at: z.string() }).nullable(),
    refund: z
      .object({ status: z.enum(['completed', 'due']), rail: PaymentRailSchema, amount: Usd('Refunded'), amount_micros: Micros('Refunded').optional(), transaction_id: z.string().optional(), reason: z.string(), at: z.string() })
      .nullable(),
    failure: z.string().nullable(),
    links: z.object({ self: z.string(), verification: z.string(), review: z.string(), confirm_payment: z.string() }),
    created_at: Time('Creation time'),
    updated_at: Time('Last change'),
    engineering: EngineeringView.optional().meta({ description: 'Expert-delivery orders from in_engineering on (issue 6)' }),
    subscription: SubscriptionView.nullable().optional().meta({ description: 'Monthly services: the subscription (null until delivery)' }),
    tasks: z.object({ submit_url: z.string(), price: z.number(), items: z.array(z.object({ task: z.number().int(), status: z.string(), url: z.string() })) }).optional().meta({ description: 'Per-task services: further tasks' }),
    receipt: OrderReceipt.nullable()
      .optional()
      .meta({
        description:
          'GET /api/v1/orders/{order_id} only: the signed delivery receipt once the order is delivered (also when accepted or rejected later), null before. The same receipt on every read until its expires_at',
      }),
    webhook: WebhookEndpoint.optional().meta({ description: "Only in the creation response of an order with webhook_url: its endpoint, signing secret and management token (shown once)" }),
    order_secret: z
      .string()
      .optional()
      .meta({
        description:
          'Only in the creation response of an order without agent_id, shown once: the buyer\'s credential (`Authorization: Bearer os_...`) for every action that changes the order (review, cancel, subscription, x402 payment)',
      }),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

/** Body of `POST /api/v1/orders/{order_id}/confirm_payment` (seed §2.4 plus an explicit rail). */
export const ConfirmPaymentRequest = z
  .object({
    transaction_id: z.string().min(1).max(256).optional().meta({ description: 'Provider transaction id (linkpay_ncp: lp_...)' }),
    rail: PaymentRailSchema.optional().meta({
      description: 'Rail paid on. Default: linkpay_ncp when transaction_id starts with lp_, x402_usdc when it is a 0x hash, agent_wallet otherwise',
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

/** Wallet (seed §2.9). */
export const Wallet = z
  .object({
    agent_id: z.string(),
    balance: Usd('Balance'),
    balance_micros: Micros('Balance'),
    currency: z.string(),
    agent_key: z.string().optional().meta({ description: 'Shown once, when this request created the wallet. Send as `Authorization: Bearer` to read or spend it' }),
    transactions: z.array(
      z.object({
        id: z.string(),
        type: z.enum(['credit', 'debit']),
        amount: Usd('Amount'),
        amount_micros: Micros('Amount'),
        balance_after_micros: Micros('Balance after'),
        memo: z.string(),
        source: z.string(),
        at: z.string(),
      }),
    ),
    created_at: z.string(),
  })
  .meta({ id: 'Wallet' });

/** Body of `POST /api/v1/wallets/{agent_id}/credits` (operators). */
/** Answer of `GET /api/v1/orders/{order_id}/events`: the order's events, numbered by `seq`. */
export const OrderEvents = z
  .object({
    order_id: z.string(),
    events: z.array(z.object({ id: z.string(), seq: z.number().int(), type: z.string(), data: z.unknown(), timestamp: z.string() })),
  })
  .meta({ id: 'OrderEvents' });

/** Answer of `POST /api/v1/wallets/{agent_id}/credits` (amounts in USD and integer micro-units). */
export const WalletCredit = z
  .object({
    agent_key: z.string().optional().meta({ description: 'Issued when the wallet had no key: hand it to its owner out of band (shown once)' }),
    transaction: z.object({ id: z.string(), type: z.string(), amount: z.number(), amount_micros: z.number().int(), memo: z.string().optional(), at: z.string() }),
    balance: z.number(),
    balance_micros: z.number().int(),
  })
  .meta({ id: 'WalletCredit' });

/** Answer of `POST /api/v1/wallets/{agent_id}/key`: the new agent key, shown once. */
export const WalletKey = z.object({ agent_id: z.string(), agent_key: z.string() }).meta({ id: 'WalletKey' });

export const WalletCreditRequest = z
  .object({
    amount: z
      .number()
      .positive()
      .max(1_000_000)
      .refine(isUsdAmount, 'has more than 6 decimals (the smallest amount is 0.000001 USD)')
      .meta({ description: 'USD, at most 6 decimals (more are refused, not rounded)' }),
    transaction_id: Id('Idempotency of the credit: a second credit with this id is not applied'),
    memo: z.string().max(200).default('Operator credit'),
  })
  .strict()
  .meta({ id: 'WalletCreditRequest' });

/** Path parameter shapes. */
export const OrderIdParam = z.string().regex(/^ord_[A-Za-z0-9_-]{22,64}$/, 'not an order id');
export const AgentIdParam = Id('Agent id');
