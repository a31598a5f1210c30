/**
 * `npm run bench:topologies` (issue 25 §4): `npm run bench` against the dev-server topology and against the cluster
 * topology on the same machine, interleaved (dev, cluster, dev, cluster, …), each a fresh stack of separate processes
 * (scripts/drills/lib.ts). Cluster runs also vary the replicas (1 API + 1 worker, 2 + 2) to show what an added
 * process buys. Each run prints hello-world (the anchor, on the same Temporal) and the order path
 * (create → delivered), and the CPU seconds each process group used during the run (from /proc), so the cost of
 * the cluster is shown where it is paid.
 *
 * Options: --rounds N (default 2), --orders N (default 150), --concurrency N (default 20).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { OPERATOR_KEY, startDrillStack, type DrillStack } from '../drills/lib';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    orders: { type: 'string', default: '150' },
    concurrency: { type: 'string', default: '20' },
  },
});
const root = path.resolve(__dirname, '..', '..');

/**
 * CPU seconds of a process and its threads, plus those of its children that ended and were waited for (utime + stime
 * + cutime + cstime; 0 when it is gone). Counting the ended children keeps short-lived processes in the sum:
 * PostgreSQL runs each connection in a backend process that exits when the connection closes.
 */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14–17 of stat (utime, stime, cutime, cstime) are at 11–14 after the command name; clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** Every process below `pid` (children by /proc/<pid>/task/<pid>/children), the pid itself included. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const kids = readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (kids) out.push(...kids.split(' ').map(Number));
    } catch {
      // gone
    }
  }
  return out;
}

/** Named process groups of a stack: each API, each worker, Temporal's processes, the databases, HAProxy. */
function groups(stack: DrillStack): Record<string, number[]> {
  const g: Record<string, number[]> = {};
  for (const p of [...stack.apis, ...stack.workers]) g[p.name] = tree(p.pid);
  if (stack.temporal) g.temporal_dev_server = tree(stack.temporal.pid);
  for (const p of stack.cluster?.processes ?? [])
    g[`temporal_${p.service}`] = [...(g[`temporal_${p.service}`] ?? []), p.pid()];
  if (stack.cluster) g.temporal_postgres = tree(stack.cluster.postgres.pid());
  if (stack.database) {
    g.ferretdb = [stack.database.pids.ferretdb];
    g.database_postgres = tree(stack.database.pids.postgres);
  }
  if (stack.loadBalancer) g.haproxy = tree(stack.loadBalancer.pid);
  return g;
}

const cpuOf = (g: Record<string, number[]>): Record<string, number> =>
  Object.fromEntries(Object.entries(g).map(([k, pids]) => [k, pids.reduce((a, p) => a + cpuSeconds(p), 0)]));

/** Runs scripts/bench.ts against the stack; returns its BENCH_JSON figures. */
function bench(stack: DrillStack, apiUrl: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [path.join(root, 'scripts', 'bench.ts'), '--orders', opts.orders, '--concurrency', opts.concurrency],
      {
        env: { ...process.env, API_URL: apiUrl, TEMPORAL_ADDRESS: stack.temporalAddress, OPERATOR_KEY },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      process.stdout.write(d);
    });
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_JSON '));
      if (code !== 0 || !line) reject(new Error(`bench exited ${code}`));
      else resolve(JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, unknown>);
    });
  });
}

interface Topology {
  name: string;
  cluster: boolean;
  apis: number;
  workers: number;
}

async function main(): Promise<void> {
  const topologies: Topology[] = [
    { name: 'dev server, 1 API, 1 worker', cluster: false, apis: 1, workers: 1 },
    { name: 'cluster, 1 API, 1 worker', cluster: true, apis: 1, workers: 1 },
    { name: 'cluster, 2 APIs, 2 workers', cluster: true, apis: 2, workers: 2 },
  ];
  const results: Record<string, unknown>[] = [];
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const t of topologies) {
      console.log(`\n=== round ${round}: ${t.name} ===`);
      const stack = await startDrillStack({
        apis: t.apis,
        workers: t.workers,
        ...(t.cluster ? { cluster: true } : {}),
        compiled: true,
        env: { RATE_LIMIT_BURST_PER_SECOND: '0', RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0' },
      });
      try {
        // The groups are listed again after the run: processes started during it (database backends) count too.
        const g = groups(stack);
        const before = cpuOf(g);
        const t0 = Date.now();
        const figures = await bench(stack, stack.url);
        const wall = (Date.now() - t0) / 1000;
        const after = cpuOf(groups(stack));
        const cpu = Object.fromEntries(
          Object.keys(g)
            .map((k) => [k, Math.round(((after[k] ?? 0) - (before[k] ?? 0)) * 10) / 10] as const)
            .sort((a, b) => b[1] - a[1]),
        );
        const row = { round, topology: t.name, wall_s: Math.round(wall), ...figures, cpu_s: cpu };
        results.push(row);
        console.log(`TOPOLOGY_JSON ${JSON.stringify(row)}`);
      } finally {
        await stack.stop();
      }
    }
  }
  console.log('\nround | topology | hello/s | hello p50 | orders/s | order p50 | order p99 | cpu (s) by process group');
  for (const r of results as Array<Record<string, any>>) {
    console.log(
      `${r.round} | ${r.topology} | ${r.hello.per_s.toFixed(1)} | ${r.hello.p50_ms.toFixed(0)} ms | ${r.orders.per_s.toFixed(1)} | ${r.orders.p50_ms.toFixed(0)} ms | ${r.orders.p99_ms.toFixed(0)} ms | ${JSON.stringify(r.cpu_s)}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
