/**
 * x402 domain without servers: the 18 templates (real n8n node types, versions, operations and events of the
 * pinned snapshot; seed §2.13 prices), the workflow audit (each rule fires on a workflow built to break it and stays
 * quiet on a clean one), the agent starter bundle, the observation feed maths and user-agent classification.
 */
import { N8N_NODE_TYPES, checkNodeUse, indexNodeTypes } from '../../src/products/micro/snapshot';
import { agentStarterBundle } from '../../src/products/x402/agentStarter';
import { AUDIT_RULES, InvalidWorkflowError, auditWorkflow, workflowOfBody } from '../../src/products/x402/audit';
import type { N8nWorkflow } from '../../src/products/x402/n8n';
import { agentsSnapshot, methodologyDocument, tickReading } from '../../src/products/x402/observations';
import { PAID_RESOURCES } from '../../src/products/x402/resources';
import { TEMPLATES, getTemplate, templatePriceRange } from '../../src/products/x402/templates';
import type * as TemplatesModule from '../../src/products/x402/templates';
import { RequestTelemetry, classifyUserAgent, type RequestRecord } from '../../src/http/telemetry';

const index = indexNodeTypes(N8N_NODE_TYPES);

/** Every node of a workflow checked against the snapshot: type, version, operation and trigger events. */
function snapshotProblems(wf: N8nWorkflow): string[] {
  const problems: string[] = [];
  for (const n of wf.nodes) {
    const p = n.parameters as Record<string, unknown>;
    const operation =
      typeof p.operation === 'string'
        ? typeof p.resource === 'string'
          ? `${p.resource}:${p.operation}`
          : p.operation
        : undefined;
    const entry = index.byType.get(n.type);
    const events = [p.events, p.event, p.topic].flatMap((e) =>
      Array.isArray(e) ? e : typeof e === 'string' ? [e] : [],
    ) as string[];
    problems.push(
      ...checkNodeUse(index, {
        type: n.type,
        typeVersion: n.typeVersion,
        role: entry?.trigger ? 'trigger' : 'helper',
        ...(operation !== undefined ? { operation } : {}),
        ...(events.length > 0 ? { events } : {}),
      }).map((m) => `${wf.name} / ${n.name}: ${m}`),
    );
  }
  return problems;
}

describe('templates (seed §2.13)', () => {
  it('has 18 templates priced 19 to 362 USD with unique skus and integer micro prices', () => {
    expect(TEMPLATES).toHaveLength(18);
    expect(templatePriceRange()).toEqual({ count: 18, min_usd: 19, max_usd: 362 });
    expect(new Set(TEMPLATES.map((t) => t.sku)).size).toBe(18);
    for (const t of TEMPLATES) {
      expect(t.price_micros).toBe(t.price_usd * 1_000_000);
      expect(Number.isInteger(t.price_micros)).toBe(true);
      expect(getTemplate(t.sku)).toBe(t);
    }
  });

  it('uses only node types, versions, operations and events that n8n-nodes-base declares', () => {
    expect(TEMPLATES.flatMap((t) => snapshotProblems(t.workflow))).toEqual([]);
  });

  it('each template is a connected workflow from a trigger, with error handling and no secrets (clean audit)', () => {
    for (const t of TEMPLATES) {
      const report = auditWorkflow(t.workflow as unknown as Record<string, unknown>);
      const serious = report.findings.filter((f) => f.severity !== 'info');
      expect({ sku: t.sku, serious }).toEqual({ sku: t.sku, serious: [] });
      expect(report.summary.trigger_count).toBeGreaterThanOrEqual(1);
    }
  });

  it('node ids are unique and stable across builds', () => {
    for (const t of TEMPLATES) expect(new Set(t.workflow.nodes.map((n) => n.id)).size).toBe(t.workflow.nodes.length);
    const again = jest.requireActual<typeof TemplatesModule>('../../src/products/x402/templates');
    expect(JSON.stringify(again.TEMPLATES)).toBe(JSON.stringify(TEMPLATES));
  });
});

