/**
 * The service catalogue: the 14 automation services sold to agents and humans, their zod schemas,
 * and pure helpers over them (lookup, pricing in micro-units, input checks, deadlines).
 *
 * Prices in {@link ServiceDefinition} are USD numbers, as the public API shows them; code that moves
 * money converts them with {@link priceMicros} (integer micro-units, 1 USD = 1,000,000).
 *
 * Source: seed §2.1 (service definition, catalogue envelope, per-service tables), §1 (rails,
 * partner commission), §9 (protocol label, terms version).
 */
import { z } from 'zod';
import { usdToMicros, type Micros } from './money';

// ---------------------------------------------------------------------------------------------
// Versions and labels
// ---------------------------------------------------------------------------------------------

/** Protocol label of the services envelope; ends in 2.3 (seed §9). */
export const PROTOCOL = 'agent-commerce/2.3';

/** Version of this catalogue's content (services, prices, labels). Bump on any change to SERVICES. */
export const CATALOGUE_VERSION = '2026.3.0';

/** Terms version carried by services that declare terms (seed §9). */
export const TERMS_VERSION = '2026.3-A2A';

/** Human-readable partner commission shown in the envelope (seed §1, §2.1). */
export const AGENT_PARTNER_COMMISSION = '20% recurring or per-deal';

/** Partner commission as a percentage of the order price, for {@link percentOf} (seed §1). */
export const PARTNER_COMMISSION_PERCENT = 20;

/** Currency of every catalogue price. */
export const CATALOGUE_CURRENCY = 'USD';

/**
 * Constraint tag of services whose promise is language work (issue 13): the deployment must have a text-generation
 * model configured, or orders are refused up front.
 */
export const TEXT_GENERATION_MODEL = 'text_generation_model';

/** Path (relative to the public base URL) of a service's hosted payment link; see {@link serviceView}. */
export function linkpayPath(serviceId: string): string {
  return `/pay/services/${encodeURIComponent(serviceId)}`;
}

// ---------------------------------------------------------------------------------------------
// Enumerations (seed §2.1 "values seen")
// ---------------------------------------------------------------------------------------------

/** Billing values exactly as the seed writes them (note both `one_time` and `one-time`). */
export const Billing = z
  .enum(['monthly', 'one_time', 'one-time', 'per_task'])
  .meta({ description: 'How the service is billed. Values as published: monthly, one_time, one-time, per_task.' });
/** Billing value. Source: seed §2.1. */
export type Billing = z.infer<typeof Billing>;

/** Fulfillment label shown to buyers; the binding figure is `max_fulfillment_hours`. */
export const EstimatedFulfillment = z
  .enum([
    'instant',
    'instant_provisioning',
    'instant_blueprint',
    'under_30_seconds',
    'template_60s_custom_24h',
    'custom_24h',
    'custom_48h',
    'custom_3_days',
    'custom_5_days',
    'custom_7_days',
  ])
  .meta({ description: 'Fulfillment time label; max_fulfillment_hours is the binding bound.' });
/** Fulfillment label. Source: seed §2.1. */
export type EstimatedFulfillment = z.infer<typeof EstimatedFulfillment>;

/** Declared SLA percentage text. */
export const Sla = z.enum(['99.9%', '99.5%', '99.0%']).meta({ description: 'Declared SLA target as percentage text.' });
/** SLA text. Source: seed §2.1. */
export type Sla = z.infer<typeof Sla>;

/** How much of the delivery is automated. */
export const AutomationLevel = z.enum(['fully_automated', 'fully_automated_core', 'expert_delivery']).meta({
  description:
    'fully_automated: generated without people; fully_automated_core: automated parts with a human QA pass; expert_delivery: delivered by engineers.',
});
/** Automation level. Source: seed §2.1. */
export type AutomationLevel = z.infer<typeof AutomationLevel>;

/** Which human involvement the delivery includes. */
export const HumanIntervention = z
  .enum(['none', 'optional_escalation', 'qa_review', 'dedicated_review', 'engineer_review', 'dedicated_engineer'])
  .meta({ description: 'Human involvement in the delivery.' });
