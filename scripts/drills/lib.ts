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
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
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
import { SEARCH_ATTRIBUTES } from '../../workflows/shared';

const root = path.resolve(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

export const OPERATOR_KEY = 'op_drill_key_0123456789abcdef';

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
): Promise<NodeProc> {
  const child = spawn(tsx, [path.join(root, script)], {
    env: { ...process.env, ...env },
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
  database: EmbeddedDatabase | undefined;
  /** The local chain and facilitator when started with `x402: true`. */
  x402: LocalX402 | undefined;
  startTemporal(): Promise<void>;
  startDatabase(): Promise<void>;
  /** SIGKILL the Temporal dev server. */
  killTemporal(): Promise<void>;
  /** SIGKILL FerretDB and PostgreSQL (postmaster and every backend). */
  killDatabase(): Promise<void>;
  startApi(i: number): Promise<NodeProc>;
  startWorker(i: number): Promise<NodeProc>;
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
  const [temporalPort, ferretPort, pgPort] = [await freePort(), await freePort(), await freePort()];
  const apiPorts: number[] = [];
  for (let i = 0; i < (opts.apis ?? 1); i++) apiPorts.push(await freePort());
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  const built = spawnSync(tsx, [path.join(root, 'scripts', 'bundle-workflows.ts'), bundlePath], { stdio: 'inherit' });
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
    database: undefined,
    x402,
    async startTemporal() {
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
      const p = await spawnNode(
        `api${i + 1}`,
        'src/server.ts',
        { ...env(), PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
        'api: listening',
        path.join(dataDir, 'logs', `api${i + 1}.log`),
      );
      p.url = `http://127.0.0.1:${port}`;
      stack.apis[i] = p;
      return p;
    },
    async startWorker(i) {
      const p = await spawnNode(
        `worker${i + 1}`,
        'worker/index.ts',
        { ...env(), WORKFLOW_BUNDLE_PATH: bundlePath },
        'worker: task queue',
        path.join(dataDir, 'logs', `worker${i + 1}.log`),
      );
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
    },
    async mongo() {
      mongo ??= await new MongoClient(stack.mongoUri, { serverSelectionTimeoutMS: 5_000 }).connect();
      return mongo;
    },
    async stop(o = {}) {
      await mongo?.close().catch(() => undefined);
      await Promise.all([...stack.apis.map((p) => p.stop()), ...stack.workers.map((p) => p.stop())]);
      await stack.temporal?.stop();
      await stack.database?.stop();
      await x402?.stop();
      if (!o.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const env = (): Record<string, string> => ({
    TEMPORAL_ADDRESS: stack.temporalAddress,
    MONGODB_URI: stack.mongoUri,
    MONGODB_DB: dbName,
    DATA_DIR: dataDir,
    STORAGE_DIR: path.join(dataDir, 'deliverables'),
    OPERATOR_KEY,
    DEV_MODE: 'true',
    HOST: '127.0.0.1',
    ...(x402 ? { X402_FACILITATOR_URL: x402.facilitatorUrl, X402_RPC_URL: x402.rpcUrl } : {}),
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
    return {
      status: 0,
      headers: new Headers(),
      body: {},
      ms: since(t0),
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    };
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
