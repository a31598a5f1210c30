/**
 * Books reconciliation endpoints (issue 24 §3), registered from their definitions in ./schema.ts (operator key only,
 * checked from the definition):
 * - `POST /api/v1/operator/reconciliation {repair = true, grace_seconds?}` runs `booksReconciliationWorkflow` now and
 *   answers its report;
 * - `GET /api/v1/operator/reconciliation` the last report (the schedule's or an operator's).
 */
import { problem } from '../../../errors';
import { ReconciliationReportRepository } from '../../../repos/reconciliationReports';
import { BooksReconciliationWorkflows } from '../../../temporal/reconciliation';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { reconciliationOperations as ops } from './schema';

/** The reconciliation routes. */
export function reconciliationRoutes(deps: AppDeps): OperationRouter {
  const workflows = new BooksReconciliationWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const reports = new ReconciliationReportRepository(deps.services.db);
  return new OperationRouter(deps)
    .on(ops.run, async (ctx, input) => {
      const { repair, grace_seconds } = input.body;
      // An operator's run asks every open order's workflow (scope full).
      const report = await workflows.run({
        repair,
        full: true,
        ...(grace_seconds !== undefined ? { graceSeconds: grace_seconds } : {}),
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = report;
    })
    .on(ops.last, async (ctx) => {
      const report = await reports.last();
      if (!report) throw problem('not_found', 'No books reconciliation has run yet');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = report;
    });
}
