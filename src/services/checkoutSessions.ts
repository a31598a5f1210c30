/**
 * ACP 2026-04-17 checkout sessions on the durable orders (issue 37 §1): a session is a document (src/db.ts
 * `CheckoutSessionDoc`) over one catalogue service, priced by a binding quote; complete creates the session's one order
 * through {@link createOrder} (its id fixed when the session was made) and pays it through the order workflow's
 * `confirmPayment` (agent wallet, by a delegated-payment token), or hands the buyer the hosted payment page.
 * Decision: docs/decisions/0029-acp-session-is-a-document-its-order-starts-at-complete.md.
 *
 * Source: ../shared/reference/protocols/acp-2026-04-17 (openapi.agentic_checkout.yaml, openapi.delegate_payment.yaml,
 * rfcs/rfc.agentic_checkout.md).
 */
import type { DelegatedCardPort } from '../payments/stripe';
import { createHmac, randomBytes } from 'node:crypto';
import type { AcpPaymentTokenDoc, CheckoutSessionDoc, OrderDoc } from '../db';
import { getService, missingInputs, type ServiceDefinition } from '../domain/catalogue';
import type { OrderState } from '../domain/order';
import { ProblemError, problem } from '../errors';
import type { CheckoutSessionRepository } from '../repos/checkoutSessions';
import type { WebhookRepository } from '../repos/webhooks';
import { ACP_ORDER_EVENTS } from '../webhooks/acp';
import { createOrder, newOrderId, newOrderSecret, type OrderCreationPorts } from './orders';
import { createQuote, newQuoteId, type QuotePorts } from './quotes';

/** The one ACP version served. */
export const ACP_VERSION = '2026-04-17';
/** The payment handlers a session offers (their ids in `capabilities.payment.handlers`). */
export type AcpHandlerId = 'agent_wallet' | 'hosted_link' | 'x402' | 'card_tokenized';
/** Every handler id, in the order offered. */
export const ACP_HANDLERS: readonly AcpHandlerId[] = ['agent_wallet', 'x402', 'card_tokenized', 'hosted_link'];

/**
 * The card processor behind ACP's `card_tokenized` handler (issue 37 §3): the PSP's shared payment token charged once
 * per session (`idempotencyKey`), then confirmed to the order's workflow as its link payment. Present only with a card
 * processor configured (LINK_PROVIDER=stripe: src/payments/stripe.ts `DelegatedCardPort`).
 */
export interface CardPayments {
  /**
   * Charges `amountCents` (USD minor units) on `token` for `orderId`.
   * @returns the processor's transaction id. @throws ProblemError 422 `payment_token_invalid`, 402 `payment_failed`.
   */
  charge(req: {
    token: string;
    orderId: string;
    amountCents: number;
    idempotencyKey: string;
    /** The session paid: the processor's record of the charge names it (its late `succeeded` event is matched). */
    checkoutSessionId?: string;
  }): Promise<string>;
  /** The order workflow's `confirmPayment` Update on the link rail with that transaction. */
  confirm(orderId: string, transactionId: string): Promise<OrderState>;
  /** Gives a charge back to the card (one the order did not keep). @returns false when the processor refused. */
  refund(transactionId: string): Promise<boolean>;
}
/** Units one session buys: the order model sells one service per order. */
export const MAX_QUANTITY = 1;

/** An input value of a service (src/domain/catalogue.ts). */
export type InputValue = string | number | boolean | string[];

/** A line item as requested: the catalogue service id and (beyond the 2026-04-17 schema) the units. */
export interface ItemRequest {
  id: string;
  quantity?: number | undefined;
}

/** What a session's requests carry that the service reads. */
export interface SessionChanges {
  item?: ItemRequest | undefined;
  buyer?: Record<string, unknown> | undefined;
  /** Merged into the session's `metadata`; its `inputs` object into the service's inputs. */
  metadata?: Record<string, unknown> | undefined;
}

