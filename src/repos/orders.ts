import { isDuplicateKey, type Database, type OrderDoc } from '../db';
import { orderWorkflowId } from '../../workflows/shared';
import { type OrderStatus, type OrderWorkflowInput } from '../domain/order';

/** One status change of the read model: its number (`version`), the status entered and when (ISO 8601). */
export interface TransitionStep {
  version: number;
  status: OrderStatus;
  at: string;
}

/** Fields a transition may set besides the status. */
export type OrderPatch = Partial<
  Pick<OrderDoc, 'payment' | 'deliverables' | 'review' | 'refund' | 'failure' | 'engineering'>
>;

/**
 * The order read model. The API inserts it when it starts the workflow and the workflow's activities insert it
 * again (idempotently) and apply each transition, so no order exists without its workflow's record.
 */
export class OrderRepository {
  /** Long-poll waiters by order id (see {@link waitForChange}). */
  private readonly waiters = new Map<string, Set<{ version: number; resolve: (changed: boolean) => void }>>();
  private watching = false;

  constructor(private readonly d: Database) {}

  /**
   * Resolves true once the order's `version` is past `version`, or false after `timeoutMs`. All waiters of this
   * process share one indexed query every {@link WATCH_INTERVAL_MS} ms (a projection of `version` for their ids),
   * so N clients long-polling cost one query per interval, not N. Source: issue 9 §3 (long-poll instead of polling).
   */
  waitForChange(orderId: string, version: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const set = this.waiters.get(orderId) ?? new Set();
      this.waiters.set(orderId, set);
      const waiter = {
        version,
        resolve: (changed: boolean) => {
          clearTimeout(timer);
          set.delete(waiter);
          if (set.size === 0 && this.waiters.get(orderId) === set) this.waiters.delete(orderId);
          resolve(changed);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      set.add(waiter);
      if (!this.watching) void this.watch();
    });
  }

  private async watch(): Promise<void> {
    this.watching = true;
    try {
      while (this.waiters.size > 0) {
        await new Promise((r) => setTimeout(r, WATCH_INTERVAL_MS));
        const ids = [...this.waiters.keys()];
        let docs: Pick<OrderDoc, '_id' | 'version'>[] = [];
        try {
          docs = await this.d.orders.find({ _id: { $in: ids } }, { projection: { version: 1 } }).toArray();
        } catch {
          continue; // the database is away for a moment: waiters time out or see the change on the next round
        }
        for (const doc of docs) {
          for (const w of [...(this.waiters.get(doc._id) ?? [])]) if (doc.version > w.version) w.resolve(true);
        }
      }
    } finally {
      this.watching = false;
    }
  }

  /** Inserts the order if absent; a second call with the same id changes nothing. */
  async ensure(doc: OrderDoc): Promise<void> {
    try {
      await this.d.orders.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The order or null. */
  get(orderId: string): Promise<OrderDoc | null> {
    return this.d.orders.findOne({ _id: orderId });
  }

  /**
   * Applies transition number `version` (1-based, in workflow order). A retried write of an applied version is a
   * no-op, and an old write never overwrites a newer state. Returns the order as written, or null when this
   * version (or a newer one) was already applied.
   */
  applyTransition(
    orderId: string,
    version: number,
    status: OrderStatus,
    at: string,
    patch: OrderPatch = {},
  ): Promise<OrderDoc | null> {
    return this.applyTransitions(orderId, [{ version, status, at }], patch);
  }

  /**
   * Applies consecutive transitions (`steps`, versions ascending by one) in one atomic update: the status and version
   * of the last, every step appended to `progress`, `patch` set. All or nothing: a retry after any of them was applied
   * is a no-op (null), like {@link applyTransition}. Returns the order as written.
   */
  applyTransitions(
    orderId: string,
    steps: readonly TransitionStep[],
    patch: OrderPatch = {},
  ): Promise<OrderDoc | null> {
    const first = steps[0];
    const last = steps[steps.length - 1];
    if (!first || !last) return Promise.resolve(null);
    return this.d.orders.findOneAndUpdate(
      { _id: orderId, version: { $lt: first.version } },
      {
        $set: { ...patch, status: last.status, version: last.version, updated_at: new Date(last.at) },
        $push: { progress: { $each: steps.map(({ status, at }) => ({ status, at })) } },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * Rewrites a stale read model to its closed workflow's final state (books reconciliation, issue 24 §3): status,
   * progress and the fields the workflow recorded, with `version` at least the number of progress entries. Only while
   * the read model still shows `from` at `version` (compare-and-set), so a late activity write wins over it.
   * Returns the order as rewritten, or null when it changed meanwhile.
   */
  rewriteStatus(
    orderId: string,
    from: { status: OrderStatus; version: number },
    final: Pick<OrderDoc, 'status' | 'progress'> & OrderPatch,
  ): Promise<OrderDoc | null> {
    const patch: OrderPatch = {};
    for (const key of ['payment', 'refund', 'review', 'failure'] as const) {
      if (final[key] !== undefined) Object.assign(patch, { [key]: final[key] });
    }
    return this.d.orders.findOneAndUpdate(
      { _id: orderId, status: from.status, version: from.version },
      {
        $set: {
          ...patch,
          status: final.status,
          progress: final.progress,
          version: Math.max(from.version, final.progress.length),
          updated_at: new Date(),
        },
      },
      { returnDocument: 'after' },
    );
  }

  /** Sets fields without a transition (e.g. a refund recorded while the status stays). */
  async patch(orderId: string, patch: OrderPatch): Promise<void> {
    await this.d.orders.updateOne({ _id: orderId }, { $set: { ...patch, updated_at: new Date() } });
  }
}

/** How often the long-poll watcher of {@link OrderRepository.waitForChange} reads the versions it waits on. */
export const WATCH_INTERVAL_MS = 25;

/**
 * The initial read-model document of an order: status awaiting_payment, version 1. Built the same way by the API
 * and by the workflow's first activity, so whichever writes first, the record is identical.
 */
export function initialOrderDoc(input: OrderWorkflowInput): OrderDoc {
  const r = input.record;
  return {
    _id: input.orderId,
    workflow_id: orderWorkflowId(input.orderId),
    service_id: input.serviceId,
    quote_id: r.quote_id,
    agent_id: r.agent_id,
    email: r.email,
    webhook_url: r.webhook_url,
    partner_id: r.partner_id,
    buyer_secret_hash: r.buyer_secret_hash ?? null,
    inputs: input.inputs,
    amount_micros: input.amountMicros,
    currency: input.currency,
    billing: r.billing,
    is_agent: r.is_agent,
    rails: input.rails,
    status: 'awaiting_payment',
    version: 1,
    progress: [{ status: 'awaiting_payment', at: r.created_at }],
    payment: null,
    deliverables: [],
    review: null,
    refund: null,
    failure: null,
    payment_deadline: new Date(r.payment_deadline),
    created_at: new Date(r.created_at),
    updated_at: new Date(r.created_at),
  };
}
