import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A stored blob's address: lowercase hex sha256 and size in bytes. */
export interface StoredBlob {
  sha256: string;
  size: number;
}

/**
 * Content-addressed storage of deliverables (issue 2 §4). Writing the same bytes twice leaves one copy, so a retried
 * fulfillment activity stores nothing new. A cloud object store can implement the same interface.
 */
export interface DeliverableStore {
  /** Stores bytes and returns their address. */
  put(content: Buffer): Promise<StoredBlob>;
  /** The bytes stored under `sha256`, or null. Never verifies: the verification endpoint recomputes the hash. */
  get(sha256: string): Promise<Buffer | null>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

import { sha256Hex } from '../hash';

export { sha256Hex };

/** Files under `root/ab/cd/<sha256>`, written to a temporary name and renamed, so a reader never sees half a file. */
export class FileDeliverableStore implements DeliverableStore {
  constructor(private readonly root: string) {}

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
    if (!SHA256_HEX.test(sha256)) return null;
    return readFile(this.pathOf(sha256)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
  }
}
