/**
 * Discovery filters and capability negotiation against an independent computation: the expected results come from
 * the table below, written by hand from the seed (§2.1: ids, prices, billing, max_fulfillment_hours, rails) plus the
 * catalogue's declared automation, languages, regions and SLA (the seed leaves those open), and from a matcher written
 * here, not from src/domain/discovery.ts.
 */
import { SERVICES } from '../../src/domain/catalogue';
import {
  DiscoveryQuery,
  discoverServices,
  parseDiscoveryQuery,
  type DiscoveryFilters,
} from '../../src/domain/discovery';
import { negotiateCapabilities } from '../../src/domain/negotiation';

const ALL5 = ['en', 'ar', 'es', 'fr', 'de'];
const EXPERT_REGIONS = ['north_america', 'europe', 'middle_east', 'mena'];
const ALL_RAILS = ['linkpay_ncp', 'x402_usdc', 'agent_wallet'];
const LINK_WALLET = ['linkpay_ncp', 'agent_wallet'];

interface Row {
  id: string;
  agent: number;
  human: number;
  billing: string;
  hours: number;
  rails: string[];
  automation: string;
  languages: string[];
  regions: string[];
  sla: number;
}

// id, agent/human price, billing, max_fulfillment_hours, rails (seed §2.1); automation, languages, regions, SLA (catalogue).
const TABLE: Row[] = [
  {
    id: 'ai-receptionist',
    agent: 39,
    human: 49,
    billing: 'monthly',
    hours: 0.02,
    rails: ALL_RAILS,
    automation: 'fully_automated',
    languages: ALL5,
    regions: ['global'],
    sla: 99.9,
  },
  {
    id: 'website-booking',
    agent: 69,
    human: 89,
    billing: 'one_time',
    hours: 24,
    rails: ALL_RAILS,
    automation: 'fully_automated_core',
    languages: ALL5,
    regions: ['global'],
    sla: 99.5,
  },
  {
    id: 'automation-wf',
    agent: 69,
    human: 89,
    billing: 'one_time',
    hours: 0.05,
    rails: ALL_RAILS,
    automation: 'fully_automated',
    languages: ALL5,
    regions: ['global'],
    sla: 99.9,
  },
  {
    id: 'task-worker',
    agent: 15,
    human: 19,
    billing: 'per_task',
    hours: 0.01,
    rails: ALL_RAILS,
    automation: 'fully_automated',
    languages: ALL5,
    regions: ['global'],
    sla: 99.9,
  },
  {
    id: 'smart-consultation',
    agent: 1,
    human: 1,
    billing: 'one-time',
    hours: 0.01,
    rails: ALL_RAILS,
    automation: 'fully_automated',
    languages: ALL5,
    regions: ['global'],
    sla: 99.9,
  },
  {
    id: 'starter-pack',
    agent: 129,
    human: 149,
    billing: 'one_time',
    hours: 24,
    rails: ALL_RAILS,
    automation: 'fully_automated_core',
    languages: ALL5,
    regions: ['global'],
    sla: 99.5,
  },
  {
    id: 'clinic-pack',
    agent: 199,
    human: 249,
    billing: 'one_time',
    hours: 24,
    rails: ALL_RAILS,
    automation: 'fully_automated_core',
    languages: ALL5,
    regions: ['global'],
    sla: 99.5,
  },
  {
    id: 'store-pack',
    agent: 179,
    human: 229,
    billing: 'one_time',
    hours: 24,
    rails: ALL_RAILS,
    automation: 'fully_automated_core',
    languages: ALL5,
    regions: ['global'],
    sla: 99.5,
  },
  {
    id: 'growth-pack',
    agent: 299,
    human: 379,
    billing: 'one_time',
    hours: 48,
    rails: ALL_RAILS,
    automation: 'fully_automated_core',
    languages: ALL5,
    regions: ['global'],
    sla: 99.5,
  },
  {
    id: 'robot-control-system',
    agent: 499,
    human: 749,
    billing: 'one_time',
    hours: 168,
    rails: LINK_WALLET,
    automation: 'expert_delivery',
    languages: ['en', 'de', 'fr', 'ar'],
    regions: EXPERT_REGIONS,
    sla: 99.0,
  },
  {
    id: 'agent-development',
    agent: 299,
    human: 449,
    billing: 'one_time',
    hours: 120,
    rails: LINK_WALLET,
    automation: 'expert_delivery',
    languages: ALL5,
    regions: ['global'],
    sla: 99.0,
  },
  {
    id: 'integration-project',
    agent: 199,
    human: 299,
    billing: 'one_time',
    hours: 72,
    rails: LINK_WALLET,
    automation: 'expert_delivery',
    languages: ALL5,
    regions: ['global'],
    sla: 99.0,
  },
  {
    id: 'automation-audit',
    agent: 49,
    human: 79,
    billing: 'one_time',
    hours: 0.02,
    rails: ALL_RAILS,
    automation: 'fully_automated',
    languages: ALL5,
    regions: ['global'],
    sla: 99.9,
  },
  {
    id: 'robotics-bundle',
    agent: 349,
    human: 499,
    billing: 'one_time',
    hours: 168,
    rails: LINK_WALLET,
    automation: 'expert_delivery',
    languages: ['en', 'de', 'fr', 'ar'],
    regions: EXPERT_REGIONS,
    sla: 99.0,
  },
];

