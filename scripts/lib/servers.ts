/**
 * Local servers for development (`npm start`) and tests (jest globalSetup):
 * the Temporal dev server (`temporal server start-dev`) and FerretDB (MongoDB wire protocol over SQLite).
 *
 * Binaries are built by `scripts/setup.sh` into `<cacheDir()>/bin`; the environment variables
 * TEMPORAL_CLI_PATH, FERRETDB_PATH and TEMPORAL_TEST_SERVER_PATH override them.
 *
 * Every child started here is stopped when this process exits: on a normal exit through an
 * `exit` hook, and if this process dies abruptly (SIGKILL, unhandled signal) through a tiny
 * detached shell watchdog per child that notices the parent is gone and terminates the child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';

/** Search attribute types accepted by `temporal server start-dev --search-attribute Name=Type`. */
export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** Options of {@link startTemporalDevServer}. */
export interface TemporalDevServerOptions {
  /** Frontend gRPC port on 127.0.0.1; a free port when omitted. */
  port?: number;
  /** Web UI port; a free port when omitted (ignored when `headless`). */
  uiPort?: number;
  /** Do not start the Web UI. */
  headless?: boolean;
  /** SQLite file to persist state in; in memory when omitted. */
  dbFile?: string;
  /** Search attributes to register at start, e.g. `{ OrderStatus: 'Keyword' }`. */
  searchAttributes?: Record<string, SearchAttributeType>;
  /** Namespace created at start (default `default`). */
  namespace?: string;
  /** File to append the server's stdout and stderr to; kept in memory (tail only) when omitted. */
  logFile?: string;
  /** Extra `--dynamic-config-value KEY=JSON` settings. */
  dynamicConfig?: Record<string, unknown>;
  /** Extra command-line arguments for `temporal server start-dev`. */
  extraArgs?: string[];
  /** How long to wait for the server to accept gRPC calls (default 60 s). */
  startTimeoutMs?: number;
}

