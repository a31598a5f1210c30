/**
 * Request rate limits (issue 10 §4): per credential and per client address, counted in MongoDB with
 * `rate-limiter-flexible`'s `RateLimiterMongo`, so every API process shares the counters.
 */
import { isIP } from 'node:net';
import type { Context, Middleware } from 'koa';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import { isWriteRace } from '../db';
import { problem } from '../errors';
import { sha256Hex } from '../hash';
import { bearerToken } from './auth';
import { dependencyDown } from './errors';

/** Collection holding one counter document per key and window. */
export const RATE_LIMIT_COLLECTION = 'rate_limits';
/** Window of every limit, seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** Requests per window; 0 turns a limit off. */
export interface RateLimits {
  /** Per credential (Bearer token or X-Operator-Key, hashed), per minute. */
  perCredential: number;
  /** Per client address, for requests without a credential, per minute. */
  perAddress: number;
  /** Burst limits: the same subjects per second (a quick burst meets a limit long before the minute's). */
  perCredentialPerSecond?: number;
  perAddressPerSecond?: number;
}

/** Transient index DDL failures (FerretDB/FerretDB#5167 deadlock between processes; MongoDB "in progress"). */
const TRANSIENT_DDL = /deadlock detected|could not serialize|concurrent|in progress/i;

/**
 * Creates the limiter's indexes: `key` unique (two first requests of a key cannot both insert: the library retries on
 * the duplicate key) and a TTL index on `expire` (expired counters are reaped; DocumentDB's TTL task does it within
 * a minute). Both work on FerretDB v2.5 / DocumentDB 0.106 as on MongoDB (measured). Not the library's own index
 * creation: it runs two DDL commands at construction, only logs a failure, and index DDL of two processes at once
 * (API and worker starting) makes FerretDB report a deadlock (FerretDB/FerretDB#5167), so it is retried here.
 * @throws MongoServerError when an index cannot be created after a few retries of transient DDL conflicts.
 */
export async function ensureRateLimitIndexes(db: Db): Promise<void> {
  const collection = db.collection(RATE_LIMIT_COLLECTION);
  for (let attempt = 1; ; attempt++) {
    try {
      await collection.createIndexes([
        { key: { key: 1 }, name: 'key_1', unique: true },
        { key: { expire: 1 }, name: 'expire_ttl', expireAfterSeconds: 0 },
      ]);
      return;
    } catch (err) {
      if (attempt >= 8 || !(err instanceof MongoServerError) || !TRANSIENT_DDL.test(err.message)) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
    }
  }
}

/** The client address a limit counts against: IPv4 as is, IPv6 by its /64 (one host usually holds a whole /64). */
export function addressKey(ip: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (v4) return v4;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** What a request is counted as: its credential (hashed) when it carries one, else its client address. */
function subject(ctx: Context): { kind: 'credential' | 'address'; key: string } {
  const credential = ctx.get('x-operator-key') || bearerToken(ctx) || ctx.get('authorization');
  if (credential) return { kind: 'credential', key: sha256Hex(credential) };
  return { kind: 'address', key: addressKey(ctx.ip) };
}

/**
 * The counters' collection as rate-limiter-flexible expects MongoDB to answer: an upsert that meets its key's
 * expired counter (not yet removed by the TTL monitor), or loses the race to create it, gets duplicate key (11000)
 * from MongoDB, which the library answers by replacing the expired counter. DocumentDB reports the same as
 * InternalError "conflicting key value violates exclusion constraint", which the library passed on as a failure, so
 * the limiter failed open for a key until the TTL monitor ran (thousands of times in the soak drill). Only that
 * answer of `findOneAndUpdate` is translated; no upstream issue found for DocumentDB's code.
 */
function duplicateKeyAsMongoSays(collection: Collection): Collection {
  return new Proxy(collection, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop !== 'findOneAndUpdate' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (err) {
          if (err instanceof MongoServerError && err.code === 1 && /exclusion constraint/.test(err.message)) {
            throw new MongoServerError({
              ...err.errorResponse,
              code: 11000,
              codeName: 'DuplicateKey',
              errmsg: err.message,
            });
          }
          throw err;
        }
      };
    },
  });
}

/** Sets the RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
function setHeaders(ctx: Context, policy: string, limit: number, windowSeconds: number, res: RateLimiterRes): void {
  const resetSeconds = Math.max(0, Math.ceil(res.msBeforeNext / 1000));
  ctx.set('RateLimit-Policy', `"${policy}";q=${limit};w=${windowSeconds}`);
  ctx.set('RateLimit', `"${policy}";r=${res.remainingPoints};t=${resetSeconds}`);
}

/**
 * Counts every request that reaches it against its credential (`limits.perCredential` per minute) or, without one,
 * its client address (`limits.perAddress` per minute, `ctx.ip`: trust of X-Forwarded-For is the app's `proxy`
 * setting). Over the limit: 429 `rate_limited` with `Retry-After` (seconds) and the RateLimit fields. Mount it after
 * the response cache (its hits are cheap and not counted) and before body parsing. If the counter store fails, the
 * request goes through and `log` is told (the database being down fails the request anyway).
 */
