/**
 * Signed quotes and receipts (issue 12 §3), checked with `jose` (and `@x402/extensions`' own verifier for the x402
 * offer-receipt extension) against the keys the running API publishes, never with this project's signing code.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  compactVerify,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import {
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt';
import { MICRO_ITEMS } from '../../src/domain/micro';
import { loadConfig } from '../../src/config';
import { KEY_FILE_NAME, rotateKeyFile } from '../../src/signing/keys';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { payingFetch, paymentRequiredOf, paymentResponseOf, startX402Chain, type X402Chain } from '../helpers/x402';

jest.setTimeout(120_000);

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let chain: X402Chain;
let dataDir: string;
let stack: Stack;
let second: Stack | undefined;

beforeAll(async () => {
  chain = await startX402Chain();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-signing-'));
  stack = await startStack({ ...chain.stackConfig, DATA_DIR: dataDir });
});

afterAll(async () => {
  await second?.stop();
  await stack?.stop();
  await chain?.stop();
});

/** The JWKS a stack publishes (checked against the OpenAPI document by `call`). */
async function jwksOf(s: Stack): Promise<JSONWebKeySet> {
  const res = await s.call('GET', '/.well-known/jwks.json');
  expect(res.status).toBe(200);
  return res.body as JSONWebKeySet;
}

/** Verifies a quote JWS against a stack's published keys; returns the claims. */
async function verifyQuote(s: Stack, jws: string, keys?: JSONWebKeySet) {
  const key = keys ? createLocalJWKSet(keys) : createRemoteJWKSet(new URL(`${s.url}/.well-known/jwks.json`));
  return jwtVerify(jws, key, { issuer: stack.config.PUBLIC_BASE_URL, typ: 'quote+jwt', algorithms: ['EdDSA'] });
}

/** The same JWS with one claim changed, the signature kept. */
function tamper(jws: string, change: Record<string, unknown>): string {
  const [h, p, sig] = jws.split('.');
  const payload = {
    ...(JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>),
    ...change,
  };
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
}

let firstQuote: { jws: string; kid: string; quote_id: string };
let firstReceipt: { jws: string; kid: string; orderId: string };

