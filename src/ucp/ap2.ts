/**
 * UCP's AP2 mandate extension, `dev.ucp.shopping.ap2_mandate` (issue 37 §2), business side:
 * - {@link signMerchantAuthorization}: `ap2.merchant_authorization` of a checkout answer, a JWS with detached payload
 *   (RFC 7515 Appendix F) over the JCS (RFC 8785) form of the checkout without `ap2`, signed by the key that signs
 *   quotes and receipts (Ed25519, `alg` EdDSA: the spec's note allows it under AP2's entropy reading, the checkout id
 *   being unique per session; decision 0034);
 * - {@link verifyCheckoutMandate}: `ap2.checkout_mandate` of a complete request, an SD-JWT+KB (RFC 9901) checked with
 *   `@sd-jwt/core`: the issuer's signature by a key of the platform profile's `keys[]` (the trusted platform provider
 *   flow), `exp`, the key-binding JWT (signed by the `cnf.jwk` key, `nonce` = the checkout id, `aud` = this business's
 *   endpoint, `iat` recent, `sd_hash` over the presentation), then the embedded checkout: AP2's `checkout_jwt` (the
 *   merchant-signed checkout, its `checkout_hash` checked) or a `checkout` claim carrying the full checkout with its
 *   `ap2.merchant_authorization`, whose signature must be ours;
 * - {@link sameTerms}: whether the mandate's checkout is the session's (id, currency, line items, totals).
 *
 * Errors are the extension's codes (ProblemError, 422): `agent_missing_key`, `mandate_invalid_signature`,
 * `mandate_expired`, `mandate_scope_mismatch`, `merchant_authorization_invalid`, `merchant_authorization_missing`.
 *
 * Source: ../shared/reference/protocols/ucp-main-2026-08-22/docs/specification/ap2-mandates.md (Business
 * Authorization, Mandate Structure, Canonicalization, Business Verification), source/schemas/shopping/ap2_mandate.json;
 * AP2 v0.2 Checkout Mandate (`vct` mandate.checkout.1, `checkout_jwt`, `checkout_hash`).
 */
import { createHash } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest } from '@sd-jwt/crypto-nodejs';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { canonicalize } from 'json-canonicalize';
import { problem } from '../errors';
import type { ProfileJwk } from './profiles';

/** JOSE algorithms accepted on mandates and merchant authorizations (AP2's ECDSA set, and EdDSA as ours). */
export const AP2_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'EdDSA'];
/** `vct` of a closed checkout mandate (AP2 v0.2). */
export const CHECKOUT_MANDATE_VCT = 'mandate.checkout.1';
/** Oldest key-binding JWT accepted, and the clock skew allowed on `iat` / `exp`. */
const KB_MAX_AGE_SECONDS = 300;
const SKEW_SECONDS = 30;

type Json = Record<string, unknown>;

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The checkout without its `ap2` member, JCS-canonicalized, base64url-encoded: the detached JWS payload. */
export function merchantAuthorizationPayload(checkout: Json): string {
  const { ap2: _ap2, ...rest } = checkout;
  return b64url(canonicalize(rest));
}

/**
 * `ap2.merchant_authorization` of `checkout`: `<header>..<signature>`, header `{alg: EdDSA, kid}`, over
 * `<header>.<payload>` ({@link merchantAuthorizationPayload}). `signer` is the raw Ed25519 signer of src/signing.
 */
export async function signMerchantAuthorization(
  checkout: Json,
  signer: { kid: string; sign(data: Uint8Array): Promise<Buffer> },
): Promise<string> {
  const header = b64url(JSON.stringify({ alg: 'EdDSA', kid: signer.kid }));
  const signature = await signer.sign(Buffer.from(`${header}.${merchantAuthorizationPayload(checkout)}`, 'ascii'));
  return `${header}..${signature.toString('base64url')}`;
}

/** Whether a compact JWS verifies against the business's published `keys` (by `kid`). */
async function ourSignature(jws: string, keys: JWK[]): Promise<Json | null> {
  try {
    const { payload } = await compactVerify(jws, createLocalJWKSet({ keys }), { algorithms: AP2_ALGORITHMS });
    return JSON.parse(Buffer.from(payload).toString('utf8')) as Json;
  } catch {
    return null;
  }
}

/** The public key of `jwk` for `alg`, or null when they do not fit. */
async function keyOf(jwk: Json, alg: unknown) {
  if (typeof alg !== 'string' || !AP2_ALGORITHMS.includes(alg)) return null;
  try {
    return await importJWK({ ...jwk, alg }, alg);
  } catch {
    return null;
  }
}

/** A verifier of `<header>.<payload>` + signature for `@sd-jwt/core`, by `jwk`. */
function jwsVerifier(jwk: Json) {
  return async (data: string, signature: string): Promise<boolean> => {
    try {
      const jws = `${data}.${signature}`;
      const key = await keyOf(jwk, decodeProtectedHeader(jws).alg);
      if (!key) return false;
      await compactVerify(jws, key, { algorithms: AP2_ALGORITHMS });
      return true;
    } catch {
      return false;
    }
  };
}

/** What {@link verifyCheckoutMandate} checks against. */
export interface MandateContext {
  /** The checkout id: the key-binding JWT's required `nonce`. */
  checkoutId: string;
  /** This business's endpoint (PUBLIC_BASE_URL): the key-binding JWT's required `aud`. */
  audience: string;
  /** The platform profile's `keys[]`: the mandate's issuer keys. */
  platformKeys: readonly ProfileJwk[];
  /** This business's published keys: the merchant authorization's. */
  businessKeys: JWK[];
  now?: Date;
}

