/**
 * UCP message signatures (issue 37 §2): RFC 9421 HTTP Message Signatures through `http-message-signatures`, with the
 * body bound by RFC 9530 `Content-Digest` (sha-256 of the raw bytes; `structured-headers` parses it).
 * - {@link verifyUcpRequest}: a platform's request against the keys of its profile (`keys[]`), with the covered
 *   components UCP requires and its error codes (`signature_missing`, `digest_mismatch`, `key_not_found`,
 *   `algorithm_unsupported`, `signature_invalid`; a `created` older than {@link MAX_SIGNATURE_AGE_SECONDS} is
 *   `signature_invalid`);
 * - {@link signUcpMessage}: our answers (`@status`) and order webhooks (`@method`, `@authority`, `@path`) with the key
 *   that signs quotes and receipts (Ed25519, published in `/.well-known/ucp`'s `keys[]`).
 *
 * Source: ../shared/reference/protocols/ucp-main-2026-08-22/docs/specification/signatures.md (REST Request
 * Verification, REST Response Signing, Error Handling); overview/index.md (Identity Resolution Algorithm).
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { httpbis, createVerifier, type Algorithm } from 'http-message-signatures';
import { parseDictionary, serializeDictionary } from 'structured-headers';
import { problem, ProblemError } from '../errors';
import type { ProfileJwk } from './profiles';

/** Oldest `created` accepted (the signature is optional about it; when present it must be recent). */
export const MAX_SIGNATURE_AGE_SECONDS = 300;
/** Clock skew allowed for a `created` in the future. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** `sha-256=:<base64>:` of `body` (RFC 9530). */
export function contentDigest(body: Buffer | string): string {
  const digest = createHash('sha256').update(body).digest();
  return serializeDictionary(new Map([['sha-256', [digest, new Map()]]]));
}

/** The RFC 9421 algorithm of a JWK (UCP derives it from `kty`/`crv`), or null when this verifier has none. */
export function algorithmOf(jwk: Pick<ProfileJwk, 'kty' | 'crv'>): Algorithm | null {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ecdsa-p256-sha256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-384') return 'ecdsa-p384-sha384';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'ed25519';
  return null;
}

/** A key usable for verification (RFC 7517 §4.2, §4.3): not `use: enc`, and `key_ops` (when present) has verify. */
const verifiable = (k: ProfileJwk) => k.use !== 'enc' && (!k.key_ops || k.key_ops.includes('verify'));

/** A request as received. `url` is absolute (scheme, the Host the client sent, path and query). */
export interface ReceivedRequest {
  method: string;
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes; empty or undefined when there is none. */
  body: Buffer | undefined;
}

