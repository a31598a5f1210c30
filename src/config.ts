import path from 'node:path';
import { z } from 'zod';
import { LOG_LEVELS } from './telemetry/logger';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * One Ed25519 key of the signing key set (issue 12 §3): a JWK (RFC 8037, `kty` OKP, `crv` Ed25519) with the private
 * part `d` for keys that may sign, without it for keys only published. Extra members (RFC 3339): `created_at`,
 * `not_before` (published at once, signs from then on: rotation without a gap between processes) and `retire_after`
 * (published until then, never signs after it). The last key that may sign at a time signs. `kid` defaults to the
 * RFC 7638 thumbprint.
 */
export const SigningJwkSchema = z.looseObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/, '32 bytes, base64url'),
  d: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, '32 bytes, base64url')
    .optional(),
  kid: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._~-]+$/, 'letters, digits and . _ ~ - only')
    .optional(),
  created_at: z.iso.datetime({ offset: true }).optional(),
  not_before: z.iso.datetime({ offset: true }).optional(),
  retire_after: z.iso.datetime({ offset: true }).optional(),
});
export type SigningJwk = z.infer<typeof SigningJwkSchema>;

/**
 * A signing key set: `{"keys": [...]}` (a JWKS with private members), an array of JWKs, or one JWK; at least one key
 * must have its private part `d`.
 */
export const SigningKeySetSchema = z
  .union([z.object({ keys: z.array(SigningJwkSchema).min(1) }), z.array(SigningJwkSchema).min(1), SigningJwkSchema])
  .transform((v): SigningJwk[] =>
    Array.isArray(v) ? v : 'kty' in v && v.kty === 'OKP' ? [v as SigningJwk] : (v as { keys: SigningJwk[] }).keys,
  )
  .refine((keys) => keys.some((k) => k.d), 'needs a key with its private part ("d")');

/** The 32 bytes of an AES-256 key written as 64 hex digits or base64 / base64url; null when it is neither. */
export function encryptionKeyBytes(text: string): Buffer | null {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(t)
      ? Buffer.from(t.replace(/=$/, ''), 'base64url')
      : null;
  return bytes?.length === 32 ? bytes : null;
}

/** One key of {@link PayloadEncryptionKeysSchema}: an id (written into each payload it encrypts) and 32 key bytes. */
export interface PayloadEncryptionKey {
  id: string;
  key: Buffer;
}

const PAYLOAD_KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Issue 26 §1 Payloads encrypted at rest: the AES-256-GCM keys of the Temporal payload codec
 * (src/temporal/codec.ts), in one of three forms:
 * - a comma list `id:key,id:key` (`key`: 32 bytes as 64 hex digits or base64 / base64url);
 * - a JSON object `{"id": "key", ...}`;
 * - a JSON array of `{"id": ..., "key": ...}` or of `"id:key"` strings.
 *
 * The first key encrypts every new payload; every key listed decrypts (rotation: put the new key first and keep the
 * old ones for as long as histories they encrypted are kept). Ids: 1–64 letters, digits, `.`, `_`, `-`, unique.
 * @returns the keys in order; the parse fails (zod issue naming the entry) on a bad id, key or duplicate.
 */
