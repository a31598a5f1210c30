/**
 * Signed quotes and receipts (issue 12 §3), checked with `jose` (and `@x402/extensions`' own verifier for the x402
 * offer-receipt extension) against the keys the running API publishes, never with this project's signing code.
 * The key set lives in the database, shared by API processes with different DATA_DIRs (issue 25 §2).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  compactVerify,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import {
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt';
import { MICRO_ITEMS } from '../../src/products/micro';
import { loadConfig, type SigningJwk } from '../../src/config';
import { connectDatabase, type Database } from '../../src/db';
import { KEY_FILE_NAME, newSigningJwk } from '../../src/signing/keys';
import { DatabaseKeyStore, KEY_SET_RECHECK_MS, rotateSigningKeys } from '../../src/signing/keyStore';
import { KeySetSigner, type QuoteFacts } from '../../src/signing/signer';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { payingFetch, paymentRequiredOf, paymentResponseOf, startX402Chain, type X402Chain } from '../helpers/x402';

jest.setTimeout(120_000);

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let chain: X402Chain;
let dataDir: string;
let stack: Stack;
let second: Stack;
/** Databases opened by the key store tests below, dropped at the end. */
const opened: Database[] = [];

beforeAll(async () => {
  chain = await startX402Chain();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-signing-'));
  // Two API stacks started at once on one database, each with its own empty DATA_DIR (issue 25 §2).
  const shared = { ...chain.stackConfig, MONGODB_DB: `test_signing_${randomBytes(4).toString('hex')}` };
  [stack, second] = await Promise.all([startStack({ ...shared, DATA_DIR: dataDir }), startStack(shared)]);
});

