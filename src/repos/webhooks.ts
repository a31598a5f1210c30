import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  isDuplicateKey,
  type Database,
  type WebhookDeliveryDoc,
  type WebhookEndpointDoc,
  type WebhookMessageDoc,
} from '../db';
import { sha256Hex } from '../hash';
import { newSigningSecret } from '../webhooks/signing';

/** sha256 hex of a management token; only the hash is stored. */
export const hashToken = (token: string): string => sha256Hex(token);

/** Default overlap during which the previous secret keeps signing after a rotation (seconds). */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** What a registration returns: the stored endpoint and the credentials shown this once. */
export interface NewEndpoint {
  endpoint: WebhookEndpointDoc;
  secret: string;
  /** Management token (owner `token` and `order`); absent for agent-owned endpoints. */
  token?: string;
}

/** Id of the message carrying event `eventId` to endpoint `endpointId`. */
export const messageId = (eventId: string, endpointId: string): string => `${eventId}~${endpointId}`;

/**
 * Webhook endpoints, the messages fanned out to them and every delivery attempt (issue 5 §1, §2).
 * Messages and attempts are insert-once by id, so a retried activity records nothing twice.
 */
export class WebhookRepository {
  constructor(private readonly d: Database) {}

  /**
   * Registers an endpoint with a new secret (and a management token unless the agent's key manages it).
   * With `orderId` (an order's own `webhook_url`) the id is `we_<order_id>` and a second call returns the first.
   * With `named` (a request's Idempotency-Key, issue 36) the id (unless the order's), the secret's 32 bytes and the
   * token's 24 are those given, so a retried registration returns the first one with the same credentials.
   */
  async register(input: {
    url: string;
    agentId: string | null;
    orderId?: string;
    events: string[];
    named?: { id?: string; secret: Buffer; token: Buffer };
  }): Promise<NewEndpoint> {
    const now = new Date();
    const secret = newSigningSecret(input.named?.secret);
    const owner: WebhookEndpointDoc['owner'] = input.orderId ? 'order' : input.agentId ? 'agent' : 'token';
    const token =
      owner === 'agent' ? undefined : `wht_${(input.named?.token ?? randomBytes(24)).toString('base64url')}`;
    const endpoint: WebhookEndpointDoc = {
      // An order's endpoint has a derived id, so a retried order creation registers it once.
      _id: input.orderId ? `we_${input.orderId}` : `we_${input.named?.id ?? randomBytes(16).toString('base64url')}`,
      url: input.url,
      agent_id: input.agentId,
      order_id: input.orderId ?? null,
      events: input.events,
      secrets: [{ secret, created_at: now, expires_at: null }],
      owner,
      token_hash: token ? hashToken(token) : null,
      status: 'enabled',
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.d.webhookEndpoints.insertOne(endpoint);
    } catch (err) {
      const existing = isDuplicateKey(err) ? await this.get(endpoint._id) : null;
      if (!existing?.secrets[0]) throw err;
      // Retried creation: the same secret again; the token only when this call derived the same one (only its hash
      // is kept).
      const same = token !== undefined && existing.token_hash === hashToken(token);
      return { endpoint: existing, secret: existing.secrets[0].secret, ...(same ? { token } : {}) };
    }
    return { endpoint, secret, ...(token ? { token } : {}) };
  }

  /**
   * The order-events endpoint of an ACP platform for one order (`we_acp_<order_id>`, issue 37 §1): its URL and
   * secret are the platform's, its events the order's status changes, its body and signature ACP's. Idempotent.
   */
  ensureAcpEndpoint(input: {
    orderId: string;
    url: string;
    secret: string;
    events: readonly string[];
    acp: { checkout_session_id: string; platform_id: string };
  }): Promise<void> {
    return this.ensurePlatformEndpoint(
      input,
      'acp',
      [{ secret: input.secret, created_at: new Date(), expires_at: null }],
      {
        acp: input.acp,
      },
    );
  }