describe('agent starter (seed §2.13)', () => {
  it('has three templates from real node types plus integration notes naming the base URL', () => {
    const bundle = agentStarterBundle('https://api.example.test');
    expect(bundle.templates).toHaveLength(3);
    expect(bundle.templates.flatMap((t) => snapshotProblems(t.workflow))).toEqual([]);
    for (const t of bundle.templates) {
      const report = auditWorkflow(t.workflow as unknown as Record<string, unknown>);
      expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    }
    expect(bundle.integration_notes.length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(bundle)).toContain('https://api.example.test/api/v1/orders');
  });
});

describe('paid resources table (seed §2.13)', () => {
  it('matches the seed: paths, prices and amounts = price × 1,000,000', () => {
    expect(PAID_RESOURCES.map((r) => [r.path, r.price_usd, r.price_micros, r.priced_per_item])).toEqual([
      ['/x402/template', null, null, true],
      ['/x402/audit', 49, 49_000_000, false],
      ['/x402/agent-starter', 149, 149_000_000, false],
      ['/x402/obs/tick', 0.001, 1000, false],
      ['/x402/obs/agents', 0.3, 300_000, false],
      ['/x402/obs/methodology', 0.1, 100_000, false],
    ]);
  });
});

const node = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
  ...extra,
});

describe('workflow audit', () => {
  const rulesOf = (wf: Record<string, unknown>) => auditWorkflow(wf).findings.map((f) => `${f.rule}:${f.node ?? ''}`);

  it('finds unknown types, bad versions, no trigger, disconnected nodes, dangling connections, duplicates and cycles', () => {
    const wf = {
      name: 'Broken',
      nodes: [
        node('Do A', 'n8n-nodes-base.set', { typeVersion: 3.4 }),
        node('Do B', 'n8n-nodes-base.definitelyNotANode'),
        node('Slack', 'n8n-nodes-base.slack', { typeVersion: 99 }),
        node('Slack', 'n8n-nodes-base.noOp'),
        node('LangChain', '@n8n/n8n-nodes-langchain.agent'),
      ],
      connections: {
        'Do A': { main: [[{ node: 'Do B', type: 'main', index: 0 }]] },
        'Do B': {
          main: [
            [
              { node: 'Do A', type: 'main', index: 0 },
              { node: 'Ghost', type: 'main', index: 0 },
            ],
          ],
        },
      },
    };
    const rules = rulesOf(wf);
    expect(rules).toEqual(
      expect.arrayContaining([
        'unknown_node_type:Do B',
        'unsupported_type_version:Slack',
        'no_trigger:',
        'dangling_connection:Do B',
        'duplicate_node_name:Slack',
        'cycle:Do A',
        'unverified_node_type:LangChain',
        'no_error_handling:',
      ]),
    );
  });

  it('finds secrets in parameters, unauthenticated webhooks, risky code, unreachable nodes and missing retries', () => {
    const wf = {
      nodes: [
        node('Hook', 'n8n-nodes-base.webhook', { typeVersion: 2, parameters: { path: 'x', httpMethod: 'POST' } }),
        node('Call API', 'n8n-nodes-base.httpRequest', {
          typeVersion: 4.2,
          parameters: {
            url: 'https://api.example.com',
            sendHeaders: true,
            headerParameters: {
              parameters: [{ name: 'Authorization', value: 'Bearer abcdefghijklmnopqrstuvwxyz123456' }],
            },
          },
        }),
        node('Key Param', 'n8n-nodes-base.set', {
          typeVersion: 3.4,
          parameters: { apiKey: 'live_9f8e7d6c5b4a39281706' },
        }),
        node('Code', 'n8n-nodes-base.code', {
          typeVersion: 2,
          parameters: { jsCode: "const cp = require('child_process'); return eval('1');" },
        }),
        node('Orphan', 'n8n-nodes-base.slack', {
          typeVersion: 2.3,
          parameters: { resource: 'message', operation: 'post' },
        }),
      ],
      connections: {
        Hook: { main: [[{ node: 'Call API', type: 'main', index: 0 }]] },
        'Call API': { main: [[{ node: 'Key Param', type: 'main', index: 0 }]] },
        'Key Param': { main: [[{ node: 'Code', type: 'main', index: 0 }]] },
      },
      pinData: { Hook: [{ json: { email: 'someone@example.com' } }] },
    };
    const report = auditWorkflow(wf);
    const rules = report.findings.map((f) => `${f.rule}:${f.node ?? ''}`);
    expect(rules).toEqual(
      expect.arrayContaining([
        'hardcoded_secret:Call API',
        'hardcoded_secret:Key Param',
        'webhook_without_auth:Hook',
        'risky_code:Code',
        'disconnected_node:Orphan',
        'external_call_without_retry:Call API',
        'http_without_timeout:Call API',
        'pinned_data:',
        'no_error_handling:',
      ]),
    );
    expect(report.summary.errors).toBeGreaterThanOrEqual(2);
    expect(report.summary.grade).toBe('F');
    expect(report.report).toContain('hardcoded_secret');
    expect(report.checked_against).toEqual({
      package: 'n8n-nodes-base',
      version: N8N_NODE_TYPES.version,
      node_types_available: N8N_NODE_TYPES.nodes.length,
    });
  });

  it('does not flag expressions, credential references or placeholders as secrets', () => {
    const wf = {
      nodes: [
        node('Every Hour', 'n8n-nodes-base.scheduleTrigger', { typeVersion: 1.2 }),
        node('Call', 'n8n-nodes-base.httpRequest', {
          typeVersion: 4.2,
          retryOnFail: true,
          parameters: {
            url: 'https://x.example',
            authentication: 'genericCredentialType',
            genericAuthType: 'httpHeaderAuth',
            options: { timeout: 5000 },
            headerParameters: { parameters: [{ name: 'Authorization', value: '={{ $credentials.token }}' }] },
            token: 'REPLACE_ME_TOKEN',
          },
        }),
      ],
      connections: { 'Every Hour': { main: [[{ node: 'Call', type: 'main', index: 0 }]] } },
    };
    const report = auditWorkflow(wf);
    expect(report.findings.filter((f) => f.rule === 'hardcoded_secret')).toEqual([]);
    expect(report.summary.score).toBeGreaterThanOrEqual(90);
  });

  it('lists every rule it runs and refuses bodies that are not workflows', () => {
    expect(auditWorkflow(TEMPLATES[0]!.workflow as unknown as Record<string, unknown>).rules_checked).toEqual([
      ...AUDIT_RULES,
    ]);
    expect(() => workflowOfBody('nope')).toThrow(InvalidWorkflowError);
    expect(() => workflowOfBody({ hello: 1 })).toThrow(InvalidWorkflowError);
    expect(() => auditWorkflow({ nodes: [] })).toThrow(InvalidWorkflowError);
    expect(() => auditWorkflow({ nodes: [{ name: 'x' }] })).toThrow(/type/);
    expect(workflowOfBody({ workflow: { nodes: [] } })).toEqual({ nodes: [] });
  });
});

