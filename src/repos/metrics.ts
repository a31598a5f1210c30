import type { Database } from '../db';
import type { ReconciliationReport } from '../domain/reconciliation';

/**
 * What the business gauges show (issue 39 §1), read from the books at scrape time. Amounts are integer micro-USD.
 * - `ordersByStatus`: orders per read-model status (seed §2.4 statuses);
 * - `takenByRail` / `returnedByRail`: money taken for orders (their `payment`) and given back (`refund` completed),
 *   per payment rail; `refundsDue`: refunds owed and not yet sent, per rail;
 * - `webhookMessages`: messages per status (`pending`, `delivered`, `failed` = dead-lettered);
 * - `x402ByStatus`: x402 ledger entries per status (`pending` = claims awaiting confirmation);
 * - `checkoutSessions`: agent checkout sessions per status;
 * - `reconciliation`: the last stored report's discrepancy count and finish time (null before the first run).
 */
export interface BusinessSnapshot {
  ordersByStatus: Record<string, number>;
  takenByRail: Record<string, number>;
  returnedByRail: Record<string, number>;
  refundsDue: Record<string, number>;
  webhookMessages: Record<string, number>;
  x402ByStatus: Record<string, number>;
  checkoutSessions: Record<string, number>;
  reconciliation: { discrepancies: number; finishedAt: Date; ok: boolean } | null;
}

type Group = { _id: string | null; n: number };

const byId = (rows: Group[]): Record<string, number> => Object.fromEntries(rows.map((r) => [r._id ?? 'none', r.n]));

/** Read-only aggregations over the books for the metrics endpoint (src/telemetry/metrics.ts). */
export class MetricsRepository {
  constructor(private readonly d: Database) {}

  /** One {@link BusinessSnapshot}: seven aggregations run together (each a group by one field). */
  async snapshot(): Promise<BusinessSnapshot> {
    const count = (field: string) => [{ $group: { _id: `$${field}`, n: { $sum: 1 } } }];
    const [orders, taken, returned, due, hooks, x402, sessions, last] = await Promise.all([
      this.d.orders.aggregate<Group>(count('status')).toArray(),
      this.d.orders
        .aggregate<Group>([
          { $match: { payment: { $ne: null } } },
          { $group: { _id: '$payment.rail', n: { $sum: '$payment.amount_micros' } } },
        ])
        .toArray(),
      this.d.orders
        .aggregate<Group>([
          { $match: { 'refund.status': 'completed' } },
          { $group: { _id: '$refund.rail', n: { $sum: '$refund.amount_micros' } } },
        ])
        .toArray(),
      this.d.orders
        .aggregate<Group>([
          { $match: { 'refund.status': 'due' } },
          { $group: { _id: '$refund.rail', n: { $sum: '$refund.amount_micros' } } },
        ])
        .toArray(),
      this.d.webhookMessages.aggregate<Group>(count('status')).toArray(),
      this.d.x402Payments.aggregate<Group>(count('status')).toArray(),
      this.d.checkoutSessions.aggregate<Group>(count('status')).toArray(),
      this.d.reconciliationReports.findOne({ _id: 'last' }, { projection: { report: 1 } }),
    ]);
    const report: ReconciliationReport | undefined = last?.report;
    return {
      ordersByStatus: byId(orders),
      takenByRail: byId(taken),
      returnedByRail: byId(returned),
      refundsDue: byId(due),
      webhookMessages: byId(hooks),
      x402ByStatus: byId(x402),
      checkoutSessions: byId(sessions),
      reconciliation: report
        ? { discrepancies: report.discrepancy_count, finishedAt: new Date(report.finished_at), ok: report.ok }
        : null,
    };
  }
}
