import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { signingOperations as ops } from './schema';

/** How long verifiers may cache the key set (a kid they do not know makes jose's remote JWKS refetch at once). */
const KEYS_MAX_AGE_SECONDS = 300;

/**
 * The public keys of signed quotes and receipts (issue 12 §3):
 * - `GET /.well-known/jwks.json`: JWKS (RFC 7517), Ed25519 keys as `kty` OKP / `crv` Ed25519 (RFC 8037), each with
 *   `kid`, `alg` EdDSA, `use` sig: the signing key and every retired key until its `retire_after`.
 * - `GET /.well-known/did.json`: the same keys as this service's did:web document, which x402 `offer-receipt`
 *   verifiers resolve from the DID URL in the `kid` of offers and receipts.
 * Errors: 503 signing_unavailable when the keys cannot be loaded. Registered from the definitions in ./schema.ts.
 */
export function signingRoutes(deps: AppDeps): OperationRouter {
  return new OperationRouter(deps)
    .on(ops.jwks, async (ctx) => {
      ctx.body = await deps.signing.jwks();
      ctx.set('Cache-Control', `public, max-age=${KEYS_MAX_AGE_SECONDS}`);
    })
    .on(ops.did, async (ctx) => {
      ctx.body = await deps.signing.didDocument();
      ctx.set('Cache-Control', `public, max-age=${KEYS_MAX_AGE_SECONDS}`);
    });
}