// Capability tags are catalogue data (the seed lists none); the matching rule below is written here independently.
const CAPS = new Map(SERVICES.map((s) => [s.id, s.capabilities]));

/** Raw query as a client sends it (strings only). */
type RawQuery = Partial<
  Record<
    | 'capability'
    | 'budget_max'
    | 'billing'
    | 'automation'
    | 'language'
    | 'region'
    | 'payment_rail'
    | 'max_fulfillment'
    | 'min_sla'
    | 'buyer',
    string
  >
>;

/** The oracle: the documented meaning of each filter, computed from TABLE. */
function oracle(q: RawQuery): string[] {
  const oneTime = (b: string) => (b === 'one-time' ? 'one_time' : b);
  return TABLE.filter((r) => {
    if (q.capability !== undefined) {
      const wanted = q.capability
        .split(',')
        .map((c) =>
          c
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, '_'),
        )
        .filter(Boolean);
      const tags = CAPS.get(r.id) ?? [];
      if (!wanted.every((c) => tags.some((t) => t === c || t.startsWith(`${c}_`)))) return false;
    }
    const price = q.buyer === 'human' ? r.human : r.agent;
    if (q.budget_max !== undefined && !(price <= Number(q.budget_max))) return false;
    if (q.billing !== undefined && oneTime(r.billing) !== oneTime(q.billing)) return false;
    if (q.automation !== undefined && r.automation !== q.automation) return false;
    if (q.language !== undefined && !r.languages.includes(q.language)) return false;
    if (q.region !== undefined && !(r.regions.includes(q.region) || r.regions.includes('global'))) return false;
    if (q.payment_rail !== undefined && !r.rails.includes(q.payment_rail)) return false;
    if (q.max_fulfillment !== undefined && !(r.hours <= Number(q.max_fulfillment))) return false;
    if (q.min_sla !== undefined && !(r.sla >= Number(q.min_sla.replace('%', '')))) return false;
    return true;
  }).map((r) => r.id);
}

const ids = (q: RawQuery) => discoverServices(DiscoveryQuery.parse(q)).map((m) => m.service.id);

