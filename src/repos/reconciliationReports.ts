import { isDuplicateKey, type Database } from '../db';
import type { ReconciliationReport } from '../domain/reconciliation';

/** `_id` of the one document the collection holds. */
const LAST = 'last';

/**
 * The last books reconciliation's report (collection `reconciliation_reports`, one document), written by the
 * reconciliation activity after every run and read by `GET /api/v1/operator/reconciliation`. Source: issue 24 §3.
 */
export class ReconciliationReportRepository {
  constructor(private readonly d: Database) {}

  /**
   * Stores `report` as the last one, unless a report of a later run (by `started_at`) is already stored: two runs that
   * overlap (the schedule's and an operator's) leave the newer one.
   */
  async save(report: ReconciliationReport): Promise<void> {
    const doc = { report, stored_at: new Date() };
    const res = await this.d.reconciliationReports.updateOne(
      { _id: LAST, 'report.started_at': { $lte: report.started_at } },
      { $set: doc },
    );
    if (res.matchedCount > 0) return;
    try {
      await this.d.reconciliationReports.insertOne({ _id: LAST, ...doc });
    } catch (err) {
      // Present with a later report (or one inserted meanwhile): that one stays.
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** The last report, or null before the first run. */
  async last(): Promise<ReconciliationReport | null> {
    return (await this.d.reconciliationReports.findOne({ _id: LAST }))?.report ?? null;
  }
}