/** Human intervention value. Source: seed §2.1. */
export type HumanIntervention = z.infer<typeof HumanIntervention>;

/** Supported language codes. */
export const LanguageCode = z.enum(['en', 'ar', 'es', 'fr', 'de']).meta({ description: 'ISO 639-1 language code.' });
/** Language code. Source: seed §2.1. */
export type LanguageCode = z.infer<typeof LanguageCode>;

/** Supported regions. */
export const Region = z
  .enum(['global', 'north_america', 'europe', 'middle_east', 'mena'])
  .meta({ description: 'Region where the service is offered.' });
/** Region. Source: seed §2.1. */
export type Region = z.infer<typeof Region>;

/** Payment rails (seed §1): hosted payment link, USDC via x402 on eip155:8453, internal agent wallet. */
export const PaymentRail = z.enum(['linkpay_ncp', 'x402_usdc', 'agent_wallet']).meta({
  description: 'linkpay_ncp: hosted payment link; x402_usdc: USDC on eip155:8453; agent_wallet: internal wallet.',
});
/** Payment rail. Source: seed §1, §2.1. */
export type PaymentRail = z.infer<typeof PaymentRail>;

/** Whether an input is required or optional. */
export const InputRequirement = z.enum(['required', 'optional']);
/** Input requirement. Source: seed §2.1. */
export type InputRequirement = z.infer<typeof InputRequirement>;

/** Type label of an output. */
export const OutputType = z.enum(['string', 'number', 'array']);
/** Output type label. Source: seed §2.1. */
export type OutputType = z.infer<typeof OutputType>;

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const SERVICE_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * One element of the catalogue's `services` list. Prices are USD numbers (not micro-units).
 * Source: seed §2.1.
 */
export const ServiceDefinition = z
  .object({
    id: z
      .string()
      .regex(SERVICE_ID_PATTERN)
      .meta({ description: 'Service identifier (kebab-case).', example: 'ai-receptionist' }),
    name: z.string().min(1).meta({ description: 'Display name.' }),
    human_price: z.number().nonnegative().meta({ description: 'Price in `currency` (USD) for a human buyer.' }),
    agent_price: z.number().nonnegative().meta({ description: 'Price in `currency` (USD) for an agent buyer.' }),
    currency: z.literal('USD').meta({ description: 'Currency of the prices: USD.' }),
    billing: Billing,
    estimated_fulfillment: EstimatedFulfillment,
    max_fulfillment_hours: z
      .number()
      .positive()
      .meta({ description: 'Upper bound on fulfillment time in hours; used by the max_fulfillment discovery filter.' }),
    sla: Sla,
    automation_level: AutomationLevel,
    human_intervention: HumanIntervention,
    supported_languages: z
      .array(LanguageCode)
      .min(1)
      .meta({ description: 'Language codes the deliverables can be produced in.' }),
    supported_regions: z.array(Region).min(1).meta({ description: 'Regions where the service is offered.' }),
    payment_rails: z.array(PaymentRail).min(1).meta({ description: 'Payment rails accepted for this service.' }),
    inputs: z.record(z.string(), InputRequirement).meta({ description: 'Input name -> required or optional.' }),
    outputs: z
      .record(z.string(), OutputType)
      .meta({ description: 'Output name -> type label (string, number, array).' }),
    capabilities: z.array(z.string()).meta({ description: 'Capability tags used by discovery and negotiation.' }),
    constraints: z
      .object({
        supports: z.array(z.string()).meta({ description: 'Things the service explicitly supports.' }),
        does_not_support: z.array(z.string()).meta({ description: 'Explicit negative constraints.' }),
        requires: z
          .array(z.enum([TEXT_GENERATION_MODEL]))
          .optional()
          .meta({
            description:
              'What the deployment must have configured for the service to be ordered. `text_generation_model`: the service does language work (a language model writes it), so it needs TEXTGEN_BASE_URL and TEXTGEN_MODEL; without them POST /api/v1/orders answers 422 text_generation_unavailable.',
          }),
      })
      .meta({ description: 'Positive and explicit negative constraints.' }),
    linkpay_url: z.string().nullable().meta({
      description:
        'Hosted payment link (absolute URL in API responses); null when the service has no such link. Inside SERVICES it holds the path relative to the base URL.',
    }),
    description: z.string().optional().meta({ description: 'What the buyer receives.' }),
    terms_version: z.string().optional().meta({ description: 'Terms version, e.g. 2026.3-A2A.' }),
    refund_eligible: z.boolean().optional().meta({ description: 'Whether a rejected delivery can be refunded.' }),
    sku: z.string().optional().meta({ description: 'Stock-keeping unit.' }),
    bundle: z.boolean().optional().meta({ description: 'True on bundles.' }),
    includes: z
      .array(z.string())
      .optional()
      .meta({ description: 'Service ids contained in a bundle, in delivery order.' }),
  })
  .meta({ id: 'ServiceDefinition', description: 'A catalogued service (seed §2.1). Prices are USD numbers.' });
