/**
 * The x402 micro catalogue (seed §2.12, §6.3, §8; issue 3 §3): 489 items in four kinds, prices,
 * the computed envelope, determinism, and the validity of every item's goods in its own format:
 * n8n workflows against the committed n8n-nodes-base snapshot, JSON Schema 2020-12 documents and
 * their examples (Ajv 2020), MCP tool definitions (the MCP SDK's own Tool schema) and prompt packs.
 */
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { microsToUsd, usdToMicros } from '../../src/domain/money';
import {
  buildMicroCatalogue,
  checkNodeUse,
  getMicroItem,
  indexNodeTypes,
  MICRO_ITEMS,
  MicroCatalogueEnvelope,
  microCatalogue,
  MicroItem,
  microItemAmount,
  microItemGoods,
  N8N_NODE_TYPES,
  type NodeTypeSnapshot,
} from '../../src/products/micro';
import { renderTemplate, templateVariables } from '../../src/products/micro/prompts';

const BASE = 'https://api.example.test';
const index = indexNodeTypes(N8N_NODE_TYPES);
const byKind = (kind: string): typeof MICRO_ITEMS => MICRO_ITEMS.filter((i) => i.kind === kind);

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

interface WorkflowNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
}
interface Workflow {
  name: string;
  nodes: WorkflowNode[];
  connections: Record<string, { main: { node: string; type: string; index: number }[][] }>;
  settings: { executionOrder: string };
}

describe('catalogue contents', () => {
  it('holds exactly 489 items in the four kinds', () => {
    expect(MICRO_ITEMS).toHaveLength(489);
    const kinds = new Set(MICRO_ITEMS.map((i) => i.kind));
    expect([...kinds].sort()).toEqual(['prompt_pack', 'recipe', 'schema', 'tool']);
    for (const kind of kinds) expect(byKind(kind).length).toBeGreaterThan(0);
  });

  it('has unique ids that start with their kind word and name the goods file', () => {
    expect(new Set(MICRO_ITEMS.map((i) => i.id)).size).toBe(MICRO_ITEMS.length);
    const shapes: Record<string, RegExp> = {
      recipe: /^recipe-[a-z0-9]+(?:-[a-z0-9]+)*-[a-z0-9]+(?:-[0-9]+)?$/,
      prompt_pack: /^prompt_pack-[a-z0-9]+(?:-[a-z0-9]+)+$/,
      schema: /^schema-[a-z0-9]+(?:-[a-z0-9]+)*$/,
      tool: /^tool-(?:create|get|search)-[a-z0-9]+(?:-[a-z0-9]+)*$/,
    };
    for (const item of MICRO_ITEMS) {
      expect(item.id).toMatch(shapes[item.kind] ?? /^$/);
      expect(item.file).toBe(`${item.id}.json`);
      expect(() => MicroItem.parse(item)).not.toThrow();
    }
  });

  it('names each recipe after its source and target apps (recipe-<source>-<target>)', () => {
    for (const item of byKind('recipe')) {
      const wf = microItemGoods(item) as Workflow;
      const source = item.tags[1] ?? '';
      const target = item.tags[2] ?? '';
      expect(item.id).toBe(`recipe-${source}-${target}`);
      expect(wf.nodes.some((n) => n.type === item.trigger)).toBe(true);
    }
  });

  it('prices every item between 0.99 and 2.99 USD with at most two decimals, consistent with price_micros', () => {
    for (const item of MICRO_ITEMS) {
      expect(item.price).toBeGreaterThanOrEqual(0.99);
      expect(item.price).toBeLessThanOrEqual(2.99);
      expect(String(item.price)).toMatch(/^\d+(\.\d{1,2})?$/);
      expect(item.price_micros).toBe(usdToMicros(item.price));
      expect(item.price_micros % 10_000).toBe(0);
      expect(microItemAmount(item)).toBe(String(item.price_micros));
    }
  });

  it('looks items up by id and hands out the same frozen goods every time', () => {
    const first = MICRO_ITEMS[0];
    if (!first) throw new Error('empty catalogue');
    expect(getMicroItem(first.id)).toBe(first);
    expect(getMicroItem('recipe-nope-nothing')).toBeUndefined();
    const goods = microItemGoods(first);
    expect(microItemGoods(first)).toBe(goods);
    expect(Object.isFrozen(goods)).toBe(true);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => microItemGoods({ ...first, id: 'tool-get-nothing' })).toThrow(RangeError);
  });

  it('names a real n8n node type as trigger and action of every item', () => {
    for (const item of MICRO_ITEMS) {
      const trigger = index.byType.get(item.trigger);
      const action = index.byType.get(item.action);
      expect({ id: item.id, trigger: trigger?.trigger, action: action?.trigger }).toEqual({
        id: item.id,
        trigger: true,
        action: false,
      });
    }
  });
});

