/**
 * ACP 2026-04-17, merchant side (issue 37 §1): checkout sessions over catalogue services, the delegated payment of an
 * agent wallet, the platforms' API keys and the discovery document. Schemas and operation definitions
 * (src/routes/operation.ts). Request and answer shapes follow
 * ../shared/reference/protocols/acp-2026-04-17/spec/2026-04-17/openapi/openapi.agentic_checkout.yaml and
 * openapi.delegate_payment.yaml; where this service departs (a line item's `quantity`, the service's inputs in
 * `metadata.inputs`, a wallet instead of a card) docs/agent-checkouts.md says so.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';

/** ACP's protocol-level error (`Error`): what every ACP operation answers instead of problem details. */
export const AcpError = z
  .object({
    type: z.enum(['invalid_request', 'processing_error', 'service_unavailable']),
    code: z.string(),
    message: z.string(),
    param: z.string().optional().meta({ description: 'RFC 9535 JSONPath of the offending input (or a header name)' }),
  })
  .meta({ id: 'AcpError' });

/** ACP's request headers beside `Authorization` (which the policies read too). */
export const AcpHeaders = z.object({
  Authorization: z.string().optional().meta({ description: 'Bearer <ACP platform API key> (acp_...)' }),
  'API-Version': z.string().optional().meta({ description: 'ACP version; required, only 2026-04-17 is served' }),
  'Idempotency-Key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Required on every POST (ACP); a retry answers as the first request did' }),
  Signature: z.string().max(512).optional().meta({
    description:
      'Required when the platform registered a key: base64url signature over `<Timestamp>.<RFC 8785 JSON of the body>`',
  }),
  Timestamp: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'RFC 3339; required with Signature, within 300 s of the server clock' }),
});

/** The ACP error answers of an operation, by status. */
function acpErrors(): Record<`4${string}` | `5${string}`, ResponseSpec> {
  const e = (description: string): ResponseSpec => ({ description, json: AcpError });
  return {
    '400': e('Malformed request, a missing or unsupported API-Version, a missing Idempotency-Key'),
    '401': e('No platform API key, or a missing, stale or failing Signature (invalid_signature)'),
    '403': e('Not a platform API key'),
    '404': e('No such checkout session of this platform'),
    '409': e('In flight (idempotency_in_flight), or the session cannot take this operation'),
    '413': e('Request body too large'),
    '415': e('The body is not JSON'),
    '422': e('Idempotency-Key reused with another body, or the payment token does not pay this session'),
    '429': e('Rate limited'),
    '500': e('Processing error'),
    '503': e('A dependency is unavailable: retry after Retry-After seconds'),
  };
}

/** A line item as requested: a catalogue service id (GET /api/v1/services) and, beyond the schema, `quantity`. */
export const AcpItem = z.object({
  id: z.string().min(1).max(128).meta({ description: 'Catalogue service id (automation-wf, ...)' }),
  name: z.string().max(500).optional(),
  unit_amount: z.number().int().optional().meta({ description: 'Ignored: the quote prices the item' }),
  quantity: z.number().int().min(1).max(1000).optional().meta({
    description: 'Units (default 1; not in the 2026-04-17 schema). One session buys one unit: more is a message',
  }),
});

/** The buyer (ACP `Buyer`). */
export const AcpBuyer = z.object({
  email: z.email().max(320),
  first_name: z.string().max(200).optional(),
  last_name: z.string().max(200).optional(),
  full_name: z.string().max(400).optional(),
  phone_number: z.string().max(64).optional(),
});

/** `Buyer` as requested: `tax_exemption` is accepted only to be answered `unsupported` (./unsupported.ts). */
export const AcpRequestBuyer = AcpBuyer.extend({
  tax_exemption: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'Not supported: answered with an `unsupported` message (no tax is charged)' }),
});

/** Request fields of ACP that this service does not offer: accepted, each answered by a `messages[]` error. */
const Unsupported = {
  fulfillment_details: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'Not supported (nothing ships): answered with an `unsupported` message' }),
  fulfillment_groups: z
    .array(z.unknown())
    .max(100)
    .optional()
    .meta({ description: 'Not supported: answered with an `unsupported` message' }),
  discounts: z
    .object({ codes: z.array(z.string().max(256)).max(20).optional() })
    .optional()
    .meta({ description: 'No discounts are offered: each code is answered with a `coupon_invalid` message' }),
  coupons: z
    .array(z.string().max(256))
    .max(20)
    .optional()
    .meta({ description: 'Deprecated by ACP for discounts.codes; each is answered with a `coupon_invalid` message' }),
};

