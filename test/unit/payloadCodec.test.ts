/**
 * Issue 26 §1 Payloads encrypted at rest: the AES-256-GCM payload codec (src/temporal/codec.ts) and the parsing of
 * PAYLOAD_ENCRYPTION_KEYS (src/config.ts): round trip, key rotation, passthrough of payloads written in clear, and the
 * errors an operator can meet.
 */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { ZodError } from 'zod';
import { loadConfig } from '../../src/config';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  METADATA_ENCRYPTION_KEY_ID,
  payloadCodec,
  temporalDataConverter,
} from '../../src/temporal/codec';

const b64 = () => randomBytes(32).toString('base64');
const meta = (p: Payload, k: string) => Buffer.from(p.metadata?.[k] ?? new Uint8Array()).toString('utf8');
const keysOf = (value: string) => loadConfig({ PAYLOAD_ENCRYPTION_KEYS: value }).PAYLOAD_ENCRYPTION_KEYS;

const input = {
  order_id: 'ord_x',
  inputs: { contact_email: 'alice@example.com', business_name: 'Alice Dental' },
};
const plain = defaultPayloadConverter.toPayload(input);

describe('EncryptionCodec', () => {
  const k1 = { id: 'k1', key: randomBytes(32) };
  const k2 = { id: 'k2', key: randomBytes(32) };

  test('round trip: ciphertext without the plaintext, then the very payload back (metadata included)', async () => {
    const codec = new EncryptionCodec([k1]);
    const [enc] = await codec.encode([plain]);
    expect(meta(enc!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(meta(enc!, METADATA_ENCRYPTION_KEY_ID)).toBe('k1');
    expect(Buffer.from(enc!.data!).includes('alice@example.com')).toBe(false);
    expect(Buffer.from(enc!.data!).includes('json/plain')).toBe(false);
    const [dec] = await codec.decode([enc!]);
    expect(meta(dec!, 'encoding')).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(dec!)).toEqual(input);
  });

  test('a fresh IV per payload: the same value encrypts differently each time', async () => {
    const codec = new EncryptionCodec([k1]);
    const [a, b] = await codec.encode([plain, plain]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  test('rotation: written under k1, still read after k2 is put first; new payloads use k2', async () => {
    const before = new EncryptionCodec([k1]);
    const [old] = await before.encode([plain]);
    const after = new EncryptionCodec([k2, k1]);
    expect(after.encryptingKeyId).toBe('k2');
    const [fresh] = await after.encode([plain]);
    expect(meta(fresh!, METADATA_ENCRYPTION_KEY_ID)).toBe('k2');
    const decoded = await after.decode([old!, fresh!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([input, input]);
    // Once k1 is dropped, what it encrypted can no longer be read: the error names the key.
    await expect(new EncryptionCodec([k2]).decode([old!])).rejects.toThrow(/key "k1", which PAYLOAD_ENCRYPTION_KEYS/);
  });

  test('payloads written in clear (histories from before encryption) decode unchanged', async () => {
    const codec = new EncryptionCodec([k1]);
    const binaryNull = defaultPayloadConverter.toPayload(undefined);
    const [a, b] = await codec.decode([plain, binaryNull]);
    expect(a).toBe(plain);
    expect(b).toBe(binaryNull);
  });

  test('an altered ciphertext, or one under another key of the same id, fails authentication', async () => {
    const [enc] = await new EncryptionCodec([k1]).encode([plain]);
    const altered = Buffer.from(enc!.data!);
    altered[20] = altered[20]! ^ 1;
    const codec = new EncryptionCodec([k1]);
    await expect(codec.decode([{ ...enc!, data: altered }])).rejects.toThrow(/fails authentication/);
    await expect(new EncryptionCodec([{ id: 'k1', key: randomBytes(32) }]).decode([enc!])).rejects.toThrow(
      /fails authentication/,
    );
    await expect(codec.decode([{ ...enc!, data: altered.subarray(0, 10) }])).rejects.toThrow(/truncated/);
    await expect(
      codec.decode([{ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) }, data: altered }]),
    ).rejects.toThrow(/no "encryption-key-id"/);
  });

  test('the constructor refuses an empty ring, a short key and a repeated id', () => {
    expect(() => new EncryptionCodec([])).toThrow(/at least one key/);
    expect(() => new EncryptionCodec([{ id: 'a', key: randomBytes(16) }])).toThrow(/16 bytes, not 32/);
    expect(() => new EncryptionCodec([k1, { ...k1 }])).toThrow(/listed twice/);
  });
});

describe('PAYLOAD_ENCRYPTION_KEYS', () => {
  test('a comma list, a JSON object and a JSON array give the same ring, first key first', () => {
    const a = b64();
    const hex = randomBytes(32).toString('hex');
    const forms = [
      `new:${a}, old:${hex}`,
      JSON.stringify({ new: a, old: hex }),
      JSON.stringify([
        { id: 'new', key: a },
        { id: 'old', key: hex },
      ]),
      JSON.stringify([`new:${a}`, `old:${hex}`]),
    ];
    for (const f of forms) {
      const keys = keysOf(f);
      expect(keys?.map((k) => k.id)).toEqual(['new', 'old']);
      expect(keys?.[0]?.key.equals(Buffer.from(a, 'base64'))).toBe(true);
      expect(keys?.[1]?.key.equals(Buffer.from(hex, 'hex'))).toBe(true);
    }
    // base64url works too.
    expect(keysOf(`u:${randomBytes(32).toString('base64url')}`)?.[0]?.key).toHaveLength(32);
  });

  test('unset or empty: no encryption, the SDK default converter', () => {
    for (const env of [{}, { PAYLOAD_ENCRYPTION_KEYS: '' }, { PAYLOAD_ENCRYPTION_KEYS: '  ' }]) {
      const config = loadConfig(env);
      expect(config.PAYLOAD_ENCRYPTION_KEYS).toBeUndefined();
      expect(payloadCodec(config)).toBeUndefined();
      expect(temporalDataConverter(config)).toEqual({});
    }
  });

  test('set: one shared codec per configuration in the data converter', () => {
    const config = loadConfig({ PAYLOAD_ENCRYPTION_KEYS: `k:${b64()}` });
    const dc = temporalDataConverter(config);
    expect(dc.payloadCodecs).toHaveLength(1);
    expect(dc.payloadCodecs?.[0]).toBe(payloadCodec(config));
    expect(payloadCodec(config)?.encryptingKeyId).toBe('k');
  });

  test('mistakes are refused at start, naming the entry', () => {
    const bad: [string, RegExp][] = [
      [b64(), /key id ""/],
      [`k:${randomBytes(16).toString('base64')}`, /key "k": not 32 bytes/],
      [`k:${b64()},k:${b64()}`, /"k" is listed twice/],
      [`bad id:${b64()}`, /key id "bad id"/],
      ['{"k": ', /not valid JSON/],
      [',', /no key/],
    ];
    for (const [value, message] of bad) {
      let issue = '';
      try {
        loadConfig({ PAYLOAD_ENCRYPTION_KEYS: value });
      } catch (err) {
        issue = (err as ZodError).issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      }
      expect(issue).toMatch(message);
      expect(issue).toMatch(/^PAYLOAD_ENCRYPTION_KEYS: /);
    }
  });
});
