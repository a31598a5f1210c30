import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { sha256Hex } from '../hash';

export { sha256Hex };

/** A stored blob's address: lowercase hex sha256 and size in bytes. */
export interface StoredBlob {
  sha256: string;
  size: number;
}

/**
 * Bytes `start` to `end` of a blob, both inclusive and 0-based, as in an HTTP `Range: bytes=start-end` (RFC 9110
 * §14.1.2): `{start: 0, end: 0}` is the first byte. Issue 25 §2.
 */
export interface ByteRange {
  start: number;
  end: number;
}

/** An opened blob (issue 25 §2): its whole size in bytes and a stream of the requested bytes (all, or the range). */
export interface OpenedBlob {
  size: number;
  stream: Readable;
}

/**
 * Content-addressed storage of deliverables (issue 2 §4). Writing the same bytes twice leaves one copy, so a retried
 * fulfillment activity stores nothing new. What activities need: {@link StreamingDeliverableStore} adds reads that
 * stream.
 */
export interface DeliverableStore {
  /** Stores bytes and returns their address. */
  put(content: Buffer): Promise<StoredBlob>;
  /**
   * Stores several blobs at once and returns their addresses in the same order; a store that can write them in one
   * round trip does (issue 39 §2: one database command per order's small deliverables). Optional: see {@link putAll}.
   */
  putMany?(contents: Buffer[]): Promise<StoredBlob[]>;
  /** The bytes stored under `sha256`, or null. Never verifies: the verification endpoint recomputes the hash. */
  get(sha256: string): Promise<Buffer | null>;
}

/**
 * A deliverable store every process can share, read without loading a blob whole (issue 25 §2): the GridFS default
 * (./gridfs.ts), S3 (./s3.ts) and local files ({@link FileDeliverableStore}).
 */
export interface StreamingDeliverableStore extends DeliverableStore {
  /**
   * Opens the blob stored under `sha256`, or resolves null when there is none (or `sha256` is not 64 lowercase hex
   * digits). With `range`, the stream carries those bytes only; an `end` past the blob is cut to its last byte.
   * Nothing is read before the stream is consumed; destroy the stream to release it early.
   * @throws RangeNotSatisfiableError when `range.start` is not within the blob (or `end` < `start`).
   */
  open(sha256: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /** Human-readable name of where blobs go (for logs and the migration script), e.g. `gridfs deliverables`. */
  readonly description: string;
}

/** A range that does not overlap the blob (HTTP 416): `size` is the blob's size in bytes. Issue 25 §2. */
export class RangeNotSatisfiableError extends Error {
  constructor(
    readonly range: ByteRange,
    readonly size: number,
  ) {
    super(`range ${range.start}-${range.end} not satisfiable for a blob of ${size} bytes`);
    this.name = 'RangeNotSatisfiableError';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True for a store address: 64 lowercase hex digits. */
export function isSha256Hex(s: string): boolean {
  return SHA256_HEX.test(s);
}

/**
 * `range` checked against a blob of `size` bytes, its end cut to the last byte.
 * @throws RangeNotSatisfiableError when it starts past the blob or ends before it starts.
 */
export function clampRange(range: ByteRange, size: number): ByteRange {
  if (range.start < 0 || range.start >= size || range.end < range.start)
    throw new RangeNotSatisfiableError(range, size);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}

/** What {@link digestStored} measured: lowercase hex sha256 and size in bytes. */
export interface StoredDigest {
  sha256: string;
  size: number;
}

/** Stores `contents` through the store's `putMany` when it has one, else one `put` after another; same order. */
export async function putAll(store: DeliverableStore, contents: Buffer[]): Promise<StoredBlob[]> {
  if (store.putMany) return store.putMany(contents);
  const out: StoredBlob[] = [];
  for (const c of contents) out.push(await store.put(c));
  return out;
}

/**
 * The whole blob as one Buffer, or null when absent: `get` of the stores that stream (GridFS, S3). Only for callers
 * that need the bytes at once (activities re-reading a small deliverable); downloads stream through `open`.
 */
export async function readWhole(store: StreamingDeliverableStore, sha256: string): Promise<Buffer | null> {
  const opened = await store.open(sha256);
  if (!opened) return null;
  const parts: Buffer[] = [];
  for await (const part of opened.stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/**
 * Rehashes the bytes stored under `sha256` as they stream by, never holding them whole (the verification endpoint,
 * the migration's check). Issue 25 §2.
 * @returns what the stored bytes hash to, or null when nothing is stored under `sha256`
 * @throws the store's errors (network, database)
 */
export async function digestStored(store: StreamingDeliverableStore, sha256: string): Promise<StoredDigest | null> {
  const blob = await store.open(sha256);
  if (!blob) return null;
  const hash = createHash('sha256');
  let size = 0;
  for await (const part of blob.stream) {
    const chunk = part as Buffer;
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Files under `root/ab/cd/<sha256>`, written to a temporary name and renamed, so a reader never sees half a file. */
export class FileDeliverableStore implements StreamingDeliverableStore {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `files under ${root}`;
  }

  private pathOf(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(content: Buffer): Promise<StoredBlob> {
    const sha256 = sha256Hex(content);
    const target = this.pathOf(sha256);
    // Content-addressed: writing bytes that are already stored replaces them with the same bytes, so no existence
    // check first; the folder is made only when the write finds it missing (two system calls saved per file).
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, content);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(tmp, content);
    }
    await rename(tmp, target);
    return { sha256, size: content.length };
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!isSha256Hex(sha256)) return null;
    return readFile(this.pathOf(sha256)).catch(nullWhenMissing);
  }

  async open(sha256: string, range?: ByteRange): Promise<OpenedBlob | null> {
    if (!isSha256Hex(sha256)) return null;
    const file = this.pathOf(sha256);
    const info = await stat(file).catch(nullWhenMissing);
    if (!info) return null;
    const r = range && clampRange(range, info.size);
    // A rename replaces the file as a whole, so the stream reads the bytes `stat` measured.
    return { size: info.size, stream: createReadStream(file, r ?? {}) };
  }
}

function nullWhenMissing(err: NodeJS.ErrnoException): null {
  if (err.code === 'ENOENT') return null;
  throw err;
}