  /**
   * The order-events endpoint of a UCP platform for one order (`we_ucp_<order_id>`, issue 37 §2): the URL of the
   * platform's `dev.ucp.shopping.order` `config.webhook_url`; no shared secret (the messages are signed with this
   * business's profile keys, RFC 9421). Idempotent.
   */
  ensureUcpEndpoint(input: {
    orderId: string;
    url: string;
    events: readonly string[];
    ucp: { checkout_session_id: string; profile_url: string };
  }): Promise<void> {
    return this.ensurePlatformEndpoint(input, 'ucp', [], { ucp: input.ucp });
  }

  /** Inserts an agent platform's order endpoint `we_<format>_<order_id>` once (a retry finds it there). */
  private async ensurePlatformEndpoint(
    input: { orderId: string; url: string; events: readonly string[] },
    format: 'acp' | 'ucp',
    secrets: WebhookEndpointDoc['secrets'],
    protocol: Pick<WebhookEndpointDoc, 'acp' | 'ucp'>,
  ): Promise<void> {
    const now = new Date();
    try {
      await this.d.webhookEndpoints.insertOne({
        _id: `we_${format}_${input.orderId}`,
        url: input.url,
        agent_id: null,
        order_id: input.orderId,
        events: [...input.events],
        secrets,
        owner: 'order',
        format,
        ...protocol,
        token_hash: null,
        status: 'enabled',
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The endpoint or null. */
  get(id: string): Promise<WebhookEndpointDoc | null> {
    return this.d.webhookEndpoints.findOne({ _id: id });
  }

  /** True when `token` is the endpoint's management token (constant-time comparison of hashes). */
  static tokenMatches(endpoint: WebhookEndpointDoc, token: string | undefined): boolean {
    if (!token || !endpoint.token_hash) return false;
    const a = Buffer.from(hashToken(token), 'hex');
    const b = Buffer.from(endpoint.token_hash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Endpoints managed by `token` (its own management token) or by the wallets in `agentIds`. */
  listOwned(token: string, agentIds: string[]): Promise<WebhookEndpointDoc[]> {
    return this.d.webhookEndpoints
      .find({
        $or: [
          { token_hash: hashToken(token) },
          ...(agentIds.length > 0 ? [{ agent_id: { $in: agentIds }, owner: 'agent' as const }] : []),
        ],
      })
      .sort({ created_at: 1 })
      .toArray();
  }

  /**
   * Changes url / events / status, and with `rotate` adds a new secret while the current ones keep signing for
   * `overlapSeconds`. Returns the updated endpoint and the new secret when rotated.
   */
  async update(
    id: string,
    change: { url?: string; events?: string[]; enabled?: boolean; rotate?: boolean; overlapSeconds?: number },
  ): Promise<{ endpoint: WebhookEndpointDoc; secret?: string } | null> {
    const current = await this.get(id);
    if (!current) return null;
    const now = new Date();
    const set: Partial<WebhookEndpointDoc> = { updated_at: now };
    if (change.url !== undefined) set.url = change.url;
    if (change.events !== undefined) set.events = change.events;
    if (change.enabled === true) Object.assign(set, { status: 'enabled', disabled_reason: null });
    if (change.enabled === false) Object.assign(set, { status: 'disabled', disabled_reason: 'disabled by owner' });
    let secret: string | undefined;
    if (change.rotate) {
      secret = newSigningSecret();
      const until = new Date(now.getTime() + (change.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS) * 1000);
      set.secrets = [
        { secret, created_at: now, expires_at: null },
        ...activeSecrets(current, now).map((s) => ({
          ...s,
          expires_at: s.expires_at && s.expires_at < until ? s.expires_at : until,
        })),
      ];
    }
    await this.d.webhookEndpoints.updateOne({ _id: id }, { $set: set });
    const endpoint = await this.get(id);
    return endpoint ? { endpoint, ...(secret ? { secret } : {}) } : null;
  }

  /** Disables an endpoint (e.g. the receiver answered 410 Gone). */
  async disable(id: string, reason: string): Promise<void> {
    await this.d.webhookEndpoints.updateOne(
      { _id: id },
      { $set: { status: 'disabled', disabled_reason: reason, updated_at: new Date() } },
    );
  }

  /** Deletes an endpoint; its messages and delivery log stay for the record. Returns false when absent. */
  async delete(id: string): Promise<boolean> {
    return (await this.d.webhookEndpoints.deleteOne({ _id: id })).deletedCount === 1;
  }

  /**
   * Enabled endpoints that receive an order's events: those registered for its agent and the order's own
   * `webhook_url` endpoint. Event-name filtering is the caller's.
   */
  forOrder(orderId: string, agentId: string | null): Promise<WebhookEndpointDoc[]> {
    const or: object[] = [{ order_id: orderId }];
    if (agentId) or.push({ agent_id: agentId, owner: 'agent' });
    return this.d.webhookEndpoints.find({ status: 'enabled', $or: or }).toArray();
  }

  /** Inserts a message if absent; returns the stored one. */
  async ensureMessage(doc: WebhookMessageDoc): Promise<WebhookMessageDoc> {
    try {
      await this.d.webhookMessages.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.d.webhookMessages.findOne({ _id: doc._id });
      if (!existing) throw err;
      return existing;
    }
  }

  /** The message or null. */
  message(id: string): Promise<WebhookMessageDoc | null> {
    return this.d.webhookMessages.findOne({ _id: id });
  }

  /** Messages of an endpoint for one event, if any. */
  messageFor(eventId: string, endpointId: string): Promise<WebhookMessageDoc | null> {
    return this.message(messageId(eventId, endpointId));
  }

  /** Sets a message's state fields. */
  async setMessage(
    id: string,
    set: Partial<Pick<WebhookMessageDoc, 'status' | 'run' | 'attempts' | 'last_error'>>,
  ): Promise<void> {
    await this.d.webhookMessages.updateOne({ _id: id }, { $set: { ...set, updated_at: new Date() } });
  }

  /** The earliest still-pending message of the same order to the same endpoint with a lower sequence number. */
  pendingBefore(endpointId: string, orderId: string, seq: number): Promise<WebhookMessageDoc | null> {
    return this.d.webhookMessages.findOne(
      { endpoint_id: endpointId, order_id: orderId, seq: { $lt: seq }, status: 'pending' },
      { sort: { seq: 1 } },
    );
  }

  /** The next pending message of the same order to the same endpoint after `seq`. */
  pendingAfter(endpointId: string, orderId: string, seq: number): Promise<WebhookMessageDoc | null> {
    return this.d.webhookMessages.findOne(
      { endpoint_id: endpointId, order_id: orderId, seq: { $gt: seq }, status: 'pending' },
      { sort: { seq: 1 } },
    );
  }

  /** Records one attempt; a retried record of the same attempt keeps the first. */
  async recordAttempt(doc: WebhookDeliveryDoc): Promise<void> {
    try {
      await this.d.webhookDeliveries.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** Attempts to an endpoint, newest first (optionally of one event). `limit` at most 500. */
  deliveries(endpointId: string, opts: { eventId?: string; limit?: number } = {}): Promise<WebhookDeliveryDoc[]> {
    return this.d.webhookDeliveries
      .find({ endpoint_id: endpointId, ...(opts.eventId ? { event_id: opts.eventId } : {}) })
      .sort({ at: -1, attempt: -1 })
      .limit(Math.min(opts.limit ?? 100, 500))
      .toArray();
  }
}

/** Secrets that sign at `now`, newest first. */
export function activeSecrets(endpoint: WebhookEndpointDoc, now: Date): WebhookEndpointDoc['secrets'] {
  return endpoint.secrets.filter((s) => s.expires_at === null || s.expires_at.getTime() > now.getTime());
}