export function rateLimitMiddleware(db: Db, limits: RateLimits, log: (err: unknown) => void): Middleware {
  const counters = { collection: (name: string) => duplicateKeyAsMongoSays(db.collection(name)) };
  const ready = ensureRateLimitIndexes(db).catch((err: unknown) => {
    log(new Error(`rate limits: cannot create the indexes of ${RATE_LIMIT_COLLECTION}: ${String(err)}`));
  });
  const make = (points: number, duration: number, keyPrefix: string) => {
    if (points <= 0) return null;
    // The minute's budget is shared through the database; the burst window is counted in this process's memory (no
    // database write per request for it), so with n API processes a burst may reach n times the per-second limit.
    const limiter =
      duration === 1
        ? new RateLimiterMemory({ keyPrefix, points, duration })
        : new RateLimiterMongo({
            storeClient: counters,
            tableName: RATE_LIMIT_COLLECTION,
            disableIndexesCreation: true,
            keyPrefix,
            points,
            duration,
          });
    return { points, duration, limiter };
  };
  // Per subject kind: the burst window first (it refuses a quick burst), then the minute's.
  const windows = {
    credential: [
      make(limits.perCredentialPerSecond ?? 0, 1, 'cred-s'),
      make(limits.perCredential, RATE_LIMIT_WINDOW_SECONDS, 'cred'),
    ],
    address: [
      make(limits.perAddressPerSecond ?? 0, 1, 'addr-s'),
      make(limits.perAddress, RATE_LIMIT_WINDOW_SECONDS, 'addr'),
    ],
  };

  // Concurrent first requests of one subject from several processes race to insert its counter; the losers count
  // again (the document exists then), after a short random pause so that racing writers do not meet again.
  const write = async (limiter: RateLimiterMongo, key: string, points: number): Promise<RateLimiterRes> => {
    for (let n = 0; ; n++) {
      if (n > 0) await new Promise((r) => setTimeout(r, 5 * n + Math.random() * 20));
      try {
        return await limiter.consume(key, points);
      } catch (err) {
        if (n >= 5 || !isWriteRace(err)) throw err;
      }
    }
  };
  const coalesced = new Map<RateLimiterMongo, CoalescedCounter>();
  const consume = (limiter: RateLimiterMemory | RateLimiterMongo, key: string): Promise<RateLimiterRes> => {
    if (limiter instanceof RateLimiterMemory) return limiter.consume(key);
    let counter = coalesced.get(limiter);
    if (!counter) {
      counter = new CoalescedCounter(limiter.points, (k, points) => write(limiter, k, points));
      coalesced.set(limiter, counter);
    }
    return counter.consume(key);
  };

  return async (ctx, next) => {
    // /health is not counted: it must answer within a second while the database (which holds the counters) is down.
    if (ctx.path === '/health') return next();
    const who = subject(ctx);
    const active = windows[who.kind].filter((w) => w !== null);
    if (active.length === 0) return next();
    await ready;
    let last: { res: RateLimiterRes; points: number; duration: number } | undefined;
    for (const w of active) {
      try {
        last = { res: await consume(w.limiter, who.key), points: w.points, duration: w.duration };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) {
          // The database is down: the request would wait for it again, so answer 503 now (issue 14).
          if (dependencyDown(err)) throw err;
          log(err);
          return next();
        }
        setHeaders(ctx, who.kind, w.points, w.duration, err);
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        const per = w.duration === 1 ? 'second' : 'minute';
        throw problem(
          'rate_limited',
          `More than ${w.points} requests per ${per} from this ${who.kind}; retry in ${retryAfter} s`,
          { limit: w.points, window_seconds: w.duration, retry_after_seconds: retryAfter },
          { headers: { 'Retry-After': String(retryAfter) } },
        );
      }
    }
    // The fields describe the longest window (the policy a steady client meets).
    if (last) setHeaders(ctx, who.kind, last.points, last.duration, last.res);
    await next();
  };
}

interface Waiter {
  resolve: (res: RateLimiterRes) => void;
  reject: (err: unknown) => void;
}

/** Requests of one key this process may still admit in the current window without a write (see {@link CoalescedCounter}). */
interface Allowance {
  tokens: number;
  /** End of the window the tokens belong to (epoch ms). */
  until: number;
  /** Requests of the key this process admitted in that window, as counted by the shared counter. */
  admitted: number;
}

