/**
 * The Stripe adapter (issue 37 §3), through the official `stripe` package:
 * - the hosted payment link (`linkpay_ncp`) as a Stripe Checkout Session per order ({@link StripeLinkProvider});
 * - ACP's delegated card payment as a PaymentIntent confirmed with the platform's shared payment token
 *   ({@link DelegatedCardPort});
 * - refunds of both through the same {@link PaymentLinkProvider.refund} the order workflow already calls;
 * - webhook events verified with `stripe.webhooks.constructEvent` ({@link StripeLinkProvider.verifyEvent}), acted on
 *   only for the Checkout Sessions and PaymentIntents this service created (recorded in `stripe_objects`).
 *
 * Stripe holds the money; this service keeps a mirror of each payment in `linkpay_transactions` (`provider:
 * 'stripe'`, `_id` the PaymentIntent id), written only from a signature-verified webhook event or from the adapter's
 * own confirmed PaymentIntent. The order workflow verifies and adopts payments from that mirror exactly as it does
 * the local provider's records, and the books reconciliation reads it too. Amounts: Stripe's integer cents; the
 * mirror's integer micro-USD (1 cent = 10,000 micro-USD).
 */
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { isDuplicateKey, type Database, type LinkpayTransactionDoc, type StripeObjectDoc } from '../db';
import { problem } from '../errors';
import type { LinkTransaction, PaymentLinkProvider } from './linkpay';

/** What the adapter needs from the configuration (src/config.ts). */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** stripe-mock's address in tests; unset: Stripe's API. */
  apiBase?: string;
  /** `Stripe-Version` of the shared-payment-token calls (a Stripe preview). */
  sptApiVersion: string;
  /** This service's public address, for Checkout's return URLs. */
  publicBaseUrl: string;
}

/** Micro-USD per cent. */
const MICROS_PER_CENT = 10_000;

/** A `stripe` client for `settings` (pointed at `apiBase` when set). Network failures are retried twice by the library. */
export function stripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : undefined;
  const protocol = base?.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    ...(base ? { host: base.hostname, port: base.port || (protocol === 'http' ? 80 : 443), protocol } : {}),
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'agent-commerce' },
  });
}

/** The order a Checkout Session is opened for. */
export interface CheckoutOrder {
  orderId: string;
  /** Integer micro-USD; must be whole cents. */
  amountMicros: number;
  /** What the buyer sees on Stripe's page. */
  description: string;
  /** Where Stripe sends the buyer back (success and cancel): the order's hosted page, with its secret when known. */
  returnUrl: string;
  /** When the session must stop taking payment (the order's payment deadline); Stripe allows 30 min to 24 h. */
  expiresAt?: Date;
}

/** A webhook event's effect on the mirror. */
export interface RecordedPayment {
  /** The mirrored payment. */
  tx: LinkTransaction;
  /** `recorded` now; `known` from an earlier delivery of the same payment; `second` for an order already holding another payment (refunded at Stripe here). */
  outcome: 'recorded' | 'known' | 'second';
}

/**
 * A charge of an ACP delegated payment (issue 37 §3): the platform's Stripe shared payment token (`spt_…`), granted to
 * this merchant, pays `amountCents` (integer cents, USD) for the order `orderId`.
 */
export interface DelegatedCardCharge {
  /** The shared payment token the platform passed in `payment_data` (`spt_…`). */
  token: string;
  /** The order the charge pays: the mirror binds the payment to it, so the order workflow can verify and refund it. */
  orderId: string;
  /** Integer cents, USD; the session's total. */
  amountCents: number;
  /**
   * Stripe idempotency key: the same key always answers the first PaymentIntent (one charge however often a crashed
   * complete is retried). Derive it from the checkout session, e.g. `acp:<checkout_session_id>`.
   */
  idempotencyKey: string;
  /** Extra Stripe metadata (strings; `order_id` is always set). */
  metadata?: Record<string, string>;
  /** The ACP checkout session paid, kept in this service's record of the intent (not sent to Stripe). */
  checkoutSessionId?: string;
}

