/**
 * src/ucp/ap2.ts without servers: the merchant authorization is a detached JWS over the JCS form of the checkout
 * (ap2-mandates.md, "Business Authorization"), so any serialization of the same checkout verifies and any change to
 * it does not; `sameTerms` compares what a mandate binds (id, currency, line items, totals) and nothing else.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { compactVerify, exportJWK } from 'jose';
import { merchantAuthorizationPayload, sameTerms, signMerchantAuthorization } from '../../src/ucp/ap2';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const signer = { kid: 'k1', sign: (data: Uint8Array) => Promise.resolve(sign(null, data, privateKey)) };

const checkout = {
  ucp: { version: '2026-08-25', status: 'success' },
  id: 'cs_1',
  status: 'ready_for_complete',
  currency: 'USD',
  line_items: [{ id: 'li_a', item: { id: 'automation-wf', title: 'Workflow', price: 6900 }, quantity: 1 }],
  totals: [
    { type: 'subtotal', amount: 6900 },
    { type: 'total', amount: 6900 },
  ],
};

/** Reattaches the payload of `checkout` to its detached JWS and verifies it with the public key. */
async function verifies(auth: string, c: Record<string, unknown>): Promise<boolean> {
  const [header, empty, signature] = auth.split('.');
  expect(empty).toBe('');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1' };
  try {
    await compactVerify(`${header}.${merchantAuthorizationPayload(c)}.${signature}`, jwk as never);
    return true;
  } catch {
    return false;
  }
}

test('the merchant authorization is <header>..<signature>, EdDSA with the kid, over the checkout without ap2', async () => {
  const auth = await signMerchantAuthorization(checkout, signer);
  expect(auth).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
  expect(JSON.parse(Buffer.from(auth.split('.')[0] as string, 'base64url').toString())).toEqual({
    alg: 'EdDSA',
    kid: 'k1',
  });
  // JCS: member order does not matter, and the ap2 member is outside the signature.
  const reordered = Object.fromEntries(Object.entries(checkout).reverse());
  expect(await verifies(auth, { ...reordered, ap2: { merchant_authorization: auth } })).toBe(true);
  expect(await verifies(auth, { ...checkout, totals: [{ type: 'total', amount: 1 }] })).toBe(false);
  expect(await verifies(auth, { ...checkout, id: 'cs_2' })).toBe(false);
});

test('sameTerms: status and messages may change, id, currency, line items and totals may not', () => {
  expect(sameTerms(checkout, { ...checkout, status: 'completed', messages: [{ code: 'x' }] })).toBe(true);
  expect(sameTerms(checkout, { ...checkout, id: 'cs_2' })).toBe(false);
  expect(sameTerms(checkout, { ...checkout, currency: 'EUR' })).toBe(false);
  expect(sameTerms(checkout, { ...checkout, totals: [{ type: 'total', amount: 6901 }] })).toBe(false);
  const line = { ...checkout.line_items[0], quantity: 2 };
  expect(sameTerms(checkout, { ...checkout, line_items: [line] })).toBe(false);
});
