/**
 * Regenerates `src/products/micro/n8n-node-types.json`, the snapshot of node types that the
 * `n8n-nodes-base` package declares, against which micro-catalogue recipes are validated
 * (issue 3 §3, seed §2.12 `validated`).
 *
 * `npx tsx scripts/n8n-node-types-snapshot.ts [version]` runs `npm pack n8n-nodes-base@<version>`
 * into a temporary directory (the package is never a project dependency), extracts
 * `package/dist/types/nodes.json` (an array of node descriptions; versioned nodes appear once per
 * version group) and writes one compact entry per node name:
 * `{name, type, displayName, trigger, hidden?, versions, groups}` where each group lists the versions
 * it covers and the option values of its selector parameters (`operations` as `resource:operation`
 * or `operation`, and for trigger nodes `events`: the static values of their event-like options such as
 * `event`, `events`, `topic`, `triggerOn` or `updates`).
 * The file is data committed in the repository; regenerate it only when bumping the pinned version.
 *
 * `npx tsx scripts/n8n-node-types-snapshot.ts --check [version]` writes nothing: it downloads the
 * same tarball and checks every micro-catalogue recipe node against the package's full node
 * descriptions (parameter names, static option values, resource-locator modes, collection and
 * fixed-collection keys, required parameters under the node's display conditions). It exits 1 and
 * lists the problems if any node does not match. The runtime only needs the committed snapshot.
 *
 * `npx tsx scripts/n8n-node-types-snapshot.ts --descriptions [version]` writes
 * `test/fixtures/n8n-node-descriptions.json`: the full descriptions (every version group) of the node types the
 * delivered workflows use ({@link DESCRIBED}), from which test/unit/n8nWorkflows.test.ts builds n8n-workflow's
 * `INodeTypes` (issue 38 §3). n8n-nodes-base itself is not a dependency: it pulls isolated-vm@7, which needs
 * Node 24 and a native build (docs/decisions/0033).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The pinned package version (npm `latest` when the snapshot was taken). */
const PINNED_VERSION = '2.41.2';
const PACKAGE = 'n8n-nodes-base';
const OUT = path.resolve(__dirname, '..', 'src', 'domain', 'micro', 'n8n-node-types.json');
const DESCRIPTIONS_OUT = path.resolve(__dirname, '..', 'test', 'fixtures', 'n8n-node-descriptions.json');
/** Node types of every delivered workflow (automation-wf, bundles, x402 templates, agent starter), and a margin. */
const DESCRIBED = [
  'acuitySchedulingTrigger',
  'aggregate',
  'airtable',
  'calendlyTrigger',
  'code',
  'crypto',
  'discord',
  'emailSend',
  'errorTrigger',
  'filter',
  'formTrigger',
  'freshdesk',
  'function',
  'functionItem',
  'github',
  'githubTrigger',
  'gmail',
  'gmailTrigger',
  'googleCalendar',
  'googleSheets',
  'httpRequest',
  'hubspot',
  'hubspotTrigger',
  'if',
  'intercom',
  'jira',
  'jotFormTrigger',
  'mailchimp',
  'merge',
  'microsoftTeams',
  'noOp',
  'notion',
  'pagerDuty',
  'pipedrive',
  'postgres',
  'quickbooks',
  'respondToWebhook',
  'rssFeedRead',
  'salesforce',
  'scheduleTrigger',
  'set',
  'shopify',
  'shopifyTrigger',
  'slack',
  'splitInBatches',
  'stickyNote',
  'stopAndError',
  'stripe',
  'stripeTrigger',
  'summarize',
  'switch',
  'telegram',
  'trello',
  'twilio',
  'typeformTrigger',
  'wait',
  'webhook',
  'whatsApp',
  'wooCommerce',
  'wooCommerceTrigger',
  'xero',
  'zendesk',
  'zendeskTrigger',
];
/** Option parameters whose values identify what a trigger node listens to. */
const EVENT_PARAMS = new Set([
  'event',
  'events',
  'topic',
  'triggerOn',
  'updates',
  'trigger',
  'actions',
  'resource',
  'resources',
  'firesOn',
]);

interface RawOption {
  name?: string;
  value?: unknown;
  type?: string;
  /** fixedCollection options carry their fields in `values`. */
  values?: RawProperty[];
}
interface RawProperty {
  name: string;
  type: string;
  default?: unknown;
  required?: boolean;
  options?: (RawOption & Partial<RawProperty>)[];
  modes?: { name: string }[];
  typeOptions?: { loadOptionsMethod?: string; loadOptions?: unknown; multipleValues?: boolean };
  displayOptions?: { show?: Record<string, unknown[]>; hide?: Record<string, unknown[]> };
}
interface RawNode {
  name: string;
  displayName: string;
  group: string[];
  version: number | number[];
  hidden?: boolean;
  properties?: RawProperty[];
}

