/**
 * `npm run bench`: the order path measured beside Temporal's own hello-world, against a running `npm start`
 * (issue 9 §3). Starts no server. In this one process, at the same concurrency:
 *   1. the anchor: Temporal's one-activity hello-world workflow on its own task queue of the same Temporal server
 *      (its worker runs in a process of its own, scripts/bench/helloWorker.ts, as Temporal's samples run it);
 *   2. the order path through the API: create → confirm_payment from the agent's wallet → delivered;
 * then prints both with p50/p95/p99 and the ratios against the targets. Asserts nothing.
 *
 * Options (`npm run bench -- --orders 300 --seed 100000`):
 *   --orders N        workflows of each kind (default 200), split evenly over the rounds
 *   --rounds K        alternating measured rounds of each kind (default 3; 1 = anchor, then orders, as before
 *                     2026-11-28)
 *   --concurrency C   in flight at once (default 20)
 *   --seed N          first insert N completed orders with their wallet entries and events into the database
 *                     (MONGODB_URI / MONGODB_DB), so growth can be measured; skipped when that many seeded exist
 *   --one-wallet      every lane spends one wallet (contended debits)
 *   --poll-ms N       wait for delivery by polling every N ms instead of long-polling
 *   --warmup N        unmeasured workflows of each kind first, at the same concurrency, so both are measured warm
 *                     (JIT-compiled code, filled caches; default: the concurrency)
 * Environment: API_URL (default http://127.0.0.1:3000; several, comma-separated, are used in turn), TEMPORAL_ADDRESS (127.0.0.1:7233), OPERATOR_KEY (else
 * the running profile's key file, scripts/lib/operatorKey.ts), MONGODB_URI, MONGODB_DB (for --seed).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { helloWorkflow } from './bench/helloWorkflow';
import { seedCompletedOrders } from './bench/seed';
import { localOperatorKey } from './lib/operatorKey';
import { pct } from './bench/stats';
import { type Role, type Snapshot, cpuBetween, snapshot } from './bench/procCpu';

const { values: opts } = parseArgs({
  options: {
    orders: { type: 'string', default: process.env.BENCH_ORDERS ?? '200' },
    concurrency: { type: 'string', default: process.env.CONCURRENCY ?? '20' },
    seed: { type: 'string' },
    'one-wallet': { type: 'boolean', default: process.env.BENCH_ONE_WALLET === '1' },
    'poll-ms': { type: 'string', default: '0' },
    warmup: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
});
const total = Number(opts.orders);
const concurrency = Number(opts.concurrency);
const pollMs = Number(opts['poll-ms']);
const warmup = Number(opts.warmup ?? concurrency);
if (!Number.isInteger(warmup) || warmup < 1)
  throw new Error(`--warmup must be a whole number of at least 1, not ${opts.warmup}`);
const rounds = Number(opts.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > total)
  throw new Error(`--rounds must be a whole number from 1 to --orders, not ${opts.rounds}`);
// A comma-separated list spreads the requests over several API processes in turn (issue 14: two APIs, two workers).
const apis = (process.env.API_URL ?? 'http://127.0.0.1:3000').split(',').map((u) => u.trim().replace(/\/$/, ''));
const api = apis.join(', ');
let turn = 0;
const nextApi = (): string => apis[turn++ % apis.length]!;
const temporalAddress = process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';

async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(nextApi() + p, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Latencies (ms), wall time (s), the bench client's own CPU (ms, user + system) and every other process's CPU by role
 * (ms, from `/proc`, scripts/bench/procCpu.ts) of one measured run.
 */
interface Run {
  latencies: number[];
  seconds: number;
  clientCpuMs: number;
  cpu: Record<Role, number>;
}

function line(name: string, ms: number[], seconds?: number): string {
  const rate = seconds !== undefined ? `${(ms.length / seconds).toFixed(1).padStart(6)}/s  ` : ''.padStart(10);
  return `${name.padEnd(30)} n=${String(ms.length).padStart(5)}  ${rate}p50 ${pct(ms, 50).toFixed(1).padStart(7)} ms  p95 ${pct(ms, 95).toFixed(1).padStart(7)} ms  p99 ${pct(ms, 99).toFixed(1).padStart(7)} ms`;
}