/** The headers as the library takes them (absent ones dropped). */
function present(headers: ReceivedRequest['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Verifies a platform's request against `keys` (its profile's `keys[]`).
 * @throws ProblemError 401 `signature_missing` (no Signature / Signature-Input), 400 `digest_mismatch` (a body
 *   without Content-Digest, or one that does not match), 401 `key_not_found`, 400 `algorithm_unsupported`, 401
 *   `signature_invalid` (bad signature, a required component not covered, a stale or future `created`).
 */
export async function verifyUcpRequest(req: ReceivedRequest, keys: readonly ProfileJwk[]): Promise<void> {
  const h = req.headers;
  if (!h.signature || !h['signature-input'])
    throw problem('signature_missing', 'Sign the request (RFC 9421 Signature and Signature-Input)');
  const hasBody = (req.body?.length ?? 0) > 0;
  if (hasBody) {
    const sent = typeof h['content-digest'] === 'string' ? h['content-digest'] : undefined;
    if (!sent) throw problem('digest_mismatch', 'A request with a body needs Content-Digest (sha-256)');
    let value: unknown;
    try {
      value = parseDictionary(sent).get('sha-256')?.[0];
    } catch {
      throw problem('digest_mismatch', 'Content-Digest is not an RFC 8941 Dictionary');
    }
    const actual = createHash('sha256')
      .update(req.body ?? Buffer.alloc(0))
      .digest('base64');
    if (!(value instanceof ArrayBuffer) || Buffer.from(value).toString('base64') !== actual)
      throw problem('digest_mismatch', 'Content-Digest does not match the sha-256 of the body');
  }
  const url = new URL(req.url);
  const required = ['@method', '@authority', '@path'];
  if (url.search.length > 1) required.push('@query');
  if (hasBody) required.push('content-digest', 'content-type');
  if (h['idempotency-key'] !== undefined) required.push('idempotency-key');
  if (h['ucp-agent'] !== undefined) required.push('ucp-agent');
  if (h['signature-agent'] !== undefined) required.push('signature-agent');

  let lookupFailure: 'key_not_found' | 'algorithm_unsupported' = 'key_not_found';
  let kid = '';
  let result: boolean | null;
  try {
    result = await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          kid = typeof params.keyid === 'string' ? params.keyid : '';
          const jwk = keys.find((k) => k.kid === kid && verifiable(k));
          if (!jwk) {
            lookupFailure = 'key_not_found';
            return null;
          }
          const alg = algorithmOf(jwk);
          let key: KeyObject | null;
          try {
            key = alg ? createPublicKey({ key: { ...jwk }, format: 'jwk' }) : null;
          } catch {
            key = null;
          }
          if (!alg || !key) {
            lookupFailure = 'algorithm_unsupported';
            return null;
          }
          return { id: kid, algs: [alg], verify: createVerifier(key, alg) };
        },
        requiredFields: required,
        maxAge: MAX_SIGNATURE_AGE_SECONDS,
        tolerance: CLOCK_TOLERANCE_SECONDS,
      },
      { method: req.method, url: req.url, headers: present(h) },
    );
  } catch (err) {
    if (err instanceof ProblemError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw problem(
      'signature_invalid',
      `Request signature verification failed${kid ? ` for key kid=${kid}` : ''}: ${why}`,
    );
  }
  if (result === true) return;
  if (result === null)
    throw lookupFailure === 'key_not_found'
      ? problem('key_not_found', `No signing key kid=${kid} in the platform's profile keys[]`)
      : problem('algorithm_unsupported', `The key kid=${kid} is of an algorithm this business does not verify`);
  throw problem('signature_invalid', `Request signature verification failed for key kid=${kid}`);
}

/** A signing key bound to its `kid` (our Ed25519 key, src/signing). */
export interface MessageSigner {
  kid: string;
  sign(data: Buffer): Promise<Buffer>;
}

/**
 * The `Content-Digest`, `Signature-Input` and `Signature` headers of a message we send: a response (`status` set:
 * covers `@status`) or a request (`method` and `url` set: covers `@method`, `@authority`, `@path`, and `ucp-agent`
 * when sent), both with `content-digest` and `content-type`; `created` now, `keyid` the signer's.
 */
export async function signUcpMessage(
  signer: MessageSigner,
  msg: { status: number } | { method: string; url: string },
  headers: Record<string, string>,
  body: string,
): Promise<Record<string, string>> {
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  lower['content-digest'] = contentDigest(body);
  const fields =
    'status' in msg
      ? ['@status', 'content-digest', 'content-type']
      : [
          '@method',
          '@authority',
          '@path',
          ...(lower['ucp-agent'] ? ['ucp-agent'] : []),
          'content-digest',
          'content-type',
        ];
  const config = {
    key: { id: signer.kid, alg: 'ed25519' as const, sign: (d: Buffer) => signer.sign(d) },
    name: 'sig1',
    fields,
    params: ['created', 'keyid'],
  };
  const signed =
    'status' in msg
      ? await httpbis.signMessage(config, { status: msg.status, headers: lower })
      : await httpbis.signMessage(config, { method: msg.method, url: msg.url, headers: lower });
  const out: Record<string, string> = { 'content-digest': lower['content-digest'] };
  // The library adds them as `Signature` and `Signature-Input`.
  for (const [name, v] of Object.entries(signed.headers)) {
    const lowerName = name.toLowerCase();
    if (lowerName === 'signature' || lowerName === 'signature-input')
      out[lowerName] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
