import type { Config } from './config';
import { connectDatabase, type Database } from './db';
import { EventRepository } from './repos/events';
import { OrderRepository } from './repos/orders';
import { WalletRepository } from './repos/wallets';
import { WebhookRepository } from './repos/webhooks';
import { LocalLinkPayProvider, type PaymentLinkProvider } from './payments/linkpay';
import { StripeLinkProvider, stripeClient } from './payments/stripe';
import { createDeliverableStore, type StreamingDeliverableStore } from './storage';
import { X402PaymentRepository } from './repos/x402Payments';
import { QuoteRepository } from './repos/quotes';

/** Everything backed by the database or storage, shared by the API and the worker. */
export interface Services {
  db: Database;
  quotes: QuoteRepository;
  orders: OrderRepository;
  events: EventRepository;
  wallets: WalletRepository;
  webhooks: WebhookRepository;
  /**
   * The local payment-link provider (test mode: no money moves). Tests and the local hosted page record payments
   * through it; every other payment path uses {@link Services.linkProvider}.
   */
  linkpay: LocalLinkPayProvider;
  /**
   * The payment-link provider LINK_PROVIDER selects (issue 37 §3): `linkpay` itself, or Stripe. The order workflow's
   * activities, the hosted page, the reconciliation and the repairs verify, adopt and refund link payments through it.
   */
  linkProvider: PaymentLinkProvider;
  /** The Stripe adapter when LINK_PROVIDER is `stripe` (Checkout, webhooks, ACP delegated card payments). */
  stripe?: StripeLinkProvider;
  /** Deliverables, shared by every process (issue 25 §2): GridFS, S3 or local files per DELIVERABLE_STORE. */
  store: StreamingDeliverableStore;
  /** x402 payments ledger and payment-identifier store (issue 3). */
  x402Payments: X402PaymentRepository;
}

/**
 * Connects the database and builds the repositories and adapters from the configuration.
 * @throws when MongoDB cannot be reached.
 */
export async function createServices(config: Config): Promise<Services> {
  const db = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB);
  const linkpay = new LocalLinkPayProvider(db, config.PUBLIC_BASE_URL);
  const stripe = config.LINK_PROVIDER === 'stripe' ? createStripeProvider(config, db) : undefined;
  return {
    db,
    quotes: new QuoteRepository(db),
    orders: new OrderRepository(db),
    events: new EventRepository(db),
    wallets: new WalletRepository(db),
    webhooks: new WebhookRepository(db),
    linkpay,
    linkProvider: stripe ?? linkpay,
    ...(stripe ? { stripe } : {}),
    store: createDeliverableStore(config, db.db),
    x402Payments: new X402PaymentRepository(db),
  };
}

/** The Stripe adapter of `config` (LINK_PROVIDER=stripe: the config's rules guarantee both keys). */
function createStripeProvider(config: Config, db: Database): StripeLinkProvider {
  const secretKey = config.STRIPE_SECRET_KEY;
  const webhookSecret = config.STRIPE_WEBHOOK_SECRET;
  if (!secretKey || !webhookSecret)
    throw new Error('LINK_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  const settings = {
    secretKey,
    webhookSecret,
    ...(config.STRIPE_API_BASE ? { apiBase: config.STRIPE_API_BASE } : {}),
    sptApiVersion: config.STRIPE_SPT_API_VERSION,
    publicBaseUrl: config.PUBLIC_BASE_URL,
  };
  return new StripeLinkProvider(db, stripeClient(settings), settings);
}
