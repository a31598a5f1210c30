/**
 * `npm run db:copy -- --from <uri> --to <uri> [--db agent_commerce]`: copies every collection of one MongoDB-wire
 * database into another, e.g. a `.data` left by FerretDB v1 (served by a FerretDB v1 binary on another port) into the
 * embedded FerretDB v2 (issue 9 §1). Documents are inserted by `_id`, so a second run adds only what is missing.
 * Shapes that only existed for FerretDB v1 are rewritten on the way ({@link upgradeDocument}); wallets get their
 * balance from their newest ledger entry. Prints one line per collection.
 */
import { parseArgs } from 'node:util';
import { MongoClient, type Document } from 'mongodb';
import { entryId } from '../src/repos/wallets';
import { authKey } from '../src/repos/x402Payments';

/** Rewrites a document of collection `collection` from the FerretDB v1 layout to the current one; others pass. */
export function upgradeDocument(collection: string, doc: Document): Document {
  const out: Document = { ...doc };
  if (collection === 'x402_payments') {
    if (typeof out.delivery_json === 'string') out.delivery = JSON.parse(out.delivery_json) as unknown;
    if ('delivery_json' in out) {
      out.delivery ??= null;
      delete out.delivery_json;
    }
    // v1 had no partial indexes: "none:<id>" / "released:<id>" placeholders stood for "no key".
    for (const key of ['tx_key', 'order_key']) {
      if (typeof out[key] === 'string' && /^(none|released):/.test(out[key] as string)) out[key] = null;
    }
    if (
      out.auth_key === undefined &&
      typeof out.network === 'string' &&
      typeof out.payer === 'string' &&
      typeof out.nonce === 'string'
    ) {
      out.auth_key = authKey(out.network, out.payer, out.nonce);
    }
  }
  // v1 ledger entries were `<agent_id>#<seq>`; one entry per transaction id is now the `_id` itself.
  if (collection === 'wallet_entries' && typeof out.agent_id === 'string' && typeof out.tx_id === 'string') {
    out._id = entryId(out.agent_id, out.tx_id);
  }
  if (collection === 'x402_payment_ids' && out.response && typeof out.response.body_json === 'string') {
    const { body_json: bodyJson, ...rest } = out.response as { body_json: string };
    out.response = { ...rest, body: JSON.parse(bodyJson) as unknown };
  }
  return out;
}

/** The wallet fields the v2 layout keeps on the wallet document, from the newest ledger entry. Micro-units. */
export function walletBalanceFields(newest: { seq: number; balance_after_micros: number } | null): {
  balance_micros: number;
  seq: number;
  recent: never[];
} {
  return { balance_micros: newest?.balance_after_micros ?? 0, seq: newest?.seq ?? 0, recent: [] };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { from: { type: 'string' }, to: { type: 'string' }, db: { type: 'string', default: 'agent_commerce' } },
  });
  if (!values.from || !values.to)
    throw new Error('usage: npm run db:copy -- --from <mongodb uri> --to <mongodb uri> [--db name]');
  const from = await MongoClient.connect(values.from);
  const to = await MongoClient.connect(values.to);
  try {
    const src = from.db(values.db);
    const dst = to.db(values.db);
    for (const { name } of await src.listCollections({}, { nameOnly: true }).toArray()) {
      let copied = 0;
      let batch: Document[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const res = await dst
          .collection(name)
          .insertMany(batch, { ordered: false })
          .catch((err: { writeErrors?: { code?: number }[]; insertedCount?: number }) => {
            if (Array.isArray(err.writeErrors) && err.writeErrors.every((e) => e.code === 11000))
              return { insertedCount: err.insertedCount ?? 0 };
            throw err;
          });
        copied += res.insertedCount;
        batch = [];
      };
      for await (const doc of src.collection(name).find({})) {
        let upgraded = upgradeDocument(name, doc);
        if (name === 'wallets' && upgraded.balance_micros === undefined) {
          const newest = await src
            .collection('wallet_entries')
            .findOne({ agent_id: upgraded._id }, { sort: { seq: -1 } });
          upgraded = {
            ...upgraded,
            ...walletBalanceFields(newest as { seq: number; balance_after_micros: number } | null),
          };
        }
        batch.push(upgraded);
        if (batch.length >= 1_000) await flush();
      }
      await flush();
      console.log(`${name}: ${copied} documents copied`);
    }
  } finally {
    await from.close();
    await to.close();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
