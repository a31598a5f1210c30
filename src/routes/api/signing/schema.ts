/**
 * The public keys of signed quotes and receipts (issue 12 §3). Schemas and operation definitions
 * (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';

/** A public Ed25519 JWK (RFC 8037). */
const PublicJwk = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().meta({ description: 'Public key, base64url' }),
    kid: z.string(),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .meta({ id: 'PublicJwk' });
/** GET /.well-known/jwks.json (issue 12 §3). */
const Jwks = z.object({ keys: z.array(PublicJwk) }).meta({ id: 'Jwks' });
/** GET /.well-known/did.json: did:web document with JsonWebKey2020 verification methods. */
const DidDocument = z
  .object({
    '@context': z.array(z.string()),
    id: z.string().meta({ description: 'did:web:<host>' }),
    verificationMethod: z.array(
      z.object({
        id: z.string().meta({ description: '<did>#<kid>' }),
        type: z.literal('JsonWebKey2020'),
        controller: z.string(),
        publicKeyJwk: z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string() }),
      }),
    ),
    assertionMethod: z.array(z.string()),
  })
  .meta({ id: 'DidDocument' });

/** The signing-key operations. */
export const signingOperations = {
  jwks: defineOperation({
    id: 'getJwks',
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'Public keys of signed quotes and receipts (JWKS, RFC 7517)',
    description:
      'Ed25519 keys (`kty` OKP, `crv` Ed25519, `alg` EdDSA): the key signing now and every retired key until its retire_after, which is at least the validity of anything it signed (issue 12 §3).',
    auth: 'none',
    responses: { '200': { description: 'JSON Web Key Set', json: Jwks } },
    errors: { signing_unavailable: 'Signing keys unavailable' },
  }),
  did: defineOperation({
    id: 'getDidDocument',
    method: 'get',
    path: '/.well-known/did.json',
    summary:
      "This service's did:web document: the same keys, for x402 offer-receipt verifiers (kid = did:web:<host>#<kid>)",
    auth: 'none',
    responses: { '200': { description: 'DID document', json: DidDocument } },
    errors: { signing_unavailable: 'Signing keys unavailable' },
  }),
};
