/**
 * The platform's side of UCP's AP2 mandate extension for tests (issue 37 §2): verifying a checkout's
 * `ap2.merchant_authorization` against the business profile's keys (ap2-mandates.md, "Step 1": the platform MUST) and
 * producing the checkout mandate of "Step 3" as a trusted platform provider: an SD-JWT (`@sd-jwt/core`, ES256 through
 * `@sd-jwt/crypto-nodejs`) issued with a key of the platform profile, `vct` mandate.checkout.1, the merchant-signed
 * checkout as a selectively disclosable `checkout_jwt` with its `checkout_hash` (AP2 v0.2), `cnf.jwk` the holder's
 * key, and a key-binding JWT with `aud` and `nonce`. Knobs produce the broken mandates the refusal tests send.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { compactVerify, createLocalJWKSet, type JWK } from 'jose';
import { merchantAuthorizationPayload } from '../../src/ucp/ap2';

type Json = Record<string, unknown>;

/** The merchant-signed checkout (`<header>.<JCS payload>.<signature>`) of a checkout answer; throws unless it verifies. */
export async function verifiedCheckoutJwt(checkout: Json, businessKeys: JWK[]): Promise<string> {
  const auth = (checkout.ap2 as Json | undefined)?.merchant_authorization;
  if (typeof auth !== 'string') throw new Error('no ap2.merchant_authorization');
  const [header, , signature] = auth.split('.');
  const jwt = `${header}.${merchantAuthorizationPayload(checkout)}.${signature}`;
  await compactVerify(jwt, createLocalJWKSet({ keys: businessKeys }));
  return jwt;
}

/** How a mandate is made (defaults: a valid one). */
export interface MandateOptions {
  /** The issuer: a key of the platform profile (its `kid` goes in the header). */
  issuer: { privateKey: KeyObject; kid: string };
  audience: string;
  nonce: string;
  /** `exp` in seconds since the epoch (default: in 10 minutes). */
  exp?: number;
  /** Carry the checkout as AP2's `checkout_jwt` (default) or as a `checkout` claim (the full checkout with `ap2`). */
  form?: 'checkout_jwt' | 'checkout';
  /** Signs the key-binding JWT with another key than `cnf.jwk`. */
  foreignHolder?: boolean;
  /** Replaces `checkout_hash`. */
  checkoutHash?: string;
}

/** A checkout mandate (SD-JWT+KB) for `checkout` (a checkout answer with `ap2.merchant_authorization`). */
export async function checkoutMandate(checkout: Json, checkoutJwt: string, opts: MandateOptions): Promise<string> {
  const holder = await ES256.generateKeyPair();
  const kbKey = opts.foreignHolder ? (await ES256.generateKeyPair()).privateKey : holder.privateKey;
  const now = Math.floor(Date.now() / 1000);
  const sd = new SDJwtInstance<Json>({
    signer: await ES256.getSigner(opts.issuer.privateKey.export({ format: 'jwk' })),
    signAlg: 'ES256',
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    kbSigner: await ES256.getSigner(kbKey),
    kbSignAlg: 'ES256',
  });
  const claims: Json =
    opts.form === 'checkout'
      ? { vct: 'mandate.checkout.1', checkout }
      : {
          vct: 'mandate.checkout.1',
          checkout_jwt: checkoutJwt,
          checkout_hash: opts.checkoutHash ?? createHash('sha256').update(checkoutJwt).digest('base64url'),
        };
  const issued = await sd.issue(
    { ...claims, iat: now, exp: opts.exp ?? now + 600, cnf: { jwk: holder.publicKey } },
    { _sd: [opts.form === 'checkout' ? 'checkout' : 'checkout_jwt'] } as never,
    { header: { kid: opts.issuer.kid, typ: 'dc+sd-jwt' } },
  );
  return sd.present(issued, undefined, { kb: { payload: { aud: opts.audience, nonce: opts.nonce, iat: now } } });
}

/** `mandate` with its first disclosure's value replaced (the salt and name kept). */
export function tamperDisclosure(mandate: string, value: (v: unknown) => unknown): string {
  const parts = mandate.split('~');
  const [salt, name, v] = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as [
    string,
    string,
    unknown,
  ];
  parts[1] = Buffer.from(JSON.stringify([salt, name, value(v)])).toString('base64url');
  return parts.join('~');
}
