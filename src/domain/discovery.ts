/**
 * Discovery: the multi-parameter filter behind `GET /api/v1/discover`. Pure functions over the catalogue, no I/O.
 *
 * Filter meanings (the seed names the parameters but not their semantics, so they are decided here):
 * - `capability`: one tag or a comma-separated list; every listed capability must match (AND). A capability
 *   matches a service tag when, after normalisation (lower case, spaces and hyphens → `_`), it equals the tag or is a
 *   whole-word prefix of it: `appointment` matches `appointment_scheduling`, `ros2` matches `ros2` and `ros2_control`,
 *   `work` matches nothing (not a whole word). Only `capabilities` are searched, not `constraints.supports`.
 * - `budget_max` (USD): the buyer's price must be ≤ budget_max. The buyer is an agent (`agent_price`) unless
 *   `buyer=human` (`human_price`), as a quote's `is_agent` defaults to true (seed §2.2).
 * - `billing`: exact billing, except that `one_time` and `one-time` are one value (the seed publishes both spellings).
 * - `automation`: exact `automation_level` (`fully_automated` does not include `fully_automated_core`).
 * - `language`: the code is in `supported_languages`.
 * - `region`: the region is in `supported_regions`, or the service lists `global` (a global service serves every
 *   region). `region=global` asks for services offered everywhere, i.e. those listing `global`.
 * - `payment_rail`: the rail is in `payment_rails`.
 * - `max_fulfillment` (hours): `max_fulfillment_hours` ≤ max_fulfillment.
 * - `min_sla` (percent, `99.5` or `99.5%`): the declared `sla` percentage ≥ min_sla (the seed's "SLA filtering").
 * Results keep catalogue order; each carries `matched_because`, one sentence per filter that was applied, and whether
 * this deployment can sell it (`available`; a service written by a language model cannot be sold where no model is
 * configured, see {@link serviceUnavailability}). Unavailable services are listed, marked, not left out: the
 * catalogue promises them, and the reason says what the deployment lacks.
 *
 * Source: seed §2.1 (fields, values), §4 (discovery parameters: "multi-parameter with SLA filtering"); issue 4 §1.
 */
import { z } from 'zod';
import { isUsdAmount } from './money';
import {
  AutomationLevel,
  LanguageCode,
  PaymentRail,
  Region,
  SERVICES,
  TEXT_GENERATION_MODEL,
  type ServiceDefinition,
} from './catalogue';

/**
 * What this deployment has configured, as far as selling services goes. Built from the configuration by the callers
 * (src/textgen `missingTextgenSettings`); the domain reads no environment.
 */
export interface DeploymentCapabilities {
  /** Text-generation settings still unset (`TEXTGEN_BASE_URL`, `TEXTGEN_MODEL`); empty when a model is configured. */
  missingTextgen: readonly string[];
}

/** A deployment that can sell every catalogued service (the default of the pure functions). */
export const FULL_DEPLOYMENT: DeploymentCapabilities = Object.freeze({ missingTextgen: Object.freeze([]) });

/** Reason codes for a service this deployment cannot sell; each is also the error code ordering it answers. */
export const UNAVAILABLE_REASONS = ['text_generation_unavailable'] as const;
/** Why this deployment cannot sell a service. Source: issue 13 (model-written services), issue 24 §5. */
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

/** Why one service cannot be sold here: the reason code and the settings the deployment lacks. */
export interface ServiceUnavailability {
  reason: UnavailableReason;
  /** Configuration the deployment would need (e.g. `['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL']`). */
  missing: string[];
}

/**
 * Why this deployment cannot sell `service`, or null when it can: a service (or bundle with a part) whose
 * `constraints.requires` holds `text_generation_model` needs a configured language model. The same rule as the
 * refusal at order creation (src/products/deliverables/availability.ts, 422 `text_generation_unavailable`).
 * @example serviceUnavailability(getService('task-worker')!, { missingTextgen: ['TEXTGEN_MODEL'] })
 *   // { reason: 'text_generation_unavailable', missing: ['TEXTGEN_MODEL'] }
 */
export function serviceUnavailability(
  service: ServiceDefinition,
  deployment: DeploymentCapabilities,
): ServiceUnavailability | null {
  if (deployment.missingTextgen.length === 0 || !service.constraints.requires?.includes(TEXT_GENERATION_MODEL))
    return null;
  return { reason: 'text_generation_unavailable', missing: [...deployment.missingTextgen] };
}

/** Names of the discovery filters, in the order they are evaluated and reported. */
export const DISCOVERY_FILTERS = [
  'capability',
  'budget_max',
  'billing',
  'automation',
  'language',
  'region',
  'payment_rail',
  'max_fulfillment',
  'min_sla',
] as const;
/** A discovery filter name. Source: seed §4 (eight parameters) plus `min_sla` (issue 4 §1). */
export type DiscoveryFilter = (typeof DISCOVERY_FILTERS)[number];

