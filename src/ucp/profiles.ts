/**
 * The platform's UCP profile (issue 37 §2): the URL in `UCP-Agent: profile="…"` (an RFC 8941 Dictionary), fetched
 * SSRF-safe (the webhook guard's checks on the URL and on the address connected to; no redirects; a 5 s timeout; at
 * most 256 KiB), validated against the UCP profile schema (`profile.json#/$defs/platform_schema`, copied unchanged in
 * ./schemas, ajv 2020-12) and cached 60 s per URL in a bounded map.
 *
 * Source: ../shared/reference/protocols/ucp-main-2026-08-22/docs/specification/overview/index.md ("Platform
 * Advertisement on Request", "Profile Requirements: Fetching", "Error Codes"); signatures.md (`UCP-Agent` parsing).
 */
import http from 'node:http';
import https from 'node:https';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parseDictionary } from 'structured-headers';
import { problem } from '../errors';
import { assertPublicTarget, ForbiddenTargetError, guardedLookup } from '../webhooks/ssrf';
import capabilitySchema from './schemas/capability.json';
import constraintExpressionSchema from './schemas/common/types/constraint_expression.json';
import requestConstraintsSchema from './schemas/common/types/request_constraints.json';
import reverseDomainNameSchema from './schemas/common/types/reverse_domain_name.json';
import paymentHandlerSchema from './schemas/payment_handler.json';
import profileSchema from './schemas/profile.json';
import serviceSchema from './schemas/service.json';
import availableInstrumentSchema from './schemas/shopping/types/available_payment_instrument.json';
import embeddedConfigSchema from './schemas/transports/embedded_config.json';
import ucpSchema from './schemas/ucp.json';

/** The UCP version served (the v2026-08-25 release; the copied main of 2026-08-22). */
export const UCP_VERSION = '2026-08-25';
/** Every UCP version a platform's profile may declare. */
export const SUPPORTED_UCP_VERSIONS: readonly string[] = [UCP_VERSION];

/** Per-fetch timeout (connect, headers and body), milliseconds. */
export const PROFILE_FETCH_TIMEOUT_MS = 5_000;
/** Largest profile read; the spec asks verifiers not to go below 128 KiB. */
export const PROFILE_MAX_BYTES = 256 * 1024;
/** How long a fetched profile is used: the spec's TTL floor. */
export const PROFILE_TTL_MS = 60_000;
/** Profiles kept at once (the fixed discovery footprint the spec recommends). */
const CACHE_SIZE = 256;

/** A public JWK of a profile's `keys[]`. */
export interface ProfileJwk {
  kid: string;
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
}

/** An entry of a capability registry. */
export interface ProfileCapability {
  version: string;
  spec?: string;
  schema?: string;
  extends?: string | string[];
  config?: Record<string, unknown>;
}

/** A platform profile as validated. */
export interface PlatformProfile {
  ucp: {
    version: string;
    services: Record<string, unknown[]>;
    capabilities?: Record<string, ProfileCapability[]>;
    payment_handlers: Record<string, unknown[]>;
  };
  keys?: ProfileJwk[];
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
for (const s of [
  ucpSchema,
  serviceSchema,
  capabilitySchema,
  paymentHandlerSchema,
  reverseDomainNameSchema,
  requestConstraintsSchema,
  constraintExpressionSchema,
  availableInstrumentSchema,
  embeddedConfigSchema,
  profileSchema,
])
  ajv.addSchema(s);
const validatePlatformProfile = ajv.compile({ $ref: 'https://ucp.dev/schemas/profile.json#/$defs/platform_schema' });

/**
 * The profile URL of a `UCP-Agent` header value.
 * @throws ProblemError 400 `invalid_profile_url` (missing header, not a Dictionary with a string `profile`, not an
 *   https URL; http is taken only when `allowHttp`, the development mode's loopback profiles).
 */
export function profileUrlOf(header: string | undefined, allowHttp: boolean): string {
  const refuse = (why: string) => problem('invalid_profile_url', why, { param: 'UCP-Agent' });
  if (!header) throw refuse('UCP-Agent: profile="https://…" is required');
  let value: unknown;
  try {
    value = parseDictionary(header).get('profile')?.[0];
  } catch {
    throw refuse('UCP-Agent is not an RFC 8941 Dictionary');
  }
  if (typeof value !== 'string') throw refuse('UCP-Agent has no profile="…" string member');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('The UCP-Agent profile is not a URL');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    throw refuse('The UCP-Agent profile must be an https URL');
  return value;
}

/** GETs `url` without following redirects; the body as text, or why not. */
function fetchText(url: string, allowPrivate: boolean): Promise<{ status: number; body: string } | { error: string }> {
  const target = new URL(url);
  const mod = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: { status: number; body: string } | { error: string }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request(
      target,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'agent-commerce-ucp/1.0' },
        lookup: guardedLookup(allowPrivate),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > PROFILE_MAX_BYTES) {
            res.destroy();
            finish({ error: `the profile is larger than ${PROFILE_MAX_BYTES} bytes` });
          } else chunks.push(c);
        });
        res.on('end', () => finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => finish({ error: e.message }));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('timed out')), PROFILE_FETCH_TIMEOUT_MS);
    req.on('error', (e) => finish({ error: e.message || String(e) }));
    req.end();
  });
}

/** Fetches, validates and caches platform profiles. */
export class ProfileResolver {
  private readonly cache = new Map<string, { at: number; profile: PlatformProfile }>();

  /** @param allowPrivate DEV_MODE: loopback and private addresses (and http) allowed, as the webhook guard does. */
  constructor(private readonly allowPrivate: boolean) {}

  /**
   * The validated profile at `url` (from the cache when fetched less than {@link PROFILE_TTL_MS} ago).
   * @throws ProblemError 424 `profile_unreachable` (refused target, network error, timeout, a non-2xx or redirect
   *   answer); 422 `profile_malformed` (not JSON, or not a platform profile by the schema); 422 `version_unsupported`.
   */
  async resolve(url: string, now = Date.now()): Promise<PlatformProfile> {
    const hit = this.cache.get(url);
    if (hit && now - hit.at < PROFILE_TTL_MS) return hit.profile;
    try {
      await assertPublicTarget(url, this.allowPrivate);
    } catch (err) {
      const why = err instanceof ForbiddenTargetError ? err.reason : String(err);
      throw problem('profile_unreachable', `Unable to fetch agent profile: ${why}`);
    }
    const res = await fetchText(url, this.allowPrivate);
    if ('error' in res) throw problem('profile_unreachable', `Unable to fetch agent profile: ${res.error}`);
    if (res.status < 200 || res.status >= 300)
      throw problem('profile_unreachable', `Unable to fetch agent profile: HTTP ${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      throw problem('profile_malformed', 'The agent profile is not valid JSON');
    }
    if (!validatePlatformProfile(json)) {
      const first = validatePlatformProfile.errors?.[0];
      throw problem(
        'profile_malformed',
        `The agent profile is not a UCP platform profile: ${first?.instancePath || '/'} ${first?.message ?? ''}`.trim(),
      );
    }
    const profile = json as PlatformProfile;
    if (!SUPPORTED_UCP_VERSIONS.includes(profile.ucp.version))
      throw problem(
        'version_unsupported',
        `Protocol version ${profile.ucp.version} is not supported. This business supports ${SUPPORTED_UCP_VERSIONS.join(', ')}.`,
      );
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(url, { at: now, profile });
    return profile;
  }

  /** Forgets `url` (a signature by an unknown `kid` re-fetches once, as the spec allows). */
  forget(url: string): void {
    this.cache.delete(url);
  }
}
