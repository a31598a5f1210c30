/**
 * Order creation without HTTP: used by `POST /api/v1/orders`, the hosted payment link (`/pay/services/{id}`) and the
 * procurement activities. Validates the request against the quote and the catalogue, starts the order workflow (id
 * `order-<order_id>`) and writes the initial read model.
 *
 * Source: seed §2.3 (order request), §4 (payment rails); issue 2 §4; issue 5 §1 (an order's own webhook);
 * issue 10 §1 (order secret); issue 11 §2 (one application layer for routes and activities).
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { EventDoc, OrderDoc } from '../db';
import { getService, missingInputs, priceMicros, type ServiceDefinition } from '../domain/catalogue';
import { refuseUnavailableService } from '../products/deliverables/availability';
import { longRunningTerms } from '../domain/longRunning';
import { problem } from '../errors';
import { sha256Hex } from '../hash';
import { initialOrderDoc, type OrderRepository } from '../repos/orders';
import type { EventRepository } from '../repos/events';
import type { QuoteRepository } from '../repos/quotes';
import type { NewEndpoint, WebhookRepository } from '../repos/webhooks';
import { missingTextgenSettings } from '../textgen';
import { checkTarget } from '../webhooks/ssrf';
import { ORDER_EVENT_TYPES, transitionEventData, type OrderWorkflowInput } from '../domain/order';

/**
 * What writing a new order's record needs: the order and event stores, and the webhook fan-out of its
 * `order.created` event (absent: no webhooks are sent, as in the activities without one).
 */
export interface CreatedOrderPorts {
  orders: Pick<OrderRepository, 'ensure'>;
  events: Pick<EventRepository, 'append'>;
  fanOut?: (event: EventDoc, order: OrderDoc) => Promise<void>;
}

/**
 * Writes a new order's record: event 1 (`order.created`), its webhook messages and deliveries, then the read model
 * (status `awaiting_payment`, version 1). In that order, so a stored order always has its event and its webhooks: a
 * writer that finds no order (the first transition of a workflow whose creator died, activities/index.ts) writes all
 * three again. Each step is idempotent. Returns the read model as written.
 * @throws what the stores throw (MongoServerError); nothing is half-written that a retry does not complete.
 */
export async function recordCreatedOrder(ports: CreatedOrderPorts, input: OrderWorkflowInput): Promise<OrderDoc> {
  const doc = initialOrderDoc(input);
  // Event 1 (order.created); later transitions are numbered by their version, from 2.
  const event = await ports.events.append(
    input.orderId,
    1,
    ORDER_EVENT_TYPES.awaiting_payment,
    transitionEventData(input.orderId, input.serviceId, 'awaiting_payment'),
    input.record.created_at,
  );
  await ports.fanOut?.(event, doc);
  await ports.orders.ensure(doc);
  return doc;
}

/**
 * What order creation needs, and nothing more: the quote and order stores, the order's webhook registration, a way to
 * start the order workflow, and the configuration it reads.
 */
export interface OrderCreationPorts extends CreatedOrderPorts {
  quotes: Pick<QuoteRepository, 'get'>;
  webhooks: Pick<WebhookRepository, 'register'>;
  /**
   * Starts `orderWorkflow` for `input` (id `order-<order_id>`); a second start of the same id must be a no-op, so a
   * retried creation is safe (src/temporal/orders.ts `OrderWorkflows.start`).
   */
  startOrderWorkflow(input: OrderWorkflowInput, serviceName: string): Promise<void>;
  /** `DEV_MODE` lets `webhook_url` name private targets; the deadlines are seconds; TEXTGEN_* decide availability. */
  config: Pick<Config, 'DEV_MODE' | 'PAYMENT_DEADLINE_SECONDS' | 'REVIEW_WINDOW_SECONDS'> &
    Parameters<typeof missingTextgenSettings>[0];
}

/** Facts an order is created from; shared by the JSON API, the hosted payment link and procurement. */
export interface NewOrder {
  service_id?: string;
  quote_id?: string;
  agent_id?: string;
  email?: string;
  webhook_url?: string;
  inputs: Record<string, string | number | boolean | string[]>;
  /** Price kind when no quote is given; the JSON API uses the agent price (seed §2.2 default is_agent = true). */
  is_agent: boolean;
  /** Fixed order id, so a retried creation (procurement activity) makes one order; default a new random id. */
  order_id?: string;
  /**
   * A retried creation (a request's Idempotency-Key, issue 36): the first request's time, and the bytes its order
   * secret and webhook credentials are made of, so the retry writes and answers what the first one did.
   */
  retry?: { at: Date; bytes(purpose: string, n: number): Buffer };
  /**
   * Set by a checkout session (ACP, UCP): its one payment covers period 1 of a monthly service only, so every renewal
   * is an invoice (`SubscriptionTerms.renewal`), never a debit of the wallet that paid it.
   */
  renewalByInvoice?: boolean;
}

/** What {@link createOrder} returns: the initial read model, its service, and the credentials shown this once. */
export interface CreatedOrder {
  doc: OrderDoc;
  service: ServiceDefinition;
  /** The order's own webhook endpoint and its secret, when `webhook_url` was given. */
  webhook?: NewEndpoint;
  /** The order secret (`os_…`), the buyer's credential, when the order has no `agent_id`. */
  orderSecret?: string;
}

