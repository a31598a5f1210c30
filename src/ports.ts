import type { Config } from './config';
import { connectDatabase, type Database } from './db';
import { EventRepository } from './repos/events';
import { OrderRepository } from './repos/orders';
import { WalletRepository } from './repos/wallets';
import { WebhookRepository } from './repos/webhooks';
import { LocalLinkPayProvider } from './payments/linkpay';
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
  linkpay: LocalLinkPayProvider;
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
  return {
    db,
    quotes: new QuoteRepository(db),
    orders: new OrderRepository(db),
    events: new EventRepository(db),
    wallets: new WalletRepository(db),
    webhooks: new WebhookRepository(db),
    linkpay: new LocalLinkPayProvider(db, config.PUBLIC_BASE_URL),
    store: createDeliverableStore(config, db.db),
    x402Payments: new X402PaymentRepository(db),
  };
}
