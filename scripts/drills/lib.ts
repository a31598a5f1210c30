/**
 * What the drills share (issue 14): a stack of separate processes as `npm start` runs them (Temporal dev server on a
 * SQLite file, PostgreSQL + FerretDB with fsync on, API and worker processes), on ports from `freePort` and a data
 * folder of its own, that a drill can SIGKILL and restart piece by piece; an HTTP client with a deadline; a webhook
 * receiver counting by `webhook-id`; process RSS from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Client as TemporalClient, Connection as TemporalConnection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { createPublicClient, http as viemHttp, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS } from '../lib/chain';
import {
  freePort,
  startEmbeddedDatabase,
  startWatchdog,
  startTemporalDevServer,
  type EmbeddedDatabase,
  type TemporalDevServer,
} from '../lib/servers';
import { startLocalX402, type LocalX402 } from '../lib/x402Local';
import { startLoadBalancer } from '../lib/loadBalancer';
import { compileServers, compiledCommand } from '../lib/compile';
import { startTemporalCluster, type TemporalCluster } from '../lib/temporalCluster';
import type { TrackedChild } from '../lib/servers';
import { SEARCH_ATTRIBUTES, orderWorkflowId } from '../../workflows/shared';
import type {
  LinkpayTransactionDoc,
  OrderDoc,
  TaskDoc,
  WalletDoc,
  WalletEntryDoc,
  WalletMovement,
  X402PaymentDoc,
} from '../../src/db';

const root = path.resolve(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

export const OPERATOR_KEY = 'op_drill_key_0123456789abcdef';

/** The drills' plain order: automation-wf ($69 agent price, produced in milliseconds) with valid inputs. */
export const AUTOMATION = {
  service_id: 'automation-wf',
  inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
};

