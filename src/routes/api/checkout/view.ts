/**
 * The ACP form of a checkout session (issue 37 §1): `CheckoutSession` of openapi.agentic_checkout.yaml, from the
 * session document, its service and its order's read model.
 */
import type { z } from 'zod';
import type { CheckoutSessionDoc, OrderDoc } from '../../../db';
import { getService } from '../../../domain/catalogue';
import { acpOrderStatus } from '../../../webhooks/acp';
import {
  ACP_VERSION,
  acpStatus,
  centsOfMicros,
  sessionMessages,
  billingNote,
  sessionOrderSecret,
  sessionTotalCents,
} from '../../../services/checkoutSessions';
import type { AcpCheckoutSession } from './schema';

type SessionView = z.infer<typeof AcpCheckoutSession>;

/** The x402 payment requirements of an amount (integer micro-USDC), as the x402 gateway quotes them. */
export type X402Requirements = (amountMicros: number) => Record<string, unknown>;

/**
 * The payment handlers a session offers (`capabilities.payment.handlers`): the agent wallet, x402 when the service
 * is sold over x402 (`config.accepts`: the exact requirements to sign for the session's total), a card (with a card
 * processor, for services sold on the link rail) and the hosted link.
 */
export function paymentHandlers(
  baseUrl: string,
  x402?: { requirements: X402Requirements; amountMicros: number } | undefined,
  card?: { psp: string; environment: 'test' | 'production' } | undefined,
): SessionView['capabilities']['payment']['handlers'] {
  const docs = `${baseUrl}/api/v1/openapi.json`;
  const x402Handler = x402
    ? [
        {
          id: 'x402',
          name: 'dev.agent_commerce.x402',
          display_name: 'x402 (USDC, exact scheme)',
          version: ACP_VERSION,
          spec: 'https://github.com/x402-foundation/x402',
          requires_delegate_payment: false,
          requires_pci_compliance: false,
          psp: 'x402',
          config_schema: docs,
          instrument_schemas: [docs],
          config: {
            x402_version: 2,
            accepts: [x402.requirements(x402.amountMicros)],
            credential: 'base64 of the signed x402 PaymentPayload (the PAYMENT-SIGNATURE header value)',
          },
        },
      ]
    : [];
  return [
    {
      id: 'agent_wallet',
      name: 'dev.agent_commerce.agent_wallet',
      display_name: 'Agent wallet',
      version: ACP_VERSION,
      spec: `${baseUrl}/docs/agent-checkouts.md`,
      requires_delegate_payment: true,
      requires_pci_compliance: false,
      psp: 'agent_commerce',
      config_schema: docs,
      instrument_schemas: [docs],
      config: { delegate_payment_url: `${baseUrl}/agentic_commerce/delegate_payment`, credential_type: 'spt' },
    },
    ...x402Handler,
    // ACP's tokenized card handler (the spec's own `dev.acp.tokenized.card`): the PSP's shared payment token.
    ...(card
      ? [
          {
            id: 'card_tokenized',
            name: 'dev.acp.tokenized.card',
            display_name: 'Card',
            version: '2026-01-22',
            spec: 'https://acp.dev/handlers/tokenized.card',
            requires_delegate_payment: true,
            requires_pci_compliance: false,
            psp: card.psp,
            config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
            instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
            config: { psp: card.psp, environment: card.environment, supports_3ds: false },
          },
        ]
      : []),
    {
      id: 'hosted_link',
      name: 'dev.agent_commerce.hosted_link',
      display_name: 'Pay on the hosted page',
      version: ACP_VERSION,
      spec: `${baseUrl}/docs/agent-checkouts.md`,
      requires_delegate_payment: false,
      requires_pci_compliance: false,
      psp: 'agent_commerce',
      config_schema: docs,
      instrument_schemas: [docs],
      config: {},
    },
  ];
}

/** The public form of a session; `order` is its order's read model once complete created it. */
export function sessionView(
  doc: CheckoutSessionDoc,
  order: OrderDoc | null,
  baseUrl: string,
  x402?: X402Requirements,
  card?: { psp: string; environment: 'test' | 'production' },
): SessionView {
  const service = getService(doc.line.service_id);
  const unit = centsOfMicros(doc.unit_amount_micros);
  const total = sessionTotalCents(doc);
  const totals = (amount: number) => [
    { type: 'items_base_amount' as const, display_text: 'Items', amount },
    { type: 'subtotal' as const, display_text: 'Subtotal', amount },
    { type: 'total' as const, display_text: 'Total', amount },
  ];
  const status = acpStatus(doc, order);
  const note = billingNote(doc.line.service_id);
  const name = service?.name ?? doc.line.service_id;
  return {
    id: doc._id,
    protocol: { version: ACP_VERSION },
    capabilities: {
      payment: {
        handlers: paymentHandlers(
          baseUrl,
          x402 && service?.payment_rails.includes('x402_usdc')
            ? { requirements: x402, amountMicros: doc.unit_amount_micros * doc.line.quantity }
            : undefined,
          card && service?.payment_rails.includes('linkpay_ncp') ? card : undefined,
        ),
      },
    },
    ...(doc.buyer ? { buyer: doc.buyer as SessionView['buyer'] } : {}),
    status,
    currency: doc.currency,
    line_items: [
      {
        id: `li_${doc.line.service_id}`,
        item: { id: doc.line.service_id, name, unit_amount: unit },
        quantity: doc.line.quantity,
        name,
        description: service?.description ?? '',
        unit_amount: unit,
        product_id: doc.line.service_id,
        totals: totals(total),
      },
    ],
    totals: totals(total),
    fulfillment_options: [],
    messages: [
      ...(doc.status === 'open' ? sessionMessages(doc) : []),
      ...(note
        ? [{ type: 'info' as const, param: '$.line_items[0]', content_type: 'plain' as const, content: note }]
        : []),
    ],
    links: [{ type: 'support', title: 'Service catalogue', url: `${baseUrl}/api/v1/services/${doc.line.service_id}` }],
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    expires_at: doc.expires_at.toISOString(),
    ...(status === 'requires_escalation'
      ? {
          continue_url: `${baseUrl}/pay/orders/${doc.order_id}?secret=${encodeURIComponent(sessionOrderSecret(doc))}`,
        }
      : {}),
    metadata: doc.metadata,
    quote_id: doc.quote_id,
    quote_expires_at: doc.expires_at.toISOString(),
    ...(order
      ? {
          order: {
            type: 'order' as const,
            id: order._id,
            checkout_session_id: doc._id,
            permalink_url: `${baseUrl}/api/v1/orders/${order._id}`,
            status: acpOrderStatus(order.status),
          },
        }
      : {}),
  };
}