const DOMAINS: Required<{ [K in keyof RawQuery]: string[] }> = {
  capability: [
    'appointment_scheduling',
    'appointment',
    'booking_page',
    'llm_agent',
    'api_integration',
    'workflow',
    'ros2',
    'bundle',
    'web_chat,multilingual',
    'Workflow-Automation',
    'robot',
    'nothing_like_this',
  ],
  budget_max: [
    '0',
    '0.99',
    '1',
    '14.99',
    '15',
    '39',
    '48.99',
    '49',
    '69',
    '100',
    '129',
    '199',
    '299',
    '349',
    '499',
    '1000',
  ],
  billing: ['monthly', 'one_time', 'one-time', 'per_task'],
  automation: ['fully_automated', 'fully_automated_core', 'expert_delivery'],
  language: ['en', 'ar', 'es', 'fr', 'de'],
  region: ['global', 'north_america', 'europe', 'middle_east', 'mena'],
  payment_rail: ['linkpay_ncp', 'x402_usdc', 'agent_wallet'],
  max_fulfillment: ['0.01', '0.015', '0.02', '0.05', '1', '23.9', '24', '48', '72', '120', '167', '168', '500'],
  min_sla: ['0', '99', '99.0', '99.4', '99.5', '99.5%', '99.9', '100'],
  buyer: ['agent', 'human'],
};

describe('discovery table', () => {
  test('the hand-written table agrees with the catalogue (so the oracle tests the filters, not a stale copy)', () => {
    expect(TABLE.map((r) => r.id)).toEqual(SERVICES.map((s) => s.id));
    for (const r of TABLE) {
      const s = SERVICES.find((x) => x.id === r.id)!;
      expect([
        s.agent_price,
        s.human_price,
        s.billing,
        s.max_fulfillment_hours,
        s.automation_level,
        parseFloat(s.sla),
      ]).toEqual([r.agent, r.human, r.billing, r.hours, r.automation, r.sla]);
      expect([...s.payment_rails].sort()).toEqual([...r.rails].sort());
      expect([...s.supported_languages].sort()).toEqual([...r.languages].sort());
      expect([...s.supported_regions].sort()).toEqual([...r.regions].sort());
    }
  });
});

describe('each filter alone', () => {
  for (const [name, values] of Object.entries(DOMAINS)) {
    test.each(values)(`${name}=%s`, (value) => {
      expect(ids({ [name]: value })).toEqual(oracle({ [name]: value }));
    });
  }

  test('hand-checked results for one value of each filter', () => {
    expect(ids({})).toHaveLength(14);
    expect(ids({ budget_max: '50' })).toEqual([
      'ai-receptionist',
      'task-worker',
      'smart-consultation',
      'automation-audit',
    ]);
    expect(ids({ budget_max: '50', buyer: 'human' })).toEqual(['ai-receptionist', 'task-worker', 'smart-consultation']);
    expect(ids({ billing: 'one-time' })).toEqual(ids({ billing: 'one_time' }));
    expect(ids({ billing: 'one_time' })).toHaveLength(12);
    expect(ids({ billing: 'per_task' })).toEqual(['task-worker']);
    expect(ids({ automation: 'expert_delivery' })).toEqual([
      'robot-control-system',
      'agent-development',
      'integration-project',
      'robotics-bundle',
    ]);
    expect(ids({ language: 'es' })).toHaveLength(12);
    expect(ids({ region: 'europe' })).toHaveLength(14);
    expect(ids({ region: 'global' })).toHaveLength(12);
    expect(ids({ payment_rail: 'x402_usdc' })).toHaveLength(10);
    expect(ids({ max_fulfillment: '1' })).toEqual([
      'ai-receptionist',
      'automation-wf',
      'task-worker',
      'smart-consultation',
      'automation-audit',
    ]);
    expect(ids({ max_fulfillment: '0.02' })).toEqual([
      'ai-receptionist',
      'task-worker',
      'smart-consultation',
      'automation-audit',
    ]);
    expect(ids({ min_sla: '99.9' })).toEqual([
      'ai-receptionist',
      'automation-wf',
      'task-worker',
      'smart-consultation',
      'automation-audit',
    ]);
    expect(ids({ capability: 'appointment' })).toEqual([
      'ai-receptionist',
      'website-booking',
      'starter-pack',
      'clinic-pack',
      'store-pack',
      'growth-pack',
    ]);
    expect(ids({ capability: 'ros2' })).toEqual(['robot-control-system', 'robotics-bundle']);
    expect(ids({ capability: 'work' })).toEqual([]);
  });
});

