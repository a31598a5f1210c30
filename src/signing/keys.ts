/**
 * The Ed25519 key set that signs quotes, receipts and x402 offers / receipts (issue 12 §3): importing, choosing the
 * signing key, publishing, rotating (pure functions; ./keyStore.ts stores the set).
 *
 * Where keys live: `SIGNING_KEYS` (JSON) when set; otherwise the database (collection `signing_keys`, issue 25 §2,
 * ./keyStore.ts), created by the first API start, into which a key file `DATA_DIR/signing-keys.json` left by earlier
 * versions is imported once.
 *
 * Rotation ({@link rotatedKeySet}) appends a new key, which supersedes the older keys; each older key gets a
 * `retire_after` and stays published until then: at least the longest validity of anything it signed (quotes:
 * QUOTE_TTL_SECONDS, receipts: RECEIPT_TTL_SECONDS). Keys past `retire_after` are no longer published, and the next
 * rotation drops them from the set.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { SigningKeySetSchema, type SigningJwk } from '../config';

/** Name of the key file in DATA_DIR that earlier versions kept the keys in (imported once, issue 25 §2). */
export const KEY_FILE_NAME = 'signing-keys.json';

/** One key of the set, imported. */
export interface SigningKey {
  kid: string;
  /** Public JWK as published (kty, crv, x, kid, alg, use). */
  publicJwk: JWK;
  /** Present when the key has its private part. */
  privateKey: CryptoKey | null;
  /** Signs only from then on (published at once). */
  notBefore: Date | null;
  retireAfter: Date | null;
}

/** The imported key set, in file order. */
export interface KeyRing {
  keys: SigningKey[];
}

/**
 * The key that signs at `now`: the last key in the set with a private part, `not_before` passed and `retire_after`
 * ahead (or absent); null when there is none. A newer key thus supersedes the older ones from its `not_before` on.
 */
export function signingKeyAt(ring: KeyRing, now: Date): (SigningKey & { privateKey: CryptoKey }) | null {
  for (let i = ring.keys.length - 1; i >= 0; i--) {
    const k = ring.keys[i];
    const t = now.getTime();
    if (
      k?.privateKey &&
      (!k.notBefore || k.notBefore.getTime() <= t) &&
      (!k.retireAfter || k.retireAfter.getTime() > t)
    ) {
      return k as SigningKey & { privateKey: CryptoKey };
    }
  }
  return null;
}

/** Keys published at `now`: every key without `retire_after`, or whose `retire_after` is still ahead. */
export function publishedKeysAt(ring: KeyRing, now: Date): SigningKey[] {
  return ring.keys.filter((k) => !k.retireAfter || k.retireAfter.getTime() > now.getTime());
}

/** A new Ed25519 private JWK with `kid` (RFC 7638 thumbprint) and `created_at`. */
export async function newSigningJwk(now = new Date()): Promise<SigningJwk & { kid: string }> {
  const { privateKey } = await generateKeyPair('Ed25519', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk.x ?? '' });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x ?? '', d: jwk.d ?? '', kid, created_at: now.toISOString() };
}

/**
 * Imports a parsed key set ({@link SigningKeySetSchema}).
 * @throws Error when no key can ever sign, two keys share a kid, or a key is not a valid Ed25519 key.
 */
export async function importKeyRing(jwks: SigningJwk[]): Promise<KeyRing> {
  const keys: SigningKey[] = [];
  for (const k of jwks) {
    const kid = k.kid ?? (await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: k.x }));
    const publicJwk: JWK = { kty: 'OKP', crv: 'Ed25519', x: k.x, kid, alg: 'EdDSA', use: 'sig' };
    const retireAfter = k.retire_after ? new Date(k.retire_after) : null;
    const privateKey = k.d
      ? ((await importJWK({ kty: 'OKP', crv: 'Ed25519', x: k.x, d: k.d }, 'EdDSA')) as CryptoKey)
      : null;
    // A public key that does not match its private part would publish a key nothing verifies against.
    if (privateKey) await importJWK(publicJwk, 'EdDSA');
    keys.push({ kid, publicJwk, privateKey, notBefore: k.not_before ? new Date(k.not_before) : null, retireAfter });
  }
  if (!keys.some((k) => k.privateKey)) throw new Error('signing keys: no key has a private part ("d")');
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new Error('signing keys: two keys share a kid');
  return { keys };
}

/**
 * The key set after a rotation (issue 12 §3, kept by issue 25 §2): `fresh` is appended, signing from
 * `now + activateAfterSeconds` (as `not_before` when that is later than now); every older key that can sign (it has a
 * private part, `d` or `d_enc`) and has no `retire_after` gets `retire_after` = activation + `retainSeconds`
 * (published that long: at least the longest validity of anything it signs until the new key takes over); keys whose
 * `retire_after` has passed are dropped. Pure: the caller stores the result.
 */
export function rotatedKeySet<K extends { d?: string; d_enc?: string; not_before?: string; retire_after?: string }>(
  current: K[],
  fresh: K,
  retainSeconds: number,
  opts: { now: Date; activateAfterSeconds?: number },
): K[] {
  const { now } = opts;
  const activation = new Date(now.getTime() + (opts.activateAfterSeconds ?? 0) * 1000);
  const retireAfter = new Date(activation.getTime() + retainSeconds * 1000).toISOString();
  const kept = current
    .filter((k) => !k.retire_after || new Date(k.retire_after).getTime() > now.getTime())
    .map((k) => (k.retire_after || !(k.d || k.d_enc) ? k : { ...k, retire_after: retireAfter }));
  return [...kept, { ...fresh, ...(opts.activateAfterSeconds ? { not_before: activation.toISOString() } : {}) }];
}

/**
 * Reads a key file written by earlier versions (`DATA_DIR/signing-keys.json`, `{"keys": [...]}`); null when absent.
 * Since issue 25 §2 the database holds the keys and this file is only imported from.
 * @throws Error when the file exists but is not a valid key set (its path and the zod message).
 */
export async function readKeyFile(dataDir: string): Promise<SigningJwk[] | null> {
  const file = path.join(dataDir, KEY_FILE_NAME);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${file}: not valid JSON`);
  }
  const parsed = SigningKeySetSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'keys'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}
