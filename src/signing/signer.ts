/**
 * Signed quotes and delivery receipts (issue 12 §3): compact JWS, Ed25519 (`alg` EdDSA), signed with `jose`; the
 * public keys are published as a JWKS (`GET /.well-known/jwks.json`) and as a did:web document
 * (`GET /.well-known/did.json`, for the x402 `offer-receipt` extension whose `kid` is a DID URL).
 *
 * Explicit typing (RFC 8725 §3.11): quotes are `typ: quote+jwt`, receipts `typ: receipt+jwt`, so neither can be
 * passed off as the other or as an access token. Both are JWTs (RFC 7519) with `iss` (PUBLIC_BASE_URL), `sub`,
 * `jti`, `iat`, `exp` and the facts as private claims.
 */
import { KeyObject, sign } from 'node:crypto';
import { SignJWT, type CryptoKey, type JWK } from 'jose';
import {
  createOfferJWS,
  createReceiptJWS,
  type JWSSigner,
  type OfferReceiptIssuer,
} from '@x402/extensions/offer-receipt';
import type { Config } from '../config';
import type { Database } from '../db';
import { problem } from '../errors';
import { importKeyRing, publishedKeysAt, signingKeyAt, type KeyRing, type SigningKey } from './keys';
import { DatabaseKeyStore, KEY_SET_RECHECK_MS, type KeyStoreConfig } from './keyStore';

/** JOSE `typ` of a signed quote. */
export const QUOTE_TYP = 'quote+jwt';
/** JOSE `typ` of a signed delivery receipt. */
export const RECEIPT_TYP = 'receipt+jwt';

/** What a signed quote states (the `Quote` view without its signature). Amounts in USD with integer micro-unit twins. */
export interface QuoteFacts {
  quote_id: string;
  service_id: string;
  is_agent: boolean;
  amount: number;
  amount_micros: number;
  currency: string;
  billing: string;
  partner_id: string | null;
  commission: number | null;
  commission_micros: number | null;
  terms_version: string;
  catalogue_version: string;
  created_at: string;
  expires_at: string;
}

/** What a delivery receipt states. `amount` in USD, `amount_micros` the same in integer micro-units. */
export interface ReceiptFacts {
  order_id: string;
  service_id: string;
  quote_id: string | null;
  amount: number;
  amount_micros: number;
  currency: string;
  payment: { rail: string; transaction_id: string; paid_at: string };
  deliverables: { name: string; sha256: string; size: number; media_type: string }[];
  delivered_at: string;
}

/** A signed receipt as stored and shown: the JWS and its `iat` / `exp` as RFC 3339 times. */
export interface SignedReceipt {
  jws: string;
  kid: string;
  issued_at: string;
  expires_at: string;
}

/** A JSON Web Key Set (RFC 7517) of public Ed25519 keys. */
export interface Jwks {
  keys: JWK[];
}

/** The narrow port the routes and the x402 gateway use (source: issue 12 §3). */
export interface Signing {
  /** Loads (on embedded defaults: creates) the keys. @throws Error when they are invalid. */
  ready(): Promise<void>;
  /**
   * Compact JWS of a quote (`typ` quote+jwt; `sub`/`jti` the quote id, `iat` its creation, `exp` its expiry). The same
   * quote signed by the same key gives the same JWS (Ed25519 is deterministic).
   * @throws ProblemError 503 signing_unavailable when no key can sign.
   */
  signQuote(quote: QuoteFacts): Promise<string>;
  /**
   * Signs a delivery receipt (`typ` receipt+jwt; `sub` the order id, `iat` now, `exp` now + RECEIPT_TTL_SECONDS).
   * @throws ProblemError 503 signing_unavailable when no key can sign.
   */
  signReceipt(receipt: ReceiptFacts, now?: Date): Promise<SignedReceipt>;
  /** Published public keys (RFC 7517): the signing key and every retired key until its `retire_after`. */
  jwks(): Promise<Jwks>;
  /** DID of this service (`did:web:<host of PUBLIC_BASE_URL>`). */
  readonly did: string;
  /** did:web document listing the published keys (JsonWebKey2020) as assertion methods. */
  didDocument(): Promise<Record<string, unknown>>;
  /** Issuer of x402 `offer-receipt` offers and receipts (JWS, `kid` = `<did>#<kid>`), for the x402 gateway. */
  x402Issuer(): OfferReceiptIssuer;
  /**
   * The current signing key as a raw Ed25519 signer with its `kid`: UCP's HTTP Message Signatures (answers, order
   * webhooks) and AP2 detached JWS (issue 37 §2). @throws ProblemError 503 signing_unavailable when no key can sign.
   */
  rawSigner(now?: Date): Promise<{ kid: string; sign(data: Uint8Array): Promise<Buffer> }>;
}