export const PayloadEncryptionKeysSchema = z.string().transform((text, ctx): PayloadEncryptionKey[] => {
  const t = text.trim();
  let entries: [string, string][];
  if (t.startsWith('[') || t.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
      return z.NEVER;
    }
    const items: unknown[] = Array.isArray(parsed) ? parsed : Object.entries(parsed as object);
    entries = items.map((item): [string, string] => {
      if (typeof item === 'string') {
        const i = item.indexOf(':');
        return i < 0 ? ['', item] : [item.slice(0, i), item.slice(i + 1)];
      }
      if (Array.isArray(item)) return [String(item[0]), String(item[1])];
      const o = (item ?? {}) as { id?: unknown; key?: unknown };
      return [String(o.id ?? ''), String(o.key ?? '')];
    });
  } else {
    entries = t
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e.length > 0)
      .map((e): [string, string] => {
        const i = e.indexOf(':');
        return i < 0 ? ['', e] : [e.slice(0, i).trim(), e.slice(i + 1).trim()];
      });
  }
  if (entries.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'no key: write id:key (32 bytes as 64 hex digits or base64)' });
    return z.NEVER;
  }
  const keys: PayloadEncryptionKey[] = [];
  for (const [id, keyText] of entries) {
    if (!PAYLOAD_KEY_ID.test(id)) {
      ctx.addIssue({ code: 'custom', message: `key id "${id}": 1-64 letters, digits, . _ - (write id:key)` });
      return z.NEVER;
    }
    const key = encryptionKeyBytes(keyText);
    if (!key) {
      ctx.addIssue({ code: 'custom', message: `key "${id}": not 32 bytes as 64 hex digits or base64` });
      return z.NEVER;
    }
    if (keys.some((k) => k.id === id)) {
      ctx.addIssue({ code: 'custom', message: `key id "${id}" is listed twice` });
      return z.NEVER;
    }
    keys.push({ id, key });
  }
  return keys;
});

const jsonText = z.string().transform((s, ctx) => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
    return z.NEVER;
  }
});

/**
 * Environment of the API and the worker, parsed once by zod.
 *
 * Durations are in seconds unless the name says otherwise. Every variable has an embedded default so that
 * `npm start` runs with no configuration at all. Throws a `ZodError` naming the bad variable.
 */
