/**
 * Deliverables in the database itself (issue 25 §2): GridFS through the `mongodb` driver's `GridFSBucket`, which
 * FerretDB v2 serves. Every API and worker process reaching the database reaches every deliverable, so processes keep
 * nothing on their own disk. The default store (`DELIVERABLE_STORE=gridfs`).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  Binary,
  GridFSBucket,
  MongoBulkWriteError,
  MongoServerError,
  ObjectId,
  type Collection,
  type Db,
} from 'mongodb';
import {
  clampRange,
  isSha256Hex,
  readWhole,
  sha256Hex,
  type ByteRange,
  type OpenedBlob,
  type StoredBlob,
  type StreamingDeliverableStore,
} from './deliverables';

/** The bucket's collections are `<name>.files` and `<name>.chunks`. */
export const DEFAULT_GRIDFS_BUCKET = 'deliverables';

interface FilesDoc {
  _id: ObjectId;
  filename: string;
  length: number;
}

/** A small blob whole in one document of `<bucket>.inline`, its `_id` the sha256 hex. */
interface InlineDoc {
  _id: string;
  data: Binary;
  length: number;
}

/**
 * Blobs up to this many bytes (one GridFS chunk, 255 KiB) are kept whole in one document of `<bucket>.inline` by the
 * store `createDeliverableStore` builds: a GridFS file costs two inserts (chunk and files document) and an order's
 * small deliverables all go in one `insertMany` (issue 39 §2).
 */
export const INLINE_MAX_BYTES = 255 * 1024;

const isDuplicateKey = (err: unknown): boolean =>
  (err instanceof MongoServerError && err.code === 11000) ||
  (err instanceof MongoBulkWriteError && [err.writeErrors].flat().every((e) => e.code === 11000));

/**
 * One GridFS file per blob, its `filename` the sha256 hex. Content addressing holds across processes through a unique
 * index on `filename` in `<bucket>.files`: GridFS writes the chunks first and the files document last, so of two
 * uploads of the same bytes at once, the second files insert fails (E11000) and that upload deletes its own chunks.
 * A file is visible only once whole. An upload cut short by a crash leaves chunks without a files document (never
 * read; the same bytes uploaded again get chunks of their own).
 */
export class GridFsDeliverableStore implements StreamingDeliverableStore {
  readonly description: string;
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<FilesDoc>;
  private readonly chunks: Collection;
  private readonly inline: Collection<InlineDoc>;
  private indexes: Promise<void> | null = null;

  /**
   * @param db the database holding the bucket (the application's own, MONGODB_DB).
   * @param inlineMaxBytes blobs up to this size go whole into `<bucket>.inline` (0: every blob is a GridFS file).
   *   Reads look in both, so stores with any setting read each other's blobs.
   */
  constructor(
    db: Db,
    bucketName = DEFAULT_GRIDFS_BUCKET,
    private readonly inlineMaxBytes = 0,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
    this.files = db.collection<FilesDoc>(`${bucketName}.files`);
    this.chunks = db.collection(`${bucketName}.chunks`);
    this.inline = db.collection<InlineDoc>(`${bucketName}.inline`);
    this.description = `gridfs ${db.databaseName}.${bucketName}${inlineMaxBytes ? ` (up to ${inlineMaxBytes} bytes inline)` : ''}`;
  }

