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
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
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
  /** The Web UI's codec server (`--ui-codec-endpoint`), so operators can read encrypted payloads. */
  codecEndpoint?: string;
  /** Namespace created at start (default `default`). */
  namespace?: string;
  /** File to append the server's stdout and stderr to; kept in memory (tail only) when omitted. */
  logFile?: string;
  /** Extra `--dynamic-config-value KEY=JSON` settings, over {@link DEV_SERVER_DYNAMIC_CONFIG}. */
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

/** Options of {@link startEmbeddedDatabase}. */
export interface EmbeddedDatabaseOptions {
  /** FerretDB (MongoDB wire protocol) port on 127.0.0.1; a free port when omitted. */
  port?: number;
  /** PostgreSQL port on 127.0.0.1; a free port when omitted. */
  pgPort?: number;
  /**
   * Folder for the PostgreSQL cluster (`<dataDir>/postgres`, owned by the `postgres` user when run as root) and
   * FerretDB's state (`<dataDir>/ferretdb-state`). Created if missing; an existing cluster is reused as it is.
   */
  dataDir: string;
  /** Folder for `postgres.log` and `ferretdb.log`; output kept in memory (tail only) when omitted. */
  logDir?: string;
  /**
   * `false` turns off fsync and synchronous commit: for throw-away test clusters only. A crash of the machine (not of
   * a process) can then lose recent commits. Default `true`.
   */
  durable?: boolean;
  /** How long to wait for each server to accept connections (default 60 s). */
  startTimeoutMs?: number;
}

/** A running embedded database: PostgreSQL with DocumentDB, and FerretDB v2 on it. */
export interface EmbeddedDatabase {
  /** MongoDB connection string of FerretDB, e.g. `mongodb://127.0.0.1:27117/`. */
  uri: string;
  /** PostgreSQL connection string, e.g. `postgres://postgres@127.0.0.1:54329/postgres`. */
  postgresUrl: string;
  /** Process ids: FerretDB and the PostgreSQL postmaster. */
  pids: { ferretdb: number; postgres: number };
  /** Stops FerretDB, then PostgreSQL (fast shutdown: open transactions roll back, committed data is kept). Idempotent. */
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
export function binaries(): { temporal: string; ferretdb: string; temporalTestServer: string; pgBinDir: string } {
  const bin = path.join(cacheDir(), 'bin');
  const env = (name: string): string | undefined => {
    const v = process.env[name];
    return v && v.length > 0 ? v : undefined;
  };
  return {
    temporal: env('TEMPORAL_CLI_PATH') ?? path.join(bin, 'temporal'),
    ferretdb: env('FERRETDB_PATH') ?? path.join(bin, 'ferretdb'),
    temporalTestServer: env('TEMPORAL_TEST_SERVER_PATH') ?? path.join(bin, 'temporal-test-server'),
    pgBinDir: env('PG_BIN_DIR') ?? '/usr/lib/postgresql/15/bin',
  };
}

/**
 * Ports this process handed out or was told to use: never handed out again. A server restarted on its old port
 * (the drills) would otherwise race a fresh `freePort()` of the same restart: the OS may give back the port
 * just released (seen in CI: FerretDB's debug listener took the wire port, and FerretDB failed to start).
 */
const claimedPorts = new Set<number>();

/** A TCP port on 127.0.0.1 that was free a moment ago (asks the OS for an ephemeral port), never one handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await ephemeralPort();
    if (!claimedPorts.has(port) || attempt >= 50) {
      claimedPorts.add(port);
      return port;
    }
  }
}

function ephemeralPort(): Promise<number> {
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
export async function assertPortFree(port: number, what: string): Promise<void> {
  claimedPorts.add(port);
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`${what} port ${port} on 127.0.0.1 is not free (${err.code ?? err.message})`)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}

const INDEXED = temporal.api.enums.v1.IndexedValueType;
const SA_TYPES: Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD,
  Text: INDEXED.INDEXED_VALUE_TYPE_TEXT,
  Int: INDEXED.INDEXED_VALUE_TYPE_INT,
  Double: INDEXED.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: INDEXED.INDEXED_VALUE_TYPE_BOOL,
  Datetime: INDEXED.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: INDEXED.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Registers the custom search attributes the namespace lacks, through the operator API (existing ones are kept).
 * The dev server's `--search-attribute` flags do not add attributes to a database file made by an earlier start, and
 * a real cluster has no such flags: both call this.
 */
export async function ensureSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeType>,
): Promise<void> {
  const have = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(searchAttributes).filter(([name]) => !(name in (have.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, SA_TYPES[type]])),
  });
}