/** A succeeded delegated card charge. */
export interface CardCharge {
  /** The PaymentIntent id (`pi_…`): the `transaction_id` to confirm the order with (rail `linkpay_ncp`). */
  transaction_id: string;
  /** Integer micro-USD charged. */
  amount_micros: number;
}

/**
 * The narrow port of ACP's card payment handler (issue 37 §3; ACP 2026-04-17 `openapi.delegate_payment.yaml`: the
 * PSP's token is Stripe's shared payment token).
 *
 * Contract:
 * - {@link DelegatedCardPort.chargeDelegatedCard} first reads the token at Stripe
 *   (`GET /v1/shared_payment/granted_tokens/{token}`): it must be active, in USD, unexpired and allow `amountCents`.
 *   Then it creates and confirms one PaymentIntent (`amount`, `currency: usd`, `confirm: true`,
 *   `payment_method_data: {type: <the token's payment method type>, shared_payment_granted_token: token}`,
 *   `metadata.order_id`) under `idempotencyKey`, and mirrors the succeeded payment bound to `orderId` in
 *   `linkpay_transactions`. The caller then confirms the order with `{rail: 'linkpay_ncp', transaction_id}`: the
 *   workflow verifies it (bound to the order, same amount, succeeded) and refunds it through the link provider when
 *   the order fails, is rejected or is cancelled. The order must offer `linkpay_ncp`.
 *   Throws ProblemError `payment_token_invalid` (422: unknown, deactivated, expired, other currency, allowance below
 *   the amount), `payment_failed` (402: declined or not confirmed, nothing taken; `decline_code` when Stripe gave
 *   one), `payment_in_progress` (409: Stripe still processing; retry later with the same key),
 *   `transaction_already_used` (409: the order already holds another payment: this one was refunded at once).
 *   Anything else (network, Stripe 5xx) is thrown as is: transient, retry with the same key.
 * - {@link DelegatedCardPort.refund}: refunds a mirrored Stripe payment in full, once (Stripe idempotency key
 *   `refund:<pi>`); true when given back (now or before), false when Stripe refuses.
 */
export interface DelegatedCardPort {
  chargeDelegatedCard(req: DelegatedCardCharge): Promise<CardCharge>;
  refund(transactionId: string): Promise<boolean>;
}

/** The fields of a shared payment granted token the charge checks (Stripe preview API). */
interface GrantedToken {
  id: string;
  deactivated_at: number | null;
  payment_method_details?: { type?: string } | null;
  usage_limits?: { currency?: string; max_amount?: number; expires_at?: number | null } | null;
}

/** The Stripe payment-link provider and delegated-card port. */
export class StripeLinkProvider implements PaymentLinkProvider, DelegatedCardPort {
  readonly kind = 'stripe' as const;

  constructor(
    private readonly d: Database,
    private readonly stripe: Stripe,
    private readonly settings: StripeSettings,
  ) {}

  checkoutUrl(orderId: string): string {
    return `${this.settings.publicBaseUrl}/pay/orders/${orderId}`;
  }

