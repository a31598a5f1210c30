/**
 * Hosted receptionists and their conversations (issue 38 §1). A receptionist is made once per order (unique
 * `order_id`); its status is written by the subscription workflow's activity with the subscription's record version,
 * applied only when newer than the one it holds; a conversation's turn is written only on the turn it was read at.
 */
import { randomBytes } from 'node:crypto';
import {
  isDuplicateKey,
  type ConversationDoc,
  type Database,
  type ReceptionistDoc,
  type ReceptionistStatus,
} from '../db';

/** What a status write did: `applied`, `unchanged` (a write as new or newer is already there), `absent`. */
export type StateWrite = 'applied' | 'unchanged' | 'absent';

/** Receptionists and conversations. */
export class ReceptionistRepository {
  constructor(private readonly d: Database) {}

  /**
   * The receptionist of an order, made active on first call with its booking page `pageId`; idempotent, so a retried
   * delivery finds the same one.
   */
  async ensure(orderId: string, pageId: string): Promise<ReceptionistDoc> {
    const existing = await this.d.receptionists.findOne({ order_id: orderId });
    if (existing) return existing;
    const now = new Date();
    const doc: ReceptionistDoc = {
      _id: `rc_${randomBytes(16).toString('base64url')}`,
      order_id: orderId,
      page_id: pageId,
      config: null,
      prompt: null,
      status: 'active',
      status_reason: null,
      status_version: 0,
      status_changed_at: now,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.d.receptionists.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err) && !/exclusion constraint/.test(String(err))) throw err;
      const won = await this.d.receptionists.findOne({ order_id: orderId });
      if (!won) throw err;
      return won;
    }
  }

  /** Stores the delivered config and system prompt (the same JSON and text the buyer downloads). */
  async setContent(id: string, config: Record<string, unknown>, prompt: string): Promise<void> {
    await this.d.receptionists.updateOne({ _id: id }, { $set: { config, prompt, updated_at: new Date() } });
  }

  /** The receptionist or null. */
  get(id: string): Promise<ReceptionistDoc | null> {
    return this.d.receptionists.findOne({ _id: id });
  }

  /** The receptionist of an order or null. */
  ofOrder(orderId: string): Promise<ReceptionistDoc | null> {
    return this.d.receptionists.findOne({ order_id: orderId });
  }

  /**
   * Sets the status of an order's receptionist as of subscription write `version`: applied only when newer than the
   * version it holds, so a retried or overtaken write changes nothing.
   */
  async setState(
    orderId: string,
    status: ReceptionistStatus,
    reason: string | null,
    version: number,
  ): Promise<StateWrite> {
    const now = new Date();
    const res = await this.d.receptionists.updateOne(
      { order_id: orderId, status_version: { $lt: version } },
      {
        $set: {
          status,
          status_reason: reason,
          status_version: version,
          status_changed_at: now,
          updated_at: now,
        },
      },
    );
    if (res.matchedCount === 1) return 'applied';
    return (await this.ofOrder(orderId)) ? 'unchanged' : 'absent';
  }

  /** Stores a new conversation. */
  async createConversation(doc: ConversationDoc): Promise<void> {
    await this.d.conversations.insertOne(doc);
  }

  /** A conversation of a receptionist or null. */
  conversation(receptionistId: string, id: string): Promise<ConversationDoc | null> {
    return this.d.conversations.findOne({ _id: id, receptionist_id: receptionistId });
  }

  /**
   * Writes turn `turn + 1` of a conversation read at `turn`: false when another message was answered meanwhile
   * (nothing is written then).
   */
  async saveTurn(doc: ConversationDoc, turn: number): Promise<boolean> {
    const { _id, ...rest } = doc;
    const res = await this.d.conversations.updateOne({ _id, turn }, { $set: { ...rest, turn: turn + 1 } });
    return res.matchedCount === 1;
  }

  /** A receptionist's conversations, latest first. */
  conversations(receptionistId: string, limit = 100): Promise<ConversationDoc[]> {
    return this.d.conversations
      .find({ receptionist_id: receptionistId })
      .sort({ updated_at: -1 })
      .limit(limit)
      .toArray();
  }
}
