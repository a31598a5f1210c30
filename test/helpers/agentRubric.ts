/**
 * The agent-development rubric checks (docs/rubrics/agent-development.md, issue 38 §4): what an agent engineer checks
 * in a tool manifest and its evaluation suite, applied to generated orders (fast-check), not one golden file.
 *
 * Tool definitions are parsed with the MCP SDK's own `ToolSchema` / `ListToolsResultSchema`; input schemas are compiled
 * with Ajv (JSON Schema 2020-12, formats); every eval's expected arguments are validated against its tool's schema.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { placeholderHits, type Files } from './rubrics';

export const USE_CASES = [
  'Triage inbound support tickets for our Shopify store: tag them by topic and draft replies for refund requests.',
  'Qualify inbound demo requests and book a call with sales.',
  'Answer supplier questions about purchase orders from our ERP.',
  'Every Monday, research competitors and post a summary to the team channel.',
  'Chase unpaid invoices politely and log every reminder.',
];
const TOOLS = [
  'Zendesk',
  'Freshdesk',
  'Gmail',
  'Outlook',
  'Google Calendar',
  'HubSpot',
  'Salesforce',
  'web search',
  'Slack',
  'Shopify',
  'Postgres',
  'Google Sheets',
  'QuickBooks invoices',
  'HTTP API',
  'inventory lookup',
  'Jira',
];
const SOURCES = [
  'Refund policy PDF',
  'Shopify orders',
  'https://help.example.com',
  'past tickets (about 12,000)',
  'product catalogue CSV',
];

export const agentOrder = fc
  .record({
    use_case: fc.constantFrom(...USE_CASES),
    tools: fc.uniqueArray(fc.constantFrom(...TOOLS), { minLength: 1, maxLength: 5 }),
    sources: fc.uniqueArray(fc.constantFrom(...SOURCES), { maxLength: 3 }),
    asString: fc.boolean(),
  })
  .map((o) => ({
    use_case: o.use_case,
    tools_required: o.asString ? o.tools.join(', ') : o.tools,
    ...(o.sources.length > 0 ? { data_sources: o.sources.join(', ') } : {}),
  }));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

interface Tool {
  name: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean };
  _meta: { requires_confirmation: boolean };
}
interface Case {
  id: string;
  prompt: string;
  tool_result?: unknown;
  confirm_with?: string;
  expect: {
    calls_tool: string | null;
    asks_confirmation?: boolean;
    arguments?: Record<string, unknown>;
    match?: { exact: string[]; contains: Record<string, string[]> };
    answer_mentions?: string[];
  };
}

/** Checks one agent-development delivery; returns the broken rules. */
export function agentRubric(files: Files): string[] {
  const broken: string[] = [];
  const fail = (rule: string, detail: string): void => {
    broken.push(`${rule}: ${detail}`);
  };
  for (const hit of placeholderHits(files)) fail('A1 placeholder', hit);
  const manifest = JSON.parse(files['agent-development-tools.json'] ?? '{}') as { tools: Tool[] };
  const cases = (JSON.parse(files['agent-development-eval-cases.json'] ?? '{}') as { cases: Case[] }).cases;

  // A2 tools as the MCP SDK parses them (tools/list result), unique names within MCP's name rules.
  const list = ListToolsResultSchema.safeParse({ tools: manifest.tools });
  if (!list.success) fail('A2 MCP', list.error.message.slice(0, 300));
  const names = manifest.tools.map((t) => t.name);
  if (new Set(names).size !== names.length) fail('A2 names', names.join(','));
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  for (const t of manifest.tools) {
    const parsed = ToolSchema.safeParse(t);
    if (!parsed.success) fail('A2 MCP', `${t.name}: ${parsed.error.message.slice(0, 200)}`);
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(t.name)) fail('A2 names', t.name);
    // A3 input schemas compile as JSON Schema 2020-12 objects.
    if (t.inputSchema.type !== 'object') fail('A3 schema', `${t.name} is not an object schema`);
    try {
      validators.set(t.name, ajv.compile(t.inputSchema));
    } catch (err) {
      fail('A3 schema', `${t.name}: ${String(err)}`);
    }
    if (t.annotations.readOnlyHint && t.annotations.destructiveHint) fail('A7 annotations', t.name);
    // A4 every tool has an evaluation.
    if (!cases.some((c) => c.expect.calls_tool === t.name)) fail('A4 coverage', `no case calls ${t.name}`);
  }
  for (const c of cases) {
    const mentions = c.expect.answer_mentions ?? [];
    // A5 every case says concretely what a passing answer holds, derivable from the prompt or the tool result.
    if (mentions.length === 0) fail('A5 expected output', `${c.id} has no answer_mentions`);
    const known = `${c.prompt} ${JSON.stringify(c.tool_result ?? null)}`;
    for (const m of mentions) if (!known.includes(m)) fail('A5 expected output', `${c.id}: "${m}" comes from nowhere`);
    if (c.expect.calls_tool === null) continue;
    const tool = manifest.tools.find((t) => t.name === c.expect.calls_tool);
    if (!tool) {
      fail('A4 case', `${c.id} calls unknown ${String(c.expect.calls_tool)}`);
      continue;
    }
    // A4 concrete input: expected arguments valid against the tool's schema, their values in the prompt.
    const args = c.expect.arguments;
    if (!args) {
      fail('A4 arguments', `${c.id} has no expected arguments`);
      continue;
    }
    const validate = validators.get(tool.name);
    if (validate && !validate(args)) fail('A4 arguments', `${c.id}: ${ajv.errorsText(validate.errors)}`);
    for (const key of c.expect.match?.exact ?? []) {
      const v = args[key];
      for (const item of Array.isArray(v) ? v : [v])
        if (
          (typeof item === 'string' || typeof item === 'number') &&
          !c.prompt.includes(String(item).replace(/^(\d+)000000$/, '$1'))
        )
          if (!(key === 'amount_micros' && c.prompt.includes(String(Number(item) / 1_000_000))))
            fail('A4 arguments', `${c.id}: ${key}=${String(item)} is not in the prompt`);
    }
    for (const [key, words] of Object.entries(c.expect.match?.contains ?? {})) {
      for (const w of words) {
        if (!JSON.stringify(args[key]).includes(w)) fail('A4 arguments', `${c.id}: ${key} lacks "${w}"`);
        if (!c.prompt.includes(w)) fail('A4 arguments', `${c.id}: "${w}" is not in the prompt`);
      }
    }
    if (c.tool_result === undefined) fail('A5 fixture', `${c.id} has no tool_result`);
    // A6 side effects that need confirmation are confirmed in the eval.
    if (tool._meta.requires_confirmation && (c.expect.asks_confirmation !== true || !c.confirm_with))
      if (c.id.startsWith('tool_')) fail('A6 confirmation', c.id);
  }
  return broken;
}
