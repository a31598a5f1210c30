import { createHash } from 'node:crypto';
import { SERVICES, getService, missingInputs } from '../../src/domain/catalogue';
import {
  DeliverableError,
  GENERATORS,
  bundleDeliverables,
  bundleManifest,
  completeInputs,
  escapeHtml,
  generateDeliverables,
  isSafeFileName,
  languageTasks,
  yamlString,
  type DeliverableContext,
  type DeliverableFile,
  type InputValue,
} from '../../src/products/deliverables';
import { fakeLanguage } from '../helpers/fakeTextModel';

/** js-yaml ships with jest's dependency tree; the YAML checks are skipped if it ever disappears. */
function loadYaml(): ((text: string) => unknown) | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('js-yaml') as { load: (text: string) => unknown }).load;
  } catch {
    return null;
  }
}
const yamlLoad = loadYaml();

const ISSUED = '2026-03-01T10:00:00.000Z';

const SAMPLE_INPUTS: Record<string, Record<string, InputValue>> = {
  'ai-receptionist': {
    business_name: 'Bright Smile Dental',
    contact_email: 'front@brightsmile.example',
    services: 'Cleaning, Whitening, Check-up',
    whatsapp: '+44 7700 900123',
  },
  'website-booking': {
    business_name: 'Bright Smile Dental',
    industry: 'Dental clinic',
    services: ['Cleaning', 'Whitening'],
  },
  'automation-wf': { workflow_type: 'new order notification', source_app: 'Shopify', target_app: 'Slack' },
  'task-worker': {
    task_prompt: 'Compare HubSpot and Pipedrive for a 5-person agency. Must include pricing. Calculate 20% of 1,200.',
    format: 'markdown',
  },
  'smart-consultation': {
    type: 'relocation',
    description: 'Developer moving with family',
    current_country: 'Egypt',
    target_country: 'Germany',
  },
  'robot-control-system': {
    robot_type: 'UR5e collaborative arm',
    controller: 'Siemens S7-1500 PLC',
    objective: 'Pick parts from a conveyor into trays',
    site_constraints: 'Shared workspace',
  },
  'agent-development': {
    use_case: 'Qualify inbound leads and book calls',
    tools_required: 'Gmail, Google Calendar, HubSpot',
    data_sources: 'Product docs',
  },
  'integration-project': { systems: 'Shopify, NetSuite', direction: 'bidirectional', volume: '5k orders per day' },
  'automation-audit': {
    business_description: 'Logistics company typing phone orders into Excel',
    current_tools: 'Excel, Gmail, QuickBooks',
    pain_points: 'Late invoices; double data entry',
  },
};

const SINGLE_IDS = SERVICES.filter((s) => s.bundle !== true).map((s) => s.id);
const BUNDLE_IDS = SERVICES.filter((s) => s.bundle === true).map((s) => s.id);

/** A context; services with required language work get the fake model's replies (test/helpers/fakeTextModel.ts). */
function ctx(
  serviceId: string,
  inputs: Record<string, InputValue> = SAMPLE_INPUTS[serviceId] ?? {},
  orderId = 'ord_test_1',
): DeliverableContext {
  const base: DeliverableContext = { orderId, serviceId, inputs, issuedAt: ISSUED };
  const required = languageTasks(base).filter((t) => t.required);
  return required.length > 0 ? { ...base, language: fakeLanguage(required) } : base;
}

function file(files: DeliverableFile[], name: string): DeliverableFile {
  const f = files.find((x) => x.name === name);
  if (!f) throw new Error(`missing ${name} in ${files.map((x) => x.name).join(', ')}`);
  return f;
}

function textOf(f: DeliverableFile): string {
  return f.content.toString('utf8');
}

const MEDIA_TYPES = [
  'application/json',
  'text/markdown; charset=utf-8',
  'text/html; charset=utf-8',
  'application/yaml',
  'text/plain; charset=utf-8',
];

