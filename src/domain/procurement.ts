/**
 * Goal-based procurement planning behind `POST /api/v1/procure`: from an objective and requirements to the one
 * service to buy, with the reasons. Pure and deterministic (same input, same plan), no I/O; the procurement workflow
 * runs it in an activity so the plan is recorded in its history.
 *
 * How the text is read (documented in docs/agent-self-service.md too):
 * - The objective is split into lower-case words (letters and digits). Each word, and each run of two or three
 *   adjacent words joined by `_`, is looked up: first as an exact catalogue capability tag (`booking page` →
 *   `booking_page`), then in the keyword table {@link OBJECTIVE_KEYWORDS} (`receptionist` → `ai_receptionist`,
 *   `n8n` → `n8n_workflow`, …), also with a trailing plural `s` removed. Words found nowhere are ignored (they are
 *   listed as `ignored_words`). Each recognised term is a soft wish, met by a service having any of its tags
 *   (terms standing for the same tags count once): wishes rank services, they do not exclude them.
 * - Each requirement is hard. `key:value` (or `key=value`) with a discovery filter name (language, region, billing,
 *   automation, payment_rail, max_fulfillment, min_sla) constrains like the same discovery filter. Otherwise the
 *   requirement, normalised like a tag, must match a catalogue capability (exact or whole-word prefix, as in
 *   discovery); failing that its words go through the keyword table and any of the tags found satisfies it. A
 *   requirement that maps to nothing is "unrecognised" and makes the procurement fail (no service can be shown to
 *   meet it).
 * - Wished or required tags that a service lists in `constraints.does_not_support` exclude it (keywords such as
 *   `voice`, `phone calls`, `legal`, `ecommerce` map to those negative tags on purpose).
 * - Eligible: every hard requirement met (or, with no capability requirement, at least one wish met), no
 *   conflict, every filter passed, sold on agent_wallet when buying automatically, agent price ≤ budget, and sellable
 *   on this deployment (a model-written service needs a configured language model: `ask.deployment`, see
 *   `serviceUnavailability` in ./discovery.ts). Best: most wishes met, then lowest agent price, then shortest
 *   max_fulfillment_hours, then catalogue order. When nothing is eligible, `missing` names the first of those steps
 *   that left no service and why the survivors of the step before failed it; services that only the deployment ruled
 *   out are listed in `unavailable` (the API then answers 422 `no_service_available` instead of `no_matching_service`).
 *
 * Source: seed §2.8 (request), §4 (procure row), §7 (422 when nothing matches), §8 (defaults); issue 4 §3;
 * issue 24 §5 (never plan a service the deployment cannot sell).
 */
import { SERVICES, getService, type ServiceDefinition } from './catalogue';
import {
  DISCOVERY_FILTERS,
  DiscoveryQuery,
  FULL_DEPLOYMENT,
  discoverServices,
  matchingTags,
  normaliseTag,
  serviceUnavailability,
  type DeploymentCapabilities,
  type DiscoveryFilters,
  type UnavailableReason,
} from './discovery';
import { microsToUsd, usdToMicros, type Micros } from './money';
import type { OrderInputs } from './order';

/**
 * Keyword → capability tags. Keys are single lower-case words (singular) or `_`-joined phrases. Tags are catalogue
 * capability tags or `does_not_support` entries (so an objective asking for something a service refuses excludes it).
 */
