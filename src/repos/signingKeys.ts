import { isWriteRace, type Database, type SigningKeySetDoc, type StoredSigningJwk } from '../db';

/** `_id` of the one document of `signing_keys`. */
export const SIGNING_KEY_SET_ID = 'signing';

/**
 * The stored signing key set (collection `signing_keys`, one document, {@link SigningKeySetDoc}), in its stored form
 * (private parts possibly sealed; src/signing/keyStore.ts opens them). Source: issue 25 §2.
 */
export class SigningKeyRepository {
  constructor(private readonly d: Database) {}

  /** The stored set, or null before the first API start. */
  get(): Promise<SigningKeySetDoc | null> {
    return this.d.signingKeys.findOne({ _id: SIGNING_KEY_SET_ID });
  }

  /** The set's `version` alone (the cheap change check), or null when there is no set. */
  async version(): Promise<number | null> {
    const doc = await this.d.signingKeys.findOne({ _id: SIGNING_KEY_SET_ID }, { projection: { version: 1 } });
    return doc?.version ?? null;
  }

  /**
   * Stores `keys` as the set unless a set exists: one upsert with `$setOnInsert`, so of several processes creating
   * at once the first insert wins and the others get that set (a duplicate key between the concurrent upserts is
   * retried). Returns the stored set, whichever it is.
   * @throws MongoServerError other than such a race, or after 8 races.
   */
  async createIfAbsent(keys: StoredSigningJwk[], importedKids: string[], now = new Date()): Promise<SigningKeySetDoc> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.d.signingKeys.updateOne(
          { _id: SIGNING_KEY_SET_ID },
          {
            $setOnInsert: { keys, version: 1, imported_kids: importedKids, created_at: now, updated_at: now },
          },
          { upsert: true },
        );
        break;
      } catch (err) {
        if (attempt >= 8 || !isWriteRace(err)) throw err;
        await new Promise((r) => setTimeout(r, 10 * attempt));
      }
    }
    const stored = await this.get();
    if (!stored) throw new Error('signing_keys: the key set vanished right after its creation');
    return stored;
  }

  /**
   * Replaces the keys (and the imported kids) if the set is still at `expectedVersion`, bumping `version`
   * (compare-and-set). Returns the new set, or null when another writer changed it first (read it again and retry).
   */
  replace(
    expectedVersion: number,
    keys: StoredSigningJwk[],
    importedKids: string[],
    now = new Date(),
  ): Promise<SigningKeySetDoc | null> {
    return this.d.signingKeys.findOneAndUpdate(
      { _id: SIGNING_KEY_SET_ID, version: expectedVersion },
      { $set: { keys, imported_kids: importedKids, updated_at: now }, $inc: { version: 1 } },
      { returnDocument: 'after' },
    );
  }
}
