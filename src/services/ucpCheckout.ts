/**
 * UCP checkout sessions (issue 37 §2) on the same session documents and order engine as ACP's
 * (src/services/checkoutSessions.ts, decision 0030): a UCP session is a `CheckoutSessionDoc` whose `platform_id` is
 * `ucp:<profile URL>` and whose `ucp` field holds what negotiation found. This module holds what is UCP's own: the
 * capability negotiation, the business profile, the status and message mapping and the `checkout.json` view.
 *
 * Source: ../shared/reference/protocols/ucp-main-2026-08-22/docs/specification/overview/index.md (Profile Structure,
 * Intersection Algorithm, Capability Declaration in Responses), shopping/checkout/index.md (Status Values, Error
 * Handling), source/schemas/shopping/checkout.json.
 */
import type { CheckoutSessionDoc, OrderDoc } from '../db';
import { getService } from '../domain/catalogue';
import type { PlatformProfile } from '../ucp/profiles';
import { UCP_VERSION } from '../ucp/profiles';
import {
  acpStatus,
  billingNote,
  centsOfMicros,
  sessionMessages,
  sessionOrderSecret,
  sessionTotalCents,
} from './checkoutSessions';

export { UCP_VERSION } from '../ucp/profiles';

/** The root capability, the order capability and the AP2 extension this business offers. */
export const CHECKOUT_CAP = 'dev.ucp.shopping.checkout';
export const ORDER_CAP = 'dev.ucp.shopping.order';
export const AP2_CAP = 'dev.ucp.shopping.ap2_mandate';

/** The `platform_id` of a UCP platform's sessions. */
export const ucpPlatformId = (profileUrl: string): string => `ucp:${profileUrl}`;

/** What the platform and this business share (overview, "Intersection Algorithm"). */
export interface Negotiated {
  checkout: boolean;
  order: boolean;
  /** The AP2 mandate extension (needs the checkout capability, its parent). */
  ap2: boolean;
  /** The order webhook URL of the platform's `dev.ucp.shopping.order` `config.webhook_url`. */
  webhookUrl: string | null;
}

/** The capabilities `profile` and this business share at version {@link UCP_VERSION}, parents pruned first. */
export function negotiate(profile: PlatformProfile, offerAp2: boolean): Negotiated {
  const caps = profile.ucp.capabilities ?? {};
  const at = (name: string) => (caps[name] ?? []).find((c) => c.version === UCP_VERSION);
  const checkout = at(CHECKOUT_CAP) !== undefined;
  const order = at(ORDER_CAP);
  const hook = order?.config?.webhook_url;
  return {
    checkout,
    order: order !== undefined,
    ap2: offerAp2 && checkout && at(AP2_CAP) !== undefined,
    webhookUrl: typeof hook === 'string' ? hook : null,
  };
}

const specBase = `https://ucp.dev/${UCP_VERSION}`;

/** The payment handler registry (profile: business schema; responses: the same entries). */
export function paymentHandlers(baseUrl: string): Record<string, Record<string, unknown>[]> {
  const spec = `${baseUrl}/api/v1/openapi.json`;
  return {
    'dev.agent_commerce.agent_wallet': [
      {
        id: 'agent_wallet',
        version: UCP_VERSION,
        spec,
        available_instruments: [{ type: 'agent_wallet' }],
        config: {
          delegate_payment_url: `${baseUrl}/agentic_commerce/delegate_payment`,
          credential_type: 'delegated_token',
        },
      },
    ],
    'dev.agent_commerce.hosted_link': [
      {
        id: 'hosted_link',
        version: UCP_VERSION,
        spec,
        available_instruments: [{ type: 'hosted_link' }],
        config: { escalation: 'continue_url' },
      },
    ],
  };
}

/**
 * The business profile served at `/.well-known/ucp` (profile.json `business_schema`): the REST transport of
 * `dev.ucp.shopping` at `baseUrl` and its MCP transport at `baseUrl/ucp/mcp` (src/mcp/tools.ts `UCP_TOOLS`), the
 * checkout and order capabilities (and AP2 when `ap2`), the payment handlers and
 * `keys` (the public keys that sign quotes and receipts, as `use: sig`, `alg: EdDSA`).
 */
export function businessProfile(
  baseUrl: string,
  keys: readonly Record<string, unknown>[],
  ap2: boolean,
): Record<string, unknown> {
  const cap = (name: string, path: string, schema: string, extra: Record<string, unknown> = {}) => ({
    [name]: [{ version: UCP_VERSION, spec: `${specBase}/specification/${path}`, schema, ...extra }],
  });
  return {
    ucp: {
      version: UCP_VERSION,
      services: {
        'dev.ucp.shopping': [
          {
            version: UCP_VERSION,
            spec: `${specBase}/specification/overview/`,
            transport: 'rest',
            endpoint: baseUrl,
            schema: `${specBase}/services/shopping/rest.openapi.json`,
          },
          {
            version: UCP_VERSION,
            spec: `${specBase}/specification/overview/`,
            transport: 'mcp',
            endpoint: `${baseUrl}/ucp/mcp`,
            schema: `${specBase}/services/shopping/mcp.openrpc.json`,
          },
        ],
      },
      capabilities: {
        ...cap(CHECKOUT_CAP, 'shopping/checkout', `${specBase}/schemas/shopping/checkout.json`),
        ...cap(ORDER_CAP, 'shopping/order', `${specBase}/schemas/shopping/order.json`),
        ...(ap2
          ? cap(AP2_CAP, 'ap2-mandates', `${specBase}/schemas/shopping/ap2_mandate.json`, {
              extends: CHECKOUT_CAP,
              config: { vp_formats_supported: { 'dc+sd-jwt': {} } },
            })
          : {}),
      },
      payment_handlers: paymentHandlers(baseUrl),
    },
    keys: keys.map((k) => ({ ...k, use: 'sig', alg: 'EdDSA' })),
  };
}

