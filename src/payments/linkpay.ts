import { randomBytes } from 'node:crypto';
import { isDuplicateKey, type Database, type LinkpayTransactionDoc } from '../db';

/** A hosted payment-link transaction as the provider reports it. Amount in integer micro-units. */
export interface LinkTransaction {
  id: string;
  order_id: string;
  amount_micros: number;
  currency: string;
  status: 'succeeded' | 'refunded';
  created_at: Date;
}

/**
 * The hosted payment-link rail `linkpay_ncp` (seed §1): the port every payment path uses (the order workflow's
 * activities verify, adopt and refund through it; the reconciliation refunds orphans through it). Two providers:
 * {@link LocalLinkPayProvider} (test mode, the default) and `StripeLinkProvider` (src/payments/stripe.ts), chosen by
 * LINK_PROVIDER (issue 37 §3). A provider binds each transaction to one order (Stripe: the Checkout Session's
 * `client_reference_id` and metadata), which is how "a transaction already used for another order" is recognised.
 */
export interface PaymentLinkProvider {
  /** `local`: no money moves (test mode); `stripe`: Stripe Checkout. */
  readonly kind: 'local' | 'stripe';
  /** Address of the hosted checkout page for an order. */
  checkoutUrl(orderId: string): string;
  /** Looks a transaction up at the provider; null when unknown. */
  getTransaction(transactionId: string): Promise<LinkTransaction | null>;
  /** Refunds a succeeded transaction; idempotent. Returns false when it was not refundable. */
  refund(transactionId: string): Promise<boolean>;
  /** The order's succeeded transaction, if the buyer paid it (whether or not anyone confirmed it since). */
  findSucceededForOrder(orderId: string): Promise<LinkTransaction | null>;
}

/**
 * Local provider: the service's own checkout page (`/pay/orders/<id>`) records transactions in MongoDB.
 * Transactions are bound to one order at creation, which is how "a transaction already used for another order"
 * is recognised.
 */
export class LocalLinkPayProvider implements PaymentLinkProvider {
  readonly kind = 'local' as const;

  constructor(
    private readonly d: Database,
    private readonly baseUrl: string,
  ) {}

  checkoutUrl(orderId: string): string {
    return `${this.baseUrl}/pay/orders/${orderId}`;
  }

  /**
   * Records a succeeded payment for an order (the human pressed Pay on the checkout page).
   * Returns the existing succeeded transaction of the order instead of charging twice.
   */
  async createTransaction(
    orderId: string,
    amountMicros: number,
    currency: string,
    payerEmail: string | null,
  ): Promise<LinkTransaction> {
    const existing = await this.d.linkpayTransactions.findOne({ order_id: orderId, status: 'succeeded' });
    if (existing) return toTransaction(existing);
    const doc: LinkpayTransactionDoc = {
      _id: `lp_${randomBytes(16).toString('hex')}`,
      order_id: orderId,
      amount_micros: amountMicros,
      currency,
      status: 'succeeded',
      payer_email: payerEmail,
      created_at: new Date(),
      refunded_at: null,
    };
    try {
      await this.d.linkpayTransactions.insertOne(doc);
    } catch (err) {
      // A concurrent Pay of the same order won (the unique index): answer its transaction, charge nothing more.
      if (!isDuplicateKey(err)) throw err;
      const winner = await this.d.linkpayTransactions.findOne({ order_id: orderId, status: 'succeeded' });
      if (!winner) throw err;
      return toTransaction(winner);
    }
    return toTransaction(doc);
  }

  async findSucceededForOrder(orderId: string): Promise<LinkTransaction | null> {
    const doc = await this.d.linkpayTransactions.findOne({ order_id: orderId, status: 'succeeded' });
    return doc ? toTransaction(doc) : null;
  }

  async getTransaction(transactionId: string): Promise<LinkTransaction | null> {
    const doc = await this.d.linkpayTransactions.findOne({ _id: transactionId });
    return doc ? toTransaction(doc) : null;
  }

  async refund(transactionId: string): Promise<boolean> {
    // A Stripe payment's mirror is refunded at Stripe only: marking it here would keep the buyer's money.
    const res = await this.d.linkpayTransactions.updateOne(
      { _id: transactionId, status: 'succeeded', provider: { $ne: 'stripe' } },
      { $set: { status: 'refunded', refunded_at: new Date() } },
    );
    if (res.modifiedCount === 1) return true;
    const doc = await this.d.linkpayTransactions.findOne({ _id: transactionId });
    return doc?.status === 'refunded' && doc.provider !== 'stripe';
  }
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