/**
 * Dynamic config every dev server here starts with: one partition per task queue. Partitions (4 by default) spread a
 * task queue over matching hosts; the dev server has one. With four, a task written to a partition where no poller
 * waits sits there until a poller comes by or it is forwarded: measured on the CLI 1.5.1 dev server, 3–8 of every 200
 * hello-world workflows (20 in flight, one worker with the SDK's default pollers) waited 2.1–2.4 s for their first
 * workflow task, which cut a round's throughput from 58–72/s to 37–41/s; with one partition, none did (p99 367–514 ms).
 * The order path's task queue paid the same. See docs/benchmarks.md, 2026-11-28. Upstream: a task can wait long when
 * pollers are fewer than partitions (temporalio/temporal#881, open; #4981 balances polls over partitions only when
 * pollers outnumber them).
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Record<string, unknown> = {
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

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
    if (opts.codecEndpoint) args.push('--ui-codec-endpoint', opts.codecEndpoint);
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
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig })) {
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
        await ensureSearchAttributes(connection, namespace, opts.searchAttributes ?? {});
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

/** postgresql.conf settings for the embedded cluster: the recipe's, DocumentDB's packaging defaults, and ours. */
function postgresSettings(pgPort: number, durable: boolean): Record<string, string> {
  return {
    listen_addresses: "'127.0.0.1'",
    port: String(pgPort),
    // TCP only: a socket path under a deep data folder can exceed the 107-byte limit.
    unix_socket_directories: "''",
    shared_preload_libraries: "'pg_cron,pg_documentdb_core,pg_documentdb'",
    'cron.database_name': "'postgres'",
    // The default let WAL grow past 1 GB in a benchmark.
    max_wal_size: "'256MB'",
    // DocumentDB's packaging defaults (packaging/10-preload.sh of its source).
    'documentdb.enableCompact': 'true',
    'documentdb.enableLetAndCollationForQueryMatch': 'true',
    'documentdb.enableNowSystemVariable': 'true',
    'documentdb.enableSortbyIdPushDownToPrimaryKey': 'true',
    'documentdb.enableSchemaValidation': 'true',
    'documentdb.enableBypassDocumentValidation': 'true',
    'documentdb.enableUserCrud': 'true',
    'documentdb.maxUserLimit': '100',
    ...(durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
  };
}

/** uid and gid of the `postgres` user when this process runs as root (PostgreSQL refuses to run as root). */
export function postgresUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const out = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gidOut = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (out.status !== 0 || gidOut.status !== 0) {
    throw new Error(
      'running as root, but there is no `postgres` user to run PostgreSQL as: install postgresql-15 (scripts/setup.sh does) or set MONGODB_URI',
    );
  }
  return { uid: Number(out.stdout.trim()), gid: Number(gidOut.stdout.trim()) };
}

/** Runs a tool to completion (as `user` when given); returns its standard output; rejects with its output on failure. */
export function runTool(exe: string, args: string[], user: { uid: number; gid: number } | undefined): string {
  const res = spawnSync(exe, args, { encoding: 'utf8', ...(user ?? {}), env: { ...process.env, LC_ALL: 'C.UTF-8' } });
  if (res.error) throw new Error(`${path.basename(exe)} could not run: ${res.error.message}`);
  if (res.status !== 0) {
    throw new Error(
      `${path.basename(exe)} ${args.join(' ')} failed (exit ${String(res.status)}):\n${res.stdout}${res.stderr}`,
    );
  }
  return res.stdout;
}

/** Where and how {@link startPostgres} runs a PostgreSQL 15 cluster. */
export interface PostgresOptions {
  /** The cluster's folder (initialised on first use). */
  pgDir: string;
  /** postgresql.conf settings, written to postgresql.auto.conf at every start; must include `port`. */
  settings: Record<string, string>;
  logFile?: string;
  timeoutMs?: number;
}

/**
 * Starts a PostgreSQL 15 cluster on 127.0.0.1 (`initdb` on first use, as the `postgres` user when run as root,
 * trust auth, superuser `postgres`) and resolves once `pg_isready` accepts sessions. Used by the embedded database
 * and by Temporal's own cluster (scripts/lib/temporalCluster.ts), each with a cluster of its own.
 * @throws Error with the tail of the server's output if it exits or is not ready within `timeoutMs` (default 60 s).
 */
