/**
 * integration-project deliverables: an integration specification (an OpenAPI 3.1 document for the
 * integration service plus an `x-integration` section with flows, entity field mappings, sizing and
 * error handling) and an operations runbook.
 *
 * Source: seed §1, §2.1 (integration-project inputs: systems, direction; volume optional).
 */
import { parseCount, parseRate } from './parse';
import { NETSUITE_ENTITIES, findApiLimits, type ApiLimits } from './apis';
import { findProduct, findProducts, type Capability, type Product, type ProductEntity } from './products';
import type { DeliverableContext, DeliverableFile } from './types';
import {
  hasAny,
  haystack,
  jsonFile,
  line,
  list,
  lines,
  markdownFile,
  md,
  mdFooter,
  mdTable,
  provenance,
  slug,
} from './util';

const SYSTEM_ENTITIES: { keywords: string[]; category: string; entities: string[] }[] = [
  {
    keywords: ['shopify', 'woocommerce', 'magento', 'bigcommerce', 'ecommerce', 'shop', 'store'],
    category: 'ecommerce',
    entities: ['orders', 'customers', 'products'],
  },
  {
    keywords: ['netsuite', 'sap', 'odoo', 'dynamics', 'erp'],
    category: 'erp',
    entities: ['customers', 'orders', 'invoices', 'products'],
  },
  {
    keywords: ['quickbooks', 'xero', 'sage', 'freshbooks', 'accounting'],
    category: 'accounting',
    entities: ['customers', 'invoices', 'payments'],
  },
  {
    keywords: ['salesforce', 'hubspot', 'pipedrive', 'zoho', 'crm'],
    category: 'crm',
    entities: ['contacts', 'companies', 'deals'],
  },
  {
    keywords: ['zendesk', 'freshdesk', 'intercom', 'helpdesk', 'support'],
    category: 'helpdesk',
    entities: ['tickets', 'contacts'],
  },
  {
    keywords: ['stripe', 'paypal', 'adyen', 'payment'],
    category: 'payments',
    entities: ['payments', 'customers', 'invoices'],
  },
  { keywords: ['workday', 'bamboo', 'personio', 'hris', 'payroll', 'hr'], category: 'hr', entities: ['employees'] },
  {
    keywords: ['postgres', 'mysql', 'database', 'warehouse', 'snowflake', 'bigquery', 'db'],
    category: 'database',
    entities: ['records'],
  },
  { keywords: ['sheets', 'spreadsheet', 'excel', 'airtable'], category: 'spreadsheet', entities: ['rows'] },
];

const CANONICAL_FIELDS: Record<string, [string, string][]> = {
  orders: [
    ['external_id', 'string'],
    ['customer_email', 'string'],
    ['currency', 'string'],
    ['total_micros', 'integer'],
    ['status', 'string'],
    ['created_at', 'date-time'],
    ['updated_at', 'date-time'],
  ],
  customers: [
    ['external_id', 'string'],
    ['email', 'string'],
    ['name', 'string'],
    ['phone', 'string'],
    ['updated_at', 'date-time'],
  ],
  contacts: [
    ['external_id', 'string'],
    ['email', 'string'],
    ['first_name', 'string'],
    ['last_name', 'string'],
    ['company', 'string'],
    ['updated_at', 'date-time'],
  ],
  companies: [
    ['external_id', 'string'],
    ['name', 'string'],
    ['domain', 'string'],
    ['updated_at', 'date-time'],
  ],
  deals: [
    ['external_id', 'string'],
    ['name', 'string'],
    ['amount_micros', 'integer'],
    ['stage', 'string'],
    ['updated_at', 'date-time'],
  ],
  products: [
    ['external_id', 'string'],
    ['sku', 'string'],
    ['name', 'string'],
    ['price_micros', 'integer'],
    ['updated_at', 'date-time'],
  ],
  invoices: [
    ['external_id', 'string'],
    ['customer_external_id', 'string'],
    ['amount_micros', 'integer'],
    ['currency', 'string'],
    ['due_date', 'date'],
    ['status', 'string'],
    ['updated_at', 'date-time'],
  ],
  payments: [
    ['external_id', 'string'],
    ['invoice_external_id', 'string'],
    ['amount_micros', 'integer'],
    ['currency', 'string'],
    ['paid_at', 'date-time'],
  ],
  tickets: [
    ['external_id', 'string'],
    ['requester_email', 'string'],
    ['subject', 'string'],
    ['status', 'string'],
    ['priority', 'string'],
    ['updated_at', 'date-time'],
  ],
  employees: [
    ['external_id', 'string'],
    ['email', 'string'],
    ['name', 'string'],
    ['department', 'string'],
    ['start_date', 'date'],
    ['updated_at', 'date-time'],
  ],
  records: [
    ['external_id', 'string'],
    ['payload', 'object'],
    ['updated_at', 'date-time'],
  ],
  rows: [
    ['row_id', 'string'],
    ['values', 'object'],
    ['updated_at', 'date-time'],
  ],
};