function checkParses(f: DeliverableFile): void {
  const body = textOf(f);
  if (f.media_type === 'application/json') expect(() => JSON.parse(body)).not.toThrow();
  if (f.media_type === 'application/yaml' && yamlLoad) expect(() => yamlLoad(body)).not.toThrow();
  if (f.media_type.startsWith('text/html')) {
    expect(body.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(body.trimEnd().endsWith('</html>')).toBe(true);
  }
}

describe('generateDeliverables: every non-bundle service', () => {
  it('has a generator for every non-bundle service and none for bundles', () => {
    expect(Object.keys(GENERATORS).sort()).toEqual([...SINGLE_IDS].sort());
    expect(SINGLE_IDS).toHaveLength(9);
  });

  it('covers every service with sample inputs that satisfy the catalogue', () => {
    for (const id of SINGLE_IDS) {
      const service = getService(id);
      expect(service).toBeDefined();
      if (service) expect(missingInputs(service, SAMPLE_INPUTS[id] ?? {})).toEqual([]);
    }
  });

  it.each(SINGLE_IDS)('%s yields valid, safe, unique files', (id) => {
    const files = generateDeliverables(ctx(id));
    expect(files.length).toBeGreaterThanOrEqual(2);
    const names = files.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of files) {
      expect(isSafeFileName(f.name)).toBe(true);
      expect(f.name).not.toMatch(/[/\\]/);
      expect(f.name.startsWith(`${id}-`)).toBe(true);
      expect(MEDIA_TYPES).toContain(f.media_type);
      expect(Buffer.isBuffer(f.content)).toBe(true);
      expect(f.content.length).toBeGreaterThan(200);
      checkParses(f);
    }
  });

  it.each(SINGLE_IDS)('%s is deterministic: two calls are byte-identical', (id) => {
    const a = generateDeliverables(ctx(id));
    const b = generateDeliverables(ctx(id));
    expect(a.map((f) => f.name)).toEqual(b.map((f) => f.name));
    a.forEach((f, i) => {
      expect(Buffer.compare(f.content, b[i]?.content ?? Buffer.alloc(0))).toBe(0);
    });
  });

  it.each(SINGLE_IDS)('%s content depends on the inputs and the order', (id) => {
    const base = generateDeliverables(ctx(id));
    const changedInputs = Object.fromEntries(
      Object.entries(SAMPLE_INPUTS[id] ?? {}).map(([k, v]) => [
        k,
        typeof v === 'string' ? `${v} Changed` : Array.isArray(v) ? [...v, 'Changed'] : v,
      ]),
    );
    const other = generateDeliverables(ctx(id, changedInputs));
    const otherOrder = generateDeliverables(ctx(id, SAMPLE_INPUTS[id], 'ord_test_2'));
    const digest = (files: DeliverableFile[]): string =>
      createHash('sha256')
        .update(Buffer.concat(files.map((f) => f.content)))
        .digest('hex');
    expect(digest(other)).not.toBe(digest(base));
    expect(digest(otherOrder)).not.toBe(digest(base));
  });

  it.each(SINGLE_IDS)('%s still produces files from empty inputs (bundle parts)', (id) => {
    const files = generateDeliverables(ctx(id, {}));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) checkParses(f);
  });

  it('rejects bundles and unknown services with a named error', () => {
    expect(() => generateDeliverables(ctx('starter-pack'))).toThrow(DeliverableError);
    try {
      generateDeliverables(ctx('starter-pack'));
    } catch (e) {
      expect((e as DeliverableError).code).toBe('bundle_service');
      expect((e as DeliverableError).name).toBe('DeliverableError');
    }
    try {
      generateDeliverables(ctx('no-such-service'));
      throw new Error('should have thrown');
    } catch (e) {
      expect((e as DeliverableError).code).toBe('unknown_service');
    }
  });
});