/** New order id: `ord_` + 128 random bits (the id is a capability: whoever holds it can follow the order). */
export const newOrderId = (): string => `ord_${randomBytes(16).toString('base64url')}`;

/** A new order secret (`os_` + 256 random bits, or the 32 bytes of `key`) and the sha256 hex stored on the order in its place (issue 10 §1). */
export function newOrderSecret(key: Buffer = randomBytes(32)): { secret: string; hash: string } {
  const secret = `os_${key.toString('base64url')}`;
  return { secret, hash: sha256Hex(secret) };
}

/**
 * Validates and creates an order: starts its workflow, then writes its record ({@link recordCreatedOrder}: event 1,
 * its webhooks, the read model). The amount is the quote's or the catalogue price for the buyer kind (integer
 * micro-USD). The workflow's first transition writes the same record when it is missing, so a crash between the two
 * leaves no half-written order (issue 25 §4: the workflow no longer writes it at its start).
 * With `webhook_url`, registers the order's own webhook endpoint first (it exists before `order.created` is emitted)
 * and returns its secret (shown once). Without `agent_id`, returns the order secret (shown once). With `order_id` and
 * `retry` fixed (an Idempotency-Key), a second call answers what the first did and creates nothing more: every step
 * is keyed by the order id.
 * @throws ProblemError (src/errors.ts codes) quote_not_found / service_not_found, quote_expired,
 *   quote_service_mismatch / missing_inputs / text_generation_unavailable / webhook_target_forbidden.
 */
export async function createOrder(ports: OrderCreationPorts, req: NewOrder): Promise<CreatedOrder> {
  const now = req.retry?.at ?? new Date();
  if (req.webhook_url) await checkTarget(req.webhook_url, ports.config.DEV_MODE, 'webhook_url');
  const quote = req.quote_id ? await ports.quotes.get(req.quote_id) : null;
  if (req.quote_id && !quote) throw problem('quote_not_found', `No quote ${req.quote_id}`);
  if (quote && quote.expires_at.getTime() <= now.getTime()) {
    throw problem(
      'quote_expired',
      `Quote ${quote._id} expired at ${quote.expires_at.toISOString()}; request a new one`,
      {
        expired_at: quote.expires_at.toISOString(),
      },
    );
  }
  if (quote && req.service_id && req.service_id !== quote.service_id) {
    throw problem('quote_service_mismatch', `Quote ${quote._id} is for ${quote.service_id}, not ${req.service_id}`, {
      param: 'service_id',
    });
  }
  const serviceId = quote?.service_id ?? req.service_id ?? '';
  const service = getService(serviceId);
  if (!service) throw problem('service_not_found', `No service ${serviceId}; see GET /api/v1/services`);
  const missing = missingInputs(service, req.inputs);
  if (missing.length > 0) {
    throw problem('missing_inputs', `${service.id} needs inputs: ${missing.join(', ')}`, { param: 'inputs', missing });
  }
  refuseUnavailableService(service, missingTextgenSettings(ports.config));
  const orderId = req.order_id ?? newOrderId();
  // Without an agent wallet, the buyer's credential is a secret of this order, shown once (issue 10 §1).
  const secret = req.agent_id ? undefined : newOrderSecret(req.retry?.bytes('order secret', 32));
  const input: OrderWorkflowInput = {
    orderId,
    record: {
      quote_id: quote?._id ?? null,
      agent_id: req.agent_id ?? null,
      email: req.email ?? null,
      webhook_url: req.webhook_url ?? null,
      partner_id: quote?.partner_id ?? null,
      billing: service.billing,
      is_agent: quote?.is_agent ?? req.is_agent,
      created_at: now.toISOString(),
      payment_deadline: new Date(now.getTime() + ports.config.PAYMENT_DEADLINE_SECONDS * 1000).toISOString(),
      ...(secret ? { buyer_secret_hash: secret.hash } : {}),
    },
    serviceId: service.id,
    includes: service.includes ?? [],
    rails: service.payment_rails,
    amountMicros: quote?.amount_micros ?? priceMicros(service, req.is_agent),
    currency: service.currency,
    ...(req.agent_id ? { agentId: req.agent_id } : {}),
    ...(quote?.partner_id ? { partnerId: quote.partner_id } : {}),
    inputs: req.inputs,
    paymentDeadlineSeconds: ports.config.PAYMENT_DEADLINE_SECONDS,
    reviewWindowSeconds: ports.config.REVIEW_WINDOW_SECONDS,
    // Expert SLA clock, monthly subscription terms (issue 6).
    ...longRunningTerms(service, { renewalByInvoice: req.renewalByInvoice === true }),
    recordedAtCreation: true,
  };
  // The order's own webhook endpoint exists before the workflow emits order.created (issue 5 §1).
  const webhook = req.webhook_url
    ? await ports.webhooks.register({
        url: req.webhook_url,
        agentId: null,
        orderId,
        events: [],
        ...(req.retry
          ? {
              named: {
                id: orderId,
                secret: req.retry.bytes('webhook secret', 32),
                token: req.retry.bytes('webhook token', 24),
              },
            }
          : {}),
      })
    : undefined;
  await ports.startOrderWorkflow(input, service.name);
  const doc = await recordCreatedOrder(ports, input);
  return { doc, service, ...(webhook ? { webhook } : {}), ...(secret ? { orderSecret: secret.secret } : {}) };
}
