import { isDuplicateKey, type Database, type QuoteDoc } from '../db';

/** Stored binding quotes (seed §2.2, issue 2 §3): written once, never changed. */
export class QuoteRepository {
  constructor(private readonly d: Database) {}

  /** The quote or null. */
  get(id: string): Promise<QuoteDoc | null> {
    return this.d.quotes.findOne({ _id: id });
  }

  /**
   * Inserts the quote; when one with the same id exists already (a retried creation with a fixed id), returns the
   * stored one instead. Returns what is stored.
   */
  async insert(quote: QuoteDoc): Promise<QuoteDoc> {
    try {
      await this.d.quotes.insertOne(quote);
      return quote;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.d.quotes.findOne({ _id: quote._id });
      if (!existing) throw err;
      return existing;
    }
  }
}