interface Group {
  versions: number[];
  operations?: string[];
  events?: string[];
}
interface Entry {
  name: string;
  type: string;
  displayName: string;
  trigger: boolean;
  hidden?: true;
  versions: number[];
  groups: Group[];
}

function optionValues(p: RawProperty): string[] {
  return (p.options ?? []).map((o) => o.value).filter((v): v is string => typeof v === 'string');
}

function groupOf(node: RawNode): Group {
  const isTrigger = node.group.includes('trigger');
  const operations = new Set<string>();
  const events = new Set<string>();
  for (const p of node.properties ?? []) {
    if (p.type !== 'options' && p.type !== 'multiOptions') continue;
    if (p.name === 'operation') {
      const resources = (p.displayOptions?.show?.resource ?? []).filter((r): r is string => typeof r === 'string');
      for (const op of optionValues(p)) {
        if (resources.length === 0) operations.add(op);
        for (const r of resources) operations.add(`${r}:${op}`);
      }
    } else if (isTrigger && EVENT_PARAMS.has(p.name)) {
      for (const ev of optionValues(p)) events.add(ev);
    }
  }
  const group: Group = { versions: [node.version].flat().sort((a, b) => a - b) };
  if (operations.size > 0) group.operations = [...operations].sort();
  if (events.size > 0) group.events = [...events].sort();
  return group;
}

/** Downloads the package tarball with npm and returns its parsed nodes.json and npm metadata. */
function download(
  version: string,
  dir: string,
): { raw: RawNode[]; info: { filename: string; version: string; integrity: string } } {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', `${PACKAGE}@${version}`, '--json', '--pack-destination', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      // --json lists every file of the tarball (about 1 MB of text).
      maxBuffer: 64 * 1024 * 1024,
    }),
  ) as { filename: string; version: string; integrity: string }[];
  const info = packed[0];
  if (!info) throw new Error('npm pack printed no package');
  execFileSync('tar', ['-xzf', path.join(dir, info.filename), '-C', dir, 'package/dist/types/nodes.json']);
  const raw = JSON.parse(readFileSync(path.join(dir, 'package', 'dist', 'types', 'nodes.json'), 'utf8')) as RawNode[];
  if (!Array.isArray(raw) || raw.length === 0) throw new Error('dist/types/nodes.json is not a non-empty array');
  return { raw, info };
}

// ---------------------------------------------------------------------------------------------
// --check: recipe node parameters against the full node descriptions
// ---------------------------------------------------------------------------------------------

type Params = Record<string, unknown>;

function isExpression(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('=');
}

/** Evaluates one displayOptions condition value (a literal or `{_cnd: {...}}`) against a value. */
function conditionHolds(cond: unknown, value: unknown): boolean {
  if (cond && typeof cond === 'object' && '_cnd' in cond) {
    const c = (cond as { _cnd: Record<string, unknown> })._cnd;
    return Object.entries(c).every(([op, arg]) => {
      const n = value as number;
      switch (op) {
        case 'eq':
          return value === arg;
        case 'not':
          return value !== arg;
        case 'gte':
          return n >= (arg as number);
        case 'lte':
          return n <= (arg as number);
        case 'gt':
          return n > (arg as number);
        case 'lt':
          return n < (arg as number);
        case 'between':
          return n >= (arg as { from: number }).from && n <= (arg as { to: number }).to;
        case 'includes':
          return typeof value === 'string' && value.includes(String(arg));
        case 'regex':
          return typeof value === 'string' && new RegExp(String(arg)).test(value);
        case 'exists':
          return value !== undefined && value !== '';
        default:
          return true;
      }
    });
  }
  return value === cond;
}

/** Whether a property is displayed given the sibling values (`scope`), the root values and the version. */
function shown(p: RawProperty, scope: Params, root: Params, version: number): boolean {
  const valueOf = (key: string): unknown =>
    key === '@version' ? version : key.startsWith('/') ? root[key.slice(1)] : scope[key];
  const show = p.displayOptions?.show ?? {};
  const hide = p.displayOptions?.hide ?? {};
  for (const [key, conds] of Object.entries(show)) {
    const v = valueOf(key);
    const values = Array.isArray(v) ? v : [v];
    if (!conds.some((c) => values.some((x) => conditionHolds(c, x)))) return false;
  }
  for (const [key, conds] of Object.entries(hide)) {
    const v = valueOf(key);
    const values = Array.isArray(v) ? v : [v];
    if (conds.some((c) => values.some((x) => conditionHolds(c, x)))) return false;
  }
  return true;
}

