/**
 * CPU per process of a running stack, read from `/proc` (issue 39 §2: "CPU per workflow for each process").
 *
 * The stack is found from its Temporal server: the process listening on TEMPORAL_ADDRESS's port, walked up to the
 * `scripts/start.ts` that supervises it; every descendant of that is sorted into a role by its command line. Linux
 * only; elsewhere every figure is empty.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The roles a stack's process plays; `hello-worker` is the anchor's worker, not part of the stack. */
export type Role = 'API' | 'worker' | 'hello-worker' | 'Temporal' | 'database';

interface Proc {
  pid: number;
  ppid: number;
  cmd: string[];
  /** utime + stime, in ms. */
  cpuMs: number;
}

const TICK_MS = 10; // CLK_TCK is 100 on Linux.

/** Every process of this machine, with its parent, command line and CPU so far (ms); empty off Linux. */
function processes(): Proc[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name, which may hold spaces and parentheses.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(p), ppid: Number(f[1]), cmd, cpuMs: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

function roleOf(cmd: string[]): Role | undefined {
  const line = cmd.join(' ');
  if (/(src\/server\.(ts|js))(\s|$)/.test(line)) return 'API';
  if (/worker\/index\.(ts|js)(\s|$)/.test(line)) return 'worker';
  if (/bench\/helloWorker\.ts/.test(line) && !/\.bin\/tsx|tsx\/dist\/cli/.test(line)) return 'hello-worker';
  if (/(^|\/)temporal(-server)?\s|temporal-cluster/.test(line)) return 'Temporal';
  if (/ferretdb|^postgres|\/postgres\s/.test(line)) return 'database';
  return undefined;
}

/** One process's role and CPU so far (ms), by pid. */
export type Snapshot = Map<number, { role: Role; cpuMs: number }>;

/**
 * The processes of the stack serving Temporal on `temporalPort`, and of `extraRoots` (the anchor's worker), with
 * their role and CPU so far. Falls back to every process of a known role on the machine when no `scripts/start.ts`
 * supervises that Temporal. Taken anew at each reading, so database backends that started meanwhile are counted.
 */
export function snapshot(temporalPort: number, extraRoots: number[] = []): Snapshot {
  const all = processes();
  const byPid = new Map(all.map((p) => [p.pid, p]));
  const temporal = all.find(
    (p) =>
      roleOf(p.cmd) === 'Temporal' && p.cmd.some((a, i) => a === String(temporalPort) && p.cmd[i - 1] === '--port'),
  );
  let root: Proc | undefined = temporal;
  while (root && !root.cmd.some((a) => a.endsWith('scripts/start.ts'))) root = byPid.get(root.ppid);
  const children = new Map<number, number[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out: Snapshot = new Map();
  const walk = (pid: number): void => {
    const p = byPid.get(pid);
    if (!p || out.has(pid)) return;
    const role = roleOf(p.cmd);
    if (role) out.set(pid, { role, cpuMs: p.cpuMs });
    for (const c of children.get(pid) ?? []) walk(c);
  };
  if (root) walk(root.pid);
  else
    for (const p of all)
      if (roleOf(p.cmd) && roleOf(p.cmd) !== 'hello-worker') out.set(p.pid, { role: roleOf(p.cmd)!, cpuMs: p.cpuMs });
  for (const r of extraRoots) walk(r);
  return out;
}

/** CPU used between two snapshots (ms), by role; a process new in `after` counts from 0, one ended since not at all. */
export function cpuBetween(before: Snapshot, after: Snapshot): Record<Role, number> {
  const sums: Record<Role, number> = { API: 0, worker: 0, 'hello-worker': 0, Temporal: 0, database: 0 };
  for (const [pid, p] of after) sums[p.role] += p.cpuMs - (before.get(pid)?.cpuMs ?? 0);
  return sums;
}