/** UCP checkout status. */
export type UcpStatus =
  'incomplete' | 'requires_escalation' | 'ready_for_complete' | 'complete_in_progress' | 'completed' | 'canceled';

/** The UCP status of a session (an expired one is `canceled`: "session invalid or expired"). */
export function ucpStatus(doc: CheckoutSessionDoc, order: OrderDoc | null, now = new Date()): UcpStatus {
  switch (acpStatus(doc, order, now)) {
    case 'not_ready_for_payment':
      return 'incomplete';
    case 'ready_for_payment':
      return 'ready_for_complete';
    case 'requires_escalation':
      return 'requires_escalation';
    case 'complete_in_progress':
      return 'complete_in_progress';
    case 'completed':
      return 'completed';
    case 'canceled':
    case 'expired':
      return 'canceled';
  }
}

/** A `message_error.json` entry. */
export interface UcpMessage {
  type: 'error';
  code: string;
  path?: string;
  content: string;
  severity: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';
}

/** A `message_info.json` entry. */
export interface UcpInfoMessage {
  type: 'info';
  code: string;
  path: string;
  content: string;
}

/** What keeps an open session from `ready_for_complete`: each missing input at `$.service_inputs.<name>`. */
export function ucpMessages(doc: CheckoutSessionDoc): UcpMessage[] {
  return sessionMessages(doc).map((m) => ({
    type: 'error',
    code: m.code,
    path: m.param.replace('$.metadata.inputs.', '$.service_inputs.'),
    content: m.content,
    severity: 'recoverable',
  }));
}

/** The `checkout.json` view of a session; `order` is its order's read model once complete created it. */
export function ucpCheckoutView(
  doc: CheckoutSessionDoc,
  order: OrderDoc | null,
  baseUrl: string,
  extra: { messages?: UcpMessage[]; ap2?: { merchant_authorization: string } } = {},
): Record<string, unknown> & { id: string; status: UcpStatus } {
  const service = getService(doc.line.service_id);
  const unit = centsOfMicros(doc.unit_amount_micros);
  const total = sessionTotalCents(doc);
  const totals = [
    { type: 'subtotal', display_text: 'Subtotal', amount: total },
    { type: 'total', display_text: 'Total', amount: total },
  ];
  const status = ucpStatus(doc, order);
  const note = billingNote(doc.line.service_id);
  const messages: (UcpMessage | UcpInfoMessage)[] = [
    ...(doc.status === 'open' ? ucpMessages(doc) : []),
    ...(extra.messages ?? []),
    ...(note ? [{ type: 'info' as const, code: 'billing', path: '$.line_items[0]', content: note }] : []),
  ];
  if (status === 'requires_escalation')
    messages.push({
      type: 'error',
      code: 'payment_required',
      content: 'The buyer pays on the hosted page at continue_url',
      severity: 'requires_buyer_input',
    });
  return {
    ucp: {
      version: UCP_VERSION,
      status: 'success',
      capabilities: {
        [CHECKOUT_CAP]: [{ version: UCP_VERSION }],
        ...(doc.ucp?.ap2 ? { [AP2_CAP]: [{ version: UCP_VERSION }] } : {}),
      },
      payment_handlers: paymentHandlers(baseUrl),
    },
    id: doc._id,
    status,
    currency: doc.currency.toUpperCase(),
    line_items: [
      {
        id: `li_${doc.line.service_id}`,
        item: { id: doc.line.service_id, title: service?.name ?? doc.line.service_id, price: unit },
        quantity: doc.line.quantity,
        totals,
      },
    ],
    totals,
    links: [
      { type: 'terms_of_service', url: `${baseUrl}/api/v1/services/${doc.line.service_id}`, title: 'Service terms' },
    ],
    ...(messages.length > 0 ? { messages } : {}),
    ...(doc.buyer ? { buyer: doc.buyer } : {}),
    expires_at: doc.expires_at.toISOString(),
    ...(status === 'requires_escalation'
      ? { continue_url: `${baseUrl}/pay/orders/${doc.order_id}?secret=${encodeURIComponent(sessionOrderSecret(doc))}` }
      : {}),
    ...(status === 'completed' && order
      ? { order: { id: order._id, permalink_url: `${baseUrl}/api/v1/orders/${order._id}` } }
      : {}),
    service_inputs: doc.inputs,
    ...(extra.ap2 ? { ap2: extra.ap2 } : {}),
  };
}
