import {
  AGENT_PARTNER_COMMISSION,
  CATALOGUE_VERSION,
  CatalogueEnvelope,
  PARTNER_COMMISSION_PERCENT,
  PROTOCOL,
  SERVICES,
  SERVICE_IDS,
  ServiceDefinition,
  TERMS_VERSION,
  bundleParts,
  catalogueEnvelope,
  fulfillmentDeadlineMs,
  getService,
  isBundle,
  isExpertService,
  missingInputs,
  priceMicros,
  serviceView,
} from '../../src/domain/catalogue';
import { percentOf } from '../../src/domain/money';

const ALL = ['linkpay_ncp', 'x402_usdc', 'agent_wallet'];
const LINK_WALLET = ['linkpay_ncp', 'agent_wallet'];

// Seed §2.1: id, billing, max_fulfillment_hours, payment rails, includes, human/agent price.
const TABLE: [string, string, number, string[], string[] | null, number, number][] = [
  ['ai-receptionist', 'monthly', 0.02, ALL, null, 49, 39],
  ['website-booking', 'one_time', 24, ALL, null, 89, 69],
  ['automation-wf', 'one_time', 0.05, ALL, null, 89, 69],
  ['task-worker', 'per_task', 0.01, ALL, null, 19, 15],
  ['smart-consultation', 'one-time', 0.01, ALL, null, 1, 1],
  ['starter-pack', 'one_time', 24, ALL, ['smart-consultation', 'website-booking', 'ai-receptionist'], 149, 129],
  ['clinic-pack', 'one_time', 24, ALL, ['website-booking', 'ai-receptionist', 'automation-wf'], 249, 199],
  ['store-pack', 'one_time', 24, ALL, ['website-booking', 'automation-wf', 'ai-receptionist'], 229, 179],
  [
    'growth-pack',
    'one_time',
    48,
    ALL,
    ['website-booking', 'ai-receptionist', 'automation-wf', 'task-worker', 'smart-consultation'],
    379,
    299,
  ],
  ['robot-control-system', 'one_time', 168, LINK_WALLET, null, 749, 499],
  ['agent-development', 'one_time', 120, LINK_WALLET, null, 449, 299],
  ['integration-project', 'one_time', 72, LINK_WALLET, null, 299, 199],
  ['automation-audit', 'one_time', 0.02, ALL, null, 79, 49],
  ['robotics-bundle', 'one_time', 168, LINK_WALLET, ['automation-audit', 'robot-control-system'], 499, 349],
];

// Seed §2.1 "Inputs per service": [required, optional].
const INPUTS: Record<string, [string[], string[]]> = {
  'ai-receptionist': [['business_name', 'contact_email', 'services'], ['whatsapp']],
  'website-booking': [['business_name', 'industry', 'services'], []],
  'automation-wf': [['workflow_type', 'source_app', 'target_app'], []],
  'task-worker': [['task_prompt'], ['format']],
  'smart-consultation': [
    ['type', 'description'],
    ['current_country', 'target_country'],
  ],
  'starter-pack': [['business_name', 'industry', 'contact_email'], []],
  'clinic-pack': [['business_name', 'practice_type', 'contact_email'], []],
  'store-pack': [['business_name', 'category', 'contact_email'], []],
  'growth-pack': [['business_name', 'growth_goals', 'contact_email'], []],
  'robot-control-system': [['robot_type', 'controller', 'objective'], ['site_constraints']],
  'agent-development': [['use_case', 'tools_required'], ['data_sources']],
  'integration-project': [['systems', 'direction'], ['volume']],
  'automation-audit': [['business_description'], ['current_tools', 'pain_points']],
  'robotics-bundle': [['objective', 'contact_email'], ['robot_type']],
};

function svc(id: string): ServiceDefinition {
  const s = getService(id);
  if (!s) throw new Error(`missing ${id}`);
  return s;
}

