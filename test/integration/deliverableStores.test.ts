/**
 * The deliverable stores' contract (issue 25 §2), run alike against GridFS on the run's database (FerretDB v2 on
 * DocumentDB, test/globalSetup.ts), S3 on a real S3-compatible server (GoFakeS3, test/helpers/s3Server.ts) and
 * local files: content addressing (the same bytes twice, or at once, leave one object), whole reads, ranged streams,
 * missing blobs, and a 5 MB blob streamed in pieces.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { MongoClient, type Db } from 'mongodb';
import {
  digestStored,
  FileDeliverableStore,
  RangeNotSatisfiableError,
  sha256Hex,
  type StreamingDeliverableStore,
} from '../../src/storage/deliverables';
import { DEFAULT_GRIDFS_BUCKET, GridFsDeliverableStore, INLINE_MAX_BYTES } from '../../src/storage/gridfs';
import { S3DeliverableStore } from '../../src/storage/s3';
import { startS3Server, type S3TestServer } from '../helpers/s3Server';

jest.setTimeout(120_000);

/** A store under test, a second instance on the same storage (another process), and how many objects it holds. */
interface Subject {
  store: StreamingDeliverableStore;
  twin: StreamingDeliverableStore;
  objects(sha256: string): Promise<number>;
}

async function collect(stream: Readable): Promise<{ bytes: Buffer; pieces: number; largest: number }> {
  const parts: Buffer[] = [];
  let largest = 0;
  for await (const part of stream) {
    const b = part as Buffer;
    parts.push(b);
    largest = Math.max(largest, b.length);
  }
  return { bytes: Buffer.concat(parts), pieces: parts.length, largest };
}

function contract(name: string, setup: () => Promise<{ subject: Subject; teardown(): Promise<void> }>): void {
  describe(name, () => {
    let s: Subject;
    let teardown: () => Promise<void>;
    beforeAll(async () => {
      ({ subject: s, teardown } = await setup());
    });
    afterAll(async () => {
      await teardown?.();
    });

    test('putting the same bytes twice, or from two processes at once, leaves one object', async () => {
      const content = randomBytes(300_000); // more than one GridFS chunk (255 KiB)
      const first = await s.store.put(content);
      expect(first).toEqual({ sha256: sha256Hex(content), size: content.length });
      expect(await s.store.put(Buffer.from(content))).toEqual(first);
      expect(await s.objects(first.sha256)).toBe(1);

      const racing = randomBytes(600_000);
      const results = await Promise.all([s.store.put(racing), s.twin.put(racing), s.store.put(racing)]);
      expect(new Set(results.map((r) => r.sha256)).size).toBe(1);
      expect(await s.objects(sha256Hex(racing))).toBe(1);
      expect((await s.twin.get(sha256Hex(racing)))?.equals(racing)).toBe(true);
    });

    test('get returns the bytes; a missing or malformed address is null, also for open', async () => {
      const content = Buffer.from(`deliverable ${randomUUID()}\n`);
      const { sha256 } = await s.store.put(content);
      expect((await s.store.get(sha256))?.equals(content)).toBe(true);
      expect((await s.twin.get(sha256))?.equals(content)).toBe(true);
      const missing = sha256Hex(Buffer.from(randomUUID()));
      expect(await s.store.get(missing)).toBeNull();
      expect(await s.store.open(missing)).toBeNull();
      expect(await s.store.open(missing, { start: 0, end: 1 })).toBeNull();
      expect(await s.store.get('../../etc/passwd')).toBeNull();
      expect(await s.store.open('ABC')).toBeNull();
      expect(await digestStored(s.store, missing)).toBeNull();
      expect(await digestStored(s.store, sha256)).toEqual({ sha256, size: content.length });
    });

    test('an empty blob is stored and read back', async () => {
      const { sha256, size } = await s.store.put(Buffer.alloc(0));
      expect(size).toBe(0);
      expect((await s.store.get(sha256))?.length).toBe(0);
      const opened = await s.store.open(sha256);
      expect(opened?.size).toBe(0);
      expect((await collect(opened!.stream)).bytes.length).toBe(0);
    });

    test('ranged streams carry exactly the bytes asked for; an end past the blob is cut, a start past it refused', async () => {
      const content = randomBytes(700_000);
      const { sha256 } = await s.store.put(content);
      const cases = [
        { start: 0, end: 0 },
        { start: 0, end: 99 },
        { start: 261_000, end: 262_000 }, // across GridFS's first chunk boundary (261,120)
        { start: 699_990, end: 699_999 },
        { start: 123_456, end: 654_321 },
      ];
      for (const range of cases) {
        const opened = await s.store.open(sha256, range);
        expect(opened?.size).toBe(content.length);
        const { bytes } = await collect(opened!.stream);
        expect(bytes.equals(content.subarray(range.start, range.end + 1))).toBe(true);
      }
      const cut = await s.store.open(sha256, { start: 699_000, end: 10_000_000 });
      expect((await collect(cut!.stream)).bytes.equals(content.subarray(699_000))).toBe(true);
      await expect(s.store.open(sha256, { start: 700_000, end: 700_001 })).rejects.toBeInstanceOf(
        RangeNotSatisfiableError,
      );
    });

    test('a 5 MB blob streams in pieces, never as one buffer, and hashes to its address', async () => {
      const content = randomBytes(5 * 1024 * 1024);
      const { sha256 } = await s.store.put(content);
      const opened = await s.store.open(sha256);
      expect(opened?.size).toBe(content.length);
      const { bytes, pieces, largest } = await collect(opened!.stream);
      expect(bytes.length).toBe(content.length);
      expect(sha256Hex(bytes)).toBe(sha256);
      expect(pieces).toBeGreaterThanOrEqual(5);
      expect(largest).toBeLessThanOrEqual(1024 * 1024);
      // Abandoning a stream early releases it (a client that hangs up mid-download).
      const early = await s.store.open(sha256);
      for await (const part of early!.stream) {
        expect((part as Buffer).length).toBeGreaterThan(0);
        break;
      }
      expect(early!.stream.destroyed).toBe(true);
    });
  });
}