/** A catalogued service. Prices are USD numbers. Source: seed §2.1. */
export type ServiceDefinition = z.infer<typeof ServiceDefinition>;

/**
 * Envelope of `GET /api/v1/services`. Source: seed §2.1 ("Catalogue envelope").
 */
export const CatalogueEnvelope = z
  .object({
    status: z.string().meta({ description: 'Catalogue status, "ok" when the catalogue is served.' }),
    protocol: z.string().meta({ description: 'Protocol label, ending in 2.3.', example: PROTOCOL }),
    agent_partner_commission: z
      .string()
      .meta({ description: 'Partner commission text.', example: AGENT_PARTNER_COMMISSION }),
    currency: z.string().meta({ description: 'Currency of all prices: USD.' }),
    services: z.array(ServiceDefinition).meta({ description: 'The catalogued services.' }),
  })
  .meta({
    id: 'CatalogueEnvelope',
    description: 'Service catalogue with agent-specific prices, capabilities and negative constraints.',
  });
/** Envelope of the services list. Source: seed §2.1. */
export type CatalogueEnvelope = z.infer<typeof CatalogueEnvelope>;

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

const ALL_RAILS: PaymentRail[] = ['linkpay_ncp', 'x402_usdc', 'agent_wallet'];
const LINK_AND_WALLET: PaymentRail[] = ['linkpay_ncp', 'agent_wallet'];
const ALL_LANGUAGES: LanguageCode[] = ['en', 'ar', 'es', 'fr', 'de'];
const EXPERT_REGIONS: Region[] = ['north_america', 'europe', 'middle_east', 'mena'];

type Single = Omit<ServiceDefinition, 'linkpay_url'> & { linkpay: boolean };