describe('observation feed', () => {
  const rec = (over: Partial<RequestRecord>): RequestRecord => ({
    at: 1_000_000,
    method: 'GET',
    route: '/api/v1/services',
    status: 200,
    client: 'python-requests',
    agent: true,
    identity: 'anon:a',
    declared_identity: false,
    paid_attempt: false,
    ...over,
  });
  const facts = { stored: 0, capacity: 10, dropped: 0, since: new Date(0).toISOString(), retention_hours: 24 };

  it('tick: agent visits, distinct identities and single-endpoint share over the last hour', () => {
    const now = 10_000_000;
    const records = [
      rec({ at: now - 1000, identity: 'a' }),
      rec({ at: now - 900, identity: 'a', route: '/x402/item/:id', status: 402 }),
      rec({ at: now - 800, identity: 'b' }),
      rec({ at: now - 700, identity: 'b' }),
      rec({ at: now - 600, identity: 'c', agent: false, client: 'Mozilla' }),
      rec({ at: now - 2 * 3600 * 1000, identity: 'd' }),
    ];
    const tick = tickReading(records, now, facts);
    expect(tick).toMatchObject({
      agent_visits: 4,
      distinct_identities: 2,
      single_endpoint_share: 0.5,
      all_requests: 5,
    });
    expect(tickReading([], now, facts).single_endpoint_share).toBeNull();
  });

  it('agents snapshot: clients, endpoints, x402 funnel and the methodology attached', () => {
    const now = 10_000_000;
    const records = [
      rec({ at: now - 10, identity: 'a', route: '/x402/item/:id', status: 402 }),
      rec({ at: now - 9, identity: 'a', route: '/x402/item/:id', status: 200, paid_attempt: true }),
      rec({ at: now - 8, identity: 'b', client: 'curl', declared_identity: true }),
    ];
    const snap = agentsSnapshot(records, now, facts);
    expect(snap.totals).toMatchObject({ agent_visits: 3, distinct_identities: 2, declared_identities: 1 });
    expect(snap.x402_funnel).toEqual({
      requests_to_paid_resources: 2,
      payment_challenges_402: 1,
      paid_and_delivered_200: 1,
      conversion: 1,
    });
    expect(snap.clients[0]).toEqual({ client: 'python-requests', visits: 2 });
    expect(snap.methodology).toEqual(methodologyDocument(facts));
    expect(snap.hourly_agent_visits.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('classifies user agents and keeps a bounded ring buffer', () => {
    expect(classifyUserAgent('Mozilla/5.0 (Macintosh) Safari/605')).toEqual({ client: 'Mozilla', agent: false });
    expect(classifyUserAgent('Mozilla/5.0 (compatible; GPTBot/1.0)')).toEqual({ client: 'Mozilla', agent: true });
    expect(classifyUserAgent('python-requests/2.31')).toEqual({ client: 'python-requests', agent: true });
    expect(classifyUserAgent('')).toEqual({ client: '(none)', agent: true });
    let t = 0;
    const tel = new RequestTelemetry({ capacity: 3, now: () => t });
    for (let i = 0; i < 5; i++) {
      t = i;
      tel.record(rec({ at: i, identity: `i${i}` }));
    }
    expect(tel.window(10).map((r) => r.identity)).toEqual(['i2', 'i3', 'i4']);
    expect(tel.stats()).toMatchObject({ stored: 3, capacity: 3, dropped: 2 });
  });

  it('records a request from its parts (cache hits): declared or derived identity, route, flags; skips probes', () => {
    const tel = new RequestTelemetry({ now: () => 1_000 });
    const ua = { 'user-agent': 'curl/8.0' };
    tel.observeRequest(
      'GET',
      '/api/v1/services',
      { ...ua, 'x-agent-id': 'bot-7' },
      '10.0.0.1',
      '',
      '/api/v1/services',
      200,
    );
    tel.observeRequest('GET', '/api/v1/services', ua, '10.0.0.1', 'from-query', '/api/v1/services', 200);
    tel.observeRequest(
      'GET',
      '/x402/item/a',
      { ...ua, 'payment-signature': 'x' },
      '10.0.0.1',
      '',
      '/x402/item/:id',
      402,
    );
    tel.observeRequest('GET', '/x402/item/a', ua, '10.0.0.2', '', undefined, 402);
    tel.observeRequest('OPTIONS', '/api/v1/services', ua, '10.0.0.1', '', undefined, 204);
    tel.observeRequest('GET', '/health', ua, '10.0.0.1', '', '/health', 200);
    const [header, query, paid, other] = tel.window(60_000);
    expect(tel.window(60_000)).toHaveLength(4);
    expect(header).toMatchObject({ identity: 'agent:bot-7', declared_identity: true, client: 'curl', agent: true });
    expect(query).toMatchObject({ identity: 'agent:from-query', declared_identity: true });
    expect(paid).toMatchObject({ route: '/x402/item/:id', status: 402, paid_attempt: true, declared_identity: false });
    expect(paid?.identity).toMatch(/^anon:[0-9a-f]{16}$/);
    // The same address and User-Agent give the same identity, another address another one.
    expect(other).toMatchObject({ route: '(unmatched)', paid_attempt: false });
    expect(other?.identity).not.toBe(paid?.identity);
    tel.observeRequest('GET', '/x', ua, '10.0.0.2', '', undefined, 200);
    expect(tel.window(60_000)[4]?.identity).toBe(other?.identity);
  });
});
