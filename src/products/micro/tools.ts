/**
 * Tool items: MCP tool definitions (the `Tool` object of the Model Context Protocol, 2025-11-25:
 * `name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `_meta`) that an
 * agent or MCP server loads as-is. Three per entity: create, get by id and search. Input and output
 * schemas are JSON Schema objects in MCP's default dialect (2020-12) built from the same entity
 * fields as the schema items; `_meta["agent-commerce/implementation"]` names the n8n nodes that
 * implement the tool as a sub-workflow (Execute Workflow Trigger → the system's node).
 *
 * We chose the MCP format over OpenAI's function format because MCP carries an output schema and
 * behaviour hints, and both the project's own server (POST /mcp) and most agent runtimes load it.
 *
 * Source: issue 3 §3 (tools are tool definitions an agent can load), api-conventions.md (MCP).
 */
import { withArticle, type EntityDef, type JsonSchema } from './entities';
import { createBody, exampleCreate, exampleRecord, recordBody } from './schemas';

/** The three tool operations per entity. */
export const TOOL_OPERATIONS = ['create', 'get', 'search'] as const;
/** One of {@link TOOL_OPERATIONS}. */
export type ToolOperation = (typeof TOOL_OPERATIONS)[number];

/** Price in micro-units per operation: get 1.49, search 1.99, create 2.49 USD. */
export const TOOL_PRICE_MICROS: Readonly<Record<ToolOperation, number>> = {
  get: 1_490_000,
  search: 1_990_000,
  create: 2_490_000,
};

/** The n8n trigger a tool's sub-workflow starts from. */
export const TOOL_TRIGGER = 'n8n-nodes-base.executeWorkflowTrigger';

/** An MCP tool definition (the subset of fields these items use). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  _meta: Record<string, unknown>;
}

function plural(key: string): string {
  return key.endsWith('s') ? `${key}es` : `${key}s`;
}

/** MCP tool name: `create_<entity>`, `get_<entity>` or `search_<entities>` (snake_case, ≤ 64 chars). */
export function toolName(entity: EntityDef, op: ToolOperation): string {
  return op === 'search' ? `search_${plural(entity.key)}` : `${op}_${entity.key}`;
}

/** Item id of a tool: `tool-` + its name in kebab-case. */
export function toolItemId(entity: EntityDef, op: ToolOperation): string {
  return `tool-${toolName(entity, op).replace(/_/g, '-')}`;
}

/** Fields offered as search filters: enumerations and e-mail addresses, at most four. */
export function searchFilters(entity: EntityDef): EntityDef['fields'] {
  return entity.fields
    .filter((f) => !f.server && (Array.isArray(f.schema.enum) || f.schema.format === 'email'))
    .slice(0, 4);
}

/** Strips documentation keywords so a record schema can sit inside another object schema. */
function bare(schema: JsonSchema): JsonSchema {
  const { title: _title, ...rest } = schema;
  return rest;
}

/** Builds the MCP tool definition of one operation on an entity. */
export function toolDefinition(entity: EntityDef, op: ToolOperation): McpTool {
  const name = toolName(entity, op);
  const noun = entity.title.toLowerCase();
  const idField = entity.fields.find((f) => f.name === 'id');
  const idSchema = { description: `The ${noun} id.`, ...(idField?.schema ?? { type: 'string' }) };
  const record = { ...bare(recordBody(entity)), type: 'object' as const };
  const implementation = { n8n_trigger: TOOL_TRIGGER, n8n_node: entity.store, source_trigger: entity.source };

  if (op === 'create') {
    const input = { ...bare(createBody(entity)), type: 'object' as const };
    return {
      name,
      title: `Create ${noun}`,
      description: `Create ${withArticle(noun)} (${entity.description.replace(/\.$/, '').toLowerCase()}) in the system of record and return it with its assigned id. Example arguments: ${JSON.stringify(exampleCreate(entity, 0))}`,
      inputSchema: input,
      outputSchema: record,
      annotations: {
        title: `Create ${noun}`,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      _meta: { 'agent-commerce/implementation': implementation },
    };
  }
  if (op === 'get') {
    return {
      name,
      title: `Get ${noun}`,
      description: `Fetch one ${noun} by id. Returns the full record; fails with "not found" for an unknown id. Example result: ${JSON.stringify(exampleRecord(entity, 0))}`,
      inputSchema: { type: 'object', properties: { id: idSchema }, required: ['id'], additionalProperties: false },
      outputSchema: record,
      annotations: {
        title: `Get ${noun}`,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
      _meta: { 'agent-commerce/implementation': implementation },
    };
  }
  const filters = searchFilters(entity);
  const properties: Record<string, JsonSchema> = {};
  for (const f of filters)
    properties[f.name] = {
      description: `Only ${plural(entity.key).replace(/_/g, ' ')} whose ${f.name} equals this value.`,
      ...f.schema,
    };
  properties.created_after = {
    description: 'Only records created at or after this time (RFC 3339).',
    type: 'string',
    format: 'date-time',
  };
  properties.limit = { description: 'Page size.', type: 'integer', minimum: 1, maximum: 100, default: 20 };
  properties.cursor = {
    description: 'Opaque cursor from a previous page\u2019s next_cursor.',
    type: 'string',
    minLength: 1,
    maxLength: 512,
  };
  return {
    name,
    title: `Search ${plural(entity.key).replace(/_/g, ' ')}`,
    description: `List ${plural(entity.key).replace(/_/g, ' ')} matching all given filters (${filters.map((f) => f.name).join(', ')}${filters.length ? ', ' : ''}created_after), newest first, one page at a time; pass next_cursor back as cursor for the next page.`,
    inputSchema: { type: 'object', properties, additionalProperties: false },
    outputSchema: {
      type: 'object',
      properties: {
        items: { type: 'array', items: record },
        next_cursor: { description: 'Cursor of the next page, null on the last page.', type: ['string', 'null'] },
      },
      required: ['items', 'next_cursor'],
      additionalProperties: false,
    },
    annotations: {
      title: `Search ${plural(entity.key).replace(/_/g, ' ')}`,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    _meta: { 'agent-commerce/implementation': implementation },
  };
}
