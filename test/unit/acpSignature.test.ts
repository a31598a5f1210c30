/** ACP request signatures (src/http/acpSignature.ts): HS256, EdDSA and ES256 keys; tampering and staleness refused. */
import { generateKeyPairSync } from 'node:crypto';
import { ProblemError } from '../../src/errors';
import {
  acpSignedContent,
  checkSigningKey,
  signAcpRequest,
  verifyAcpSignature,
  type AcpSigningKey,
} from '../../src/http/acpSignature';

const body = { line_items: [{ id: 'automation-wf' }], currency: 'usd', capabilities: {} };
const now = new Date('2026-12-02T10:00:00Z');
const ts = now.toISOString();

function pair(alg: 'EdDSA' | 'ES256'): { priv: AcpSigningKey; pub: AcpSigningKey } {
  const { privateKey, publicKey } =
    alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    priv: { alg, jwk: privateKey.export({ format: 'jwk' }) },
    pub: { alg, jwk: publicKey.export({ format: 'jwk' }) },
  };
}

const code = (f: () => void): string => {
  try {
    f();
  } catch (err) {
    if (err instanceof ProblemError) return `${err.status} ${err.code}`;
    throw err;
  }
  return 'ok';
};

test('the signed content is the timestamp and the RFC 8785 form of the body', () => {
  expect(acpSignedContent(ts, { b: 1, a: [true, 'x'] })).toBe(`${ts}.{"a":[true,"x"],"b":1}`);
  expect(acpSignedContent(ts, undefined)).toBe(`${ts}.`);
});

test.each([
  [
    'HS256',
    { alg: 'HS256', secret: 's'.repeat(32) } as AcpSigningKey,
    { alg: 'HS256', secret: 's'.repeat(32) } as AcpSigningKey,
  ],
  ['EdDSA', pair('EdDSA').priv, null],
  ['ES256', pair('ES256').priv, null],
] as const)(
  '%s: a signed request verifies; a tampered body, a stale or missing timestamp do not',
  (_alg, signer, verifier) => {
    const key = verifier ?? ({ alg: signer.alg, jwk: publicOf(signer) } as AcpSigningKey);
    const signature = signAcpRequest(signer, ts, body);
    expect(code(() => verifyAcpSignature(key, { signature, timestamp: ts }, body, now))).toBe('ok');
    // Key order and whitespace do not matter (canonical JSON); a changed value does.
    const reordered = JSON.parse(JSON.stringify({ capabilities: {}, currency: 'usd', line_items: body.line_items }));
    expect(code(() => verifyAcpSignature(key, { signature, timestamp: ts }, reordered, now))).toBe('ok');
    expect(code(() => verifyAcpSignature(key, { signature, timestamp: ts }, { ...body, currency: 'eur' }, now))).toBe(
      '401 invalid_signature',
    );
    const late = new Date(now.getTime() + 301_000);
    expect(code(() => verifyAcpSignature(key, { signature, timestamp: ts }, body, late))).toBe('401 invalid_signature');
    expect(code(() => verifyAcpSignature(key, { signature }, body, now))).toBe('401 invalid_signature');
    expect(code(() => verifyAcpSignature(key, { timestamp: ts }, body, now))).toBe('401 invalid_signature');
    // Another timestamp under the same signature.
    const other = new Date(now.getTime() + 1000).toISOString();
    expect(code(() => verifyAcpSignature(key, { signature, timestamp: other }, body, now))).toBe(
      '401 invalid_signature',
    );
  },
);

function publicOf(k: AcpSigningKey): Record<string, unknown> {
  if (k.alg === 'HS256') throw new Error('no public part');
  const { d: _d, ...pub } = k.jwk as Record<string, unknown>;
  return pub;
}

test('a registered key must be a public key of its algorithm', () => {
  const ed = pair('EdDSA');
  expect(code(() => checkSigningKey(ed.pub, 'jwk'))).toBe('ok');
  expect(code(() => checkSigningKey(ed.priv, 'jwk'))).toBe('400 invalid_request');
  expect(code(() => checkSigningKey({ alg: 'ES256', jwk: ed.pub.alg === 'HS256' ? {} : ed.pub.jwk }, 'jwk'))).toBe(
    '400 invalid_request',
  );
});