/** `did:web` of a public base URL: its host with the port's colon percent-encoded (the path is not part of it). */
export function didWebOf(publicBaseUrl: string): string {
  return `did:web:${encodeURIComponent(new URL(publicBaseUrl).host)}`;
}

const seconds = (iso: string | Date) => Math.floor(new Date(iso).getTime() / 1000);

/**
 * The Node `KeyObject` of a WebCrypto key, made once per key: Node's one-shot Ed25519 `sign` costs a fraction of
 * `crypto.subtle.sign` (a promise and a thread-pool round trip), which every x402 purchase paid twice (offer, receipt).
 */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

/** How long a signed x402 offer is handed out again for the same resource and terms, ms. */
export const OFFER_REUSE_MS = 10_000;
function keyObjectOf(key: CryptoKey): KeyObject {
  let object = keyObjects.get(key);
  if (!object) keyObjects.set(key, (object = KeyObject.from(key)));
  return object;
}

/**
 * {@link Signing} over `SIGNING_KEYS` when set, else over the database's key set ({@link DatabaseKeyStore}, issue 25
 * §2), shared by every API process on the database. That set's `version` is compared at most every
 * {@link KEY_SET_RECHECK_MS} (5 s; checked by the first request after that, which waits for one `_id` lookup) and the
 * set reloaded when it changed, so every answer uses the keys as stored at most 5 s earlier: a rotation reaches every
 * API process without a restart. When the database cannot be reached the keys already loaded are kept.
 * Source: issue 12 §3, issue 25 §2.
 */
export class KeySetSigner implements Signing {
  readonly did: string;
  private envRing: Promise<KeyRing> | null = null;
  private readonly store: DatabaseKeyStore;
  private stored: { ring: KeyRing; version: number; checkedAt: number } | null = null;
  private loading: Promise<KeyRing> | null = null;
  /** Signed x402 offers by resource URL and terms, with when they were signed (see OFFER_REUSE_MS). */
  private readonly offers = new Map<string, { at: number; offer: ReturnType<typeof createOfferJWS> }>();

  /**
   * @param config where the keys come from (SIGNING_KEYS, else the database's set; DATA_DIR for the key file import)
   * @param db the database holding the key set (collection `signing_keys`)
   */
  constructor(
    private readonly config: KeyStoreConfig & Pick<Config, 'SIGNING_KEYS' | 'PUBLIC_BASE_URL' | 'RECEIPT_TTL_SECONDS'>,
    db: Database,
  ) {
    this.did = didWebOf(config.PUBLIC_BASE_URL);
    this.store = new DatabaseKeyStore(db, config);
  }

  async ready(): Promise<void> {
    await this.ring();
  }