  /**
   * Opens (or, for the same order and parameters within Stripe's 24 h idempotency window, reopens) the Checkout
   * Session that takes the order's payment: one line item at the order's price, `client_reference_id` and
   * `metadata.order_id` (also on the PaymentIntent) binding it to the order.
   * @returns the session id and Stripe's page address to send the buyer to.
   */
  async createCheckoutSession(order: CheckoutOrder): Promise<{ id: string; url: string }> {
    if (order.amountMicros % MICROS_PER_CENT !== 0)
      throw new Error(`${order.amountMicros} micro-USD is not whole cents`);
    const now = Date.now();
    const expires = order.expiresAt
      ? Math.min(Math.max(order.expiresAt.getTime(), now + 31 * 60_000), now + 23.9 * 3_600_000)
      : undefined;
    const metadata = { order_id: order.orderId };
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'usd',
            unit_amount: order.amountMicros / MICROS_PER_CENT,
            product_data: { name: order.description.slice(0, 250) },
          },
        },
      ],
      client_reference_id: order.orderId,
      metadata,
      payment_intent_data: { metadata },
      success_url: order.returnUrl,
      cancel_url: order.returnUrl,
    };
    // Same order and same parameters: Stripe answers the first session (two presses of Pay open one session). The
    // expiry is left out of the key (it moves with the clock).
    const key = `checkout:${order.orderId}:${createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 16)}`;
    const session = await this.stripe.checkout.sessions.create(
      { ...params, ...(expires ? { expires_at: Math.floor(expires / 1000) } : {}) },
      { idempotencyKey: key },
    );
    if (!session.url) throw new Error(`Stripe returned Checkout Session ${session.id} without a url`);
    // Recorded before the buyer is sent to it: only sessions recorded here are acted on by the webhook.
    await this.remember({
      _id: session.id,
      kind: 'checkout_session',
      order_id: order.orderId,
      checkout_session_id: null,
      amount_cents: order.amountMicros / MICROS_PER_CENT,
      status: 'created',
    });
    return { id: session.id, url: session.url };
  }

  /**
   * Verifies a webhook delivery: the raw body and its `Stripe-Signature` header against STRIPE_WEBHOOK_SECRET
   * (`stripe.webhooks.constructEvent`, 5-minute tolerance).
   * @throws ProblemError 400 `webhook_signature_invalid` when the signature, its timestamp or the body does not hold.
   */
  verifyEvent(rawBody: string, signature: string | undefined): Stripe.Event {
    try {
      return this.stripe.webhooks.constructEvent(rawBody, signature ?? '', this.settings.webhookSecret);
    } catch (err) {
      throw problem('webhook_signature_invalid', `Stripe-Signature does not verify: ${(err as Error).message}`);
    }
  }

  /**
   * Mirrors a paid Checkout Session (from a verified `checkout.session.completed` or
   * `checkout.session.async_payment_succeeded` event), bound to its order. Idempotent by PaymentIntent id: the same
   * event again finds the first record. A payment for an order that already holds another succeeded payment (a
   * second session paid) is refunded at Stripe at once and mirrored as refunded.
   * @returns null when the session is not a paid payment of an order, or not one this service opened (recorded in
   *   `stripe_objects` for the same order and amount): nothing to do, nothing refunded.
   */
  async recordCheckoutSession(session: Stripe.Checkout.Session): Promise<RecordedPayment | null> {
    const orderId = session.client_reference_id ?? session.metadata?.order_id;
    const pi = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
    if (session.mode !== 'payment' || session.payment_status !== 'paid' || !orderId || !pi) return null;
    if (session.amount_total === null || session.currency?.toLowerCase() !== 'usd') return null;
    // Only a session this service opened, for this order and amount: a shared Stripe account carries others'.
    const ours = await this.d.stripeObjects.findOne({ _id: session.id, kind: 'checkout_session' });
    if (ours?.order_id !== orderId || ours.amount_cents !== session.amount_total) return null;
    return this.record({
      _id: pi,
      order_id: orderId,
      amount_micros: session.amount_total * MICROS_PER_CENT,
      currency: 'USD',
      status: 'succeeded',
      payer_email: session.customer_details?.email ?? session.customer_email ?? null,
      created_at: new Date(),
      refunded_at: null,
      provider: 'stripe',
      stripe_source: session.id,
    });
  }

  private async record(doc: LinkpayTransactionDoc): Promise<RecordedPayment> {
    try {
      await this.d.linkpayTransactions.insertOne(doc);
      return { tx: toTransaction(doc), outcome: 'recorded' };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const known = await this.d.linkpayTransactions.findOne({ _id: doc._id });
    if (known) return { tx: toTransaction(known), outcome: 'known' };
    // The order's one succeeded payment is another one: this is a second charge, given back now.
    const second: LinkpayTransactionDoc = { ...doc, status: 'refunded', refunded_at: new Date() };
    if (!(await this.refundAtStripe(doc._id, doc.order_id))) {
      throw new Error(`Stripe refused to refund ${doc._id}, a second payment of order ${doc.order_id}`);
    }
    try {
      await this.d.linkpayTransactions.insertOne(second);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    return { tx: toTransaction(second), outcome: 'second' };
  }

  /**
   * Mirrors a delegated card PaymentIntent that succeeded after its charge answered `processing` (a verified
   * `payment_intent.succeeded` event), as {@link recordCheckoutSession} does a Checkout Session: idempotent by id; a
   * second payment of the order is refunded at once.
   * @returns null unless the intent is one this service created (recorded in `stripe_objects`) for the order its
   *   metadata names, succeeded, in usd, for the recorded amount.
   */
  async recordPaymentIntent(intent: Stripe.PaymentIntent): Promise<RecordedPayment | null> {
    const ours = await this.ownIntent(intent);
    if (!ours || intent.status !== 'succeeded') return null;
    await this.d.stripeObjects.updateOne(
      { _id: intent.id, status: { $in: ['created', 'processing'] } },
      { $set: { status: 'succeeded', updated_at: new Date() } },
    );
    return this.record(delegatedMirror(intent.id, ours.order_id, ours.amount_cents, new Date()));
  }

  /**
   * Notes a delegated card PaymentIntent that failed after answering `processing` (a verified
   * `payment_intent.payment_failed` event): nothing was taken, nothing is mirrored, the order keeps waiting for a
   * payment until its deadline.
   * @returns the recorded intent, or null when it is not one this service created.
   */
  async notePaymentIntentFailed(intent: Stripe.PaymentIntent): Promise<StripeObjectDoc | null> {
    const ours = await this.ownIntent(intent);
    if (!ours) return null;
    await this.d.stripeObjects.updateOne(
      { _id: intent.id, status: { $in: ['created', 'processing'] } },
      { $set: { status: 'failed', updated_at: new Date() } },
    );
    return ours;
  }

  /** The record of `intent` when this service created it for the order and amount the intent carries, else null. */
  private async ownIntent(intent: Stripe.PaymentIntent): Promise<StripeObjectDoc | null> {
    const ours = await this.d.stripeObjects.findOne({ _id: intent.id, kind: 'payment_intent' });
    if (!ours || intent.metadata?.order_id !== ours.order_id) return null;
    if (intent.amount !== ours.amount_cents || intent.currency?.toLowerCase() !== 'usd') return null;
    return ours;
  }

  /** Records a Stripe object this service created (idempotent); a PaymentIntent's status moves only out of `processing`. */
  private async remember(doc: Omit<StripeObjectDoc, 'created_at' | 'updated_at'>): Promise<void> {
    const now = new Date();
    const { _id, status, ...fixed } = doc;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.d.stripeObjects.updateOne(
          { _id },
          { $setOnInsert: { ...fixed, status, created_at: now, updated_at: now } },
          { upsert: true },
        );
        break;
      } catch (err) {
        // Two upserts of one id at once: one inserts, the other meets the key; once more finds it.
        if (!isDuplicateKey(err) || attempt > 2) throw err;
      }
    }
    if (status !== 'created' && status !== 'processing')
      await this.d.stripeObjects.updateOne(
        { _id, status: { $in: ['created', 'processing'] } },
        { $set: { status, updated_at: now } },
      );
  }

  async chargeDelegatedCard(req: DelegatedCardCharge): Promise<CardCharge> {
    if (!Number.isInteger(req.amountCents) || req.amountCents <= 0) throw new Error('amountCents: a positive integer');
    const token = await this.grantedToken(req.token);
    const limits = token.usage_limits ?? {};
    const refuse = (why: string) => problem('payment_token_invalid', `Shared payment token ${req.token} ${why}`);
    // A deactivated token may be this very charge's, used by an attempt that died before recording it: the
    // idempotent create below answers that PaymentIntent again, or Stripe refuses the token.
    const used = token.deactivated_at !== null;
    if (limits.currency?.toLowerCase() !== 'usd') throw refuse(`is for ${limits.currency ?? 'no currency'}, not usd`);
    if (typeof limits.max_amount === 'number' && limits.max_amount < req.amountCents)
      throw refuse(`allows ${limits.max_amount} cents, the total is ${req.amountCents}`);
    if (limits.expires_at && limits.expires_at * 1000 <= Date.now()) throw refuse('has expired');
    const params = {
      amount: req.amountCents,
      currency: 'usd',
      confirm: true,
      payment_method_data: {
        type: token.payment_method_details?.type ?? 'card',
        shared_payment_granted_token: token.id,
      },
      metadata: { ...req.metadata, order_id: req.orderId },
    };
    let intent: Stripe.PaymentIntent;
    try {
      // A preview parameter, absent from the package's types: sent with the preview API version.
      intent = await this.stripe.paymentIntents.create(params as unknown as Stripe.PaymentIntentCreateParams, {
        idempotencyKey: req.idempotencyKey,
        apiVersion: this.settings.sptApiVersion,
      });
    } catch (err) {
      if (used && err instanceof Stripe.errors.StripeInvalidRequestError) throw refuse('is deactivated');
      if (err instanceof Stripe.errors.StripeCardError) {
        throw problem('payment_failed', `The card was declined: ${err.message}`, {
          ...(err.decline_code ? { decline_code: err.decline_code } : {}),
        });
      }
      throw err;
    }
    if (intent.amount !== req.amountCents || intent.currency !== 'usd')
      throw new Error(
        `PaymentIntent ${intent.id} is for ${intent.amount} ${intent.currency}, not ${req.amountCents} usd`,
      );
    // Recorded whatever its state: a `processing` intent is settled later by its `payment_intent.*` event.
    await this.remember({
      _id: intent.id,
      kind: 'payment_intent',
      order_id: req.orderId,
      checkout_session_id: req.checkoutSessionId ?? null,
      amount_cents: req.amountCents,
      status: intent.status === 'succeeded' ? 'succeeded' : intent.status === 'processing' ? 'processing' : 'failed',
    });
    if (intent.status === 'processing')
      throw problem('payment_in_progress', `Stripe is still processing PaymentIntent ${intent.id}`);
    if (intent.status !== 'succeeded')
      throw problem('payment_failed', `PaymentIntent ${intent.id} is ${intent.status}: nothing was taken`);
    const recorded = await this.record(delegatedMirror(intent.id, req.orderId, req.amountCents, new Date()));
    if (recorded.tx.order_id !== req.orderId)
      throw problem('transaction_already_used', `PaymentIntent ${intent.id} paid another order`);
    if (recorded.outcome === 'second')
      throw problem(
        'transaction_already_used',
        `Order ${req.orderId} already holds a payment; ${intent.id} was refunded`,
      );
    return { transaction_id: intent.id, amount_micros: recorded.tx.amount_micros };
  }

  /**
   * Delegated card PaymentIntents recorded `succeeded` in `stripe_objects` before `before` that have no payment-link
   * mirror: money Stripe took that no payment record shows (a process died between the two writes, and the session's
   * finisher found the order closed). For the books reconciliation (src/services/reconciliation.ts).
   */
  async unmirroredIntents(
    before: Date,
  ): Promise<Pick<StripeObjectDoc, '_id' | 'order_id' | 'amount_cents' | 'created_at'>[]> {
    const intents = await this.d.stripeObjects
      .find(
        { kind: 'payment_intent', status: 'succeeded', created_at: { $lt: before } },
        { projection: { order_id: 1, amount_cents: 1, created_at: 1 } },
      )
      .toArray();
    if (intents.length === 0) return [];
    const mirrored = new Set(
      (
        await this.d.linkpayTransactions
          .find({ _id: { $in: intents.map((i) => i._id) } }, { projection: { _id: 1 } })
          .toArray()
      ).map((t) => t._id),
    );
    return intents.filter((i) => !mirrored.has(i._id));
  }

  /**
   * Mirrors a recorded succeeded PaymentIntent ({@link unmirroredIntents}) as its order's link payment, as the charge
   * would have: idempotent by id; a second payment of the order is refunded at once.
   */
  mirrorIntent(
    intent: Pick<StripeObjectDoc, '_id' | 'order_id' | 'amount_cents' | 'created_at'>,
  ): Promise<RecordedPayment> {
    // Dated when Stripe took it: the payment-link check of the same run sees it.
    return this.record(delegatedMirror(intent._id, intent.order_id, intent.amount_cents, intent.created_at));
  }

  /** @throws ProblemError payment_token_invalid when Stripe knows no such token. */
  private async grantedToken(id: string): Promise<GrantedToken> {
    if (!/^spt_[A-Za-z0-9_]+$/.test(id)) throw problem('payment_token_invalid', 'Not a shared payment token (spt_…)');
    try {
      return (await this.stripe.rawRequest('GET', `/v1/shared_payment/granted_tokens/${id}`, undefined, {
        apiVersion: this.settings.sptApiVersion,
      })) as GrantedToken;
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError)
        throw problem('payment_token_invalid', `Stripe refused shared payment token ${id}: ${err.message}`);
      throw err;
    }
  }

  async getTransaction(transactionId: string): Promise<LinkTransaction | null> {
    const doc = await this.d.linkpayTransactions.findOne({ _id: transactionId, provider: 'stripe' });
    return doc ? toTransaction(doc) : null;
  }

  async findSucceededForOrder(orderId: string): Promise<LinkTransaction | null> {
    const doc = await this.d.linkpayTransactions.findOne({
      order_id: orderId,
      status: 'succeeded',
      provider: 'stripe',
    });
    return doc ? toTransaction(doc) : null;
  }

  /**
   * Refunds a mirrored Stripe payment in full at Stripe (idempotency key `refund:<pi>`: a retry refunds once), then
   * marks the mirror. True when refunded now or before; false when it is not a Stripe payment or Stripe refuses.
   * Network failures and Stripe 5xx are thrown (the caller's activity retries).
   */
  async refund(transactionId: string): Promise<boolean> {
    const doc = await this.d.linkpayTransactions.findOne({ _id: transactionId, provider: 'stripe' });
    if (!doc) return false;
    if (doc.status === 'refunded') return true;
    if (!(await this.refundAtStripe(doc._id, doc.order_id))) return false;
    await this.d.linkpayTransactions.updateOne(
      { _id: transactionId, status: 'succeeded' },
      { $set: { status: 'refunded', refunded_at: new Date() } },
    );
    return true;
  }

  private async refundAtStripe(paymentIntent: string, orderId: string): Promise<boolean> {
    try {
      const refund = await this.stripe.refunds.create(
        { payment_intent: paymentIntent, metadata: { order_id: orderId } },
        { idempotencyKey: `refund:${paymentIntent}` },
      );
      return refund.status !== 'failed' && refund.status !== 'canceled';
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError) return err.code === 'charge_already_refunded';
      throw err;
    }
  }
}

/** The payment-link mirror of a succeeded delegated card PaymentIntent `id` of `orderId` for `cents` (USD). */
function delegatedMirror(id: string, orderId: string, cents: number, createdAt: Date): LinkpayTransactionDoc {
  return {
    _id: id,
    order_id: orderId,
    amount_micros: cents * MICROS_PER_CENT,
    currency: 'USD',
    status: 'succeeded',
    payer_email: null,
    created_at: createdAt,
    refunded_at: null,
    provider: 'stripe',
    stripe_source: 'delegated',
  };
}

function toTransaction(doc: LinkpayTransactionDoc): LinkTransaction {
  return {
    id: doc._id,
    order_id: doc.order_id,
    amount_micros: doc.amount_micros,
    currency: doc.currency,
    status: doc.status,
    created_at: doc.created_at,
  };
}
