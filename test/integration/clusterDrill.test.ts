/**
 * Issue 25 §3 in `npm test`: the production topology (a Temporal cluster of separate frontend, history × 2,
 * matching × 2 and worker processes on a PostgreSQL of their own, two APIs behind HAProxy, two workers, each with an
 * empty data folder) under the chaos drill's mixed traffic from clients that never retry, with one piece SIGKILLed
 * per cycle, each once: a history service, a matching service, the frontend, Temporal's PostgreSQL, an API, a worker.
 * The drill fails on any order lost or not final, any double charge, books that do not balance (its own audit and the
 * service's reconciliation), a retrying client whose order is not delivered after a kill, or a deliverable that an
 * API cannot serve byte for byte. A file of its own, so jest runs it beside the other drills.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

test('drill chaos --cluster (each piece killed once) passes within 9 minutes', () => {
  const args = [
    'chaos',
    '--cluster',
    '--victims',
    'history,matching,frontend,temporal_postgres,api,worker',
    '--cycles',
    '6',
    '--orders-per-cycle',
    '4',
    '--load-seconds',
    '10',
  ];
  const res = spawnSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    [path.join(root, 'scripts', 'drill.ts'), ...args],
    { cwd: root, encoding: 'utf8', timeout: 540_000, env: { ...process.env, TEMPORAL_ADDRESS: '', MONGODB_URI: '' } },
  );
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) console.log(out.slice(-8000));
  expect(res.error).toBeUndefined();
  expect(out).toContain('chaos: PASSED');
  expect(out).toMatch(/"deliverables_fetched_from_each_api": \{\s*"orders": [1-9]/);
  expect(res.status).toBe(0);
}, 560_000);
