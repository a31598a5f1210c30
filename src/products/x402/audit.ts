/**
 * Static analysis of one n8n workflow: the report sold at `POST /x402/audit` (seed §2.13: "written report on one
 * workflow"; issue 3 §5). Pure: the same workflow always gives the same report.
 *
 * Checks (rule ids are stable):
 * - `unknown_node_type`: an `n8n-nodes-base.*` type the pinned package does not declare; `deprecated_node_type`: one it
 *   hides; `unsupported_type_version`: a typeVersion it does not list; `unverified_node_type`: other packages
 *   (community, langchain), which the snapshot cannot confirm;
 * - `no_trigger`, `trigger_without_actions`, `disconnected_node` (not reachable from any trigger), `dangling_connection`
 *   (to or from a node that does not exist), `duplicate_node_name`, `cycle` (a loop not through Loop Over Items);
 * - `no_error_handling` (no Error Trigger, no `settings.errorWorkflow`, no retry / error output on any node),
 *   `external_call_without_retry`, `http_without_timeout`;
 * - `hardcoded_secret` (credential-looking parameter values: API keys, tokens, passwords, bearer headers, private
 *   keys, connection strings with passwords), `webhook_without_auth`, `risky_code` (eval, child_process, fs in Code
 *   nodes), `pinned_data` (sample data exported with the workflow), `disabled_node`, `missing_credentials`.
 */
import { checkNodeUse, indexNodeTypes, N8N_NODE_TYPES, type NodeTypeIndex } from '../micro/snapshot';
import { findCycle, reachableFrom, successors } from './n8n';

/** Severity of a finding; the score subtracts 25 / 8 / 2 per finding. */
export type Severity = 'error' | 'warning' | 'info';

/** One finding of the audit. */
export interface AuditFinding {
  rule: string;
  severity: Severity;
  /** Node the finding is about, when it is about one. */
  node: string | null;
  message: string;
  fix: string;
}

/** The audit report. */
export interface AuditReport {
  workflow_name: string | null;
  summary: {
    score: number;
    grade: 'A' | 'B' | 'C' | 'D' | 'F';
    errors: number;
    warnings: number;
    infos: number;
    node_count: number;
    trigger_count: number;
    connection_count: number;
    node_types: string[];
  };
  findings: AuditFinding[];
  checked_against: { package: string; version: string; node_types_available: number };
  /** The written report (Markdown). */
  report: string;
  rules_checked: string[];
}

/** Every rule id the audit runs. */
export const AUDIT_RULES = [
  'unknown_node_type',
  'deprecated_node_type',
  'unsupported_type_version',
  'unverified_node_type',
  'no_trigger',
  'trigger_without_actions',
  'disconnected_node',
  'dangling_connection',
  'duplicate_node_name',
  'cycle',
  'no_error_handling',
  'external_call_without_retry',
  'http_without_timeout',
  'hardcoded_secret',
  'webhook_without_auth',
  'risky_code',
  'pinned_data',
  'disabled_node',
  'missing_credentials',
] as const;

/** A node as found in submitted JSON (anything may be missing or of the wrong type). */
interface LooseNode {
  name: string;
  type: string;
  typeVersion: number;
  parameters: Record<string, unknown>;
  raw: Record<string, unknown>;
}

/** Why a body is not a workflow; thrown by {@link auditWorkflow}. */
export class InvalidWorkflowError extends Error {
  override readonly name = 'InvalidWorkflowError';
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}

/** Nodes that start a workflow although the snapshot may not flag them (defensive for other packages). */
const TRIGGER_NAME = /trigger$/i;
/** Node types that make calls to outside systems (anything not in this helper list and not a trigger). */
const HELPER_TYPES = new Set(
  [
    'set',
    'if',
    'switch',
    'filter',
    'merge',
    'code',
    'function',
    'functionItem',
    'noOp',
    'wait',
    'aggregate',
    'summarize',
    'splitOut',
    'splitInBatches',
    'limit',
    'sort',
    'removeDuplicates',
    'renameKeys',
    'dateTime',
    'crypto',
    'html',
    'xml',
    'markdown',
    'itemLists',
    'compareDatasets',
    'stopAndError',
    'respondToWebhook',
    'executeWorkflow',
    'stickyNote',
    'executionData',
    'form',
    'convertToFile',
    'extractFromFile',
    'spreadsheetFile',
    'moveBinaryData',
    'editImage',
    'compression',
    'readBinaryFile',
    'readBinaryFiles',
    'totp',
    'jwt',
  ].map((n) => `n8n-nodes-base.${n}`),
);
const LOOP_TYPES = new Set(['n8n-nodes-base.splitInBatches']);
const ERROR_TRIGGER = 'n8n-nodes-base.errorTrigger';
const STICKY = 'n8n-nodes-base.stickyNote';

