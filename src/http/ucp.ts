/**
 * UCP on the REST transport (issue 37 §2), as middleware on the UCP paths (`/checkout-sessions…`):
 * - {@link ucpErrorMiddleware}: every problem-details answer there is UCP's protocol error `{code, content}` instead
 *   (overview "Error Handling": status and code as registered, `content` the human text), outer to the rate limits,
 *   the body parser and the idempotency middleware so their refusals are UCP's too;
 * - {@link ucpPlatformMiddleware}: identifies the platform before anything is replayed or done. UCP identifies a
 *   platform by the profile its `UCP-Agent` header names and proves it by an RFC 9421 signature made with a key of
 *   that profile (permissionless onboarding, no API key): no signature → 401 `signature_missing`; then the profile
 *   (400 / 422 / 424) and the signature (400 / 401). The verified profile URL is the caller's identity
 *   ({@link ucpPlatformOf}, `Actor.ucpProfile`) and the scope of its Idempotency-Keys;
 * - {@link UCP_IDEMPOTENCY}: the UCP variant of the idempotency middleware (same key, other body → 409; the body's
 *   raw bytes hashed; PUT too).
 *
 * Source: ../shared/reference/protocols/ucp-main-2026-08-22/docs/specification/overview/index.md, signatures.md,
 * shopping/checkout/rest.md ("Specific Header Requirements", "Error Responses").
 */
import type { Context, Middleware } from 'koa';
import { renderProblem, toProblem } from './errors';
import type { IdempotencyVariant } from './idempotency';
import { profileUrlOf, type PlatformProfile, type ProfileResolver } from '../ucp/profiles';
import { verifyUcpRequest } from '../ucp/signatures';
import { ProblemError } from '../errors';
import { sha256Hex } from '../hash';

/** Whether `path` is a UCP REST path. */
export const isUcpPath = (path: string): boolean => {
  // Case-insensitive, as the router matches.
  const p = path.toLowerCase();
  return p === '/checkout-sessions' || p.startsWith('/checkout-sessions/');
};

/** UCP's protocol error body. */
export interface UcpError {
  code: string;
  content: string;
}

/** UCP's error body of a problem-details body. */
export function ucpErrorOf(problem: Record<string, unknown>): UcpError {
  const content = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? 'Error');
  return { code: String(problem.code ?? 'error'), content };
}

/** The error middleware of the UCP paths; `log` gets unexpected (5xx) errors. */
export function ucpErrorMiddleware(log: (err: unknown, ctx: Context) => void): Middleware {
  return async (ctx, next) => {
    if (!isUcpPath(ctx.path)) return next();
    try {
      await next();
    } catch (err) {
      const problem = toProblem(err);
      if (problem.status >= 500) log(err, ctx);
      renderProblem(ctx, problem);
    }
    if (ctx.response.type !== 'application/problem+json' || !ctx.body || typeof ctx.body !== 'object') return;
    const status = ctx.status;
    const body = ucpErrorOf(ctx.body as Record<string, unknown>);
    ctx.type = 'application/json';
    ctx.body = body;
    ctx.status = status;
  };
}

/** The platform a UCP request was verified to come from. */
export interface UcpPlatform {
  /** Its profile URL (the `UCP-Agent` profile, whose key signed the request). */
  profileUrl: string;
  profile: PlatformProfile;
}

const PLATFORM = Symbol('ucpPlatform');

/** The verified platform of a UCP request (undefined before {@link ucpPlatformMiddleware}, or off the UCP paths). */
export function ucpPlatformOf(ctx: Context): UcpPlatform | undefined {
  return (ctx.state as Record<symbol, UcpPlatform | undefined>)[PLATFORM];
}

/** The raw body bytes the body parser read (JSON bodies), or undefined. */
function rawBodyOf(ctx: Context): Buffer | undefined {
  const raw = (ctx.request as { rawBody?: string }).rawBody;
  return typeof raw === 'string' && raw.length > 0 ? Buffer.from(raw, 'utf8') : undefined;
}

/**
 * Identifies the platform of every UCP request (see the module comment); after the body parser, before idempotency.
 * @param allowHttp DEV_MODE: an http (loopback) profile URL is taken, as the spec allows for local development.
 */
export function ucpPlatformMiddleware(profiles: ProfileResolver, allowHttp: boolean): Middleware {
  return async (ctx, next) => {
    if (!isUcpPath(ctx.path) || ctx.method === 'OPTIONS') return next();
    const headers = ctx.headers as Record<string, string | string[] | undefined>;
    if (!headers.signature || !headers['signature-input']) {
      throw new ProblemError(401, 'signature_missing', 'Sign the request (RFC 9421 Signature and Signature-Input)');
    }
    const profileUrl = profileUrlOf(ctx.get('ucp-agent') || undefined, allowHttp);
    const request = {
      method: ctx.method,
      url: `${ctx.protocol}://${ctx.host}${ctx.url}`,
      headers,
      body: rawBodyOf(ctx),
    };
    let profile = await profiles.resolve(profileUrl);
    try {
      await verifyUcpRequest(request, profile.keys ?? []);
    } catch (err) {
      // A key rotated in since the profile was cached: fetch it once more.
      if (!(err instanceof ProblemError && err.code === 'key_not_found')) throw err;
      profiles.forget(profileUrl);
      profile = await profiles.resolve(profileUrl);
      await verifyUcpRequest(request, profile.keys ?? []);
    }
    (ctx.state as Record<symbol, UcpPlatform>)[PLATFORM] = { profileUrl, profile };
    await next();
  };
}

/** The UCP variant of the idempotency middleware (src/http/idempotency.ts). */
export const UCP_IDEMPOTENCY: IdempotencyVariant = {
  appliesTo: (ctx) => isUcpPath(ctx.path),
  scope: (ctx) => {
    const platform = ucpPlatformOf(ctx);
    return platform ? `ucp ${platform.profileUrl}` : undefined;
  },
  conflict: 'idempotency_key_reused',
  requestHash: (ctx) => sha256Hex((ctx.request as { rawBody?: string }).rawBody ?? ''),
  methods: ['POST', 'PUT'],
};