afterAll(async () => {
  await second?.stop();
  await stack?.stop();
  await chain?.stop();
  for (const d of opened) {
    await d.db.dropDatabase().catch(() => undefined);
    await d.close();
  }
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
  test('the first start stores one key in the database (no key file in DATA_DIR); the JWKS publishes its public Ed25519 key only', async () => {
    const jwks = await jwksOf(stack);
    expect(() => statSync(path.join(dataDir, KEY_FILE_NAME))).toThrow();
    const stored = await stack.services.db.signingKeys.findOne({});
    expect(stored).toMatchObject({ _id: 'signing', version: 1, imported_kids: [] });
    expect(stored?.keys).toEqual([expect.objectContaining({ kid: jwks.keys[0]?.kid, d: expect.any(String) })]);
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
  test('a second API process with another, empty DATA_DIR on the same database publishes the same key and signs with it', async () => {
    expect(second.config.DATA_DIR).not.toBe(stack.config.DATA_DIR);
    expect(second.config.MONGODB_DB).toBe(stack.config.MONGODB_DB);
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

  test('rotation by `npm run keys:rotate`: both processes use the new key within 5 s, the old kid stays published until retire_after and what it signed still verifies', async () => {
    // The script, as an operator runs it: on another machine (a third empty DATA_DIR), against the same database.
    const root = path.resolve(__dirname, '..', '..');
    const rotatedAt = Date.now();
    const { stdout } = await promisify(execFile)(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [path.join(root, 'scripts', 'rotate-signing-key.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          MONGODB_URI: stack.config.MONGODB_URI,
          MONGODB_DB: stack.config.MONGODB_DB,
          DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-rotate-')),
        },
      },
    );
    const newKid = /new signing key (\S+);/.exec(stdout)?.[1];
    expect(newKid).toEqual(expect.any(String));
    expect(newKid).not.toBe(firstQuote.kid);
    // Both processes see the rotation within KEY_SET_RECHECK_MS (plus a round trip and this loop's 100 ms).
    for (const s of [stack, second]) {
      let kids: (string | undefined)[] = [];
      while (Date.now() - rotatedAt < 15_000) {
        kids = (await jwksOf(s)).keys.map((k) => k.kid);
        if (kids.length === 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(kids).toEqual([firstQuote.kid, newKid]);
    }
    // Measured from before the script started (its own ~2 s of start-up included).
    expect(Date.now() - rotatedAt).toBeLessThan(KEY_SET_RECHECK_MS + 6_000);
    const q = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    expect(decodeProtectedHeader(q.body.jws as string).kid).toBe(newKid);
    const q2 = await second.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    expect(decodeProtectedHeader(q2.body.jws as string).kid).toBe(newKid);
    await verifyQuote(stack, q.body.jws as string);
    // Signed by the old key: still verifiable against the published set.
    await verifyQuote(second, firstQuote.jws);
    await jwtVerify(firstReceipt.jws, createLocalJWKSet(await jwksOf(stack)), { typ: 'receipt+jwt' });
    // The stored receipt does not change with the key.
    expect((await stack.call('GET', `/api/v1/orders/${firstReceipt.orderId}`)).body.receipt.jws).toBe(firstReceipt.jws);
    // The old key's retire_after covers the longest validity of anything it signed.
    const stored = await stack.services.db.signingKeys.findOne({});
    const old = stored?.keys.find((k) => k.kid === firstQuote.kid);
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
      // Nothing is stored (nor a key file written) when the keys come from the environment.
      expect(() => statSync(path.join(env.config.DATA_DIR, KEY_FILE_NAME))).toThrow();
      expect(await env.services.db.signingKeys.countDocuments()).toBe(0);
    } finally {
      await env.stop();
    }
  });
});

describe('the key set in the database (issue 25 §2)', () => {
  const uri = () => process.env.MONGODB_URI ?? '';
  const freshDbName = () => `test_keys_${randomBytes(4).toString('hex')}`;

  /** One API process's signer: its own connection to `dbName`, its own DATA_DIR (empty unless given). */
  async function apiProcess(dbName: string, env: Record<string, string> = {}) {
    const config = loadConfig({
      MONGODB_URI: uri(),
      MONGODB_DB: dbName,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-keys-')),
      ...env,
    });
    const db = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB);
    opened.push(db);
    return { config, db, signer: new KeySetSigner(config, db) };
  }

  const facts = (id: string): QuoteFacts => ({
    quote_id: id,
    service_id: 'automation-wf',
    is_agent: false,
    amount: 1,
    amount_micros: 1_000_000,
    currency: 'USD',
    billing: 'one_time',
    partner_id: null,
    commission: null,
    commission_micros: null,
    terms_version: 'v1',
    catalogue_version: 'v1',
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
  });

  /** A key file as earlier versions wrote it, in a new DATA_DIR, and a quote the "old" API signed with its key. */
  async function legacyDataDir(): Promise<{ dir: string; key: SigningJwk & { kid: string }; jws: string }> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-legacy-'));
    const key = await newSigningJwk();
    writeFileSync(path.join(dir, KEY_FILE_NAME), JSON.stringify({ keys: [key] }), { mode: 0o600 });
    const jws = await new SignJWT({ quote_id: `q_old_${key.kid.slice(0, 6)}` })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'quote+jwt' })
      .setExpirationTime('1h')
      .sign(await importJWK({ kty: 'OKP', crv: 'Ed25519', x: key.x, d: key.d }, 'EdDSA'));
    return { dir, key, jws };
  }

  test('two API processes starting at once on an empty database converge on one key (5 races)', async () => {
    for (let round = 0; round < 5; round++) {
      const dbName = freshDbName();
      const a = await apiProcess(dbName);
      const b = await apiProcess(dbName);
      await Promise.all([a.signer.ready(), b.signer.ready()]);
      const [jwksA, jwksB] = [await a.signer.jwks(), await b.signer.jwks()];
      expect(jwksA.keys).toHaveLength(1);
      expect(jwksB).toEqual(jwksA);
      expect(await a.db.signingKeys.findOne({})).toMatchObject({ version: 1, keys: [{ kid: jwksA.keys[0]?.kid }] });
      // A quote signed by process A verifies with process B's JWKS.
      const jws = await a.signer.signQuote(facts(`q_race_${round}`));
      await jwtVerify(jws, createLocalJWKSet(jwksB), { typ: 'quote+jwt', algorithms: ['EdDSA'] });
    }
  });

  test('a key file of an earlier version is imported once: into an empty database it keeps signing; into an existing set it is published until retire_after and what it signed verifies', async () => {
    const dbName = freshDbName();
    const first = await legacyDataDir();
    const a = await apiProcess(dbName, { DATA_DIR: first.dir });
    await a.signer.ready();
    expect((await a.signer.jwks()).keys.map((k) => k.kid)).toEqual([first.key.kid]);
    expect(decodeProtectedHeader(await a.signer.signQuote(facts('q_imp_1'))).kid).toBe(first.key.kid);
    await jwtVerify(first.jws, createLocalJWKSet(await a.signer.jwks()));

    // Another machine's file with another key: published (never signing), so its quote still verifies.
    const other = await legacyDataDir();
    const b = await apiProcess(dbName, { DATA_DIR: other.dir });
    await b.signer.ready();
    const jwksB = await b.signer.jwks();
    expect(jwksB.keys.map((k) => k.kid)).toEqual([other.key.kid, first.key.kid]);
    await jwtVerify(other.jws, createLocalJWKSet(jwksB));
    await jwtVerify(first.jws, createLocalJWKSet(jwksB));
    expect(decodeProtectedHeader(await b.signer.signQuote(facts('q_imp_2'))).kid).toBe(first.key.kid);
    const stored = await b.db.signingKeys.findOne({});
    const imported = stored?.keys.find((k) => k.kid === other.key.kid);
    expect(imported).not.toHaveProperty('d');
    expect(Date.parse(imported?.retire_after ?? '')).toBeGreaterThanOrEqual(
      Date.now() + b.config.RECEIPT_TTL_SECONDS * 1000 - 60_000,
    );
    expect(stored?.imported_kids.sort()).toEqual([first.key.kid, other.key.kid].sort());

    // Once retired and dropped by a rotation, a restart on that data folder does not bring it back.
    const after = new Date(Date.parse(imported?.retire_after ?? '') + 1000);
    await new DatabaseKeyStore(b.db, b.config).rotate({ now: after });
    const restarted = await apiProcess(dbName, { DATA_DIR: other.dir });
    await restarted.signer.ready();
    expect((await restarted.signer.jwks()).keys.map((k) => k.kid)).not.toContain(other.key.kid);
  });

  test('SIGNING_KEYS_ENCRYPTION_KEY seals the private keys at rest (AES-256-GCM); without it or with another one the set does not load', async () => {
    const dbName = freshDbName();
    const secret = randomBytes(32).toString('hex');
    const plain = await apiProcess(dbName);
    await plain.signer.ready();
    const clearD = (await plain.db.signingKeys.findOne({}))?.keys[0]?.d;
    expect(clearD).toEqual(expect.any(String));

    // The next start with the key seals what it finds in clear.
    const sealed = await apiProcess(dbName, { SIGNING_KEYS_ENCRYPTION_KEY: secret });
    await sealed.signer.ready();
    const doc = await sealed.db.signingKeys.findOne({});
    expect(doc?.keys[0]).not.toHaveProperty('d');
    expect(doc?.keys[0]?.d_enc).toMatch(/^v1\./);
    expect(JSON.stringify(doc)).not.toContain(clearD);
    const jwks = await sealed.signer.jwks();
    await jwtVerify(await sealed.signer.signQuote(facts('q_sealed')), createLocalJWKSet(jwks));

    const without = await apiProcess(dbName);
    await expect(without.signer.ready()).rejects.toThrow(/sealed; set SIGNING_KEYS_ENCRYPTION_KEY/);
    const wrong = await apiProcess(dbName, { SIGNING_KEYS_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    await expect(wrong.signer.ready()).rejects.toThrow(/does not open/);
    // A rotation without the key would add a key in clear to a sealed set: refused.
    await expect(rotateSigningKeys(without.config, without.db)).rejects.toThrow(/sealed/);

    const { kid } = await rotateSigningKeys(sealed.config, sealed.db);
    const rotated = await sealed.db.signingKeys.findOne({});
    expect(rotated?.keys.every((k) => !k.d && k.d_enc)).toBe(true);
    const restarted = await apiProcess(dbName, { SIGNING_KEYS_ENCRYPTION_KEY: secret });
    const q = await restarted.signer.signQuote(facts('q_sealed_2'));
    expect(decodeProtectedHeader(q).kid).toBe(kid);
    await jwtVerify(q, createLocalJWKSet(await restarted.signer.jwks()));
  });
});