/** A metadata or input name: plain, so it is a safe field name in the database. */
const Key = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);
const Metadata = z
  .record(Key, z.union([z.string().max(2_000), z.number(), z.boolean(), z.null(), z.record(Key, InputValue)]))
  .optional()
  .meta({ description: "Merchant metadata, flat; `inputs` (an object) carries the service's inputs (seed §2.1)" });

/** `CheckoutSessionCreateRequest` (the fields this service reads; the rest are accepted and ignored). */
export const CreateSessionBody = z.object({
  line_items: z.array(AcpItem).min(1).max(1).meta({ description: 'One catalogue service per session' }),
  currency: z.string().min(3).max(3).meta({ description: 'usd' }),
  capabilities: z.record(z.string(), z.unknown()),
  buyer: AcpRequestBuyer.optional(),
  metadata: Metadata,
  ...Unsupported,
  locale: z.string().max(35).optional(),
  timezone: z.string().max(64).optional(),
});

/** `CheckoutSessionUpdateRequest`, plus `metadata` (the service's inputs). */
export const UpdateSessionBody = z.object({
  line_items: z.array(AcpItem).min(1).max(1).optional(),
  buyer: AcpRequestBuyer.optional(),
  metadata: Metadata,
  ...Unsupported,
  selected_fulfillment_options: z
    .array(z.unknown())
    .max(100)
    .optional()
    .meta({ description: 'Not supported (fulfillment_options is empty): answered with an `unsupported` message' }),
});

/** `CheckoutSessionCompleteRequest`: the handler and its credential. */
export const CompleteSessionBody = z.object({
  payment_data: z.object({
    handler_id: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'agent_wallet, x402, card_tokenized (with a card processor) or hosted_link' }),
    instrument: z
      .object({
        type: z.string().max(64),
        credential: z.object({
          type: z.string().max(64),
          token: z.string().max(16_384).meta({
            description:
              'agent_wallet: the delegated-payment token (vt_...); x402: base64 of the signed x402 PaymentPayload',
          }),
        }),
      })
      .optional(),
  }),
  buyer: AcpRequestBuyer.optional(),
});

/** `CancelSessionRequest`. */
export const CancelSessionBody = z.object({ intent_trace: z.record(z.string(), z.unknown()).optional() });

const Total = z.object({
  type: z.enum(['items_base_amount', 'subtotal', 'total']),
  display_text: z.string(),
  amount: z.number().int(),
});

const PaymentHandler = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  version: z.string(),
  spec: z.string(),
  requires_delegate_payment: z.boolean(),
  requires_pci_compliance: z.boolean(),
  psp: z.string(),
  config_schema: z.string(),
  instrument_schemas: z.array(z.string()),
  config: z.record(z.string(), z.unknown()),
});

/** ACP `Order` as a session carries it. */
export const AcpOrder = z.object({
  type: z.literal('order'),
  id: z.string(),
  checkout_session_id: z.string(),
  permalink_url: z.string(),
  status: z.string(),
});

/** ACP `CheckoutSession` as this service answers it. */
export const AcpCheckoutSession = z
  .object({
    id: z.string(),
    protocol: z.object({ version: z.string() }),
    capabilities: z.object({ payment: z.object({ handlers: z.array(PaymentHandler) }) }),
    buyer: AcpBuyer.optional(),
    status: z.enum([
      'not_ready_for_payment',
      'ready_for_payment',
      'requires_escalation',
      'complete_in_progress',
      'completed',
      'canceled',
      'expired',
    ]),
    currency: z.string(),
    line_items: z.array(
      z.object({
        id: z.string(),
        item: z.object({ id: z.string(), name: z.string(), unit_amount: z.number().int() }),
        quantity: z.number().int(),
        name: z.string(),
        description: z.string(),
        unit_amount: z.number().int(),
        product_id: z.string(),
        totals: z.array(Total),
      }),
    ),
    totals: z.array(Total),
    fulfillment_options: z.array(z.unknown()),
    messages: z.array(
      z.union([
        z.object({
          type: z.literal('error'),
          code: z.enum(['missing', 'quantity_exceeded', 'unsupported', 'coupon_invalid']),
          severity: z.enum(['high', 'low']),
          resolution: z.enum(['requires_buyer_input', 'recoverable']),
          param: z.string(),
          content_type: z.literal('plain'),
          content: z.string(),
        }),
        // How a monthly service is billed (its first month is the session's payment).
        z.object({ type: z.literal('info'), param: z.string(), content_type: z.literal('plain'), content: z.string() }),
      ]),
    ),
    links: z.array(z.object({ type: z.literal('support'), title: z.string(), url: z.string() })),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string(),
    continue_url: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()),
    quote_id: z.string(),
    quote_expires_at: z.string(),
    order: AcpOrder.optional(),
  })
  .meta({ id: 'AcpCheckoutSession' });