describe('filters combined', () => {
  /** Small deterministic PRNG (mulberry32) so the combinations are the same on every run. */
  function rng(seed: number) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  test('3,000 random combinations match the oracle, and each result explains every filter given', () => {
    const next = rng(4);
    let nonEmpty = 0;
    for (let i = 0; i < 3000; i++) {
      const q: RawQuery = {};
      for (const [name, values] of Object.entries(DOMAINS) as [keyof RawQuery, string[]][]) {
        if (next() < 0.35) q[name] = values[Math.floor(next() * values.length)];
      }
      const filters = DiscoveryQuery.parse(q);
      const got = discoverServices(filters);
      expect(got.map((m) => m.service.id)).toEqual(oracle(q));
      const given = Object.keys(q)
        .filter((k) => k !== 'buyer')
        .sort();
      for (const m of got) expect(Object.keys(m.matched_because).sort()).toEqual(given);
      if (got.length > 0 && given.length >= 2) nonEmpty += 1;
    }
    // The combinations are not all trivially empty.
    expect(nonEmpty).toBeGreaterThan(300);
  });

  test('every pair of filters over their whole domains', () => {
    const names = Object.keys(DOMAINS).filter((n) => n !== 'buyer') as (keyof RawQuery)[];
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const a = names[i]!;
        const b = names[j]!;
        for (const va of DOMAINS[a]) {
          for (const vb of DOMAINS[b]) {
            const q = { [a]: va, [b]: vb };
            expect([q, ids(q)]).toEqual([q, oracle(q)]);
          }
        }
      }
    }
  });

  test('matched_because says why, per filter', () => {
    const [m] = discoverServices(
      DiscoveryQuery.parse({
        capability: 'appointment',
        region: 'europe',
        billing: 'one-time',
        budget_max: '100',
        min_sla: '99.5',
      }),
    );
    expect(m?.service.id).toBe('website-booking');
    expect(m?.matched_because).toEqual({
      capability: 'appointment matches appointment_scheduling',
      budget_max: 'agent_price 69 USD ≤ budget_max 100 USD',
      billing: 'billing one_time is the same as one-time',
      region: 'offered globally, which includes europe',
      min_sla: 'declared SLA 99.5% ≥ 99.5%',
    });
  });
});

describe('query parsing', () => {
  const bad = (q: Record<string, string | string[]>) => {
    const r = parseDiscoveryQuery(q);
    if (r.ok) throw new Error(`expected an error for ${JSON.stringify(q)}`);
    return r.param;
  };
  test('invalid values name their parameter', () => {
    expect(bad({ budget_max: 'abc' })).toBe('budget_max');
    expect(bad({ budget_max: '-1' })).toBe('budget_max');
    expect(bad({ budget_max: '' })).toBe('budget_max');
    expect(bad({ max_fulfillment: '0' })).toBe('max_fulfillment');
    expect(bad({ max_fulfillment: '1e3' })).toBe('max_fulfillment');
    expect(bad({ min_sla: '101' })).toBe('min_sla');
    expect(bad({ billing: 'weekly' })).toBe('billing');
    expect(bad({ automation: 'manual' })).toBe('automation');
    expect(bad({ language: 'xx' })).toBe('language');
    expect(bad({ region: 'asia' })).toBe('region');
    expect(bad({ payment_rail: 'paypal' })).toBe('payment_rail');
    expect(bad({ capability: ',' })).toBe('capability');
    expect(bad({ capability: 'bad!tag' })).toBe('capability');
    expect(bad({ buyer: 'robot' })).toBe('buyer');
    expect(bad({ budget: '10' })).toBe('budget');
    expect(bad({ language: ['en', 'fr'] })).toBe('language');
  });
  test('values are normalised: case, spaces, percent sign', () => {
    const r = parseDiscoveryQuery({
      billing: ' One-Time ',
      language: 'EN',
      min_sla: '99.5%',
      capability: 'Web Chat, whatsapp-booking',
    });
    expect(r.ok && r.filters).toMatchObject({
      billing: 'one-time',
      language: 'en',
      min_sla: 99.5,
      capability: ['web_chat', 'whatsapp_booking'],
    } satisfies Partial<DiscoveryFilters>);
  });
});