/**
 * Normalises a capability tag or query word: trimmed, lower case, runs of spaces / hyphens / dots → `_`.
 * @example normaliseTag(' Appointment-Scheduling ') === 'appointment_scheduling'
 */
export function normaliseTag(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

/**
 * The service tags a (normalised) capability matches: equal, or the capability is a whole-word prefix of the tag
 * (`tag` starts with `capability + '_'`). Empty when none matches.
 */
export function matchingTags(capability: string, tags: readonly string[]): string[] {
  return tags.filter((tag) => tag === capability || tag.startsWith(`${capability}_`));
}

/** Billing with the two published spellings of one-time folded into `one_time`. Source: seed §2.1. */
export function canonicalBilling(billing: string): string {
  return billing === 'one-time' ? 'one_time' : billing;
}

/** The declared SLA text as a number of percent (`'99.5%'` → 99.5). Source: seed §2.1 (`sla`). */
export function slaPercent(sla: string): number {
  return Number.parseFloat(sla.replace('%', ''));
}

const lowerTrim = (v: string) => v.trim().toLowerCase();
const NUMBER_TEXT = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const positiveNumber = (what: string) =>
  z
    .string()
    .trim()
    .regex(NUMBER_TEXT, `must be a non-negative decimal number (${what})`)
    .transform(Number)
    .refine((n) => Number.isFinite(n) && n <= 1_000_000_000, 'is too large');
const enumParam = <T extends z.ZodEnum<Readonly<Record<string, string>>>>(e: T) =>
  z.string().transform(lowerTrim).pipe(e);

/**
 * Query string of `GET /api/v1/discover`, parsed from the raw strings Koa gives (`ctx.query`). Every parameter is
 * optional and single-valued (a repeated parameter is invalid). Unknown parameters are refused by
 * {@link parseDiscoveryQuery} so a misspelt filter is not silently ignored.
 * Source: seed §4 ("Discovery query parameters"), issue 4 §1.
 */
export const DiscoveryQuery = z
  .object({
    capability: z
      .string()
      .max(500)
      .transform((v) =>
        v
          .split(',')
          .map(normaliseTag)
          .filter((t) => t.length > 0),
      )
      .pipe(
        z
          .array(z.string().regex(/^[a-z0-9_]{1,64}$/, 'capability tags use letters, digits and _'))
          .min(1, 'give at least one capability')
          .max(20),
      )
      .optional()
      .meta({
        description:
          'Capability tag, or comma-separated tags (all must match). Exact tag or whole-word prefix: `appointment` matches `appointment_scheduling`.',
        example: 'appointment_scheduling',
      }),
    budget_max: positiveNumber('USD')
      .refine(isUsdAmount, 'has more than 6 decimals (the smallest amount is 0.000001 USD)')
      .optional()
      .meta({
        description: 'Highest acceptable price in USD, compared with agent_price (human_price when buyer=human).',
        example: '100',
      }),
    billing: z
      .string()
      .transform(lowerTrim)
      .pipe(z.enum(['monthly', 'one_time', 'one-time', 'per_task']))
      .optional()
      .meta({ description: 'monthly, one_time, one-time or per_task; one_time and one-time are the same value.' }),
    automation: enumParam(AutomationLevel).optional().meta({ description: 'Exact automation_level.' }),
    language: enumParam(LanguageCode).optional().meta({ description: 'A language code the service supports.' }),
    region: enumParam(Region)
      .optional()
      .meta({ description: 'A region the service is offered in; services listing `global` serve every region.' }),
    payment_rail: enumParam(PaymentRail).optional().meta({ description: 'A payment rail the service accepts.' }),
    max_fulfillment: positiveNumber('hours')
      .refine((n) => n > 0, 'must be greater than 0')
      .optional()
      .meta({ description: 'Longest acceptable max_fulfillment_hours, in hours.', example: '24' }),
    min_sla: z
      .string()
      .trim()
      .transform((v) => v.replace(/%$/, ''))
      .pipe(positiveNumber('percent'))
      .refine((n) => n <= 100, 'must be at most 100')
      .optional()
      .meta({ description: 'Lowest acceptable declared SLA, in percent (`99.5` or `99.5%`).', example: '99.5' }),
    buyer: z.enum(['agent', 'human']).default('agent').meta({
      description: 'Whose price budget_max is compared with: agent (default, agent_price) or human (human_price).',
    }),
  })
  .meta({ id: 'DiscoveryQuery' });
/** Parsed discovery filters (numbers as numbers, capabilities as normalised tags). */
export type DiscoveryFilters = z.output<typeof DiscoveryQuery>;
/** The filter input before parsing. */
export type DiscoveryFiltersInput = z.input<typeof DiscoveryQuery>;

/** Result of {@link parseDiscoveryQuery}: the filters, or the first wrong parameter with a message. */
export type ParsedDiscoveryQuery =
  { ok: true; filters: DiscoveryFilters } | { ok: false; param: string; message: string };

const KNOWN_PARAMS = new Set<string>([...DISCOVERY_FILTERS, 'buyer']);

/**
 * Parses a raw query object (values string or string[], as Koa's `ctx.query` gives them).
 * Never throws: an unknown parameter, a repeated one or an invalid value is reported with its name.
 */
export function parseDiscoveryQuery(query: Record<string, string | string[] | undefined>): ParsedDiscoveryQuery {
  for (const [name, value] of Object.entries(query)) {
    if (!KNOWN_PARAMS.has(name)) {
      return { ok: false, param: name, message: `unknown parameter; filters are ${[...KNOWN_PARAMS].join(', ')}` };
    }
    if (Array.isArray(value)) return { ok: false, param: name, message: 'give the parameter once' };
  }
  const parsed = DiscoveryQuery.safeParse(query);
  if (parsed.success) return { ok: true, filters: parsed.data };
  const issue = parsed.error.issues[0];
  const param = String(issue?.path[0] ?? 'query');
  return { ok: false, param, message: issue?.message ?? 'invalid value' };
}

/**
 * One discovery result: the service, the price compared, why each applied filter let it through, and why this
 * deployment cannot sell it (null when it can).
 */
export interface DiscoveryMatch {
  service: ServiceDefinition;
  /** Price for the buyer kind, USD. */
  price: number;
  matched_because: Partial<Record<DiscoveryFilter, string>>;
  unavailable: ServiceUnavailability | null;
}

/**
 * Evaluates one filter against one service: the reason it matches, or null when it does not.
 * Only called for filters that are set.
 */
function check(filter: DiscoveryFilter, f: DiscoveryFilters, s: ServiceDefinition): string | null {
  const priceField = f.buyer === 'human' ? 'human_price' : 'agent_price';
  switch (filter) {
    case 'capability': {
      const parts: string[] = [];
      for (const cap of f.capability ?? []) {
        const tags = matchingTags(cap, s.capabilities);
        if (tags.length === 0) return null;
        parts.push(
          tags.length === 1 && tags[0] === cap ? `has capability ${cap}` : `${cap} matches ${tags.join(', ')}`,
        );
      }
      return parts.join('; ');
    }
    case 'budget_max':
      return s[priceField] <= (f.budget_max ?? Infinity)
        ? `${priceField} ${s[priceField]} USD ≤ budget_max ${f.budget_max} USD`
        : null;
    case 'billing':
      if (canonicalBilling(s.billing) !== canonicalBilling(f.billing ?? '')) return null;
      return s.billing === f.billing ? `billing is ${s.billing}` : `billing ${s.billing} is the same as ${f.billing}`;
    case 'automation':
      return s.automation_level === f.automation ? `automation_level is ${s.automation_level}` : null;
    case 'language':
      return f.language && s.supported_languages.includes(f.language) ? `supports language ${f.language}` : null;
    case 'region':
      if (f.region && s.supported_regions.includes(f.region)) return `offered in ${f.region}`;
      if (s.supported_regions.includes('global')) return `offered globally, which includes ${f.region}`;
      return null;
    case 'payment_rail':
      return f.payment_rail && s.payment_rails.includes(f.payment_rail) ? `accepts ${f.payment_rail}` : null;
    case 'max_fulfillment':
      return s.max_fulfillment_hours <= (f.max_fulfillment ?? Infinity)
        ? `max_fulfillment_hours ${s.max_fulfillment_hours} ≤ ${f.max_fulfillment}`
        : null;
    case 'min_sla':
      return slaPercent(s.sla) >= (f.min_sla ?? 0) ? `declared SLA ${s.sla} ≥ ${f.min_sla}%` : null;
  }
}

/**
 * The services that pass every filter that is set, in catalogue order, each with its reasons.
 * No filter set → every service (with an empty `matched_because`).
 *
 * @param filters - parsed filters ({@link parseDiscoveryQuery} or `DiscoveryQuery.parse`).
 * @param services - the catalogue (default {@link SERVICES}); tests may pass another list.
 * @param deployment - what the deployment has configured (default: everything), which marks `unavailable`.
 */
export function discoverServices(
  filters: DiscoveryFilters,
  services: readonly ServiceDefinition[] = SERVICES,
  deployment: DeploymentCapabilities = FULL_DEPLOYMENT,
): DiscoveryMatch[] {
  const active = DISCOVERY_FILTERS.filter((name) => filters[name] !== undefined);
  const out: DiscoveryMatch[] = [];
  for (const service of services) {
    const because: Partial<Record<DiscoveryFilter, string>> = {};
    let ok = true;
    for (const name of active) {
      const reason = check(name, filters, service);
      if (reason === null) {
        ok = false;
        break;
      }
      because[name] = reason;
    }
    if (ok)
      out.push({
        service,
        price: filters.buyer === 'human' ? service.human_price : service.agent_price,
        matched_because: because,
        unavailable: serviceUnavailability(service, deployment),
      });
  }
  return out;
}