export const OBJECTIVE_KEYWORDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  receptionist: ['ai_receptionist'],
  reception: ['ai_receptionist'],
  front_desk: ['ai_receptionist'],
  appointment: ['appointment_scheduling'],
  booking: ['appointment_scheduling', 'booking_page'],
  book: ['appointment_scheduling'],
  schedule: ['appointment_scheduling'],
  scheduling: ['appointment_scheduling'],
  reservation: ['appointment_scheduling'],
  whatsapp: ['whatsapp_booking'],
  chat: ['web_chat'],
  chatbot: ['web_chat'],
  faq: ['faq_answering'],
  question: ['faq_answering'],
  lead: ['lead_capture'],
  escalation: ['human_escalation'],
  multilingual: ['multilingual'],
  website: ['website_builder', 'static_site'],
  site: ['website_builder', 'static_site'],
  webpage: ['website_builder'],
  landing_page: ['website_builder'],
  seo: ['seo_basics'],
  responsive: ['responsive_design'],
  workflow: ['workflow_automation', 'n8n_workflow'],
  automate: ['workflow_automation', 'n8n_workflow'],
  automation: ['workflow_automation', 'n8n_workflow'],
  n8n: ['n8n_workflow'],
  integrate: ['api_integration'],
  integration: ['api_integration', 'system_integration'],
  api: ['api_integration'],
  sync: ['data_sync', 'scheduled_sync'],
  synchronise: ['data_sync', 'scheduled_sync'],
  synchronize: ['data_sync', 'scheduled_sync'],
  webhook: ['webhook_trigger'],
  cron: ['scheduled_sync'],
  mapping: ['data_mapping'],
  openapi: ['openapi_spec'],
  task: ['task_execution'],
  plan: ['task_planning'],
  json: ['structured_output'],
  summarize: ['summarization'],
  summarise: ['summarization'],
  summary: ['summarization'],
  extract: ['data_extraction'],
  extraction: ['data_extraction'],
  llm: ['llm_agent'],
  agent: ['llm_agent'],
  tool_calling: ['tool_calling'],
  mcp: ['mcp_server'],
  rag: ['rag_pipeline'],
  retrieval: ['rag_pipeline'],
  consult: ['consultation'],
  consultation: ['consultation'],
  advice: ['business_advice'],
  advise: ['business_advice'],
  strategy: ['automation_strategy'],
  market_entry: ['market_entry'],
  expansion: ['market_entry'],
  relocate: ['relocation_guidance'],
  relocation: ['relocation_guidance'],
  robot: ['robot_control'],
  robotic: ['robot_control'],
  robotics: ['robot_control'],
  ros: ['ros2'],
  ros2: ['ros2'],
  motion: ['motion_planning'],
  sensor: ['sensor_integration'],
  plc: ['plc_integration'],
  safety: ['safety_interlocks'],
  audit: ['automation_audit', 'process_audit'],
  roi: ['roi_estimate'],
  clinic: ['clinic_operations'],
  dental: ['clinic_operations'],
  dentist: ['clinic_operations'],
  patient: ['patient_booking'],
  shop: ['retail_operations'],
  store: ['retail_operations'],
  retail: ['retail_operations'],
  growth: ['growth_automation'],
  grow: ['growth_automation'],
  launch: ['small_business_launch'],
  bundle: ['bundle'],
  // Negative tags: asking for these excludes the services that refuse them.
  voice: ['voice_calls'],
  phone_call: ['voice_calls'],
  legal: ['legal_advice'],
  tax: ['tax_filing'],
  ecommerce: ['ecommerce_checkout'],
  checkout: ['ecommerce_checkout'],
  domain_registration: ['domain_registration'],
  zapier: ['zapier_export'],
  hardware: ['hardware_supply'],
  hosting: ['managed_hosting'],
  model_training: ['model_training'],
});

/** Every capability tag of the catalogue. */
const CAPABILITY_TAGS: ReadonlySet<string> = new Set(SERVICES.flatMap((s) => s.capabilities));

/** Every capability tag and negative tag of the catalogue. */
const CATALOGUE_TAGS: ReadonlySet<string> = new Set(
  SERVICES.flatMap((s) => [...s.capabilities, ...s.constraints.does_not_support]),
);

/** Inputs a procurement can fill from its own fields when the caller gave none (objective text, e-mail). */
const TEXT_INPUTS_FROM_OBJECTIVE = [
  'description',
  'task_prompt',
  'objective',
  'business_description',
  'use_case',
  'growth_goals',
];

/** Filters a `key:value` requirement may set (discovery filters without capability and budget). */
const REQUIREMENT_FILTERS = DISCOVERY_FILTERS.filter((f) => f !== 'capability' && f !== 'budget_max');

