import { isDuplicateKey, type Database, type EventDoc } from '../db';

/**
 * Order events, numbered per order so a receiver can put them in order. The id is derived from order and
 * sequence number, so a retried append is a no-op and the id stays stable across delivery retries
 * (Standard Webhooks `webhook-id`).
 */
export class EventRepository {
  constructor(private readonly d: Database) {}

  /** Appends event `seq` of an order; returns the stored event (the first one on a retry). */
  async append(
    orderId: string,
    seq: number,
    type: string,
    data: Record<string, unknown>,
    at: string,
  ): Promise<EventDoc> {
    const doc: EventDoc = {
      _id: `msg_${orderId}_${seq}`,
      order_id: orderId,
      seq,
      type,
      data,
      created_at: new Date(at),
    };
    try {
      await this.d.events.insertOne(doc);
      return doc;
    } catch (err) {
      if (isDuplicateKey(err)) {
        const existing = await this.d.events.findOne({ _id: doc._id });
        if (existing) return existing;
      }
      throw err;
    }
  }

  /** Events of an order in sequence order. */
  list(orderId: string): Promise<EventDoc[]> {
    return this.d.events.find({ order_id: orderId }).sort({ seq: 1 }).toArray();
  }
}
