/**
 * UCP, business side (issue 37 §2): the profile at `/.well-known/ucp` and the checkout capability over REST
 * (`/checkout-sessions`), as operation definitions (src/routes/operation.ts). Shapes follow
 * ../shared/reference/protocols/ucp-main-2026-08-22/source/services/shopping/rest.openapi.json and
 * source/schemas/shopping/checkout.json (the tests validate every message against those schemas); what this service
 * reads and departs from (one service per session, its inputs in `service_inputs`) is in docs/agent-checkouts.md.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';

/** UCP's protocol error on the REST transport (overview, "Error Handling"). */
export const UcpError = z
  .object({
    code: z.string().meta({ description: 'signature_invalid, profile_unreachable, idempotency_key_reused, ...' }),
    content: z.string(),
  })
  .meta({ id: 'UcpError' });

/** The request headers of UCP's REST binding this service reads (the platform middleware checks them). */
export const UcpHeaders = z.object({
  'UCP-Agent': z
    .string()
    .max(2_048)
    .optional()
    .meta({ description: 'profile="https://platform.example/…" (required)' }),
  'Idempotency-Key': z.string().max(255).optional().meta({ description: 'Required on POST and PUT; kept 24 h' }),
  'Content-Digest': z.string().max(512).optional().meta({ description: 'RFC 9530 sha-256 of the body' }),
  'Signature-Input': z.string().max(4_096).optional().meta({ description: 'RFC 9421; keyid a kid of the profile' }),
  Signature: z.string().max(4_096).optional().meta({ description: 'RFC 9421 signature' }),
});

/** The UCP error answers of a checkout operation (an order operation: without 404), by status. */
function ucpErrors({ notFound = true } = {}): Record<`4${string}` | `5${string}`, ResponseSpec> {
  const e = (description: string): ResponseSpec => ({ description, json: UcpError });
  return {
    '400': e('Malformed request, invalid_profile_url, digest_mismatch or algorithm_unsupported'),
    '401': e('signature_missing, signature_invalid (also a stale created) or key_not_found'),
    ...(notFound ? { '404': e('No checkout session of this platform by that id') } : {}),
    '409': e('Idempotency-Key reused with another body (idempotency_key_reused), in flight, or the session is closed'),
    '413': e('Request body too large'),
    '415': e('The body is not JSON'),
    '422': e(
      'profile_malformed, version_unsupported, the payment instrument does not pay this session, or (AP2) ' +
        'mandate_required, mandate_invalid_signature, mandate_expired, mandate_scope_mismatch, agent_missing_key, ' +
        'merchant_authorization_invalid, merchant_authorization_missing',
    ),
    '424': e('profile_unreachable: the platform profile could not be fetched'),
    '429': e('Rate limited'),
    '500': e('Unexpected error'),
    '503': e('A dependency is unavailable: retry after Retry-After seconds'),
  };
}

const Key = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/** A line item as requested (`line_item.json`, create/update direction). */
const LineItemRequest = z.looseObject({
  id: z.string().max(128).optional(),
  item: z.looseObject({ id: z.string().min(1).max(128).meta({ description: 'Catalogue service id' }) }),
  quantity: z.number().int().min(1).max(1000),
});

const Buyer = z.looseObject({
  email: z.email().max(320).optional(),
  first_name: z.string().max(200).optional(),
  last_name: z.string().max(200).optional(),
  phone_number: z.string().max(64).optional(),
});

/** A payment instrument as a platform sends it (`payment_instrument.json`). */
export const UcpInstrument = z.looseObject({
  id: z.string().max(128),
  handler_id: z.string().max(64).meta({ description: 'agent_wallet or hosted_link' }),
  type: z.string().max(64),
  selected: z.boolean().optional(),
  credential: z
    .looseObject({
      type: z.string().max(64),
      token: z.string().max(512).optional().meta({ description: 'agent_wallet: the delegated token (vt_...)' }),
    })
    .optional(),
});

const Payment = z.looseObject({ instruments: z.array(UcpInstrument).max(10).optional() });

/** Create and update (a full replacement in UCP) of a checkout. */
export const UcpCheckoutBody = z.looseObject({
  line_items: z.array(LineItemRequest).min(1).max(1).meta({ description: 'One catalogue service per session' }),
  buyer: Buyer.optional(),
  payment: Payment.optional(),
  service_inputs: z
    .record(Key, InputValue)
    .optional()
    .meta({ description: "This service's extension: the service's inputs (seed §2.1), by name" }),
});

/** Complete: the selected instrument (and, with the AP2 extension, the checkout mandate). */
export const UcpCompleteBody = z.looseObject({
  payment: z.looseObject({ instruments: z.array(UcpInstrument).min(1).max(10) }),
  ap2: z
    .looseObject({ checkout_mandate: z.string().max(65_536).meta({ description: 'SD-JWT+KB (AP2 checkout mandate)' }) })
    .optional()
    .meta({ description: 'Required when dev.ucp.shopping.ap2_mandate was negotiated' }),
});