/** One objective word or phrase and the tags it stands for. */
export interface ObjectiveTerm {
  term: string;
  tags: string[];
  via: 'capability_tag' | 'keyword';
}

/** A hard requirement after parsing. */
export type ParsedRequirement =
  | { requirement: string; kind: 'capability'; any_of: string[]; via: 'capability_tag' | 'keyword' }
  | { requirement: string; kind: 'filter'; filter: string; value: string }
  | { requirement: string; kind: 'unrecognised' };

/** Result of {@link parseRequirements}: the parsed list, or the first invalid `key:value` requirement. */
export type RequirementsParse =
  | { ok: true; requirements: ParsedRequirement[]; filters: DiscoveryFilters }
  | { ok: false; index: number; message: string };

/** Splits text into lower-case words of letters and digits. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function lookup(key: string): { tags: string[]; via: ObjectiveTerm['via'] } | null {
  for (const k of key.endsWith('s') && key.length > 3 ? [key, key.slice(0, -1)] : [key]) {
    if (CATALOGUE_TAGS.has(k)) return { tags: [k], via: 'capability_tag' };
    const mapped = OBJECTIVE_KEYWORDS[k];
    if (mapped) return { tags: [...mapped], via: 'keyword' };
  }
  return null;
}

/**
 * Reads an objective: the terms recognised (longest phrase first, three words down to one, no word used twice)
 * and the words ignored.
 * @example readObjective('AI receptionist on WhatsApp').terms.map((t) => t.term) // ['receptionist', 'whatsapp']
 */
