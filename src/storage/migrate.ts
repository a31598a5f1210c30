/**
 * Copying file-stored deliverables (the `file` store's `root/ab/cd/<sha256>` tree, DATA_DIR/deliverables by default)
 * into another store, each verified by its sha256 (issue 25 §2; `npm run deliverables:migrate`).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { digestStored, isSha256Hex, sha256Hex, type StreamingDeliverableStore } from './deliverables';

/** Counts of one migration run; every file found is in exactly one of copied, present, failed or skipped. */
export interface MigrationReport {
  /** Files under the source folder. */
  found: number;
  /** Blobs copied by this run and verified afterwards. */
  copied: number;
  /** Blobs the target already held, verified (a second run counts everything here). */
  present: number;
  /** Files whose name is not a sha256 (temporary files of an interrupted write...): left alone. */
  skipped: number;
  /** Blobs that could not be copied or did not verify, with why (the run goes on with the next). */
  failed: { file: string; reason: string }[];
}

/** Every regular file under `dir`, recursively, as paths; none when `dir` does not exist. */
async function* walk(dir: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

/**
 * Copies every blob file under `from` into `target` that it does not hold yet, then rehashes the target's copy
 * (streamed) and compares sha256 and size. Idempotent: a blob already in the target is only verified. A source file
 * whose bytes do not hash to its name is reported failed and not copied. Reads one file at a time (deliverables are
 * at most 25 MB).
 * @param onBlob called after each blob file with its outcome (progress output)
 * @throws only for an unreadable source folder; errors of one blob are reported in `failed`
 */
export async function migrateDeliverables(
  from: string,
  target: StreamingDeliverableStore,
  onBlob: (file: string, outcome: 'copied' | 'present' | 'failed' | 'skipped', reason?: string) => void = () => {},
): Promise<MigrationReport> {
  const report: MigrationReport = { found: 0, copied: 0, present: 0, skipped: 0, failed: [] };
  for await (const file of walk(from)) {
    report.found++;
    const name = path.basename(file);
    if (!isSha256Hex(name)) {
      report.skipped++;
      onBlob(file, 'skipped');
      continue;
    }
    try {
      const before = await digestStored(target, name);
      let outcome: 'copied' | 'present' = 'present';
      if (before) {
        if (before.sha256 !== name) throw new Error(`the target's copy hashes to ${before.sha256}`);
      } else {
        const content = await readFile(file);
        const actual = sha256Hex(content);
        if (actual !== name) throw new Error(`the file's bytes hash to ${actual}, not its name`);
        await target.put(content);
        const after = await digestStored(target, name);
        if (!after) throw new Error('not found in the target after copying');
        if (after.sha256 !== name || after.size !== content.length)
          throw new Error(`the copy hashes to ${after.sha256} (${after.size} bytes)`);
        outcome = 'copied';
      }
      report[outcome]++;
      onBlob(file, outcome);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      report.failed.push({ file, reason });
      onBlob(file, 'failed', reason);
    }
  }
  return report;
}
