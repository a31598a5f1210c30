/**
 * The signing key set in the database (issue 25 §2): the embedded default when SIGNING_KEYS is not set, shared by
 * every API process on the database whatever machine and DATA_DIR it runs with.
 *
 * - Creation: the first API start stores one new key (or imports a key file of earlier versions, below) with an
 *   upsert `$setOnInsert` on the set's fixed `_id`; of API processes starting together, the first insert wins and
 *   every other process loads that same set (src/repos/signingKeys.ts).
 * - Import: a `DATA_DIR/signing-keys.json` left by earlier versions is imported once per key: into an empty database
 *   as the set itself (the same key keeps signing); into an existing set its keys the set lacks are added as
 *   published-only keys (private part dropped) until their `retire_after`, or now + max(QUOTE_TTL_SECONDS,
 *   RECEIPT_TTL_SECONDS) when they have none, so what they signed keeps verifying. The file is left as it is; the set
 *   remembers the imported kids, so a retired key is not imported again.
 * - Changes (rotation, import, sealing) are compare-and-set writes on the set's `version`; the API processes compare
 *   that `version` (one `_id` lookup returning one field) at most every {@link KEY_SET_RECHECK_MS} = 5 s and reload
 *   the set when it changed, so a rotation is used by every API process within 5 s (plus one database round trip).
 * - Secrets: the set holds the private keys, so the database (and its backups, `npm run db:copy`) is then a secret
 *   store. With SIGNING_KEYS_ENCRYPTION_KEY set, each private part is stored sealed with AES-256-GCM (`d_enc`, the
 *   kid as additional data) and opened in memory only; keys found in clear are sealed at the next API start.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { encryptionKeyBytes, type Config, type SigningJwk } from '../config';
import type { Database, SigningKeySetDoc, StoredSigningJwk } from '../db';
import { SigningKeyRepository } from '../repos/signingKeys';
import { newSigningJwk, readKeyFile, rotatedKeySet } from './keys';

/**
 * How often an API process checks the database for a change of the key set: a rotation is used by every API
 * process at most this long (plus one database round trip) after it was stored. Source: issue 25 §2.
 */
export const KEY_SET_RECHECK_MS = 5_000;

/** Configuration the key store reads. */
export type KeyStoreConfig = Pick<
  Config,
  'DATA_DIR' | 'SIGNING_KEYS_ENCRYPTION_KEY' | 'QUOTE_TTL_SECONDS' | 'RECEIPT_TTL_SECONDS'
>;

/** The loaded key set: its `version` in the database and its keys with their private parts opened. */
export interface LoadedKeySet {
  version: number;
  keys: SigningJwk[];
}

/** A stored key as shown by a rotation: no private part, whether it has one in `private`. */
export type PublicKeyInfo = Omit<StoredSigningJwk, 'd' | 'd_enc'> & { private: boolean };

const SEALED_PREFIX = 'v1';

/**
 * AES-256-GCM sealing of private JWK parts at rest (issue 25 §2): `v1.<iv>.<ciphertext>.<tag>`, base64url, a random
 * 96-bit IV per seal, the kid as additional authenticated data (a sealed part moved to another key does not open).
 */
export class KeyCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SIGNING_KEYS_ENCRYPTION_KEY: 32 bytes needed');
  }

  /** Seals the private part `d` of key `kid`. */
  seal(kid: string, d: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(kid));
    const ct = Buffer.concat([cipher.update(d, 'utf8'), cipher.final()]);
    return [SEALED_PREFIX, iv, ct, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /**
   * Opens what {@link seal} sealed for `kid`.
   * @throws Error naming the kid when the value is malformed or this key does not open it (another key, tampering).
   */
  open(kid: string, sealed: string): string {
    const [version, iv, ct, tag, ...rest] = sealed.split('.');
    if (version !== SEALED_PREFIX || !iv || !ct || !tag || rest.length > 0)
      throw new Error(`signing keys: the sealed private part of ${kid} is malformed`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), {
        authTagLength: 16,
      });
      decipher.setAAD(Buffer.from(kid));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`signing keys: SIGNING_KEYS_ENCRYPTION_KEY does not open the private part of ${kid}`);
    }
  }
}