/** CPU of a run across every process and the bench client (ms). */
const runCpuMs = (r: Run): number => ROLES.reduce((a, role) => a + r.cpu[role], 0) + r.clientCpuMs;
/** CPU per workflow of a run across every process and the bench client (ms). */
const cpuPerWorkflow = (r: Run): number => runCpuMs(r) / r.latencies.length;

/** Workflows per second of a run. */
const rate = (r: Run): number => r.latencies.length / r.seconds;

/** Rounds of one kind as one run: their latencies together, their wall times added (the pauses between not counted). */
function merge(runs: Run[]): Run {
  return {
    latencies: runs.flatMap((r) => r.latencies),
    seconds: runs.reduce((a, r) => a + r.seconds, 0),
    clientCpuMs: runs.reduce((a, r) => a + r.clientCpuMs, 0),
    cpu: Object.fromEntries(ROLES.map((role) => [role, runs.reduce((a, r) => a + r.cpu[role], 0)])) as Record<
      Role,
      number
    >,
  };
}

const ROLES: Role[] = ['API', 'worker', 'hello-worker', 'Temporal', 'database'];
const temporalPort = Number(temporalAddress.split(':').pop());
/** The anchor worker's pid, once started: its process tree is measured with the stack. */
let helloPid: number | undefined;
const stackNow = (): Snapshot => snapshot(temporalPort, helloPid ? [helloPid] : []);

/**
 * Runs `one(i)` `n` times with `c` in flight; returns each call's latency, the wall time, this client's CPU and the
 * stack's CPU by role over the run.
 */
async function lanes(n: number, c: number, one: (i: number, lane: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const stack0 = stackNow();
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: c }, async (_, lane) => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        await one(i, lane);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - started) / 1000;
  return { latencies, seconds, clientCpuMs: (cpu.user + cpu.system) / 1000, cpu: cpuBetween(stack0, stackNow()) };
}

/**
 * Starts the anchor's worker in a process of its own (scripts/bench/helloWorker.ts, as Temporal's samples run a
 * worker beside the client) on `taskQueue`; resolves once it polls, with a function that stops it.
 */
