import { isDuplicateKey, type Database, type SubscriptionDoc } from '../db';
import type { SubscriptionCharge, SubscriptionState } from '../domain/subscription';

/**
 * Read model of the monthly subscriptions (issue 6 §2), written only by the subscription workflow's activities.
 * Each write carries the workflow's `version` and applies once, in order, so activity retries are harmless.
 */
export class SubscriptionRepository {
  constructor(private readonly d: Database) {}

  /** Inserts the subscription if absent; a second call with the same id changes nothing. */
  async ensure(doc: SubscriptionDoc): Promise<void> {
    try {
      await this.d.subscriptions.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The subscription of an order, or null. */
  get(orderId: string): Promise<SubscriptionDoc | null> {
    return this.d.subscriptions.findOne({ _id: orderId });
  }

  /** Applies write `version`: the new state and, optionally, one more charge attempt. Returns true when applied. */
  async apply(
    orderId: string,
    version: number,
    state: SubscriptionState,
    charge?: SubscriptionCharge,
  ): Promise<boolean> {
    const set: Partial<SubscriptionDoc> = {
      status: state.status,
      current_period: state.current_period,
      next_charge_at: state.next_charge_at,
      cancel_at_period_end: state.cancel_at_period_end,
      cancel_reason: state.cancel_reason,
      ended_at: state.ended_at,
      dunning: state.dunning,
      open_invoice: state.open_invoice,
      version,
      updated_at: new Date(),
    };
    const res = await this.d.subscriptions.updateOne(
      { _id: orderId, version: { $lt: version } },
      charge ? { $set: set, $push: { charges: charge } } : { $set: set },
    );
    return res.modifiedCount === 1;
  }
}