/** The cipher of SIGNING_KEYS_ENCRYPTION_KEY, or null when it is unset. @throws Error when it is not 32 bytes. */
export function keyCipherOf(text: string | undefined): KeyCipher | null {
  if (!text) return null;
  const bytes = encryptionKeyBytes(text);
  if (!bytes) throw new Error('SIGNING_KEYS_ENCRYPTION_KEY: 32 bytes as 64 hex digits or base64 needed');
  return new KeyCipher(bytes);
}

/**
 * The database's signing key set (see the module comment). One instance per process; {@link load} imports the
 * DATA_DIR key file on its first call only.
 */
export class DatabaseKeyStore {
  private readonly repo: SigningKeyRepository;
  private readonly cipher: KeyCipher | null;
  private fileChecked = false;

  constructor(
    db: Database,
    private readonly config: KeyStoreConfig,
  ) {
    this.repo = new SigningKeyRepository(db);
    this.cipher = keyCipherOf(config.SIGNING_KEYS_ENCRYPTION_KEY);
  }

  /** How long a retired key stays published: the longest validity of anything signed. */
  get retainSeconds(): number {
    return Math.max(this.config.QUOTE_TTL_SECONDS, this.config.RECEIPT_TTL_SECONDS);
  }

  /** The stored set's `version` (the cheap change check), or null when there is none. */
  version(): Promise<number | null> {
    return this.repo.version();
  }

  /**
   * The key set with its private parts opened; on the first call (and whenever the set is missing) it is created
   * or the key file imported, and keys in clear are sealed when a cipher is configured.
   * @throws Error when the key file is invalid, a sealed key cannot be opened (no or another encryption key), or the
   *   database cannot be reached.
   */
  async load(now = new Date()): Promise<LoadedKeySet> {
    let doc = await this.repo.get();
    if (!doc || !this.fileChecked) {
      doc = await this.ensure(doc, now);
      this.fileChecked = true;
    }
    return { version: doc.version, keys: doc.keys.map((k) => this.opened(k)) };
  }

  /**
   * Rotation ({@link rotatedKeySet}) stored by compare-and-set: a new key is appended (signing from now, or after
   * `activateAfterSeconds`), every older key that signs gets `retire_after` = activation + `retainSeconds`
   * (default: max(QUOTE_TTL_SECONDS, RECEIPT_TTL_SECONDS)), keys past theirs are dropped. Every API process uses the
   * result within {@link KEY_SET_RECHECK_MS}. A concurrent change makes it start over on the new set.
   * @returns the new key's kid and the stored keys without private parts.
   * @throws Error when there is no set and no key file to start from, or a sealed key does not open with this
   *   process's SIGNING_KEYS_ENCRYPTION_KEY (so no key is ever sealed with a key the others do not have).
   */
  async rotate(
    opts: { now?: Date; activateAfterSeconds?: number; retainSeconds?: number } = {},
  ): Promise<{ kid: string; keys: PublicKeyInfo[] }> {
    const now = opts.now ?? new Date();
    let doc = await this.repo.get();
    if (!doc) {
      if (!(await readKeyFile(this.config.DATA_DIR)))
        throw new Error('no signing keys in the database yet: start the API once (or set SIGNING_KEYS)');
      doc = await this.ensure(null, now);
    }
    for (;;) {
      for (const k of doc.keys) this.opened(k); // refuses a set this process could not read
      const fresh = this.stored(await newSigningJwk(now));
      const keys = rotatedKeySet(this.sealAll(doc.keys), fresh, opts.retainSeconds ?? this.retainSeconds, {
        now,
        ...(opts.activateAfterSeconds ? { activateAfterSeconds: opts.activateAfterSeconds } : {}),
      });
      const written = await this.repo.replace(doc.version, keys, doc.imported_kids, now);
      if (written) return { kid: fresh.kid, keys: written.keys.map(publicInfo) };
      doc = (await this.repo.get()) ?? (await this.ensure(null, now));
    }
  }

