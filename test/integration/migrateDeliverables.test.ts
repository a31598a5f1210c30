/**
 * `npm run deliverables:migrate` (scripts/migrate-deliverables.ts, src/storage/migrate.ts; issue 25 §2): the files of
 * an old DATA_DIR/deliverables tree are copied into GridFS on the run's database, each verified by sha256; a second
 * run copies nothing; a file whose bytes do not match its name is reported and not copied; stray files are skipped.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MongoClient, type Db } from 'mongodb';
import { FileDeliverableStore, sha256Hex } from '../../src/storage/deliverables';
import { GridFsDeliverableStore } from '../../src/storage/gridfs';
import { migrateDeliverables } from '../../src/storage/migrate';

jest.setTimeout(120_000);

let client: MongoClient;
let db: Db;
let dataDir: string;
const blobs = [Buffer.from('{"nodes": []}\n'), randomBytes(300_000), Buffer.alloc(0), randomBytes(2 * 1024 * 1024)];

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGODB_URI as string);
  db = client.db(`migrate_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-migrate-'));
  // The tree the file store of earlier versions wrote, with a temporary file an interrupted write left behind.
  const old = new FileDeliverableStore(path.join(dataDir, 'deliverables'));
  for (const b of blobs) await old.put(b);
  const some = sha256Hex(blobs[0]!);
  writeFileSync(path.join(dataDir, 'deliverables', some.slice(0, 2), some.slice(2, 4), `${some}.a1b2c3.tmp`), 'half');
});

afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('copies every blob into GridFS, verified; a second run copies nothing; a corrupt file is reported, not copied', async () => {
  const target = new GridFsDeliverableStore(db);
  const from = path.join(dataDir, 'deliverables');
  const first = await migrateDeliverables(from, target);
  expect(first).toEqual({ found: 5, copied: 4, present: 0, skipped: 1, failed: [] });
  for (const b of blobs) expect((await target.get(sha256Hex(b)))?.equals(b)).toBe(true);

  const again = await migrateDeliverables(from, target);
  expect(again).toEqual({ found: 5, copied: 0, present: 4, skipped: 1, failed: [] });
  expect(await db.collection('deliverables.files').countDocuments({})).toBe(4);

  // A file whose bytes were damaged on disk: its name no longer matches.
  const name = sha256Hex(Buffer.from('damaged'));
  const dir = path.join(from, name.slice(0, 2), name.slice(2, 4));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), 'damaget');
  const third = await migrateDeliverables(from, target);
  expect(third.copied).toBe(0);
  expect(third.present).toBe(4);
  expect(third.failed).toEqual([{ file: path.join(dir, name), reason: expect.stringMatching(/not its name/) }]);
  expect(await target.get(name)).toBeNull();
  rmSync(path.join(dir, name));

  expect(await migrateDeliverables(path.join(dataDir, 'nothing-here'), target)).toEqual({
    found: 0,
    copied: 0,
    present: 0,
    skipped: 0,
    failed: [],
  });
});

test('npm run deliverables:migrate: reads DATA_DIR, writes the configured store, reports counts, exits 0', async () => {
  const dbName = `migrate_cli_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const env: NodeJS.ProcessEnv = { ...process.env, MONGODB_DB: dbName, DATA_DIR: dataDir };
  delete env.STORAGE_DIR;
  delete env.DELIVERABLE_STORE;
  const run = () =>
    promisify(execFile)(process.execPath, [require.resolve('tsx/cli'), 'scripts/migrate-deliverables.ts'], {
      env,
      cwd: path.resolve(__dirname, '../..'),
    });
  try {
    const first = await run();
    expect(first.stdout).toContain(`${path.join(dataDir, 'deliverables')} → gridfs ${dbName}.deliverables`);
    expect(first.stdout).toContain('5 files found, 4 copied, 0 already there, 0 failed, 1 skipped');
    const second = await run();
    expect(second.stdout).toContain('5 files found, 0 copied, 4 already there, 0 failed, 1 skipped');
    // The configured store keeps blobs of one chunk whole in `deliverables.inline`, larger ones as GridFS files.
    const stored = client.db(dbName);
    const copied =
      (await stored.collection('deliverables.files').countDocuments({})) +
      (await stored.collection('deliverables.inline').countDocuments({}));
    expect(copied).toBe(4);
  } finally {
    await client
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
  }
});