/**
 * Verifies a checkout mandate (see the module comment) and returns the checkout it authorizes, without its `ap2`.
 * @throws ProblemError 422 with the extension's codes.
 */
export async function verifyCheckoutMandate(mandate: string, ctx: MandateContext): Promise<Json> {
  const nowSeconds = Math.floor((ctx.now ?? new Date()).getTime() / 1000);
  const issuerJwt = mandate.split('~')[0] ?? '';
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(issuerJwt).kid;
  } catch {
    throw problem('mandate_invalid_signature', 'The checkout mandate is not an SD-JWT');
  }
  const jwk = ctx.platformKeys.find((k) => k.kid === kid && k.use !== 'enc');
  if (!jwk) throw problem('agent_missing_key', `No key "${String(kid)}" in the platform profile's keys`);
  const issuerVerifier = jwsVerifier(jwk as unknown as Json);

  // The issuer's signature first, so that nothing below reads unsigned claims.
  if (!(await issuerVerifier(issuerJwt.split('.').slice(0, 2).join('.'), issuerJwt.split('.')[2] ?? '')))
    throw problem(
      'mandate_invalid_signature',
      "The checkout mandate's signature does not verify with the platform key",
    );
  let signed: Json;
  try {
    signed = JSON.parse(Buffer.from(issuerJwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Json;
    if (!signed || typeof signed !== 'object') throw new Error('not an object');
  } catch {
    throw problem('mandate_invalid_signature', "The checkout mandate's payload is not a JSON object");
  }
  if (typeof signed.exp === 'number' && signed.exp + SKEW_SECONDS < nowSeconds)
    throw problem('mandate_expired', 'The checkout mandate has expired');

  const sdjwt = new SDJwtInstance({
    hasher: digest,
    verifier: issuerVerifier,
    kbVerifier: async (data, signature, payload) => {
      const cnf = (payload as { cnf?: { jwk?: Json } }).cnf?.jwk;
      return cnf ? jwsVerifier(cnf)(data, signature) : false;
    },
  });
  let claims: Json;
  let kb: { aud?: unknown; iat?: unknown } | undefined;
  try {
    const verified = await sdjwt.verify(mandate, {
      keyBindingNonce: ctx.checkoutId,
      currentDate: nowSeconds,
      skewSeconds: SKEW_SECONDS,
    });
    claims = verified.payload as Json;
    kb = verified.kb?.payload as typeof kb;
  } catch (err) {
    throw problem('mandate_invalid_signature', `The checkout mandate does not verify: ${(err as Error).message}`);
  }
  const aud = kb?.aud;
  if (!(aud === ctx.audience || (Array.isArray(aud) && aud.includes(ctx.audience))))
    throw problem('mandate_invalid_signature', `The key binding is not for this business (aud ${ctx.audience})`);
  if (typeof kb?.iat !== 'number' || kb.iat < nowSeconds - KB_MAX_AGE_SECONDS || kb.iat > nowSeconds + SKEW_SECONDS)
    throw problem('mandate_invalid_signature', 'The key binding JWT is stale or from the future (iat)');
  if (claims.vct !== CHECKOUT_MANDATE_VCT)
    throw problem(
      'mandate_invalid_signature',
      `The credential is not a checkout mandate (vct ${CHECKOUT_MANDATE_VCT})`,
    );

  if (typeof claims.checkout_jwt === 'string') {
    const hash = createHash('sha256').update(claims.checkout_jwt, 'ascii').digest('base64url');
    if (claims.checkout_hash !== hash)
      throw problem('mandate_scope_mismatch', 'checkout_hash is not the hash of checkout_jwt');
    const checkout = await ourSignature(claims.checkout_jwt, ctx.businessKeys);
    if (!checkout) throw problem('merchant_authorization_invalid', 'checkout_jwt is not signed by this business');
    return checkout;
  }
  if (claims.checkout && typeof claims.checkout === 'object') {
    const checkout = claims.checkout as Json;
    const auth = (checkout.ap2 as Json | undefined)?.merchant_authorization;
    if (typeof auth !== 'string')
      throw problem('merchant_authorization_missing', "The mandate's checkout has no ap2.merchant_authorization");
    const [header, , signature] = auth.split('.');
    const verified = await ourSignature(
      `${header}.${merchantAuthorizationPayload(checkout)}.${signature}`,
      ctx.businessKeys,
    );
    if (!verified) throw problem('merchant_authorization_invalid', 'The merchant authorization does not verify');
    return verified;
  }
  throw problem('mandate_scope_mismatch', 'The checkout mandate carries no checkout (checkout_jwt or checkout)');
}

/** The terms a mandate binds: id, currency, each line item's service, quantity and price, and the totals. */
function termsOf(checkout: Json): unknown {
  const lines = Array.isArray(checkout.line_items) ? (checkout.line_items as Json[]) : [];
  const totals = Array.isArray(checkout.totals) ? (checkout.totals as Json[]) : [];
  return {
    id: checkout.id,
    currency: checkout.currency,
    lines: lines.map((l) => ({
      item: (l.item as Json | undefined)?.id,
      price: (l.item as Json | undefined)?.price,
      quantity: l.quantity,
    })),
    totals: totals.map((t) => [t.type, t.amount]),
  };
}

/** Whether the mandate's checkout `authorized` binds the same terms as the session's current checkout `current`. */
export function sameTerms(authorized: Json, current: Json): boolean {
  return canonicalize(termsOf(authorized)) === canonicalize(termsOf(current));
}
