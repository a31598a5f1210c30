/**
 * The integration-project rubric checks (docs/rubrics/integration-project.md, issue 38 §4): what an integration
 * engineer checks in an integration spec, applied to generated orders (fast-check), not one golden file.
 *
 * Documented limits and auth come from src/products/deliverables/apis.ts (API_LIMITS, each row linking the maker's
 * page); the request budget is re-derived here from the volume so the spec's verdicts are checked, not echoed.
 */
import fc from 'fast-check';
import { findApiLimits } from '../../src/products/deliverables/apis';
import { placeholderHits, type Files } from './rubrics';

const SYSTEMS = [
  'Shopify',
  'NetSuite',
  'Salesforce',
  'HubSpot',
  'QuickBooks Online',
  'Xero',
  'Stripe',
  'Zendesk',
  'WooCommerce',
  'Google Sheets',
  'Airtable',
  'Our legacy WMS',
  'Custom Postgres DB',
];
const VOLUMES = [
  '',
  '500 orders per day',
  '5k orders per day',
  '80,000 records a day',
  '2.5M records a month',
  '20k',
  '300 per hour',
];

export const integrationOrder = fc
  .record({
    systems: fc.uniqueArray(fc.constantFrom(...SYSTEMS), { minLength: 2, maxLength: 3 }),
    direction: fc.constantFrom('one-way', 'bidirectional', 'two-way sync', 'from the first to the second'),
    volume: fc.constantFrom(...VOLUMES),
    asString: fc.boolean(),
  })
  .map((o) => ({
    systems: o.asString ? o.systems.join(', ') : o.systems,
    direction: o.direction === 'from the first to the second' ? `${o.systems[0]} to ${o.systems[1]}` : o.direction,
    ...(o.volume ? { volume: o.volume } : {}),
  }));

export interface Spec {
  openapi: string;
  'x-integration': {
    systems: {
      id: string;
      name: string;
      known_product: boolean;
      auth?: string;
      not_in_tables?: string;
      entities: string[];
      rate_limit: null | {
        limit: string;
        sustained_per_second: number;
        daily?: number;
        throttle_per_second: number;
        requests_per_day_needed: number;
        exceeds: boolean;
        instead?: string;
        docs: string;
      };
    }[];
    flows: {
      from: string;
      to: string;
      entities: string[];
      conflict_resolution: string;
      loop_prevention: string | null;
    }[];
    field_mapping: Record<string, Record<string, string | null>[]>;
    sizing: { records_per_day: number; processing_mode: string };
    direction: { resolved: string };
  };
}

/** Checks one integration-project delivery; returns the broken rules. */
export function integrationRubric(files: Files): string[] {
  const broken: string[] = [];
  const fail = (rule: string, detail: string): void => {
    broken.push(`${rule}: ${detail}`);
  };
  for (const hit of placeholderHits(files)) fail('I1 placeholder', hit);
  const spec = JSON.parse(files['integration-project-spec.json'] ?? '{}') as Spec;
  const runbook = files['integration-project-runbook.md'] ?? '';
  const x = spec['x-integration'];
  if (spec.openapi !== '3.1.0') fail('I2 openapi', spec.openapi);
  const perDay = x.sizing.records_per_day;
  const byName = new Map(x.systems.map((s) => [s.name, s]));
  for (const s of x.systems) {
    const row = findApiLimits(s.name);
    if (row) {
      // I3 every named API's documented limit and auth, from the maker's page.
      const rl = s.rate_limit;
      if (!rl) {
        fail('I3 limits', `${s.name} has no rate_limit`);
        continue;
      }
      if (rl.limit !== row.limit || rl.docs !== row.limit_docs || !/^https:\/\//.test(rl.docs))
        fail('I3 limits', `${s.name}: ${rl.limit}`);
      if (s.auth !== row.auth) fail('I3 auth', `${s.name}: ${String(s.auth)}`);
      if (!runbook.includes(row.limit.replace(/_/g, '\\_').slice(0, 30)) && !runbook.includes(row.limit.slice(0, 30)))
        fail('I6 runbook', `${s.name}'s limit is not in the runbook`);
      // I4 the integration throttles under the limit, and says when one request per record cannot fit.
      if (rl.throttle_per_second > row.sustained_per_second)
        fail('I4 throttle', `${s.name} ${rl.throttle_per_second}/s`);
      const writes = x.flows.filter((f) => f.to === s.name).length * perDay;
      const reads = x.flows.filter((f) => f.from === s.name).length * perDay;
      const need = writes + Math.ceil(reads / 100);
      const over =
        need / 86_400 > row.sustained_per_second * 0.8 || (row.daily !== undefined && need > row.daily * 0.8);
      if (rl.requests_per_day_needed !== need) fail('I4 budget', `${s.name}: ${rl.requests_per_day_needed} vs ${need}`);
      if (over !== rl.exceeds) fail('I4 verdict', `${s.name}: exceeds ${rl.exceeds}, expected ${over}`);
      if (over) {
        if (!rl.instead || (row.bulk && !rl.instead.includes(row.bulk)))
          fail('I4 alternative', `${s.name}: ${String(rl.instead)}`);
        if (x.sizing.processing_mode !== 'queue_with_batch_writes') fail('I4 mode', x.sizing.processing_mode);
      }
    } else {
      // I5 a system outside the tables is said to be so, never filled with a fake field.
      if (s.known_product && s.name !== 'NetSuite') fail('I5 unknown', `${s.name} claimed known`);
      if (!s.known_product && !s.not_in_tables) fail('I5 unknown', `${s.name} not flagged`);
    }
  }
  // I5 every flow's entities carry external_id in every known system holding them (the idempotency key).
  for (const f of x.flows) {
    for (const e of f.entities) {
      const rows = x.field_mapping[e] ?? [];
      const ext = rows.find((r) => r.canonical === 'external_id' || r.canonical === 'row_id');
      for (const name of [f.from, f.to]) {
        const s = byName.get(name);
        if (!s?.known_product || !s.entities.includes(e)) continue;
        if (!ext || !ext[s.id]) fail('I5 mapping', `${e}: no external_id for ${name}`);
      }
    }
    // I7 two-way flows resolve conflicts and prevent loops.
    if (x.direction.resolved === 'bidirectional' && (!f.loop_prevention || f.conflict_resolution === 'source_wins'))
      fail('I7 bidirectional', JSON.stringify(f));
  }
  return broken;
}