describe('envelope (seed §2.12)', () => {
  const env = microCatalogue(`${BASE}/`);

  it('passes its own zod schema and carries every field', () => {
    expect(() => MicroCatalogueEnvelope.parse(env)).not.toThrow();
    expect(Object.keys(env).sort()).toEqual(
      [
        'by_kind',
        'count',
        'currency',
        'endpoints',
        'how_to_buy',
        'items',
        'name',
        'price_range',
        'tier',
        'total_value_usd',
        'validated',
        'version',
        'why',
      ].sort(),
    );
    expect(env).toMatchObject({ tier: 'impulse', version: 2, currency: 'USD' });
  });

  it('computes count, total_value_usd (exact micro-unit sum), price_range and by_kind from the items', () => {
    expect(env.count).toBe(489);
    expect(env.items).toEqual([...MICRO_ITEMS]);
    const sum = env.items.reduce((acc, i) => acc + BigInt(usdToMicros(i.price)), 0n);
    expect(usdToMicros(env.total_value_usd)).toBe(Number(sum));
    expect(env.total_value_usd).toBe(microsToUsd(Number(sum)));
    const prices = env.items.map((i) => i.price);
    expect(env.price_range).toEqual([Math.min(...prices), Math.max(...prices)]);
    expect(env.price_range[0]).toBeGreaterThanOrEqual(0.99);
    expect(env.price_range[1]).toBeLessThanOrEqual(2.99);
    const counted: Record<string, number> = {};
    for (const i of env.items) counted[i.kind] = (counted[i.kind] ?? 0) + 1;
    expect(env.by_kind).toEqual(counted);
    expect(Object.values(env.by_kind).reduce((a, b) => a + b, 0)).toBe(489);
  });

  it('reports how recipes were validated against the snapshot', () => {
    const build = buildMicroCatalogue();
    expect(env.validated).toEqual({
      node_types_checked_against: `n8n-nodes-base@${N8N_NODE_TYPES.version}`,
      real_node_types_available: N8N_NODE_TYPES.nodes.length,
      recipes_skipped_for_invalid_node_types: build.skipped.length,
    });
    expect(N8N_NODE_TYPES.nodes.length).toBeGreaterThan(400);
    expect(build.skipped.length).toBeGreaterThan(0);
  });

  it('explains the three steps of seed §6.3 and points at the related endpoints', () => {
    expect(env.how_to_buy).toHaveLength(3);
    const [one, two, three] = env.how_to_buy;
    expect(one).toContain(`GET ${BASE}/x402/item/<id>`);
    expect(one).toContain('402');
    expect(one).toContain('PAYMENT-REQUIRED');
    expect(two).toContain('USDC');
    expect(two).toContain('eip155:8453');
    expect(three).toContain('PAYMENT-SIGNATURE');
    expect(env.why.length).toBeGreaterThan(40);
    expect(env.endpoints).toEqual({
      catalogue: `${BASE}/api/v1/x402/micro`,
      discovery: `${BASE}/.well-known/x402`,
      ledger: `${BASE}/api/v1/x402/payments`,
    });
    expect(microCatalogue(`${BASE}/prefix/`).endpoints.catalogue).toBe(`${BASE}/prefix/api/v1/x402/micro`);
    expect(() => microCatalogue('not a url')).toThrow(/Invalid URL/);
  });
});