describe('SERVICES against seed §2.1', () => {
  it('lists exactly the 14 services in the seed order', () => {
    expect(SERVICES).toHaveLength(14);
    expect(SERVICE_IDS).toEqual(TABLE.map((r) => r[0]));
  });

  it.each(TABLE)(
    '%s: billing %s, %p hours, rails, includes, prices',
    (id, billing, hours, rails, includes, human, agent) => {
      const s = svc(id);
      expect(s.billing).toBe(billing);
      expect(s.max_fulfillment_hours).toBe(hours);
      expect(s.payment_rails).toEqual(rails);
      expect(s.human_price).toBe(human);
      expect(s.agent_price).toBe(agent);
      expect(s.currency).toBe('USD');
      if (includes) {
        expect(s.bundle).toBe(true);
        expect(s.includes).toEqual(includes);
        expect(isBundle(s)).toBe(true);
      } else {
        expect(s.bundle).toBeUndefined();
        expect(s.includes).toBeUndefined();
        expect(isBundle(s)).toBe(false);
      }
    },
  );

  it.each(Object.entries(INPUTS))('%s: required and optional inputs', (id, [required, optional]) => {
    const s = svc(id);
    const expected = Object.fromEntries([
      ...required.map((k) => [k, 'required']),
      ...optional.map((k) => [k, 'optional']),
    ]);
    expect(s.inputs).toEqual(expected);
  });

  it('every service validates against the ServiceDefinition schema', () => {
    for (const s of SERVICES) expect(ServiceDefinition.safeParse(s).success).toBe(true);
  });

  it('only task-worker has no payment link', () => {
    for (const s of SERVICES) {
      if (s.id === 'task-worker') expect(s.linkpay_url).toBeNull();
      else expect(s.linkpay_url).toBe(`/pay/services/${s.id}`);
    }
  });

  it('the 168-hour service is custom_7_days, expert_delivery, with human intervention', () => {
    const s = svc('robot-control-system');
    expect(s.max_fulfillment_hours).toBe(168);
    expect(s.estimated_fulfillment).toBe('custom_7_days');
    expect(s.automation_level).toBe('expert_delivery');
    expect(s.human_intervention).not.toBe('none');
    expect(isExpertService(s)).toBe(true);
    expect(s.constraints.does_not_support).toContain('safety_certification');
  });

  it('labels agree with hours', () => {
    const byHours: Record<number, string[]> = {
      0.01: ['instant', 'under_30_seconds'],
      0.02: ['instant', 'instant_provisioning'],
      0.05: ['instant_blueprint', 'instant'],
      24: ['custom_24h', 'template_60s_custom_24h'],
      48: ['custom_48h'],
      72: ['custom_3_days'],
      120: ['custom_5_days'],
      168: ['custom_7_days'],
    };
    for (const s of SERVICES) {
      expect(byHours[s.max_fulfillment_hours]).toContain(s.estimated_fulfillment);
      if (s.max_fulfillment_hours < 1) {
        expect(s.automation_level).toBe('fully_automated');
        expect(s.human_intervention).toBe('none');
        expect(s.sla).toBe('99.9%');
      }
      if (s.max_fulfillment_hours >= 72) {
        expect(s.automation_level).toBe('expert_delivery');
        expect(s.human_intervention).not.toBe('none');
        expect(isExpertService(s)).toBe(true);
      } else {
        expect(isExpertService(s)).toBe(false);
      }
    }
    expect(svc('task-worker').constraints.does_not_support).toContain('long_running_projects');
  });

  it("bundles carry the union of their parts' capabilities and only rails all parts accept", () => {
    for (const b of SERVICES.filter(isBundle)) {
      const parts = bundleParts(b);
      expect(parts.map((p) => p.id)).toEqual(b.includes);
      for (const p of parts) {
        for (const c of p.capabilities) expect(b.capabilities).toContain(c);
        for (const r of b.payment_rails) expect(p.payment_rails).toContain(r);
        expect(p.max_fulfillment_hours).toBeLessThanOrEqual(b.max_fulfillment_hours);
      }
    }
  });

  it('terms_version, when present, is the seed value', () => {
    const withTerms = SERVICES.filter((s) => s.terms_version !== undefined);
    expect(withTerms.length).toBeGreaterThan(0);
    for (const s of withTerms) expect(s.terms_version).toBe('2026.3-A2A');
    expect(TERMS_VERSION).toBe('2026.3-A2A');
  });

  it('is frozen', () => {
    expect(Object.isFrozen(SERVICES)).toBe(true);
    expect(Object.isFrozen(svc('ai-receptionist').inputs)).toBe(true);
  });
});

