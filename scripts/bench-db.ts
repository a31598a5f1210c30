/**
 * `npm run bench:db`: the MongoDB-wire micro-benchmark of issue 9 against a running database (on embedded defaults
 * the FerretDB v2 of `npm start`), the same operations as `../shared/reference/embedded-database.md`: 10 concurrent
 * clients of the mongodb driver, on a collection of 0, 5,500 and 50,500 documents: findOne by `_id`, findOne on a
 * two-field index, findOne with a sort on an index (limit 1), updateOne by `_id`. Then 100 parallel conditional
 * debits (`findOneAndUpdate` with `$gte` and `$inc`) of one balance of 50: exactly 50 must succeed. Prints ops/s
 * and p50/p99 per operation and size; works in a database of its own (`bench_db_<random>`), dropped at the end.
 * Asserts nothing. Environment: MONGODB_URI (default mongodb://127.0.0.1:27117/), SECONDS per measurement (3),
 * CLIENTS (10).
 */
import { randomBytes } from 'node:crypto';
import { MongoClient, type Collection } from 'mongodb';
import { pct } from './bench/stats';

interface Doc {
  _id: string;
  a: number;
  b: number;
  n: number;
  pad: string;
}

const uri = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27117/';
const seconds = Number(process.env.SECONDS ?? 3);
const clients = Number(process.env.CLIENTS ?? 10);
const SIZES = [0, 5_500, 50_500];

const idOf = (i: number) => `doc-${i.toString().padStart(7, '0')}`;
const pick = (size: number) => Math.floor(Math.random() * Math.max(size, 1));

/** Runs `op` from `clients` concurrent loops for `seconds`; returns ops/s and latency percentiles (ms). */
async function measure(op: () => Promise<unknown>): Promise<{ rate: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const t = process.hrtime.bigint();
        await op();
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { rate: latencies.length / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

async function growTo(docs: Collection<Doc>, size: number): Promise<void> {
  const have = await docs.countDocuments();
  for (let i = have; i < size; i += 1_000) {
    const batch: Doc[] = [];
    for (let j = i; j < Math.min(size, i + 1_000); j++) {
      batch.push({ _id: idOf(j), a: j % 1_000, b: Math.floor(j / 1_000), n: 0, pad: 'x'.repeat(200) });
    }
    await docs.insertMany(batch, { ordered: false });
  }
}

async function main(): Promise<void> {
  const client = await new MongoClient(uri, { maxPoolSize: clients + 2 }).connect();
  const db = client.db(`bench_db_${randomBytes(4).toString('hex')}`);
  try {
    const docs = db.collection<Doc>('docs');
    await docs.createIndex({ a: 1, b: 1 });
    console.log(`${uri} — ${clients} clients, ${seconds} s per measurement (ops/s, p50/p99 ms)\n`);
    console.log(
      `${'operation'.padEnd(34)} ${SIZES.map((s) => `${s.toLocaleString('en')} docs`.padStart(26)).join('')}`,
    );
    const rows: Record<string, string[]> = {};
    for (const size of SIZES) {
      await growTo(docs, size);
      const ops: [string, () => Promise<unknown>][] = [
        ['findOne by _id', () => docs.findOne({ _id: idOf(pick(size)) })],
        [
          'findOne on a two-field index',
          () => {
            const i = pick(size);
            return docs.findOne({ a: i % 1_000, b: Math.floor(i / 1_000) });
          },
        ],
        ['findOne, sort on an index, limit 1', () => docs.findOne({ a: pick(1_000) }, { sort: { b: -1 } })],
        ['updateOne by _id', () => docs.updateOne({ _id: idOf(pick(size)) }, { $inc: { n: 1 } })],
      ];
      for (const [name, op] of ops) {
        const r = await measure(op);
        (rows[name] ??= []).push(
          `${Math.round(r.rate).toLocaleString('en')}/s ${r.p50.toFixed(1)}/${r.p99.toFixed(1)}`.padStart(26),
        );
      }
    }
    for (const [name, cells] of Object.entries(rows)) console.log(`${name.padEnd(34)} ${cells.join('')}`);

    // 100 parallel conditional debits of one balance of 50 (what the wallet ledger relies on).
    const wallets = db.collection<{ _id: string; balance: number }>('wallets');
    await wallets.insertOne({ _id: 'w', balance: 50 });
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        wallets.findOneAndUpdate({ _id: 'w', balance: { $gte: 1 } }, { $inc: { balance: -1 } }),
      ),
    );
    const final = await wallets.findOne({ _id: 'w' });
    console.log(
      `\n100 parallel debits of a balance of 50: ${results.filter(Boolean).length} succeeded, final balance ${final?.balance}`,
    );
  } finally {
    await db.dropDatabase();
    await client.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