describe('keys', () => {
  test('the first start creates the key file (0600) in DATA_DIR; the JWKS publishes its public Ed25519 key only', async () => {
    const jwks = await jwksOf(stack);
    const file = path.join(dataDir, KEY_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      kid: expect.any(String),
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(jwks.keys[0]).not.toHaveProperty('d');
  });

  test('SIGNING_KEYS is parsed by zod: a key without a private part cannot be the only key, bad JSON is refused', async () => {
    const { privateKey } = await generateKeyPair('Ed25519', { extractable: true });
    const jwk = await exportJWK(privateKey);
    expect(loadConfig({ SIGNING_KEYS: JSON.stringify({ keys: [jwk] }) }).SIGNING_KEYS).toHaveLength(1);
    expect(loadConfig({ SIGNING_KEYS: JSON.stringify(jwk) }).SIGNING_KEYS).toHaveLength(1);
    expect(() => loadConfig({ SIGNING_KEYS: JSON.stringify({ ...jwk, d: undefined }) })).toThrow(/private part/);
    expect(() => loadConfig({ SIGNING_KEYS: '{not json' })).toThrow(/not valid JSON/);
    expect(() => loadConfig({ SIGNING_KEYS: JSON.stringify({ ...jwk, crv: 'P-256' }) })).toThrow();
  });
});

describe('signed quotes', () => {
  test('POST /api/v1/quote answers a JWS that jose verifies against the JWKS; its claims are the quote', async () => {
    const res = await stack.call('POST', '/api/v1/quote', {
      service_id: 'automation-wf',
      partner_id: 'partner-signing',
    });
    expect(res.status).toBe(201);
    const quote = res.body as Record<string, unknown> & {
      jws: string;
      quote_id: string;
      expires_at: string;
      created_at: string;
    };
    const { payload, protectedHeader } = await verifyQuote(stack, quote.jws);
    const jwks = await jwksOf(stack);
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: jwks.keys[0]?.kid, typ: 'quote+jwt' });
    const { jws: _jws, ...facts } = quote;
    expect(payload).toEqual({
      ...facts,
      iss: stack.config.PUBLIC_BASE_URL,
      sub: quote.quote_id,
      jti: quote.quote_id,
      iat: Math.floor(Date.parse(quote.created_at) / 1000),
      exp: Math.floor(Date.parse(quote.expires_at) / 1000),
    });
    expect(payload).toMatchObject({
      amount: 69,
      amount_micros: 69_000_000,
      currency: 'USD',
      service_id: 'automation-wf',
      partner_id: 'partner-signing',
    });
    expect(payload.terms_version).toEqual(expect.any(String));
    expect(payload.catalogue_version).toEqual(expect.any(String));
    firstQuote = { jws: quote.jws, kid: protectedHeader.kid ?? '', quote_id: quote.quote_id };

    // GET shows the same quote with the same signature (Ed25519 is deterministic, the claims come from the stored quote).
    const again = await stack.call('GET', `/api/v1/quotes/${quote.quote_id}`);
    expect(again.status).toBe(200);
    expect(again.body.jws).toBe(quote.jws);
  });

  test('a tampered quote, a changed signature or another key fails verification', async () => {
    const keys = createLocalJWKSet(await jwksOf(stack));
    await expect(
      jwtVerify(tamper(firstQuote.jws, { amount: 1, amount_micros: 1_000_000 }), keys),
    ).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    const [h, p, sig] = firstQuote.jws.split('.');
    const flipped = `${sig?.startsWith('A') ? 'B' : 'A'}${sig?.slice(1)}`;
    await expect(jwtVerify(`${h}.${p}.${flipped}`, keys)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    const { publicKey } = await generateKeyPair('Ed25519');
    await expect(jwtVerify(firstQuote.jws, publicKey)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    // A receipt-typed check refuses a quote (explicit typing, RFC 8725 §3.11).
    await expect(jwtVerify(firstQuote.jws, keys, { typ: 'receipt+jwt' })).rejects.toMatchObject({
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
    });
  });
});

describe('signed delivery receipts', () => {
  test('a delivered order carries a receipt: verified with jose, the payment and every deliverable sha256 in it, the same on every read', async () => {
    const key = await fundedAgent(stack, 'agent-signing', 100);
    const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    const created = await stack.call('POST', '/api/v1/orders', {
      quote_id: quote.body.quote_id,
      agent_id: 'agent-signing',
      inputs: automationInputs,
    });
    expect(created.status).toBe(201);
    const id = created.body.order_id as string;
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.receipt).toBeNull();
    const paid = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      {},
      { authorization: `Bearer ${key}` },
    );
    expect(paid.status).toBe(200);
    const order = await waitForOrder(stack, id, (o) => o.status === 'delivered' && o.receipt !== null);
    const receipt = order.receipt as { jws: string; kid: string; issued_at: string; expires_at: string };

    const { payload, protectedHeader } = await jwtVerify(
      receipt.jws,
      createRemoteJWKSet(new URL(`${stack.url}/.well-known/jwks.json`)),
      {
        issuer: stack.config.PUBLIC_BASE_URL,
        subject: id,
        typ: 'receipt+jwt',
        algorithms: ['EdDSA'],
      },
    );
    expect(protectedHeader.kid).toBe(receipt.kid);
    expect(payload).toMatchObject({
      order_id: id,
      service_id: 'automation-wf',
      quote_id: quote.body.quote_id,
      amount: 69,
      amount_micros: 69_000_000,
      currency: 'USD',
      payment: { rail: 'agent_wallet', transaction_id: order.payment.transaction_id, paid_at: order.payment.paid_at },
      iat: Date.parse(receipt.issued_at) / 1000,
      exp: Date.parse(receipt.expires_at) / 1000,
    });
    // Every deliverable, by name and sha256, and the sha256 is that of the bytes served.
    const deliverables = order.deliverables as { name: string; sha256: string; size: number; media_type: string }[];
    expect(deliverables.length).toBeGreaterThan(0);
    expect(payload.deliverables).toEqual(
      deliverables.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size, media_type: d.media_type })),
    );
    for (const d of deliverables) {
      const bytes = Buffer.from(
        await (
          await fetch(`${stack.url}/api/v1/orders/${id}/deliverables/${encodeURIComponent(d.name)}`)
        ).arrayBuffer(),
      );
      expect(sha256(bytes)).toBe(d.sha256);
    }

    // Stable: every read (and another process, below) shows the same receipt.
    for (let i = 0; i < 3; i++) expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.receipt).toEqual(receipt);
    // The accepted order keeps it.
    const accepted = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'accept' },
      { authorization: `Bearer ${key}` },
    );
    expect(accepted.status).toBe(200);
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.receipt).toEqual(receipt);

    // Tampering with any deliverable's hash breaks the signature.
    const forged = tamper(receipt.jws, {
      deliverables: [{ ...(payload.deliverables as object[])[0], sha256: '0'.repeat(64) }],
    });
    await expect(jwtVerify(forged, createLocalJWKSet(await jwksOf(stack)))).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    firstReceipt = { jws: receipt.jws, kid: receipt.kid, orderId: id };
  });
});