const SECRET_KEY =
  /(api[_-]?key|apikey|secret|password|passwd|token|auth(orization)?|private[_-]?key|access[_-]?key|client[_-]?secret)/i;
const SECRET_VALUE: [RegExp, string][] = [
  [/\bsk-(live|test|proj)?[-_]?[A-Za-z0-9]{16,}/, 'an API secret key (sk-...)'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a GitHub token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/, 'a Google API key'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{16,}/, 'a bearer token'],
  [/\bBasic\s+[A-Za-z0-9+/=]{12,}/, 'basic auth credentials'],
  [/\b(postgres(ql)?|mysql|mongodb(\+srv)?|redis|amqp):\/\/[^:\s/]+:[^@\s]+@/, 'a connection string with a password'],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'a JSON Web Token'],
  [/\b0x[0-9a-fA-F]{64}\b/, 'a 32-byte hex string (a private key?)'],
];
const RISKY_CODE: [RegExp, string][] = [
  [/\beval\s*\(/, 'eval()'],
  [/new\s+Function\s*\(/, 'new Function()'],
  [/require\(\s*['"](child_process|fs|net|vm)['"]\s*\)/, 'require of child_process / fs / net / vm'],
  [/process\.env/, 'process.env (reads the n8n host environment)'],
];

let defaultIndex: NodeTypeIndex | undefined;
const nodeTypeIndex = (): NodeTypeIndex => (defaultIndex ??= indexNodeTypes(N8N_NODE_TYPES));

/** Extracts the workflow from a request body: the workflow itself or `{workflow: {...}}`. */
export function workflowOfBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidWorkflowError('Send the n8n workflow JSON (or {"workflow": {...}}) as the body', 'body');
  }
  const b = body as Record<string, unknown>;
  const wf = 'nodes' in b ? b : b.workflow;
  if (wf === null || typeof wf !== 'object' || Array.isArray(wf)) {
    throw new InvalidWorkflowError(
      'The body has no workflow: expected {"nodes": [...], "connections": {...}}',
      'nodes',
    );
  }
  return wf as Record<string, unknown>;
}

/**
 * Checks the shape of a workflow (what the audit needs) and returns its nodes.
 * @throws InvalidWorkflowError naming the offending member.
 */
export function parseWorkflowShape(wf: Record<string, unknown>): {
  nodes: LooseNode[];
  connections: Record<string, Record<string, unknown>>;
} {
  if (!Array.isArray(wf.nodes)) throw new InvalidWorkflowError('nodes must be an array of n8n nodes', 'nodes');
  if (wf.nodes.length === 0) throw new InvalidWorkflowError('nodes is empty: there is nothing to audit', 'nodes');
  if (wf.nodes.length > 500) throw new InvalidWorkflowError('at most 500 nodes per workflow', 'nodes');
  const connections = wf.connections ?? {};
  if (connections === null || typeof connections !== 'object' || Array.isArray(connections)) {
    throw new InvalidWorkflowError('connections must be an object keyed by source node name', 'connections');
  }
  const nodes = wf.nodes.map((n, i): LooseNode => {
    if (n === null || typeof n !== 'object' || Array.isArray(n))
      throw new InvalidWorkflowError(`nodes[${i}] is not an object`, `nodes.${i}`);
    const raw = n as Record<string, unknown>;
    if (typeof raw.name !== 'string' || raw.name === '')
      throw new InvalidWorkflowError(`nodes[${i}].name must be a non-empty string`, `nodes.${i}.name`);
    if (typeof raw.type !== 'string' || raw.type === '')
      throw new InvalidWorkflowError(
        `nodes[${i}].type must be a node type such as n8n-nodes-base.webhook`,
        `nodes.${i}.type`,
      );
    const params =
      raw.parameters && typeof raw.parameters === 'object' && !Array.isArray(raw.parameters)
        ? (raw.parameters as Record<string, unknown>)
        : {};
    return {
      name: raw.name,
      type: raw.type,
      typeVersion: typeof raw.typeVersion === 'number' ? raw.typeVersion : 1,
      parameters: params,
      raw,
    };
  });
  return { nodes, connections: connections as Record<string, Record<string, unknown>> };
}

/** Walks a parameter tree, yielding `[path, key, string value]` for every string leaf. */
function* stringLeaves(value: unknown, path: string, key: string, depth = 0): Generator<[string, string, string]> {
  if (depth > 12) return;
  if (typeof value === 'string') {
    yield [path, key, value];
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* stringLeaves(value[i], `${path}[${i}]`, key, depth + 1);
  } else if (value && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    // n8n name/value pairs (headers, query parameters): the pair's name is the meaningful key.
    const pairName = typeof rec.name === 'string' ? rec.name : null;
    for (const [k, v] of Object.entries(rec)) {
      yield* stringLeaves(v, path ? `${path}.${k}` : k, k === 'value' && pairName ? pairName : k, depth + 1);
    }
  }
}

const isExpression = (v: string): boolean => v.startsWith('=') || v.includes('{{') || v.includes('$credentials');
const isPlaceholder = (v: string): boolean =>
  /^(REPLACE|YOUR|<|\*{3}|x{6,}|changeme|placeholder)/i.test(v.trim()) || v.trim().length < 8;

/**
 * Audits one workflow against the n8n node-type snapshot (`index`, default the committed one).
 * @throws InvalidWorkflowError when the JSON is not a workflow.
 */
export function auditWorkflow(wf: Record<string, unknown>, index: NodeTypeIndex = nodeTypeIndex()): AuditReport {
  const { nodes, connections } = parseWorkflowShape(wf);
  const findings: AuditFinding[] = [];
  const add = (rule: string, severity: Severity, node: string | null, message: string, fix: string) =>
    findings.push({ rule, severity, node, message, fix });

  const names = new Map<string, LooseNode>();
  for (const n of nodes) {
    if (names.has(n.name))
      add(
        'duplicate_node_name',
        'error',
        n.name,
        `Two nodes are named "${n.name}"; connections refer to nodes by name`,
        'Rename one of them and reconnect it',
      );
    names.set(n.name, n);
  }

  const isTrigger = (n: LooseNode): boolean => {
    const entry = index.byType.get(n.type);
    return entry ? entry.trigger : TRIGGER_NAME.test(n.type) || n.type.endsWith('.webhook');
  };

  // Node types against the snapshot.
  for (const n of nodes) {
    if (n.type === STICKY) continue;
    if (n.type.startsWith('n8n-nodes-base.')) {
      const entry = index.byType.get(n.type);
      if (!entry) {
        add(
          'unknown_node_type',
          'error',
          n.name,
          `${n.type} is not a node type of ${index.label}; n8n will refuse to run this node`,
          'Replace it with an existing node type (for an arbitrary API: n8n-nodes-base.httpRequest)',
        );
        continue;
      }
      const problems = checkNodeUse(index, { type: n.type, typeVersion: n.typeVersion, role: 'helper' });
      for (const p of problems) {
        if (p.includes('deprecated'))
          add('deprecated_node_type', 'warning', n.name, p, `Replace ${entry.displayName} with its current successor`);
        else
          add('unsupported_type_version', 'error', n.name, p, `Set typeVersion to one of ${entry.versions.join(', ')}`);
      }
    } else {
      add(
        'unverified_node_type',
        'info',
        n.name,
        `${n.type} is not from n8n-nodes-base, so ${index.label} cannot confirm it exists`,
        'Make sure the package providing it is installed on the target n8n instance',
      );
    }
  }

  // Graph.
  const next = successors({ connections: connections as never });
  let connectionCount = 0;
  for (const [source, targets] of next) {
    if (!names.has(source))
      add(
        'dangling_connection',
        'error',
        source,
        `connections start from "${source}", which is not a node`,
        'Remove the stale connection',
      );
    for (const t of targets) {
      connectionCount++;
      if (!names.has(t))
        add(
          'dangling_connection',
          'error',
          source,
          `"${source}" connects to "${t}", which is not a node`,
          'Remove the connection or restore the node',
        );
    }
  }
  const active = nodes.filter((n) => n.type !== STICKY);
  const triggers = active.filter(isTrigger);
  if (triggers.length === 0) {
    add(
      'no_trigger',
      'error',
      null,
      'No trigger node: the workflow can only run by hand or as a sub-workflow',
      'Add a trigger (Webhook, Schedule Trigger or an app trigger) in front of the first step',
    );
  }
  for (const t of triggers) {
    if (t.type !== ERROR_TRIGGER && (next.get(t.name)?.size ?? 0) === 0) {
      add(
        'trigger_without_actions',
        'warning',
        t.name,
        `Trigger "${t.name}" is connected to nothing`,
        'Connect it to the first step or remove it',
      );
    }
  }
  const reachable = reachableFrom(
    triggers.map((t) => t.name),
    next,
  );
  if (triggers.length > 0) {
    for (const n of active) {
      if (!reachable.has(n.name))
        add(
          'disconnected_node',
          'warning',
          n.name,
          `"${n.name}" is not reachable from any trigger and never runs`,
          'Connect it or delete it',
        );
    }
  }
  const loopFree = new Map([...next].filter(([s]) => !LOOP_TYPES.has(names.get(s)?.type ?? '')));
  const cycle = findCycle([...names.keys()], loopFree);
  if (cycle)
    add(
      'cycle',
      'warning',
      cycle[0] ?? null,
      `Connections form a loop: ${cycle.join(' → ')}`,
      'Use Loop Over Items (SplitInBatches) for iteration, or break the loop',
    );

  // Error handling.
  const settings = wf.settings && typeof wf.settings === 'object' ? (wf.settings as Record<string, unknown>) : {};
  const external = active.filter((n) => !isTrigger(n) && !HELPER_TYPES.has(n.type));
  const guarded = (n: LooseNode) =>
    n.raw.retryOnFail === true ||
    n.raw.continueOnFail === true ||
    (typeof n.raw.onError === 'string' && n.raw.onError !== 'stopWorkflow');
  const hasErrorPath =
    active.some((n) => n.type === ERROR_TRIGGER) || typeof settings.errorWorkflow === 'string' || active.some(guarded);
  if (!hasErrorPath) {
    add(
      'no_error_handling',
      'warning',
      null,
      'No error handling: no Error Trigger, no error workflow in settings, no retries or error outputs; a failed run goes unnoticed',
      'Set settings.errorWorkflow to an alerting workflow, and enable Retry On Fail on external calls',
    );
  }
  for (const n of external) {
    if (!guarded(n))
      add(
        'external_call_without_retry',
        'info',
        n.name,
        `"${n.name}" (${n.type}) calls an outside system without Retry On Fail or an error output`,
        'Enable Retry On Fail (3 tries, 2 s apart) or route its error output to an alert',
      );
    if (n.type === 'n8n-nodes-base.httpRequest') {
      const options = (n.parameters.options ?? {}) as Record<string, unknown>;
      if (typeof options.timeout !== 'number')
        add(
          'http_without_timeout',
          'info',
          n.name,
          `"${n.name}" has no timeout; a hanging server blocks the execution`,
          'Set Options → Timeout (e.g. 15000 ms)',
        );
    }
    if (
      !n.raw.credentials &&
      ['n8n-nodes-base.httpRequest', 'n8n-nodes-base.code'].every((t) => t !== n.type) &&
      index.byType.has(n.type)
    ) {
      add(
        'missing_credentials',
        'info',
        n.name,
        `"${n.name}" names no credentials; most ${n.type} operations need them`,
        'Select the credentials for this node after import',
      );
    }
  }

  // Security.
  for (const n of active) {
    for (const [path, key, value] of stringLeaves(n.parameters, '', '')) {
      if (isExpression(value)) continue;
      const pattern = SECRET_VALUE.find(([re]) => re.test(value));
      if (pattern) {
        add(
          'hardcoded_secret',
          'error',
          n.name,
          `Parameter ${path} holds ${pattern[1]}; it is exported and shared with the workflow`,
          'Move it into an n8n credential and rotate the exposed value',
        );
      } else if (
        SECRET_KEY.test(key) &&
        !isPlaceholder(value) &&
        !/^(none|headerAuth|basicAuth|genericCredentialType|predefinedCredentialType|oAuth2|jwtAuth|queryAuth|digestAuth|httpHeaderAuth|httpBasicAuth)$/i.test(
          value,
        )
      ) {
        add(
          'hardcoded_secret',
          'error',
          n.name,
          `Parameter ${path} (${key}) holds a literal value that looks like a credential`,
          'Move it into an n8n credential and rotate the exposed value',
        );
      }
    }
    if (n.type === 'n8n-nodes-base.webhook' || n.type === 'n8n-nodes-base.formTrigger') {
      const auth = n.parameters.authentication;
      if ((auth === undefined || auth === 'none') && n.type === 'n8n-nodes-base.webhook') {
        add(
          'webhook_without_auth',
          'warning',
          n.name,
          `"${n.name}" accepts calls from anyone who learns its URL`,
          'Set Authentication (Header Auth or Basic Auth) or verify a signature in the first step',
        );
      } else if (auth === undefined || auth === 'none') {
        // Forms are usually meant to be public; worth knowing, not a defect.
        add(
          'webhook_without_auth',
          'info',
          n.name,
          `Form "${n.name}" is public: anyone with its URL can submit it`,
          'Add Basic Auth to the form if it is not meant for the public, and rate-limit it at the proxy',
        );
      }
    }
    if (
      n.type === 'n8n-nodes-base.code' ||
      n.type === 'n8n-nodes-base.function' ||
      n.type === 'n8n-nodes-base.functionItem'
    ) {
      const code = [n.parameters.jsCode, n.parameters.functionCode, n.parameters.pythonCode]
        .filter((c): c is string => typeof c === 'string')
        .join('\n');
      for (const [re, what] of RISKY_CODE) {
        if (re.test(code))
          add(
            'risky_code',
            'warning',
            n.name,
            `Code in "${n.name}" uses ${what}`,
            'Remove it; n8n blocks most of these by default and they widen the attack surface',
          );
      }
    }
    if (n.raw.disabled === true)
      add(
        'disabled_node',
        'info',
        n.name,
        `"${n.name}" is disabled and is skipped`,
        'Delete it if it is no longer needed',
      );
  }
  if (wf.pinData && typeof wf.pinData === 'object' && Object.keys(wf.pinData as object).length > 0) {
    add(
      'pinned_data',
      'info',
      null,
      'The export carries pinned sample data, which may include personal data',
      'Unpin the data before sharing the workflow',
    );
  }

  const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  findings.sort(
    (a, b) =>
      order[a.severity] - order[b.severity] ||
      a.rule.localeCompare(b.rule) ||
      (a.node ?? '').localeCompare(b.node ?? ''),
  );
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const score = Math.max(0, 100 - 25 * count('error') - 8 * count('warning') - 2 * count('info'));
  const grade = score >= 90 ? 'A' : score >= 75 ? 'B' : score >= 60 ? 'C' : score >= 40 ? 'D' : 'F';
  const workflowName = typeof wf.name === 'string' ? wf.name : null;
  const summary = {
    score,
    grade,
    errors: count('error'),
    warnings: count('warning'),
    infos: count('info'),
    node_count: active.length,
    trigger_count: triggers.length,
    connection_count: connectionCount,
    node_types: [...new Set(active.map((n) => n.type))].sort(),
  } as const;
  return {
    workflow_name: workflowName,
    summary: { ...summary },
    findings,
    checked_against: {
      package: index.snapshot.package,
      version: index.snapshot.version,
      node_types_available: index.snapshot.nodes.length,
    },
    report: writeReport(workflowName, summary, findings, index.label),
    rules_checked: [...AUDIT_RULES],
  };
}

function writeReport(name: string | null, s: AuditReport['summary'], findings: AuditFinding[], label: string): string {
  const lines = [
    `# Workflow audit${name ? `: ${name}` : ''}`,
    '',
    `Score **${s.score}/100** (grade ${s.grade}): ${s.errors} error(s), ${s.warnings} warning(s), ${s.infos} note(s).`,
    `${s.node_count} node(s), ${s.trigger_count} trigger(s), ${s.connection_count} connection(s). Node types checked against ${label}.`,
    '',
  ];
  if (findings.length === 0) {
    lines.push(
      'No findings: every node type exists, every node is reachable from a trigger, errors are handled and no secrets were found.',
    );
  }
  for (const sev of ['error', 'warning', 'info'] as const) {
    const group = findings.filter((f) => f.severity === sev);
    if (group.length === 0) continue;
    lines.push(`## ${sev === 'error' ? 'Errors (fix before running)' : sev === 'warning' ? 'Warnings' : 'Notes'}`, '');
    for (const f of group) lines.push(`- **${f.rule}**${f.node ? ` — ${f.node}` : ''}: ${f.message}. *Fix:* ${f.fix}.`);
    lines.push('');
  }
  lines.push('Static analysis only: the workflow was not executed and no credentials were tested.');
  return lines.join('\n');
}