export async function startPostgres(opts: PostgresOptions): Promise<TrackedChild> {
  const { pgBinDir } = binaries();
  const postgresExe = requireExecutable(path.join(pgBinDir, 'postgres'), 'postgres', 'PG_BIN_DIR');
  const { pgDir, settings } = opts;
  const user = postgresUser();
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    if (user) {
      // mkdtemp folders are 0700: the postgres user must be able to reach its cluster.
      fs.chmodSync(path.dirname(pgDir), 0o755);
      fs.chownSync(pgDir, user.uid, user.gid);
    }
    runTool(
      path.join(pgBinDir, 'initdb'),
      ['-D', pgDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions'],
      user,
    );
  }
  // Written on every start (PostgreSQL takes the last value of a setting), so a port change applies to old clusters.
  fs.writeFileSync(
    path.join(pgDir, 'postgresql.auto.conf'),
    '# Written by scripts/lib/servers.ts at every start.\n' +
      Object.entries(settings)
        .map(([k, v]) => `${k} = ${v}\n`)
        .join(''),
  );
  if (user) fs.chownSync(path.join(pgDir, 'postgresql.auto.conf'), user.uid, user.gid);
  // A postmaster.pid left by a killed server is handled by PostgreSQL itself (it checks whether the pid is alive).
  const postgres = spawnTracked(
    'postgres',
    postgresExe,
    ['-D', pgDir],
    opts.logFile,
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients' pooled connections to close.
    { ...(user ? { user } : {}), stopSignal: 'SIGINT' },
  );
  try {
    // pg_isready succeeds only once the cluster accepts sessions (not while it is starting or recovering).
    await waitUntilReady(postgres, opts.timeoutMs ?? 60_000, async () => {
      runTool(
        path.join(pgBinDir, 'pg_isready'),
        ['-q', '-h', '127.0.0.1', '-p', String(settings.port), '-t', '1'],
        undefined,
      );
    });
  } catch (err) {
    await postgres.stop();
    throw err;
  }
  return postgres;
}

/**
 * Data folder of FerretDB v1 (SQLite files under `<dir>/data`), which FerretDB v2 cannot read. Returns the folder
 * when `dir` looks like one, so callers can tell the user instead of silently starting empty.
 */
export function findFerretDbV1Data(dir: string): string | undefined {
  const sqliteDir = path.join(dir, 'data');
  try {
    return fs.readdirSync(sqliteDir).some((f) => f.endsWith('.sqlite')) ? sqliteDir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the embedded database on 127.0.0.1: a PostgreSQL 15 cluster in `<dataDir>/postgres` with the DocumentDB
 * extension (initialised on first use, as the `postgres` user when run as root), then FerretDB v2 on it (no auth,
 * telemetry off). Resolves once the MongoDB driver can `ping` FerretDB.
 * @throws Error naming what is missing (binaries, the `postgres` user, permissions) or the tail of a server's output.
 */
export async function startEmbeddedDatabase(opts: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const { ferretdb: ferretExe, pgBinDir } = binaries();
  requireExecutable(ferretExe, 'ferretdb', 'FERRETDB_PATH');
  if (opts.port !== undefined) await assertPortFree(opts.port, 'FerretDB');
  if (opts.pgPort !== undefined) await assertPortFree(opts.pgPort, 'PostgreSQL');
  const port = opts.port ?? (await freePort());
  const pgPort = opts.pgPort ?? (await freePort());
  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  const dataDir = path.resolve(opts.dataDir);
  const pgDir = path.join(dataDir, 'postgres');
  const stateDir = path.join(dataDir, 'ferretdb-state');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  fs.mkdirSync(stateDir, { recursive: true });

  const settings = postgresSettings(pgPort, opts.durable ?? true);
  const postgresUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  const postgres = await startPostgres({
    pgDir,
    settings,
    timeoutMs,
    ...(opts.logDir ? { logFile: path.join(opts.logDir, 'postgres.log') } : {}),
  });
  try {
    runTool(
      path.join(pgBinDir, 'psql'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(pgPort),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-qAt',
        '-c',
        'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE',
      ],
      undefined,
    );
  } catch (err) {
    await postgres.stop();
    throw err;
  }

  const args = [
    `--postgresql-url=${postgresUrl}`,
    `--listen-addr=127.0.0.1:${port}`,
    // Each instance needs its own debug listener (the default 8088 clashes); it serves /debug/metrics.
    `--debug-addr=127.0.0.1:${await freePort()}`,
    `--state-dir=${stateDir}`,
    '--no-auth',
    '--telemetry=disable',
    '--log-level=error',
  ];
  const uri = `mongodb://127.0.0.1:${port}/`;
  const ferret = spawnTracked(
    'ferretdb',
    ferretExe,
    args,
    opts.logDir ? path.join(opts.logDir, 'ferretdb.log') : undefined,
  );
  try {
    await waitUntilReady(ferret, timeoutMs, async () => {
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
      try {
        await client.connect();
        await client.db('admin').command({ ping: 1 });
      } finally {
        await client.close();
      }
    });
  } catch (err) {
    await ferret.stop();
    await postgres.stop();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    uri,
    postgresUrl,
    pids: { ferretdb: ferret.pid, postgres: postgres.pid },
    stop: () => {
      stopping ??= ferret.stop().then(() => postgres.stop());
      return stopping;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Child process handling
// ---------------------------------------------------------------------------------------------

const TAIL_BYTES = 16 * 1024;
const STOP_GRACE_MS = 10_000;

/** A server process this module started: its pid, output tail, and a clean stop. */
export interface TrackedChild {
  name: string;
  stopSignal: NodeJS.Signals;
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
        child.process.kill(child.stopSignal);
      } catch {
        // already gone
      }
    }
  });
}

export function requireExecutable(file: string, name: string, envVar: string): string {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(
      `${name} executable not found at ${file}: run \`bash scripts/setup.sh\` or set ${envVar} (or point MONGODB_URI at a MongoDB you run)`,
    );
  }
  return file;
}

