/**
 * UCP on the REST transport (issue 37 §2), as middleware on the UCP paths (`/checkout-sessions…`, `/orders/…`):
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
import { signUcpMessage, verifyUcpRequest, type MessageSigner } from '../ucp/signatures';
import { ProblemError } from '../errors';
import { sha256Hex } from '../hash';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Whether `path` is a UCP REST path. */
export const isUcpPath = (path: string): boolean => {
  // Case-insensitive, as the router matches.
  const p = path.toLowerCase();
  return p === '/checkout-sessions' || p.startsWith('/checkout-sessions/') || p.startsWith('/orders/');
};

/** Whether `path` is an MCP endpoint: the service's `/mcp`, or `/ucp/mcp` (UCP's binding, src/mcp/tools.ts). */
export const isMcpPath = (path: string): boolean => ['/mcp', '/ucp/mcp'].includes(path.toLowerCase());

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

/** The platform of a signed request: its UCP-Agent profile, fetched, whose key verified the RFC 9421 signature. */
async function verifyPlatform(ctx: Context, profiles: ProfileResolver, allowHttp: boolean): Promise<UcpPlatform> {
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
  return { profileUrl, profile };
}

/**
 * Header of a REST request that a UCP tool call on /mcp makes to this very process (src/mcp/server.ts
 * loopbackDispatch): `<base64url profile URL>.<expiry, epoch s>.<HMAC-SHA256>` over the profile, method, path, the
 * body's sha256 and the expiry, with a key that never leaves the process. The platform proved itself by signing the
 * MCP request (signatures.md, "MCP Transport"); this carries that proof to the REST operation, which runs as for a
 * signed REST request.
 */
export const UCP_LOOPBACK_HEADER = 'ucp-mcp-attestation';
const LOOPBACK_KEY = randomBytes(32);
/** How long an attestation is good for, seconds (it is used at once, on the loopback socket). */
const LOOPBACK_TTL_SECONDS = 60;

const loopbackMac = (profileUrl: string, method: string, path: string, bodySha: string, exp: number) =>
  createHmac('sha256', LOOPBACK_KEY)
    .update(`${profileUrl}\n${method.toUpperCase()}\n${path}\n${bodySha}\n${exp}`)
    .digest('base64url');

/** The attestation of a loopback request (see {@link UCP_LOOPBACK_HEADER}); `body` as sent ('' for none). */
export function attestUcpLoopback(profileUrl: string, method: string, path: string, body: string): string {
  const exp = Math.floor(Date.now() / 1000) + LOOPBACK_TTL_SECONDS;
  const mac = loopbackMac(profileUrl, method, path, sha256Hex(body), exp);
  return `${Buffer.from(profileUrl).toString('base64url')}.${exp}.${mac}`;
}

/**
 * The profile URL a loopback attestation vouches for on this request.
 * @throws ProblemError 401 `signature_invalid` for one that is malformed, expired or not for this request
 */
function attestedProfile(ctx: Context, value: string): string {
  const [p64, expText, mac] = value.split('.');
  const exp = Number(expText);
  const profileUrl = Buffer.from(p64 ?? '', 'base64url').toString('utf8');
  const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
  const want = loopbackMac(profileUrl, ctx.method, ctx.path, sha256Hex(raw), exp);
  const ok =
    typeof mac === 'string' &&
    mac.length === want.length &&
    timingSafeEqual(Buffer.from(mac), Buffer.from(want)) &&
    exp >= Date.now() / 1000;
  if (!ok) throw new ProblemError(401, 'signature_invalid', 'The MCP attestation does not verify');
  return profileUrl;
}

const MCP_VERIFIER = Symbol('ucpMcpVerifier');

/**
 * The UCP platform that signed this `/mcp` request (signatures.md, "MCP Transport": the same RFC 9421 signature,
 * Content-Digest over the JSON-RPC body, the UCP-Agent header), verified on first use and remembered.
 * @throws ProblemError as the REST transport refuses (401 signature_missing, 400 invalid_profile_url, 424, …)
 */
export async function ucpMcpPlatform(ctx: Context): Promise<UcpPlatform> {
  const verify = (ctx.state as Record<symbol, (() => Promise<UcpPlatform>) | undefined>)[MCP_VERIFIER];
  if (!verify) throw new ProblemError(401, 'signature_missing', 'Sign the MCP request (RFC 9421) as a UCP platform');
  return verify();
}

/**
 * Identifies the platform of every UCP request (see the module comment); after the body parser, before idempotency.
 * On `/mcp` and `/ucp/mcp` it only prepares {@link ucpMcpPlatform}: a UCP tool call verifies the MCP request, other calls do not.
 * @param allowHttp DEV_MODE: an http (loopback) profile URL is taken, as the spec allows for local development.
 */
export function ucpPlatformMiddleware(profiles: ProfileResolver, allowHttp: boolean): Middleware {
  return async (ctx, next) => {
    if (isMcpPath(ctx.path) && ctx.method === 'POST') {
      let verified: Promise<UcpPlatform> | undefined;
      (ctx.state as Record<symbol, () => Promise<UcpPlatform>>)[MCP_VERIFIER] = () =>
        (verified ??= verifyPlatform(ctx, profiles, allowHttp));
      return next();
    }
    if (!isUcpPath(ctx.path) || ctx.method === 'OPTIONS') return next();
    const attestation = ctx.get(UCP_LOOPBACK_HEADER);
    let platform: UcpPlatform;
    if (attestation) {
      const profileUrl = attestedProfile(ctx, attestation);
      platform = { profileUrl, profile: await profiles.resolve(profileUrl) };
    } else platform = await verifyPlatform(ctx, profiles, allowHttp);
    (ctx.state as Record<symbol, UcpPlatform>)[PLATFORM] = platform;
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

/**
 * Sends `body` (JSON text) as the answer, signed as UCP signs a REST answer (signatures.md, "REST Response Signing":
 * `@status`, `Content-Digest`, `Content-Type`) with `signer`, a key of our profile. The status and content type must
 * be set first.
 */
export async function sendSignedUcpAnswer(ctx: Context, signer: MessageSigner, body: string): Promise<void> {
  const headers = await signUcpMessage(
    signer,
    { status: ctx.status },
    { 'content-type': ctx.response.get('content-type') },
    body,
  );
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.body = body;
}