const SessionPath = z.object({
  checkout_session_id: z.string().min(1).max(128).meta({ description: 'Checkout session id (cs_...)' }),
});

/** `Allowance` of a delegated payment. */
export const AllowanceSchema = z.object({
  reason: z.literal('one_time'),
  max_amount: z.number().int().min(1).max(100_000_000).meta({ description: 'Minor units (cents)' }),
  currency: z.string().regex(/^[a-z]{3}$/),
  checkout_session_id: z.string().min(1).max(128),
  merchant_id: z.string().max(256),
  expires_at: z.iso.datetime({ offset: true }),
});

/** `DelegatePaymentRequest`, for an agent wallet: no card (`payment_method`, when sent, must be the wallet). */
export const DelegatePaymentBody = z.object({
  payment_method: z
    .object({ type: z.literal('agent_wallet') })
    .optional()
    .meta({ description: 'Omit, or {type: agent_wallet}: the wallet of the agent key sent; cards are not taken' }),
  allowance: AllowanceSchema,
  risk_signals: z.array(z.record(z.string(), z.unknown())).max(20).optional(),
  metadata: z.record(Key, z.string().max(500)).optional(),
});

/** A public JWK (the members node:crypto reads; private members are refused). */
const PublicJwk = z
  .object({
    kty: z.enum(['OKP', 'EC']),
    crv: z.enum(['Ed25519', 'P-256']),
    x: z.string().max(128),
    y: z.string().max(128).optional(),
    kid: z.string().max(128).optional(),
  })
  .strict();

/** `POST /api/v1/acp/platforms`: the platform's name, and optionally its request-signing key and its webhook. */
export const CreatePlatformBody = z.object({
  name: z.string().trim().min(1).max(200),
  request_signing: z
    .discriminatedUnion('alg', [
      z.object({
        alg: z.literal('HS256'),
        secret: z.string().min(32).max(512).meta({ description: 'Shared HMAC-SHA256 secret (at least 32 characters)' }),
      }),
      z.object({ alg: z.enum(['EdDSA', 'ES256']), jwk: PublicJwk }),
    ])
    .optional()
    .meta({
      description:
        'With a key, every ACP request of this platform must carry Signature (base64url) over `<Timestamp>.<RFC 8785 JSON of the body>` and Timestamp (RFC 3339, within 300 s)',
    }),
  webhook: z
    .object({
      url: z.url().max(2_000),
      secret: z.string().min(32).max(512).optional().meta({ description: 'HMAC secret; generated when omitted' }),
    })
    .optional()
    .meta({ description: 'Receiver of order_create / order_update events, signed with Merchant-Signature' }),
});

/** Feed `Price` (schema.feed.json): minor units. */
const FeedPrice = z.object({ amount: z.number().int().min(0), currency: z.string().regex(/^[A-Z]{3}$/) });

/** Feed `Product` as this service publishes it: one `Variant` per product, its id the checkout item id. */
export const FeedProductSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.object({ plain: z.string() }).optional(),
    variants: z.array(
      z.object({
        id: z.string().meta({ description: 'The catalogue service id: the `line_items[].id` of a checkout session' }),
        title: z.string(),
        description: z.object({ plain: z.string() }).optional(),
        url: z.string().optional(),
        price: FeedPrice.meta({ description: 'The agent price a session quotes (USD cents); the quote binds' }),
        list_price: FeedPrice.optional(),
        availability: z.object({ available: z.boolean(), status: z.string() }),
        categories: z.array(z.object({ value: z.string(), taxonomy: z.string() })),
        condition: z.array(z.string()),
        variant_options: z.array(z.object({ name: z.string(), value: z.string() })),
        seller: z.object({
          name: z.string(),
          links: z.array(z.object({ type: z.string(), title: z.string(), url: z.string() })),
        }),
      }),
    ),
  })
  .meta({ id: 'AcpFeedProduct' });