/**
 * Stops `childPid` (`signal`, then KILL after 5 s) once `parentPid` is gone. Detached, so it survives the parent.
 * A negative `childPid` names a process group (all of it is signalled).
 */
export function startWatchdog(parentPid: number, childPid: number, signal: NodeJS.Signals): ChildProcess | undefined {
  const script =
    'p=$1; c=$2; ' +
    'while kill -0 "$p" 2>/dev/null && kill -0 "$c" 2>/dev/null; do sleep 1; done; ' +
    'kill -0 "$c" 2>/dev/null || exit 0; ' +
    'kill -"$3" "$c" 2>/dev/null; i=0; ' +
    'while [ $i -lt 50 ] && kill -0 "$c" 2>/dev/null; do sleep 0.1; i=$((i+1)); done; ' +
    'kill -0 "$c" 2>/dev/null && kill -KILL "$c" 2>/dev/null; exit 0';
  try {
    const dog = spawn('/bin/sh', ['-c', script, 'watchdog', String(parentPid), String(childPid), signal.slice(3)], {
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

/** How a tracked child runs: as another user (root only), and which signal stops it cleanly (default SIGTERM). */
export interface SpawnOptions {
  user?: { uid: number; gid: number };
  stopSignal?: NodeJS.Signals;
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

export function spawnTracked(
  name: string,
  exe: string,
  args: string[],
  logFile?: string,
  options: SpawnOptions = {},
): TrackedChild {
  const stopSignal = options.stopSignal ?? 'SIGTERM';
  installExitHook();
  let logFd: number | undefined;
  let memTail = '';
  if (logFile) {
    fs.mkdirSync(path.dirname(path.resolve(logFile)), { recursive: true });
    logFd = fs.openSync(logFile, 'a');
  }
  const proc = spawn(exe, args, {
    stdio: ['ignore', logFd ?? 'pipe', logFd ?? 'pipe'],
    env: options.env ? { ...process.env, ...options.env } : process.env,
    ...(options.user ?? {}),
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

  const watchdog = proc.pid !== undefined ? startWatchdog(process.pid, proc.pid, stopSignal) : undefined;

  let stopping: Promise<void> | undefined;
  const child: TrackedChild = {
    name,
    stopSignal,
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
          proc.kill(stopSignal);
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

export async function waitUntilReady(
  child: Pick<TrackedChild, 'name' | 'pid' | 'isRunning' | 'exited' | 'tail'>,
  timeoutMs: number,
  probe: () => Promise<void>,
): Promise<void> {
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