  async signQuote(q: QuoteFacts): Promise<string> {
    const key = await this.signingKey(new Date());
    return new SignJWT({ ...q })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: QUOTE_TYP })
      .setIssuer(this.config.PUBLIC_BASE_URL)
      .setSubject(q.quote_id)
      .setJti(q.quote_id)
      .setIssuedAt(seconds(q.created_at))
      .setExpirationTime(seconds(q.expires_at))
      .sign(key.privateKey);
  }

  async signReceipt(r: ReceiptFacts, now = new Date()): Promise<SignedReceipt> {
    const key = await this.signingKey(now);
    const iat = seconds(now);
    const exp = iat + this.config.RECEIPT_TTL_SECONDS;
    const jws = await new SignJWT({ ...r })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: RECEIPT_TYP })
      .setIssuer(this.config.PUBLIC_BASE_URL)
      .setSubject(r.order_id)
      .setJti(`${r.order_id}.${iat}`)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key.privateKey);
    return {
      jws,
      kid: key.kid,
      issued_at: new Date(iat * 1000).toISOString(),
      expires_at: new Date(exp * 1000).toISOString(),
    };
  }

  async jwks(): Promise<Jwks> {
    return { keys: publishedKeysAt(await this.ring(), new Date()).map((k) => ({ ...k.publicJwk })) };
  }

  async didDocument(): Promise<Record<string, unknown>> {
    const keys = publishedKeysAt(await this.ring(), new Date());
    const ids = keys.map((k) => `${this.did}#${k.kid}`);
    return {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      id: this.did,
      verificationMethod: keys.map((k, i) => ({
        id: ids[i],
        type: 'JsonWebKey2020',
        controller: this.did,
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: k.publicJwk.x },
      })),
      assertionMethod: ids,
    };
  }

  async rawSigner(now = new Date()): Promise<{ kid: string; sign(data: Uint8Array): Promise<Buffer> }> {
    const key = await this.signingKey(now);
    const privateKey = keyObjectOf(key.privateKey);
    return { kid: key.kid, sign: (data) => Promise.resolve(sign(null, data, privateKey)) };
  }

  x402Issuer(): OfferReceiptIssuer {
    // @x402/extensions assembles the JWS itself (JCS payload, header {alg, kid}) and asks for a raw signature of
    // `header.payload`: Ed25519 with the key jose imported.
    const signer = async (): Promise<JWSSigner> => {
      const key = await this.signingKey(new Date());
      return {
        kid: `${this.did}#${key.kid}`,
        format: 'jws',
        algorithm: 'EdDSA',
        sign: (bytes) => Promise.resolve(sign(null, bytes, keyObjectOf(key.privateKey)).toString('base64url')),
      };
    };
    return {
      kid: this.did,
      format: 'jws',
      // Every paid request asks for the offers again (@x402/core rebuilds the 402 to match the payment against it):
      // one signed offer per resource and terms serves for OFFER_REUSE_MS, well within its validity.
      issueOffer: (resourceUrl, input) => {
        const cacheKey = `${resourceUrl}\n${JSON.stringify(input)}`;
        const now = Date.now();
        const hit = this.offers.get(cacheKey);
        if (hit && now - hit.at < OFFER_REUSE_MS) return hit.offer;
        if (this.offers.size >= 1000) this.offers.clear();
        const offer = signer().then((s) => createOfferJWS(resourceUrl, input, s));
        this.offers.set(cacheKey, { at: now, offer });
        offer.catch(() => this.offers.delete(cacheKey));
        return offer;
      },
      issueReceipt: async (resourceUrl, payer, network, transaction) =>
        createReceiptJWS({ resourceUrl, payer, network, ...(transaction ? { transaction } : {}) }, await signer()),
    };
  }

  private async signingKey(now: Date): Promise<SigningKey & { privateKey: CryptoKey }> {
    let ring: KeyRing;
    try {
      ring = await this.ring();
    } catch (err) {
      throw problem(
        'signing_unavailable',
        'The signing keys cannot be loaded',
        { cause: String(err) },
        { headers: { 'Retry-After': '5' } },
      );
    }
    const key = signingKeyAt(ring, now);
    if (!key)
      throw problem('signing_unavailable', 'No signing key is active now', {}, { headers: { 'Retry-After': '5' } });
    return key;
  }

  private ring(): Promise<KeyRing> {
    if (this.config.SIGNING_KEYS) {
      this.envRing ??= importKeyRing(this.config.SIGNING_KEYS);
      return this.envRing;
    }
    if (this.stored && Date.now() - this.stored.checkedAt < KEY_SET_RECHECK_MS)
      return Promise.resolve(this.stored.ring);
    this.loading ??= this.loadStored().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async loadStored(): Promise<KeyRing> {
    const checkedAt = Date.now();
    try {
      if (this.stored && (await this.store.version()) === this.stored.version) {
        this.stored.checkedAt = checkedAt;
        return this.stored.ring;
      }
      const set = await this.store.load();
      const ring = this.stored?.version === set.version ? this.stored.ring : await importKeyRing(set.keys);
      this.stored = { ring, version: set.version, checkedAt };
      return ring;
    } catch (err) {
      // A database out of reach, or a broken change, keeps the keys already loaded.
      if (this.stored) {
        this.stored.checkedAt = checkedAt;
        return this.stored.ring;
      }
      throw err;
    }
  }
}
