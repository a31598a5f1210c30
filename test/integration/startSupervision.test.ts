/**
 * `npm start`'s dev profile supervises its processes (issue 36 §B): the API killed, it comes back and the worker and
 * the supervisor keep running. Runs scripts/start.ts itself against the servers test/globalSetup.ts started
 * (TEMPORAL_ADDRESS and MONGODB_URI set, a facilitator URL configured: it starts no server of its own), so only the
 * compile, the workflow bundle, the worker and the API are started.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/lib/servers';

const root = path.resolve(__dirname, '..', '..');
let start: ChildProcess | undefined;
let output = '';

afterAll(async () => {
  if (!start || start.exitCode !== null) return;
  const exited = new Promise((r) => start?.once('exit', r));
  start.kill('SIGTERM');
  const timer = setTimeout(() => start?.pid && process.kill(-start.pid, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}, 30_000);

/** The processes below `pid` (pid and command line), from `ps`. */
function descendants(pid: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? '' }));
  const found: { pid: number; args: string }[] = [];
  const walk = (parent: number) => {
    for (const r of rows.filter((x) => x.ppid === parent)) {
      found.push({ pid: r.pid, args: r.args });
      walk(r.pid);
    }
  };
  walk(pid);
  return found;
}

const processOf = (script: string): number | undefined =>
  descendants(start?.pid ?? -1).find((p) => p.args.includes(path.join('dist', script)))?.pid;

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline || start?.exitCode !== null)
      throw new Error(
        `${what}: not within ${ms} ms (npm start exit ${start?.exitCode}); output:\n${output.slice(-4000)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

const healthy = async (url: string) =>
  (await fetch(`${url}/health`).then(
    (r) => r.status === 200,
    () => false,
  ))
    ? true
    : undefined;

test('the dev profile restarts a killed API; the worker and the supervisor keep running', async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const suffix = randomBytes(4).toString('hex');
  start = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'scripts', 'start.ts')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-start-')),
      MONGODB_DB: `start_${suffix}`,
      TEMPORAL_TASK_QUEUE: `start-${suffix}`,
      X402_FACILITATOR_URL: 'http://127.0.0.1:9',
      OPERATOR_KEY: 'op_start_test_0123456789abcdef',
      PAYLOAD_ENCRYPTION_KEYS: '',
      LOG_LEVEL: 'warn',
    },
  });
  for (const s of [start.stdout, start.stderr])
    s?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));

  await until('the API answers', () => healthy(url), 100_000);
  const api = await until('the API process', () => processOf('src/server.js'), 5_000);
  const worker = await until('the worker process', () => processOf('worker/index.js'), 5_000);

  process.kill(api, 'SIGKILL');
  const restarted = await until(
    'the API restarted',
    () => {
      const pid = processOf('src/server.js');
      return pid !== undefined && pid !== api ? pid : undefined;
    },
    15_000,
  );
  await until('the restarted API answers', () => healthy(url), 30_000);
  expect(restarted).not.toBe(api);
  expect(processOf('worker/index.js')).toBe(worker);
  expect(start.exitCode).toBeNull();
  expect(output).toContain('start: api exited; restarting it in 1 s');
}, 150_000);