function single(def: Single): ServiceDefinition {
  const { linkpay, ...rest } = def;
  return { ...rest, linkpay_url: linkpay ? linkpayPath(def.id) : null };
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** Builds a bundle: capabilities and constraints are the union of its parts plus its own tags. */
function bundle(
  def: Omit<Single, 'bundle' | 'includes' | 'capabilities' | 'constraints' | 'linkpay'> & {
    includes: ServiceDefinition[];
    extra_capabilities: string[];
    does_not_support: string[];
  },
): ServiceDefinition {
  const { includes, extra_capabilities, does_not_support, ...rest } = def;
  return {
    ...rest,
    capabilities: unique([...includes.flatMap((s) => s.capabilities), ...extra_capabilities]),
    constraints: {
      supports: unique(includes.flatMap((s) => s.constraints.supports)),
      // A negative is dropped when another part supports it.
      does_not_support: unique([
        ...does_not_support,
        ...includes.flatMap((s) => s.constraints.does_not_support),
      ]).filter((tag) => !includes.some((s) => s.constraints.supports.includes(tag))),
      // A bundle needs whatever one of its parts needs.
      ...(includes.some((s) => s.constraints.requires?.length)
        ? { requires: unique(includes.flatMap((s) => s.constraints.requires ?? [])) }
        : {}),
    },
    linkpay_url: linkpayPath(def.id),
    bundle: true,
    includes: includes.map((s) => s.id),
  };
}

const aiReceptionist = single({
  id: 'ai-receptionist',
  name: 'AI Receptionist',
  human_price: 49,
  agent_price: 39,
  currency: 'USD',
  billing: 'monthly',
  estimated_fulfillment: 'instant_provisioning',
  max_fulfillment_hours: 0.02,
  sla: '99.9%',
  automation_level: 'fully_automated',
  human_intervention: 'none',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', contact_email: 'required', services: 'required', whatsapp: 'optional' },
  outputs: { receptionist_config: 'string', system_prompt: 'string', intents: 'array', test_conversations: 'array' },
  capabilities: [
    'ai_receptionist',
    'appointment_scheduling',
    'whatsapp_booking',
    'web_chat',
    'faq_answering',
    'lead_capture',
    'human_escalation',
    'multilingual',
  ],
  constraints: {
    supports: ['web_chat', 'whatsapp', 'appointment_requests', 'faq', 'email_escalation', 'multilingual_replies'],
    does_not_support: ['voice_calls', 'phone_number_provisioning', 'payment_collection', 'medical_or_legal_advice'],
  },
  linkpay: true,
  description:
    'Provisioned AI receptionist: a channel configuration (web chat, WhatsApp when given) with intents, booking slots and escalation rules, plus a system prompt and test conversations. Billed monthly.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-RCP-MONTHLY',
});

const websiteBooking = single({
  id: 'website-booking',
  name: 'Website with Booking Page',
  human_price: 89,
  agent_price: 69,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'template_60s_custom_24h',
  max_fulfillment_hours: 24,
  sla: '99.5%',
  automation_level: 'fully_automated_core',
  human_intervention: 'qa_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', industry: 'required', services: 'required' },
  outputs: { booking_page_html: 'string', booking_config: 'string', deployment_notes: 'string' },
  capabilities: [
    'website_builder',
    'booking_page',
    'appointment_scheduling',
    'static_site',
    'responsive_design',
    'seo_basics',
  ],
  constraints: {
    supports: ['static_html', 'booking_form', 'mobile_responsive', 'self_hosting', 'json_booking_endpoint'],
    does_not_support: ['ecommerce_checkout', 'domain_registration', 'managed_hosting', 'cms'],
  },
  linkpay: true,
  description:
    'A self-contained static website with a booking form for the business (ready from a template within 60 seconds, customised within 24 hours) and the booking configuration it posts to.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-WEB-BOOK',
});

const automationWf = single({
  id: 'automation-wf',
  name: 'Workflow Automation (n8n)',
  human_price: 89,
  agent_price: 69,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'instant_blueprint',
  max_fulfillment_hours: 0.05,
  sla: '99.9%',
  automation_level: 'fully_automated',
  human_intervention: 'none',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { workflow_type: 'required', source_app: 'required', target_app: 'required' },
  outputs: { n8n_workflow: 'string', node_count: 'number', setup_notes: 'string' },
  capabilities: [
    'workflow_automation',
    'n8n_workflow',
    'api_integration',
    'webhook_trigger',
    'scheduled_sync',
    'data_mapping',
  ],
  constraints: {
    supports: ['n8n_import', 'webhooks', 'rest_apis', 'scheduled_triggers', 'field_mapping'],
    does_not_support: ['zapier_export', 'make_scenarios', 'credential_provisioning', 'workflow_hosting'],
  },
  linkpay: true,
  description: 'An importable n8n workflow moving data from source_app to target_app, with setup notes.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-N8N-WF',
});

const taskWorker = single({
  id: 'task-worker',
  name: 'Task Worker',
  human_price: 19,
  agent_price: 15,
  currency: 'USD',
  billing: 'per_task',
  estimated_fulfillment: 'under_30_seconds',
  max_fulfillment_hours: 0.01,
  sla: '99.9%',
  automation_level: 'fully_automated',
  human_intervention: 'none',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { task_prompt: 'required', format: 'optional' },
  outputs: { result: 'string', steps: 'array', format: 'string' },
  capabilities: [
    'llm_agent',
    'task_execution',
    'task_planning',
    'structured_output',
    'summarization',
    'data_extraction',
  ],
  constraints: {
    supports: ['single_tasks', 'json_output', 'markdown_output', 'text_output'],
    does_not_support: ['long_running_projects', 'physical_world_actions', 'authenticated_browsing', 'human_review'],
    requires: [TEXT_GENERATION_MODEL],
  },
  linkpay: false,
  description:
    'One task done per request by a language model: the finished work itself (the e-mails, the summary, the list), in the requested format. Needs a text-generation model on the deployment (constraints.requires).',
  refund_eligible: false,
});

