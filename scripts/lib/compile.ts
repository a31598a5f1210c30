/**
 * The API and the worker as plain JavaScript for `npm start` (issue 9 §3: API ≤ 150 MB, worker ≤ 300 MB RSS). Under
 * `tsx` each process also holds the transformer and every module's source map (measured: API 191 MB under tsx,
 * 159 MB as JavaScript, after the same 300 catalogue GETs), so `npm start` transpiles `src`, `workflows`, `activities` and `worker` once with esbuild
 * (the transformer tsx itself uses; type checking is `npm test`'s job) into `dist/` and runs `node` on the result.
 */
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** Source folders of the two processes, relative to the repository root. */
const SOURCE_DIRS = ['src', 'workflows', 'activities', 'worker'];

/** Every file below `dir` (relative paths joined with `dir`). */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/**
 * Transpiles the API's and the worker's TypeScript into `outDir` (default `<root>/dist`, emptied first), keeping the
 * folder layout, and copies the JSON files they import. 0.3 s measured on 2 cores.
 * @throws esbuild's error when a file does not parse.
 */
export async function compileServers(root: string, outDir = path.join(root, 'dist')): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  const files = SOURCE_DIRS.flatMap((d) => filesBelow(path.join(root, d)));
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outdir: outDir,
    outbase: root,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => f.endsWith('.json'))) cpSync(f, path.join(outDir, path.relative(root, f)));
  return outDir;
}

/**
 * Node options of the API and worker processes by default (issue 9 §3: API ≤ 150 MB, worker ≤ 300 MB RSS under the
 * benchmarks' load). The API's:
 * - `--optimize-for-size`: V8 keeps a small young generation and collects the old one with memory-reducing
 *   mark-compacts. Measured against the same API without it (side by side, one stack): peak RSS over a 300-order run
 *   133–135 against 149–150 MB, over x402 purchases + autocannon + 300 orders 146–148 against 155–195 MB, at rest
 *   115–117 against 125–126 MB. The price is collection work (4 times the scavenges, twice the mark-compacts): about
 *   20 % more API CPU on the paid paths (300 orders 4.3–4.7 against 3.3–3.9 s; 140 x402 purchases 1.5–1.6 against
 *   1.3 s, and 1.21–1.27 s after src/x402/headers.ts cut their garbage), none measurable on cached GETs.
 * - `--max-semi-space-size=4`: the young generation's ceiling without that flag (V8's default is 16 MB). The API's
 *   requests leave little alive, so a small nursery costs little once allocation-site pretenuring is off
 *   (src/v8Flags.ts). Node leaves these sizes to the application (nodejs/node#42511).
 * - `--single-threaded`: V8 compiles and collects on the main thread, with no background threads. Without them the
 *   API's RSS at rest no longer varies from one start to the next (122–140 MB over 12 starts, against 121–125 MB with
 *   the flag). The spread was in `malloc`'d memory, not in V8's heap: likely glibc keeping memory that several threads
 *   allocated (nodejs/node#21973). Nor do its peaks reach 150 MB (151–154 MB in 2 of 7 fresh stacks without it,
 *   135–144 MB in 17 of 17 with it). API CPU per 300-order run and orders per second were the same within the noise:
 *   the API uses a fifth of a core and the other core is busy with the worker. Not for the worker: peaks 290–316 MB
 *   against 278–303 MB.
 *
 * The worker's: `--heap-growing-percent=35`: V8 runs the next full collection when the old generation reaches 1.35 ×
 * what the last one left alive, instead of a factor it picks up to 4 × while collections are cheap. The worker's main
 * heap holds about 47 MB live under the order load and let garbage grow to 114 MB (147 MB committed, `--trace-gc`)
 * before collecting: that set its peak. Measured on `npm start`, two 300-order runs per stack: with 50, peak RSS
 * 263–279 MB in four stacks against 264–335 MB in ten without, worker CPU the same within noise (2026-11-26); 50
 * still reached 297–303 MB in 3 of 16 stacks on 2026-11-28, when 35 gave 268–273 MB in three stacks interleaved with
 * three at 50 (283–299 MB), worker CPU per run 8.2–10.8 against 7.8–11.1 s and orders/s the same. Not `--optimize-for-size` as in the API: 181–186 MB, but about 50 % more worker
 * CPU (11.9–12.5 against 7.0–9.2 s per run) and 20 against 24–27 orders/s, the worker being the busiest process of
 * the order path. Not `--max-semi-space-size=4`: more promotion, peaks 316–370 MB.
 */
const DEFAULT_NODE_OPTIONS: Record<string, string[]> = {
  'src/server.ts': ['--optimize-for-size', '--max-semi-space-size=4', '--single-threaded'],
  'worker/index.ts': ['--heap-growing-percent=35'],
};

/** Extra Node options of the API and worker processes (`SERVER_NODE_OPTIONS`, space-separated), replacing the defaults. */
export const SERVER_NODE_OPTIONS = process.env.SERVER_NODE_OPTIONS?.split(' ').filter(Boolean);

/**
 * glibc malloc arenas of the server processes (`MALLOC_ARENA_MAX`, default 2). glibc gives each thread that allocates
 * an arena of its own, up to 8 per core; V8's helper threads, libuv's pool and gRPC's threads leave them fragmented.
 * Measured on the API, two 300-order bench runs: peak RSS 188 → 162 MB at the same throughput (issue 9 §3). glibc
 * keeping freed memory is the known cause of Node's RSS far above its heap (nodejs/node#56641).
 */
export const MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';

/**
 * glibc's mmap threshold in the API (`MALLOC_MMAP_THRESHOLD_`, bytes, default 65536): allocations of 64 KB and more
 * are mapped on their own and unmapped when freed. Each read of a client socket (the database driver, the
 * facilitator's HTTP client) allocates libuv's suggested 64 KB and shrinks it to what was read; from glibc's main
 * heap these left it fragmented at 18–35 MB after the benchmarks, mapped they leave it at 7–17 MB. Measured over
 * x402 purchases + autocannon + 300 orders: peak RSS 146–148 against 159 MB (issue 9 §3), API CPU 21.1–21.4 against
 * 22.3 s. Setting the variable at all also turns off glibc's dynamic threshold, which rises to the largest block
 * freed (glibc keeping freed memory: nodejs/node#56641). Not for the worker: its Rust core allocates on its own terms
 * and was not measured with it.
 */
const API_MALLOC_MMAP_THRESHOLD = process.env.MALLOC_MMAP_THRESHOLD_ ?? '65536';

/** The command that runs `entry` (e.g. `src/server.ts`) from the compiled `outDir`, with the environment it adds. */
export function compiledCommand(
  outDir: string,
  entry: string,
): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: process.execPath,
    args: [
      ...(SERVER_NODE_OPTIONS ?? DEFAULT_NODE_OPTIONS[entry] ?? []),
      path.join(outDir, entry.replace(/\.ts$/, '.js')),
    ],
    env: {
      MALLOC_ARENA_MAX,
      ...(entry === 'src/server.ts' ? { MALLOC_MMAP_THRESHOLD_: API_MALLOC_MMAP_THRESHOLD } : {}),
    },
  };
}