/** Extra requests reserved by a write for a key seen before in this process (see {@link CoalescedCounter}). */
export const RESERVED_PER_WRITE = 8;

/** Keys whose allowance is remembered at most; past it the expired ones go (then all, if none expired). */
const MAX_ALLOWANCES = 10_000;

/**
 * One counter write in flight per key in this process: requests arriving while it runs are counted together by the
 * next write (`$inc` by their number), then answered one by one in arrival order as if each had been counted alone.
 * Fifty concurrent upserts of one counter document made DocumentDB report deadlocks and stalled every request of
 * the subject for 5–28 s at each window rollover (measured with 50 concurrent requests; documentdb/documentdb#295 is
 * the nearest upstream report); the same many writers cost MongoDB needless contention too. A write that fails
 * (the database is down) fails the requests waiting behind it as well, so none waits for a second one.
 *
 * A write for a key this process has counted before also reserves up to {@link RESERVED_PER_WRITE} more requests of
 * the window (token prefetching): the next ones are admitted from that allowance without waiting for the database,
 * which took a durable write (2.3 ms, p50) off most requests of a returning client (issue 9 §3). Reserved requests
 * count in the shared counter at once, so no process ever admits more than the limit; what a process reserved and
 * did not use is lost to the other processes until the window ends (at most {@link RESERVED_PER_WRITE} per process).
 */
export class CoalescedCounter {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly allowances = new Map<string, Allowance>();

  /**
   * @param points the window's limit (requests)
   * @param write adds `n` to the key's counter; resolves with the counter after it, rejects with a
   *   `RateLimiterRes` when the counter passed `points` (rate-limiter-flexible's `consume(key, n)` contract)
   * @param now clock (epoch ms), for tests
   */
  constructor(
    private readonly points: number,
    private readonly write: (key: string, n: number) => Promise<RateLimiterRes>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request; resolves with its `RateLimiterRes`, rejects with one when over the limit, or the write's error. */
  consume(key: string): Promise<RateLimiterRes> {
    if (!this.queues.has(key)) {
      const reserved = this.fromAllowance(key);
      if (reserved) return Promise.resolve(reserved);
    }
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ resolve, reject });
        return;
      }
      this.queues.set(key, [{ resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(key)!;
      const batch = queue.splice(0);
      // Requests that queued behind a write that reserved some are admitted from the reservation first.
      while (batch.length > 0) {
        const reserved = this.fromAllowance(key);
        if (!reserved) break;
        batch.shift()!.resolve(reserved);
      }
      if (batch.length === 0) {
        this.queues.delete(key);
        return;
      }
      const allowance = this.allowances.get(key);
      // A key seen before, far from its limit, reserves more of its window; a one-off request, or one near the
      // limit, costs the shared budget only itself.
      const extra = allowance && this.points - allowance.admitted > 4 * RESERVED_PER_WRITE ? RESERVED_PER_WRITE : 0;
      let res: RateLimiterRes;
      try {
        res = await this.write(key, batch.length + extra);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) {
          for (const w of [...batch, ...queue.splice(0)]) w.reject(err);
          this.queues.delete(key);
          return;
        }
        res = err;
      }
      const before = res.consumedPoints - batch.length - extra;
      batch.forEach((w, i) => {
        const count = before + i + 1;
        const own = new RateLimiterRes(
          Math.max(0, this.points - count),
          res.msBeforeNext,
          count,
          res.isFirstInDuration && i === 0,
        );
        if (count > this.points) w.reject(own);
        else w.resolve(own);
      });
      this.remember(key, {
        tokens: Math.max(0, Math.min(extra, this.points - before - batch.length)),
        until: this.now() + res.msBeforeNext,
        admitted: Math.min(this.points, before + batch.length),
      });
    }
  }

  /** Admits one request of `key` from this process's reservation in the current window; undefined when none is left. */
  private fromAllowance(key: string): RateLimiterRes | undefined {
    const allowance = this.allowances.get(key);
    const left = allowance ? allowance.until - this.now() : 0;
    if (!allowance || allowance.tokens <= 0 || left <= 0) return undefined;
    allowance.tokens--;
    const count = ++allowance.admitted;
    return new RateLimiterRes(this.points - count, left, count, false);
  }

  private remember(key: string, allowance: Allowance): void {
    if (this.allowances.size >= MAX_ALLOWANCES) {
      const now = this.now();
      for (const [k, a] of this.allowances) if (a.until <= now) this.allowances.delete(k);
      if (this.allowances.size >= MAX_ALLOWANCES) this.allowances.clear();
    }
    this.allowances.set(key, allowance);
  }
}
