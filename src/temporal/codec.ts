/**
 * Issue 26 §1 Payloads encrypted at rest: the payload codec that encrypts what this service writes into Temporal
 * (buyers' inputs, e-mail addresses, order records: workflow and activity inputs and results, signals, updates,
 * queries, memos and summaries) with AES-256-GCM, as Temporal's encryption sample does (samples-typescript
 * `encryption`): each payload is serialised whole (metadata and data, `temporal.api.common.v1.Payload`) and replaced by
 *
 *   metadata: { encoding: "binary/encrypted", "encryption-key-id": <key id> }
 *   data:     12-byte IV ‖ AES-256-GCM ciphertext ‖ 16-byte tag
 *
 * Keys come from `PAYLOAD_ENCRYPTION_KEYS` (src/config.ts): the first encrypts, every key listed decrypts, so a key is
 * rotated by putting a new one first and keeping the old one as long as histories encrypted with it are kept.
 * Payloads that are not `binary/encrypted` (histories written before encryption was turned on) decode unchanged, so
 * they keep replaying. Search attributes are never encoded by payload codecs (the server indexes them): they stay
 * readable, and nothing secret may go into them.
 *
 * {@link temporalDataConverter} is the one place every Temporal client, worker and replayer of this repository gets
 * its data converter from.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  METADATA_ENCODING_KEY,
  ValueError,
  type DataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Config, PayloadEncryptionKey } from '../config';

/** `metadata.encoding` of an encrypted payload (the sample's value, so its codec servers and ours agree). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/**
 * AES-256-GCM payload codec with key rotation (issue 26 §1 Payloads encrypted at rest).
 *
 * `encode` encrypts each payload with the first key; `decode` decrypts `binary/encrypted` payloads with the key their
 * `encryption-key-id` names and returns every other payload unchanged.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: ReadonlyMap<string, Buffer>;
  /** Id of the key new payloads are encrypted with (the first of the list). */
  readonly encryptingKeyId: string;

  /**
   * @param keys the key ring, encrypting key first (as `PAYLOAD_ENCRYPTION_KEYS` parses it).
   * @throws Error when `keys` is empty, a key is not 32 bytes or an id repeats.
   */
  constructor(keys: readonly PayloadEncryptionKey[]) {
    const first = keys[0];
    if (!first) throw new Error('EncryptionCodec needs at least one key');
    const map = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new Error(`payload encryption key "${id}" is ${key.length} bytes, not 32`);
      if (map.has(id)) throw new Error(`payload encryption key id "${id}" is listed twice`);
      map.set(id, Buffer.from(key));
    }
    this.keys = map;
    this.encryptingKeyId = first.id;
  }

  /** Ids of every key that decrypts, the encrypting key first. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /** Encrypts each payload (metadata and data) with the encrypting key; a fresh random IV per payload. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.encryptingKeyId) as Buffer;
    const keyId = Buffer.from(this.encryptingKeyId);
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
          [METADATA_ENCRYPTION_KEY_ID]: keyId,
        },
        data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
      };
    });
  }

  /**
   * Decrypts `binary/encrypted` payloads; any other payload (written before encryption) is returned as it is.
   * @throws ValueError when an encrypted payload has no key id, names a key that is not configured, is too short,
   *   or fails authentication (altered, or encrypted by another key under the same id).
   */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const keyId = text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]);
      if (!keyId) throw new ValueError(`An encrypted payload has no "${METADATA_ENCRYPTION_KEY_ID}"`);
      const key = this.keys.get(keyId);
      if (!key) {
        throw new ValueError(
          `A payload is encrypted with key "${keyId}", which PAYLOAD_ENCRYPTION_KEYS does not list (it lists ${this.keyIds.join(', ')})`,
        );
      }
      const data = payload.data ?? new Uint8Array();
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new ValueError(`An encrypted payload (key "${keyId}") is truncated`);
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new ValueError(
          `A payload encrypted with key "${keyId}" fails authentication: altered, or encrypted by another key of that id`,
        );
      }
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/** Codecs built per key list, so every client and worker of a process shares one instance per configuration. */
const codecs = new WeakMap<readonly PayloadEncryptionKey[], EncryptionCodec>();

/**
 * The payload codec of the configuration: an {@link EncryptionCodec} over `PAYLOAD_ENCRYPTION_KEYS`, or undefined
 * when encryption is off. Source: issue 26 §1 Payloads encrypted at rest.
 */
export function payloadCodec(config: Pick<Config, 'PAYLOAD_ENCRYPTION_KEYS'>): EncryptionCodec | undefined {
  const keys = config.PAYLOAD_ENCRYPTION_KEYS;
  if (!keys || keys.length === 0) return undefined;
  let codec = codecs.get(keys);
  if (!codec) {
    codec = new EncryptionCodec(keys);
    codecs.set(keys, codec);
  }
  return codec;
}

/**
 * The module of the failure converter that moves failure messages and stack traces into an encrypted payload
 * (src/temporal/failureConverter.ts), for `failureConverterPath` of data converters and workflow bundles.
 */
export const ENCRYPTED_FAILURE_CONVERTER_PATH = require.resolve('./failureConverter');

/**
 * The data converter every Temporal `Client`, `Worker` and replay of this repository uses (issue 26 §1 Payloads
 * encrypted at rest): `{ payloadCodecs: [EncryptionCodec], failureConverterPath }` when `PAYLOAD_ENCRYPTION_KEYS` is
 * set (failure messages encrypted too), else `{}` (the SDK's default, payloads in clear). Pass it as `dataConverter`
 * to `new Client`, `Worker.create` and `Worker.runReplayHistory`; build the workflow bundle with the same setting
 * (worker/bundle.ts `workflowBundleOptions`).
 */
export function temporalDataConverter(config: Pick<Config, 'PAYLOAD_ENCRYPTION_KEYS'>): DataConverter {
  const codec = payloadCodec(config);
  return codec ? { payloadCodecs: [codec], failureConverterPath: ENCRYPTED_FAILURE_CONVERTER_PATH } : {};
}