const smartConsultation = single({
  id: 'smart-consultation',
  name: 'Smart Consultation',
  human_price: 1,
  agent_price: 1,
  currency: 'USD',
  billing: 'one-time',
  estimated_fulfillment: 'instant',
  max_fulfillment_hours: 0.01,
  sla: '99.9%',
  automation_level: 'fully_automated',
  human_intervention: 'none',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { type: 'required', description: 'required', current_country: 'optional', target_country: 'optional' },
  outputs: { report: 'string', recommendations: 'array', action_plan: 'string' },
  capabilities: ['consultation', 'business_advice', 'automation_strategy', 'market_entry', 'relocation_guidance'],
  constraints: {
    supports: ['written_report', 'action_plan', 'cross_border_questions'],
    does_not_support: ['legal_advice', 'tax_filing', 'immigration_representation', 'live_calls'],
    requires: [TEXT_GENERATION_MODEL],
  },
  linkpay: true,
  description:
    'An instant written consultation that answers the questions in the description, with recommendations and a phased action plan, written by a language model (constraints.requires).',
  refund_eligible: false,
});

const robotControlSystem = single({
  id: 'robot-control-system',
  name: 'Robot Control System',
  human_price: 749,
  agent_price: 499,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_7_days',
  max_fulfillment_hours: 168,
  sla: '99.0%',
  automation_level: 'expert_delivery',
  human_intervention: 'dedicated_engineer',
  supported_languages: ['en', 'de', 'fr', 'ar'],
  supported_regions: EXPERT_REGIONS,
  payment_rails: LINK_AND_WALLET,
  inputs: { robot_type: 'required', controller: 'required', objective: 'required', site_constraints: 'optional' },
  outputs: { architecture: 'string', ros2_parameters: 'string', ros2_launch: 'string', safety_checklist: 'string' },
  capabilities: [
    'robot_control',
    'ros2',
    'ros2_control',
    'motion_planning',
    'sensor_integration',
    'plc_integration',
    'safety_interlocks',
  ],
  constraints: {
    supports: ['ros2_humble', 'ros2_jazzy', 'simulation_first', 'plc_bridge', 'remote_commissioning_support'],
    does_not_support: ['safety_certification', 'hardware_supply', 'on_site_installation', 'firmware_development'],
  },
  linkpay: true,
  description:
    'A control-system blueprint engineered for the robot and controller: architecture, ROS 2 parameter and launch files, and a safety checklist; delivered by a dedicated engineer within 7 days.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-ROBOT-CTRL',
});

const agentDevelopment = single({
  id: 'agent-development',
  name: 'Custom Agent Development',
  human_price: 449,
  agent_price: 299,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_5_days',
  max_fulfillment_hours: 120,
  sla: '99.0%',
  automation_level: 'expert_delivery',
  human_intervention: 'engineer_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: LINK_AND_WALLET,
  inputs: { use_case: 'required', tools_required: 'required', data_sources: 'optional' },
  outputs: { design_document: 'string', tool_manifest: 'string', tools: 'array', evaluation_cases: 'array' },
  capabilities: ['llm_agent', 'agent_development', 'tool_calling', 'mcp_server', 'rag_pipeline', 'api_integration'],
  constraints: {
    supports: ['mcp_tools', 'json_schema_tools', 'retrieval_augmented_generation', 'evaluation_suite'],
    does_not_support: ['model_training', 'model_hosting', 'autonomous_payments_without_limits'],
  },
  linkpay: true,
  description:
    'An agent designed for the use case: design document, MCP-compatible tool manifest and evaluation cases, engineer-reviewed.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-AGENT-DEV',
});

