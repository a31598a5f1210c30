/**
 * Issue 26 §1 Payloads encrypted at rest: the codec server, so that operators read decoded payloads in the Temporal
 * Web UI and the `temporal` CLI while everyone else (and every backup) sees ciphertext.
 *
 * It speaks Temporal's codec-server protocol under a prefix (the API mounts it at `/codec`, `npm run codec-server`
 * serves it on a port of its own):
 *
 * - `POST <prefix>/decode`, `POST <prefix>/encode`: body and answer `{"payloads": [{"metadata": {k: base64}, "data":
 *   base64}, ...]}` (proto3 JSON of `temporal.api.common.v1.Payload`); the `X-Namespace` header, when sent, must be
 *   the configured namespace (400 otherwise). A payload that cannot be decrypted (unknown key id, altered) is 400.
 * - Authentication: the operator key as `Authorization: Bearer <OPERATOR_KEY>` (or `X-Operator-Key`), what
 *   `temporal --codec-auth 'Bearer …'` sends; or the session cookie that `GET/POST <prefix>/login` sets after the
 *   operator typed the key, which the Web UI sends when its codec setting `includeCredentials` is on (the Web UI can
 *   send a Bearer token only from its own OIDC login). 401 without a credential, 403 with another one.
 * - CORS: the origins of `CODEC_CORS_ORIGINS` (the Web UI) get `Access-Control-Allow-Origin: <origin>` with
 *   `Access-Control-Allow-Credentials: true`; preflights (`OPTIONS`) are answered for them.
 * - `GET <prefix>/` (authenticated): which keys the codec holds, to check a configuration or a session.
 * - `POST <prefix>/logout`: removes the session cookie.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Koa, { type Context, type Middleware } from 'koa';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import type { Config } from '../config';
import { ProblemError, problem } from '../errors';
import { payloadCodec } from '../temporal/codec';
import { hasCredential, isOperator } from './auth';
import { problemMiddleware } from './errors';
import { errorLogger } from '../telemetry/logger';

/** Options of {@link codecServerMiddleware}. */
export interface CodecServerOptions {
  /** The payload codec (src/temporal/codec.ts); undefined when encryption is off: payloads pass unchanged. */
  codec: PayloadCodec | undefined;
  /** The operator key (`OPERATOR_KEY`); unset: every request is refused (401 / 403). */
  operatorKey: string | undefined;
  /** The Temporal namespace served; an `X-Namespace` naming another one is refused (400). */
  namespace: string;
  /** Origins allowed to call from a browser (the Web UI's), without a trailing slash. */
  allowedOrigins: readonly string[];
  /** Path prefix, e.g. `/codec`; `''` serves at the root. Default `/codec`. */
  prefix?: string;
  /** Largest request body; default 8 MiB (Temporal's own payload limit is 2 MiB per payload). */
  maxBodyBytes?: number;
  /** Lifetime of a session cookie in seconds; default 12 h. */
  sessionSeconds?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** Name of the session cookie set by `<prefix>/login`. */
export const CODEC_SESSION_COOKIE = 'codec_session';

const DEFAULT_MAX_BODY = 8 * 1024 * 1024;
const DEFAULT_SESSION_SECONDS = 12 * 3600;

/** One payload in proto3 JSON (bytes as base64). */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

// Strict: a body of other fields is a mistake, not an empty list.
const PayloadsBody = z.strictObject({
  payloads: z
    .array(
      z.looseObject({
        metadata: z.record(z.string(), z.string()).nullish(),
        data: z.string().nullish(),
      }),
    )
    .max(10_000)
    // proto3 JSON omits an empty repeated field: the `temporal` CLI sends `{}` for no payloads.
    .default([]),
});

/** Proto3 JSON → SDK payload. */
export function payloadFromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

/** SDK payload → proto3 JSON. */
export function payloadToJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

/** Reads the raw request body up to `limit` bytes. @throws ProblemError 413 beyond it. */
async function readBody(ctx: Context, limit: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw problem('payload_too_large', `The request body exceeds ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw problem('payload_too_large', `The request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The value of cookie `name` in the request, if any. */
function cookie(ctx: Context, name: string): string | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Constant-time comparison of a typed key with the operator key; false when either is missing. */
function sameSecret(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `v1.<expiry seconds>.<HMAC-SHA256 under the operator key, base64url>`: valid until its expiry or a key change. */
function sessionToken(operatorKey: string, expiresAt: number): string {
  const mac = createHmac('sha256', operatorKey).update(`codec-session.v1.${expiresAt}`).digest('base64url');
  return `v1.${expiresAt}.${mac}`;
}

function validSession(token: string | undefined, operatorKey: string | undefined, nowSeconds: number): boolean {
  if (!token || !operatorKey) return false;
  const m = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || Number(m[1]) <= nowSeconds) return false;
  const expected = Buffer.from(sessionToken(operatorKey, Number(m[1])));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}button{font:inherit;padding:.4rem 1rem;margin-top:.6rem}
code{background:#f3f3f3;padding:0 .2rem}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/**
 * Koa middleware serving the codec server under `opts.prefix` (requests outside it go to `next`). Source: issue 26 §1
 * Payloads encrypted at rest. Errors are thrown as {@link ProblemError}s for the problem middleware to render; CORS
 * headers are set before, so the Web UI can read a 401 / 403.
 */
export function codecServerMiddleware(opts: CodecServerOptions): Middleware {
  const prefix = (opts.prefix ?? '/codec').replace(/\/+$/, '');
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const sessionSeconds = opts.sessionSeconds ?? DEFAULT_SESSION_SECONDS;
  const nowSeconds = () => Math.floor((opts.now ?? Date.now)() / 1000);
  const origins = new Set(opts.allowedOrigins.map((o) => o.replace(/\/+$/, '')));

  const authenticate = (ctx: Context): void => {
    if (validSession(cookie(ctx, CODEC_SESSION_COOKIE), opts.operatorKey, nowSeconds())) return;
    if (isOperator(ctx, opts.operatorKey)) return;
    if (!hasCredential(ctx)) {
      throw new ProblemError(
        401,
        'unauthorized',
        `The codec server needs the operator key: send "Authorization: Bearer <OPERATOR_KEY>", or sign in at ${prefix}/login for the Web UI${cookie(ctx, CODEC_SESSION_COOKIE) ? ' (the session sent has expired)' : ''}`,
        {},
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
    throw problem('forbidden', 'The credential sent is not the operator key');
  };

  const cookieAttributes = (ctx: Context, maxAge: number): string =>
    `Path=${prefix || '/'}; Max-Age=${maxAge}; HttpOnly; ${ctx.secure ? 'SameSite=None; Secure' : 'SameSite=Strict'}`;

  const convert = async (ctx: Context, direction: 'encode' | 'decode'): Promise<void> => {
    authenticate(ctx);
    const ns = ctx.get('x-namespace');
    if (ns && ns !== opts.namespace) {
      throw problem('invalid_request', `This codec server serves namespace "${opts.namespace}", not "${ns}"`, {
        param: 'X-Namespace',
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(await readBody(ctx, maxBody));
    } catch (err) {
      if (err instanceof ProblemError) throw err;
      throw problem('invalid_json', 'The request body is not valid JSON');
    }
    const parsed = PayloadsBody.safeParse(json);
    if (!parsed.success) {
      throw problem('invalid_request', 'Send {"payloads": [{"metadata": {...}, "data": "<base64>"}, ...]}');
    }
    const payloads = parsed.data.payloads.map(payloadFromJson);
    let out: Payload[];
    try {
      out = opts.codec ? await opts.codec[direction](payloads) : payloads;
    } catch (err) {
      throw problem('invalid_request', err instanceof Error ? err.message : String(err));
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { payloads: out.map(payloadToJson) };
  };

  const login = async (ctx: Context): Promise<void> => {
    const form = !ctx.is('application/json');
    let key: string | undefined;
    if (ctx.method === 'POST') {
      const raw = await readBody(ctx, 16 * 1024);
      if (form) key = new URLSearchParams(raw).get('operator_key') ?? undefined;
      else {
        try {
          key = (JSON.parse(raw) as { operator_key?: string }).operator_key;
        } catch {
          throw problem('invalid_json', 'The request body is not valid JSON');
        }
      }
    }
    key = key?.trim() || undefined;
    const ok = sameSecret(key, opts.operatorKey);
    ctx.set('Cache-Control', 'no-store');
    if (ok) {
      const expiresAt = nowSeconds() + sessionSeconds;
      ctx.set(
        'Set-Cookie',
        `${CODEC_SESSION_COOKIE}=${sessionToken(opts.operatorKey as string, expiresAt)}; ${cookieAttributes(ctx, sessionSeconds)}`,
      );
      if (!form) {
        ctx.status = 204;
        return;
      }
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page(
        'Signed in to the codec server',
        `<p>Until ${new Date(expiresAt * 1000).toISOString()}, this browser's Temporal Web UI decodes payloads through
<code>${escapeHtml(ctx.origin + prefix)}</code> (its codec setting must include credentials). Reload the Web UI's pages.</p>
<form method="post" action="${escapeHtml(prefix)}/logout"><button>Sign out</button></form>`,
      );
      return;
    }
    if (ctx.method === 'POST' && !form) {
      if (!key) throw problem('unauthorized', 'Send {"operator_key": "<OPERATOR_KEY>"}');
      throw problem('forbidden', 'That is not the operator key');
    }
    ctx.status = ctx.method === 'GET' ? 200 : key ? 403 : 401;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(
      'Codec server: operator sign-in',
      `${ctx.method === 'POST' ? `<p><strong>${key ? 'That is not the operator key.' : 'Type the operator key.'}</strong></p>` : ''}
<p>Payloads in Temporal are encrypted. Signed in, this browser's Temporal Web UI shows them decoded.</p>
<form method="post" action="${escapeHtml(prefix)}/login"><label>Operator key
<input type="password" name="operator_key" autocomplete="current-password" required autofocus></label>
<button>Sign in</button></form>`,
    );
  };

  return async (ctx, next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    // The Web UI joins its endpoint and `/decode`: a configured trailing slash gives `//decode`.
    const route =
      ctx.path
        .slice(prefix.length)
        .replace(/\/{2,}/g, '/')
        .replace(/\/$/, '') || '/';
    const origin = ctx.get('origin');
    if (origin && origins.has(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS') {
      if (origin && origins.has(origin)) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        ctx.set(
          'Access-Control-Allow-Headers',
          ctx.get('access-control-request-headers') || 'Content-Type, X-Namespace, Authorization, Authorization-Extras',
        );
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    const methodNotAllowed = (allow: string) =>
      problem(
        'method_not_allowed',
        `${ctx.method} is not allowed on ${ctx.path}`,
        { allow: allow.split(', ') },
        {
          headers: { Allow: allow },
        },
      );
    switch (route) {
      case '/decode':
      case '/encode':
        if (ctx.method !== 'POST') throw methodNotAllowed('POST, OPTIONS');
        return convert(ctx, route === '/decode' ? 'decode' : 'encode');
      case '/login':
        if (ctx.method !== 'GET' && ctx.method !== 'POST') throw methodNotAllowed('GET, POST');
        return login(ctx);
      case '/logout':
        if (ctx.method !== 'POST') throw methodNotAllowed('POST');
        ctx.set('Set-Cookie', `${CODEC_SESSION_COOKIE}=; ${cookieAttributes(ctx, 0)}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.status = 204;
        return;
      case '/': {
        if (ctx.method !== 'GET') throw methodNotAllowed('GET');
        authenticate(ctx);
        const codec = opts.codec as { encryptingKeyId?: string; keyIds?: string[] } | undefined;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          namespace: opts.namespace,
          encryption: codec ? 'on' : 'off',
          encrypting_key_id: codec?.encryptingKeyId ?? null,
          key_ids: codec?.keyIds ?? [],
        };
        return;
      }
      default:
        throw problem('not_found', `No route for ${ctx.method} ${ctx.path}`);
    }
  };
}

/**
 * The codec server on its own (`npm run codec-server`, scripts/codec-server.ts): a Koa application serving only
 * {@link codecServerMiddleware} at `/codec`, from the configuration's keys, operator key, namespace and CORS origins;
 * every other path is a 404 problem. Source: issue 26 §1 Payloads encrypted at rest.
 */
export function codecServerApp(
  config: Pick<Config, 'PAYLOAD_ENCRYPTION_KEYS' | 'OPERATOR_KEY' | 'TEMPORAL_NAMESPACE' | 'CODEC_CORS_ORIGINS'>,
  log: (err: unknown) => void = errorLogger('codec server: unexpected error'),
): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(problemMiddleware((err) => log(err)));
  app.use(
    codecServerMiddleware({
      codec: payloadCodec(config),
      operatorKey: config.OPERATOR_KEY,
      namespace: config.TEMPORAL_NAMESPACE,
      allowedOrigins: config.CODEC_CORS_ORIGINS,
      prefix: '/codec',
    }),
  );
  return app;
}