export function readObjective(objective: string | undefined): { terms: ObjectiveTerm[]; ignored: string[] } {
  const words = tokenize(objective ?? '');
  const used = new Array<boolean>(words.length).fill(false);
  const found: (ObjectiveTerm & { at: number })[] = [];
  for (let n = 3; n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      if (used.slice(i, i + n).some(Boolean)) continue;
      const key = words.slice(i, i + n).join('_');
      const hit = lookup(key);
      if (!hit) continue;
      for (let j = i; j < i + n; j++) used[j] = true;
      found.push({ term: words.slice(i, i + n).join(' '), tags: hit.tags, via: hit.via, at: i });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return {
    terms: found.map(({ at: _at, ...t }) => t),
    ignored: [...new Set(words.filter((_, i) => !used[i]))],
  };
}

/**
 * Parses the hard requirements (see the module comment). `key:value` requirements are validated with the
 * discovery query schema; an invalid one is reported with its index (the API answers 400 `requirements.<i>`).
 */
export function parseRequirements(requirements: readonly string[]): RequirementsParse {
  const parsed: ParsedRequirement[] = [];
  const raw: Record<string, string> = {};
  for (const [index, requirement] of requirements.entries()) {
    const kv = /^\s*([a-z_]+)\s*[:=]\s*(.+?)\s*$/i.exec(requirement);
    const key = kv?.[1]?.toLowerCase();
    if (kv && key && (REQUIREMENT_FILTERS as readonly string[]).includes(key)) {
      const value = kv[2] ?? '';
      const check = DiscoveryQuery.safeParse({ [key]: value });
      if (!check.success)
        return { ok: false, index, message: `${key}: ${check.error.issues[0]?.message ?? 'invalid value'}` };
      if (raw[key] !== undefined && raw[key] !== value) return { ok: false, index, message: `${key} is given twice` };
      raw[key] = value;
      parsed.push({ requirement, kind: 'filter', filter: key, value });
      continue;
    }
    const tag = normaliseTag(requirement);
    // Positive tags first, so `data` means data_sync etc. and not also the negative data_migration_services.
    const positive = tag ? matchingTags(tag, [...CAPABILITY_TAGS]) : [];
    const direct = positive.length > 0 ? positive : tag ? matchingTags(tag, [...CATALOGUE_TAGS]) : [];
    if (direct.length > 0) {
      parsed.push({ requirement, kind: 'capability', any_of: direct.sort(), via: 'capability_tag' });
      continue;
    }
    const tags = [...new Set(readObjective(requirement).terms.flatMap((t) => t.tags))];
    parsed.push(
      tags.length > 0
        ? { requirement, kind: 'capability', any_of: tags, via: 'keyword' }
        : { requirement, kind: 'unrecognised' },
    );
  }
  return { ok: true, requirements: parsed, filters: DiscoveryQuery.parse(raw) };
}

/** What a procurement asks for, amounts in micro-units. */
export interface ProcurementAsk {
  objective?: string;
  requirements: readonly string[];
  budgetMicros: Micros;
  /** True when the plan will be bought from the agent wallet (the service must accept agent_wallet). */
  autoPurchase: boolean;
  /** Inputs given by the caller; missing required ones are filled from `objective` / `email` where obvious. */
  inputs?: Record<string, string | number | boolean | string[]>;
  email?: string;
  /**
   * What the deployment can sell (a configured language model or not); absent: everything, as in a deployment with
   * every setting. Services it cannot sell are never chosen (see {@link ProcurementPlan.unavailable}).
   */
  deployment?: DeploymentCapabilities;
}

/** A service that met the whole ask but this deployment cannot sell (issue 24 §5). */
export interface PlanUnavailable {
  service_id: string;
  /** Stable reason code, the code an order for it is refused with (`text_generation_unavailable`). */
  reason: UnavailableReason;
  /** Configuration the deployment lacks for it (`TEXTGEN_BASE_URL`, `TEXTGEN_MODEL`). */
  missing: string[];
}

/** How one service fared in the plan. */
export interface PlanCandidate {
  service_id: string;
  agent_price: number;
  /** Objective terms the service covers (it has at least one of the term's tags). */
  covered: string[];
  eligible: boolean;
  /** Why it was not eligible (empty when eligible). */
  rejected_because: string[];
}

/** The plan: what was understood, every candidate's fate, the choice and why. USD numbers for display. */
export interface ProcurementPlan {
  objective_terms: ObjectiveTerm[];
  ignored_words: string[];
  /** Union of the objective terms' tags. */
  wanted_capabilities: string[];
  requirements: ParsedRequirement[];
  budget: number;
  /** Services relevant to the ask (covering some of the objective, or any when only requirements were given). */
  candidates: PlanCandidate[];
  chosen: {
    service_id: string;
    name: string;
    agent_price: number;
    /** Objective terms covered / not covered. */
    covered: string[];
    missing: string[];
    /** covered / objective terms (1 when the objective named nothing and only requirements decided). */
    coverage: number;
  } | null;
  /** Human-readable reasoning, in order. */
  explanation: string[];
  /** When nothing matches: what could not be met (capabilities no service has, requirements not understood, budget). */
  missing: string[];
  /**
   * Services that pass every other step but this deployment cannot sell, in catalogue order. With `chosen` null and
   * this non-empty, something would fit but cannot be sold here. May be absent on plans recorded before issue 24.
   */
  unavailable: PlanUnavailable[];
  /** Order inputs for the chosen service (given ones first, then filled ones). */
  inputs: Record<string, string | number | boolean | string[]>;
  /** Required inputs of the chosen service still missing. */
  missing_inputs: string[];
}

const usd = (m: number) => `${microsToUsd(m)} USD`;

/** One narrowing step: a service passes it or gets a reason. */
type Stage = { name: string; check: (s: ServiceDefinition) => string[] };

/**
 * Plans a procurement. Never throws for business reasons: when nothing fits, `chosen` is null and `missing` says
 * which step left no service (what no service offers, the filter or the budget that ruled the rest out).
 * @throws RangeError only for a malformed ask (negative or non-integer budget) or a `key:value` requirement with an
 *   invalid value (validate with {@link parseRequirements} first).
 */
export function planProcurement(
  ask: ProcurementAsk,
  services: readonly ServiceDefinition[] = SERVICES,
): ProcurementPlan {
  if (!Number.isSafeInteger(ask.budgetMicros) || ask.budgetMicros < 0)
    throw new RangeError('budgetMicros must be a non-negative integer');
  const reqs = parseRequirements(ask.requirements);
  if (!reqs.ok) throw new RangeError(`requirements[${reqs.index}]: ${reqs.message}`);
  const { terms: rawTerms, ignored } = readObjective(ask.objective);
  // Terms standing for the same tags count once ("dental clinic" is one wish).
  const terms = rawTerms.filter((t, i) => rawTerms.findIndex((u) => u.tags.join() === t.tags.join()) === i);
  const wanted = [...new Set(terms.flatMap((t) => t.tags))];
  const hard = reqs.requirements.filter(
    (r): r is Extract<ParsedRequirement, { kind: 'capability' }> => r.kind === 'capability',
  );
  const unrecognised = reqs.requirements.filter((r) => r.kind === 'unrecognised').map((r) => r.requirement);
  const filters = reqs.filters;
  const explanation: string[] = [];
  for (const t of rawTerms) explanation.push(`objective "${t.term}" → ${t.tags.join(' or ')}`);
  for (const r of reqs.requirements) {
    if (r.kind === 'capability') explanation.push(`requirement "${r.requirement}" needs ${r.any_of.join(' or ')}`);
    if (r.kind === 'filter') explanation.push(`requirement "${r.requirement}" filters ${r.filter} = ${r.value}`);
    if (r.kind === 'unrecognised') explanation.push(`requirement "${r.requirement}" matches no capability or filter`);
  }
  const base = {
    objective_terms: rawTerms,
    ignored_words: ignored,
    wanted_capabilities: wanted,
    requirements: reqs.requirements,
    budget: microsToUsd(ask.budgetMicros),
  };
  const deployment = ask.deployment ?? FULL_DEPLOYMENT;
  const fail = (
    missing: string[],
    candidates: PlanCandidate[],
    unavailable: PlanUnavailable[] = [],
  ): ProcurementPlan => {
    explanation.push(...missing);
    return { ...base, candidates, chosen: null, explanation, missing, unavailable, inputs: {}, missing_inputs: [] };
  };
  if (unrecognised.length > 0)
    return fail(
      unrecognised.map((r) => `requirement "${r}" is not a known capability or filter`),
      [],
    );
  if (terms.length === 0 && hard.length === 0)
    return fail(['the objective and requirements name no capability this catalogue knows'], []);

  const coveredTerms = (s: ServiceDefinition) =>
    terms.filter((t) => t.tags.some((tag) => s.capabilities.includes(tag))).map((t) => t.term);
  const stages: Stage[] = [
    {
      name: 'capabilities',
      check: (s) => [
        ...hard
          .filter((r) => !r.any_of.some((tag) => s.capabilities.includes(tag)))
          .map((r) => `lacks required "${r.requirement}"`),
        ...(hard.length === 0 && coveredTerms(s).length === 0 ? ['covers none of the objective'] : []),
      ],
    },
    {
      name: 'negative constraints',
      check: (s) => {
        const conflicts = [...new Set([...wanted, ...hard.flatMap((r) => r.any_of)])].filter((tag) =>
          s.constraints.does_not_support.includes(tag),
        );
        return conflicts.length > 0 ? [`does not support ${conflicts.join(', ')}`] : [];
      },
    },
    {
      name: 'requirements filters',
      check: (s) =>
        REQUIREMENT_FILTERS.filter(
          (name) =>
            filters[name] !== undefined &&
            discoverServices({ [name]: filters[name], buyer: 'agent' } as DiscoveryFilters, [s]).length === 0,
        ).map((name) => `fails ${name}=${String(filters[name])}`),
    },
    {
      name: 'payment rail',
      check: (s) => (ask.autoPurchase && !s.payment_rails.includes('agent_wallet') ? ['not sold on agent_wallet'] : []),
    },
    {
      name: 'budget',
      check: (s) => {
        const price = usdToMicros(s.agent_price);
        return price > ask.budgetMicros ? [`agent price ${usd(price)} exceeds budget ${usd(ask.budgetMicros)}`] : [];
      },
    },
    {
      // Last, so that a service ruled out only here is one that meets the whole ask (`unavailable`).
      name: 'deployment',
      check: (s) => {
        const u = serviceUnavailability(s, deployment);
        return u ? [unavailableText(u.missing)] : [];
      },
    },
  ];

  const evaluated = services.map((service, order) => {
    const rejected = stages.flatMap((st) => st.check(service));
    return { service, order, covered: coveredTerms(service), rejected };
  });
  const relevant = evaluated.filter((c) => !c.rejected.includes('covers none of the objective'));
  const candidates: PlanCandidate[] = relevant.map((c) => ({
    service_id: c.service.id,
    agent_price: c.service.agent_price,
    covered: c.covered,
    eligible: c.rejected.length === 0,
    rejected_because: c.rejected,
  }));
  const unavailable: PlanUnavailable[] = evaluated.flatMap((c) => {
    const u = serviceUnavailability(c.service, deployment);
    // Met the whole ask but for the deployment: the deployment step's is its only rejection.
    return u && c.rejected.length === 1 ? [{ service_id: c.service.id, reason: u.reason, missing: u.missing }] : [];
  });
  const ranked = evaluated
    .filter((c) => c.rejected.length === 0)
    .sort(
      (a, b) =>
        b.covered.length - a.covered.length ||
        a.service.agent_price - b.service.agent_price ||
        a.service.max_fulfillment_hours - b.service.max_fulfillment_hours ||
        a.order - b.order,
    );
  const best = ranked[0];
  if (!best) {
    // Narrow stage by stage and report the step that left nothing, naming who survived the step before.
    let alive = [...services];
    const missing: string[] = [];
    for (const stage of stages) {
      const next = alive.filter((s) => stage.check(s).length === 0);
      if (next.length > 0) {
        alive = next;
        continue;
      }
      if (stage.name === 'capabilities') {
        for (const r of hard.filter(
          (r) => !services.some((s) => r.any_of.some((tag) => s.capabilities.includes(tag))),
        )) {
          missing.push(`no service offers "${r.requirement}" (${r.any_of.join(' or ')})`);
        }
        if (missing.length === 0)
          missing.push(
            `no service offers all of: ${[...hard.map((r) => r.requirement), ...(hard.length === 0 ? terms.map((t) => t.term) : [])].join(', ')}`,
          );
      } else if (stage.name === 'deployment') {
        missing.push(
          `not sellable on this deployment: ${alive.map((s) => s.id).join(', ')} ${alive.length === 1 ? 'is' : 'are'} written by a language model and none is configured (${deployment.missingTextgen.join(', ')} unset)`,
        );
      } else if (stage.name === 'budget') {
        const cheapest = [...alive].sort((a, b) => a.agent_price - b.agent_price)[0];
        if (cheapest)
          missing.push(
            `budget: the cheapest matching service, ${cheapest.id}, costs ${cheapest.agent_price} USD, above the budget of ${microsToUsd(ask.budgetMicros)} USD`,
          );
      } else {
        missing.push(`${stage.name}: ${alive.map((s) => `${s.id} ${stage.check(s).join('; ')}`).join('; ')}`);
      }
      break;
    }
    return fail(missing, candidates, unavailable);
  }

  const s = best.service;
  const missingTerms = terms.map((t) => t.term).filter((t) => !best.covered.includes(t));
  explanation.push(
    terms.length > 0
      ? `chose ${s.id}: covers ${best.covered.length} of ${terms.length} wishes (${best.covered.join(', ') || 'none'}) at ${s.agent_price} USD within the budget of ${microsToUsd(ask.budgetMicros)} USD; ties go to the lower price, then the shorter fulfillment`
      : `chose ${s.id}: meets every requirement at the lowest agent price, ${s.agent_price} USD, within the budget of ${microsToUsd(ask.budgetMicros)} USD`,
  );
  const runnerUp = ranked[1];
  if (runnerUp) {
    explanation.push(
      `next best: ${runnerUp.service.id} (${terms.length > 0 ? `covers ${runnerUp.covered.length}, ` : ''}${runnerUp.service.agent_price} USD)`,
    );
  }
  for (const c of evaluated.filter((c) => c.rejected.length > 0 && c.covered.length > best.covered.length)) {
    explanation.push(`${c.service.id} covers more (${c.covered.length}) but ${c.rejected.join('; ')}`);
  }

  const inputs = fillInputs(s, ask);
  const missingInputs = Object.entries(s.inputs)
    .filter(([name, req]) => req === 'required' && !isPresent(inputs[name]))
    .map(([name]) => name);
  if (missingInputs.length > 0) explanation.push(`${s.id} still needs inputs: ${missingInputs.join(', ')}`);
  return {
    ...base,
    candidates,
    chosen: {
      service_id: s.id,
      name: s.name,
      agent_price: s.agent_price,
      covered: best.covered,
      missing: missingTerms,
      coverage: terms.length > 0 ? best.covered.length / terms.length : 1,
    },
    explanation,
    missing: [],
    unavailable,
    inputs,
    missing_inputs: missingInputs,
  };
}

/** A candidate's rejection by the deployment step. */
function unavailableText(missing: readonly string[]): string {
  return `not sellable on this deployment: written by a language model, and none is configured (${missing.join(', ')} unset)`;
}

function isPresent(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

/** Inputs for the order: the caller's, then obvious fills (objective text, e-mail) for required ones still absent. */
function fillInputs(
  service: ServiceDefinition,
  ask: ProcurementAsk,
): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = { ...(ask.inputs ?? {}) };
  for (const [name, req] of Object.entries(service.inputs)) {
    if (req !== 'required' || isPresent(out[name])) continue;
    if (TEXT_INPUTS_FROM_OBJECTIVE.includes(name) && ask.objective?.trim()) out[name] = ask.objective.trim();
    if (name === 'contact_email' && ask.email) out[name] = ask.email;
  }
  return out;
}

/** The catalogued service of a plan's choice. @throws Error when the plan chose nothing or an unknown id. */
export function chosenService(plan: ProcurementPlan): ServiceDefinition {
  const s = plan.chosen ? getService(plan.chosen.service_id) : undefined;
  if (!s) throw new Error('the plan chose no catalogued service');
  return s;
}

// ---------------------------------------------------------------------------------------------
// A procurement run (issue 4 §3): what the procurement workflow takes and returns
// ---------------------------------------------------------------------------------------------

/**
 * Outcome of a procurement: `completed` (ordered and paid), `planned` (auto_purchase false: plan and quote only),
 * `no_match` (nothing fits), `needs_inputs` (the chosen service needs inputs the request did not give),
 * `payment_failed` (the order was created but the wallet payment was refused; the order stays awaiting_payment).
 */
export type ProcurementStatus = 'completed' | 'planned' | 'no_match' | 'needs_inputs' | 'payment_failed';

/** Values of the `ProcurementStatus` search attribute: the outcomes plus the running steps. */
export type ProcurementProgress = 'planning' | 'quoting' | 'ordering' | 'paying' | ProcurementStatus;

/** Arguments of `procurementWorkflow`; amounts in integer micro-units. */
export interface ProcurementWorkflowInput {
  procurementId: string;
  objective?: string;
  requirements: string[];
  budgetMicros: number;
  currency: string;
  autoPurchase: boolean;
  agentId?: string;
  email?: string;
  inputs: OrderInputs;
  /**
   * True when the API checked the agent key of `agentId`'s wallet before starting the workflow. The key itself never
   * enters the workflow (its history is readable by operators); this flag is what lets the payment activity spend.
   */
  walletSpendAuthorized: boolean;
  createdAt: string;
}

/** What the workflow returns (and records); the API renders quote and order from their ids. */
export interface ProcurementResult {
  procurementId: string;
  status: ProcurementStatus;
  plan: ProcurementPlan;
  serviceId: string | null;
  quoteId: string | null;
  orderId: string | null;
  /** Why the purchase stopped (payment_failed, needs_inputs): the API error code, message and details. */
  failure?: { code: string; message: string; details?: Record<string, unknown> };
  completedAt: string;
}

/** The random part shared by a procurement's own ids: `prc_X` → quote `quo_X`, order `ord_X` (retry-safe creation). */
export function procurementSuffix(procurementId: string): string {
  return procurementId.replace(/^prc_/, '');
}