export const ConfigSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /**
   * Issue 27 §5: the least severe level written to the JSON log lines (stdout) of the API, the worker and the scripts
   * that log; `silent` writes none. See src/telemetry/logger.ts.
   */
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /**
   * Issue 39 §1: where each process answers Prometheus' `GET /metrics` (src/telemetry/metrics.ts), apart from the
   * public port: `METRICS_HOST` (loopback by default: business figures stay inside), `API_METRICS_PORT` (9464) for the
   * API, `WORKER_METRICS_PORT` (9465) for the worker; 0 picks a free port, -1 turns the listener off. A port taken is
   * logged and the process runs on without it.
   */
  METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * Issue 39 §1: OpenTelemetry traces (src/telemetry/tracing.ts) are exported over OTLP/HTTP to this collector
   * (`…/v1/traces` is added), from the API and the worker; unset (the default), tracing is off and costs nothing.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  API_METRICS_PORT: z.coerce.number().int().min(-1).max(65535).default(9464),
  WORKER_METRICS_PORT: z.coerce.number().int().min(-1).max(65535).default(9465),
  /** Public address used in links (payment links, deliverable URLs). Defaults to http://HOST:PORT. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /**
   * Issue 38 §2: SMTP server of outgoing e-mail (`smtp://user:pass@host:port`, `smtps://…`): a booking page's owner
   * is e-mailed each booking and cancellation. Unset: the e-mail is skipped and logged (the signed webhook still goes).
   */
  SMTP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  /** Sender of outgoing e-mail. */
  MAIL_FROM: z.string().min(3).default('Agent Commerce Bookings <bookings@agent-commerce.invalid>'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('agent-commerce'),
  /**
   * Workflows the worker keeps in its sticky cache. The SDK's default grows with the heap limit (about 2,300 on a
   * 4 GB heap) and orders wait days in review, so the worker's memory would grow to match; evicted workflows replay
   * their (short) history on their next event. Measured at 20 orders in flight: 250 → 350–420 MB RSS, 60 → about
   * 305 MB, throughput within run-to-run noise. Issue 9 §3: worker ≤ 300 MB RSS.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(64),
  /**
   * Worker Versioning (issue 26 §2): both set, the worker polls as build WORKER_BUILD_ID of the Worker Deployment
   * WORKER_DEPLOYMENT_NAME, each workflow type PINNED or AUTO_UPGRADE (workflows/versioning.ts); the first build of a
   * deployment becomes its current version, later ones by `npm run deploy -- promote <build id>`. Unset: unversioned.
   */
  WORKER_DEPLOYMENT_NAME: z.string().min(1).optional(),
  WORKER_BUILD_ID: z.string().min(1).optional(),
  MONGODB_URI: z.string().default('mongodb://127.0.0.1:27117/'),
  MONGODB_DB: z.string().default('agent_commerce'),
  DATA_DIR: z.string().default(path.resolve(__dirname, '..', '.data')),
  /**
   * Where deliverables are stored (issue 25 §2): `gridfs` (default) in the database itself, so every process sharing
   * MONGODB_URI shares them; `s3` in S3_BUCKET; `file` in STORAGE_DIR on this machine's disk (one machine only).
   * `npm run deliverables:migrate` copies the files of STORAGE_DIR into the configured store.
   */
  DELIVERABLE_STORE: z.enum(['gridfs', 's3', 'file']).default('gridfs'),
  /** The `file` store's folder and the migration's source; defaults to DATA_DIR/deliverables. */
  STORAGE_DIR: z.string().optional(),
  /** `s3` store: the bucket (it must exist, and is required); objects are `deliverables/<sha256>`. */
  S3_BUCKET: z.string().min(1).optional(),
  /** `s3` store: endpoint of an S3-compatible server (SeaweedFS, MinIO...); unset: AWS. */
  S3_ENDPOINT: z.string().url().optional(),
  /** `s3` store: region; unset: the AWS SDK's own (AWS_REGION, the profile). Credentials: the SDK's chain. */
  S3_REGION: z.string().min(1).optional(),
  /** `s3` store: path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  S3_FORCE_PATH_STYLE: bool.default(false),
  /** Shared secret of operators (wallet credits, engineer queue). Unset: operator endpoints answer 401. */
  OPERATOR_KEY: z.string().min(16).optional(),
  QUOTE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  /** Unpaid orders expire after this long. */
  PAYMENT_DEADLINE_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  /** Delivered orders are accepted automatically after this long without a review (seed: review step). */
  REVIEW_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(72 * 3600),
  IDEMPOTENCY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  /**
   * Development mode: allows loopback and private webhook targets (never cloud metadata addresses) and prints more.
   */
  DEV_MODE: bool.default(false),
  /**
   * Test only (issue 12 §1): /mcp also serves the MCP conformance suite's diagnostic tools, resources and prompts
   * (src/mcp/conformance.ts). Ignored unless DEV_MODE is true; never set in production.
   */
  MCP_CONFORMANCE_FIXTURES: bool.default(false),
  /**
   * Requests per minute per credential (Bearer token or X-Operator-Key), shared by every API process through the
   * database; 0 disables. Issue 10 §4.
   */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  /**
   * Requests per minute per client address for requests without a credential (cached public GETs are not counted);
   * 0 disables. The default leaves room for `npm run bench` (20 clients on one address, about 125 requests/s).
   */
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: z.coerce.number().int().min(0).default(12000),
  /** Burst limit per credential, requests per second (issue 10 §4); 0 disables. */
  RATE_LIMIT_BURST_PER_SECOND: z.coerce.number().int().min(0).default(50),
  /** Burst limit per client address without a credential, requests per second; 0 disables. */
  RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: z.coerce.number().int().min(0).default(100),
  /**
   * Reverse proxies in front of the API whose X-Forwarded-For / -Proto / -Host are trusted: 0 (default) trusts none,
   * so a client cannot pick its own address (rate limits); n takes the client address n hops from the right.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Issue 12 §3: the Ed25519 keys signing quotes and receipts, as JSON ({@link SigningKeySetSchema}); every API process
   * must get the same value. Unset: the database's `signing_keys` set (issue 25 §2), generated by the first API start
   * and shared by every API process on the database (a `DATA_DIR/signing-keys.json` of earlier versions is imported).
   */
  SIGNING_KEYS: jsonText.pipe(SigningKeySetSchema).optional(),
  /**
   * Issue 25 §2: 32 bytes (64 hex digits or base64 / base64url) that seal the private keys of the database's signing
   * key set at rest (AES-256-GCM); the same value in every API process and for `npm run keys:rotate`. Unset: they are
   * stored in clear and the database is a secret store. Keys stored in clear are sealed at the next API start.
   */
  SIGNING_KEYS_ENCRYPTION_KEY: z
    .string()
    .refine((s) => encryptionKeyBytes(s) !== null, '32 bytes as 64 hex digits or base64')
    .optional(),
  /**
   * Issue 26 §1 Payloads encrypted at rest: keys of the payload codec that encrypts every payload this service writes
   * to Temporal (workflow and activity inputs and results, signals, updates, queries, memos, summaries), as
   * {@link PayloadEncryptionKeysSchema} describes; the first encrypts, all decrypt. Every API, worker and script
   * talking to Temporal needs the same value. Unset (or empty): payloads are written in clear, as before; payloads
   * written in clear are always read, so histories from before encryption keep replaying.
   */
  PAYLOAD_ENCRYPTION_KEYS: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    PayloadEncryptionKeysSchema.optional(),
  ),
  /**
   * Origins (comma list) of the Temporal Web UIs allowed to call the codec server at `/codec` from the browser with
   * the operator's session cookie (CORS with credentials). Default: the local Web UI of `npm start`.
   */
  CODEC_CORS_ORIGINS: z
    .string()
    .default('http://127.0.0.1:8233,http://localhost:8233')
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim().replace(/\/$/, ''))
        .filter((o) => o.length > 0),
    ),
  /** Validity (`exp` − `iat`) of a signed delivery receipt; a retired key stays published at least this long. */
  RECEIPT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(365 * 24 * 3600),
  /** x402 (seed §5, issue 3): CAIP-2 network payments settle on. */
  X402_NETWORK: z
    .string()
    .regex(/^eip155:\d+$/, 'an eip155 CAIP-2 id such as eip155:8453')
    .default('eip155:8453'),
  /** Token paid with (USDC on Base by default; the embedded chain carries a look-alike at this address). */
  X402_ASSET: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  /** EIP-712 domain name and version of X402_ASSET (sent as `extra` in the requirements). */
  X402_ASSET_NAME: z.string().default('USD Coin'),
  X402_ASSET_VERSION: z.string().default('2'),
  /** Seller wallet. Default: anvil account #2, the embedded chain's pay-to (never use it on a real network). */
  X402_PAY_TO: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .default('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'),
  /** The facilitator verifying and settling payments (`npm start` runs one on this address). */
  X402_FACILITATOR_URL: z.string().url().default('http://127.0.0.1:4020'),
  /** `maxTimeoutSeconds` of the requirements: how long a signed authorization stays valid. */
  X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(60),
  /**
   * Issue 36 §1: key of the X402_PAY_TO account, held by the worker only. With it, an x402 settlement that no order
   * kept (another rail paid first, the order ended unpaid) is refunded on chain automatically; without it such a
   * refund is held for an operator (reconciliation discrepancy). `npm start` sets the local chain's pay-to key.
   */
  X402_REFUND_PRIVATE_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'a 32-byte hex private key')
      .optional(),
  ),
  /** JSON-RPC endpoint of the settlement chain, read by the worker to reconcile pending settlements. */
  X402_RPC_URL: z.string().url().default('http://127.0.0.1:8545'),
  /**
   * Issue 13: the OpenAI-compatible chat-completions server that does the services' language work (task-worker,
   * smart-consultation and the bundles holding them; wording of the receptionist and the audit when set). Base URL
   * up to before `/chat/completions`, e.g. https://api.openai.com/v1. Unset (or empty): no model; services that need
   * one are refused at order creation (422 text_generation_unavailable).
   */
  TEXTGEN_BASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  /** Model id sent as `model`, e.g. gpt-4o-mini. Needed with TEXTGEN_BASE_URL. */
  TEXTGEN_MODEL: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /** Bearer key of the model server, when it needs one. */
  TEXTGEN_API_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /**
   * Per-request timeout of the model server; a timeout is retried by the activity. Kept under the fulfilment
   * activity's own 30-second attempt timeout (workflows/order.ts), so the adapter's error, not Temporal's, ends it.
   */
  TEXTGEN_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(25),
  /**
   * Issue 24 §3: seconds between books reconciliations (Temporal Schedule `books-reconciliation`, created by the worker
   * at start); 0 turns it off (the worker deletes the schedule). With the grace period, an orphan debit is repaired
   * within interval + grace + one run.
   */
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(30),
  /** Seconds a wallet debit, settlement or order change may be in flight before reconciliation counts it. */
  RECONCILE_GRACE_SECONDS: z.coerce.number().int().min(0).default(20),
  /**
   * Issue 37 §3: what this deployment is. `production` is a promise that real money moves: the local payment-link
   * provider (which records a payment with no funds behind it) is refused then. NODE_ENV is not read for this: the
   * Docker image sets it to `production` for every run of the image, local ones included.
   */
  DEPLOYMENT_ENV: z.enum(['development', 'staging', 'production']).default('development'),
  /**
   * Issue 37 §3: who takes the hosted payment link's (`linkpay_ncp`) money. `local` (default): the service's own test
   * page records the payment, no card is charged (refused when DEPLOYMENT_ENV is production); `stripe`: Stripe
   * Checkout, confirmed by Stripe's webhook, refunded through Stripe (needs STRIPE_SECRET_KEY and
   * STRIPE_WEBHOOK_SECRET). ACP's delegated card payments need `stripe` too (src/payments/stripe.ts).
   */
  LINK_PROVIDER: z.enum(['local', 'stripe']).default('local'),
  /** Stripe secret API key (`sk_live_…`, `sk_test_…` or a restricted `rk_…`), held by the API and the worker. */
  STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(8).optional()),
  /** Signing secret (`whsec_…`) of the Stripe webhook endpoint `POST /api/v1/payments/stripe/webhook`. */
  STRIPE_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(8).optional()),
  /**
   * Base URL of the Stripe API, for stripe-mock in tests (`http://127.0.0.1:12111`); unset: https://api.stripe.com.
   */
  STRIPE_API_BASE: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()),
  /**
   * The `Stripe-Version` of the shared-payment-token calls (ACP delegated payment): the token endpoints and
   * `payment_method_data[shared_payment_granted_token]` are a Stripe preview, absent from the pinned API version.
   */
  STRIPE_SPT_API_VERSION: z.string().min(1).default('2026-04-22.preview'),
});

