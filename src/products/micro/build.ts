/**
 * Builds the micro catalogue: 489 items in four kinds, each with its goods (the JSON document
 * delivered after payment). Pure and deterministic: the same snapshot gives deep-equal output;
 * there is no clock and no randomness.
 *
 * Composition: prompt packs (10 sectors × 7 use cases = 70), schemas (20 entities × 3 variants =
 * 60) and tools (20 entities × 3 operations = 60) are fixed; recipes fill the catalogue to the
 * total (299), spread over the ten sectors (30 each for the first nine, 29 for the last). Each
 * sector takes its candidates in order, skips pairs already used by an earlier sector, and drops
 * candidates whose node types fail the snapshot check; dropped candidates are counted.
 *
 * Source: seed §2.12 (items, validated), §8 (489 items, 0.99 to 2.99 USD), issue 3 §3.
 */
import { microsToUsd, type Micros } from '../../domain/money';
import { ENTITIES } from './entities';
import { promptPackDocument, promptPackItemId, promptPackPriceMicros, promptPackTitle, USE_CASES } from './prompts';
import {
  candidateProblems,
  recipeBaseId,
  recipePriceMicros,
  recipePurpose,
  recipeTitle,
  recipeWorkflow,
  sectorCandidates,
} from './recipes';
import {
  schemaDocument,
  schemaItemId,
  schemaPurpose,
  schemaTitle,
  SCHEMA_PRICE_MICROS,
  SCHEMA_VARIANTS,
} from './schemas';
import { SECTORS } from './sectors';
import { checkNodeUse, indexNodeTypes, N8N_NODE_TYPES, type NodeTypeIndex, type NodeTypeSnapshot } from './snapshot';
import { toolDefinition, toolItemId, TOOL_OPERATIONS, TOOL_PRICE_MICROS, TOOL_TRIGGER } from './tools';

/** Number of items the catalogue holds (seed §8). */
export const MICRO_ITEM_COUNT = 489;

/** The four item kinds, in catalogue order (seed §2.12). */
export const MICRO_KINDS = ['recipe', 'prompt_pack', 'schema', 'tool'] as const;
/** An item kind. */
export type MicroKind = (typeof MICRO_KINDS)[number];

/** Lowest and highest item price in micro-units (seed §2.12, §8: 0.99 to 2.99 USD). */
export const MIN_PRICE_MICROS: Micros = 990_000;
export const MAX_PRICE_MICROS: Micros = 2_990_000;

/** What `deliver` says for each kind: the goods come inline in the paid response. */
export const DELIVER: Readonly<Record<MicroKind, string>> = {
  recipe: 'inline importable n8n workflow JSON (n8n editor: paste, or Import from File)',
  prompt_pack:
    'inline JSON prompt pack (system and user templates with {{variables}}, output formats and a rendered example)',
  schema: 'inline JSON Schema 2020-12 document with validating examples',
  tool: 'inline MCP tool definition JSON (name, description, inputSchema, outputSchema, annotations)',
};

/** One catalogue item as the API lists it (seed §2.12 item fields plus `price_micros`). */
export interface MicroItemData {
  id: string;
  kind: MicroKind;
  title: string;
  /** Price in USD, two decimals, 0.99 to 2.99. */
  price: number;
  /** The same price in integer micro-units (USDC atomic units). */
  price_micros: number;
  /** File name of the goods, `<id>.json`. */
  file: string;
  purpose: string;
  /** n8n trigger node type (for recipes the workflow's trigger node). */
  trigger: string;
  /** n8n action node type (for recipes the workflow's action node). */
  action: string;
  tags: string[];
  deliver: string;
  sector: string;
}

/** A candidate recipe dropped by validation. */
export interface SkippedRecipe {
  id: string;
  sector: string;
  problems: string[];
}

