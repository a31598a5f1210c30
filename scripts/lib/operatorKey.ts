/**
 * The operator key a local script (`npm run demo`, `bench`, `reconcile`) sends to a running stack. `npm start` keeps
 * its key in `.data/operator-key`, `npm run start:cluster` in `.data-cluster/operator-key` (issue 25 §1), and either
 * in `DATA_DIR/operator-key` when DATA_DIR is set. When several of those files exist, the one that works is the one
 * the API at hand accepts, so the scripts no longer send the other profile's key and get a 403.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The operator-only read used to tell which key the API accepts: the last reconciliation report, no side effect. */
const PROBE_PATH = '/api/v1/operator/reconciliation';

/**
 * The key files to try, in order, without duplicates: `DATA_DIR/operator-key` (if DATA_DIR is set), then
 * `<root>/.data/operator-key` and `<root>/.data-cluster/operator-key`; the trimmed keys of those that exist.
 */
export function operatorKeyFiles(root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [
    ...(env.DATA_DIR ? [path.resolve(env.DATA_DIR)] : []),
    path.join(root, '.data'),
    path.join(root, '.data-cluster'),
  ];
  const files = [...new Set(dirs.map((d) => path.join(d, 'operator-key')))].filter((f) => existsSync(f));
  return files.map((file) => readFileSync(file, 'utf8').trim()).filter(Boolean);
}

/**
 * The operator key for the API at `apiUrl`: OPERATOR_KEY when set; else the only key file found; else, with several,
 * the first whose key the API accepts on an operator-only GET (any status but 401 and 403). Falls back to the first
 * file found when none is accepted or the API cannot be reached (the caller's own request then reports why).
 * Returns '' when there is no key at all. Throws nothing.
 */
export async function localOperatorKey(
  apiUrl: string,
  root = path.resolve(__dirname, '..', '..'),
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (env.OPERATOR_KEY) return env.OPERATOR_KEY;
  const found = operatorKeyFiles(root, env);
  if (found.length <= 1) return found[0] ?? '';
  for (const key of found) {
    try {
      const res = await fetch(apiUrl.replace(/\/$/, '') + PROBE_PATH, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(5000),
      });
      await res.arrayBuffer();
      if (res.status !== 401 && res.status !== 403) return key;
    } catch {
      break;
    }
  }
  return found[0]!;
}