describe('service-specific content', () => {
  it('ai-receptionist: config carries business, services, intents, escalation and WhatsApp', () => {
    const files = generateDeliverables(ctx('ai-receptionist'));
    const config = JSON.parse(textOf(file(files, 'ai-receptionist-config.json')));
    expect(config.business.name).toBe('Bright Smile Dental');
    expect(config.business.services.map((s: { name: string }) => s.name)).toEqual([
      'Cleaning',
      'Whitening',
      'Check-up',
    ]);
    expect(config.escalation.email).toBe('front@brightsmile.example');
    expect(config.intents.map((i: { name: string }) => i.name)).toContain('book_appointment');
    const whatsapp = config.channels.find((c: { type: string }) => c.type === 'whatsapp');
    expect(whatsapp).toMatchObject({ enabled: true, phone_number_e164: '+447700900123' });
    expect(file(files, 'ai-receptionist-system-prompt.md').media_type).toBe('text/markdown; charset=utf-8');
    const noWhatsapp = JSON.parse(
      textOf(
        file(
          generateDeliverables(ctx('ai-receptionist', { business_name: 'X', contact_email: 'x@y.z', services: 'A' })),
          'ai-receptionist-config.json',
        ),
      ),
    );
    expect(noWhatsapp.channels.find((c: { type: string }) => c.type === 'whatsapp').enabled).toBe(false);
  });

  it('website-booking: HTML escapes <script> and attribute breakers in every input', () => {
    const evil = '<script>alert("x")</script>';
    const files = generateDeliverables(
      ctx('website-booking', {
        business_name: `Evil ${evil}`,
        industry: `"><img src=x onerror=alert(1)>`,
        services: [`Cut ${evil}`, "O'Neil & Sons"],
      }),
    );
    const html = textOf(file(files, 'website-booking-index.html'));
    expect(file(files, 'website-booking-index.html').media_type).toBe('text/html; charset=utf-8');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('O&#39;Neil &amp; Sons');
    // Exactly one script element: the page's own.
    expect(html.match(/<script>/g)).toHaveLength(1);
    const config = JSON.parse(textOf(file(files, 'website-booking-config.json')));
    expect(config.business.name).toBe(`Evil ${evil}`);
    expect(config.endpoint.payload_schema.properties.service.enum).toHaveLength(2);
  });

  it('website-booking: the CSP hashes match the inline style and script', () => {
    const html = textOf(file(generateDeliverables(ctx('website-booking')), 'website-booking-index.html'));
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const hash = (s: string): string => `sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}`;
    expect(html).toContain(hash(style));
    expect(html).toContain(hash(script));
  });

  it('automation-wf: importable n8n workflow whose connections reference existing nodes', () => {
    for (const inputs of [
      SAMPLE_INPUTS['automation-wf'] ?? {},
      { workflow_type: 'daily report', source_app: 'Google Sheets', target_app: 'Some Unknown App' },
      { workflow_type: 'weekly backup', source_app: 'Airtable', target_app: 'Notion' },
    ]) {
      const files = generateDeliverables(ctx('automation-wf', inputs));
      const wf = JSON.parse(textOf(file(files, 'automation-wf-workflow.json')));
      expect(Array.isArray(wf.nodes)).toBe(true);
      expect(wf.settings.executionOrder).toBe('v1');
      const names = new Set<string>(wf.nodes.map((n: { name: string }) => n.name));
      expect(names.size).toBe(wf.nodes.length);
      const ids = new Set<string>(wf.nodes.map((n: { id: string }) => n.id));
      expect(ids.size).toBe(wf.nodes.length);
      for (const n of wf.nodes) {
        expect(n.type).toMatch(/^n8n-nodes-base\.[a-zA-Z]+$/);
        expect(typeof n.typeVersion).toBe('number');
        expect(n.position).toHaveLength(2);
      }
      const types = wf.nodes.map((n: { type: string }) => n.type);
      expect(types.some((t: string) => t === 'n8n-nodes-base.webhook' || t === 'n8n-nodes-base.scheduleTrigger')).toBe(
        true,
      );
      expect(types).toContain('n8n-nodes-base.httpRequest');
      const targets: string[] = [];
      for (const [from, conn] of Object.entries(
        wf.connections as Record<string, { main: { node: string; type: string; index: number }[][] }>,
      )) {
        expect(names.has(from)).toBe(true);
        for (const output of conn.main)
          for (const link of output) {
            expect(names.has(link.node)).toBe(true);
            expect(link.type).toBe('main');
            targets.push(link.node);
          }
      }
      // Every non-trigger node is reachable.
      for (const n of wf.nodes) if (!/Trigger$|webhook$/.test(n.type)) expect(targets).toContain(n.name);
    }
  });

  it('automation-wf: schedule words choose a schedule trigger, otherwise a webhook', () => {
    const types = (inputs: Record<string, InputValue>): string[] =>
      JSON.parse(
        textOf(file(generateDeliverables(ctx('automation-wf', inputs)), 'automation-wf-workflow.json')),
      ).nodes.map((n: { type: string }) => n.type);
    expect(types({ workflow_type: 'daily report', source_app: 'Stripe', target_app: 'Slack' })).toContain(
      'n8n-nodes-base.scheduleTrigger',
    );
    expect(types({ workflow_type: 'new payment alert', source_app: 'Stripe', target_app: 'Slack' })).toContain(
      'n8n-nodes-base.webhook',
    );
  });

  it('task-worker: result in the requested format, with computed facts', () => {
    const files = generateDeliverables(ctx('task-worker'));
    const result = JSON.parse(textOf(file(files, 'task-worker-result.json')));
    expect(result.format.delivered).toBe('markdown');
    expect(result.facts_from_prompt.computed[0].result).toBe('240');
    // The delivered result is the model's work (one piece per item), not a plan.
    expect(result.result.items.length).toBeGreaterThanOrEqual(1);
    expect(result).not.toHaveProperty('plan');
    expect(textOf(file(files, 'task-worker-result.md'))).toContain(
      `## ${result.result.items[0].heading.replace(/[\\`*_[\]<>#|~&]/g, '\\$&')}`,
    );
    const jsonOnly = generateDeliverables(ctx('task-worker', { task_prompt: 'Summarize this article' }));
    expect(jsonOnly.map((f) => f.name)).toEqual(['task-worker-result.json']);
    const txt = generateDeliverables(ctx('task-worker', { task_prompt: 'Summarize this article', format: 'text' }));
    expect(file(txt, 'task-worker-result.txt').media_type).toBe('text/plain; charset=utf-8');
  });

  it('robot-control-system: YAML quoting survives hostile inputs', () => {
    const hostile = 'arm"\n: injected: true # comment\u2028x';
    const files = generateDeliverables(
      ctx('robot-control-system', { robot_type: 'mobile AMR', controller: 'ROS 2', objective: hostile }),
    );
    const params = file(files, 'robot-control-system-params.yaml');
    expect(params.media_type).toBe('application/yaml');
    expect(textOf(file(files, 'robot-control-system-safety-checklist.md'))).toMatch(
      /not\*\* provide safety certification/,
    );
    if (yamlLoad) {
      const doc = yamlLoad(textOf(params)) as Record<string, { ros__parameters: Record<string, unknown> }>;
      expect(doc.mission_supervisor?.ros__parameters.objective).toBe(hostile);
      // "mobile AMR" is in no data sheet: the pack is configured for a tabulated robot and says so.
      expect(doc.mission_supervisor?.ros__parameters.robot_model).toBeDefined();
      expect(Object.keys(doc)).not.toContain('injected');
      const launch = yamlLoad(textOf(file(files, 'robot-control-system-launch.yaml'))) as { launch: unknown[] };
      expect(Array.isArray(launch.launch)).toBe(true);
    }
  });

  it('agent-development: tool manifest has JSON Schema inputs and unique names', () => {
    const files = generateDeliverables(ctx('agent-development'));
    const manifest = JSON.parse(textOf(file(files, 'agent-development-tools.json')));
    const names: string[] = manifest.tools.map((t: { name: string }) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['send_email', 'create_event', 'crm_search', 'search_documents']));
    for (const t of manifest.tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.name).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('integration-project: OpenAPI 3.1 spec with flows both ways for bidirectional', () => {
    const spec = JSON.parse(
      textOf(file(generateDeliverables(ctx('integration-project')), 'integration-project-spec.json')),
    );
    expect(spec.openapi).toBe('3.1.0');
    expect(spec['x-integration'].flows.map((f: { id: string }) => f.id)).toEqual([
      'shopify-to-netsuite',
      'netsuite-to-shopify',
    ]);
    expect(spec['x-integration'].sizing.records_per_day).toBe(5000);
    const oneWay = JSON.parse(
      textOf(
        file(
          generateDeliverables(ctx('integration-project', { systems: ['Stripe', 'Xero'], direction: 'one-way' })),
          'integration-project-spec.json',
        ),
      ),
    );
    expect(oneWay['x-integration'].flows).toHaveLength(1);
  });

  it('automation-audit: findings JSON agrees with the report', () => {
    const files = generateDeliverables(ctx('automation-audit'));
    const data = JSON.parse(textOf(file(files, 'automation-audit-findings.json')));
    expect(data.findings.length).toBeGreaterThan(0);
    const sum = data.findings.reduce(
      (n: number, f: { estimated_hours_saved_per_week: number }) => n + f.estimated_hours_saved_per_week,
      0,
    );
    expect(data.summary.estimated_hours_saved_per_week).toBe(sum);
    for (const f of data.findings) expect(getService(f.recommended_service)).toBeDefined();
    expect(textOf(file(files, 'automation-audit-report.md'))).toContain(`${sum} hours per week`);
  });

  it('smart-consultation: report and plan reflect type and countries', () => {
    const files = generateDeliverables(ctx('smart-consultation'));
    const plan = JSON.parse(textOf(file(files, 'smart-consultation-action-plan.json')));
    expect(plan.consultation_type).toBe('relocation');
    expect(plan.topics).toContain('immigration');
    expect(plan.countries).toEqual({ current: 'Egypt', target: 'Germany', cross_border: true });
    expect(plan.questions.length).toBeGreaterThanOrEqual(1);
    // Egypt has no residence notes in the table; Germany's are given to the model and shown.
    expect(plan.country_notes.map((c: { label: string }) => c.label)).toEqual(['Germany']);
    expect(textOf(file(files, 'smart-consultation-report.md'))).toContain('not legal, tax or immigration advice');
  });

  it('markdown escapes HTML from inputs', () => {
    const files = generateDeliverables(
      ctx('smart-consultation', { type: 'general', description: '<script>alert(1)</script>' }),
    );
    expect(textOf(file(files, 'smart-consultation-report.md'))).not.toContain('<script>');
  });
});

describe('bundles', () => {
  it("completeInputs derives every required part input from each bundle's inputs", () => {
    const bundleInputs: Record<string, Record<string, InputValue>> = {
      'starter-pack': { business_name: 'Acme', industry: 'hair salon', contact_email: 'a@acme.example' },
      'clinic-pack': { business_name: 'Care', practice_type: 'physiotherapy', contact_email: 'c@care.example' },
      'store-pack': { business_name: 'Shop', category: 'electronics store', contact_email: 's@shop.example' },
      'growth-pack': { business_name: 'Grow', growth_goals: 'double bookings', contact_email: 'g@grow.example' },
      'robotics-bundle': { objective: 'palletize boxes', contact_email: 'r@bot.example' },
    };
    expect(Object.keys(bundleInputs).sort()).toEqual([...BUNDLE_IDS].sort());
    for (const [bundleId, inputs] of Object.entries(bundleInputs)) {
      for (const partId of getService(bundleId)?.includes ?? []) {
        const part = getService(partId);
        if (!part) throw new Error(partId);
        const completed = completeInputs(partId, inputs);
        expect({ bundleId, partId, missing: missingInputs(part, completed) }).toEqual({
          bundleId,
          partId,
          missing: [],
        });
        expect(completed.business_name ?? inputs.business_name).toEqual(inputs.business_name);
      }
    }
    // Given inputs always win.
    expect(completeInputs('website-booking', { services: 'Only this' }).services).toBe('Only this');
  });

  it('bundleManifest lists parts in includes order with checksums, deterministically', () => {
    const inputs = { business_name: 'Acme', industry: 'hair salon', contact_email: 'a@acme.example' };
    const parts = (getService('starter-pack')?.includes ?? []).map((serviceId) => ({
      serviceId,
      files: generateDeliverables(ctx(serviceId, inputs, 'ord_bundle')).map((f) => ({
        name: f.name,
        sha256: createHash('sha256').update(f.content).digest('hex'),
        size: f.content.length,
      })),
    }));
    const bundleCtx = ctx('starter-pack', inputs, 'ord_bundle');
    const manifest = bundleManifest(bundleCtx, [...parts].reverse());
    expect(manifest.name).toBe('starter-pack-manifest.json');
    expect(manifest.media_type).toBe('application/json');
    const body = JSON.parse(textOf(manifest));
    expect(body.parts.map((p: { service_id: string }) => p.service_id)).toEqual([
      'smart-consultation',
      'website-booking',
      'ai-receptionist',
    ]);
    expect(body.totals.files).toBe(parts.reduce((n, p) => n + p.files.length, 0));
    expect(body.sha256sums[0]).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    expect(typeof body.readme).toBe('string');
    expect(Buffer.compare(manifest.content, bundleManifest(bundleCtx, parts).content)).toBe(0);

    const all = bundleDeliverables(bundleCtx, parts);
    expect(all.map((f) => f.name)).toEqual([
      'starter-pack-manifest.json',
      'starter-pack-readme.md',
      'starter-pack-sha256sums.txt',
    ]);
    for (const f of all) expect(isSafeFileName(f.name)).toBe(true);
    const partNames = parts.flatMap((p) => p.files.map((f) => f.name));
    for (const f of all) expect(partNames).not.toContain(f.name);
    expect(new Set(partNames).size).toBe(partNames.length);
  });
});

describe('escaping helpers', () => {
  it('escapeHtml covers the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('yamlString produces a double-quoted scalar that round-trips', () => {
    const s = 'line1\nline2: "q" # not a comment \u2028 \u0085 end';
    const quoted = yamlString(s);
    expect(quoted.startsWith('"')).toBe(true);
    expect(quoted).not.toMatch(/[\n\u2028\u0085]/);
    if (yamlLoad) expect((yamlLoad(`k: ${quoted}`) as { k: string }).k).toBe(s);
  });
});
