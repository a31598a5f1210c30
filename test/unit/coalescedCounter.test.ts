/**
 * The rate limiter's coalescing of counter writes (src/http/rateLimit.ts `CoalescedCounter`): one write in flight
 * per key, requests arriving meanwhile counted together by the next, each answered as if counted alone.
 */
import { RateLimiterRes } from 'rate-limiter-flexible';
import { CoalescedCounter } from '../../src/http/rateLimit';

/** A counter store with rate-limiter-flexible's `consume(key, n)` contract, recording each write's size. */
function store(points: number) {
  const counts = new Map<string, number>();
  const writes: { key: string; n: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const write = async (key: string, n: number): Promise<RateLimiterRes> => {
    writes.push({ key, n });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    const after = (counts.get(key) ?? 0) + n;
    counts.set(key, after);
    const res = new RateLimiterRes(Math.max(0, points - after), 60_000, after, after === n);
    if (after > points) throw res;
    return res;
  };
  return { write, writes, counts, maxInFlight: () => maxInFlight };
}

test('50 concurrent requests of one key: one write in flight at a time, exactly the budget passes, in arrival order', async () => {
  const s = store(20);
  const counter = new CoalescedCounter(20, s.write);
  const outcomes = await Promise.all(
    Array.from({ length: 50 }, () =>
      counter.consume('k').then(
        (res) => ({ ok: true, res }),
        (res: RateLimiterRes) => ({ ok: false, res }),
      ),
    ),
  );
  expect(s.maxInFlight()).toBe(1);
  // The first request writes alone; the 49 that arrived meanwhile share the second write.
  expect(s.writes.map((w) => w.n)).toEqual([1, 49]);
  expect(s.counts.get('k')).toBe(50);
  expect(outcomes.map((o) => o.ok)).toEqual([...Array<boolean>(20).fill(true), ...Array<boolean>(30).fill(false)]);
  expect(outcomes.map((o) => o.res.consumedPoints)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(outcomes[0]!.res.remainingPoints).toBe(19);
  expect(outcomes[19]!.res.remainingPoints).toBe(0);
  expect(outcomes[49]!.res).toBeInstanceOf(RateLimiterRes);
});

test('keys do not share writes; a key with nothing queued leaves no state behind', async () => {
  const s = store(5);
  const counter = new CoalescedCounter(5, s.write);
  await Promise.all([counter.consume('a'), counter.consume('b'), counter.consume('a')]);
  expect(s.writes).toEqual([
    { key: 'a', n: 1 },
    { key: 'b', n: 1 },
    { key: 'a', n: 1 },
  ]);
  expect(s.maxInFlight()).toBe(2);
  await counter.consume('a');
  expect(s.counts.get('a')).toBe(3);
});

test('a failing write (the database down) fails its batch and every request queued behind it, without a second write', async () => {
  let writes = 0;
  const down = new Error('connection refused');
  const counter = new CoalescedCounter(10, async () => {
    writes++;
    await new Promise((r) => setTimeout(r, 5));
    throw down;
  });
  const first = counter.consume('k');
  const queued = [counter.consume('k'), counter.consume('k')];
  await expect(first).rejects.toBe(down);
  await Promise.all(queued.map((q) => expect(q).rejects.toBe(down)));
  expect(writes).toBe(1);
  // The next request tries again.
  await expect(counter.consume('k')).rejects.toBe(down);
  expect(writes).toBe(2);
});