async function helloWorkerProcess(taskQueue: string): Promise<() => Promise<void>> {
  const tsx = path.resolve(__dirname, '..', 'node_modules', '.bin', 'tsx');
  const child = spawn(tsx, [path.join(__dirname, 'bench', 'helloWorker.ts'), taskQueue], {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  helloPid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the hello-world worker exited (${code}) before it was ready`)));
  });
  return async () => {
    child.kill('SIGINT');
    await exited;
  };
}

/**
 * The anchor: hello-world workflows on a task queue of their own, their worker in a process of its own, started once
 * and warmed up (unmeasured, like the order path) so that every round measures it warm. `measure(n, round)` runs `n`
 * of them; `close()` stops the worker.
 */
async function helloWorld(
  run: string,
): Promise<{ measure: (n: number, round: number) => Promise<Run>; close: () => Promise<void> }> {
  const taskQueue = `bench-hello-${run}`;
  const stopWorker = await helloWorkerProcess(taskQueue);
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection, namespace });
  const close = async (): Promise<void> => {
    await connection.close();
    await stopWorker();
  };
  const measure = (n: number, label: string | number): Promise<Run> =>
    lanes(n, concurrency, async (i) => {
      await client.workflow.execute(helloWorkflow, {
        taskQueue,
        workflowId: `bench-hello-${run}-${label}-${i}`,
        args: [`bench ${i}`],
      });
    });
  try {
    // The worker's first workflow task loads the bundle.
    await measure(warmup, 'warmup');
  } catch (err) {
    await close();
    throw err;
  }
  return { measure, close };
}

/**
 * The order path: create → confirm_payment (wallet) → delivered. The client waits for delivery the way the API
 * offers it: GET with `Prefer: wait=30` and the ETag it holds (answered when the order changes). `--poll-ms N`
 * polls every N ms instead.
 */
async function orderPath(
  run: string,
  walletLanes: { agent: string; auth: Record<string, string> }[],
  n: number,
  c: number,
): Promise<{ run: Run; create: number[]; confirm: number[] }> {
  const create: number[] = [];
  const confirm: number[] = [];
  const result = await lanes(n, c, async (_i, lane) => {
    const { agent, auth } = walletLanes[lane % walletLanes.length]!;
    const t0 = performance.now();
    // Every call carries the agent's key, as an agent's client would: it is counted against that agent's rate limit.
    const order = await call(
      'POST',
      '/api/v1/orders',
      {
        service_id: 'automation-wf',
        agent_id: agent,
        inputs: { workflow_type: 'sync', source_app: 'Typeform', target_app: 'HubSpot' },
      },
      auth,
    );
    const t1 = performance.now();
    await call('POST', `/api/v1/orders/${order.order_id}/confirm_payment`, {}, auth);
    create.push(t1 - t0);
    confirm.push(performance.now() - t1);
    let etag = '';
    for (;;) {
      const res = await fetch(`${nextApi()}/api/v1/orders/${order.order_id}`, {
        headers: { ...auth, ...(pollMs ? {} : { prefer: 'wait=30', ...(etag ? { 'if-none-match': etag } : {}) }) },
      });
      if (res.status === 304) continue;
      if (!res.ok) throw new Error(`GET order → ${res.status} ${await res.text()}`);
      etag = res.headers.get('etag') ?? '';
      const o = (await res.json()) as { status: string };
      if (o.status === 'delivered') break;
      if (o.status !== 'paid' && o.status !== 'fulfilling')
        throw new Error(`order ${order.order_id} is ${o.status} (run ${run})`);
      if (pollMs) await new Promise((r) => setTimeout(r, pollMs));
    }
  });
  return { run: result, create, confirm };
}

/** VmRSS and VmHWM (peak) in MB of the local processes whose command line ends with `script`; empty off Linux. */
function memoryOf(script: string): { pid: number; rssMb: number; peakMb: number }[] {
  const out: { pid: number; rssMb: number; peakMb: number }[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (
        !cmd.some((a) => a.endsWith(script) || a.endsWith(script.replace(/\.ts$/, '.js'))) ||
        cmd.some((a) => a.endsWith('tsx/dist/cli.mjs') || a.endsWith('.bin/tsx'))
      )
        continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
      out.push({ pid: Number(pid), rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

async function main(): Promise<void> {
  const operatorKey = await localOperatorKey(api);
  if (!operatorKey) throw new Error('set OPERATOR_KEY or run npm start first');
  await call('GET', '/health');
  const run = randomBytes(3).toString('hex');
  if (opts.seed) {
    const t = performance.now();
    const { inserted, existing } = await seedCompletedOrders(Number(opts.seed));
    console.log(
      `seed: ${existing} seeded orders already stored, ${inserted} inserted (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
  }

  const anchor = await helloWorld(run);
  const helloRuns: Run[] = [];
  const orderRuns: Awaited<ReturnType<typeof orderPath>>[] = [];
  let walletLanes: { agent: string; auth: Record<string, string> }[];
  try {
    walletLanes = await Promise.all(
      Array.from({ length: opts['one-wallet'] ? 1 : concurrency }, async (_, i) => {
        const agent = `bench-${run}-${i}`;
        const wallet = await call('GET', `/api/v1/wallets/${agent}`);
        await call(
          'POST',
          `/api/v1/wallets/${agent}/credits`,
          { amount: 69 * (total + warmup), transaction_id: `bench-${agent}` },
          { authorization: `Bearer ${operatorKey}` },
        );
        return { agent, auth: { authorization: `Bearer ${wallet.agent_key}` } };
      }),
    );
    // Warm-up, unmeasured like hello-world's: orders through the whole path at the same concurrency.
    await orderPath(`${run}-warmup`, walletLanes, warmup, concurrency);
    console.log(
      `\n${total} workflows of each kind (after ${warmup} unmeasured) in ${rounds} interleaved round(s), concurrency ${concurrency}, ` +
        `${walletLanes.length} wallet(s); Temporal at ${temporalAddress}, API at ${api}`,
    );
    for (let r = 0; r < rounds; r++) {
      const n = Math.floor(total / rounds) + (r < total % rounds ? 1 : 0);
      const kinds = [
        async () => helloRuns.push(await anchor.measure(n, r)),
        async () => orderRuns.push(await orderPath(`${run}-${r}`, walletLanes, n, concurrency)),
      ];
      // Odd rounds put the order path first.
      for (const kind of r % 2 ? kinds.reverse() : kinds) await kind();
      const ratio = rate(orderRuns[r]!.run) / rate(helloRuns[r]!);
      console.log(
        `round ${r + 1}: hello-world ${rate(helloRuns[r]!).toFixed(1)}/s ${cpuPerWorkflow(helloRuns[r]!).toFixed(1)} ms CPU each, ` +
          `orders ${rate(orderRuns[r]!.run).toFixed(1)}/s ${cpuPerWorkflow(orderRuns[r]!.run).toFixed(1)} ms CPU each (${(ratio * 100).toFixed(0)} %)`,
      );
    }
  } finally {
    await anchor.close();
  }
  const hello = merge(helloRuns);
  const orders = {
    run: merge(orderRuns.map((o) => o.run)),
    create: orderRuns.flatMap((o) => o.create),
    confirm: orderRuns.flatMap((o) => o.confirm),
  };
  console.log('');
  console.log(line('hello-world (start → result)', hello.latencies, hello.seconds));
  console.log(line('order (create → delivered)', orders.run.latencies, orders.run.seconds));
  console.log(line('  POST /orders', orders.create));
  console.log(line('  POST confirm_payment', orders.confirm));
  // CPU per workflow of every process, each kind over its own rounds (idle processes count where they idle).
  const perWorkflow = (r: Run, ms: number) => ms / r.latencies.length;
  const header = ['', ...ROLES, 'client', 'total'];
  console.log(`\nCPU per workflow (ms, from /proc; ${stackNow().size} stack processes found):`);
  console.log(header.map((h, i) => (i ? h.padStart(13) : h.padEnd(12))).join(''));
  for (const [name, r] of [
    ['hello-world', hello],
    ['order', orders.run],
  ] as const) {
    const cells = [...ROLES.map((role) => r.cpu[role]), r.clientCpuMs, runCpuMs(r)];
    console.log(name.padEnd(12) + cells.map((ms) => perWorkflow(r, ms).toFixed(1).padStart(13)).join(''));
  }
  const cpuRatio = cpuPerWorkflow(orders.run) / cpuPerWorkflow(hello);
  const cpuRoundRatios = orderRuns.map((o, r) => cpuPerWorkflow(o.run) / cpuPerWorkflow(helloRuns[r]!));
  console.log(
    `CPU per order / CPU per hello-world: ${cpuRatio.toFixed(2)} × (target ≤ 2 ×; rounds ` +
      `${Math.min(...cpuRoundRatios).toFixed(2)}–${Math.max(...cpuRoundRatios).toFixed(2)} ×)`,
  );

  const throughputRatio = rate(orders.run) / rate(hello);
  const roundRatios = orderRuns.map((o, r) => (rate(o.run) / rate(helloRuns[r]!)) * 100);
  const p50Ratio = pct(orders.run.latencies, 50) / pct(hello.latencies, 50);
  console.log(
    `\norder path vs hello-world: throughput ${(throughputRatio * 100).toFixed(0)} % (target ≥ 50 %; rounds ` +
      `${Math.min(...roundRatios).toFixed(0)}–${Math.max(...roundRatios).toFixed(0)} %, median ${pct(roundRatios, 50).toFixed(0)} %), ` +
      `p50 ${p50Ratio.toFixed(2)} × (target ≤ 3 ×)`,
  );

  for (const [name, script, limit] of [
    ['API', 'src/server.ts', 150],
    ['worker', 'worker/index.ts', 300],
  ] as const) {
    for (const m of memoryOf(script)) {
      console.log(
        `${name} (pid ${m.pid}): RSS ${m.rssMb.toFixed(0)} MB now, peak ${m.peakMb.toFixed(0)} MB (target ≤ ${limit} MB)`,
      );
    }
  }

  let debits = 0;
  for (const { agent, auth } of walletLanes) {
    const after = await call('GET', `/api/v1/wallets/${agent}`, undefined, auth);
    debits += after.transactions.filter((t: { type: string; source: string }) => t.type === 'debit').length;
  }
  console.log(
    `wallet check: ${debits} debits for ${total + warmup} orders (incl. warm-up) across ${walletLanes.length} wallet(s)`,
  );
  // One machine-readable line for scripts/bench/topologies.ts (`npm run bench:topologies`).
  const figures = (r: Run) => ({
    per_s: r.latencies.length / r.seconds,
    p50_ms: pct(r.latencies, 50),
    p99_ms: pct(r.latencies, 99),
  });
  console.log(
    `BENCH_JSON ${JSON.stringify({ hello: figures(hello), orders: figures(orders.run), round_ratios: roundRatios, cpu_ratio: cpuRatio, cpu_round_ratios: cpuRoundRatios, debits })}`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