/** The ports of the session operations. */
export interface CheckoutPorts {
  sessions: Pick<CheckoutSessionRepository, 'insert' | 'get' | 'update' | 'token' | 'platform'>;
  quotes: QuotePorts;
  creation: OrderCreationPorts;
  /** The order's read model (null before it exists). */
  order(orderId: string): Promise<OrderDoc | null>;
  /** The `confirmPayment` Update of the order on the agent-wallet rail (charges the order's wallet once). */
  confirmWalletPayment(orderId: string): Promise<OrderState>;
  /**
   * The session's durable timer and finisher (workflows/checkoutSession.ts): `started` when it is created,
   * `completing` before complete records its commitment (idempotent, signal-with-start). Absent in the finisher itself.
   */
  /** The card processor of the `card_tokenized` handler; absent: cards are not taken. */
  cards?: CardPayments;
  /** Where an order's ACP endpoint is registered (the platform's webhook); absent: no order events are sent. */
  acpWebhooks?: Pick<WebhookRepository, 'ensureAcpEndpoint' | 'ensureUcpEndpoint'>;
  sessionWorkflow?: {
    started(doc: CheckoutSessionDoc): Promise<void>;
    completing(doc: CheckoutSessionDoc): Promise<void>;
  };
}

/**
 * {@link CardPayments} over a card processor's delegated-card port (src/payments/stripe.ts) and the order workflow's
 * `confirmPayment` on the link rail; undefined without a processor (cards are then not offered).
 */
export function cardPayments(
  port: Pick<DelegatedCardPort, 'chargeDelegatedCard' | 'refund'> | undefined,
  confirmPayment: (orderId: string, req: { rail: 'linkpay_ncp'; transaction_id: string }) => Promise<OrderState>,
): CardPayments | undefined {
  if (!port) return undefined;
  return {
    async charge(req) {
      return (await port.chargeDelegatedCard(req)).transaction_id;
    },
    confirm: (orderId, transactionId) =>
      confirmPayment(orderId, { rail: 'linkpay_ncp', transaction_id: transactionId }),
    refund: (transactionId) => port.refund(transactionId),
  };
}

/** Ids of a new session, derived from the request's Idempotency-Key claim so a retry names the same ones. */
export interface SessionIds {
  sessionId: string;
  quoteId: string;
  orderId: string;
  seed: string;
  at: Date;
}

/** Fresh ids (a request without Idempotency-Key: the routes require one, so only tests see this). */
export function freshSessionIds(): SessionIds {
  return {
    sessionId: `cs_${randomBytes(16).toString('base64url')}`,
    quoteId: newQuoteId(),
    orderId: newOrderId(),
    seed: randomBytes(32).toString('base64url'),
    at: new Date(),
  };
}

/** `n` bytes of HMAC-SHA256(seed, purpose): what a session's order is made of, the same on every retry. */
export function seedBytes(seed: string, purpose: string, n = 16): Buffer {
  return createHmac('sha256', Buffer.from(seed, 'base64url')).update(purpose).digest().subarray(0, n);
}

/** The order secret of a session's order without a wallet (the hosted link's buyer), derived from its seed. */
export const sessionOrderSecret = (doc: Pick<CheckoutSessionDoc, 'seed'>): string =>
  newOrderSecret(seedBytes(doc.seed, 'order secret', 32)).secret;

/** Integer minor units (cents) of integer micro-USD. */
export const centsOfMicros = (micros: number): number => Math.round(micros / 10_000);

/** A `messages[]` entry of type error (ACP `MessageError`). */
export interface SessionMessage {
  type: 'error';
  code: 'missing' | 'quantity_exceeded';
  severity: 'high';
  resolution: 'requires_buyer_input' | 'recoverable';
  param: string;
  content_type: 'plain';
  content: string;
}

/** What keeps an open session from payment: each missing required input by `param`, and a quantity above 1. */
export function sessionMessages(doc: Pick<CheckoutSessionDoc, 'line' | 'inputs'>): SessionMessage[] {
  const service = getService(doc.line.service_id);
  const out: SessionMessage[] = [];
  if (doc.line.quantity > MAX_QUANTITY) {
    out.push({
      type: 'error',
      code: 'quantity_exceeded',
      severity: 'high',
      resolution: 'recoverable',
      param: '$.line_items[0].quantity',
      content_type: 'plain',
      content: `At most ${MAX_QUANTITY} unit per checkout session: each unit is an order of its own`,
    });
  }
  for (const name of service ? missingInputs(service, doc.inputs) : []) {
    out.push({
      type: 'error',
      code: 'missing',
      severity: 'high',
      resolution: 'requires_buyer_input',
      param: `$.metadata.inputs.${name}`,
      content_type: 'plain',
      content: `${service?.name ?? doc.line.service_id} needs the input ${name}`,
    });
  }
  return out;
}

