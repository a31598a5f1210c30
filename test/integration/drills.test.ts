/**
 * The quick failure drill of issue 14 as part of `npm test`: `two-of-each` (two APIs and two workers on the same
 * servers: parallel debits never overdraw, idempotency keys replay across processes, the rate limit is shared, every
 * order charged once). It starts its own servers on free ports and exits non-zero on any violation.
 * The slower drills (server-kill, stack-kill, soak) run with `npm run drill -- <name>`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

test('drill two-of-each passes within 3 minutes', () => {
  const res = spawnSync(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    [path.join(root, 'scripts', 'drill.ts'), 'two-of-each', '--orders', '16'],
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
  expect(out).toContain('two-of-each: PASSED');
  expect(res.status).toBe(0);
}, 200_000);