/** The built catalogue. */
export interface MicroBuild {
  items: readonly MicroItemData[];
  /** Goods by item id (deep-frozen). */
  goods: ReadonlyMap<string, unknown>;
  validated: {
    node_types_checked_against: string;
    real_node_types_available: number;
    recipes_skipped_for_invalid_node_types: number;
  };
  /** The dropped candidates, in generation order (what `recipes_skipped_for_invalid_node_types` counts). */
  skipped: readonly SkippedRecipe[];
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/** Throws if a non-recipe item names a trigger or action that is not a real node type of the right role. */
function assertNodeType(index: NodeTypeIndex, type: string, role: 'trigger' | 'action', itemId: string): void {
  const entry = index.byType.get(type);
  const version = entry?.versions[entry.versions.length - 1] ?? 1;
  const problems = checkNodeUse(index, { type, typeVersion: version, role });
  if (problems.length > 0) throw new Error(`micro item ${itemId}: ${problems.join('; ')}`);
}

/**
 * Builds the catalogue from a node-type snapshot.
 *
 * @param snapshot - node types to validate recipes against (default: the committed snapshot).
 * @param total - number of items (default 489; recipes fill what the fixed kinds leave).
 * @returns items, goods by id, the `validated` block and the skipped candidates.
 * @throws Error if a sector runs out of valid candidates, an id repeats, a price leaves
 *   0.99–2.99 USD, or a fixed item names an invalid node type (all bugs in the catalogue data).
 */
export function buildMicroCatalogue(
  snapshot: NodeTypeSnapshot = N8N_NODE_TYPES,
  total: number = MICRO_ITEM_COUNT,
): MicroBuild {
  const index = indexNodeTypes(snapshot);
  const items: MicroItemData[] = [];
  const goods = new Map<string, unknown>();
  const skipped: SkippedRecipe[] = [];

  for (const helper of [
    { type: 'n8n-nodes-base.set', typeVersion: 3.4 },
    { type: 'n8n-nodes-base.stickyNote', typeVersion: 1 },
  ]) {
    const problems = checkNodeUse(index, { ...helper, role: 'helper' });
    if (problems.length > 0) throw new Error(`recipe helper node invalid: ${problems.join('; ')}`);
  }

  const add = (item: Omit<MicroItemData, 'price' | 'file' | 'deliver'>, doc: unknown): void => {
    if (goods.has(item.id)) throw new Error(`duplicate micro item id ${item.id}`);
    if (
      !Number.isSafeInteger(item.price_micros) ||
      item.price_micros < MIN_PRICE_MICROS ||
      item.price_micros > MAX_PRICE_MICROS ||
      item.price_micros % 10_000 !== 0
    ) {
      throw new Error(`micro item ${item.id}: price ${item.price_micros} micros is not 0.99-2.99 USD in cents`);
    }
    // Keys in the seed's order (§2.12), with price_micros next to price.
    items.push({
      id: item.id,
      kind: item.kind,
      title: item.title,
      price: microsToUsd(item.price_micros),
      price_micros: item.price_micros,
      file: `${item.id}.json`,
      purpose: item.purpose,
      trigger: item.trigger,
      action: item.action,
      tags: item.tags,
      deliver: DELIVER[item.kind],
      sector: item.sector,
    });
    goods.set(item.id, doc);
  };

  // Fixed kinds first (their count decides the recipe quota); they are listed after recipes.
  const fixed: [Omit<MicroItemData, 'price' | 'file' | 'deliver'>, unknown][] = [];
  for (const sector of SECTORS) {
    for (const useCase of USE_CASES) {
      const id = promptPackItemId(sector, useCase);
      assertNodeType(index, useCase.trigger, 'trigger', id);
      assertNodeType(index, useCase.action, 'action', id);
      fixed.push([
        {
          id,
          kind: 'prompt_pack',
          title: promptPackTitle(sector, useCase),
          price_micros: promptPackPriceMicros(useCase),
          purpose: `${useCase.description} Ready-to-send prompts for ${sector.audience}, with guardrails and an example.`,
          trigger: useCase.trigger,
          action: useCase.action,
          tags: [sector.key, useCase.key, 'prompts', 'llm'],
          sector: sector.key,
        },
        promptPackDocument(sector, useCase, id),
      ]);
    }
  }
  for (const entity of ENTITIES) {
    for (const variant of SCHEMA_VARIANTS) {
      const id = schemaItemId(entity, variant);
      const trigger = variant === 'record' ? entity.source : 'n8n-nodes-base.webhook';
      assertNodeType(index, trigger, 'trigger', id);
      assertNodeType(index, entity.store, 'action', id);
      fixed.push([
        {
          id,
          kind: 'schema',
          title: schemaTitle(entity, variant),
          price_micros: SCHEMA_PRICE_MICROS[variant],
          purpose: schemaPurpose(entity, variant),
          trigger,
          action: entity.store,
          tags: [entity.sector, entity.key, variant, 'json-schema-2020-12'],
          sector: entity.sector,
        },
        schemaDocument(entity, variant, id),
      ]);
    }
  }
  for (const entity of ENTITIES) {
    for (const op of TOOL_OPERATIONS) {
      const id = toolItemId(entity, op);
      const def = toolDefinition(entity, op);
      assertNodeType(index, TOOL_TRIGGER, 'trigger', id);
      assertNodeType(index, entity.store, 'action', id);
      fixed.push([
        {
          id,
          kind: 'tool',
          title: `${def.title} — MCP tool`,
          price_micros: TOOL_PRICE_MICROS[op],
          purpose: `Give an agent the ${def.name} tool: ${lowerFirst((def.description.split('. ')[0] ?? '').replace(/\.$/, ''))}.`,
          trigger: TOOL_TRIGGER,
          action: entity.store,
          tags: [entity.sector, entity.key, op, 'mcp'],
          sector: entity.sector,
        },
        def,
      ]);
    }
  }

  const recipeTotal = total - fixed.length;
  if (recipeTotal < SECTORS.length) throw new Error(`total ${total} leaves no room for recipes`);
  const used = new Set<string>();
  SECTORS.forEach((sector, s) => {
    const quota = Math.floor(recipeTotal / SECTORS.length) + (s < recipeTotal % SECTORS.length ? 1 : 0);
    let taken = 0;
    for (const candidate of sectorCandidates(sector)) {
      if (taken === quota) break;
      const baseId = recipeBaseId(candidate);
      if (used.has(baseId)) continue;
      used.add(baseId);
      const problems = candidateProblems(index, candidate);
      if (problems.length > 0) {
        skipped.push({ id: baseId, sector: sector.key, problems });
        continue;
      }
      let id = baseId;
      for (let n = 2; goods.has(id); n++) id = `${baseId}-${n}`;
      add(
        {
          id,
          kind: 'recipe',
          title: recipeTitle(candidate),
          price_micros: recipePriceMicros(candidate),
          purpose: recipePurpose(candidate),
          trigger: candidate.trigger.type,
          action: candidate.action.type,
          tags: [
            ...new Set([
              sector.key,
              candidate.trigger.app,
              candidate.action.app,
              candidate.trigger.category,
              candidate.action.category,
              'n8n',
            ]),
          ],
          sector: sector.key,
        },
        recipeWorkflow(candidate, id, index.label),
      );
      taken++;
    }
    if (taken < quota)
      throw new Error(`sector ${sector.key}: only ${taken} valid recipe candidates for a quota of ${quota}`);
  });
  for (const [item, doc] of fixed) add(item, doc);

  if (items.length !== total) throw new Error(`built ${items.length} micro items, expected ${total}`);
  for (const item of items) deepFreeze(item);
  for (const doc of goods.values()) deepFreeze(doc);
  return {
    items: Object.freeze(items),
    goods,
    validated: {
      node_types_checked_against: index.label,
      real_node_types_available: snapshot.nodes.length,
      recipes_skipped_for_invalid_node_types: skipped.length,
    },
    skipped: Object.freeze(skipped),
  };
}