/** Values with defaults filled in for the properties that are not set. */
function withDefaults(props: RawProperty[], values: Params): Params {
  const out: Params = {};
  for (const p of props) if (p.default !== undefined && !(p.name in out)) out[p.name] = p.default;
  return { ...out, ...values };
}

/** Checks a parameter object against a list of property descriptions; returns problems with paths. */
function checkLevel(
  props: RawProperty[],
  values: Params,
  root: Params,
  version: number,
  where: string,
  checkRequired: boolean,
): string[] {
  const problems: string[] = [];
  const scope = withDefaults(props, values);
  const rootScope = root === values ? scope : root;
  for (const [key, value] of Object.entries(values)) {
    const named = props.filter((p) => p.name === key);
    if (named.length === 0) {
      problems.push(`${where}.${key}: not a parameter of this node/version`);
      continue;
    }
    const visible = named.filter((p) => shown(p, scope, rootScope, version));
    if (visible.length === 0) {
      problems.push(`${where}.${key}: not displayed for these settings`);
      continue;
    }
    const errors = visible.map((p) => checkValue(p, value, rootScope, version, `${where}.${key}`));
    if (!errors.some((e) => e.length === 0)) problems.push(...(errors[0] ?? []));
  }
  if (checkRequired) {
    for (const p of props) {
      if (!p.required || p.name in values || p.type === 'notice' || p.type === 'hidden') continue;
      if (!shown(p, scope, rootScope, version)) continue;
      if (
        p.default !== undefined &&
        p.default !== '' &&
        !(
          typeof p.default === 'object' &&
          p.default !== null &&
          'value' in p.default &&
          (p.default as { value: unknown }).value === ''
        )
      )
        continue;
      problems.push(`${where}.${p.name}: required parameter missing`);
    }
  }
  return problems;
}