const Total = z.looseObject({ type: z.string(), amount: z.number().int(), display_text: z.string().optional() });
const Message = z.looseObject({
  type: z.enum(['error', 'warning', 'info']),
  code: z.string(),
  content: z.string(),
  path: z.string().optional(),
  severity: z.string().optional(),
});

/** `checkout.json` as this service answers it. */
export const UcpCheckout = z
  .looseObject({
    ucp: z.looseObject({
      version: z.string(),
      status: z.enum(['success', 'error']),
      capabilities: z.record(z.string(), z.array(z.looseObject({ version: z.string() }))),
      payment_handlers: z.record(z.string(), z.array(z.looseObject({ id: z.string(), version: z.string() }))),
    }),
    id: z.string(),
    status: z.enum([
      'incomplete',
      'requires_escalation',
      'ready_for_complete',
      'complete_in_progress',
      'completed',
      'canceled',
    ]),
    currency: z.string(),
    line_items: z.array(
      z.looseObject({
        id: z.string(),
        item: z.looseObject({ id: z.string(), title: z.string(), price: z.number().int() }),
        quantity: z.number().int(),
        totals: z.array(Total),
      }),
    ),
    totals: z.array(Total),
    links: z.array(z.looseObject({ type: z.string(), url: z.string() })),
    messages: z.array(Message).optional(),
    buyer: z.record(z.string(), z.unknown()).optional(),
    expires_at: z.string(),
    continue_url: z.string().optional(),
    order: z.looseObject({ id: z.string(), permalink_url: z.string() }).optional(),
    service_inputs: z.record(z.string(), z.unknown()),
    ap2: z.looseObject({ merchant_authorization: z.string() }).optional(),
  })
  .meta({ id: 'UcpCheckout' });

/** `error_response.json`: a business outcome with no checkout (an item that is not for sale, no shared capability). */
export const UcpErrorResponse = z
  .object({
    ucp: z.looseObject({ version: z.string(), status: z.literal('error') }),
    messages: z.array(Message).min(1),
    continue_url: z.string().optional(),
  })
  .meta({ id: 'UcpErrorResponse' });

/** A UCP tool's result (mcp.openrpc.json `checkout_result`): a checkout, or a business outcome without one. */
const UcpResult = z.union([UcpCheckout, UcpErrorResponse]);

const SessionPath = z.object({ id: z.string().min(1).max(128).meta({ description: 'Checkout session id (cs_...)' }) });
const OrderPath = z.object({ id: z.string().min(1).max(128).meta({ description: 'Order id (ord_...)' }) });

/** `order.json` as this service answers it: a current-state snapshot (src/webhooks/ucp.ts `ucpOrderEntity`). */
export const UcpOrder = z
  .looseObject({
    ucp: z.looseObject({
      version: z.string(),
      status: z.literal('success'),
      capabilities: z.record(z.string(), z.array(z.looseObject({ version: z.string() }))),
    }),
    id: z.string(),
    checkout_id: z.string(),
    permalink_url: z.string(),
    currency: z.string(),
    line_items: z.array(
      z.looseObject({
        id: z.string(),
        item: z.looseObject({ id: z.string(), title: z.string(), price: z.number().int() }),
        quantity: z.looseObject({ total: z.number().int(), fulfilled: z.number().int() }),
        totals: z.array(Total),
        status: z.enum(['processing', 'fulfilled', 'removed']),
      }),
    ),
    fulfillment: z.looseObject({ events: z.array(z.looseObject({ id: z.string(), type: z.string() })) }),
    totals: z.array(Total),
  })
  .meta({ id: 'UcpOrder' });

/** Get Order's answer: the order, or `error_response` `not_found` (also for another platform's order). */
const UcpOrderResult = z.union([UcpOrder, UcpErrorResponse]);

/** The business profile (profile.json `business_schema`). */
export const UcpProfile = z
  .looseObject({
    ucp: z.looseObject({
      version: z.string(),
      services: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
      capabilities: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
      payment_handlers: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
    }),
    keys: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'UcpProfile' });