  /** The unique `filename` index and the chunks index GridFS reads by; created once per store, concurrently safe. */
  private ensureIndexes(): Promise<void> {
    this.indexes ??= Promise.all([
      this.files.createIndex({ filename: 1 }, { unique: true, name: 'sha256_unique' }),
      this.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true }),
    ]).then(
      () => undefined,
      (err: unknown) => {
        this.indexes = null;
        throw err;
      },
    );
    return this.indexes;
  }

  private find(sha256: string): Promise<FilesDoc | null> {
    return this.files.findOne({ filename: sha256 }, { projection: { _id: 1, filename: 1, length: 1 } });
  }

  /**
   * Stores `content` unless a file with its sha256 exists. No lookup first: nearly every blob is new (a deliverable
   * names its order), and the unique index turns the rare repeat into a duplicate-key error whose chunks are deleted;
   * a lookup cost every order two database round trips (docs/benchmarks.md).
   * @throws MongoServerError (other than a duplicate key) or a network error; nothing is half-visible then.
   */
  async put(content: Buffer): Promise<StoredBlob> {
    return (await this.putMany([content]))[0]!;
  }

  /**
   * Stores `contents`: the small ones (≤ `inlineMaxBytes`) in one unordered `insertMany` of whole documents keyed by
   * sha256 (a duplicate key is the same bytes stored before: fine), the others as GridFS files one after another.
   * @throws MongoServerError (other than a duplicate key) or a network error; a document is whole or absent.
   */
  async putMany(contents: Buffer[]): Promise<StoredBlob[]> {
    const blobs = contents.map((c) => ({ sha256: sha256Hex(c), size: c.length }));
    const small = new Map<string, Buffer>();
    contents.forEach((c, i) => {
      if (this.inlineMaxBytes > 0 && c.length <= this.inlineMaxBytes) small.set(blobs[i]!.sha256, c);
    });
    if (small.size > 0) {
      try {
        await this.inline.insertMany(
          [...small].map(([sha256, c]) => ({ _id: sha256, data: new Binary(c), length: c.length })),
          { ordered: false },
        );
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    for (const [i, c] of contents.entries()) if (!small.has(blobs[i]!.sha256)) await this.putFileRetryingDeadlocks(c);
    return blobs;
  }

  /**
   * PostgreSQL may pick one of several uploads of the same bytes at once as a deadlock victim (seen on FerretDB v2 with
   * DocumentDB, "deadlock detected"; no upstream issue for it: FerretDB/FerretDB#5167 is the nearest, a deadlock of
   * concurrent createIndex). The victim's chunks are gone with its transaction, so it is tried again, up to three
   * times. MongoDB itself never needs the retry.
   */
  private async putFileRetryingDeadlocks(content: Buffer): Promise<StoredBlob> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.putFile(content);
      } catch (err) {
        if (attempt >= 3 || !(err instanceof MongoServerError && /deadlock detected/.test(err.message))) throw err;
      }
    }
  }

  /** One GridFS file, unless one with the same sha256 exists. */
  private async putFile(content: Buffer): Promise<StoredBlob> {
    const sha256 = sha256Hex(content);
    const blob = { sha256, size: content.length };
    await this.ensureIndexes();
    const id = new ObjectId();
    try {
      await pipeline(Readable.from([content]), this.bucket.openUploadStreamWithId(id, sha256));
    } catch (err) {
      // E11000: another upload of the same bytes won the race, or the driver retried a files insert whose answer was
      // lost and found its own document. Either way the bytes are stored; chunks nobody's document names go.
      const stored = await this.find(sha256);
      if (stored?._id.equals(id)) return blob;
      await this.chunks.deleteMany({ files_id: id }).catch(() => undefined);
      if (stored && err instanceof MongoServerError && err.code === 11000) return blob;
      throw err;
    }
    return blob;
  }

  get(sha256: string): Promise<Buffer | null> {
    return readWhole(this, sha256);
  }

  async open(sha256: string, range?: ByteRange): Promise<OpenedBlob | null> {
    if (!isSha256Hex(sha256)) return null;
    const small = await this.inline.findOne({ _id: sha256 });
    if (small) {
      const bytes = Buffer.from(small.data.buffer);
      const r = range && clampRange(range, bytes.length);
      return { size: bytes.length, stream: Readable.from([r ? bytes.subarray(r.start, r.end + 1) : bytes]) };
    }
    const file = await this.find(sha256);
    if (!file) return null;
    const r = range && clampRange(range, file.length);
    // The driver's `end` is exclusive; it reads only the chunks the range touches.
    const stream = this.bucket.openDownloadStream(file._id, r ? { start: r.start, end: r.end + 1 } : {});
    return { size: file.length, stream };
  }
}
