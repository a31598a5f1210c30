/**
 * The automation-audit rubric checks (docs/rubrics/automation-audit.md, issue 38 §4): what an operations consultant
 * checks in an audit (evidence, costs, value, payback, priorities that follow from them), applied to generated orders
 * (fast-check), not one golden file. The money is recomputed here from the catalogue and the stated rate.
 */
import fc from 'fast-check';
import { getService } from '../../src/domain/catalogue';
import { placeholderHits, type Files } from './rubrics';

export const DESCRIPTIONS = [
  'Physiotherapy clinic with 3 locations; patients book by phone; we invoice health funds.',
  'Online store on Shopify shipping 200 orders a day; customers e-mail about order status.',
  'Plumbing business with 6 vans; quotes and invoices are typed by hand.',
  'Warehouse packing and palletising 8 kg cartons by hand at the end of two conveyors.',
  'Agency of 12 consultants; weekly reports are assembled from spreadsheets.',
  'Small bakery.',
];
const TOOLS = [
  'Shopify',
  'Excel',
  'Gmail',
  'Cliniko',
  'Jotform',
  'Xero',
  'HubSpot',
  'Slack',
  'ServiceM8',
  'Google Sheets',
];
const PAINS = [
  'Re-typing every Jotform submission into Cliniko',
  'Answering the same delivery questions all day',
  'Chasing unpaid invoices',
  'Staff cost is $42/hour',
  'Manual palletising causes back injuries',
  'Building the Monday report takes half a day',
];

export const auditOrder = fc
  .record({
    description: fc.constantFrom(...DESCRIPTIONS),
    tools: fc.uniqueArray(fc.constantFrom(...TOOLS), { maxLength: 4 }),
    pains: fc.uniqueArray(fc.constantFrom(...PAINS), { maxLength: 3 }),
  })
  .map((o) => ({
    business_description: o.description,
    ...(o.tools.length > 0 ? { current_tools: o.tools } : {}),
    ...(o.pains.length > 0 ? { pain_points: o.pains } : {}),
  }));

export interface Finding {
  id: string;
  title: string;
  evidence: string[];
  estimated_hours_saved_per_week: number;
  recommended_service: string;
  priority: string;
  cost: {
    one_off: { item: string; usd: number }[];
    one_off_usd: number;
    running_usd_per_month: number;
    value_usd_per_year: number;
    payback_weeks: number | null;
  };
}

/** Checks one automation-audit delivery; returns the broken rules. */
export function auditRubric(files: Files, inputs: Record<string, unknown>): string[] {
  const broken: string[] = [];
  const fail = (rule: string, detail: string): void => {
    broken.push(`${rule}: ${detail}`);
  };
  for (const hit of placeholderHits(files)) fail('U1 placeholder', hit);
  const data = JSON.parse(files['automation-audit-findings.json'] ?? '{}') as {
    summary: {
      hourly_rate_usd: number;
      one_off_usd: number;
      value_usd_per_year: number;
      estimated_hours_saved_per_week: number;
    };
    findings: Finding[];
  };
  const report = files['automation-audit-report.md'] ?? '';
  const stated = /\$(\d+)\/hour/.exec(JSON.stringify(inputs.pain_points ?? ''))?.[1];
  const rate = stated ? Number(stated) : 35;
  if (data.summary.hourly_rate_usd !== rate) fail('U2 rate', `${data.summary.hourly_rate_usd} vs ${rate}`);
  if (data.findings.length === 0) fail('U2 findings', 'none');
  let last = 'P1';
  for (const f of data.findings) {
    const service = getService(f.recommended_service);
    if (!service) fail('U2 service', f.recommended_service);
    if (f.evidence.length === 0) fail('U2 evidence', f.id);
    if (!(f.estimated_hours_saved_per_week > 0)) fail('U2 hours', f.id);
    // U3 costs: the catalogue price (one-off, or monthly for a subscription), the items add up.
    const c = f.cost;
    if (c.one_off.reduce((n, x) => n + x.usd, 0) !== c.one_off_usd) fail('U3 cost', `${f.id} items do not add up`);
    if (service && service.billing !== 'monthly' && !c.one_off.some((x) => x.usd === service.human_price))
      fail('U3 cost', `${f.id} lacks the price of ${service.id}`);
    if (service?.billing === 'monthly' && c.running_usd_per_month < service.human_price)
      fail('U3 cost', `${f.id} running`);
    // U4 a robot cell is priced with its hardware, not only the blueprint.
    if (f.recommended_service === 'robot-control-system' && !c.one_off.some((x) => x.usd >= 10_000))
      fail('U4 robot cell', `${f.id} priced at ${c.one_off_usd}`);
    // U5 value and payback recomputed; priority follows the payback; P1 before P2 before P3.
    const perWeek = f.estimated_hours_saved_per_week * rate;
    if (c.value_usd_per_year !== Math.round(perWeek * 46)) fail('U5 value', `${f.id}: ${c.value_usd_per_year}`);
    const net = perWeek - (c.running_usd_per_month * 12) / 46;
    const payback = net > 0 ? Math.max(1, Math.ceil(c.one_off_usd / net)) : null;
    if (c.payback_weeks !== payback) fail('U5 payback', `${f.id}: ${c.payback_weeks} vs ${payback}`);
    const prio = payback !== null && payback <= 8 ? 'P1' : payback !== null && payback <= 26 ? 'P2' : 'P3';
    if (f.priority !== prio) fail('U5 priority', `${f.id}: ${f.priority} vs ${prio}`);
    if (f.priority < last) fail('U5 order', `${f.id} ${f.priority} after ${last}`);
    last = f.priority;
    // U6 the report shows each finding with its priority, cost and payback.
    const row = report
      .split('\n')
      .find((l) => l.includes(`| ${f.priority} |`) && l.includes(`$${c.one_off_usd.toLocaleString('en-US')}`));
    if (!row) fail('U6 report', `${f.id} has no row with its priority and cost`);
  }
  if (data.summary.one_off_usd !== data.findings.reduce((n, f) => n + f.cost.one_off_usd, 0))
    fail('U6 totals', 'one-off');
  if (!report.includes(`**${data.summary.estimated_hours_saved_per_week} hours per week**`)) fail('U6 totals', 'hours');
  return broken;
}
