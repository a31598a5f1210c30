/**
 * The layer rules of eslint.config.mjs (issue 11 §3) refuse what they promise to refuse: a workflow file importing
 * an I/O module, an activity importing route code, domain code importing the database, an import cycle, and route code
 * reading the raw `ctx.params` (issue 27 §1).
 * `npm test` lints the tree itself; this checks that the rules would catch a violation, with ESLint's own API.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** Probes: a file path (relative to the repository root) and the code placed there. */
const PROBES = {
  workflowIo: ['workflows/probe.ts', "import { MongoClient } from 'mongodb';\nexport const c = MongoClient;\n"],
  workflowActivities: [
    'workflows/probe.ts',
    "import { createActivities } from '../activities';\nexport const a = createActivities;\n",
  ],
  workflowActivityTypes: [
    'workflows/probe.ts',
    "import type { Activities } from '../activities';\nexport type A = Activities;\n",
  ],
  activityRoutes: [
    'activities/probe.ts',
    "import { orderView } from '../src/routes/orders';\nexport const v = orderView;\n",
  ],
  activityClient: [
    'activities/probe.ts',
    "import { startDelivery } from '../src/temporal/webhooks';\nexport const s = startDelivery;\n",
  ],
  domainDb: ['src/domain/probe.ts', "import { connectDb } from '../db';\nexport const c = connectDb;\n"],
  domainFs: ['src/domain/probe.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n"],
  floating: ['src/probe.ts', 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n'],
  routeParams: [
    'src/routes/probe.ts',
    "import type { Context } from 'koa';\nexport const id = (ctx: Context): unknown => ctx.params.order_id;\n",
  ],
  routeInput: [
    'src/routes/probe.ts',
    'export const id = (input: { params: { order_id: string } }): string => input.params.order_id;\n',
  ],
} as const;

/**
 * The rule ids ESLint reports for every probe, from one child process: ESLint loads its flat config with a dynamic
 * import, which Jest's module system does not run without --experimental-vm-modules (jestjs/jest#9430).
 */
function lintProbes(): Record<keyof typeof PROBES, string[]> {
  const script = `
    import { ESLint } from 'eslint';
    const probes = JSON.parse(process.argv[1]);
    const eslint = new ESLint({
      cwd: process.cwd(),
      // The probes exist only in memory: type information for them comes from the default project.
      overrideConfig: {
        files: ['**/probe.ts'],
        languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['*/probe.ts', 'src/domain/probe.ts', 'src/routes/probe.ts'] } } },
      },
    });
    const out = {};
    for (const [name, [file, code]] of Object.entries(probes)) {
      const [result] = await eslint.lintText(code, { filePath: file });
      out[name] = result.messages.map((m) => m.ruleId ?? m.message);
    }
    console.log(JSON.stringify(out));`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(PROBES)], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (res.status !== 0) throw new Error(`eslint probe failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as Record<keyof typeof PROBES, string[]>;
}

describe('layer rules', () => {
  let hits: Record<keyof typeof PROBES, string[]>;
  beforeAll(() => {
    hits = lintProbes();
  }, 120_000);
  const RESTRICTED = '@typescript-eslint/no-restricted-imports';

  test('workflow code may not import an I/O module, nor activities except as types', () => {
    expect(hits.workflowIo).toContain(RESTRICTED);
    expect(hits.workflowActivities).toContain(RESTRICTED);
    expect(hits.workflowActivityTypes).not.toContain(RESTRICTED);
  });

  test('activities may not import routes or the Temporal client layer', () => {
    expect(hits.activityRoutes).toContain(RESTRICTED);
    expect(hits.activityClient).toContain(RESTRICTED);
  });

  test('domain code may not import the database or the file system', () => {
    expect(hits.domainDb).toContain(RESTRICTED);
    expect(hits.domainFs).toContain(RESTRICTED);
  });

  test('route code may not read ctx.params: handlers take the parsed input of their gate (issue 27 §1)', () => {
    expect(hits.routeParams).toContain('no-restricted-syntax');
    expect(hits.routeInput).not.toContain('no-restricted-syntax');
  });

  test('a floating promise is an error', () => {
    expect(hits.floating).toContain('@typescript-eslint/no-floating-promises');
  });
});