const integrationProject = single({
  id: 'integration-project',
  name: 'Integration Project',
  human_price: 299,
  agent_price: 199,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_3_days',
  max_fulfillment_hours: 72,
  sla: '99.0%',
  automation_level: 'expert_delivery',
  human_intervention: 'dedicated_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: LINK_AND_WALLET,
  inputs: { systems: 'required', direction: 'required', volume: 'optional' },
  outputs: { integration_spec: 'string', runbook: 'string', flows: 'array' },
  capabilities: [
    'api_integration',
    'system_integration',
    'data_sync',
    'openapi_spec',
    'field_mapping',
    'error_handling',
  ],
  constraints: {
    supports: ['one_way_sync', 'bidirectional_sync', 'webhooks', 'batch_sync', 'openapi_3_1'],
    does_not_support: ['legacy_mainframe', 'realtime_under_100ms', 'data_migration_services'],
  },
  linkpay: true,
  description:
    'An integration specification (OpenAPI 3.1 with field mapping, flows and error handling) and an operations runbook.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-INTEGRATION',
});

const automationAudit = single({
  id: 'automation-audit',
  name: 'Automation Audit',
  human_price: 79,
  agent_price: 49,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'instant',
  max_fulfillment_hours: 0.02,
  sla: '99.9%',
  automation_level: 'fully_automated',
  human_intervention: 'none',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_description: 'required', current_tools: 'optional', pain_points: 'optional' },
  outputs: { audit_report: 'string', findings: 'array', estimated_hours_saved_per_week: 'number' },
  capabilities: ['process_audit', 'automation_audit', 'roi_estimate', 'tool_stack_review', 'workflow_automation'],
  constraints: {
    supports: ['written_report', 'prioritised_findings', 'roi_estimates'],
    does_not_support: ['implementation', 'security_audit', 'financial_audit', 'compliance_certification'],
  },
  linkpay: true,
  description:
    'An instant audit of the business processes: prioritised automation findings with estimated hours saved and a recommended plan.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-AUDIT',
});

const starterPack = bundle({
  id: 'starter-pack',
  name: 'Starter Pack',
  human_price: 149,
  agent_price: 129,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_24h',
  max_fulfillment_hours: 24,
  sla: '99.5%',
  automation_level: 'fully_automated_core',
  human_intervention: 'qa_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', industry: 'required', contact_email: 'required' },
  outputs: { bundle_manifest: 'string', parts: 'array' },
  includes: [smartConsultation, websiteBooking, aiReceptionist],
  extra_capabilities: ['bundle', 'small_business_launch'],
  does_not_support: ['partial_delivery_refund'],
  description:
    'Launch kit: a consultation, a website with booking page and an AI receptionist, delivered together within 24 hours.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-PACK-STARTER',
});

const clinicPack = bundle({
  id: 'clinic-pack',
  name: 'Clinic Pack',
  human_price: 249,
  agent_price: 199,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_24h',
  max_fulfillment_hours: 24,
  sla: '99.5%',
  automation_level: 'fully_automated_core',
  human_intervention: 'qa_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', practice_type: 'required', contact_email: 'required' },
  outputs: { bundle_manifest: 'string', parts: 'array' },
  includes: [websiteBooking, aiReceptionist, automationWf],
  extra_capabilities: ['bundle', 'clinic_operations', 'patient_booking'],
  does_not_support: ['ehr_integration', 'clinical_advice'],
  description:
    'For clinics and practices: booking website, AI receptionist and an n8n workflow, delivered together within 24 hours.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-PACK-CLINIC',
});

const storePack = bundle({
  id: 'store-pack',
  name: 'Store Pack',
  human_price: 229,
  agent_price: 179,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_24h',
  max_fulfillment_hours: 24,
  sla: '99.5%',
  automation_level: 'fully_automated_core',
  human_intervention: 'qa_review',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', category: 'required', contact_email: 'required' },
  outputs: { bundle_manifest: 'string', parts: 'array' },
  includes: [websiteBooking, automationWf, aiReceptionist],
  extra_capabilities: ['bundle', 'retail_operations', 'order_notifications'],
  does_not_support: ['inventory_management_system'],
  description:
    'For shops: website with booking/pick-up page, an order workflow and an AI receptionist, delivered together within 24 hours.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-PACK-STORE',
});