/**
 * What a buyer should know of a monthly service bought through a session (shown as an ACP / UCP info message), or
 * null for a one-time purchase: the payment buys the first month; renewals are invoices, never charged again to the
 * session's credential (issue 37; workflows/subscription.ts).
 */
export function billingNote(serviceId: string): string | null {
  const service = getService(serviceId);
  if (service?.billing !== 'monthly') return null;
  return (
    `${service.name} is billed monthly: this payment is the first month. Each renewal is an invoice ` +
    '(order event subscription.invoice_issued, pay_url in GET /api/v1/orders/{id}/subscription), due in 7 days and ' +
    "paid on the hosted page; nothing is charged again to this session's payment credential. Cancel any time with " +
    'POST /api/v1/orders/{id}/subscription/cancel.'
  );
}

/** ACP status of a session (the order's read model decides once it awaits the hosted page). */
export type AcpStatus =
  | 'not_ready_for_payment'
  | 'ready_for_payment'
  | 'requires_escalation'
  | 'complete_in_progress'
  | 'completed'
  | 'canceled'
  | 'expired';

/** The ACP status of `doc`, at `now`, with its order's read model when it has one. */
export function acpStatus(doc: CheckoutSessionDoc, order: OrderDoc | null, now = new Date()): AcpStatus {
  switch (doc.status) {
    case 'canceled':
      return 'canceled';
    case 'expired':
      return 'expired';
    case 'completed':
      return 'completed';
    case 'complete_in_progress':
      // The order tells once it exists: paid (a crash after the charge, an x402 settlement reconciled) or closed.
      if (order?.payment) return 'completed';
      if (order && order.status !== 'awaiting_payment') return 'canceled';
      return 'complete_in_progress';
    case 'awaiting_payment':
      // Paid on the hosted page: done; still waiting: the buyer has to act there.
      if (order?.payment) return 'completed';
      if (order && order.status !== 'awaiting_payment') return 'canceled';
      return 'requires_escalation';
    case 'open':
      if (doc.expires_at.getTime() <= now.getTime()) return 'expired';
      return sessionMessages(doc).length > 0 ? 'not_ready_for_payment' : 'ready_for_payment';
  }
}

/** The service of an item, or a 400 naming the item (an id that is no catalogue service). */
function serviceOf(item: ItemRequest): ServiceDefinition {
  const service = getService(item.id);
  if (!service)
    throw problem('invalid_request', `No service ${item.id}; see GET /api/v1/services`, {
      param: '$.line_items[0].id',
    });
  return service;
}

/** The service's inputs in `metadata.inputs` (non-input values are dropped: the order validates the rest). */
function inputsOf(metadata: Record<string, unknown> | undefined): Record<string, InputValue> {
  const raw = metadata?.inputs;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const out: Record<string, InputValue> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (['string', 'number', 'boolean'].includes(typeof v)) out[k] = v as string | number | boolean;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
  }
  return out;
}

/**
 * Opens a session for `platformId` over one item, priced by a new binding quote (agent price), expiring with it.
 * A retry with the same `ids` returns the stored session.
 * @throws ProblemError 400 `invalid_request` (an unknown service id, param `$.line_items[0].id`).
 */
export async function createCheckoutSession(
  ports: CheckoutPorts,
  platformId: string,
  req: SessionChanges & { item: ItemRequest },
  ids: SessionIds,
): Promise<CheckoutSessionDoc> {
  const existing = await ports.sessions.get(ids.sessionId);
  if (existing) {
    // A retry after a crash between the insert and the timer's start starts it now.
    if (existing.status === 'open') await ports.sessionWorkflow?.started(existing);
    return existing;
  }
  const service = serviceOf(req.item);
  const quote = await createQuote(ports.quotes, { service_id: service.id, is_agent: true }, ids.quoteId);
  const metadata = req.metadata ?? {};
  const doc = await ports.sessions.insert({
    _id: ids.sessionId,
    platform_id: platformId,
    status: 'open',
    line: { service_id: service.id, quantity: req.item.quantity ?? 1 },
    inputs: inputsOf(metadata),
    buyer: req.buyer ?? null,
    metadata,
    quote_id: quote._id,
    unit_amount_micros: quote.amount_micros,
    currency: 'usd',
    order_id: ids.orderId,
    seed: ids.seed,
    payment: null,
    completed_at: null,
    created_at: ids.at,
    updated_at: ids.at,
    expires_at: quote.expires_at,
    version: 1,
  });
  await ports.sessionWorkflow?.started(doc);
  return doc;
}

