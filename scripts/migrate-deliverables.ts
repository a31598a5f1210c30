/**
 * `npm run deliverables:migrate [-- --from <dir>]`: copies the file-stored deliverables of earlier versions
 * (STORAGE_DIR, default DATA_DIR/deliverables) into the store DELIVERABLE_STORE names (GridFS by default, or S3), each
 * verified by its sha256 after copying (src/storage/migrate.ts; issue 25 §2). Idempotent: a second run copies nothing
 * and verifies everything again. The source is never changed; remove it yourself once the report says 0 failed.
 * Prints a line per failure and a summary; exits 1 when any blob failed. Reads the same environment as the API.
 */
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../src/config';
import { createDeliverableStore } from '../src/storage';
import { migrateDeliverables } from '../src/storage/migrate';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const config = loadConfig();
  const fromArg = args[args.indexOf('--from') + 1];
  const from = path.resolve(args.includes('--from') && fromArg ? fromArg : config.STORAGE_DIR);
  if (config.DELIVERABLE_STORE === 'file' && path.resolve(config.STORAGE_DIR) === from) {
    console.error(`DELIVERABLE_STORE=file already reads ${from}: set DELIVERABLE_STORE=gridfs or s3 to migrate`);
    return 2;
  }
  // The driver connects on the first operation: only the GridFS store reaches the database, an S3 migration never.
  const client = new MongoClient(config.MONGODB_URI);
  try {
    const store = createDeliverableStore(config, client.db(config.MONGODB_DB));
    console.log(`deliverables:migrate: ${from} → ${store.description}`);
    const report = await migrateDeliverables(from, store, (file, outcome, reason) => {
      if (outcome === 'failed') console.error(`  failed  ${file}: ${reason}`);
    });
    console.log(
      `deliverables:migrate: ${report.found} files found, ${report.copied} copied, ${report.present} already there, ` +
        `${report.failed.length} failed, ${report.skipped} skipped (not named by a sha256); all copies verified by sha256`,
    );
    return report.failed.length > 0 ? 1 : 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
