import { isDuplicateKey, type Database, type ProcurementDoc } from '../db';

/** Procurement records (issue 4 §3): inserted when the workflow starts planning, completed with its outcome. */
export class ProcurementRepository {
  constructor(private readonly d: Database) {}

  /** Inserts the record if absent (a retried insert changes nothing). */
  async ensure(doc: ProcurementDoc): Promise<void> {
    try {
      await this.d.procurements.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /** Writes the outcome fields. */
  async complete(id: string, patch: Partial<Omit<ProcurementDoc, '_id'>>): Promise<void> {
    await this.d.procurements.updateOne({ _id: id }, { $set: patch });
  }

  /** The record or null. */
  get(id: string): Promise<ProcurementDoc | null> {
    return this.d.procurements.findOne({ _id: id });
  }
}
