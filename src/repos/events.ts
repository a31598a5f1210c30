import { onlyDuplicateKeys, type Database, type EventDoc } from '../db';

/** An event to append: `seq` numbers it within its order (from 1); `at` is ISO 8601. */
export interface NewEvent {
  orderId: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

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
    const [event] = await this.appendMany([{ orderId, seq, type, data, at }]);
    if (!event) throw new Error(`event ${seq} of ${orderId} was not stored`);
    return event;
  }

  /**
   * Appends several events in one write; returns the stored events in the given order (on a retry, the ones stored
   * first). Events already stored are kept as they are.
   * @throws MongoServerError for anything but duplicate ids.
   */
  async appendMany(events: readonly NewEvent[]): Promise<EventDoc[]> {
    const docs: EventDoc[] = events.map((e) => ({
      _id: `msg_${e.orderId}_${e.seq}`,
      order_id: e.orderId,
      seq: e.seq,
      type: e.type,
      data: e.data,
      created_at: new Date(e.at),
    }));
    try {
      await this.d.events.insertMany(docs, { ordered: false });
      return docs;
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
      const stored = await this.d.events.find({ _id: { $in: docs.map((d) => d._id) } }).toArray();
      const byId = new Map(stored.map((d) => [d._id, d]));
      return docs.map((d) => {
        const found = byId.get(d._id);
        if (!found) throw err;
        return found;
      });
    }
  }

  /** Events of an order in sequence order. */
  list(orderId: string): Promise<EventDoc[]> {
    return this.d.events.find({ order_id: orderId }).sort({ seq: 1 }).toArray();
  }
}