/**
 * Records per day of a volume such as "5,000 orders per day", "5k/day", "2.5M records a month" (thousands
 * separators and k/M scales read as written); null when no rate is given. See parse.ts.
 */
export function parseVolumePerDay(value: string): number | null {
  return parseRate(value)?.perDay ?? null;
}

/** Category of a product, from what it does. */
const CATEGORY_OF: [Capability, string][] = [
  ['shipping', 'shipping'],
  ['ecommerce', 'ecommerce'],
  ['accounting', 'accounting'],
  ['job_management', 'field_service'],
  ['ticketing', 'helpdesk'],
  ['crm', 'crm'],
  ['payments', 'payments'],
  ['forms', 'forms'],
  ['scheduling', 'scheduling'],
  ['spreadsheet', 'spreadsheet'],
  ['database', 'database'],
  ['messaging', 'messaging'],
  ['email_marketing', 'email_marketing'],
  ['email', 'email'],
];

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A system's records with their field names: the product table's, or NetSuite's REST records (apis.ts). */
function knownEntities(system: string): { name: string; entities: readonly ProductEntity[]; docs: string } | undefined {
  const product = findProduct(system);
  if (product) return { name: product.name, entities: product.entities, docs: product.docs };
  if (hasAny(haystack(system), ['netsuite']))
    return {
      name: 'NetSuite',
      entities: NETSUITE_ENTITIES,
      docs: 'https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/chapter_1540391670.html',
    };
  return undefined;
}

function categorise(system: string): { category: string; entities: string[]; product: Product | undefined } {
  const product = findProduct(system);
  if (!product && hasAny(haystack(system), ['netsuite']))
    return { category: 'erp', entities: NETSUITE_ENTITIES.map((e) => e.name), product: undefined };
  if (product) {
    const category = CATEGORY_OF.find(([c]) => product.capabilities.includes(c))?.[1] ?? 'application';
    return { category, entities: product.entities.map((e) => e.name), product };
  }
  const found = SYSTEM_ENTITIES.find((s) => hasAny(haystack(system), s.keywords));
  return found
    ? { category: found.category, entities: found.entities, product: undefined }
    : { category: 'application', entities: ['records'], product: undefined };
}

/** Words that join two systems in a buyer's list: "WooCommerce and QuickBooks", "Stripe → Xero", "HubSpot/Slack". */
const SYSTEM_JOINERS = /\s+(?:and|&|\+|to|into|with|->|→|⇄|<->|<=>)\s+|\s*\/\s*/i;

/**
 * The systems of a list as a buyer writes them: an item naming two or more products of the table becomes those
 * products (in the order written); an item joined by "and", "&", "to", "/", "→" … becomes its parts. Case-insensitive
 * duplicates are dropped.
 */
export function splitSystems(items: string[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    const products = findProducts(item);
    const parts =
      products.length >= 2
        ? products.map((p) => p.name)
        : item
            .split(SYSTEM_JOINERS)
            .map((x) => x.trim())
            .filter(Boolean);
    for (const part of parts.length >= 2 ? parts : [item]) {
      if (!out.some((o) => o.toLowerCase() === part.toLowerCase())) out.push(part);
    }
  }
  return out;
}

/**
 * Systems in the order the direction names them ("WooCommerce to QuickBooks Online" puts WooCommerce first); systems
 * the direction does not name keep their place after those it does.
 */
