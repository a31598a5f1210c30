/**
 * scripts/lib/supervisor.ts on real child processes (issue 36 §B): a process that dies is started again and the
 * others keep running; stop() ends them all and restarts none.
 */
import { spawn } from 'node:child_process';
import { Supervisor, type ProcessExit } from '../../scripts/lib/supervisor';

/** A process that runs until it is killed. */
const idle = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a killed process is started again; the others keep running; stop() ends all and restarts none', async () => {
  const exits: ProcessExit[] = [];
  const supervisor = new Supervisor({ restartDelayMs: 100, killAfterMs: 2_000, onRestart: (e) => exits.push(e) });
  supervisor.run('api', idle);
  supervisor.run('worker', idle);
  await until(() => alive(supervisor.pid('api')) && alive(supervisor.pid('worker')));
  const api = supervisor.pid('api');
  const worker = supervisor.pid('worker');

  process.kill(api!, 'SIGKILL');
  await until(() => supervisor.restarts('api') === 1 && alive(supervisor.pid('api')));
  expect(supervisor.pid('api')).not.toBe(api);
  expect(alive(api)).toBe(false);
  expect(exits).toEqual([{ name: 'api', code: null, signal: 'SIGKILL' }]);
  // The worker was never touched.
  expect(supervisor.pid('worker')).toBe(worker);
  expect(supervisor.restarts('worker')).toBe(0);

  // A process that exits on its own (a crash) comes back as well, again and again.
  process.kill(worker!, 'SIGTERM');
  await until(() => supervisor.restarts('worker') === 1 && alive(supervisor.pid('worker')));
  process.kill(supervisor.pid('worker')!, 'SIGTERM');
  await until(() => supervisor.restarts('worker') === 2 && alive(supervisor.pid('worker')));

  const running = [supervisor.pid('api'), supervisor.pid('worker')];
  await supervisor.stop();
  expect(running.map(alive)).toEqual([false, false]);
  await new Promise((r) => setTimeout(r, 300));
  expect(supervisor.pid('api')).toBeUndefined();
  expect(supervisor.restarts('api')).toBe(1);
});

test('a command that cannot be spawned is retried, not fatal', async () => {
  let attempts = 0;
  const supervisor = new Supervisor({ restartDelayMs: 50 });
  supervisor.run('missing', () => {
    attempts++;
    return spawn('/nonexistent/agent-commerce-binary', [], { stdio: 'ignore' });
  });
  await until(() => attempts >= 3);
  await supervisor.stop();
});