  /** Creates the set if absent, imports the key file's missing keys, seals keys in clear; returns the stored set. */
  private async ensure(existing: SigningKeySetDoc | null, now: Date): Promise<SigningKeySetDoc> {
    const file = await readKeyFile(this.config.DATA_DIR);
    const fileKeys = file ? await Promise.all(file.map((k) => this.withKid(k))) : [];
    const fileKids = fileKeys.map((k) => k.kid);
    let doc =
      existing ??
      (await this.repo.createIfAbsent(
        fileKeys.length > 0 ? fileKeys.map((k) => this.stored(k)) : [this.stored(await newSigningJwk(now))],
        fileKids,
        now,
      ));
    for (;;) {
      const known = new Set([...doc.imported_kids, ...doc.keys.map((k) => k.kid)]);
      const missing = fileKeys.filter((k) => !known.has(k.kid));
      const inClear = this.cipher !== null && doc.keys.some((k) => k.d);
      if (missing.length === 0 && !inClear && fileKids.every((kid) => doc.imported_kids.includes(kid))) return doc;
      // Keys of another data folder's file: published (never signing) until what they signed has expired.
      const retired = missing
        .filter((k) => !k.retire_after || Date.parse(k.retire_after) > now.getTime())
        .map((k): StoredSigningJwk => {
          const { d: _d, d_enc: _sealed, ...rest } = this.stored(k);
          return {
            ...rest,
            retire_after: k.retire_after ?? new Date(now.getTime() + this.retainSeconds * 1000).toISOString(),
          };
        });
      const keys = [...retired, ...this.sealAll(doc.keys)];
      const imported = [...new Set([...doc.imported_kids, ...fileKids])];
      const written = await this.repo.replace(doc.version, keys, imported, now);
      if (written) return written;
      const reread = await this.repo.get();
      if (!reread) throw new Error('signing_keys: the key set vanished during the key file import');
      doc = reread;
    }
  }

  /** `k` with its kid (RFC 7638 thumbprint when the file has none). */
  private async withKid(k: SigningJwk): Promise<SigningJwk & { kid: string }> {
    return { ...k, kid: k.kid ?? (await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: k.x })) };
  }

  /** The stored form of a key: the known members only, its private part sealed when a cipher is configured. */
  private stored(k: SigningJwk & { kid: string }): StoredSigningJwk {
    return this.sealOne({
      kty: 'OKP',
      crv: 'Ed25519',
      x: k.x,
      kid: k.kid,
      ...(k.d ? { d: k.d } : {}),
      ...(k.created_at ? { created_at: k.created_at } : {}),
      ...(k.not_before ? { not_before: k.not_before } : {}),
      ...(k.retire_after ? { retire_after: k.retire_after } : {}),
    });
  }

  private sealOne(k: StoredSigningJwk): StoredSigningJwk {
    if (!this.cipher || !k.d) return k;
    const { d, ...rest } = k;
    return { ...rest, d_enc: this.cipher.seal(k.kid, d) };
  }

  private sealAll(keys: StoredSigningJwk[]): StoredSigningJwk[] {
    return keys.map((k) => this.sealOne(k));
  }

  /** A stored key as a {@link SigningJwk} with its private part in clear. @throws Error when it cannot be opened. */
  private opened(k: StoredSigningJwk): SigningJwk {
    const { d_enc: sealed, ...rest } = k;
    if (!sealed) return rest;
    if (!this.cipher)
      throw new Error(`signing keys: the private part of ${k.kid} is sealed; set SIGNING_KEYS_ENCRYPTION_KEY`);
    return { ...rest, d: this.cipher.open(k.kid, sealed) };
  }
}

function publicInfo(k: StoredSigningJwk): PublicKeyInfo {
  const { d, d_enc: sealed, ...rest } = k;
  return { ...rest, private: Boolean(d ?? sealed) };
}

/**
 * `npm run keys:rotate` as a function (issue 25 §2): rotates the database's key set of `config` (see
 * {@link DatabaseKeyStore.rotate}); every API process on that database uses the new key within
 * {@link KEY_SET_RECHECK_MS}.
 * @throws Error when SIGNING_KEYS is set (those keys are rotated in the environment), or as `rotate` does.
 */
export function rotateSigningKeys(
  config: KeyStoreConfig & Pick<Config, 'SIGNING_KEYS'>,
  db: Database,
  opts: { now?: Date; activateAfterSeconds?: number } = {},
): Promise<{ kid: string; keys: PublicKeyInfo[] }> {
  if (config.SIGNING_KEYS)
    throw new Error('SIGNING_KEYS is set: add the new key to it (see docs/api.md, "Signed quotes and receipts")');
  return new DatabaseKeyStore(db, config).rotate(opts);
}
