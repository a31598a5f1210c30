/**
 * The books reconciliation activity (issue 24 §3): {@link reconcileBooks} of the application layer over its ports
 * (the worker wires the database repositories, the order-workflow port over the Temporal client and the chain), then
 * the report stored as the last one for `GET /api/v1/operator/reconciliation`.
 */
import type { ReconciliationReport } from '../src/domain/reconciliation';
import type { ReconciliationReportRepository } from '../src/repos/reconciliationReports';
import { logger } from '../src/telemetry/logger';
import { reconcileBooks, type ReconciliationPorts } from '../src/services/reconciliation';
import { whileHeartbeating } from './heartbeat';

/** What the reconciliation activity needs: the service's ports, where reports go and the default grace period. */
export interface ReconciliationActivityPorts extends ReconciliationPorts {
  reports: Pick<ReconciliationReportRepository, 'save' | 'runs'>;
  /** Seconds a debit or order change may be in flight before it counts (RECONCILE_GRACE_SECONDS). */
  graceSeconds: number;
}

/** Argument of `reconcileBooks`: repairs on or off, and the grace period (default the port's). */
export interface ReconcileBooksRequest {
  repair: boolean;
  graceSeconds?: number;
  /** Ask every open order's workflow (an operator's run); else the scope follows {@link scopeOf}. */
  full?: boolean;
}

/** A run without `full` asks every open order's workflow when the last full run is older than this (milliseconds). */
export const FULL_SWEEP_EVERY_MS = 60 * 60_000;
/** A `recent` run lists workflows closed since the previous run started, less the grace period and this margin. */
const RECENT_MARGIN_MS = 5 * 60_000;

/**
 * `full` (every open order's workflow asked, a describe call each) on request, on the first run and once the last
 * full run is {@link FULL_SWEEP_EVERY_MS} old; otherwise `recent`: the orders whose workflow closed since the previous
 * run started (one visibility listing) and those with a payment in flight. Every 30 s, a full run asked up to 2,000
 * workflows: CPU on the worker and the Temporal server that grew with the open orders (docs/benchmarks.md).
 * @returns the `ordersClosedSince` option of a recent run, or `{}` for a full one.
 */
export async function scopeOf(
  reports: Pick<ReconciliationReportRepository, 'runs'>,
  req: Pick<ReconcileBooksRequest, 'full'>,
  graceSeconds: number,
  now: Date,
): Promise<{ ordersClosedSince?: Date }> {
  if (req.full) return {};
  const { lastStartedAt, lastFullStartedAt } = await reports.runs();
  if (!lastStartedAt || !lastFullStartedAt || now.getTime() - lastFullStartedAt.getTime() >= FULL_SWEEP_EVERY_MS)
    return {};
  return { ordersClosedSince: new Date(lastStartedAt.getTime() - graceSeconds * 1000 - RECENT_MARGIN_MS) };
}

/** Builds the reconciliation activity over its ports. */
export function createReconciliationActivities(ports: ReconciliationActivityPorts) {
  return {
    /**
     * Checks the books, repairs what it may (`repair`), stores the report as the last one and returns it. Heartbeats
     * while it runs (a large book takes a while). Database errors are thrown (retried by Temporal).
     */
    async reconcileBooks(req: ReconcileBooksRequest): Promise<ReconciliationReport> {
      return whileHeartbeating(async () => {
        const graceSeconds = req.graceSeconds ?? ports.graceSeconds;
        const report = await reconcileBooks(ports, {
          repair: req.repair,
          graceSeconds,
          ...(await scopeOf(ports.reports, req, graceSeconds, ports.now?.() ?? new Date())),
        });
        await ports.reports.save(report);
        // What a repairing run could not settle is held for an operator: each discrepancy is an alert in the logs (besides the
        // workflow's ReconcileDiscrepancies search attribute and GET /api/v1/operator/reconciliation). Issue 36 §1.
        for (const d of req.repair ? report.discrepancies : []) {
          logger().error({ alert: 'money_astray', discrepancy: d }, `reconciliation: ${d.kind} held for an operator`);
        }
        return report;
      });
    },
  };
}

/** The reconciliation activity interface the workflow proxies (type only). */
export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
