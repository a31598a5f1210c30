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
 * Node options of the API process by default: a young generation of 4 MB semi-spaces instead of V8's 16 MB. The API's
 * requests leave little alive, so the smaller nursery costs nothing measurable once allocation-site pretenuring is off
 * (src/v8Flags.ts): cached 402s 24.4 against 24.2 µs of CPU per request, RSS after 600,000 of them 171 → 147 MB
 * (issue 9 §3: ≤ 150 MB). Before that flag it cost 20–30 % of the GET throughput. Node leaves the size to the
 * application (nodejs/node#42511: larger semi-spaces trade memory for throughput).
 */
const DEFAULT_NODE_OPTIONS: Record<string, string[]> = { 'src/server.ts': ['--max-semi-space-size=4'] };

/** Extra Node options of the API and worker processes (`SERVER_NODE_OPTIONS`, space-separated), replacing the defaults. */
export const SERVER_NODE_OPTIONS = process.env.SERVER_NODE_OPTIONS?.split(' ').filter(Boolean);

/**
 * glibc malloc arenas of the server processes (`MALLOC_ARENA_MAX`, default 2). glibc gives each thread that allocates
 * an arena of its own, up to 8 per core; V8's helper threads, libuv's pool and gRPC's threads leave them fragmented.
 * Measured on the API, two 300-order bench runs: peak RSS 188 → 162 MB at the same throughput (issue 9 §3). glibc
 * keeping freed memory is the known cause of Node's RSS far above its heap (nodejs/node#56641).
 */
export const MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';

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
    env: { MALLOC_ARENA_MAX },
  };
}
