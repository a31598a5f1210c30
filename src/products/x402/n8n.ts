/**
 * n8n workflow JSON: the shape this project writes (templates, agent starter) and reads (audit), a small builder,
 * and graph helpers. Pure functions, no I/O.
 *
 * Format: what n8n's "Import from file" accepts — `{name, nodes: [{id, name, type, typeVersion, position,
 * parameters}], connections: {<source node name>: {main: [[{node, type: 'main', index}]]}}, settings}`.
 * Source: issue 3 §5 (templates, audit); n8n workflow export format.
 */
import { createHash } from 'node:crypto';

/** One node of an n8n workflow. */
export interface N8nNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  /** Credential slots by credential type; ids are placeholders the importer replaces. */
  credentials?: Record<string, { id: string; name: string }>;
  notes?: string;
  disabled?: boolean;
  retryOnFail?: boolean;
  maxTries?: number;
  waitBetweenTries?: number;
  onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
  continueOnFail?: boolean;
  webhookId?: string;
}

/** A connection target: `index` is the input of the target node. */
export interface N8nConnectionTarget {
  node: string;
  type: string;
  index: number;
}

/** An importable n8n workflow. */
export interface N8nWorkflow {
  name: string;
  nodes: N8nNode[];
  /** Source node name → output type (`main`) → output index → targets. */
  connections: Record<string, Record<string, N8nConnectionTarget[][]>>;
  settings: Record<string, unknown>;
  pinData?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  tags?: unknown[];
  active?: boolean;
}

/** A node as the builder takes it: `next` names the nodes its first output feeds (or one list per output). */
export interface NodeSpec {
  name: string;
  type: string;
  typeVersion: number;
  parameters?: Record<string, unknown>;
  credentials?: Record<string, string>;
  notes?: string;
  /** Targets of output 0, or of each output (IF / Switch nodes have several). */
  next?: string[] | string[][];
  retry?: boolean;
  onError?: N8nNode['onError'];
}

/** Deterministic UUID-shaped id from a seed (n8n wants unique node ids; stable bytes keep goods reproducible). */
export function stableId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Builds an importable workflow from node specs laid out left to right in the given order. Credentials are
 * placeholders (`REPLACE_WITH_YOUR_<TYPE>`): an imported template never carries secrets.
 */
export function buildWorkflow(
  name: string,
  specs: NodeSpec[],
  opts: { tags?: string[]; description?: string } = {},
): N8nWorkflow {
  const nodes: N8nNode[] = specs.map((s, i) => {
    const node: N8nNode = {
      id: stableId(`${name}/${s.name}`),
      name: s.name,
      type: s.type,
      typeVersion: s.typeVersion,
      position: [240 + i * 220, 300 + (i % 2) * 40],
      parameters: s.parameters ?? {},
    };
    if (s.credentials) {
      node.credentials = Object.fromEntries(
        Object.entries(s.credentials).map(([type, label]) => [
          type,
          { id: `REPLACE_WITH_YOUR_${type.toUpperCase()}`, name: label },
        ]),
      );
    }
    if (s.notes) node.notes = s.notes;
    if (s.retry) {
      node.retryOnFail = true;
      node.maxTries = 3;
      node.waitBetweenTries = 2000;
    }
    if (s.onError) node.onError = s.onError;
    if (s.type === 'n8n-nodes-base.webhook' || s.type === 'n8n-nodes-base.formTrigger')
      node.webhookId = stableId(`${name}/${s.name}/webhook`);
    return node;
  });
  const connections: N8nWorkflow['connections'] = {};
  for (const s of specs) {
    if (!s.next || s.next.length === 0) continue;
    const outputs: string[][] = typeof s.next[0] === 'string' ? [s.next as string[]] : (s.next as string[][]);
    connections[s.name] = { main: outputs.map((targets) => targets.map((node) => ({ node, type: 'main', index: 0 }))) };
  }
  return {
    name,
    nodes,
    connections,
    settings: { executionOrder: 'v1', saveManualExecutions: true, callerPolicy: 'workflowsFromSameOwner' },
    ...(opts.tags ? { tags: opts.tags.map((t) => ({ name: t })) } : {}),
    meta: { templateCredsSetupCompleted: false, ...(opts.description ? { description: opts.description } : {}) },
    active: false,
  };
}

/** Names of the nodes each node's outputs lead to (all output types, all outputs). */
export function successors(wf: Pick<N8nWorkflow, 'connections'>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [source, byType] of Object.entries(wf.connections ?? {})) {
    const set = out.get(source) ?? new Set<string>();
    for (const outputs of Object.values(byType ?? {})) {
      if (!Array.isArray(outputs)) continue;
      for (const targets of outputs) {
        if (!Array.isArray(targets)) continue;
        for (const t of targets) if (t && typeof t.node === 'string') set.add(t.node);
      }
    }
    out.set(source, set);
  }
  return out;
}

/** Node names reachable from `roots` (roots included). */
export function reachableFrom(roots: Iterable<string>, next: Map<string, Set<string>>): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const n = stack.pop() as string;
    if (seen.has(n)) continue;
    seen.add(n);
    for (const m of next.get(n) ?? []) stack.push(m);
  }
  return seen;
}

/** Whether the graph has a cycle (n8n loops are legal only through SplitInBatches / Loop Over Items). */
export function findCycle(names: string[], next: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (n: string): string[] | null => {
    state.set(n, 1);
    path.push(n);
    for (const m of next.get(n) ?? []) {
      if (state.get(m) === 1) return [...path.slice(path.indexOf(m)), m];
      if (!state.has(m)) {
        const c = visit(m);
        if (c) return c;
      }
    }
    path.pop();
    state.set(n, 2);
    return null;
  };
  for (const n of names) {
    if (!state.has(n)) {
      const c = visit(n);
      if (c) return c;
    }
  }
  return null;
}