const growthPack = bundle({
  id: 'growth-pack',
  name: 'Growth Pack',
  human_price: 379,
  agent_price: 299,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_48h',
  max_fulfillment_hours: 48,
  sla: '99.5%',
  automation_level: 'fully_automated_core',
  human_intervention: 'optional_escalation',
  supported_languages: ALL_LANGUAGES,
  supported_regions: ['global'],
  payment_rails: ALL_RAILS,
  inputs: { business_name: 'required', growth_goals: 'required', contact_email: 'required' },
  outputs: { bundle_manifest: 'string', parts: 'array' },
  includes: [websiteBooking, aiReceptionist, automationWf, taskWorker, smartConsultation],
  extra_capabilities: ['bundle', 'growth_automation'],
  does_not_support: ['paid_ads_management'],
  description:
    'Everything for growth: website and booking, AI receptionist, an n8n workflow, a task run and a consultation, within 48 hours.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-PACK-GROWTH',
});

const roboticsBundle = bundle({
  id: 'robotics-bundle',
  name: 'Robotics Bundle',
  human_price: 499,
  agent_price: 349,
  currency: 'USD',
  billing: 'one_time',
  estimated_fulfillment: 'custom_7_days',
  max_fulfillment_hours: 168,
  sla: '99.0%',
  automation_level: 'expert_delivery',
  human_intervention: 'dedicated_engineer',
  supported_languages: ['en', 'de', 'fr', 'ar'],
  supported_regions: EXPERT_REGIONS,
  payment_rails: LINK_AND_WALLET,
  inputs: { objective: 'required', contact_email: 'required', robot_type: 'optional' },
  outputs: { bundle_manifest: 'string', parts: 'array' },
  includes: [automationAudit, robotControlSystem],
  extra_capabilities: ['bundle', 'robotics_program'],
  does_not_support: [],
  description:
    'An automation audit followed by an engineered robot control system blueprint, delivered by a dedicated engineer within 7 days.',
  terms_version: TERMS_VERSION,
  refund_eligible: true,
  sku: 'AC-PACK-ROBOTICS',
});

/**
 * The 14 catalogued services in catalogue order. Prices are USD numbers; `linkpay_url` holds the
 * payment-link path relative to the public base URL (`/pay/services/<id>`) or null (task-worker) —
 * use {@link serviceView} to publish a service with an absolute link.
 *
 * Source: seed §2.1 (ids, kinds, billing, hours, rails, prices, inputs); labels, SLA, capabilities
 * and constraints fill what the seed leaves open.
 */
export const SERVICES: readonly ServiceDefinition[] = Object.freeze(
  [
    aiReceptionist,
    websiteBooking,
    automationWf,
    taskWorker,
    smartConsultation,
    starterPack,
    clinicPack,
    storePack,
    growthPack,
    robotControlSystem,
    agentDevelopment,
    integrationProject,
    automationAudit,
    roboticsBundle,
  ].map((s) => deepFreeze(ServiceDefinition.parse(s))),
);

/** Ids of all catalogued services, in catalogue order. Source: seed §2.1. */
export const SERVICE_IDS: readonly string[] = Object.freeze(SERVICES.map((s) => s.id));

const BY_ID: ReadonlyMap<string, ServiceDefinition> = new Map(SERVICES.map((s) => [s.id, s]));

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

/**
 * Looks up a service by id.
 *
 * @param id - service identifier, e.g. `"ai-receptionist"`.
 * @returns the frozen service definition (USD prices, relative `linkpay_url`), or `undefined` if unknown.
 * Source: seed §2.1.
 */
export function getService(id: string): ServiceDefinition | undefined {
  return BY_ID.get(id);
}

/**
 * Whether the service is a bundle (`bundle: true` with `includes`).
 * Source: seed §2.1.
 */
export function isBundle(service: ServiceDefinition): boolean {
  return service.bundle === true;
}