/** The configuration's rules across variables (issue 37 §3), checked after each variable parsed. */
const ConfigRules = ConfigSchema.superRefine((c, ctx) => {
  if (c.LINK_PROVIDER === 'local' && c.DEPLOYMENT_ENV === 'production') {
    ctx.addIssue({
      code: 'custom',
      path: ['LINK_PROVIDER'],
      message:
        'the local payment-link provider takes no money (test mode) and is refused when DEPLOYMENT_ENV is production: set LINK_PROVIDER=stripe',
    });
  }
  if (c.LINK_PROVIDER === 'stripe') {
    for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
      if (!c[name]) ctx.addIssue({ code: 'custom', path: [name], message: `required with LINK_PROVIDER=stripe` });
    }
  }
  if (c.DEPLOYMENT_ENV === 'production' && c.STRIPE_API_BASE) {
    ctx.addIssue({
      code: 'custom',
      path: ['STRIPE_API_BASE'],
      message: 'points Stripe calls at a mock: refused when DEPLOYMENT_ENV is production',
    });
  }
});

/** Parsed configuration; see {@link ConfigSchema}. */
export type Config = Readonly<z.infer<typeof ConfigSchema> & { PUBLIC_BASE_URL: string; STORAGE_DIR: string }>;

/**
 * Parses the environment (or the given record) into a frozen {@link Config}.
 * @throws ZodError when a variable is malformed, or the variables break a rule together (the local payment-link
 *   provider in production, LINK_PROVIDER=stripe without its keys).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigRules.parse(env);
  return Object.freeze({
    ...parsed,
    PUBLIC_BASE_URL: (parsed.PUBLIC_BASE_URL ?? `http://${parsed.HOST}:${parsed.PORT}`).replace(/\/$/, ''),
    STORAGE_DIR: parsed.STORAGE_DIR ?? path.join(parsed.DATA_DIR, 'deliverables'),
  });
}
