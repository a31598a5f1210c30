/**
 * The committed snapshot of node types that the `n8n-nodes-base` package declares
 * (`n8n-node-types.json`, written by `scripts/n8n-node-types-snapshot.ts` from the package's
 * `dist/types/nodes.json`), its zod schema, and the checks recipes must pass against it.
 *
 * Source: issue 3 §3 (recipes use real n8n node types, checked against a snapshot of a pinned
 * package version), seed §2.12 (`validated`).
 */
import { z } from 'zod';
import snapshotJson from './n8n-node-types.json';

/** One version group of a node type: the versions it covers and its declared selector values. */
export const NodeTypeGroup = z
  .object({
    versions: z.array(z.number()).min(1),
    operations: z.array(z.string()).optional().meta({
      description: 'Declared operations as `resource:operation` (or `operation` for nodes without resources).',
    }),
    events: z.array(z.string()).optional().meta({
      description:
        'Static values of event-like options (event, events, topic, triggerOn, updates, trigger, actions, resource(s), firesOn).',
    }),
  })
  .meta({ description: 'A version group of an n8n node type.' });
/** Version group of a node type. */
export type NodeTypeGroup = z.infer<typeof NodeTypeGroup>;

/** One n8n node type as the snapshot records it. */
export const NodeTypeEntry = z
  .object({
    name: z.string().min(1).meta({ description: 'Node name inside the package, e.g. `slack`.' }),
    type: z.string().min(1).meta({ description: 'Workflow `type` identifier, e.g. `n8n-nodes-base.slack`.' }),
    displayName: z.string(),
    trigger: z.boolean().meta({ description: 'Whether the node is in the `trigger` group (can start a workflow).' }),
    hidden: z.literal(true).optional().meta({ description: 'Deprecated: hidden from the editor in every version.' }),
    versions: z.array(z.number()).min(1).meta({ description: 'Every typeVersion the package declares, ascending.' }),
    groups: z.array(NodeTypeGroup).min(1),
  })
  .meta({ description: 'An n8n node type declared by n8n-nodes-base.' });
/** Node type entry. */
export type NodeTypeEntry = z.infer<typeof NodeTypeEntry>;

/** The whole snapshot file. */
export const NodeTypeSnapshot = z
  .object({
    package: z.string().min(1),
    version: z.string().min(1),
    integrity: z
      .string()
      .min(1)
      .meta({ description: 'npm integrity (SRI) of the tarball the snapshot was read from.' }),
    source: z.string(),
    node_count: z.number().int().nonnegative(),
    nodes: z.array(NodeTypeEntry),
  })
  .refine((s) => s.node_count === s.nodes.length, { message: 'node_count must equal nodes.length' })
  .meta({ description: 'Node types declared by a pinned n8n-nodes-base version.' });
/** Node type snapshot. */
export type NodeTypeSnapshot = z.infer<typeof NodeTypeSnapshot>;

/** The committed snapshot, parsed once at module load (throws a ZodError if the file is malformed). */
export const N8N_NODE_TYPES: NodeTypeSnapshot = NodeTypeSnapshot.parse(snapshotJson);

/** Fast lookups over a snapshot. */
export interface NodeTypeIndex {
  snapshot: NodeTypeSnapshot;
  /** `package@version`, e.g. `n8n-nodes-base@2.41.2`. */
  label: string;
  /** Entry by workflow type identifier (`n8n-nodes-base.slack`). */
  byType: ReadonlyMap<string, NodeTypeEntry>;
}

/** Builds the lookup index of a snapshot. */
export function indexNodeTypes(snapshot: NodeTypeSnapshot): NodeTypeIndex {
  return {
    snapshot,
    label: `${snapshot.package}@${snapshot.version}`,
    byType: new Map(snapshot.nodes.map((n) => [n.type, n])),
  };
}

/** What a workflow node claims about itself, for {@link checkNodeUse}. */
export interface NodeUse {
  /** Workflow type identifier, e.g. `n8n-nodes-base.slack`. */
  type: string;
  typeVersion: number;
  /** `trigger` nodes start the workflow; `action` nodes must not be triggers. */
  role: 'trigger' | 'action' | 'helper';
  /** `resource:operation` (or `operation`) the node is configured with, if any. */
  operation?: string;
  /** Event values the node listens to, if any. */
  events?: readonly string[];
}

/**
 * Checks one node use against the snapshot and returns the problems found (empty when valid): the
 * type must exist and not be deprecated (hidden), the typeVersion must be one it lists, a trigger
 * must be a trigger node and an action must not, and the operation and event values must be among
 * those its version group declares. Event values are only checked when the group declares static
 * values (some nodes load them from the service at runtime).
 */
export function checkNodeUse(index: NodeTypeIndex, use: NodeUse): string[] {
  const entry = index.byType.get(use.type);
  if (!entry) return [`${use.type} is not a node type of ${index.label}`];
  const problems: string[] = [];
  if (entry.hidden) problems.push(`${use.type} is deprecated (hidden) in ${index.label}`);
  const group = entry.groups.find((g) => g.versions.includes(use.typeVersion));
  if (!group) problems.push(`${use.type} has no typeVersion ${use.typeVersion} (has ${entry.versions.join(', ')})`);
  if (use.role === 'trigger' && !entry.trigger) problems.push(`${use.type} is not a trigger node`);
  if (use.role === 'action' && entry.trigger) problems.push(`${use.type} is a trigger node, not an action`);
  if (group && use.operation !== undefined && !(group.operations ?? []).includes(use.operation)) {
    problems.push(`${use.type}@${use.typeVersion} declares no operation ${use.operation}`);
  }
  if (group?.events && use.events) {
    for (const ev of use.events) {
      if (!group.events.includes(ev)) problems.push(`${use.type}@${use.typeVersion} declares no event ${ev}`);
    }
  }
  return problems;
}