/** The UCP operations. */
export const ucpOperations = {
  profile: defineOperation({
    id: 'ucpProfile',
    method: 'get',
    path: '/.well-known/ucp',
    summary: 'UCP business profile: version, services (REST), capabilities, payment handlers and signing keys',
    auth: 'none',
    responses: { '200': { description: 'The profile (profile.json business_schema)', json: UcpProfile } },
  }),
  create: defineOperation({
    id: 'ucpCreateCheckout',
    method: 'post',
    path: '/checkout-sessions',
    summary: 'UCP: open a checkout session over one catalogue service, priced by a binding quote',
    auth: 'ucp_platform',
    request: { headers: UcpHeaders, body: UcpCheckoutBody },
    responses: {
      '200': {
        description: 'No checkout created: item_unavailable, or capabilities_incompatible (a business outcome)',
        json: UcpErrorResponse,
      },
      '201': { description: 'Created', json: UcpCheckout },
      ...ucpErrors(),
    },
    mcp: {
      name: 'create_checkout',
      title: 'UCP: create a checkout',
      description:
        'UCP shopping service (MCP binding) create_checkout: checkout = line_items (one catalogue service), buyer, service_inputs. Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Errors are JSON-RPC errors with UCP\'s {code, content} as data.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      binding: 'ucp',
      output: UcpResult,
    },
  }),
  get: defineOperation({
    id: 'ucpGetCheckout',
    method: 'get',
    path: '/checkout-sessions/{id}',
    summary: 'UCP: the checkout session',
    auth: 'ucp_platform',
    request: { params: SessionPath, headers: UcpHeaders },
    responses: { '200': { description: 'Current checkout', json: UcpCheckout }, ...ucpErrors() },
    mcp: {
      name: 'get_checkout',
      title: 'UCP: get a checkout',
      description:
        'UCP shopping service (MCP binding) get_checkout. Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Errors are JSON-RPC errors with UCP\'s {code, content} as data.',
      annotations: { readOnlyHint: true, openWorldHint: false },
      binding: 'ucp',
      output: UcpResult,
    },
  }),
  update: defineOperation({
    id: 'ucpUpdateCheckout',
    method: 'put',
    path: '/checkout-sessions/{id}',
    summary: "UCP: replace the session's line item, buyer or the service's inputs",
    auth: 'ucp_platform',
    request: { params: SessionPath, headers: UcpHeaders, body: UcpCheckoutBody },
    responses: { '200': { description: 'Updated checkout', json: UcpCheckout }, ...ucpErrors() },
    mcp: {
      name: 'update_checkout',
      title: 'UCP: update a checkout',
      description:
        'UCP shopping service (MCP binding) update_checkout: a full replacement (line_items, buyer, service_inputs). Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Errors are JSON-RPC errors with UCP\'s {code, content} as data.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      binding: 'ucp',
      output: UcpResult,
    },
  }),
  complete: defineOperation({
    id: 'ucpCompleteCheckout',
    method: 'post',
    path: '/checkout-sessions/{id}/complete',
    summary: "UCP: place the session's order and pay it (agent_wallet), or hand the buyer the hosted page",
    auth: 'ucp_platform',
    request: { params: SessionPath, headers: UcpHeaders, body: UcpCompleteBody },
    responses: {
      '200': {
        description: 'completed, requires_escalation (continue_url), or incomplete with messages; signed (RFC 9421)',
        json: UcpCheckout,
      },
      ...ucpErrors(),
      '402': { description: 'The wallet is short (insufficient_funds) or the payment failed', json: UcpError },
      '410': { description: "The order's workflow history is gone (order_gone)", json: UcpError },
    },
    mcp: {
      name: 'complete_checkout',
      title: 'UCP: complete a checkout',
      description:
        'UCP shopping service (MCP binding) complete_checkout: checkout.payment.instruments (agent_wallet with a delegated token, or hosted_link); meta idempotency-key required. Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Errors are JSON-RPC errors with UCP\'s {code, content} as data.',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      binding: 'ucp',
      output: UcpResult,
    },
  }),
  getOrder: defineOperation({
    id: 'ucpGetOrder',
    method: 'get',
    path: '/orders/{id}',
    summary: "UCP Get Order: the current state of an order one of this platform's checkouts placed (order.json)",
    auth: 'ucp_platform',
    request: { params: OrderPath, headers: UcpHeaders },
    responses: {
      '200': {
        description:
          "The order (order.json), or error_response not_found: unknown, or placed through another platform's checkout",
        json: UcpOrderResult,
      },
      ...ucpErrors({ notFound: false }),
    },
    mcp: {
      name: 'get_order',
      title: 'UCP: get an order',
      description:
        'UCP order capability (MCP binding) get_order: the current-state snapshot of an order this platform\'s checkout placed (id = checkout.order.id). Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Check messages first: an unknown order, or another platform\'s, is error_response not_found.',
      annotations: { readOnlyHint: true, openWorldHint: false },
      binding: 'ucp',
      output: UcpOrderResult,
    },
  }),
  cancel: defineOperation({
    id: 'ucpCancelCheckout',
    method: 'post',
    path: '/checkout-sessions/{id}/cancel',
    summary: 'UCP: cancel a session that complete has not started',
    auth: 'ucp_platform',
    request: { params: SessionPath, headers: UcpHeaders, body: z.looseObject({}) },
    responses: {
      '200': { description: 'Canceled checkout', json: UcpCheckout },
      ...ucpErrors(),
      '405': { description: 'Not cancelable: completed, being completed or already canceled', json: UcpError },
    },
    mcp: {
      name: 'cancel_checkout',
      title: 'UCP: cancel a checkout',
      description:
        'UCP shopping service (MCP binding) cancel_checkout; meta idempotency-key required. Sign the MCP request (RFC 9421, UCP-Agent and Content-Digest headers) with a key of the profile meta["ucp-agent"].profile names. Errors are JSON-RPC errors with UCP\'s {code, content} as data.',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      binding: 'ucp',
      output: UcpResult,
    },
  }),
};