/** 409 `checkout_session_closed` unless the session is open and unexpired. */
function requireOpen(doc: CheckoutSessionDoc, now: Date, action: string): void {
  if (doc.status === 'open' && doc.expires_at.getTime() > now.getTime()) return;
  throw problem('checkout_session_closed', `Cannot ${action} a checkout session that is ${acpStatus(doc, null, now)}`);
}

/**
 * Applies changes to an open session: another item gets a new binding quote (and the session its expiry), inputs in
 * `metadata.inputs` are merged, the buyer replaced.
 * @throws ProblemError 409 `checkout_session_closed`; 400 `invalid_request` for an unknown service id.
 */
export async function updateCheckoutSession(
  ports: CheckoutPorts,
  doc: CheckoutSessionDoc,
  req: SessionChanges,
): Promise<CheckoutSessionDoc> {
  const now = new Date();
  requireOpen(doc, now, 'update');
  const changes: Partial<CheckoutSessionDoc> = {};
  if (req.item) {
    const service = serviceOf(req.item);
    changes.line = { service_id: service.id, quantity: req.item.quantity ?? 1 };
    if (service.id !== doc.line.service_id) {
      const quote = await createQuote(ports.quotes, { service_id: service.id, is_agent: true });
      Object.assign(changes, {
        quote_id: quote._id,
        unit_amount_micros: quote.amount_micros,
        expires_at: quote.expires_at,
        // Inputs belong to the service they were given for.
        inputs: {},
      });
    }
  }
  if (req.buyer) changes.buyer = req.buyer;
  if (req.metadata) {
    changes.metadata = { ...doc.metadata, ...req.metadata };
    changes.inputs = { ...(changes.inputs ?? doc.inputs), ...inputsOf(req.metadata) };
  }
  const next = await ports.sessions.update(doc, changes);
  if (!next)
    throw problem(
      'idempotency_in_flight',
      'The checkout session changed meanwhile; retry',
      {},
      {
        headers: { 'Retry-After': '1' },
      },
    );
  return next;
}

/** The payment a complete request names: the handler and, for the wallet, the delegated token. */
export interface CompletePayment {
  handler_id: string;
  token?: string | undefined;
  buyer?: Record<string, unknown> | undefined;
}

/** The token `id` if it pays `doc` now for `amountCents`, else 422 `payment_token_invalid` saying why. */
async function tokenFor(
  ports: CheckoutPorts,
  doc: CheckoutSessionDoc,
  id: string | undefined,
  amountCents: number,
  now: Date,
): Promise<AcpPaymentTokenDoc> {
  const param = '$.payment_data.instrument.credential.token';
  const refuse = (why: string) => problem('payment_token_invalid', why, { param });
  const token = id ? await ports.sessions.token(id) : null;
  if (!token) throw refuse('No delegated-payment token of this service by that id');
  if (token.checkout_session_id !== doc._id) throw refuse('The token was issued for another checkout session');
  if (token.expires_at.getTime() <= now.getTime()) throw refuse('The token has expired');
  if (token.currency !== doc.currency)
    throw refuse(`The token is in ${token.currency}, the session in ${doc.currency}`);
  if (token.max_amount < amountCents)
    throw refuse(`The token allows ${token.max_amount}, the session costs ${amountCents} (minor units)`);
  if (doc.payment?.agent_id && doc.payment.agent_id !== token.agent_id)
    throw refuse("The session's order is already bound to another wallet");
  return token;
}

/** Total of a session in minor units. */
export const sessionTotalCents = (doc: CheckoutSessionDoc): number =>
  centsOfMicros(doc.unit_amount_micros) * doc.line.quantity;

