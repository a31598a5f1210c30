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
    const full = report.scope === 'full';
    const res = await this.d.reconciliationReports.updateOne(
      { _id: LAST, 'report.started_at': { $lte: report.started_at } },
      { $set: doc, ...(full ? { $max: { last_full_started_at: report.started_at } } : {}) },
    );
    if (res.matchedCount > 0) return;
    try {
      await this.d.reconciliationReports.insertOne({
        _id: LAST,
        ...doc,
        ...(full ? { last_full_started_at: report.started_at } : {}),
      });
    } catch (err) {
      // Present with a later report (or one inserted meanwhile): that one stays.
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /**
   * When the last stored run and the last stored `full` run started; null before the first (of each). The activity
   * picks a run's scope from them.
   */
  async runs(): Promise<{ lastStartedAt: Date | null; lastFullStartedAt: Date | null }> {
    const doc = await this.d.reconciliationReports.findOne(
      { _id: LAST },
      { projection: { 'report.started_at': 1, last_full_started_at: 1 } },
    );
    const date = (iso: string | undefined) => (iso ? new Date(iso) : null);
    return { lastStartedAt: date(doc?.report.started_at), lastFullStartedAt: date(doc?.last_full_started_at) };
  }

  /** The last report, or null before the first run. */
  async last(): Promise<ReconciliationReport | null> {
    return (await this.d.reconciliationReports.findOne({ _id: LAST }))?.report ?? null;
  }
}