/** A running Temporal dev server. */
export interface TemporalDevServer {
  /** `host:port` of the frontend gRPC service, e.g. `127.0.0.1:7233`. */
  address: string;
  /** Namespace created at start. */
  namespace: string;
  /** Web UI URL when the UI runs. */
  uiUrl?: string;
  /** Process id of the server. */
  pid: number;
  /** Stops the server: SIGTERM, then SIGKILL after a grace period. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startFerretDb}. */
export interface FerretDbOptions {
  /** Port on 127.0.0.1; a free port when omitted. */
  port?: number;
  /** Directory for the SQLite databases (`<dataDir>/data`) and FerretDB's state (`<dataDir>/state`). Created if missing. */
  dataDir: string;
  /** File to append the server's stdout and stderr to; kept in memory (tail only) when omitted. */
  logFile?: string;
  /** How long to wait for the server to answer `ping` (default 30 s). */
  startTimeoutMs?: number;
}

/** A running FerretDB server. */
export interface FerretDb {
  /** MongoDB connection string, e.g. `mongodb://127.0.0.1:27017/`. */
  uri: string;
  /** Process id of the server. */
  pid: number;
  /** Stops the server: SIGTERM, then SIGKILL after a grace period. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Cache directory for server binaries and other downloads:
 * `$AGENT_COMMERCE_CACHE`, or `~/.cache/agent-commerce`. Same rule as scripts/setup.sh.
 */
export function cacheDir(): string {
  const fromEnv = process.env.AGENT_COMMERCE_CACHE;
  return fromEnv && fromEnv.length > 0 ? fromEnv : path.join(os.homedir(), '.cache', 'agent-commerce');
}

/**
 * Paths of the server executables: TEMPORAL_CLI_PATH, FERRETDB_PATH and TEMPORAL_TEST_SERVER_PATH when set,
 * else the binaries that scripts/setup.sh installs into `<cacheDir()>/bin`. Existence is not checked here.
 */
export function binaries(): { temporal: string; ferretdb: string; temporalTestServer: string } {
  const bin = path.join(cacheDir(), 'bin');
  const env = (name: string): string | undefined => {
    const v = process.env[name];
    return v && v.length > 0 ? v : undefined;
  };
  return {
    temporal: env('TEMPORAL_CLI_PATH') ?? path.join(bin, 'temporal'),
    ferretdb: env('FERRETDB_PATH') ?? path.join(bin, 'ferretdb'),
    temporalTestServer: env('TEMPORAL_TEST_SERVER_PATH') ?? path.join(bin, 'temporal-test-server'),
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago (asks the OS for an ephemeral port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Rejects if `port` on 127.0.0.1 is taken: a probe must not mistake another server there for ours. */
async function assertPortFree(port: number, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`${what} port ${port} on 127.0.0.1 is not free (${err.code ?? err.message})`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}

/**
 * Starts `temporal server start-dev` on 127.0.0.1 and resolves once its frontend answers
 * `GetSystemInfo` and the namespace exists. In memory unless `dbFile` is given (then with
 * `journal_mode=WAL` and `synchronous=OFF`, without which file-backed SQLite is very slow).
 * Rejects with the tail of the server's output if it exits or does not become ready in time.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions = {}): Promise<TemporalDevServer> {
  const exe = requireExecutable(binaries().temporal, 'temporal', 'TEMPORAL_CLI_PATH');
  if (opts.port !== undefined) await assertPortFree(opts.port, 'Temporal frontend');
  const port = opts.port ?? (await freePort());
  const namespace = opts.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    '--log-format',
    'text',
  ];
  let uiUrl: string | undefined;
  if (opts.headless) {
    args.push('--headless');
  } else {
    if (opts.uiPort !== undefined) await assertPortFree(opts.uiPort, 'Temporal UI');
    const uiPort = opts.uiPort ?? (await freePort());
    args.push('--ui-port', String(uiPort));
    uiUrl = `http://127.0.0.1:${uiPort}`;
  }
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(path.resolve(opts.dbFile)), { recursive: true });
    args.push(
      '--db-filename',
      opts.dbFile,
      '--sqlite-pragma',
      'journal_mode=WAL',
      '--sqlite-pragma',
      'synchronous=OFF',
    );
  }
  for (const [name, type] of Object.entries(opts.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries(opts.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  args.push(...(opts.extraArgs ?? []));

  const address = `127.0.0.1:${port}`;
  const child = spawnTracked('temporal', exe, args, opts.logFile);
  try {
    await waitUntilReady(child, opts.startTimeoutMs ?? 60_000, async () => {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        await connection.workflowService.describeNamespace({ namespace });
      } finally {
        await connection.close();
      }
    });
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { address, namespace, uiUrl, pid: child.pid, stop: child.stop };
}

/**
 * Starts FerretDB v1 with the SQLite handler on 127.0.0.1 (databases in `<dataDir>/data`,
 * state in `<dataDir>/state`, telemetry and the debug HTTP listener off) and resolves once
 * the MongoDB driver can `ping` it. Rejects with the tail of its output on failure.
 */
export async function startFerretDb(opts: FerretDbOptions): Promise<FerretDb> {
  const exe = requireExecutable(binaries().ferretdb, 'ferretdb', 'FERRETDB_PATH');
  if (opts.port !== undefined) await assertPortFree(opts.port, 'FerretDB');
  const port = opts.port ?? (await freePort());
  const dataDir = path.resolve(opts.dataDir);
  const sqliteDir = path.join(dataDir, 'data');
  const stateDir = path.join(dataDir, 'state');
  fs.mkdirSync(sqliteDir, { recursive: true });
  fs.mkdirSync(stateDir, { recursive: true });
  const args = [
    '--handler=sqlite',
    `--sqlite-url=file:${sqliteDir}/`,
    `--state-dir=${stateDir}`,
    `--listen-addr=127.0.0.1:${port}`,
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=error',
  ];
  const uri = `mongodb://127.0.0.1:${port}/`;
  const child = spawnTracked('ferretdb', exe, args, opts.logFile);
  try {
    await waitUntilReady(child, opts.startTimeoutMs ?? 30_000, async () => {
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
      try {
        await client.connect();
        await client.db('admin').command({ ping: 1 });
      } finally {
        await client.close();
      }
    });
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { uri, pid: child.pid, stop: child.stop };
}

// ---------------------------------------------------------------------------------------------
// Child process handling
// ---------------------------------------------------------------------------------------------

const TAIL_BYTES = 16 * 1024;
const STOP_GRACE_MS = 10_000;

interface TrackedChild {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves with the exit code (or signal name) when the child exits. */
  exited: Promise<string>;
  isRunning(): boolean;
  tail(): string;
  stop(): Promise<void>;
}

const running = new Set<TrackedChild>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) {
      try {
        child.process.kill('SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

function requireExecutable(file: string, name: string, envVar: string): string {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(`${name} executable not found at ${file}: run \`bash scripts/setup.sh\` or set ${envVar}`);
  }
  return file;
}

/** Kills `childPid` (TERM, then KILL after 5 s) once `parentPid` is gone. Detached, so it survives the parent. */
function startWatchdog(parentPid: number, childPid: number): ChildProcess | undefined {
  const script =
    'p=$1; c=$2; ' +
    'while kill -0 "$p" 2>/dev/null && kill -0 "$c" 2>/dev/null; do sleep 1; done; ' +
    'kill -0 "$c" 2>/dev/null || exit 0; ' +
    'kill -TERM "$c" 2>/dev/null; i=0; ' +
    'while [ $i -lt 50 ] && kill -0 "$c" 2>/dev/null; do sleep 0.1; i=$((i+1)); done; ' +
    'kill -0 "$c" 2>/dev/null && kill -KILL "$c" 2>/dev/null; exit 0';
  try {
    const dog = spawn('/bin/sh', ['-c', script, 'watchdog', String(parentPid), String(childPid)], {
      stdio: 'ignore',
      detached: true,
    });
    dog.on('error', () => undefined);
    dog.unref();
    return dog;
  } catch {
    return undefined;
  }
}

function spawnTracked(name: string, exe: string, args: string[], logFile?: string): TrackedChild {
  installExitHook();
  let logFd: number | undefined;
  let memTail = '';
  if (logFile) {
    fs.mkdirSync(path.dirname(path.resolve(logFile)), { recursive: true });
    logFd = fs.openSync(logFile, 'a');
  }
  const proc = spawn(exe, args, {
    stdio: ['ignore', logFd ?? 'pipe', logFd ?? 'pipe'],
    env: process.env,
  });
  if (logFd !== undefined) fs.closeSync(logFd);
  const append = (chunk: Buffer): void => {
    memTail += chunk.toString('utf8');
    if (memTail.length > TAIL_BYTES * 2) memTail = memTail.slice(-TAIL_BYTES);
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);

  let spawnError: Error | undefined;
  let exitInfo: string | undefined;
  const exited = new Promise<string>((resolve) => {
    proc.once('error', (err) => {
      spawnError = err;
      exitInfo = `spawn error: ${err.message}`;
      resolve(exitInfo);
    });
    proc.once('exit', (code, signal) => {
      exitInfo = signal ? `signal ${signal}` : `exit code ${String(code)}`;
      resolve(exitInfo);
    });
  });

  const watchdog = proc.pid !== undefined ? startWatchdog(process.pid, proc.pid) : undefined;

  let stopping: Promise<void> | undefined;
  const child: TrackedChild = {
    name,
    pid: proc.pid ?? -1,
    process: proc,
    exited,
    isRunning: () => exitInfo === undefined && spawnError === undefined,
    tail: () => {
      let text = memTail;
      if (logFile) {
        try {
          const size = fs.statSync(logFile).size;
          const fd = fs.openSync(logFile, 'r');
          try {
            const len = Math.min(size, TAIL_BYTES);
            const buf = Buffer.alloc(len);
            fs.readSync(fd, buf, 0, len, size - len);
            text = buf.toString('utf8');
          } finally {
            fs.closeSync(fd);
          }
        } catch {
          text = '';
        }
      }
      return text.length > TAIL_BYTES ? text.slice(-TAIL_BYTES) : text;
    },
    stop: () => {
      stopping ??= (async () => {
        if (child.isRunning()) {
          proc.kill('SIGTERM');
          let timer: NodeJS.Timeout | undefined;
          const timedOut = await Promise.race([
            exited.then(() => false),
            new Promise<boolean>((resolve) => {
              timer = setTimeout(() => resolve(true), STOP_GRACE_MS);
            }),
          ]);
          if (timer) clearTimeout(timer);
          if (timedOut && child.isRunning()) {
            proc.kill('SIGKILL');
            await exited;
          }
        }
        running.delete(child);
        if (watchdog?.pid !== undefined) {
          try {
            process.kill(watchdog.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        proc.stdout?.destroy();
        proc.stderr?.destroy();
      })();
      return stopping;
    },
  };
  running.add(child);
  return child;
}

async function waitUntilReady(child: TrackedChild, timeoutMs: number, probe: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (!child.isRunning()) {
      const how = await child.exited;
      throw new Error(`${child.name} exited before it was ready (${how}). Last output:\n${child.tail()}`);
    }
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(
        `${child.name} (pid ${child.pid}) was not ready after ${timeoutMs} ms (last error: ${reason}). Last output:\n${child.tail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
