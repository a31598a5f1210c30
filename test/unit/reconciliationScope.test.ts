/**
 * Which open orders a books reconciliation asks about (activities/reconciliation.ts `scopeOf`): every one on an
 * operator's request, on the first run and hourly; between full runs, only the workflows closed since the previous run
 * started (less the grace period and a 5-minute margin).
 */
import { FULL_SWEEP_EVERY_MS, scopeOf } from '../../activities/reconciliation';

const now = new Date('2026-11-27T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const reports = (lastStartedAt: Date | null, lastFullStartedAt: Date | null) => ({
  runs: async () => ({ lastStartedAt, lastFullStartedAt }),
});

test('an operator run, a first run and a run after an hour without a full one are full', async () => {
  expect(await scopeOf(reports(ago(30_000), ago(60_000)), { full: true }, 20, now)).toEqual({});
  expect(await scopeOf(reports(null, null), {}, 20, now)).toEqual({});
  expect(await scopeOf(reports(ago(30_000), null), {}, 20, now)).toEqual({});
  expect(await scopeOf(reports(ago(30_000), ago(FULL_SWEEP_EVERY_MS)), {}, 20, now)).toEqual({});
});

test('between full runs a run lists the workflows closed since the previous run started, less grace and margin', async () => {
  const scope = await scopeOf(reports(ago(30_000), ago(FULL_SWEEP_EVERY_MS - 1)), {}, 20, now);
  expect(scope.ordersClosedSince?.toISOString()).toBe(ago(30_000 + 20_000 + 5 * 60_000).toISOString());
  // A worker away for 40 minutes: the window reaches back to the last run that was stored.
  const late = await scopeOf(reports(ago(40 * 60_000), ago(50 * 60_000)), {}, 0, now);
  expect(late.ordersClosedSince?.toISOString()).toBe(ago(45 * 60_000).toISOString());
});