describe('capability negotiation', () => {
  /** Independent ranking: coverage share descending, then agent price ascending, then table order. */
  function expectedOrder(required: string[]): string[] {
    const rows = TABLE.map((r, order) => {
      const tags = CAPS.get(r.id) ?? [];
      const covered = required.filter((c) => tags.some((t) => t === c || t.startsWith(`${c}_`))).length;
      const negatives = SERVICES.find((s) => s.id === r.id)!.constraints.does_not_support;
      return { id: r.id, covered, price: r.agent, order, conflict: required.some((c) => negatives.includes(c)) };
    });
    return rows
      .filter((r) => r.covered > 0 && !r.conflict)
      .sort((a, b) => b.covered - a.covered || a.price - b.price || a.order - b.order)
      .map((r) => r.id);
  }

  test.each([
    [['appointment_scheduling', 'whatsapp_booking', 'website_builder']],
    [['api_integration', 'llm_agent']],
    [['workflow_automation', 'process_audit', 'roi_estimate']],
    [['ros2', 'safety_interlocks', 'automation_audit']],
    [['summarization']],
    [['web_chat', 'voice_calls']],
  ])('order for %j', (required) => {
    const r = negotiateCapabilities(required);
    expect(r.matches.map((m) => m.service.id)).toEqual(expectedOrder(required));
  });

  test('coverage, covered and missing, best first', () => {
    const r = negotiateCapabilities([
      'Appointment Scheduling',
      'whatsapp_booking',
      'website_builder',
      'appointment_scheduling',
    ]);
    expect(r.required).toEqual(['appointment_scheduling', 'whatsapp_booking', 'website_builder']);
    const [first, second] = r.matches;
    // starter-pack (129) and store-pack (179) cover all three; the cheaper bundle comes first.
    expect(first).toMatchObject({ coverage: 1, missing: [] });
    expect(first?.service.id).toBe('starter-pack');
    expect(second?.service.id).toBe('store-pack');
    const receptionist = r.matches.find((m) => m.service.id === 'ai-receptionist');
    expect(receptionist).toMatchObject({
      covered: ['appointment_scheduling', 'whatsapp_booking'],
      missing: ['website_builder'],
    });
    expect(receptionist?.coverage).toBeCloseTo(2 / 3);
    for (let i = 1; i < r.matches.length; i++) {
      const a = r.matches[i - 1]!;
      const b = r.matches[i]!;
      expect(
        a.coverage > b.coverage || (a.coverage === b.coverage && a.service.agent_price <= b.service.agent_price),
      ).toBe(true);
    }
  });

  test('a does_not_support conflict leaves the service out, with the reason', () => {
    const r = negotiateCapabilities(['web_chat', 'voice_calls']);
    const excluded = r.excluded.map((e) => e.service.id);
    expect(excluded).toEqual(expect.arrayContaining(['ai-receptionist', 'starter-pack']));
    expect(r.matches.map((m) => m.service.id)).not.toContain('ai-receptionist');
    expect(r.excluded.find((e) => e.service.id === 'ai-receptionist')).toMatchObject({ conflicts: ['voice_calls'] });
    expect(r.excluded[0]?.reason).toMatch(/does not support voice_calls/);
  });

  test('an empty list is refused', () => {
    expect(() => negotiateCapabilities([])).toThrow(RangeError);
    expect(() => negotiateCapabilities([' ', '--'])).toThrow(RangeError);
  });
});