contract('GridFS on the embedded database', async () => {
  const client = await MongoClient.connect(process.env.MONGODB_URI as string);
  const db: Db = client.db(`stores_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  const files = db.collection('deliverables.files');
  const chunks = db.collection('deliverables.chunks');
  return {
    subject: {
      store: new GridFsDeliverableStore(db),
      twin: new GridFsDeliverableStore(client.db(db.databaseName)),
      async objects(sha256) {
        const docs = await files.find({ filename: sha256 }).toArray();
        // No orphan chunks: the loser of a race removes its own.
        const chunkCount = await chunks.countDocuments({ files_id: { $in: docs.map((d) => d._id) } });
        const allChunks = await chunks.countDocuments({});
        const allFiles = await files.find({}).toArray();
        const expected = allFiles.reduce((n, f) => n + Math.ceil((f.length as number) / (f.chunkSize as number)), 0);
        expect(allChunks).toBe(expected);
        expect(chunkCount).toBe(
          docs.reduce((n, d) => n + Math.ceil((d.length as number) / (d.chunkSize as number)), 0),
        );
        return docs.length;
      },
    },
    async teardown() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
});

contract('GridFS with blobs of one chunk inline (the default store)', async () => {
  const client = await MongoClient.connect(process.env.MONGODB_URI as string);
  const db: Db = client.db(`stores_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  const store = new GridFsDeliverableStore(db, DEFAULT_GRIDFS_BUCKET, INLINE_MAX_BYTES);
  return {
    subject: {
      store,
      twin: new GridFsDeliverableStore(client.db(db.databaseName), DEFAULT_GRIDFS_BUCKET, INLINE_MAX_BYTES),
      async objects(sha256) {
        const inline = await db.collection('deliverables.inline').countDocuments({ _id: sha256 as never });
        const files = await db.collection('deliverables.files').countDocuments({ filename: sha256 });
        return inline + files;
      },
    },
    async teardown() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
});

describe('GridFS inline tier', () => {
  test('putMany writes the small blobs in one document each, the large one as a GridFS file, and reads all back', async () => {
    const client = await MongoClient.connect(process.env.MONGODB_URI as string);
    const db = client.db(`stores_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
    try {
      const store = new GridFsDeliverableStore(db, DEFAULT_GRIDFS_BUCKET, INLINE_MAX_BYTES);
      const small = [randomBytes(10), randomBytes(INLINE_MAX_BYTES)];
      const large = randomBytes(INLINE_MAX_BYTES + 1);
      const blobs = await store.putMany([small[0]!, large, small[1]!, small[0]!]);
      expect(blobs.map((b) => b.size)).toEqual([10, INLINE_MAX_BYTES + 1, INLINE_MAX_BYTES, 10]);
      expect(await db.collection('deliverables.inline').countDocuments({})).toBe(2);
      expect(await db.collection('deliverables.files').countDocuments({})).toBe(1);
      // The same bytes again (a retried activity): nothing new, no error.
      await store.putMany([small[1]!]);
      expect(await db.collection('deliverables.inline').countDocuments({})).toBe(2);
      for (const b of [...small, large]) expect((await store.get(sha256Hex(b)))?.equals(b)).toBe(true);
      // A store without the inline tier (an older process) reads them too.
      const plain = new GridFsDeliverableStore(db);
      expect((await plain.get(sha256Hex(small[0]!)))?.equals(small[0]!)).toBe(true);
      const ranged = await store.open(sha256Hex(small[1]!), { start: 5, end: 9 });
      expect((await collect(ranged!.stream)).bytes.equals(small[1]!.subarray(5, 10))).toBe(true);
    } finally {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    }
  });
});

contract('S3 on GoFakeS3', async () => {
  const server: S3TestServer = await startS3Server();
  const options = {
    bucket: server.bucket,
    client: { endpoint: server.endpoint, region: server.region, forcePathStyle: true, credentials: server.credentials },
  };
  const store = new S3DeliverableStore(options);
  return {
    subject: {
      store,
      twin: new S3DeliverableStore(options),
      async objects(sha256) {
        const listed = await store.client.send(
          new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `deliverables/${sha256}` }),
        );
        return listed.KeyCount ?? 0;
      },
    },
    async teardown() {
      await server.stop();
    },
  };
});

contract('files on the local disk', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-files-'));
  return {
    subject: {
      store: new FileDeliverableStore(root),
      twin: new FileDeliverableStore(root),
      async objects(sha256) {
        const dir = path.join(root, sha256.slice(0, 2), sha256.slice(2, 4));
        return readdirSync(dir).filter((f) => f.startsWith(sha256)).length;
      },
    },
    async teardown() {
      rmSync(root, { recursive: true, force: true });
    },
  };
});

test('GridFS: a second upload of the same bytes (no lookup first) meets the unique index and deletes its chunks', async () => {
  const client = await MongoClient.connect(process.env.MONGODB_URI as string);
  const db = client.db(`stores_race_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  try {
    const winner = new GridFsDeliverableStore(db);
    const loser = new GridFsDeliverableStore(db);
    const content = randomBytes(600_000);
    await winner.put(content);
    expect(await loser.put(content)).toEqual({ sha256: sha256Hex(content), size: content.length });
    expect(await winner.put(content)).toEqual({ sha256: sha256Hex(content), size: content.length });
    expect(await db.collection('deliverables.files').countDocuments({})).toBe(1);
    expect(await db.collection('deliverables.chunks').countDocuments({})).toBe(3); // 600,000 / 261,120 → 3 chunks
    const indexes = await db.collection('deliverables.files').listIndexes().toArray();
    expect(indexes.find((i) => i.name === 'sha256_unique')).toMatchObject({ unique: true, key: { filename: 1 } });
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
});