/**
 * Completes a session: creates its one order ({@link createOrder} with the session's fixed order id and the time of
 * the first complete, so a retry or a crash between steps makes no second order) and pays it:
 * - `agent_wallet`: the delegated token must be this session's, unexpired, in its currency and allow its total; the
 *   order is the token's wallet's, paid by the order workflow's `confirmPayment` (one charge per order);
 * - `card_tokenized`: the PSP's shared payment token (`spt_…`) is charged once ({@link CardPayments}) and confirmed
 *   to the order as its link payment;
 * - `hosted_link`: the order awaits the buyer on the hosted page (status `requires_escalation`).
 * A completed session answers as it is.
 * @throws ProblemError 409 `checkout_session_closed` / `checkout_session_not_ready`, 422 `payment_token_invalid`,
 *   400 `invalid_request` (unknown handler), and what order creation and payment throw (402 `insufficient_funds`, …).
 */
export async function completeCheckoutSession(
  ports: CheckoutPorts,
  doc: CheckoutSessionDoc,
  pay: CompletePayment,
): Promise<CheckoutSessionDoc> {
  if (doc.status === 'completed' || doc.status === 'awaiting_payment') return doc;
  const now = new Date();
  if (doc.status === 'canceled' || doc.status === 'expired')
    throw problem('checkout_session_closed', `Cannot complete a checkout session that is ${doc.status}`);
  if (doc.status === 'open') {
    requireOpen(doc, now, 'complete');
    const messages = sessionMessages(doc);
    if (messages.length > 0) {
      throw problem('checkout_session_not_ready', `Not ready for payment: ${messages.map((m) => m.param).join(', ')}`, {
        param: messages[0]?.param,
      });
    }
  }
  const handler = pay.handler_id as AcpHandlerId;
  if (!ACP_HANDLERS.includes(handler))
    throw problem('invalid_request', `Unknown payment handler ${handler}: ${ACP_HANDLERS.join(', ')}`, {
      param: '$.payment_data.handler_id',
    });
  if (handler === 'x402' && doc.status === 'open') {
    const rails = getService(doc.line.service_id)?.payment_rails ?? [];
    if (!rails.includes('x402_usdc'))
      throw problem('rail_not_offered', `${doc.line.service_id} is not sold over x402; rails: ${rails.join(', ')}`, {
        param: '$.payment_data.handler_id',
      });
    if (!pay.token)
      throw problem('invalid_request', 'x402 needs the signed x402 payment payload (base64) as the credential token', {
        param: '$.payment_data.instrument.credential.token',
      });
  }
  if (handler === 'card_tokenized' && doc.status === 'open') {
    const rails = getService(doc.line.service_id)?.payment_rails ?? [];
    if (!ports.cards || !rails.includes('linkpay_ncp'))
      throw problem('rail_not_offered', `Cards are not taken for ${doc.line.service_id} here`, {
        param: '$.payment_data.handler_id',
      });
    if (!pay.token?.startsWith('spt_'))
      throw problem('payment_token_invalid', "card_tokenized needs the PSP's shared payment token (spt_…)", {
        param: '$.payment_data.instrument.credential.token',
      });
  }
  if (doc.payment && doc.payment.handler_id !== handler)
    throw problem('invalid_request', `This session is being paid with ${doc.payment.handler_id}`, {
      param: '$.payment_data.handler_id',
    });
  const token =
    handler === 'agent_wallet' ? await tokenFor(ports, doc, pay.token, sessionTotalCents(doc), now) : undefined;

  // The commitment: from here every retry creates and pays the same order.
  let current = doc;
  if (doc.status === 'open') {
    // The finisher is told first: should this process die after the commitment, it completes the session.
    await ports.sessionWorkflow?.completing(doc);
    const claimed = await ports.sessions.update(doc, {
      status: 'complete_in_progress',
      payment: {
        handler_id: handler,
        ...(token ? { token_id: token._id, agent_id: token.agent_id } : {}),
        ...(handler === 'card_tokenized' && pay.token ? { token_id: pay.token } : {}),
      },
      completed_at: now,
      ...(pay.buyer ? { buyer: pay.buyer } : {}),
    });
    current = claimed ?? (await ports.sessions.get(doc._id)) ?? doc;
    if (current.status !== 'complete_in_progress') return completeCheckoutSession(ports, current, pay);
  }
  // The platform's receiver of order events exists before the order emits order.created.
  const platform = ports.acpWebhooks ? await ports.sessions.platform(current.platform_id) : null;
  if (platform?.webhook && ports.acpWebhooks)
    await ports.acpWebhooks.ensureAcpEndpoint({
      orderId: current.order_id,
      url: platform.webhook.url,
      secret: platform.webhook.secret,
      events: ACP_ORDER_EVENTS,
      acp: { checkout_session_id: current._id, platform_id: platform._id },
    });
  // A UCP platform that negotiated the order capability gets the order's events at its webhook URL (issue 37 §2).
  if (current.ucp?.webhook_url && ports.acpWebhooks)
    await ports.acpWebhooks.ensureUcpEndpoint({
      orderId: current.order_id,
      url: current.ucp.webhook_url,
      events: ACP_ORDER_EVENTS,
      ucp: { checkout_session_id: current._id, profile_url: current.ucp.profile_url },
    });
  const agentId = current.payment?.agent_id;
  const email = typeof current.buyer?.email === 'string' ? current.buyer.email : undefined;
  await createOrder(ports.creation, {
    service_id: current.line.service_id,
    quote_id: current.quote_id,
    ...(agentId ? { agent_id: agentId } : {}),
    ...(email ? { email } : {}),
    inputs: current.inputs,
    is_agent: true,
    order_id: current.order_id,
    // The session's one payment covers the first month of a monthly service; renewals are invoices.
    renewalByInvoice: true,
    retry: { at: current.completed_at ?? now, bytes: (purpose, n) => seedBytes(current.seed, purpose, n) },
  });
  if (current.payment?.handler_id === 'x402') return settleX402Session(ports, current);
  if (current.payment?.handler_id === 'hosted_link') {
    return (
      (await ports.sessions.update(current, { status: 'awaiting_payment' })) ??
      (await ports.sessions.get(current._id)) ??
      current
    );
  }
  const order = await ports.order(current.order_id);
  if (!order?.payment && current.payment?.handler_id === 'card_tokenized') {
    const cards = ports.cards;
    if (!cards || !current.payment.token_id) throw problem('rail_not_offered', 'Cards are not taken here');
    // Never charge an order that can no longer take the payment (closed by its deadline meanwhile).
    if (order && order.status !== 'awaiting_payment')
      throw problem('checkout_session_closed', `The session's order is ${order.status}: nothing was charged`);
    // One charge per session however often complete (or the finisher) runs: the processor's idempotency key.
    const transactionId = await cards.charge({
      token: current.payment.token_id,
      orderId: current.order_id,
      amountCents: sessionTotalCents(current),
      idempotencyKey: `acp:${current._id}`,
      checkoutSessionId: current._id,
    });
    try {
      await cards.confirm(current.order_id, transactionId);
    } catch (err) {
      const paid = (await ports.order(current.order_id))?.payment;
      if (paid?.transaction_id !== transactionId) {
        // The order refused the charge (paid otherwise, or closed): it goes back to the card at once.
        if (err instanceof ProblemError && err.status < 500) await cards.refund(transactionId);
        throw err;
      }
      // Else a concurrent complete confirmed this same charge first.
    }
  } else if (!order?.payment) {
    try {
      await ports.confirmWalletPayment(current.order_id);
    } catch (err) {
      // A concurrent complete paid it first: the order holds that one payment.
      const paid = (await ports.order(current.order_id))?.payment;
      if (!(err instanceof ProblemError && err.code === 'invalid_state_transition' && paid)) throw err;
    }
  }
  return (
    (await ports.sessions.update(current, { status: 'completed' })) ??
    (await ports.sessions.get(current._id)) ??
    current
  );
}