describe('determinism', () => {
  it('builds deep-equal catalogues without reading the clock or random numbers', () => {
    const random = jest.spyOn(Math, 'random').mockImplementation(() => {
      throw new Error('Math.random used');
    });
    const now = jest.spyOn(Date, 'now').mockImplementation(() => {
      throw new Error('Date.now used');
    });
    try {
      const a = buildMicroCatalogue();
      const b = buildMicroCatalogue();
      expect(a.items).toEqual(b.items);
      expect([...a.goods.entries()]).toEqual([...b.goods.entries()]);
      expect(a.items).toEqual([...MICRO_ITEMS]);
      for (const item of MICRO_ITEMS) expect(a.goods.get(item.id)).toEqual(microItemGoods(item));
    } finally {
      random.mockRestore();
      now.mockRestore();
    }
  });
});

describe('recipes: importable n8n workflows with real node types', () => {
  const recipes = byKind('recipe');

  it('are n8n workflows from the trigger node to the action node, with node types and versions from the snapshot', () => {
    expect(recipes.length).toBeGreaterThan(200);
    for (const item of recipes) {
      const wf = microItemGoods(item) as Workflow;
      expect(typeof wf.name).toBe('string');
      expect(wf.settings.executionOrder).toBe('v1');
      const names = wf.nodes.map((n) => n.name);
      expect(new Set(names).size).toBe(names.length);
      expect(new Set(wf.nodes.map((n) => n.id)).size).toBe(names.length);
      for (const node of wf.nodes) {
        expect(node).toEqual(
          expect.objectContaining({
            id: expect.any(String),
            name: expect.any(String),
            type: expect.any(String),
            typeVersion: expect.any(Number),
            parameters: expect.any(Object),
          }),
        );
        expect(node.position).toHaveLength(2);
        const entry = index.byType.get(node.type);
        expect({
          id: item.id,
          node: node.name,
          known: entry !== undefined,
          version: entry?.versions.includes(node.typeVersion),
        }).toEqual({ id: item.id, node: node.name, known: true, version: true });
      }
      // Connections are keyed by node name and point at existing node names.
      for (const [from, outputs] of Object.entries(wf.connections)) {
        expect(names).toContain(from);
        for (const target of outputs.main.flat()) expect(names).toContain(target.node);
      }
      // Exactly one trigger node, the item's trigger; following connections from it reaches the item's action.
      const triggers = wf.nodes.filter((n) => index.byType.get(n.type)?.trigger);
      expect(triggers.map((n) => n.type)).toEqual([item.trigger]);
      const start = triggers[0];
      if (!start) throw new Error('no trigger');
      const seen = new Set<string>([start.name]);
      const queue = [start.name];
      while (queue.length > 0) {
        const name = queue.shift() ?? '';
        for (const t of wf.connections[name]?.main.flat() ?? [])
          if (!seen.has(t.node)) {
            seen.add(t.node);
            queue.push(t.node);
          }
      }
      const actionNode = wf.nodes.find((n) => n.type === item.action);
      expect(actionNode && seen.has(actionNode.name)).toBe(true);
    }
  });

  it('pass the snapshot check for their trigger and action, including operation and events', () => {
    for (const item of recipes) {
      const wf = microItemGoods(item) as Workflow;
      const trigger = wf.nodes.find((n) => n.type === item.trigger);
      const action = wf.nodes.find((n) => n.type === item.action);
      if (!trigger || !action) throw new Error(`${item.id}: nodes missing`);
      expect(checkNodeUse(index, { type: trigger.type, typeVersion: trigger.typeVersion, role: 'trigger' })).toEqual(
        [],
      );
      const { resource, operation } = action.parameters as { resource?: string; operation?: string };
      const op = operation === undefined ? undefined : resource === undefined ? operation : `${resource}:${operation}`;
      const group = index.byType.get(action.type)?.groups.find((g) => g.versions.includes(action.typeVersion));
      if (op !== undefined && !(group?.operations ?? []).includes(op)) {
        // Nodes with a hidden resource (postgres, mySql) declare `<resource>:<operation>`.
        expect((group?.operations ?? []).some((o) => o.endsWith(`:${op}`))).toBe(true);
      }
      expect(checkNodeUse(index, { type: action.type, typeVersion: action.typeVersion, role: 'action' })).toEqual([]);
    }
  });

  it('drops candidates whose node types the snapshot does not declare, and counts them', () => {
    const build = buildMicroCatalogue();
    for (const s of build.skipped) {
      expect(s.problems.length).toBeGreaterThan(0);
      expect(s.id).toMatch(/^recipe-/);
      expect(getMicroItem(s.id)).toBeUndefined();
    }
    // e.g. Square has no node in n8n-nodes-base.
    expect(index.byType.has('n8n-nodes-base.squareTrigger')).toBe(false);
    expect(build.skipped.some((s) => s.problems.some((p) => p.includes('n8n-nodes-base.squareTrigger')))).toBe(true);
  });

  it('re-validates against a different snapshot: a removed node type or version is filtered out and counted', () => {
    const without = (
      snapshot: NodeTypeSnapshot,
      change: (n: NodeTypeSnapshot['nodes'][number]) => NodeTypeSnapshot['nodes'][number] | null,
    ): NodeTypeSnapshot => {
      const nodes = snapshot.nodes.map(change).filter((n): n is NodeTypeSnapshot['nodes'][number] => n !== null);
      return { ...snapshot, nodes, node_count: nodes.length };
    };
    const base = buildMicroCatalogue();
    expect(base.items.some((i) => i.action === 'n8n-nodes-base.telegram')).toBe(true);
    const noTelegram = buildMicroCatalogue(
      without(N8N_NODE_TYPES, (n) => (n.type === 'n8n-nodes-base.telegram' ? null : n)),
    );
    expect(noTelegram.items).toHaveLength(489);
    expect(noTelegram.items.some((i) => i.action === 'n8n-nodes-base.telegram')).toBe(false);
    expect(noTelegram.validated.real_node_types_available).toBe(N8N_NODE_TYPES.nodes.length - 1);
    expect(noTelegram.validated.recipes_skipped_for_invalid_node_types).toBeGreaterThan(
      base.validated.recipes_skipped_for_invalid_node_types,
    );
    expect(
      noTelegram.skipped.some((s) => s.problems.some((p) => p.includes('n8n-nodes-base.telegram is not a node type'))),
    ).toBe(true);

    const oldStripe = buildMicroCatalogue(
      without(N8N_NODE_TYPES, (n) =>
        n.type === 'n8n-nodes-base.stripeTrigger'
          ? { ...n, versions: [2], groups: [{ ...n.groups[0], versions: [2] }] }
          : n,
      ),
    );
    expect(oldStripe.items.some((i) => i.kind === 'recipe' && i.trigger === 'n8n-nodes-base.stripeTrigger')).toBe(
      false,
    );
    expect(oldStripe.skipped.some((s) => s.problems.some((p) => p.includes('has no typeVersion 1')))).toBe(true);
  });
});

