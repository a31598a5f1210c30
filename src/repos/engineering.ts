import type { Database, OrderDoc } from '../db';
import type { OrderProgressEvent, OrderStatus } from '../domain/order';
import type { OrderPatch } from './orders';

/** Statuses in which an expert-delivery order waits for its engineer (the queue). */
export const ENGINEERING_QUEUE_STATUSES: readonly OrderStatus[] = ['in_engineering', 'sla_breached'];

/**
 * The engineer queue (issue 6 §1) over the order read model: orders waiting for their engineer are the orders in
 * `in_engineering` or `sla_breached` (partial index `engineering_queue`), their `engineering` field holds the assignment.
 * No second collection to keep in step: the workflow writes both through the same versioned update.
 */
export class EngineeringRepository {
  constructor(private readonly d: Database) {}

  /**
   * Orders waiting for an engineer, the most urgent SLA deadline first; `engineer` narrows to one engineer's
   * claimed orders, `unclaimed` to orders nobody claimed. At most `limit`.
   */
  async queue(filter: { engineer?: string; unclaimed?: boolean; limit?: number } = {}): Promise<OrderDoc[]> {
    const docs = await this.d.orders
      // `engineering` is what the partial index `engineering_queue` holds: only expert orders.
      .find({ status: { $in: [...ENGINEERING_QUEUE_STATUSES] }, engineering: { $type: 'object' } })
      .sort({ updated_at: -1 })
      .limit(2000)
      .toArray();
    return docs
      .filter((o) => o.engineering)
      .filter((o) => (filter.engineer ? o.engineering?.engineer === filter.engineer : true))
      .filter((o) => (filter.unclaimed ? !o.engineering?.engineer : true))
      .sort(
        (a, b) =>
          (a.engineering?.sla_deadline ?? '').localeCompare(b.engineering?.sla_deadline ?? '') ||
          a._id.localeCompare(b._id),
      )
      .slice(0, filter.limit ?? 200);
  }

  /**
   * Applies progress entry number `version` (shared with the order's transitions) without changing the status:
   * a retried write of an applied version is a no-op and an old write never overwrites a newer one.
   */
  async applyProgress(
    orderId: string,
    version: number,
    status: OrderStatus,
    event: OrderProgressEvent,
    at: string,
    patch: OrderPatch = {},
  ): Promise<boolean> {
    const res = await this.d.orders.updateOne(
      { _id: orderId, version: { $lt: version } },
      { $set: { ...patch, status, version, updated_at: new Date(at) }, $push: { progress: { status, at, event } } },
    );
    return res.modifiedCount === 1;
  }
}
