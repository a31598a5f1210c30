import { createHmac, randomBytes } from 'node:crypto';
import { sha256Hex as sha256 } from '../hash';
import type { Context, Middleware } from 'koa';
import { isDuplicateKey, type Database } from '../db';
import { badRequest, problem, type ErrorCode } from '../errors';
import { renderProblem, toProblem } from './errors';

/**
 * Seconds a claim in flight is held without renewal: the request renews it every third of that while it runs, so a
 * claim left by a process that died is taken over by the client's retry within this time (issue 14), however long
 * the request itself runs.
 */
export const IN_FLIGHT_LEASE_SECONDS = 10;
const RENEW_EVERY_MS = (IN_FLIGHT_LEASE_SECONDS * 1000) / 3;
/** Claims written before leases were renewed carry no `lease_until`: they were held 30 s from creation. */
const LEGACY_LEASE_MS = 30_000;

/** Response headers kept with a stored answer. */
const KEPT_HEADERS = ['location', 'content-type', 'content-digest', 'signature', 'signature-input'];

const CREATION = Symbol('idempotentCreation');

/**
 * What a request with an `Idempotency-Key` creates is named from its claim (issue 36, Stripe's rule: same key, same
 * object): the first request draws a random seed, every retry that takes its claim over (after a crash or a 5xx)
 * gets the same one, so it derives the same ids, secrets and creation time and finds or continues what the first
 * one made instead of making a second. Ids stay as unguessable as random ones: the seed never leaves the database.
 */
export interface IdempotentCreation {
  /** `n` (≤ 32) bytes of HMAC-SHA256(seed, purpose): the same for every retry with the key. */
  bytes(purpose: string, n?: number): Buffer;
  /** {@link bytes} as base64url (`n` 16 by default: an id's 128 bits). */
  name(purpose: string, n?: number): string;
  /** When the first request with this key arrived: the creation time a retry reuses. */
  at: Date;
}

/** The request's {@link IdempotentCreation}, or undefined when it carries no `Idempotency-Key` (fresh ids then). */
export function idempotentCreation(ctx: Context): IdempotentCreation | undefined {
  return (ctx.state as Record<symbol, IdempotentCreation | undefined>)[CREATION];
}

function creationOf(seed: string, at: Date): IdempotentCreation {
  const bytes = (purpose: string, n = 16): Buffer =>
    createHmac('sha256', Buffer.from(seed, 'base64url')).update(purpose).digest().subarray(0, n);
  return { bytes, name: (purpose, n) => bytes(purpose, n).toString('base64url'), at };
}

/**
 * `Idempotency-Key` on every POST, as the Agentic Commerce Protocol specifies (../shared/reference/api-conventions.md):
 * scoped to caller (credentials) and path, kept `ttlSeconds`; a replay returns the original status and body with
 * `Idempotent-Replayed: true`; the same key with another body is 422 `idempotency_conflict`; the same key while
 * the first request runs is 409 `idempotency_in_flight` with `Retry-After`; 5xx answers are not stored: the claim is
 * released for the retry at once, keeping its seed, so the retry creates what the first request would have
 * ({@link idempotentCreation}).
 */
/** Shortest `Idempotency-Key` taken from a caller without a credential (a UUID v4 has 36 characters). */
export const ANONYMOUS_KEY_MIN_LENGTH = 32;

/**
 * A protocol's own idempotency rules on its paths (UCP, src/http/ucp.ts): the caller's verified identity (a slot of
 * its own in the key's scope, {@link callerScope}), the code of a key reused with another body, how the body is
 * hashed, and which methods are kept.
 */
export interface IdempotencyVariant {
  appliesTo(ctx: Context): boolean;
  scope(ctx: Context): string | undefined;
  conflict: ErrorCode;
  requestHash(ctx: Context): string;
  methods: readonly string[];
}

/** Who a request's Idempotency-Key belongs to: what the caller showed, kept apart field by field. */
export interface CallerScope {
  /** The caller showed a credential (any of the three). */
  credential: boolean;
  /** sha256 of the JSON array `[authorization, operator key, protocol scope]` (empty strings where absent). */
  hash: string;
  /** The record id of the older naming (only when no protocol scope applies), for the transition's lookup. */
  legacy?: (path: string, key: string) => string;
}

/**
 * The scope of a request's keys from the `Authorization` header, the `X-Operator-Key` header and the protocol's own
 * scope (a verified UCP platform's profile URL). Each value sits in its own slot of a JSON array before it is hashed,
 * so no value a caller controls (an `Authorization` header spelling another platform's scope) can name another
 * caller's scope (money-integrity.md, 2026-12-02 evening).
 */
export function callerScope(
  authorization: string,
  operatorKey: string,
  protocolScope: string | undefined,
): CallerScope {
  const credential = Boolean(authorization || operatorKey || protocolScope);
  const hash = sha256(JSON.stringify([authorization, operatorKey, protocolScope ?? '']));
  if (protocolScope !== undefined) return { credential, hash };
  const older = sha256(authorization || operatorKey || 'anonymous');
  return { credential, hash, legacy: (path, key) => sha256(`${older}\n${path}\n${key}`) };
}

/** The record id of `key` on `path` in `scope`: sha256 of the JSON array `[scope, path, key]`. */
export const idempotencyRecordId = (scope: CallerScope, path: string, key: string): string =>
  sha256(JSON.stringify([scope.hash, path, key]));

