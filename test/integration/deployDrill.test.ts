/**
 * Issue 26 §2, the `deploy` drill as part of `npm test` (scripts/drills/deploy.ts, docs/deploys.md): on a dev-server
 * stack of its own, build B with a changed order workflow is deployed blue-green under expert orders in engineering,
 * subscriptions between renewals, per-task orders and orders awaiting review; build A is drained and stopped; every
 * open workflow runs its last task on B; then the rollback to A with the runs holding B's patch marker pinned to B.
 * No workflow task may fail, no order be charged twice, the books must balance. About 75 s on 2 busy cores.
 * `--cluster` (the production topology, about 2 minutes) is run by hand.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

test('drill deploy (blue-green with a changed workflow, then rollback) passes within 3 minutes', () => {
  const res = spawnSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    [path.join(root, 'scripts', 'drill.ts'), 'deploy'],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, TEMPORAL_ADDRESS: '', MONGODB_URI: '' },
    },
  );
  const out = `${res.stdout}\n${res.stderr}`;
  if (res.status !== 0) console.log(out.slice(-6000));
  expect(res.error).toBeUndefined();
  expect(out).toContain('deploy: PASSED');
  expect(res.status).toBe(0);
}, 200_000);
