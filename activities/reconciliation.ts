/**
 * The books reconciliation activity (issue 24 §3): {@link reconcileBooks} of the application layer over its ports
 * (the worker wires the database repositories, the order-workflow port over the Temporal client and the chain), then
 * the report stored as the last one for `GET /api/v1/operator/reconciliation`.
 */
import type { ReconciliationReport } from '../src/domain/reconciliation';
import type { ReconciliationReportRepository } from '../src/repos/reconciliationReports';
import { reconcileBooks, type ReconciliationPorts } from '../src/services/reconciliation';
import { whileHeartbeating } from './heartbeat';

/** What the reconciliation activity needs: the service's ports, where reports go and the default grace period. */
export interface ReconciliationActivityPorts extends ReconciliationPorts {
  reports: Pick<ReconciliationReportRepository, 'save'>;
  /** Seconds a debit or order change may be in flight before it counts (RECONCILE_GRACE_SECONDS). */
  graceSeconds: number;
}

/** Argument of `reconcileBooks`: repairs on or off, and the grace period (default the port's). */
export interface ReconcileBooksRequest {
  repair: boolean;
  graceSeconds?: number;
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
        const report = await reconcileBooks(ports, {
          repair: req.repair,
          graceSeconds: req.graceSeconds ?? ports.graceSeconds,
        });
        await ports.reports.save(report);
        return report;
      });
    },
  };
}

/** The reconciliation activity interface the workflow proxies (type only). */
export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