/** What the session workflow's settling step found: final, or open until `expiresAt`. */
export type SessionSettlement = { done: true; status: string } | { done: false; expiresAt: string };

/**
 * The session workflow's step (workflows/checkoutSession.ts): an open session past its expiry is closed (`expired`);
 * one left `complete_in_progress` is completed as the platform's retry of complete would ({@link
 * completeCheckoutSession} with the committed handler and token: the same order, charged once); any other is final.
 * A refusal of the completion (a short wallet, an expired token) is final too: the order, if created, keeps its own
 * payment deadline.
 * @throws what is transient (a dependency down), for the activity's retry.
 */
export async function settleCheckoutSession(ports: CheckoutPorts, sessionId: string): Promise<SessionSettlement> {
  const doc = await ports.sessions.get(sessionId);
  if (!doc) return { done: true, status: 'missing' };
  if (doc.status === 'open') {
    if (doc.expires_at.getTime() > Date.now()) return { done: false, expiresAt: doc.expires_at.toISOString() };
    const expired = await ports.sessions.update(doc, { status: 'expired' });
    // Changed meanwhile (a complete claimed it): settle what it is now.
    return expired ? { done: true, status: 'expired' } : settleCheckoutSession(ports, sessionId);
  }
  if (doc.status !== 'complete_in_progress' || !doc.payment) return { done: true, status: doc.status };
  try {
    const done = await completeCheckoutSession(ports, doc, {
      handler_id: doc.payment.handler_id,
      token: doc.payment.token_id,
    });
    return { done: true, status: done.status };
  } catch (err) {
    // Still moving at the processor or in another request: tried again, not final.
    if (
      err instanceof ProblemError &&
      err.status < 500 &&
      err.code !== 'idempotency_in_flight' &&
      err.code !== 'payment_in_progress'
    )
      return { done: true, status: `complete_in_progress: ${err.code}` };
    throw err;
  }
}

