/**
 * Standard Webhooks 1.0 signing: `webhook-signature: v1,<base64 HMAC-SHA256>` over `"{id}.{timestamp}.{body}"`,
 * keyed with the base64-decoded part of a `whsec_<base64>` secret. Several space-separated signatures let a receiver
 * accept either secret during a rotation overlap.
 *
 * Source: ../shared/reference/api-conventions.md ("Webhooks: the Standard Webhooks specification 1.0"); the tests
 * verify these signatures with the `standardwebhooks` package, an independent implementation.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of signing secrets. */
export const SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes (the spec allows 24 to 64); `key` gives those bytes
 * instead (a retried registration's, derived from its Idempotency-Key claim).
 */
export function newSigningSecret(key: Buffer = randomBytes(32)): string {
  return SECRET_PREFIX + key.toString('base64');
}

/** The key bytes of a `whsec_` secret. @throws TypeError when the secret is not `whsec_<base64>`. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError('webhook secret must start with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/**
 * The `webhook-signature` header value: one `v1,<base64>` per secret, space-separated.
 * `timestamp` is unix seconds; `body` the exact bytes sent.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', secretKey(s)).update(content).digest('base64')}`).join(' ');
}
