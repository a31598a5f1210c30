/**
 * Reconciliation that proves the books (issue 24 §3): one `reconcileBooks` activity checks every money invariant,
 * repairs what it safely can (src/services/reconciliation.ts) and stores its report; the workflow records the number
 * of discrepancies left in the `ReconcileDiscrepancies` search attribute (`ReconcileDiscrepancies > 0` in the Web UI
 * finds the runs that need an operator) and returns the report. Run every 30 s by the Schedule `books-reconciliation`
 * (src/temporal/reconciliation.ts) and on an operator's request (`POST /api/v1/operator/reconciliation`).
 */
import { proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { ReconciliationActivities } from '../activities/reconciliation';
import type { ReconciliationReport } from '../src/domain/reconciliation';
import { reconciliationDetails } from './details';
import { withSummary } from './policies';
import { SA } from './shared';

/**
 * The whole book in one activity: it heartbeats, so an attempt lost with its worker is retried after 10 s; a few
 * attempts, since the next scheduled run comes within the interval anyway.
 */
const books = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Input of {@link booksReconciliationWorkflow}. */
export interface BooksReconciliationInput {
  /** Make repairs (default true); false only reports. */
  repair?: boolean;
  /** Seconds a debit or order change may be in flight before it counts; default the worker's RECONCILE_GRACE_SECONDS. */
  graceSeconds?: number;
  /** Ask every open order's workflow (an operator's run); scheduled runs leave it out (activities/reconciliation.ts). */
  full?: boolean;
}

/** Runs one reconciliation, publishes its discrepancy count as a search attribute and returns the report. */
export async function booksReconciliationWorkflow(input: BooksReconciliationInput = {}): Promise<ReconciliationReport> {
  setCurrentDetails(reconciliationDetails());
  const repair = input.repair ?? true;
  const report = await withSummary(
    books.reconcileBooks,
    repair ? 'Check every money invariant and repair what is safe' : 'Check every money invariant (report only)',
    {
      repair,
      ...(input.graceSeconds !== undefined ? { graceSeconds: input.graceSeconds } : {}),
      ...(input.full ? { full: true } : {}),
    },
  );
  upsertSearchAttributes([{ key: SA.reconcileDiscrepancies, value: report.discrepancy_count }]);
  setCurrentDetails(reconciliationDetails(report));
  return report;
}