export function orderedByDirection(systems: string[], direction: string): string[] {
  const hay = haystack(direction);
  const at = (name: string): number => {
    const product = findProduct(name);
    const names = [name, ...(product ? [product.name, ...product.aliases] : [])].map((n) => n.toLowerCase());
    const hits = names.map((n) => hay.indexOf(n)).filter((i) => i >= 0);
    return hits.length > 0 ? Math.min(...hits) : Number.POSITIVE_INFINITY;
  };
  return systems
    .map((name, i) => ({ name, i, at: at(name) }))
    .sort((a, b) => (a.at === b.at ? a.i - b.i : a.at - b.at))
    .map((x) => x.name);
}

/**
 * Generates `integration-project-spec.json` and `integration-project-runbook.md`.
 * Source: seed §1, §2.1.
 */
export function integrationProjectDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const directionInput = line(ctx.inputs, 'direction', '', 120);
  const systemNames = orderedByDirection(splitSystems(list(ctx.inputs, 'systems', 8)), directionInput);
  if (systemNames.length === 0) systemNames.push('System A', 'System B');
  if (systemNames.length === 1) systemNames.push('Internal platform');
  const directionText = line(ctx.inputs, 'direction', 'one-way', 120);
  const volumeText = line(ctx.inputs, 'volume', '', 120);
  const bidirectional =
    hasAny(haystack(directionText), [
      'bi',
      'bidirectional',
      'bi-directional',
      'two-way',
      'two way',
      '2-way',
      'both',
      '<->',
      'mutual',
    ]) && !hasAny(haystack(directionText), ['one-way', 'one way', 'unidirectional']);
  const reverse = !bidirectional && hasAny(haystack(directionText), ['reverse', 'inbound', 'import', 'pull']);

  const systems = systemNames.map((name) => {
    const c = categorise(name);
    const known = knownEntities(name);
    return {
      name: known?.name ?? name,
      id: slug(known?.name ?? name, 'system', 32),
      category: c.category,
      entities: c.entities,
      product: c.product,
      known,
      limits: findApiLimits(name),
    };
  });
  const ordered = reverse ? [...systems].reverse() : systems;
  const pairs: [(typeof systems)[number], (typeof systems)[number]][] = [];
  for (let i = 0; i + 1 < ordered.length; i += 1) {
    const a = ordered[i];
    const b = ordered[i + 1];
    if (!a || !b) continue;
    pairs.push([a, b]);
    if (bidirectional) pairs.push([b, a]);
  }

  const rated = volumeText ? parseVolumePerDay(volumeText) : null;
  // A count without a period ("5000", "20k records") is read per day, and the runbook says so.
  const bare = rated === null && volumeText ? parseCount(volumeText) : null;
  const perDay = rated ?? (bare !== null ? Math.round(bare) : null);
  const assumedPerDay = perDay ?? 10_000;
  const avgPerMinute = assumedPerDay / 1_440;
  const peakPerSecond = Math.max(1, Math.ceil((avgPerMinute / 60) * 10));
  // Each system's documented limit against the requests it receives: one write per record and flow into it, reads
  // paged 100 records a page; 80 % of the documented limit is the budget.
  const apiBudget = systems
    .filter((s) => s.limits)
    .map((s) => {
      const l = s.limits as ApiLimits;
      const writes = pairs.filter(([, to]) => to.id === s.id).length * assumedPerDay;
      const reads = pairs.filter(([from]) => from.id === s.id).length * assumedPerDay;
      const perDayNeeded = writes + Math.ceil(reads / 100);
      const avgNeeded = Math.round((perDayNeeded / 86_400) * 1000) / 1000;
      const exceeds =
        avgNeeded > l.sustained_per_second * 0.8 || (l.daily !== undefined && perDayNeeded > l.daily * 0.8);
      return {
        system: s.id,
        name: s.name,
        limit: l.limit,
        sustained_per_second: l.sustained_per_second,
        ...(l.daily !== undefined ? { daily: l.daily } : {}),
        signal: l.signal,
        docs: l.limit_docs,
        requests_per_day_needed: perDayNeeded,
        average_per_second_needed: avgNeeded,
        throttle_per_second: Math.round(l.sustained_per_second * 0.8 * 100) / 100,
        exceeds,
        ...(exceeds
          ? {
              instead: l.bulk
                ? `one request per record exceeds the documented limit: use ${l.bulk}`
                : `one request per record exceeds the documented limit and the API has no bulk route: queue the writes over the day and ask ${s.name} for a higher limit`,
            }
          : {}),
      };
    });
  const mode =
    peakPerSecond > 50 || apiBudget.some((b) => b.exceeds) ? 'queue_with_batch_writes' : 'event_driven_with_queue';
  const batchSize = peakPerSecond > 50 ? 500 : 100;

  const flows = pairs.map(([from, to]) => {
    const shared = from.entities.filter((e) => to.entities.includes(e));
    const entities = shared.length > 0 ? shared : [from.entities[0] ?? 'records'];
    return {
      id: `${from.id}-to-${to.id}`,
      from: from.name,
      to: to.name,
      entities,
      trigger: 'webhook_or_change_feed',
      fallback_poll_minutes: 15,
      idempotency_key: '{source_system}:{entity}:{external_id}:{updated_at}',
      conflict_resolution: bidirectional ? 'last_writer_wins_by_updated_at_with_origin_tag' : 'source_wins',
      loop_prevention: bidirectional ? 'skip events whose origin tag equals the target system' : null,
    };
  });
  const entities = [...new Set(flows.flatMap((f) => f.entities))].sort();
  // Each system's own field for each canonical field: from the product table where the product is known.
  const fieldMapping = Object.fromEntries(
    entities.map((e) => {
      const known = systems.map((s) => ({ s, entity: s.known?.entities.find((x) => x.name === e) }));
      const canonical = [
        ...new Set([
          ...(known.some((k) => k.entity) ? ['external_id'] : []),
          ...known.flatMap((k) => Object.keys(k.entity?.fields ?? {})),
          ...(known.some((k) => k.entity) ? [] : (CANONICAL_FIELDS[e] ?? []).map(([f]) => f)),
        ]),
      ];
      return [
        e,
        canonical.map((field) => ({
          canonical: field,
          ...Object.fromEntries(
            known
              .filter((k) => k.s.entities.includes(e))
              .map((k) => [
                k.s.id,
                // A system outside the tables: null, and the runbook says its fields are read on day 1.
                // Without an id of its own (a sheet row), the integration writes the key and finds records by it.
                k.entity
                  ? (k.entity.fields[field] ??
                    (field === 'external_id'
                      ? 'an "external_id" column the integration writes and finds the record by'
                      : null))
                  : null,
              ]),
          ),
        })),
      ];
    }),
  );
  const unmapped = systems.filter((s) => !s.known).map((s) => s.name);
  const schemaName = (e: string): string => e.charAt(0).toUpperCase() + e.slice(1).replace(/s$/, '');
  const schemas: Record<string, unknown> = {};
  for (const e of entities) {
    const fields = CANONICAL_FIELDS[e] ?? CANONICAL_FIELDS.records ?? [];
    schemas[schemaName(e)] = {
      type: 'object',
      required: [fields[0]?.[0] ?? 'external_id'],
      properties: Object.fromEntries(
        fields.map(([name, type]) => [
          name,
          type === 'date-time' || type === 'date'
            ? { type: 'string', format: type }
            : type === 'object'
              ? { type: 'object', additionalProperties: true }
              : { type },
        ]),
      ),
    };
  }
  schemas.ChangeEvent = {
    type: 'object',
    required: ['source_system', 'entity', 'external_id', 'updated_at'],
    properties: {
      source_system: { type: 'string', enum: systems.map((s) => s.id) },
      entity: { type: 'string', enum: entities },
      external_id: { type: 'string' },
      updated_at: { type: 'string', format: 'date-time' },
      origin: { type: 'string', description: 'System that originally wrote the change (loop prevention).' },
      data: { type: 'object', additionalProperties: true },
    },
  };
  schemas.SyncResult = {
    type: 'object',
    properties: {
      flow_id: { type: 'string' },
      processed: { type: 'integer' },
      failed: { type: 'integer' },
      dead_lettered: { type: 'integer' },
      finished_at: { type: 'string', format: 'date-time' },
    },
  };
  schemas.Problem = {
    type: 'object',
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      code: { type: 'string' },
    },
  };

  const problem = {
    description: 'Problem details (RFC 9457)',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  const spec = {
    openapi: '3.1.0',
    info: {
      title: `Integration: ${systemNames.join(bidirectional ? ' ⇄ ' : ' → ')}`,
      version: '1.0.0',
      description: `Integration service between ${systemNames.join(', ')} (${bidirectional ? 'bidirectional' : 'one-way'}). Amounts are integer micro-units.`,
    },
    servers: [{ url: '/', description: 'The integration service, at the host it is deployed on (relative URL)' }],
    paths: {
      '/webhooks/{system}': {
        post: {
          operationId: 'receiveChange',
          summary: "Receives a change event from a source system; verified by the system's signature header.",
          parameters: [
            { name: 'system', in: 'path', required: true, schema: { type: 'string', enum: systems.map((s) => s.id) } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ChangeEvent' } } },
          },
          responses: { '202': { description: 'Accepted and queued' }, '400': problem, '401': problem },
        },
      },
      '/flows/{flow_id}/sync': {
        post: {
          operationId: 'runSync',
          summary: 'Runs a reconciliation pass for one flow (also run on the fallback schedule).',
          parameters: [
            { name: 'flow_id', in: 'path', required: true, schema: { type: 'string', enum: flows.map((f) => f.id) } },
          ],
          responses: {
            '200': {
              description: 'Pass finished',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/SyncResult' } } },
            },
            '409': problem,
          },
        },
      },
      '/flows/{flow_id}/status': {
        get: {
          operationId: 'flowStatus',
          summary: 'Lag, throughput and error counts of one flow.',
          parameters: [
            { name: 'flow_id', in: 'path', required: true, schema: { type: 'string', enum: flows.map((f) => f.id) } },
          ],
          responses: {
            '200': {
              description: 'Status',
              content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
            },
          },
        },
      },
      '/dead-letters/{id}/replay': {
        post: {
          operationId: 'replayDeadLetter',
          summary: 'Re-queues one dead-lettered event after the cause is fixed.',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '202': { description: 'Re-queued' }, '404': problem },
        },
      },
    },
    components: { schemas },
    'x-integration': {
      ...provenance(ctx),
      direction: {
        requested: directionText,
        resolved: bidirectional ? 'bidirectional' : 'one_way',
        order: ordered.map((s) => s.name),
      },
      systems: systems.map((s) => ({
        id: s.id,
        name: s.name,
        category: s.category,
        entities: s.entities,
        known_product: Boolean(s.known),
        ...(s.known
          ? {
              auth: s.limits?.auth ?? s.product?.auth ?? null,
              api_reference: s.known.docs,
              endpoints: Object.fromEntries(s.known.entities.map((e) => [e.name, e.endpoint])),
            }
          : {
              not_in_tables: `${s.name} is not in the API tables: its auth, limits and field names are read from its documentation on day 1 and added to this spec`,
            }),
        rate_limit: apiBudget.find((b) => b.system === s.id) ?? null,
      })),
      flows,
      field_mapping: fieldMapping,
      sizing: {
        volume_input: volumeText || null,
        records_per_day: assumedPerDay,
        assumed: perDay === null,
        period_assumed: bare !== null,
        average_per_minute: Math.round(avgPerMinute * 100) / 100,
        design_peak_per_second: peakPerSecond,
        processing_mode: mode,
        batch_size: batchSize,
      },
      error_handling: {
        retry: { attempts: 6, backoff: 'exponential', initial_seconds: 5, max_seconds: 900, jitter: true },
        non_retryable: ['400', '401', '403', '404', '422'],
        dead_letter: { after_attempts: 6, retention_days: 14, replay_endpoint: '/dead-letters/{id}/replay' },
        rate_limits:
          'token bucket per system at throttle_per_second (80 % of the documented limit); honour Retry-After and the limit headers',
      },
      monitoring: {
        alerts: ['dead letters > 0 for 15 minutes', 'flow lag > 30 minutes', 'error rate > 2 % over 10 minutes'],
      },
    },
  };

  const runbook = lines(
    `# Runbook: ${md(systemNames.join(bidirectional ? ' ⇄ ' : ' → '))}`,
    '',
    '## Overview',
    '',
    mdTable(
      ['Flow', 'From', 'To', 'Entities', 'Conflicts'],
      flows.map((f) => [f.id, f.from, f.to, f.entities.join(', '), f.conflict_resolution]),
    ),
    '',
    `Volume: ${perDay === null ? `not given; sized for an assumed ${thousands(assumedPerDay)} records/day` : `${thousands(assumedPerDay)} records/day (from "${md(volumeText)}"${bare !== null ? ', which gives no period: read as per day, please confirm' : ''})`}. Design peak ${peakPerSecond}/s, mode \`${mode}\`, batch size ${batchSize}.`,
    '',
    '## Systems',
    '',
    mdTable(
      ['System', 'Category', 'Entities', 'Auth', 'API reference'],
      systems.map((s) => [
        s.name,
        s.category,
        s.entities.join(', '),
        s.limits?.auth ?? s.product?.auth ?? 'not in the API tables: read from its documentation on day 1',
        s.known?.docs ?? 'not in the API tables',
      ]),
    ),
    '',
    '## API limits',
    '',
    apiBudget.length > 0
      ? mdTable(
          ['System', 'Documented limit', 'Throttle', 'Needed (average)', 'Verdict'],
          apiBudget.map((b) => [
            b.name,
            `${b.limit} (${b.docs})`,
            `${b.throttle_per_second}/s`,
            `${thousands(b.requests_per_day_needed)} requests/day, ${b.average_per_second_needed}/s`,
            b.exceeds ? `over the limit: ${b.instead ?? ''}` : 'within the limit',
          ]),
        )
      : 'None of the systems is in the API tables.',
    '',
    '## Field mapping',
    '',
    ...entities.flatMap((e) => {
      const rows = (fieldMapping[e] ?? []) as Record<string, string | null>[];
      const ids = systems.filter((s) => s.entities.includes(e)).map((s) => s.id);
      return [
        `### ${md(e)}`,
        '',
        mdTable(
          ['Canonical', ...ids],
          rows.map((r) => [String(r.canonical), ...ids.map((id) => r[id] ?? '(not carried)')]),
        ),
        '',
      ];
    }),
    unmapped.length
      ? `Not in the API tables, so their columns are empty (null in the spec) until their schema is read on day 1: ${unmapped.map(md).join(', ')}.\n`
      : null,
    '',
    '## Deploy',
    '',
    '1. Create API credentials for each system with the minimum scopes the flows need; store them in the secret manager.',
    unmapped.length
      ? `2. Read the schema of ${unmapped.map(md).join(', ')} and fill their columns of \`x-integration.field_mapping\`; check the other columns against a real record.`
      : '2. Check `x-integration.field_mapping` against a real record of each system (custom fields are not listed).',
    '3. Deploy the service; register `/webhooks/{system}` in each source system and verify the signature secret.',
    '4. Run `POST /flows/{flow_id}/sync` once per flow in dry-run mode and compare counts on both sides.',
    '',
    '## Daily checks',
    '',
    '- `GET /flows/{flow_id}/status`: lag under 30 minutes, error rate under 2 %.',
    '- Dead-letter queue empty, or every entry has a ticket.',
    '',
    '## Incidents',
    '',
    mdTable(
      ['Symptom', 'Likely cause', 'Action'],
      [
        ['401/403 from a system', 'Expired or revoked credential', 'Rotate the credential; replay dead letters'],
        ['429 responses', 'Rate limit reached', 'Lower concurrency; the retry policy honours Retry-After'],
        ['Growing lag', 'Source webhook disabled or queue backlog', 'Check webhook registration; run a sync pass'],
        ['Duplicates in a target', 'Idempotency key not stored', 'Check the key store; de-duplicate by external_id'],
        ...(bidirectional
          ? [['Records flip-flopping', 'Update loop between systems', 'Check origin tags; pause one flow direction']]
          : []),
        ['422 validation errors', 'Mapping mismatch', 'Fix the field mapping; replay the dead letters'],
      ],
    ),
    '',
    '## Replay',
    '',
    '1. Fix the cause (credential, mapping, target outage).',
    '2. `POST /dead-letters/{id}/replay` for each entry, oldest first; events are idempotent, so replays are safe.',
    '3. Run a sync pass for the affected flow and confirm the counts match.',
    mdFooter(ctx),
  );

  return [jsonFile('integration-project-spec.json', spec), markdownFile('integration-project-runbook.md', runbook)];
}