/** `POST /api/v1/acp/platforms/{platform_id}/feed`: where the platform's agent-hosted Feed API is. */
export const PushFeedBody = z.object({
  url: z.url().max(2_000).optional().meta({
    description:
      "Base URL of the platform's Feed API (…/feeds is appended); kept for the next push; required the first time",
  }),
  api_key: z
    .string()
    .min(1)
    .max(1_000)
    .optional()
    .meta({ description: 'Bearer credential the platform gave for its Feed API; kept (never shown again)' }),
  target_country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional()
    .meta({ description: 'ISO 3166-1 alpha-2 market of a new feed (default US)' }),
});

const PlatformPath = z.object({
  platform_id: z.string().min(1).max(128).meta({ description: 'ACP platform id (acpp_...)' }),
});

/** The ACP operations. */
export const checkoutOperations = {
  create: defineOperation({
    id: 'createCheckoutSession',
    method: 'post',
    path: '/checkout_sessions',
    summary: 'ACP: open a checkout session over one catalogue service, priced by a binding quote',
    auth: 'platform',
    request: { headers: AcpHeaders, body: CreateSessionBody },
    responses: { '201': { description: 'Created', json: AcpCheckoutSession }, ...acpErrors() },
    mcp: {
      name: 'create_checkout_session',
      title: 'ACP: create a checkout session',
      description:
        "ACP 2026-04-17 MCP binding of POST /checkout_sessions: meta {api_version, idempotency_key?, signature?, timestamp?}, payload = CheckoutSessionCreateRequest (line_items: one catalogue service id; metadata.inputs: the service's inputs). Authorization: the MCP request's Bearer ACP platform key. Errors are JSON-RPC -32000 with the ACP Error as data.",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      binding: 'acp',
    },
  }),
  get: defineOperation({
    id: 'getCheckoutSession',
    method: 'get',
    path: '/checkout_sessions/{checkout_session_id}',
    summary: 'ACP: the checkout session',
    auth: 'platform',
    request: { params: SessionPath, headers: AcpHeaders },
    responses: { '200': { description: 'Current session', json: AcpCheckoutSession }, ...acpErrors() },
    mcp: {
      name: 'get_checkout_session',
      title: 'ACP: get a checkout session',
      description: "ACP 2026-04-17 MCP binding of GET /checkout_sessions/{id}: the session's authoritative state.",
      annotations: { readOnlyHint: true, openWorldHint: false },
      binding: 'acp',
    },
  }),
  update: defineOperation({
    id: 'updateCheckoutSession',
    method: 'post',
    path: '/checkout_sessions/{checkout_session_id}',
    summary: "ACP: change the session's item, buyer or the service's inputs (metadata.inputs)",
    auth: 'platform',
    request: { params: SessionPath, headers: AcpHeaders, body: UpdateSessionBody },
    responses: { '200': { description: 'Updated session', json: AcpCheckoutSession }, ...acpErrors() },
    mcp: {
      name: 'update_checkout_session',
      title: 'ACP: update a checkout session',
      description:
        'ACP 2026-04-17 MCP binding of POST /checkout_sessions/{id}: payload = CheckoutSessionUpdateRequest (item, buyer, metadata.inputs).',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      binding: 'acp',
    },
  }),
  complete: defineOperation({
    id: 'completeCheckoutSession',
    method: 'post',
    path: '/checkout_sessions/{checkout_session_id}/complete',
    summary: "ACP: create the session's order and pay it (agent_wallet token), or hand the buyer the hosted page",
    auth: 'platform',
    request: { params: SessionPath, headers: AcpHeaders, body: CompleteSessionBody },
    responses: {
      '200': {
        description: 'Completed (agent_wallet) or requires_escalation with continue_url (hosted_link); with the order',
        json: AcpCheckoutSession,
      },
      ...acpErrors(),
      '402': { description: 'The wallet is short (insufficient_funds) or the payment failed', json: AcpError },
      '410': { description: "The order's workflow history is gone (order_gone)", json: AcpError },
    },
    mcp: {
      name: 'complete_checkout_session',
      title: 'ACP: complete a checkout session',
      description:
        'ACP 2026-04-17 MCP binding of POST /checkout_sessions/{id}/complete: payload.payment_data {handler_id: agent_wallet (a delegated token), x402 or hosted_link}. Creates and pays the order; send meta.idempotency_key to retry safely.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      binding: 'acp',
    },
  }),
  cancel: defineOperation({
    id: 'cancelCheckoutSession',
    method: 'post',
    path: '/checkout_sessions/{checkout_session_id}/cancel',
    summary: 'ACP: cancel a session that complete has not started',
    auth: 'platform',
    request: { params: SessionPath, headers: AcpHeaders, body: CancelSessionBody },
    responses: {
      '200': { description: 'Canceled session', json: AcpCheckoutSession },
      ...acpErrors(),
      '405': { description: 'Not cancelable: completed, being completed or already canceled', json: AcpError },
    },
    mcp: {
      name: 'cancel_checkout_session',
      title: 'ACP: cancel a checkout session',
      description:
        'ACP 2026-04-17 MCP binding of POST /checkout_sessions/{id}/cancel (payload optional: intent_trace).',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      binding: 'acp',
    },
  }),
  delegatePayment: defineOperation({
    id: 'delegatePayment',
    method: 'post',
    path: '/agentic_commerce/delegate_payment',
    summary: "ACP delegated payment: a token that lets one checkout session charge the agent key's wallet once",
    auth: 'agent_key',
    request: { headers: AcpHeaders, body: DelegatePaymentBody },
    responses: {
      '201': {
        description: 'The token',
        json: z.object({ id: z.string(), created: z.string(), metadata: z.record(z.string(), z.string()) }),
      },
      ...acpErrors(),
    },
  }),
  createPlatform: defineOperation({
    id: 'createAcpPlatform',
    method: 'post',
    path: '/api/v1/acp/platforms',
    summary: 'Issue an agent platform its ACP API key (shown once)',
    auth: 'operator',
    request: { body: CreatePlatformBody },
    responses: {
      '201': {
        description: 'The platform, its API key and its webhook secret (both shown once)',
        json: z.object({
          id: z.string(),
          name: z.string(),
          api_key: z.string(),
          request_signing: z.object({ alg: z.enum(['HS256', 'EdDSA', 'ES256']) }).nullable(),
          webhook: z.object({ url: z.string(), secret: z.string() }).nullable(),
          created_at: z.string(),
        }),
      },
    },
  }),
  feedProducts: defineOperation({
    id: 'acpFeedProducts',
    method: 'get',
    path: '/acp/feed/products',
    summary: 'ACP product feed: every catalogue service as a feed Product (the shape of ProductsResponse)',
    description:
      "The catalogue in ACP's feed schema (openapi.feed.yaml `ProductsResponse`), for platforms that ingest a feed by URL and for the operator's offline upload (products.jsonl is one of these products per line). ACP's Feed API itself is hosted by the agent: POST /api/v1/acp/platforms/{platform_id}/feed pushes this feed there (decision 0039).",
    auth: 'none',
    responses: {
      '200': {
        description: 'The products, in catalogue order',
        json: z.object({ products: z.array(FeedProductSchema) }),
      },
    },
  }),
  pushFeed: defineOperation({
    id: 'pushAcpFeed',
    method: 'post',
    path: '/api/v1/acp/platforms/{platform_id}/feed',
    summary: "Push the product feed to the platform's Feed API (create the feed once, then upsert every product)",
    auth: 'operator',
    request: { params: PlatformPath, body: PushFeedBody },
    responses: {
      '200': {
        description: "The feed at the platform: its id, whether it was created now, and the platform's answer",
        json: z.object({
          platform_id: z.string(),
          url: z.string(),
          feed_id: z.string(),
          created: z.boolean(),
          accepted: z.boolean(),
          pushed: z.number().int(),
        }),
      },
    },
    errors: {
      acp_platform_not_found: 'No platform by that id',
      invalid_request: 'No Feed API URL given or kept for this platform',
      webhook_target_forbidden: 'The URL is not a public https address',
      feed_push_failed: "The platform's Feed API answered an error, no JSON, or timed out",
    },
  }),
  discovery: defineOperation({
    id: 'acpDiscovery',
    method: 'get',
    path: '/.well-known/acp.json',
    summary: 'ACP discovery: protocol version, API base URL, transports and services',
    auth: 'none',
    responses: {
      '200': {
        description: 'The discovery document (rfc.discovery.md)',
        json: z.object({
          protocol: z.object({
            name: z.literal('acp'),
            version: z.string(),
            supported_versions: z.array(z.string()),
            documentation_url: z.string(),
          }),
          api_base_url: z.string(),
          transports: z.array(z.enum(['rest', 'mcp'])),
          capabilities: z.object({
            services: z.array(z.enum(['checkout', 'delegate_payment'])),
            supported_currencies: z.array(z.string()),
          }),
        }),
      },
    },
  }),
};