describe('catalogue functions', () => {
  it('getService returns undefined for unknown ids', () => {
    expect(getService('nope')).toBeUndefined();
    expect(getService('ai-receptionist')?.name).toBeTruthy();
  });

  it('catalogueEnvelope builds a valid envelope with absolute links', () => {
    const env = catalogueEnvelope('https://api.example.com/');
    expect(CatalogueEnvelope.safeParse(env).success).toBe(true);
    expect(env.protocol).toBe(PROTOCOL);
    expect(env.protocol.endsWith('2.3')).toBe(true);
    expect(env.agent_partner_commission).toBe(AGENT_PARTNER_COMMISSION);
    expect(env.agent_partner_commission).toMatch(/^20% recurring or per-deal$/);
    expect(env.currency).toBe('USD');
    expect(env.services).toHaveLength(14);
    const receptionist = env.services.find((s) => s.id === 'ai-receptionist');
    expect(receptionist?.linkpay_url).toBe('https://api.example.com/pay/services/ai-receptionist');
    expect(env.services.find((s) => s.id === 'task-worker')?.linkpay_url).toBeNull();
    // The envelope holds copies: mutating it leaves the catalogue intact.
    (receptionist as ServiceDefinition).agent_price = 0;
    expect(svc('ai-receptionist').agent_price).toBe(39);
    expect(JSON.parse(JSON.stringify(env))).toEqual(env);
  });

  it('serviceView completes the link', () => {
    expect(serviceView(svc('clinic-pack'), 'http://localhost:3000').linkpay_url).toBe(
      'http://localhost:3000/pay/services/clinic-pack',
    );
    expect(serviceView(svc('task-worker'), 'http://localhost:3000').linkpay_url).toBeNull();
  });

  it('priceMicros converts agent and human prices', () => {
    expect(priceMicros(svc('ai-receptionist'), true)).toBe(39_000_000);
    expect(priceMicros(svc('ai-receptionist'), false)).toBe(49_000_000);
    expect(priceMicros(svc('smart-consultation'), true)).toBe(1_000_000);
    expect(percentOf(priceMicros(svc('ai-receptionist'), true), PARTNER_COMMISSION_PERCENT)).toBe(7_800_000);
  });

  it('missingInputs lists absent or empty required inputs in declared order', () => {
    const s = svc('ai-receptionist');
    expect(missingInputs(s, {})).toEqual(['business_name', 'contact_email', 'services']);
    expect(missingInputs(s, { business_name: 'A', contact_email: '  ', services: [] })).toEqual([
      'contact_email',
      'services',
    ]);
    expect(missingInputs(s, { business_name: 'A', contact_email: 'a@b.c', services: 'x', extra: 1 })).toEqual([]);
    expect(missingInputs(svc('task-worker'), { task_prompt: 'do it' })).toEqual([]);
    expect(missingInputs(svc('task-worker'), { task_prompt: null })).toEqual(['task_prompt']);
  });

  it('fulfillmentDeadlineMs converts hours to milliseconds', () => {
    expect(fulfillmentDeadlineMs(svc('ai-receptionist'))).toBe(72_000);
    expect(fulfillmentDeadlineMs(svc('task-worker'))).toBe(36_000);
    expect(fulfillmentDeadlineMs(svc('automation-wf'))).toBe(180_000);
    expect(fulfillmentDeadlineMs(svc('robot-control-system'))).toBe(604_800_000);
  });

  it('exports a dated catalogue version label', () => {
    expect(CATALOGUE_VERSION).toMatch(/^\d{4}\.\d+\.\d+$/);
  });
});