describe('schemas: JSON Schema 2020-12 documents', () => {
  it('are valid 2020-12 schemas whose examples validate', () => {
    const ajv = newAjv();
    const schemas = byKind('schema');
    expect(schemas.length).toBeGreaterThan(0);
    for (const item of schemas) {
      const doc = microItemGoods(item) as Record<string, unknown>;
      expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof doc.$id).toBe('string');
      expect(doc.type).toBe('object');
      expect(doc.properties).toEqual(expect.any(Object));
      expect(Array.isArray(doc.required)).toBe(true);
      expect(ajv.validateSchema(doc)).toBe(true);
      const validate = ajv.compile(doc);
      const examples = doc.examples as unknown[];
      expect(examples.length).toBeGreaterThanOrEqual(1);
      for (const example of examples) {
        const ok = validate(example);
        if (!ok) throw new Error(`${item.id}: example invalid: ${ajv.errorsText(validate.errors)}`);
      }
      // The schema rejects an object missing its required fields (it constrains, not only describes).
      expect(validate({})).toBe((doc.required as string[]).length === 0);
    }
  });
});

describe('tools: MCP tool definitions', () => {
  it('parse as MCP Tool objects with compiling input and output schemas', () => {
    const ajv = newAjv();
    const tools = byKind('tool');
    expect(tools.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const item of tools) {
      const tool = ToolSchema.parse(microItemGoods(item));
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      names.add(tool.name);
      expect(tool.description?.length ?? 0).toBeGreaterThan(20);
      expect(tool.annotations).toEqual(
        expect.objectContaining({ readOnlyHint: expect.any(Boolean), destructiveHint: false }),
      );
      ajv.compile(tool.inputSchema);
      if (tool.outputSchema) ajv.compile(tool.outputSchema);
    }
    expect(names.size).toBe(tools.length);
  });

  it('accept the matching schema items\u2019 examples (create input, record output)', () => {
    const ajv = newAjv();
    for (const item of byKind('tool').filter((i) => i.id.startsWith('tool-create-'))) {
      const entity = item.id.slice('tool-create-'.length);
      const tool = ToolSchema.parse(microItemGoods(item));
      const createDoc = microItemGoods(getMicroItem(`schema-${entity}-create`) as MicroItem) as { examples: unknown[] };
      const recordDoc = microItemGoods(getMicroItem(`schema-${entity}`) as MicroItem) as { examples: unknown[] };
      const input = ajv.compile(tool.inputSchema);
      const output = ajv.compile(tool.outputSchema ?? {});
      for (const ex of createDoc.examples) expect(input(ex)).toBe(true);
      for (const ex of recordDoc.examples) expect(output(ex)).toBe(true);
      expect(input({})).toBe(false);
    }
  });
});