/**
 * The services a bundle contains, in the seed's order; `[service]` itself for a single service.
 *
 * @throws Error if a bundle names an id missing from the catalogue (a catalogue bug).
 * Source: seed §2.1.
 */
export function bundleParts(service: ServiceDefinition): ServiceDefinition[] {
  if (!isBundle(service)) return [service];
  return (service.includes ?? []).map((id) => {
    const part = getService(id);
    if (!part) throw new Error(`bundle ${service.id} includes unknown service ${id}`);
    return part;
  });
}

function trimTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * The public form of a service: a fresh (mutable) copy whose `linkpay_url` is the absolute
 * hosted-payment link `${baseUrl}/pay/services/<id>`, or `null` for services without a link
 * (task-worker). Prices stay USD numbers.
 *
 * @param service - a catalogued service.
 * @param baseUrl - public base address, e.g. `https://api.example.com` (a trailing slash is ignored).
 * Source: seed §2.1 (`linkpay_url`).
 */
export function serviceView(service: ServiceDefinition, baseUrl: string): ServiceDefinition {
  const copy = structuredClone(service) as ServiceDefinition;
  copy.linkpay_url = service.linkpay_url === null ? null : `${trimTrailingSlash(baseUrl)}${service.linkpay_url}`;
  return copy;
}

/**
 * Builds the envelope of `GET /api/v1/services`: status `"ok"`, {@link PROTOCOL}, the partner
 * commission text, currency USD and every service through {@link serviceView}.
 *
 * @param baseUrl - public base address used to complete the payment links.
 * Source: seed §2.1 ("Catalogue envelope"), §4.
 */
export function catalogueEnvelope(baseUrl: string): CatalogueEnvelope {
  return {
    status: 'ok',
    protocol: PROTOCOL,
    agent_partner_commission: AGENT_PARTNER_COMMISSION,
    currency: CATALOGUE_CURRENCY,
    services: SERVICES.map((s) => serviceView(s, baseUrl)),
  };
}

/**
 * Price of a service in integer micro-units (1 USD = 1,000,000).
 *
 * @param service - the service.
 * @param isAgent - true for an agent buyer (`agent_price`), false for a human (`human_price`).
 * @returns the price in micro-units, e.g. 39_000_000 for an agent buying ai-receptionist.
 * @throws RangeError if the price is not a valid USD amount (never for catalogued services).
 * Source: seed §2.1 (prices), §2.2 (`is_agent`).
 */
export function priceMicros(service: ServiceDefinition, isAgent: boolean): Micros {
  return usdToMicros(isAgent ? service.agent_price : service.human_price);
}

function isEmptyInput(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0 || value.every((v) => isEmptyInput(v));
  if (typeof value === 'number') return !Number.isFinite(value);
  return false;
}

/**
 * Names of the service's required inputs that are absent or empty in `inputs` (undefined, null,
 * blank string, empty array, non-finite number), in the order the catalogue declares them.
 * Unknown extra inputs are ignored.
 *
 * @returns an empty array when every required input is present.
 * Source: seed §2.1 ("Inputs per service").
 */
export function missingInputs(service: ServiceDefinition, inputs: Record<string, unknown>): string[] {
  return Object.entries(service.inputs)
    .filter(
      ([name, requirement]) =>
        requirement === 'required' && isEmptyInput(Object.hasOwn(inputs, name) ? inputs[name] : undefined),
    )
    .map(([name]) => name);
}

/**
 * Whether engineers deliver the service (`automation_level === 'expert_delivery'`).
 * Source: seed §2.1.
 */
export function isExpertService(service: ServiceDefinition): boolean {
  return service.automation_level === 'expert_delivery';
}

/**
 * The service's fulfillment bound in milliseconds: `max_fulfillment_hours` × 3,600,000, rounded to a
 * whole millisecond (0.02 h → 72,000 ms; 168 h → 604,800,000 ms).
 * Source: seed §2.1 (`max_fulfillment_hours`), §8.
 */
export function fulfillmentDeadlineMs(service: ServiceDefinition): number {
  return Math.round(service.max_fulfillment_hours * 3_600_000);
}
