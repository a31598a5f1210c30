/**
 * The rate limiter's coalescing of counter writes (src/http/rateLimit.ts `CoalescedCounter`): one write in flight
 * per key, requests arriving meanwhile counted together by the next, each answered as if counted alone.
 */
import { RateLimiterRes } from 'rate-limiter-flexible';
import { CoalescedCounter, RESERVED_PER_WRITE } from '../../src/http/rateLimit';

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

test('a returning key far from its limit reserves part of its window: the next requests need no write', async () => {
  const s = store(100);
  const counter = new CoalescedCounter(100, s.write);
  await counter.consume('k'); // a one-off request costs only itself
  expect(s.writes).toEqual([{ key: 'k', n: 1 }]);
  const second = await counter.consume('k'); // a returning key: 1 + RESERVED_PER_WRITE
  expect(s.writes[1]).toEqual({ key: 'k', n: 1 + RESERVED_PER_WRITE });
  expect(second.consumedPoints).toBe(2);
  const local = [];
  for (let i = 0; i < RESERVED_PER_WRITE; i++) local.push(await counter.consume('k'));
  expect(s.writes).toHaveLength(2);
  // Each is answered as if counted alone.
  expect(local.map((r) => r.consumedPoints)).toEqual(Array.from({ length: RESERVED_PER_WRITE }, (_, i) => i + 3));
  expect(local.at(-1)!.remainingPoints).toBe(100 - 2 - RESERVED_PER_WRITE);
  await counter.consume('k');
  expect(s.writes).toHaveLength(3);
});

test('near its limit a key reserves nothing, and a reservation never admits past the limit', async () => {
  const s = store(40);
  const counter = new CoalescedCounter(40, s.write);
  const outcomes: boolean[] = [];
  for (let i = 0; i < 60; i++)
    outcomes.push(
      await counter.consume('k').then(
        () => true,
        () => false,
      ),
    );
  expect(outcomes.filter(Boolean)).toHaveLength(40);
  expect(outcomes.slice(0, 40).every(Boolean)).toBe(true);
  // Writes of 1 + RESERVED_PER_WRITE while the key was far from 40, then single ones.
  expect(s.writes.map((w) => w.n)).toContain(1 + RESERVED_PER_WRITE);
  expect(s.writes.slice(-3).map((w) => w.n)).toEqual([1, 1, 1]);
});

test('two processes sharing one counter never admit more than the limit together', async () => {
  const s = store(100);
  const a = new CoalescedCounter(100, s.write);
  const b = new CoalescedCounter(100, s.write);
  let admitted = 0;
  await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i % 17));
      await (i % 2 ? a : b).consume('k').then(
        () => admitted++,
        () => undefined,
      );
    }),
  );
  expect(admitted).toBeLessThanOrEqual(100);
  // What a process reserved and did not use is lost to the other one: at most RESERVED_PER_WRITE each.
  expect(admitted).toBeGreaterThanOrEqual(100 - 2 * RESERVED_PER_WRITE);
});

test('a reservation ends with its window', async () => {
  let t = 0;
  const s = store(100);
  const counter = new CoalescedCounter(100, s.write, () => t);
  await counter.consume('k');
  await counter.consume('k'); // reserves
  await counter.consume('k'); // from the reservation
  expect(s.writes).toHaveLength(2);
  t = 60_001; // the store's windows are 60 s
  await counter.consume('k');
  expect(s.writes).toHaveLength(3);
});