/** Milliseconds since `t0`, rounded. */
export const since = (t0: number): number => Math.round(Date.now() - t0);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Prints one line prefixed with the elapsed time of the drill. */
export function logger(t0: number): (msg: string) => void {
  return (msg) => console.log(`[${(since(t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
}

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

/** One line of /proc/<pid>/stat: parent and process group. */
function procStat(pid: number): { ppid: number; pgrp: number; state: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '?', ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return null;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/** True while `pid` exists and is not a zombie. */
export function alive(pid: number): boolean {
  const s = procStat(pid);
  return s !== null && s.state !== 'Z';
}

/** Resident set size of `pid` in MB (0 when gone). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** RSS of every process in the process group `pgid` (tsx runs node in a child of its own), in MB. */
export function groupRssMb(pgid: number): number {
  return allPids()
    .filter((p) => procStat(p)?.pgrp === pgid)
    .reduce((sum, p) => sum + rssMb(p), 0);
}

/** `pid` and every process below it. */
function tree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    for (const p of allPids()) if (procStat(p)?.ppid === pids[i]) pids.push(p);
  }
  return pids;
}

/** RSS of `pid` and its descendants in MB (PostgreSQL: shared buffers count once per backend that touched them). */
export function treeRssMb(pid: number): number {
  return tree(pid).reduce((sum, p) => sum + rssMb(p), 0);
}

/** SIGKILLs `pid` and every descendant (PostgreSQL's backends), then waits until they are gone. */
export async function killTree(pid: number): Promise<void> {
  const victims = tree(pid);
  for (const p of victims) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 10_000;
  while (victims.some(alive) && Date.now() < deadline) await sleep(50);
}

/** An API or worker process (`tsx` in a process group of its own). */
export interface NodeProc {
  name: string;
  pid: number;
  url?: string;
  /** Its Prometheus `/metrics` (APIs and workers; issue 39 §1). */
  metricsUrl?: string;
  child: ChildProcess;
  /** RSS of its process group in MB. */
  rss(): number;
  kill(): Promise<void>;
  /** SIGTERM and wait (graceful). */
  stop(): Promise<void>;
}

function spawnNode(
  name: string,
  script: string,
  env: Record<string, string>,
  readyText: string,
  logFile: string,
  timeoutMs = 90_000,
  compiledDir?: string,
): Promise<NodeProc> {
  const compiled = compiledDir ? compiledCommand(compiledDir, script) : undefined;
  const child = spawn(compiled?.command ?? tsx, compiled?.args ?? [path.join(root, script)], {
    env: { ...process.env, ...env, ...compiled?.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Its process group is stopped if this drill dies without cleaning up (e.g. killed by the test's timeout).
  const watchdog = child.pid !== undefined ? startWatchdog(process.pid, -child.pid, 'SIGKILL') : undefined;
  void exited.then(() => {
    try {
      if (watchdog?.pid !== undefined) process.kill(watchdog.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const proc: NodeProc = {
    name,
    pid: child.pid ?? -1,
    child,
    rss: () => groupRssMb(child.pid ?? -1),
    async kill() {
      signalGroup('SIGKILL');
      await exited;
    },
    async stop() {
      signalGroup('SIGTERM');
      const t = setTimeout(() => signalGroup('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`${name} not ready after ${timeoutMs} ms: ${out.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(readyText)) {
        clearTimeout(timer);
        resolve(proc);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${sig ?? code}) before it was ready: ${out.slice(-2000)}`));
    });
  });
}

/** Options of {@link startDrillStack}. */
export interface DrillStackOptions {
  apis?: number;
  workers?: number;
  /** Data folder (created); a fresh temporary one when omitted. */
  dataDir?: string;
  /** Extra environment of the API and worker processes. */
  env?: Record<string, string>;
  /**
   * Start the local x402 settlement stack (anvil + facilitator, as `npm start` does). It stands for the chain and
   * the facilitator, which are not ours: `killAll` leaves it running.
   */
  x402?: boolean;
  /**
   * The production topology (issue 25): a Temporal cluster (separate frontend, history × 2, matching × 2 and worker
   * services on a PostgreSQL of their own) instead of the dev server, each API and worker with an empty data folder
   * of its own, and HAProxy (deploy/haproxy.cfg) in front of the APIs at {@link DrillStack.url}.
   */
  cluster?: boolean;
  /**
   * Run the APIs and workers as `npm start` does: transpiled to JavaScript under `node` (scripts/lib/compile.ts),
   * not under tsx, so memory and speed figures are the ones users get.
   */
  compiled?: boolean;
}

/** A stack of separate processes that a drill kills and restarts. Ports stay the same across restarts. */
export interface DrillStack {
  dataDir: string;
  temporalAddress: string;
  mongoUri: string;
  dbName: string;
  apis: NodeProc[];
  workers: NodeProc[];
  temporal: TemporalDevServer | undefined;
  /** The Temporal cluster, with `cluster: true` (then `temporal` stays undefined). */
  cluster: TemporalCluster | undefined;
  /** Where clients connect: the load balancer with `cluster: true`, else the first API. */
  url: string;
  /** HAProxy, with `cluster: true`. */
  loadBalancer: TrackedChild | undefined;
  database: EmbeddedDatabase | undefined;
  /** The local chain and facilitator when started with `x402: true`. */
  x402: LocalX402 | undefined;
  startTemporal(): Promise<void>;
  startDatabase(): Promise<void>;
  /** SIGKILL the Temporal dev server (or every process of the cluster and its PostgreSQL). */
  killTemporal(): Promise<void>;
  /** SIGKILL FerretDB and PostgreSQL (postmaster and every backend). */
  killDatabase(): Promise<void>;
  startApi(i: number): Promise<NodeProc>;
  /**
   * Starts worker process `i` (logs in `logs/worker<i+1>.log`). `env` is added last, over the stack's: e.g.
   * `WORKER_BUILD_ID` (a build of the Worker Deployment `WORKER_DEPLOYMENT_NAME`) or `WORKFLOW_BUNDLE_PATH` (another
   * workflow bundle than the stack's), as the `deploy` drill runs two builds side by side (issue 26 §2).
   */
  startWorker(i: number, env?: Record<string, string>): Promise<NodeProc>;
  /** Every process SIGKILLed at once. */
  killAll(): Promise<void>;
  /** Servers, then workers and APIs, as `npm start` does. */
  startAll(): Promise<void>;
  /** A MongoDB client on the drill's database (for ledger checks); closed by `stop`. */
  mongo(): Promise<MongoClient>;
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** Creates the data folder and ports and starts everything (see {@link DrillStack}). */
export async function startDrillStack(opts: DrillStackOptions = {}): Promise<DrillStack> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-drill-'));
  // mkdtemp makes it 0700; PostgreSQL runs as the postgres user when we are root and must reach its cluster.
  chmodSync(dataDir, 0o755);
  mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const [temporalPort, ferretPort, pgPort, lbPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const apiPorts: number[] = [];
  for (let i = 0; i < (opts.apis ?? 1); i++) apiPorts.push(await freePort());
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  // Inside the repository (node_modules/.cache), so the compiled files resolve the project's node_modules.
  const compiledDir = opts.compiled
    ? await compileServers(root, path.join(root, 'node_modules', '.cache', `drill-dist-${path.basename(dataDir)}`))
    : undefined;
  // Built with the workers' extra environment: what goes into the bundle (tracing, issue 39 §1) follows it.
  const built = spawnSync(tsx, [path.join(root, 'scripts', 'bundle-workflows.ts'), bundlePath], {
    stdio: 'inherit',
    env: { ...process.env, ...opts.env },
  });
  if (built.status !== 0) throw new Error('building the workflow bundle failed');
  const dbName = 'agent_commerce';
  let mongo: MongoClient | undefined;
  // The buyer holds 1,000,000 USDC: a long soak buys many 69 USD orders.
  const x402 = opts.x402
    ? await startLocalX402({
        dataDir,
        anvilPort: await freePort(),
        facilitatorPort: await freePort(),
        buyerFloor: 100_000_000_000n,
        buyerTopUp: 1_000_000_000_000n,
      })
    : undefined;

  const stack: DrillStack = {
    dataDir,
    temporalAddress: `127.0.0.1:${temporalPort}`,
    mongoUri: `mongodb://127.0.0.1:${ferretPort}/`,
    dbName,
    apis: [],
    workers: [],
    temporal: undefined,
    cluster: undefined,
    url: opts.cluster ? `http://127.0.0.1:${lbPort}` : `http://127.0.0.1:${apiPorts[0] ?? 0}`,
    loadBalancer: undefined,
    database: undefined,
    x402,
    async startTemporal() {
      if (opts.cluster) {
        stack.cluster = await startTemporalCluster({
          dataDir: path.join(dataDir, 'temporal-cluster'),
          frontendPort: temporalPort,
          uiPort: false,
          searchAttributes: { ...SEARCH_ATTRIBUTES },
        });
        return;
      }
      stack.temporal = await startTemporalDevServer({
        port: temporalPort,
        headless: true,
        dbFile: path.join(dataDir, 'temporal.db'),
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logFile: path.join(dataDir, 'logs', 'temporal.log'),
      });
    },
    async startDatabase() {
      stack.database = await startEmbeddedDatabase({
        port: ferretPort,
        pgPort,
        dataDir: path.join(dataDir, 'database'),
        logDir: path.join(dataDir, 'logs'),
        durable: true,
      });
    },
    async killTemporal() {
      if (stack.cluster) {
        await Promise.all([...stack.cluster.processes.map((p) => p.kill()), stack.cluster.postgres.kill()]);
        await stack.cluster.stop();
        return;
      }
      if (stack.temporal) await killTree(stack.temporal.pid);
      await stack.temporal?.stop();
      stack.temporal = undefined;
    },
    async killDatabase() {
      if (stack.database)
        await Promise.all([killTree(stack.database.pids.ferretdb), killTree(stack.database.pids.postgres)]);
      await stack.database?.stop();
      stack.database = undefined;
    },
    async startApi(i) {
      const port = apiPorts[i] ?? (await freePort());
      const metricsPort = await metricsPortOf(`api${i}`);
      const p = await spawnNode(
        `api${i + 1}`,
        'src/server.ts',
        {
          ...env(),
          ...own(`api${i + 1}`),
          PORT: String(port),
          PUBLIC_BASE_URL: opts.cluster ? stack.url : `http://127.0.0.1:${port}`,
          API_METRICS_PORT: String(metricsPort),
        },
        'api: listening',
        path.join(dataDir, 'logs', `api${i + 1}.log`),
        90_000,
        compiledDir,
      );
      p.url = `http://127.0.0.1:${port}`;
      p.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      stack.apis[i] = p;
      return p;
    },
    async startWorker(i, extra = {}) {
      const metricsPort = await metricsPortOf(`worker${i}`);
      const p = await spawnNode(
        `worker${i + 1}`,
        'worker/index.ts',
        {
          ...env(),
          ...own(`worker${i + 1}`),
          WORKFLOW_BUNDLE_PATH: bundlePath,
          WORKER_METRICS_PORT: String(metricsPort),
          ...extra,
        },
        'worker: task queue',
        path.join(dataDir, 'logs', `worker${i + 1}.log`),
        90_000,
        compiledDir,
      );
      p.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      stack.workers[i] = p;
      return p;
    },
    async killAll() {
      await Promise.all([
        ...stack.apis.map((p) => p.kill()),
        ...stack.workers.map((p) => p.kill()),
        stack.killTemporal(),
        stack.killDatabase(),
      ]);
    },
    async startAll() {
      await Promise.all([stack.startTemporal(), stack.startDatabase()]);
      const workers = Promise.all(Array.from({ length: opts.workers ?? 1 }, (_, i) => stack.startWorker(i)));
      // One API after the other: the first start creates files every process shares (signing keys).
      for (let i = 0; i < apiPorts.length; i++) await stack.startApi(i);
      await workers;
      if (opts.cluster && !stack.loadBalancer) {
        stack.loadBalancer = await startLoadBalancer({
          bind: `127.0.0.1:${lbPort}`,
          apis: apiPorts.map((p) => `127.0.0.1:${p}`),
          logFile: path.join(dataDir, 'logs', 'haproxy.log'),
        });
      }
    },
    async mongo() {
      mongo ??= await new MongoClient(stack.mongoUri, { serverSelectionTimeoutMS: 5_000 }).connect();
      return mongo;
    },
    async stop(o = {}) {
      await mongo?.close().catch(() => undefined);
      await Promise.all([...stack.apis.map((p) => p.stop()), ...stack.workers.map((p) => p.stop())]);
      await stack.loadBalancer?.stop();
      await stack.temporal?.stop();
      await stack.cluster?.stop();
      await stack.database?.stop();
      await x402?.stop();
      if (!o.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (compiledDir) rmSync(compiledDir, { recursive: true, force: true });
    },
  };
  /** Each API's and worker's metrics port, kept across its restarts. */
  const metricsPorts = new Map<string, number>();
  const metricsPortOf = async (name: string): Promise<number> => {
    const known = metricsPorts.get(name);
    if (known !== undefined) return known;
    const port = await freePort();
    metricsPorts.set(name, port);
    return port;
  };
  /** In the cluster, each process's own empty data folder (nothing on disk is shared). */
  const own = (name: string): Record<string, string> => {
    if (!opts.cluster) return {};
    const dir = path.join(dataDir, 'processes', name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return { DATA_DIR: dir };
  };
  const env = (): Record<string, string> => ({
    TEMPORAL_ADDRESS: stack.temporalAddress,
    MONGODB_URI: stack.mongoUri,
    MONGODB_DB: dbName,
    DATA_DIR: dataDir,
    ...(opts.cluster ? {} : { STORAGE_DIR: path.join(dataDir, 'deliverables') }),
    OPERATOR_KEY,
    // Readiness is read from the info lines (`api: listening`, `worker: task queue`): a LOG_LEVEL of warn (as jest's
    // globalSetup sets for its own servers) would hide them and every drill would wait for nothing.
    LOG_LEVEL: 'info',
    DEV_MODE: 'true',
    HOST: '127.0.0.1',
    ...(x402
      ? {
          X402_FACILITATOR_URL: x402.facilitatorUrl,
          X402_RPC_URL: x402.rpcUrl,
          X402_REFUND_PRIVATE_KEY: ANVIL_KEYS.payTo,
        }
      : {}),
    ...opts.env,
  });
  await stack.startAll();
  return stack;
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/** One answer: status (0 when the request failed or hit its deadline), headers, parsed body, time taken. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
  ms: number;
  error?: string;
}

/** The {@link Answer} of a request that got none (connection refused or cut, deadline): status 0 and the error. */
function noAnswer(t0: number, err: unknown): Answer {
  return {
    status: 0,
    headers: new Headers(),
    body: {},
    ms: since(t0),
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  };
}

/** JSON request with a deadline (default 15 s); never throws. */
export async function call(
  base: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<Answer> {
  const t0 = Date.now();
  try {
    const res = await fetch(base + urlPath, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: Record<string, any> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, any>) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, headers: res.headers, body: parsed, ms: since(t0) };
  } catch (err) {
    return noAnswer(t0, err);
  }
}

/**
 * `fetch` that pays 402 answers as an unmodified x402 buyer does (`@x402/fetch` over the exact EVM scheme), signing
 * with the local chain's funded buyer (anvil account #1) unless another key is given; spend capped at `maxUsd`.
 */
export function payingFetch(key: Hex = ANVIL_KEYS.buyer, maxUsd = 1000): typeof fetch {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
  client.setSpendControls({ maxAmountPerPayment: `$${maxUsd}` });
  return wrapFetchWithPayment(fetch, client) as typeof fetch;
}

/** How an x402 purchase by {@link x402Purchase} ended. */
export interface X402Purchase {
  path: string;
  /** Final answer: 200 with the goods, or what stopped the buyer. */
  status: number;
  body: Record<string, any>;
  /** Payloads signed (a new one only after a 402 refused the previous one). */
  signed: number;
}

/**
 * Buys `path` as a careful x402 buyer does across crashes: signs once with a `payment-identifier`, then resends the
 * same payload and id through connection errors, 503, 429 and 409 `payment_in_progress` (waiting Retry-After), and
 * signs anew (new id) only after a 402. Stops at a 200, at another answer, or after `deadlineMs`.
 */
export async function x402Purchase(
  bases: string[],
  method: 'GET' | 'POST',
  urlPath: string,
  headers: Record<string, string>,
  stats: ClientStats,
  deadlineMs = 180_000,
  key: Hex = ANVIL_KEYS.buyer,
): Promise<X402Purchase> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
  client.setSpendControls({ maxAmountPerPayment: '$1000' });
  const deadline = Date.now() + deadlineMs;
  let signature: Record<string, string> | undefined;
  let signed = 0;
  for (let n = 0; ; n++) {
    const base = bases[n % bases.length]!;
    if (!signature) {
      const challenge = await call(base, method, urlPath, undefined, headers);
      const required = challenge.headers.get('payment-required');
      if (challenge.status === 402 && required) {
        const decoded = decodePaymentRequiredHeader(required);
        const payload = await client.createPaymentPayload(decoded);
        const ext = (decoded.extensions?.['payment-identifier'] as object | undefined) ?? {};
        payload.extensions = {
          ...(payload.extensions ?? {}),
          'payment-identifier': { ...ext, info: { required: false, id: `pay_${randomBytes(12).toString('hex')}` } },
        };
        signature = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) };
        signed++;
      } else if (challenge.status !== 0 && challenge.status !== 503 && challenge.status !== 429) {
        return { path: urlPath, status: challenge.status, body: challenge.body, signed };
      }
    }
    const a = signature
      ? await call(base, method, urlPath, undefined, { ...headers, ...signature }, 60_000)
      : undefined;
    if (a) {
      stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
      if (a.status === 503 && !a.headers.get('retry-after')) stats.unavailableWithoutRetryAfter++;
      if (a.status === 402) signature = undefined;
      const again =
        a.status === 0 ||
        a.status === 503 ||
        a.status === 429 ||
        a.status === 402 ||
        (a.status === 409 && a.body.code === 'payment_in_progress');
      if (!again || Date.now() > deadline) return { path: urlPath, status: a.status, body: a.body, signed };
      await sleep(Math.min(Math.max(Number(a.headers.get('retry-after') ?? '0') * 1000, 300), 2_000));
    } else {
      if (Date.now() > deadline) return { path: urlPath, status: 0, body: {}, signed };
      await sleep(500);
    }
  }
}