/**
 * An x402 session whose order exists: completed once its order is paid (the x402 rail settles and confirms it:
 * the route runs the rail's payment with the request's payload), as it is otherwise.
 */
export async function settleX402Session(ports: CheckoutPorts, doc: CheckoutSessionDoc): Promise<CheckoutSessionDoc> {
  if (doc.status !== 'complete_in_progress') return doc;
  const order = await ports.order(doc.order_id);
  if (!order?.payment) return doc;
  return (await ports.sessions.update(doc, { status: 'completed' })) ?? (await ports.sessions.get(doc._id)) ?? doc;
}

/**
 * Cancels an open session (an expired one too: nothing was bought).
 * @throws ProblemError 405 `checkout_session_not_cancelable` once complete has started, or when already canceled.
 */
export async function cancelCheckoutSession(
  ports: CheckoutPorts,
  doc: CheckoutSessionDoc,
): Promise<CheckoutSessionDoc> {
  if (doc.status !== 'open' && doc.status !== 'expired')
    throw problem(
      'checkout_session_not_cancelable',
      `The checkout session is ${doc.status === 'canceled' ? 'already canceled' : 'completed or being completed'}`,
    );
  const next = await ports.sessions.update(doc, { status: 'canceled' });
  if (next) return next;
  const fresh = (await ports.sessions.get(doc._id)) ?? doc;
  return cancelCheckoutSession(ports, fresh);
}

/** The spec's `allowance` of a delegated payment. */
export interface Allowance {
  reason: 'one_time';
  max_amount: number;
  currency: string;
  checkout_session_id: string;
  merchant_id: string;
  expires_at: string;
}

/**
 * Issues a delegated-payment token (`vt_…`) against the wallet of `agentId` (whose agent key the caller showed): it
 * lets checkout session `allowance.checkout_session_id` charge that wallet once, at most `max_amount` minor units,
 * until `expires_at`. `tokenId` fixed (an Idempotency-Key's) makes a retry return the first token.
 * @throws ProblemError 400 `invalid_request` (a currency other than usd, an expiry in the past).
 */
export async function delegateWalletPayment(
  sessions: Pick<CheckoutSessionRepository, 'insertToken'>,
  agentId: string,
  req: { allowance: Allowance; metadata?: Record<string, string> | undefined },
  tokenId = `vt_${randomBytes(16).toString('base64url')}`,
  at = new Date(),
): Promise<AcpPaymentTokenDoc> {
  const { allowance } = req;
  if (allowance.currency !== 'usd')
    throw problem('invalid_request', 'Wallets pay in usd', { param: '$.allowance.currency' });
  const expires = new Date(allowance.expires_at);
  if (!(expires.getTime() > at.getTime()))
    throw problem('invalid_request', 'The allowance has already expired', { param: '$.allowance.expires_at' });
  return sessions.insertToken({
    _id: tokenId,
    agent_id: agentId,
    checkout_session_id: allowance.checkout_session_id,
    max_amount: allowance.max_amount,
    currency: allowance.currency,
    merchant_id: allowance.merchant_id,
    expires_at: expires,
    metadata: req.metadata ?? {},
    created_at: at,
  });
}
