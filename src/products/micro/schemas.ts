/**
 * Schema items: JSON Schema 2020-12 documents generated from the entities, three per entity: the
 * stored record, the create request (without system-assigned fields) and the change event
 * envelope (`<entity>.created|updated|deleted` with the record under `data`, via `$defs`/`$ref`).
 * Every document carries two `examples` that validate against it.
 *
 * Source: issue 3 §3 (schemas are valid JSON Schema 2020-12 documents whose examples validate).
 */
import { withArticle, type EntityDef, type FieldDef, type JsonSchema } from './entities';

/** The dialect every schema item declares. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** The three schema variants per entity. */
export const SCHEMA_VARIANTS = ['record', 'create', 'event'] as const;
/** One of {@link SCHEMA_VARIANTS}. */
export type SchemaVariant = (typeof SCHEMA_VARIANTS)[number];

/** Price in micro-units per variant: create 0.99, record 1.49, event 1.99 USD. */
export const SCHEMA_PRICE_MICROS: Readonly<Record<SchemaVariant, number>> = {
  create: 990_000,
  record: 1_490_000,
  event: 1_990_000,
};

/** Item id of a schema: `schema-<entity>` for the record, `schema-<entity>-create|event` otherwise. */
export function schemaItemId(entity: EntityDef, variant: SchemaVariant): string {
  const base = `schema-${entity.key.replace(/_/g, '-')}`;
  return variant === 'record' ? base : `${base}-${variant}`;
}

/** `$id` of a schema item: a URN naming the item (no network fetch is implied). */
export function schemaUri(itemId: string): string {
  return `urn:agent-commerce:micro:${itemId}`;
}

function objectSchema(fields: readonly FieldDef[], requiredOf: (f: FieldDef) => boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) properties[field.name] = { description: field.description, ...field.schema };
  return {
    type: 'object',
    properties,
    required: fields.filter(requiredOf).map((f) => f.name),
    additionalProperties: false,
  };
}

/** The record schema body (no `$schema`/`$id`/`examples`), reused under `$defs` and by tools. */
export function recordBody(entity: EntityDef): JsonSchema {
  return { title: entity.title, description: entity.description, ...objectSchema(entity.fields, (f) => f.required) };
}

/** The create-request schema body: the record without system-assigned fields. */
export function createBody(entity: EntityDef): JsonSchema {
  const fields = entity.fields.filter((f) => !f.server);
  return {
    title: `New ${entity.title.toLowerCase()}`,
    description: `Fields to create ${withArticle(entity.title.toLowerCase())}; the system assigns id and created_at.`,
    ...objectSchema(fields, (f) => f.required),
  };
}

/** Example record `i` (0 or 1): every field's i-th example. */
export function exampleRecord(entity: EntityDef, i: 0 | 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of entity.fields) out[field.name] = field.examples[i];
  return out;
}

/** Example create request `i`: the record's example without system-assigned fields. */
export function exampleCreate(entity: EntityDef, i: 0 | 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of entity.fields) if (!field.server) out[field.name] = field.examples[i];
  return out;
}

/**
 * The JSON Schema 2020-12 document of one variant of an entity, with `$schema`, `$id`, `title`,
 * `type`, `properties`, `required`, `additionalProperties: false` and two `examples`.
 */
export function schemaDocument(entity: EntityDef, variant: SchemaVariant, itemId: string): JsonSchema {
  const head = { $schema: JSON_SCHEMA_2020_12, $id: schemaUri(itemId) };
  if (variant === 'record') {
    return { ...head, ...recordBody(entity), examples: [exampleRecord(entity, 0), exampleRecord(entity, 1)] };
  }
  if (variant === 'create') {
    return { ...head, ...createBody(entity), examples: [exampleCreate(entity, 0), exampleCreate(entity, 1)] };
  }
  const events = ['created', 'updated', 'deleted'].map((e) => `${entity.key}.${e}`);
  const created = entity.fields.find((f) => f.name === 'created_at')?.examples ?? [
    '2026-03-01T00:00:00Z',
    '2026-03-01T00:00:00Z',
  ];
  return {
    ...head,
    title: `${entity.title} event`,
    description: `Change notification for ${withArticle(entity.title.toLowerCase())}: the event type, when it happened and the record after the change.`,
    type: 'object',
    properties: {
      id: {
        description: 'Event identifier; the same on every delivery retry, so receivers can deduplicate by it.',
        type: 'string',
        pattern: '^evt_[a-z0-9]{8,32}$',
      },
      type: { description: 'What happened.', type: 'string', enum: events },
      occurred_at: { description: 'When the change happened (RFC 3339).', type: 'string', format: 'date-time' },
      data: { $ref: `#/$defs/${entity.key}` },
    },
    required: ['id', 'type', 'occurred_at', 'data'],
    additionalProperties: false,
    $defs: { [entity.key]: recordBody(entity) },
    examples: [
      { id: 'evt_0a1b2c3d4e', type: events[0], occurred_at: created[0], data: exampleRecord(entity, 0) },
      { id: 'evt_5f6a7b8c9d', type: events[1], occurred_at: created[1], data: exampleRecord(entity, 1) },
    ],
  };
}

/** Title of a schema item. */
export function schemaTitle(entity: EntityDef, variant: SchemaVariant): string {
  if (variant === 'record') return `${entity.title} record — JSON Schema`;
  if (variant === 'create') return `${entity.title} create request — JSON Schema`;
  return `${entity.title} change event — JSON Schema`;
}

/** Purpose sentence of a schema item. */
export function schemaPurpose(entity: EntityDef, variant: SchemaVariant): string {
  if (variant === 'record')
    return `Validate stored ${entity.title.toLowerCase()} records (${entity.description.replace(/\.$/, '').toLowerCase()}) before they reach your database or agent.`;
  if (variant === 'create')
    return `Validate incoming requests that create ${withArticle(entity.title.toLowerCase())}, rejecting missing or malformed fields at the edge.`;
  return `Validate ${entity.key}.created/updated/deleted webhook events and their embedded record.`;
}