function checkValue(p: RawProperty, value: unknown, root: Params, version: number, where: string): string[] {
  if (isExpression(value)) return [];
  if (
    p.typeOptions?.multipleValues &&
    Array.isArray(value) &&
    p.type !== 'fixedCollection' &&
    p.type !== 'multiOptions'
  ) {
    const single: RawProperty = { ...p, typeOptions: { ...p.typeOptions, multipleValues: false } };
    return value.flatMap((v, i) => checkValue(single, v, root, version, `${where}[${i}]`));
  }
  const dynamic = p.typeOptions?.loadOptionsMethod !== undefined || p.typeOptions?.loadOptions !== undefined;
  const optionValues = (p.options ?? []).map((o) => o.value);
  switch (p.type) {
    case 'options':
      if (!dynamic && optionValues.length > 0 && !optionValues.includes(value))
        return [`${where}: ${JSON.stringify(value)} is not one of ${JSON.stringify(optionValues)}`];
      return [];
    case 'multiOptions':
      if (!Array.isArray(value)) return [`${where}: expected an array`];
      if (!dynamic && optionValues.length > 0)
        return value
          .filter((v) => !isExpression(v) && !optionValues.includes(v))
          .map((v) => `${where}: ${JSON.stringify(v)} is not one of the options`);
      return [];
    case 'resourceLocator': {
      const v = value as { __rl?: unknown; mode?: unknown };
      if (!v || typeof v !== 'object' || v.__rl !== true)
        return [`${where}: expected a resource locator {__rl, mode, value}`];
      const modes = (p.modes ?? []).map((m) => m.name);
      if (modes.length > 0 && !modes.includes(String(v.mode)))
        return [`${where}: mode ${String(v.mode)} is not one of ${modes.join(', ')}`];
      return [];
    }
    case 'collection': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${where}: expected an object`];
      return checkLevel((p.options ?? []) as RawProperty[], value as Params, root, version, where, false);
    }
    case 'fixedCollection': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${where}: expected an object`];
      const problems: string[] = [];
      for (const [group, entries] of Object.entries(value as Params)) {
        const option = (p.options ?? []).find((o) => o.name === group);
        if (!option) {
          problems.push(`${where}.${group}: not an option of this collection`);
          continue;
        }
        const list = Array.isArray(entries) ? entries : [entries];
        list.forEach((entry, i) =>
          problems.push(
            ...checkLevel(option.values ?? [], entry as Params, root, version, `${where}.${group}[${i}]`, true),
          ),
        );
      }
      return problems;
    }
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${where}: expected a boolean`];
    case 'number':
      return typeof value === 'number' ? [] : [`${where}: expected a number`];
    case 'string':
      return typeof value === 'string' ? [] : [`${where}: expected a string`];
    default:
      return [];
  }
}

async function check(raw: RawNode[], label: string): Promise<number> {
  // Imported here so that regenerating the snapshot never depends on the catalogue code.
  const { MICRO_ITEMS, microItemGoods } = await import('../src/products/micro/index.js');
  let problems = 0;
  let nodes = 0;
  for (const item of MICRO_ITEMS.filter((i) => i.kind === 'recipe')) {
    const workflow = microItemGoods(item) as {
      nodes: { name: string; type: string; typeVersion: number; parameters: Params }[];
    };
    for (const node of workflow.nodes) {
      nodes++;
      const name = node.type.replace(`${PACKAGE}.`, '');
      const entry = raw.find((n) => n.name === name && [n.version].flat().includes(node.typeVersion));
      const found = entry
        ? checkLevel(
            entry.properties ?? [],
            node.parameters,
            node.parameters,
            node.typeVersion,
            `${item.id}/${node.name}`,
            true,
          )
        : [`${item.id}/${node.name}: ${node.type}@${node.typeVersion} not in ${label}`];
      for (const p of found) console.log(p);
      problems += found.length;
    }
  }
  console.log(
    `checked ${nodes} nodes of ${MICRO_ITEMS.filter((i) => i.kind === 'recipe').length} recipes against ${label}: ${problems} problem(s)`,
  );
  return problems;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const checkOnly = args.includes('--check');
  const descriptions = args.includes('--descriptions');
  const version = args.find((a) => !a.startsWith('--')) ?? PINNED_VERSION;
  const dir = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-base-'));
  try {
    const { raw, info } = download(version, dir);
    if (checkOnly) {
      if ((await check(raw, `${PACKAGE}@${info.version}`)) > 0) process.exitCode = 1;
      return;
    }
    if (descriptions) {
      const wanted = new Set(DESCRIBED);
      const kept = raw
        .filter((n) => wanted.has(n.name))
        .map((n) => ({ ...n, name: `${PACKAGE}.${n.name}`, iconUrl: undefined, codex: undefined }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const missing = DESCRIBED.filter((d) => !kept.some((k) => k.name === `${PACKAGE}.${d}`));
      if (missing.length > 0) throw new Error(`not in ${PACKAGE}@${info.version}: ${missing.join(', ')}`);
      const header = {
        package: PACKAGE,
        version: info.version,
        integrity: info.integrity,
        source: 'dist/types/nodes.json',
      };
      writeFileSync(DESCRIPTIONS_OUT, `${JSON.stringify({ ...header, nodes: kept })}\n`);
      console.log(`wrote ${path.relative(process.cwd(), DESCRIPTIONS_OUT)}: ${kept.length} descriptions`);
      return;
    }
    const byName = new Map<string, RawNode[]>();
    for (const node of raw) {
      if (typeof node.name !== 'string' || node.version === undefined)
        throw new Error(`unexpected node entry ${JSON.stringify(node).slice(0, 120)}`);
      byName.set(node.name, [...(byName.get(node.name) ?? []), node]);
    }
    const nodes: Entry[] = [...byName.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, entries]) => {
        const groups = entries.map(groupOf).sort((a, b) => (a.versions[0] ?? 0) - (b.versions[0] ?? 0));
        // The newest group names the node as the editor shows it.
        const newest = entries.reduce((best, e) =>
          Math.max(...[e.version].flat()) > Math.max(...[best.version].flat()) ? e : best,
        );
        const entry: Entry = {
          name,
          type: `${PACKAGE}.${name}`,
          displayName: newest.displayName,
          trigger: entries.some((e) => e.group.includes('trigger')),
          versions: [...new Set(groups.flatMap((g) => g.versions))].sort((a, b) => a - b),
          groups,
        };
        if (entries.every((e) => e.hidden === true)) entry.hidden = true;
        return entry;
      });

    // One node per line keeps the committed file small and its diffs readable.
    const header = {
      package: PACKAGE,
      version: info.version,
      integrity: info.integrity,
      source: 'dist/types/nodes.json',
      node_count: nodes.length,
    };
    const body = nodes.map((n) => `    ${JSON.stringify(n)}`).join(',\n');
    const head = JSON.stringify(header, null, 2).replace(/\n}$/, '');
    writeFileSync(OUT, `${head},\n  "nodes": [\n${body}\n  ]\n}\n`);
    console.log(
      `wrote ${path.relative(process.cwd(), OUT)}: ${PACKAGE}@${info.version}, ${nodes.length} node types (${nodes.filter((n) => n.trigger).length} triggers)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