describe('x402 offer-receipt extension (@x402/extensions)', () => {
  const item = [...MICRO_ITEMS].sort((a, b) => a.price_micros - b.price_micros)[0]!;

  test('the 402 signs an offer per requirement; the settled purchase returns a signed receipt in PAYMENT-RESPONSE', async () => {
    const jwks = await jwksOf(stack);
    const viaJwks = createLocalJWKSet(jwks);
    // The x402 JWS name their key by DID URL (did:web:<host>#<kid>); the fragment is the JWKS kid.
    const byFragment = (h: { kid?: string; alg?: string }) => viaJwks({ ...h, kid: h.kid?.split('#')[1] });
    const did = `did:web:${encodeURIComponent(new URL(stack.config.PUBLIC_BASE_URL).host)}`;

    const bare = await fetch(`${stack.url}/x402/item/${item.id}`);
    expect(bare.status).toBe(402);
    const required = paymentRequiredOf(bare);
    const ext = required.extensions?.['offer-receipt'] as { info: { offers: JWSSignedOffer[] } };
    expect(ext.info.offers).toHaveLength(required.accepts.length);
    const offer = ext.info.offers[0]!;
    expect(offer).toMatchObject({ format: 'jws', acceptIndex: 0 });
    expect(decodeProtectedHeader(offer.signature)).toEqual({ alg: 'EdDSA', kid: `${did}#${jwks.keys[0]?.kid}` });
    const offerPayload = JSON.parse(
      new TextDecoder().decode((await compactVerify(offer.signature, byFragment)).payload),
    ) as Record<string, unknown>;
    const accept = required.accepts[0]!;
    expect(offerPayload).toMatchObject({
      version: 1,
      resourceUrl: required.resource.url,
      scheme: 'exact',
      network: accept.network,
      asset: accept.asset,
      payTo: accept.payTo,
      amount: String(item.price_micros),
    });
    expect(offerPayload.validUntil).toBeGreaterThan(Date.now() / 1000);
    // The package's own verifier resolves did:web from the API's /.well-known/did.json.
    expect(await verifyOfferSignatureJWS(offer)).toEqual(offerPayload);

    const res = await payingFetch()(`${stack.url}/x402/item/${item.id}`);
    expect(res.status).toBe(200);
    const settle = paymentResponseOf(res);
    const receipt = (settle.extensions?.['offer-receipt'] as { info: { receipt: JWSSignedReceipt } }).info.receipt;
    expect(receipt.format).toBe('jws');
    const { payload } = await compactVerify(receipt.signature, byFragment);
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    expect(claims).toEqual({
      version: 1,
      network: settle.network,
      resourceUrl: required.resource.url,
      payer: settle.payer,
      issuedAt: expect.any(Number),
      transaction: settle.transaction,
    });
    expect(await verifyReceiptSignatureJWS(receipt)).toEqual(claims);
    const body = (await res.json()) as { payment: { transaction: string } };
    expect(body.payment.transaction).toBe(settle.transaction);
    // A tampered receipt fails with both verifiers.
    const forged = tamper(receipt.signature, { payer: '0x0000000000000000000000000000000000000001' });
    await expect(compactVerify(forged, byFragment)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    await expect(verifyReceiptSignatureJWS({ format: 'jws', signature: forged })).rejects.toThrow();
  });
});

describe('several API processes and rotation', () => {
  test('a second API process on the same data folder publishes the same key and signs with it', async () => {
    second = await startStack({ ...chain.stackConfig, DATA_DIR: dataDir });
    const keysA = await jwksOf(stack);
    const keysB = await jwksOf(second);
    expect(keysB).toEqual(keysA);
    const q = await second.call('POST', '/api/v1/quote', { service_id: 'task-worker' });
    expect(q.status).toBe(201);
    const verified = await jwtVerify(q.body.jws as string, createLocalJWKSet(keysA), {
      issuer: second.config.PUBLIC_BASE_URL,
      typ: 'quote+jwt',
    });
    expect(verified.protectedHeader.kid).toBe(firstQuote.kid);
    // What the first process signed verifies against the second's keys.
    await verifyQuote(second, firstQuote.jws);
    await jwtVerify(firstReceipt.jws, createRemoteJWKSet(new URL(`${second.url}/.well-known/jwks.json`)), {
      typ: 'receipt+jwt',
    });
  });

  test('rotation: the new key signs, the old kid stays published until retire_after and what it signed still verifies', async () => {
    const retain = stack.config.RECEIPT_TTL_SECONDS;
    const { kid: newKid } = await rotateKeyFile(dataDir, retain);
    expect(newKid).not.toBe(firstQuote.kid);
    // Both processes re-read the key file within seconds.
    for (const s of [stack, second!]) {
      const deadline = Date.now() + 15_000;
      let kids: (string | undefined)[] = [];
      while (Date.now() < deadline) {
        kids = (await jwksOf(s)).keys.map((k) => k.kid);
        if (kids.length === 2) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(kids).toEqual([firstQuote.kid, newKid]);
    }
    const q = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    expect(decodeProtectedHeader(q.body.jws as string).kid).toBe(newKid);
    const q2 = await second!.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    expect(decodeProtectedHeader(q2.body.jws as string).kid).toBe(newKid);
    await verifyQuote(stack, q.body.jws as string);
    // Signed by the old key: still verifiable against the published set.
    await verifyQuote(second!, firstQuote.jws);
    await jwtVerify(firstReceipt.jws, createLocalJWKSet(await jwksOf(stack)), { typ: 'receipt+jwt' });
    // The stored receipt does not change with the key.
    expect((await stack.call('GET', `/api/v1/orders/${firstReceipt.orderId}`)).body.receipt.jws).toBe(firstReceipt.jws);
    // The old key's retire_after covers the longest validity of anything it signed.
    const file = JSON.parse(readFileSync(path.join(dataDir, KEY_FILE_NAME), 'utf8')) as {
      keys: { kid: string; retire_after?: string }[];
    };
    const old = file.keys.find((k) => k.kid === firstQuote.kid);
    expect(Date.parse(old?.retire_after ?? '')).toBeGreaterThanOrEqual(
      (decodeJwt(firstReceipt.jws) as JWTPayload).exp! * 1000,
    );
  });

  test('SIGNING_KEYS from the environment: a retired key past retire_after is not published, a key before not_before is published but does not sign', async () => {
    const key = async (extra: Record<string, string> = {}) => {
      const { privateKey } = await generateKeyPair('Ed25519', { extractable: true });
      return { ...(await exportJWK(privateKey)), ...extra };
    };
    const expired = await key({ kid: 'expired', retire_after: new Date(Date.now() - 1000).toISOString() });
    const current = await key({ kid: 'current', retire_after: new Date(Date.now() + 3600_000).toISOString() });
    const next = await key({ kid: 'next', not_before: new Date(Date.now() + 3600_000).toISOString() });
    const env = await startStack({ SIGNING_KEYS: JSON.stringify({ keys: [expired, current, next] }) });
    try {
      const jwks = await jwksOf(env);
      expect(jwks.keys.map((k) => k.kid)).toEqual(['current', 'next']);
      const q = await env.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
      const { protectedHeader } = await jwtVerify(q.body.jws as string, createLocalJWKSet(jwks), {
        issuer: env.config.PUBLIC_BASE_URL,
        typ: 'quote+jwt',
      });
      expect(protectedHeader.kid).toBe('current');
      // No key file is written when the keys come from the environment.
      expect(() => statSync(path.join(env.config.DATA_DIR, KEY_FILE_NAME))).toThrow();
    } finally {
      await env.stop();
    }
  });
});
