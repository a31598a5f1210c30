/**
 * Loads a delivered n8n workflow the way n8n does (issue 38 §3): n8n-workflow's `Workflow` over an `INodeTypes`
 * built from the node descriptions of n8n-nodes-base (test/fixtures/n8n-node-descriptions.json, written by
 * `scripts/n8n-node-types-snapshot.ts --descriptions` from the pinned package), then reports what n8n's editor would
 * flag: unknown node types or type versions, parameter issues (`NodeHelpers.getNodeParametersIssues`: required
 * parameters, option values), parameters the node does not have at that version, and connections to missing nodes
 * or to outputs/inputs the node does not have (`NodeHelpers.getNodeOutputs` counts the error output of
 * `onError: continueErrorOutput`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  NodeHelpers,
  Workflow,
  type IConnections,
  type INode,
  type INodeType,
  type INodeTypeDescription,
  type INodeTypes,
  type IVersionedNodeType,
} from 'n8n-workflow';

interface Fixture {
  package: string;
  version: string;
  nodes: INodeTypeDescription[];
}

let fixture: Fixture | undefined;
function descriptions(): Fixture {
  fixture ??= JSON.parse(
    readFileSync(path.join(__dirname, '..', 'fixtures', 'n8n-node-descriptions.json'), 'utf8'),
  ) as Fixture;
  return fixture;
}

/** Version of n8n-nodes-base the descriptions come from. */
export function nodesBaseVersion(): string {
  return descriptions().version;
}

/** The description of `type` covering `version`, or undefined when n8n-nodes-base has no such node version. */
export function describe_(type: string, version: number): INodeTypeDescription | undefined {
  return descriptions().nodes.find(
    (d) => d.name === type && (Array.isArray(d.version) ? d.version.includes(version) : d.version === version),
  );
}

/** n8n-workflow's node-type registry over the fixture (descriptions only: nothing is executed). */
export function nodeTypes(): INodeTypes {
  return {
    getByName(type: string): INodeType | IVersionedNodeType {
      const all = descriptions().nodes.filter((d) => d.name === type);
      const newest = all.at(-1);
      if (!newest) throw new Error(`Unknown node type ${type}`);
      return { description: newest } as INodeType;
    },
    getByNameAndVersion(type: string, version?: number): INodeType {
      const d = version === undefined ? undefined : describe_(type, version);
      return (d ? { description: d } : undefined) as unknown as INodeType;
    },
    getKnownTypes() {
      return {};
    },
  };
}

/** A delivered workflow as JSON. */
export interface WorkflowJson {
  name?: string;
  nodes: INode[];
  connections: IConnections;
  settings?: Record<string, unknown>;
}

/** Everything n8n would flag in `wf`; empty when it loads clean. */
export function workflowIssues(wf: WorkflowJson): string[] {
  const issues: string[] = [];
  const types = nodeTypes();
  const names = new Set<string>();
  for (const node of wf.nodes) {
    if (names.has(node.name)) issues.push(`duplicate node name "${node.name}"`);
    names.add(node.name);
  }
  let workflow: Workflow;
  try {
    workflow = new Workflow({
      nodes: wf.nodes,
      connections: wf.connections,
      active: false,
      nodeTypes: types,
      settings: wf.settings ?? {},
    });
  } catch (err) {
    return [`n8n-workflow refused the workflow: ${(err as Error).message}`];
  }
  for (const node of wf.nodes) {
    const desc = describe_(node.type, node.typeVersion);
    if (!desc) {
      issues.push(`${node.name}: ${node.type}@${node.typeVersion} does not exist in n8n-nodes-base`);
      continue;
    }
    const resolved = NodeHelpers.getNodeParameters(desc.properties, node.parameters, true, false, node, desc);
    if (!resolved) {
      issues.push(`${node.name}: parameters could not be resolved`);
      continue;
    }
    for (const key of Object.keys(node.parameters)) {
      if (!(key in resolved))
        issues.push(`${node.name}: parameter "${key}" does not exist (or is hidden) at this version`);
    }
    // Option values (getNodeParametersIssues leaves them to the editor's dropdowns).
    for (const prop of desc.properties) {
      if (
        prop.type !== 'options' ||
        !(prop.name in resolved) ||
        !NodeHelpers.displayParameter(resolved, prop, node, desc)
      )
        continue;
      const value = resolved[prop.name];
      if (typeof value === 'string' && value.startsWith('=')) continue;
      const allowed = (prop.options ?? []).map((o) => ('value' in o ? o.value : undefined));
      if (prop.typeOptions?.loadOptionsMethod || prop.typeOptions?.loadOptions) continue;
      if (!allowed.includes(value as never))
        issues.push(`${node.name}: ${prop.name}: value ${JSON.stringify(value)} is not an option`);
    }
    const found = NodeHelpers.getNodeParametersIssues(desc.properties, { ...node, parameters: resolved }, desc);
    for (const [param, messages] of Object.entries(found?.parameters ?? {}))
      issues.push(`${node.name}: ${param}: ${messages.join('; ')}`);
  }
  for (const [source, byType] of Object.entries(wf.connections)) {
    const from = workflow.getNode(source);
    if (!from) {
      issues.push(`connection from missing node "${source}"`);
      continue;
    }
    const fromDesc = describe_(from.type, from.typeVersion);
    const outputs = fromDesc ? NodeHelpers.getNodeOutputs(workflow, from, fromDesc) : [];
    for (const [type, lists] of Object.entries(byType)) {
      const ofType = outputs.filter((o) => (typeof o === 'string' ? o : o.type) === type).length;
      (lists ?? []).forEach((targets, outputIndex) => {
        if (outputIndex >= ofType && (targets ?? []).length > 0)
          issues.push(`${source}: output ${type}[${outputIndex}] does not exist (it has ${ofType})`);
        for (const t of targets ?? []) {
          const to = workflow.getNode(t.node);
          if (!to) {
            issues.push(`${source} → missing node "${t.node}"`);
            continue;
          }
          const toDesc = describe_(to.type, to.typeVersion);
          const inputs = toDesc ? NodeHelpers.getNodeInputs(workflow, to, toDesc) : [];
          const inOfType = inputs.filter((i) => (typeof i === 'string' ? i : i.type) === t.type).length;
          if (t.index >= inOfType) issues.push(`${source} → ${t.node}: input ${t.type}[${t.index}] does not exist`);
        }
      });
    }
  }
  const triggers = wf.nodes.filter((n) => describe_(n.type, n.typeVersion)?.group.includes('trigger'));
  if (triggers.length === 0) issues.push('no trigger node');
  return issues;
}
