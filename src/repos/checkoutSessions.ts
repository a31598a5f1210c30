/**
 * ACP checkout sessions, the platforms that open them and the delegated-payment tokens that pay them (issue 37 §1).
 * Every write is keyed by the document's id, so a retried request writes what the first one did.
 */
import { randomBytes } from 'node:crypto';
import {
  isDuplicateKey,
  type AcpPaymentTokenDoc,
  type AcpPlatformDoc,
  type CheckoutSessionDoc,
  type Database,
} from '../db';
import { sha256Hex } from '../hash';

/** A new platform API key: `acp_` + 256 random bits (shown once; only its sha256 is stored). */
export const newPlatformKey = (): string => `acp_${randomBytes(32).toString('base64url')}`;

/** Sessions, platforms and tokens over their collections (src/db.ts). */
export class CheckoutSessionRepository {
  constructor(private readonly d: Database) {}

  /**
   * Creates a platform named `name`, with its request-signing key and order-events webhook when given; returns it
   * and its API key, shown this once.
   */
  async createPlatform(
    name: string,
    extra: Pick<AcpPlatformDoc, 'request_signing' | 'webhook'> = {},
  ): Promise<{ platform: AcpPlatformDoc; apiKey: string }> {
    const apiKey = newPlatformKey();
    const platform: AcpPlatformDoc = {
      _id: `plat_${randomBytes(12).toString('base64url')}`,
      name,
      key_hash: sha256Hex(apiKey),
      request_signing: extra.request_signing ?? null,
      webhook: extra.webhook ?? null,
      created_at: new Date(),
    };
    await this.d.acpPlatforms.insertOne(platform);
    return { platform, apiKey };
  }

  /** The platform `id`, or null. */
  platform(id: string): Promise<AcpPlatformDoc | null> {
    return this.d.acpPlatforms.findOne({ _id: id });
  }

  /** Keeps where the platform's Feed API is and the feed id there (decision 0039). */
  async setPlatformFeed(id: string, feed: NonNullable<AcpPlatformDoc['feed']>): Promise<void> {
    await this.d.acpPlatforms.updateOne({ _id: id }, { $set: { feed } });
  }

  /** The platform whose API key is `apiKey`, or null (compared by the key's sha256, as stored). */
  platformOfKey(apiKey: string): Promise<AcpPlatformDoc | null> {
    return this.d.acpPlatforms.findOne({ key_hash: sha256Hex(apiKey) });
  }

  /** Inserts `doc` unless a session with its id exists; returns the stored one (a retry gets the first's). */
  async insert(doc: CheckoutSessionDoc): Promise<CheckoutSessionDoc> {
    try {
      await this.d.checkoutSessions.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.d.checkoutSessions.findOne({ _id: doc._id });
      if (!existing) throw err;
      return existing;
    }
  }

  get(id: string): Promise<CheckoutSessionDoc | null> {
    return this.d.checkoutSessions.findOne({ _id: id });
  }

  /** The session whose order is `orderId` (each session names its one order when it is made), or null. */
  ofOrder(orderId: string): Promise<CheckoutSessionDoc | null> {
    return this.d.checkoutSessions.findOne({ order_id: orderId });
  }

  /**
   * Writes `changes` when the session is still at `version` (compare-and-set); returns the new document, or null
   * when another request changed it first.
   */
  async update(
    doc: CheckoutSessionDoc,
    changes: Partial<Omit<CheckoutSessionDoc, '_id' | 'version'>>,
  ): Promise<CheckoutSessionDoc | null> {
    const next = { ...changes, updated_at: changes.updated_at ?? new Date(), version: doc.version + 1 };
    const res = await this.d.checkoutSessions.findOneAndUpdate(
      { _id: doc._id, version: doc.version },
      { $set: next },
      { returnDocument: 'after' },
    );
    return res ?? null;
  }

  /** Inserts a delegated-payment token unless one with its id exists; returns the stored one. */
  async insertToken(doc: AcpPaymentTokenDoc): Promise<AcpPaymentTokenDoc> {
    try {
      await this.d.acpPaymentTokens.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.d.acpPaymentTokens.findOne({ _id: doc._id });
      if (!existing) throw err;
      return existing;
    }
  }

  token(id: string): Promise<AcpPaymentTokenDoc | null> {
    return this.d.acpPaymentTokens.findOne({ _id: id });
  }
}
