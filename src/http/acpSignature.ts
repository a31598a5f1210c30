/**
 * ACP request signatures (issue 37 §1; rfc.agentic_checkout.md §2.1 and §7, rfc.delegate_payment.md §2.2): when the
 * operator registered a key for a platform, every request with its API key must carry `Timestamp` (RFC 3339) and
 * `Signature` (base64url), the signature over `<Timestamp>.<canonical JSON of the body>` (RFC 8785 JCS through the
 * `canonicalize` package; the empty string for a request without a body: GET). The RFC names canonical JSON and the
 * timestamp without fixing how they are joined; this joins them as the ACP webhook signature does
 * (`timestamp + "." + body`). Keys: a shared secret (`HS256`, HMAC-SHA256) or a public JWK (`EdDSA` Ed25519,
 * `ES256` P-256, raw r||s), verified with node:crypto. Refusals are 401 `invalid_signature` (the code the ACP webhook
 * spec answers for a missing, malformed, stale or failing signature); the timestamp window is ±300 s.
 * Runs after the body parser and before the idempotency middleware, so a replay of a stored answer is verified too.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign,
  timingSafeEqual,
  verify,
  type JsonWebKey,
} from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Middleware } from 'koa';
import { problem } from '../errors';
import { isAcpPath } from './acp';

/** Allowed clock skew between `Timestamp` and this server, seconds (the ACP webhook spec's recommendation). */
export const ACP_SIGNATURE_TOLERANCE_SECONDS = 300;

/** A platform's request-signing key as the operator registered it. */
export type AcpSigningKey = { alg: 'HS256'; secret: string } | { alg: 'EdDSA' | 'ES256'; jwk: JsonWebKey };

/** The signed content: `<timestamp>.<JCS of body>`, or `<timestamp>.` when there is no body. */
export function acpSignedContent(timestamp: string, body: unknown): string {
  return `${timestamp}.${body === undefined ? '' : (canonicalize(body) ?? '')}`;
}

/**
 * The `Signature` header for `body` at `timestamp` with `key` (a client's side: tests and scripts). For EdDSA / ES256
 * `key` carries the private JWK.
 */
export function signAcpRequest(key: AcpSigningKey, timestamp: string, body: unknown): string {
  const content = Buffer.from(acpSignedContent(timestamp, body));
  if (key.alg === 'HS256') return createHmac('sha256', key.secret).update(content).digest('base64url');
  const priv = createPrivateKey({ key: key.jwk, format: 'jwk' });
  return key.alg === 'EdDSA'
    ? sign(null, content, priv).toString('base64url')
    : sign('sha256', content, { key: priv, dsaEncoding: 'ieee-p1363' }).toString('base64url');
}

const refuse = (message: string, param = 'Signature') => problem('invalid_signature', message, { param });

/**
 * Verifies `signature` over `body` at `timestamp` with `key`, at `now`.
 * @throws ProblemError 401 `invalid_signature`: a header missing, a timestamp that is no RFC 3339 time or is outside
 *   ±{@link ACP_SIGNATURE_TOLERANCE_SECONDS}, a signature that does not verify.
 */
export function verifyAcpSignature(
  key: AcpSigningKey,
  headers: { signature?: string | undefined; timestamp?: string | undefined },
  body: unknown,
  now = new Date(),
): void {
  const { signature, timestamp } = headers;
  if (!timestamp) throw refuse('Missing Timestamp header: this platform signs its requests', 'Timestamp');
  if (!signature) throw refuse('Missing Signature header: this platform signs its requests');
  const at = Date.parse(timestamp);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(timestamp) || Number.isNaN(at))
    throw refuse('Timestamp must be an RFC 3339 date-time', 'Timestamp');
  if (Math.abs(now.getTime() - at) > ACP_SIGNATURE_TOLERANCE_SECONDS * 1000)
    throw refuse(`Timestamp outside allowed window (±${ACP_SIGNATURE_TOLERANCE_SECONDS} s)`, 'Timestamp');
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(signature)) throw refuse('Signature must be base64url');
  const sig = Buffer.from(signature, 'base64url');
  const content = Buffer.from(acpSignedContent(timestamp, body));
  let ok: boolean;
  if (key.alg === 'HS256') {
    const mac = createHmac('sha256', key.secret).update(content).digest();
    ok = mac.length === sig.length && timingSafeEqual(mac, sig);
  } else {
    const pub = createPublicKey({ key: key.jwk, format: 'jwk' });
    ok =
      key.alg === 'EdDSA'
        ? verify(null, content, pub, sig)
        : verify('sha256', content, { key: pub, dsaEncoding: 'ieee-p1363' }, sig);
  }
  if (!ok) throw refuse('Signature verification failed');
}

/**
 * Checks that `jwk` is a public key of `alg` (Ed25519 OKP for EdDSA, P-256 EC for ES256) without private parts.
 * @throws ProblemError 400 `invalid_request` naming `param`.
 */
export function checkSigningKey(key: AcpSigningKey, param: string): void {
  if (key.alg === 'HS256') return;
  const { jwk } = key;
  const want = key.alg === 'EdDSA' ? { kty: 'OKP', crv: 'Ed25519' } : { kty: 'EC', crv: 'P-256' };
  if (jwk.kty !== want.kty || jwk.crv !== want.crv || 'd' in jwk)
    throw problem('invalid_request', `${key.alg} needs a public ${want.kty} ${want.crv} JWK (no private part)`, {
      param,
    });
  try {
    createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw problem('invalid_request', 'The JWK is not a valid public key', { param });
  }
}

/**
 * The middleware: on an ACP path with an ACP platform API key (`Bearer acp_…`) whose platform has a signing key,
 * verifies `Signature` / `Timestamp` over the parsed body. Requests of other credentials pass (their gates refuse
 * them).
 */
export function acpSignatureMiddleware(signingKeyOf: (apiKey: string) => Promise<AcpSigningKey | null>): Middleware {
  return async (ctx, next) => {
    if (!isAcpPath(ctx.path)) return next();
    const token = /^Bearer\s+(acp_\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const key = token ? await signingKeyOf(token) : null;
    if (key) {
      const hasBody = ctx.method !== 'GET' && ctx.method !== 'HEAD';
      verifyAcpSignature(
        key,
        { signature: ctx.get('signature') || undefined, timestamp: ctx.get('timestamp') || undefined },
        hasBody ? (ctx.request as { body?: unknown }).body : undefined,
      );
    }
    await next();
  };
}
