/**
 * The procurement planner (src/domain/procurement.ts): how objective text and requirements are read, which service
 * is chosen within budget and why, and what is reported when nothing fits. Commission arithmetic in micro-units.
 */
import { PARTNER_COMMISSION_PERCENT } from '../../src/domain/catalogue';
import { percentOf } from '../../src/domain/money';
import { parseRequirements, planProcurement, readObjective, type ProcurementAsk } from '../../src/domain/procurement';

const ask = (over: Partial<ProcurementAsk>): ProcurementAsk => ({
  requirements: [],
  budgetMicros: 100_000_000,
  autoPurchase: true,
  ...over,
});

describe('reading the objective', () => {
  test('phrases before words, catalogue tags before keywords, plurals folded, the rest ignored', () => {
    const r = readObjective('An AI receptionist answering questions on WhatsApp, plus a booking page!');
    expect(r.terms).toEqual([
      { term: 'ai receptionist', tags: ['ai_receptionist'], via: 'capability_tag' },
      { term: 'questions', tags: ['faq_answering'], via: 'keyword' },
      { term: 'whatsapp', tags: ['whatsapp_booking'], via: 'keyword' },
      { term: 'booking page', tags: ['booking_page'], via: 'capability_tag' },
    ]);
    expect(r.ignored).toEqual(['an', 'answering', 'on', 'plus', 'a']);
  });

  test('requirements: filters, tags, tag prefixes, keywords, unrecognised; bad filter values are reported', () => {
    const r = parseRequirements(['language:ar', 'region = europe', 'ros2', 'Appointment', 'chatbot', 'teleportation']);
    if (!r.ok) throw new Error('expected ok');
    expect(r.requirements.map((x) => x.kind)).toEqual([
      'filter',
      'filter',
      'capability',
      'capability',
      'capability',
      'unrecognised',
    ]);
    expect(r.requirements[2]).toMatchObject({ any_of: ['ros2', 'ros2_control'], via: 'capability_tag' });
    expect(r.requirements[3]).toMatchObject({ any_of: ['appointment_scheduling'] });
    expect(r.requirements[4]).toMatchObject({ any_of: ['web_chat'], via: 'keyword' });
    expect(r.filters).toMatchObject({ language: 'ar', region: 'europe' });
    expect(parseRequirements(['ok', 'min_sla:200'])).toMatchObject({ ok: false, index: 1 });
    expect(parseRequirements(['language:en', 'language:fr'])).toMatchObject({ ok: false, index: 1 });
  });
});

describe('choosing', () => {
  test('most wishes met within budget, then price; the explanation names the choice and what was ruled out', () => {
    const cheap = planProcurement(ask({ objective: 'a booking website for my dental clinic' }));
    expect(cheap.chosen).toMatchObject({
      service_id: 'website-booking',
      covered: ['booking', 'website'],
      missing: ['dental'],
    });
    expect(cheap.explanation.join('\n')).toMatch(
      /clinic-pack covers more \(3\) but agent price 199 USD exceeds budget 100 USD/,
    );
    const rich = planProcurement(
      ask({ objective: 'a booking website for my dental clinic', budgetMicros: 300_000_000 }),
    );
    expect(rich.chosen).toMatchObject({ service_id: 'clinic-pack', coverage: 1 });
  });

  test('requirements are hard and key:value filters apply', () => {
    const p = planProcurement(ask({ requirements: ['ros2'], budgetMicros: 1000_000_000 }));
    expect(p.chosen?.service_id).toBe('robotics-bundle');
    const es = planProcurement(ask({ requirements: ['ros2', 'language:es'], budgetMicros: 1000_000_000 }));
    expect(es.chosen).toBeNull();
    expect(es.missing).toEqual([
      'requirements filters: robot-control-system fails language=es; robotics-bundle fails language=es',
    ]);
  });

  test('a wished negative constraint excludes the services that refuse it', () => {
    const p = planProcurement(ask({ objective: 'a receptionist that takes phone calls', budgetMicros: 500_000_000 }));
    expect(p.chosen).toBeNull();
    expect(p.missing[0]).toMatch(/^negative constraints: ai-receptionist does not support voice_calls/);
  });

  test('over budget names the cheapest match; nothing recognised says so', () => {
    const p = planProcurement(ask({ objective: 'robot control with ROS2', budgetMicros: 100_000_000 }));
    expect(p.missing).toEqual([
      'budget: the cheapest matching service, robotics-bundle, costs 349 USD, above the budget of 100 USD',
    ]);
    expect(planProcurement(ask({ objective: 'xyzzy' })).missing).toEqual([
      'the objective and requirements name no capability this catalogue knows',
    ]);
    expect(planProcurement(ask({ requirements: ['teleportation'] })).missing).toEqual([
      'requirement "teleportation" is not a known capability or filter',
    ]);
  });

  test("inputs: the caller's first, then the objective and e-mail fill obvious ones; the rest are reported missing", () => {
    const p = planProcurement(ask({ objective: 'summarize the Q3 board notes', inputs: { format: 'markdown' } }));
    expect(p.chosen?.service_id).toBe('task-worker');
    expect(p.inputs).toEqual({ format: 'markdown', task_prompt: 'summarize the Q3 board notes' });
    expect(p.missing_inputs).toEqual([]);
    const r = planProcurement(ask({ objective: 'AI receptionist', email: 'ops@example.com' }));
    expect(r.inputs).toEqual({ contact_email: 'ops@example.com' });
    expect(r.missing_inputs).toEqual(['business_name', 'services']);
  });

  test('deterministic: the same ask gives the same plan', () => {
    const a = ask({ objective: 'n8n workflow to sync Typeform leads to HubSpot', requirements: ['min_sla:99.5'] });
    expect(planProcurement(a)).toEqual(planProcurement(a));
    expect(planProcurement(a).chosen?.service_id).toBe('automation-wf');
  });
});

describe('commission arithmetic', () => {
  test('20% of the payment received, in integer micro-units, halves away from zero', () => {
    expect(PARTNER_COMMISSION_PERCENT).toBe(20);
    expect(percentOf(69_000_000, 20)).toBe(13_800_000);
    expect(percentOf(39_000_000, 20)).toBe(7_800_000);
    expect(percentOf(1_000_000, 20)).toBe(200_000);
    expect(percentOf(990_000, 20)).toBe(198_000);
    expect(percentOf(1_000_001, 20)).toBe(200_000); // 200,000.2
    expect(percentOf(1_000_003, 20)).toBe(200_001); // 200,000.6
    expect(percentOf(5, 20)).toBe(1);
    expect(percentOf(2, 20)).toBe(0); // 0.4: the commission rounds to 0 and is not credited
  });
});