/** Retries `fn` until it returns a value (not undefined) or `timeoutMs` passes; returns undefined then. */
export async function until<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

/** Creates the wallet, credits it with `usd` (operator) and returns the agent key. */
export async function fundedAgent(base: string, agentId: string, usd: number): Promise<string> {
  const w = await call(base, 'GET', `/api/v1/wallets/${agentId}`);
  if (w.status !== 200 || typeof w.body.agent_key !== 'string')
    throw new Error(`wallet ${agentId}: ${w.status} ${JSON.stringify(w.body)}`);
  const c = await call(
    base,
    'POST',
    `/api/v1/wallets/${agentId}/credits`,
    { amount: usd, transaction_id: `fund-${agentId}` },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  if (c.status !== 201) throw new Error(`credit ${agentId}: ${c.status} ${JSON.stringify(c.body)}`);
  return w.body.agent_key as string;
}

// ---------------------------------------------------------------------------------------------
// Webhook receiver
// ---------------------------------------------------------------------------------------------

/** A webhook receiver answering 204 to everything, counting deliveries by `webhook-id`. */
export interface WebhookCounter {
  url: string;
  /** webhook-id → deliveries received. */
  byId: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a {@link WebhookCounter} on a free port. */
export async function startWebhookCounter(): Promise<WebhookCounter> {
  const byId = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume();
    req.on('end', () => {
      if (id) byId.set(id, (byId.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    byId,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Ledger checks
// ---------------------------------------------------------------------------------------------

/** Debits per transaction id in the wallet ledger (`wallet_entries`), for the given transaction ids. */
export async function debitsByTx(stack: DrillStack, txIds: string[]): Promise<Map<string, number>> {
  const db = (await stack.mongo()).db(stack.dbName);
  const rows = await db
    .collection<{ tx_id: string; type: string }>('wallet_entries')
    .find({ tx_id: { $in: txIds }, type: 'debit' })
    .project<{ tx_id: string }>({ tx_id: 1 })
    .toArray();
  const out = new Map<string, number>(txIds.map((t) => [t, 0]));
  for (const r of rows) out.set(r.tx_id, (out.get(r.tx_id) ?? 0) + 1);
  return out;
}

/** A drill's verdict: figures printed as JSON, and the exit code (1 on any lost, stuck or double-charged order). */
export function finish(name: string, figures: Record<string, unknown>, problems: string[]): never {
  console.log(`\n${name} figures: ${JSON.stringify(figures, null, 2)}`);
  if (problems.length > 0) {
    console.log(`${name}: FAILED\n  - ${problems.join('\n  - ')}`);
    process.exit(1);
  }
  console.log(`${name}: PASSED`);
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// A client that behaves as the API asks: retries 503 / 409 in-flight / 429 after Retry-After
// ---------------------------------------------------------------------------------------------

/** What a retrying client saw: answers per status, and the slowest answer. */
export interface ClientStats {
  statuses: Map<number, number>;
  slowestMs: number;
  /** 503 answers without a Retry-After header (must stay 0). */
  unavailableWithoutRetryAfter: number;
}

export function newStats(): ClientStats {
  return { statuses: new Map(), slowestMs: 0, unavailableWithoutRetryAfter: 0 };
}

/**
 * Sends the request until it gets an answer that is not "try again" (connection refused, 503, 409
 * idempotency_in_flight, 429), waiting Retry-After (or 500 ms) between tries, for at most `deadlineMs`. POSTs carry
 * `idempotencyKey`, so a retry never does the work twice. Picks the base URL round-robin from `bases`.
 */
export async function retrying(
  bases: string[],
  method: string,
  urlPath: string,
  body: unknown,
  headers: Record<string, string>,
  stats: ClientStats,
  deadlineMs = 180_000,
): Promise<Answer> {
  const deadline = Date.now() + deadlineMs;
  for (let n = 0; ; n++) {
    const base = bases[n % bases.length]!;
    const a = await call(base, method, urlPath, body, headers);
    stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
    stats.slowestMs = Math.max(stats.slowestMs, a.ms);
    if (a.status === 503 && !a.headers.get('retry-after')) stats.unavailableWithoutRetryAfter++;
    const again =
      a.status === 0 ||
      a.status === 503 ||
      a.status === 429 ||
      (a.status === 409 && a.body.code === 'idempotency_in_flight');
    if (!again || Date.now() > deadline) return a;
    const retryAfter = Number(a.headers.get('retry-after') ?? '0');
    await sleep(Math.min(Math.max(retryAfter * 1000, 300), 2_000));
  }
}

let flowCounter = 0;

/** One buyer's order on the wallet rail: created, paid, followed until `delivered` (or a later status). */
export interface OrderFlow {
  orderId?: string;
  /** Where it stopped: delivered, or what went wrong. */
  outcome: 'delivered' | 'create_failed' | 'pay_failed' | 'stuck';
  detail?: string;
  /** When it was delivered (ms epoch). */
  deliveredAt?: number;
}

export const DELIVERED_OR_LATER = ['delivered', 'accepted', 'in_engineering'];

/**
 * Creates an `automation-wf` order for `agentId` and pays it from the wallet, retrying as the API asks (same
 * Idempotency-Key per step), then waits until it is delivered. `bases` are API base URLs, used in turn.
 */
export async function orderFlow(
  bases: string[],
  agentId: string,
  agentKey: string,
  stats: ClientStats,
  deadlineMs = 180_000,
): Promise<OrderFlow> {
  const n = ++flowCounter;
  const tag = `${process.pid}-${Date.now().toString(36)}-${n}`;
  const auth = { authorization: `Bearer ${agentKey}` };
  const created = await retrying(
    bases,
    'POST',
    '/api/v1/orders',
    {
      service_id: 'automation-wf',
      agent_id: agentId,
      inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
    },
    { ...auth, 'idempotency-key': `create-${tag}` },
    stats,
    deadlineMs,
  );
  if (created.status !== 201)
    return {
      outcome: 'create_failed',
      detail: `${created.status} ${created.error ?? JSON.stringify(created.body).slice(0, 300)}`,
    };
  const orderId = created.body.order_id as string;
  const paid = await retrying(
    bases,
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    { ...auth, 'idempotency-key': `pay-${tag}` },
    stats,
    deadlineMs,
  );
  if (paid.status !== 200)
    return {
      orderId,
      outcome: 'pay_failed',
      detail: `${paid.status} ${paid.error ?? JSON.stringify(paid.body).slice(0, 300)}`,
    };
  return waitDelivered(bases, orderId, stats, deadlineMs);
}

/** Follows the order (long-poll) until delivered or later; `stuck` after `deadlineMs`. */
export async function waitDelivered(
  bases: string[],
  orderId: string,
  stats: ClientStats,
  deadlineMs = 180_000,
): Promise<OrderFlow> {
  const deadline = Date.now() + deadlineMs;
  let last = '';
  for (let n = 0; Date.now() < deadline; n++) {
    const a = await call(bases[n % bases.length]!, 'GET', `/api/v1/orders/${orderId}`);
    stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
    if (a.status === 200) {
      last = String(a.body.status);
      if (DELIVERED_OR_LATER.includes(last)) return { orderId, outcome: 'delivered', deliveredAt: Date.now() };
    }
    await sleep(250);
  }
  return { orderId, outcome: 'stuck', detail: `last status ${last}` };
}

/** Webhook events of `orderIds` in the database that the receiver never got (by webhook-id = event id). */
export async function undeliveredEvents(
  stack: DrillStack,
  orderIds: string[],
  hooks: WebhookCounter,
): Promise<string[]> {
  const db = (await stack.mongo()).db(stack.dbName);
  const events = await db
    .collection<{ _id: string; order_id: string; type: string }>('events')
    .find({ order_id: { $in: orderIds } })
    .toArray();
  return events.filter((e) => !hooks.byId.has(e._id)).map((e) => `${e.order_id} ${e.type}`);
}

/**
 * Waits up to `timeoutMs` (deliveries retry on their schedule) until every event of `orderIds` reached `hooks`;
 * returns those that did not (empty when all arrived).
 */
export async function awaitUndelivered(
  stack: DrillStack,
  orderIds: string[],
  hooks: WebhookCounter,
  timeoutMs: number,
): Promise<string[]> {
  return (
    (await until(
      async () => {
        const m = await undeliveredEvents(stack, orderIds, hooks);
        return m.length === 0 ? m : undefined;
      },
      timeoutMs,
      500,
    )) ?? (await undeliveredEvents(stack, orderIds, hooks))
  );
}

/** Registers the receiver for every event of `agentId`'s orders. */
export async function registerWebhook(base: string, agentId: string, agentKey: string, url: string): Promise<void> {
  const r = await call(
    base,
    'POST',
    '/api/v1/webhooks',
    { url, agent_id: agentId },
    { authorization: `Bearer ${agentKey}` },
  );
  if (r.status !== 200 && r.status !== 201)
    throw new Error(`webhook registration: ${r.status} ${JSON.stringify(r.body)}`);
}

/** `{status: count}` of a stats map, for printing. */
export function statusCounts(stats: ClientStats): Record<string, number> {
  return Object.fromEntries([...stats.statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v]));
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness (issue 24 §4): the same seed gives the same plan
// ---------------------------------------------------------------------------------------------

/** A seeded pseudo-random source (mulberry32): the same seed draws the same numbers, in the same order. */
export interface Rng {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of `xs` (not empty). */
  pick<T>(xs: readonly T[]): T;
  /** One key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
}

/**
 * mulberry32 over a 32-bit seed (Tommy Ettinger's generator; enough for choosing a drill's moves, not for secrets).
 * @example const rng = seededRandom(42); rng.pick(['api', 'worker']);
 */
export function seededRandom(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
      const keys = Object.keys(weights) as K[];
      const total = keys.reduce((s, k) => s + weights[k], 0);
      let r = next() * total;
      for (const k of keys) {
        r -= weights[k];
        if (r < 0) return k;
      }
      return keys[keys.length - 1]!;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// x402 sent once: a challenge, signed payloads, and nothing resent
// ---------------------------------------------------------------------------------------------

/** What {@link x402Sign} got: the 402 challenge's answer and the `PAYMENT-SIGNATURE` headers it signed. */
export interface X402Signed {
  challenge: Answer;
  /** One header set per payload signed (each its own authorization nonce and `payment-identifier`). */
  signatures: Array<Record<string, string>>;
}

/**
 * Asks `urlPath` for its price once (expects 402 with `PAYMENT-REQUIRED`) and signs `count` payloads for it with
 * `key` (default the local chain's funded buyer), each with a `payment-identifier` of its own. Sends no payment: the
 * caller sends each signed payload exactly as often as it wants (e.g. two at the same instant). No signature when
 * the challenge was not a 402.
 */
export async function x402Sign(
  base: string,
  method: 'GET' | 'POST',
  urlPath: string,
  headers: Record<string, string>,
  count = 1,
  key: Hex = ANVIL_KEYS.buyer,
): Promise<X402Signed> {
  const challenge = await call(base, method, urlPath, undefined, headers);
  const required = challenge.headers.get('payment-required');
  if (challenge.status !== 402 || !required) return { challenge, signatures: [] };
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
  client.setSpendControls({ maxAmountPerPayment: '$1000' });
  const decoded = decodePaymentRequiredHeader(required);
  const signatures: Array<Record<string, string>> = [];
  for (let i = 0; i < count; i++) {
    const payload = await client.createPaymentPayload(decoded);
    const ext = (decoded.extensions?.['payment-identifier'] as object | undefined) ?? {};
    payload.extensions = {
      ...(payload.extensions ?? {}),
      'payment-identifier': { ...ext, info: { required: false, id: `pay_${randomBytes(12).toString('hex')}` } },
    };
    signatures.push({ 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
  }
  return { challenge, signatures };
}

/** `fetch` of an HTML form (the payment-link pages), once, with a deadline, not following redirects; status 0 on a
 * connection error. */
export async function postForm(url: string, fields: Record<string, string>, timeoutMs = 45_000): Promise<Answer> {
  const t0 = Date.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    return { status: res.status, headers: res.headers, body: {}, ms: since(t0) };
  } catch (err) {
    return noAnswer(t0, err);
  }
}

/**
 * Mines an empty block every `everyMs` on the local chain at `rpcUrl`, as a live chain would, so that an x402
 * authorization that never settled can be seen expired. Returns the timer (`clearInterval` it).
 */
export function mineBlocks(rpcUrl: string, everyMs = 2_000): NodeJS.Timeout {
  return setInterval(() => {
    void fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
      signal: AbortSignal.timeout(2_000),
    }).catch(() => undefined);
  }, everyMs);
}

/** EIP-3009: whether an authorization (payer, nonce) was used on chain. */
const AUTHORIZATION_STATE_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

/**
 * Of the x402 ledger entries still `settling` or `pending`, those whose EIP-3009 authorization the chain says is
 * unused (`authorizationState` false): nothing moved, the service fails them once they expire plus its grace.
 * Returns their labels `x402 <id> (<resource>)`; an entry the chain could not answer for is left out.
 */
export async function unusedAuthorizations(rpcUrl: string, open: X402PaymentDoc[]): Promise<Set<string>> {
  const unused = new Set<string>();
  const token = createPublicClient({ transport: viemHttp(rpcUrl) });
  for (const p of open) {
    const used = await token
      .readContract({
        address: p.asset as `0x${string}`,
        abi: AUTHORIZATION_STATE_ABI,
        functionName: 'authorizationState',
        args: [p.payer as `0x${string}`, p.nonce as `0x${string}`],
      })
      .catch(() => undefined);
    if (used === false) unused.add(x402AuditKey(p));
  }
  return unused;
}

// ---------------------------------------------------------------------------------------------
// The service's own reconciliation, and what Temporal knows about orders
// ---------------------------------------------------------------------------------------------

/** `POST /api/v1/operator/reconciliation` with the operator key (issue 24 §3); the answer as it came (never throws). */
export function operatorReconciliation(base: string, timeoutMs = 120_000): Promise<Answer> {
  return call(
    base,
    'POST',
    '/api/v1/operator/reconciliation',
    {},
    { authorization: `Bearer ${OPERATOR_KEY}` },
    timeoutMs,
  );
}

/** An order workflow as Temporal lists it, with the newest workflow-task failure of its history, if any. */
export interface OrderWorkflowInfo {
  orderId: string;
  /** RUNNING, COMPLETED, FAILED, TERMINATED, ... */
  status: string;
  /** Workflow tasks that failed in its history (a nondeterminism error fails every task). */
  taskFailures: number;
  /** Message of the newest failed workflow task, shortened. */
  lastTaskFailure?: string;
}

/**
 * Every `orderWorkflow` the drill's Temporal server knows (order id from the workflow id `order-<id>`); histories are
 * read only for `historyOf` (e.g. orders that did not reach a final state), to name a failing workflow task.
 */
export async function orderWorkflows(
  stack: DrillStack,
  historyOf: string[] = [],
): Promise<Map<string, OrderWorkflowInfo>> {
  const connection = await TemporalConnection.connect({ address: stack.temporalAddress, connectTimeout: 10_000 });
  const out = new Map<string, OrderWorkflowInfo>();
  try {
    const client = new TemporalClient({ connection, namespace: 'default' });
    for await (const wf of client.workflow.list({ query: `WorkflowType = 'orderWorkflow'` })) {
      if (!wf.workflowId.startsWith('order-')) continue;
      const orderId = wf.workflowId.slice('order-'.length);
      out.set(orderId, { orderId, status: wf.status.name, taskFailures: 0 });
    }
    for (const orderId of historyOf) {
      const info = out.get(orderId) ?? { orderId, status: 'NOT_FOUND', taskFailures: 0 };
      out.set(orderId, info);
      if (info.status === 'NOT_FOUND') continue;
      const history = await client.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory();
      for (const e of history.events ?? []) {
        const failed = e.workflowTaskFailedEventAttributes;
        if (!failed) continue;
        info.taskFailures++;
        info.lastTaskFailure = (failed.failure?.message ?? String(failed.cause ?? 'unknown')).slice(0, 300);
      }
    }
  } finally {
    await connection.close().catch(() => undefined);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The books (issue 24 §4), checked from the database alone, independently of the service
// ---------------------------------------------------------------------------------------------

/** Order statuses that keep the payment: paid and on its way to delivery, delivered, or past it. */
export const KEEPS_PAYMENT = ['paid', 'fulfilling', 'delivered', 'accepted', 'in_engineering', 'sla_breached'];
/** Final statuses whose payment went back to the buyer. */
export const RETURNS_PAYMENT = ['rejected', 'refunded', 'cancelled'];
/** Final order statuses (accepted, or money returned, or expired unpaid). */
export const FINAL_ORDER_STATUSES = ['accepted', 'expired', ...RETURNS_PAYMENT];
/** Expert-delivery orders wait here for an engineer, paid, as long as their SLA allows. */
export const PARKED_ORDER_STATUSES = ['in_engineering', 'sla_breached'];

/** The key of an x402 ledger entry in {@link BooksAudit.unsettled} and in {@link unusedAuthorizations}' answer. */
export const x402AuditKey = (p: Pick<X402PaymentDoc, '_id' | 'resource'>): string => `x402 ${p._id} (${p.resource})`;

/**
 * The orders still `awaiting_payment` because an x402 claim on them is open (`settling` or `pending`), limited to the
 * claims in `claims` (keys of {@link x402AuditKey}) when given. The order workflow waits for such a claim past the
 * payment deadline (no charge without goods): it is paid when the claim settles and expires when the claim fails,
 * which the service does once the authorization can no longer be used. Such an order is as final as its claim.
 */
export function ordersHeldByClaims(audit: BooksAudit, claims?: Set<string>): Set<string> {
  const held = new Set<string>();
  for (const p of audit.unsettledX402) {
    if (!p.order_id || (claims && !claims.has(x402AuditKey(p)))) continue;
    if (audit.notFinal.get(p.order_id) === 'awaiting_payment') held.add(p.order_id);
  }
  return held;
}

/** What {@link auditBooks} found: problems (each a stable sentence), what is not final yet, and the counts. */
export interface BooksAudit {
  problems: string[];
  /** Orders not in a final status (nor parked, with `parkedIsFinal`): id → status. */
  notFinal: Map<string, string>;
  /** Tasks still running, x402 payments still settling / pending / awaiting confirmation: id → state. */
  unsettled: Map<string, string>;
  /** The x402 ledger entries still `settling` or `pending` (for a look at their authorization on chain). */
  unsettledX402: X402PaymentDoc[];
  orders: OrderDoc[];
  /** Every order's charges, wherever taken (wallet debit, payment-link transaction, settled x402 payment): id → list. */
  charges: Map<string, Charge[]>;
  figures: {
    wallets: number;
    wallet_movements: number;
    /** Movements only in a wallet's `recent` list: its ledger entry was not written yet (a crash in between). */
    ledger_entries_not_written_yet: number;
    order_debits: number;
    order_refunds: number;
    task_debits: number;
    task_refunds: number;
    linkpay_transactions: number;
    linkpay_refunded: number;
    x402_settled_for_orders: number;
    x402_settled_for_items: number;
    x402_failed: number;
    x402_refunds_due: number;
    buyer_spent_on_chain_micros: number | null;
    buyer_settled_in_ledger_micros: number;
  };
}

/** A money movement of an order, wherever it was taken. */
export interface Charge {
  rail: 'agent_wallet' | 'linkpay_ncp' | 'x402_usdc';
  ref: string;
  amount: number;
  /** It is the payment the order records. */
  isPayment: boolean;
  /** Given back (wallet refund credit, provider refund, or an x402 refund recorded on the order). */
  returned: boolean;
}

/**
 * Audits the books of the drill's database as an outside accountant would, without asking the service:
 * - every wallet's balance equals the sum of its movements (ledger entries, plus movements still only in the wallet's
 *   `recent` list), numbered 1..seq without a gap;
 * - every `order:<id>` debit belongs to an order that records it as its payment and is paid, delivered or later, or
 *   was given back by a `refund:<id>` credit of the same amount; every refund credit has its debit;
 * - no order keeps more than one charge (wallet debit, payment-link transaction, settled x402 payment); every charge
 *   that is not the order's recorded payment was given back; every recorded payment has its money; rejected,
 *   refunded and cancelled orders returned theirs; expired orders kept nothing;
 * - payment-link transactions are bound to their order and used by one order only;
 * - every settled x402 payment is for one order (its recorded payment) or one item, no transaction twice, none
 *   noted `delivery_failed` (not even the order's own payment: that note tells the operator a refund may be due);
 *   with `buyer`, the buyer's on-chain spend (`buyerSpentMicros`) equals what the ledger holds as settled from it;
 * - every `task:<order>:<n>` debit has a delivered task, or a failed one refunded by `task-refund:<order>:<n>`.
 * Orders not final, tasks still running and x402 payments not settled or failed are returned apart (`notFinal`,
 * `unsettled`): the caller decides how long to wait for them.
 */
export async function auditBooks(
  stack: DrillStack,
  opts: { buyer?: string; buyerSpentMicros?: bigint; parkedIsFinal?: boolean } = {},
): Promise<BooksAudit> {
  const db = (await stack.mongo()).db(stack.dbName);
  const [orders, wallets, entries, links, x402, tasks] = await Promise.all([
    db.collection<OrderDoc>('orders').find({}).toArray(),
    db.collection<WalletDoc>('wallets').find({}).toArray(),
    db.collection<WalletEntryDoc>('wallet_entries').find({}).toArray(),
    db.collection<LinkpayTransactionDoc>('linkpay_transactions').find({}).toArray(),
    db.collection<X402PaymentDoc>('x402_payments').find({}).toArray(),
    db.collection<TaskDoc>('order_tasks').find({}).toArray(),
  ]);
  const problems: string[] = [];
  const notFinal = new Map<string, string>();
  const unsettled = new Map<string, string>();
  const chargesByOrder = new Map<string, Charge[]>();

  // 1. Wallets: balance = sum of movements, numbered without a gap.
  const debits = new Map<string, WalletMovement[]>();
  const credits = new Map<string, WalletMovement[]>();
  let movementsCount = 0;
  let notWritten = 0;
  for (const w of wallets) {
    const mine: WalletMovement[] = entries.filter((e) => e.agent_id === w._id);
    const written = new Set(mine.map((e) => e.tx_id));
    for (const m of w.recent ?? []) {
      if (!written.has(m.tx_id)) {
        mine.push(m);
        notWritten++;
      }
    }
    movementsCount += mine.length;
    const seqs = new Map<number, number>();
    for (const m of mine) seqs.set(m.seq, (seqs.get(m.seq) ?? 0) + 1);
    for (let s = 1; s <= w.seq; s++) {
      if (!seqs.has(s))
        problems.push(`wallet ${w._id}: movement ${s} of ${w.seq} is in neither its ledger nor its recent list`);
      else if (seqs.get(s)! > 1) problems.push(`wallet ${w._id}: ${seqs.get(s)} movements numbered ${s}`);
    }
    if (mine.some((m) => m.seq > w.seq)) problems.push(`wallet ${w._id}: ledger entries numbered past seq ${w.seq}`);
    const sum = mine.reduce((s, m) => s + (m.type === 'credit' ? m.amount_micros : -m.amount_micros), 0);
    if (sum !== w.balance_micros)
      problems.push(`wallet ${w._id}: balance ${w.balance_micros} micro-USD, its movements sum to ${sum}`);
    for (const m of mine) {
      const into = m.type === 'debit' ? debits : credits;
      into.set(m.tx_id, [...(into.get(m.tx_id) ?? []), m]);
    }
  }
  const txsFrom = (map: Map<string, WalletMovement[]>, prefix: string) =>
    [...map.keys()].filter((tx) => tx.startsWith(prefix));

  // 2. Orders: each charge is the order's payment or was given back; one charge kept at most.
  const orderIds = new Set(orders.map((o) => o._id));
  const linksByOrder = new Map<string, LinkpayTransactionDoc[]>();
  for (const l of links) linksByOrder.set(l.order_id, [...(linksByOrder.get(l.order_id) ?? []), l]);
  const settled = x402.filter((p) => p.status === 'settled');
  const settledByOrder = new Map<string, X402PaymentDoc[]>();
  for (const p of settled)
    if (p.order_id) settledByOrder.set(p.order_id, [...(settledByOrder.get(p.order_id) ?? []), p]);
  let refundsDue = 0;
  for (const o of orders) {
    const pay = o.payment;
    const final = FINAL_ORDER_STATUSES.includes(o.status);
    const parked = PARKED_ORDER_STATUSES.includes(o.status);
    // An order on its way is judged once it arrives: until then its findings go with it into `notFinal`.
    const settledOrder = final || parked;
    const orderProblems: string[] = [];
    const refundCredits = credits.get(`refund:${o._id}`) ?? [];
    const charges: Charge[] = [];
    chargesByOrder.set(o._id, charges);
    for (const d of debits.get(`order:${o._id}`) ?? [])
      charges.push({
        rail: 'agent_wallet',
        ref: `order:${o._id}`,
        amount: d.amount_micros,
        isPayment: pay?.rail === 'agent_wallet',
        returned: refundCredits.some((c) => c.amount_micros === d.amount_micros),
      });
    for (const l of linksByOrder.get(o._id) ?? [])
      charges.push({
        rail: 'linkpay_ncp',
        ref: l._id,
        amount: l.amount_micros,
        isPayment: pay?.rail === 'linkpay_ncp' && pay.transaction_id === l._id,
        returned: l.status === 'refunded',
      });
    for (const p of settledByOrder.get(o._id) ?? []) {
      const isPayment =
        pay?.rail === 'x402_usdc' && (pay.transaction_id ?? '').toLowerCase() === (p.transaction ?? '').toLowerCase();
      charges.push({
        rail: 'x402_usdc',
        ref: p.transaction ?? p._id,
        amount: p.amount_micros,
        isPayment,
        // Given back: the order's own refund, or the entry's on-chain refund (issue 36 §1: a settlement nothing kept).
        returned: (isPayment && o.refund?.rail === 'x402_usdc') || p.refund?.status === 'sent',
      });
    }
    const where = `order ${o._id} (${o.service_id}, ${o.status})`;
    if ((debits.get(`order:${o._id}`) ?? []).length > 1) orderProblems.push(`${where}: debited more than once`);
    const kept = charges.filter((c) => !c.returned);
    if (kept.length > 1)
      orderProblems.push(
        `${where}: charged ${kept.length} times and kept: ${kept.map((c) => `${c.rail} ${c.ref}`).join(', ')}`,
      );
    for (const c of charges) {
      if (c.amount !== o.amount_micros)
        orderProblems.push(
          `${where}: ${c.rail} ${c.ref} took ${c.amount} micro-USD, the order costs ${o.amount_micros}`,
        );
      // Said once above when the order kept two charges or more.
      if (!c.isPayment && !c.returned && kept.length <= 1) {
        orderProblems.push(
          c.rail === 'agent_wallet'
            ? `${where}: order:${o._id} debited, but the order records ${pay ? `a ${pay.rail} payment` : 'no payment'} and no refund:${o._id} credit gave it back (a debit lost to its workflow)`
            : `${where}: ${c.rail} ${c.ref} charged, but it is not the order's payment${pay ? ` (${pay.rail} ${pay.transaction_id})` : ' (none recorded)'} and was not given back`,
        );
      }
    }
    if (pay) {
      if (!charges.some((c) => c.isPayment))
        orderProblems.push(`${where}: records a ${pay.rail} payment ${pay.transaction_id} whose money is nowhere`);
      if (o.status === 'expired' || o.status === 'awaiting_payment')
        orderProblems.push(`${where}: records a payment but is ${o.status}`);
      const payment = charges.find((c) => c.isPayment);
      if (RETURNS_PAYMENT.includes(o.status) && payment && !payment.returned)
        orderProblems.push(`${where}: its ${pay.rail} payment was not given back`);
      if (KEEPS_PAYMENT.includes(o.status) && payment?.returned)
        orderProblems.push(`${where}: its ${pay.rail} payment was given back while the order keeps its goods`);
      if (o.refund?.rail === 'x402_usdc' && o.refund.status === 'due') refundsDue++;
    } else if (KEEPS_PAYMENT.includes(o.status) || RETURNS_PAYMENT.includes(o.status)) {
      orderProblems.push(`${where}: records no payment`);
    }
    if (settledOrder) problems.push(...orderProblems);
    if (!final && !(parked && opts.parkedIsFinal)) {
      const charged = charges.map((c) => `${c.rail}${c.returned ? ' (given back)' : ''}`);
      notFinal.set(o._id, `${o.status}${charged.length ? `, charged: ${charged.join(', ')}` : ''}`);
    }
  }
  for (const tx of txsFrom(debits, 'order:'))
    if (!orderIds.has(tx.slice('order:'.length))) problems.push(`${tx} debited for an order that does not exist`);
  for (const tx of txsFrom(credits, 'refund:')) {
    const id = tx.slice('refund:'.length);
    if (!(debits.get(`order:${id}`) ?? []).length) problems.push(`${tx} credited without an order:${id} debit`);
    if ((credits.get(tx) ?? []).length > 1) problems.push(`${tx} credited more than once`);
  }

  // 3. Payment-link transactions: bound to their order, used by one order only.
  const usedBy = new Map<string, string[]>();
  for (const o of orders)
    if (o.payment?.rail === 'linkpay_ncp')
      usedBy.set(o.payment.transaction_id, [...(usedBy.get(o.payment.transaction_id) ?? []), o._id]);
  const linkIds = new Map(links.map((l) => [l._id, l]));
  for (const [tx, ids] of usedBy) {
    if (ids.length > 1) problems.push(`payment-link transaction ${tx} is the payment of ${ids.length} orders`);
    const l = linkIds.get(tx);
    if (l && !ids.includes(l.order_id))
      problems.push(`payment-link transaction ${tx} of order ${l.order_id} pays ${ids[0]}`);
  }
  for (const l of links)
    if (!orderIds.has(l.order_id))
      problems.push(`payment-link transaction ${l._id} for an unknown order ${l.order_id}`);

  // 4. x402: settled payments for one order or one item; the buyer's spend on chain = what the ledger settled.
  const byTx = new Map<string, number>();
  for (const p of settled) {
    const key = (p.tx_key ?? p.transaction ?? '').toLowerCase();
    if (key) byTx.set(key, (byTx.get(key) ?? 0) + 1);
    if (p.order_id && !orderIds.has(p.order_id))
      problems.push(`x402 payment ${p._id} settled for an unknown order ${p.order_id}`);
    if (!p.order_id && !p.resource_ref) problems.push(`x402 payment ${p._id} settled for nothing (${p.resource})`);
    // A settlement refunded on chain is accounted for: its note says why it was refunded.
    if (p.error_reason === 'delivery_failed' && p.refund?.status !== 'sent') {
      // The ledger tells the operator that the buyer paid and got nothing (a refund may be due): wrong when the entry
      // is its order's recorded payment, a money problem otherwise; both are discrepancies of the books.
      const o = p.order_id ? orders.find((x) => x._id === p.order_id) : undefined;
      const isPayment =
        o?.payment?.rail === 'x402_usdc' &&
        (o.payment.transaction_id ?? '').toLowerCase() === (p.transaction ?? '').toLowerCase();
      problems.push(
        isPayment
          ? `x402 payment ${p._id} is the recorded payment of order ${o._id} (${o.status}) but the ledger notes it delivery_failed (a false refund alarm): ${p.error_message ?? ''}`
          : `x402 payment ${p._id} (${p.resource}) settled, noted delivery_failed: ${p.error_message ?? ''}`,
      );
    }
  }
  for (const [tx, n] of byTx) if (n > 1) problems.push(`x402 transaction ${tx} settles ${n} ledger entries`);
  for (const p of x402) {
    if (p.status === 'settling' || p.status === 'pending') unsettled.set(x402AuditKey(p), p.status);
    else if (p.status === 'settled' && p.confirmation_due)
      unsettled.set(x402AuditKey(p), 'settled, order confirmation due');
  }
  const buyer = opts.buyer?.toLowerCase();
  // Net of the refunds sent back on chain (issue 36 §1).
  const settledFromBuyer = settled
    .filter((p) => buyer !== undefined && p.payer.toLowerCase() === buyer)
    .reduce((s, p) => s + (p.refund?.status === 'sent' ? 0 : p.amount_micros), 0);
  if (buyer !== undefined && opts.buyerSpentMicros !== undefined && BigInt(settledFromBuyer) !== opts.buyerSpentMicros)
    problems.push(
      `the buyer ${opts.buyer} spent ${opts.buyerSpentMicros} micro-USDC on chain; the x402 ledger holds ${settledFromBuyer} settled from it`,
    );

  // 5. Tasks: a debit has a delivered task, or a failed one that was refunded.
  const taskById = new Map(tasks.map((t) => [`${t.order_id}:${t.number}`, t]));
  for (const tx of txsFrom(debits, 'task:')) {
    const t = taskById.get(tx.slice('task:'.length));
    const refunded = (credits.get(`task-refund:${tx.slice('task:'.length)}`) ?? []).length > 0;
    if (!t) problems.push(`${tx} debited for a task that does not exist`);
    else if (t.status === 'delivered' && refunded) problems.push(`${tx}: delivered and refunded`);
    else if (t.status !== 'delivered' && t.status !== 'running' && !refunded)
      problems.push(`${tx} debited, the task is ${t.status} and was not refunded`);
  }
  for (const t of tasks) {
    const tx = `task:${t.order_id}:${t.number}`;
    const charged = (debits.get(tx) ?? []).length > 0;
    if (t.status === 'running')
      unsettled.set(`task ${t.order_id}#${t.number}`, charged ? 'running, charged' : 'running');
    else if (t.status === 'delivered' && !charged) problems.push(`${tx}: delivered without a debit`);
  }
  for (const tx of txsFrom(credits, 'task-refund:'))
    if (!(debits.get(`task:${tx.slice('task-refund:'.length)}`) ?? []).length)
      problems.push(`${tx} credited without its task debit`);

  return {
    problems,
    notFinal,
    unsettled,
    unsettledX402: x402.filter((p) => p.status === 'settling' || p.status === 'pending'),
    orders,
    charges: chargesByOrder,
    figures: {
      wallets: wallets.length,
      wallet_movements: movementsCount,
      ledger_entries_not_written_yet: notWritten,
      order_debits: txsFrom(debits, 'order:').length,
      order_refunds: txsFrom(credits, 'refund:').length,
      task_debits: txsFrom(debits, 'task:').length,
      task_refunds: txsFrom(credits, 'task-refund:').length,
      linkpay_transactions: links.length,
      linkpay_refunded: links.filter((l) => l.status === 'refunded').length,
      x402_settled_for_orders: settled.filter((p) => p.order_id).length,
      x402_settled_for_items: settled.filter((p) => !p.order_id).length,
      x402_failed: x402.filter((p) => p.status === 'failed').length,
      x402_refunds_due: refundsDue,
      buyer_spent_on_chain_micros: opts.buyerSpentMicros !== undefined ? Number(opts.buyerSpentMicros) : null,
      buyer_settled_in_ledger_micros: settledFromBuyer,
    },
  };
}