export function idempotencyMiddleware(
  db: Database,
  ttlSeconds: number,
  variants: readonly IdempotencyVariant[] = [],
): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    // /mcp, /ucp/mcp: a tool call's REST request is kept under its own key (a UCP MCP request may carry the header, signed).
    if (['/mcp', '/ucp/mcp'].includes(ctx.path.toLowerCase())) return next();
    const variant = variants.find((v) => v.appliesTo(ctx));
    if (!(variant ? variant.methods.includes(ctx.method) : ctx.method === 'POST') || !key) return next();
    if (key.length > 255) throw badRequest('Idempotency-Key is at most 255 characters', 'Idempotency-Key');
    const scope = callerScope(ctx.get('authorization'), ctx.get('x-operator-key'), variant?.scope(ctx));
    // Callers without a credential share one scope: a guessable key would hand the first caller's answer (an order
    // id, its secret) to anyone who guesses it. Their keys must be unguessable, as a UUID v4 is (issue 36).
    if (!scope.credential && key.length < ANONYMOUS_KEY_MIN_LENGTH) {
      throw badRequest(
        `Without a credential, an Idempotency-Key must be at least ${ANONYMOUS_KEY_MIN_LENGTH} characters of randomness (a UUID v4)`,
        'Idempotency-Key',
      );
    }
    let id = idempotencyRecordId(scope, ctx.path, key);
    // Until the records written before 2026-12-02 (one TTL) are gone: a retry of a request made under the older
    // naming (never on a protocol's own scope, which was the forgeable one) still finds its first answer.
    const legacy =
      scope.legacy === undefined ? null : await db.idempotencyKeys.findOne({ _id: scope.legacy(ctx.path, key) });
    if (legacy && legacy.created_at.getTime() >= Date.now() - ttlSeconds * 1000) id = legacy._id;
    const requestHash = variant
      ? variant.requestHash(ctx)
      : sha256(JSON.stringify((ctx.request as { body?: unknown }).body ?? null));
    const now = new Date();
    const fresh = randomBytes(32).toString('base64url');
    let creation: IdempotentCreation | undefined;

    for (let attempt = 0; !creation; attempt++) {
      try {
        await db.idempotencyKeys.insertOne({
          _id: id,
          request_hash: requestHash,
          state: 'in_flight',
          response: null,
          created_at: now,
          lease_until: new Date(now.getTime() + IN_FLIGHT_LEASE_SECONDS * 1000),
          seed: fresh,
        });
        creation = creationOf(fresh, now);
      } catch (err) {
        if (!isDuplicateKey(err) || attempt > 3) throw err;
        const existing = await db.idempotencyKeys.findOne({ _id: id });
        if (!existing) continue;
        if (existing.created_at.getTime() < now.getTime() - ttlSeconds * 1000) {
          await db.idempotencyKeys.deleteOne({ _id: id, created_at: existing.created_at });
          continue;
        }
        if (existing.request_hash !== requestHash) {
          throw problem(
            variant?.conflict ?? 'idempotency_conflict',
            'This Idempotency-Key was used with a different request body',
          );
        }
        // A first request whose process died (or whose database went away, or that answered 5xx) stops renewing
        // its claim: once the lease has run out the retry takes it over with the first request's seed, so it names
        // (and finds) the same resources, and is not refused for the whole TTL.
        const leaseEnd = existing.lease_until?.getTime() ?? existing.created_at.getTime() + LEGACY_LEASE_MS;
        if (existing.state === 'in_flight' && leaseEnd < now.getTime()) {
          const seed = existing.seed ?? fresh;
          const taken = await db.idempotencyKeys.updateOne(
            existing.lease_until
              ? { _id: id, state: 'in_flight', lease_until: existing.lease_until }
              : { _id: id, state: 'in_flight', created_at: existing.created_at, lease_until: { $exists: false } },
            { $set: { lease_until: new Date(now.getTime() + IN_FLIGHT_LEASE_SECONDS * 1000), seed } },
          );
          if (taken.matchedCount === 1) creation = creationOf(seed, existing.created_at);
          continue;
        }
        if (existing.state === 'in_flight' || !existing.response) {
          throw problem(
            'idempotency_in_flight',
            'The first request with this Idempotency-Key is still running',
            {},
            { headers: { 'Retry-After': '1' } },
          );
        }
        ctx.status = existing.response.status;
        for (const [k, v] of Object.entries(existing.response.headers)) ctx.set(k, v);
        ctx.set('Idempotent-Replayed', 'true');
        ctx.body = existing.response.body;
        return;
      }
    }
    (ctx.state as Record<symbol, IdempotentCreation>)[CREATION] = creation;

    const renewal = setInterval(() => {
      db.idempotencyKeys
        .updateOne(
          { _id: id, state: 'in_flight' },
          { $set: { lease_until: new Date(Date.now() + IN_FLIGHT_LEASE_SECONDS * 1000) } },
        )
        .catch(() => undefined); // a missed renewal only shortens the lease; the next one or the final write follows
    }, RENEW_EVERY_MS);
    renewal.unref();
    // Not stored, and not deleted either: the lease ends now, so the retry takes the claim (and its seed) at once.
    // A failed release only leaves the lease to run out.
    const release = async (): Promise<void> => {
      clearInterval(renewal);
      await db.idempotencyKeys
        .updateOne({ _id: id, state: 'in_flight' }, { $set: { lease_until: new Date(0) } })
        .catch(() => undefined);
    };
    try {
      await next();
    } catch (err) {
      const problem = toProblem(err);
      if (problem.status >= 500) {
        await release();
        throw err;
      }
      renderProblem(ctx, problem);
    } finally {
      clearInterval(renewal);
    }
    if (ctx.status >= 500) {
      await release();
      return;
    }
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = ctx.response.get(h);
      if (v) headers[h] = v;
    }
    await db.idempotencyKeys.updateOne(
      { _id: id },
      { $set: { state: 'done', response: { status: ctx.status, body: ctx.body ?? null, headers } } },
    );
  };
}