describe('prompt packs', () => {
  it('declare exactly the variables their templates use, and render their examples from them', () => {
    const ajv = newAjv();
    const packs = byKind('prompt_pack');
    expect(packs.length).toBeGreaterThan(0);
    for (const item of packs) {
      const pack = microItemGoods(item) as {
        id: string;
        variables: Record<string, { description: string; example: string }>;
        prompts: {
          id: string;
          system: string;
          user: string;
          variables: string[];
          output: { format: string; schema?: object };
          example: { variables: Record<string, string>; system: string; user: string };
        }[];
      };
      expect(pack.id).toBe(item.id);
      expect(pack.prompts.length).toBeGreaterThanOrEqual(3);
      for (const prompt of pack.prompts) {
        const used = new Set([...templateVariables(prompt.system), ...templateVariables(prompt.user)]);
        expect([...used].sort()).toEqual([...prompt.variables].sort());
        expect(used.size).toBeGreaterThan(0);
        for (const name of prompt.variables) {
          expect(pack.variables[name]?.description).toEqual(expect.any(String));
          expect(prompt.example.variables[name]).toEqual(expect.any(String));
        }
        expect(prompt.example.system).toBe(renderTemplate(prompt.system, prompt.example.variables));
        expect(prompt.example.user).toBe(renderTemplate(prompt.user, prompt.example.variables));
        expect(`${prompt.example.system}${prompt.example.user}`).not.toMatch(/\{\{/);
        if (prompt.output.format === 'json') ajv.compile(prompt.output.schema ?? {});
      }
      // Every pack-level variable is used by some prompt.
      expect(Object.keys(pack.variables).sort()).toEqual([...new Set(pack.prompts.flatMap((p) => p.variables))].sort());
    }
  });
});
