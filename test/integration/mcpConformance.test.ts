/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, run with the Node 22 that
 * scripts/setup.sh installs in the cache) against the real `/mcp` of a test stack, at both revisions (issue 12 §1).
 * The stack adds the suite's diagnostic fixtures (MCP_CONFORMANCE_FIXTURES, test only). The suite exits non-zero on
 * any failure or warning not listed in test/fixtures/mcp-conformance/expected-failures-<revision>.yml and on any
 * listed entry that passes; the test also checks that exactly the listed entries failed and that the run was complete.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheDir } from '../../scripts/lib/servers';
import { startStack, type Stack } from '../helpers/stack';

const PREFIX = path.join(cacheDir(), 'node22', 'node_modules');
const NODE22 = path.join(PREFIX, '.bin', 'node');
const SUITE = path.join(PREFIX, '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'mcp-conformance');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    MCP_CONFORMANCE_FIXTURES: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_BURST_PER_SECOND: '0',
    RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0',
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Runs the suite; resolves with its exit code, output and results folder. */
function runSuite(
  revision: string,
  expectedFailures: string,
): Promise<{ code: number | null; output: string; results: string }> {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-conformance-${revision}-`));
  const args = [
    SUITE,
    'server',
    '--url',
    `${stack.url}/mcp`,
    '--requirements',
    revision,
    '--expected-failures',
    expectedFailures,
    '-o',
    results,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, args, { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, results });
    });
  });
}

/** Entries of a baseline file (`server:` list): `scenario` or `scenario:check-id`. */
function baseline(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(/^\s+-\s+([a-z0-9:-]+)\s*$/gm)].map((m) => m[1]!);
}

/**
 * What failed or warned (the suite counts both against a baseline), in baseline terms: `scenario` when a listed
 * scenario failed, else `scenario:check-id`; from the results folder (`server-<scenario>-<timestamp>/checks.json`).
 */
function failures(results: string, listed: string[]): string[] {
  const out = new Set<string>();
  for (const dir of fs.readdirSync(results)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    const checks = JSON.parse(fs.readFileSync(path.join(results, dir, 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
    }[];
    for (const c of checks)
      if (c.status === 'FAILURE' || c.status === 'WARNING')
        out.add(listed.includes(scenario) ? scenario : `${scenario}:${c.id}`);
  }
  return [...out].sort();
}

test('setup.sh installed Node 22 and the suite', () => {
  expect(fs.existsSync(NODE22) && fs.existsSync(SUITE)).toBe(true);
});

describe.each([
  // Minimum passed checks: a run that skipped scenarios would fall below it.
  { revision: '2025-11-25', minPassed: 60 },
  { revision: '2026-07-28', minPassed: 180 },
])('conformance suite at $revision', ({ revision, minPassed }) => {
  test('no unexpected failure, and exactly the listed scenarios fail', async () => {
    const file = path.join(FIXTURES, `expected-failures-${revision}.yml`);
    const { code, output, results } = await runSuite(revision, file);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(output);
    console.log(`MCP conformance ${revision}: ${total?.[0] ?? 'no summary'}`);
    if (code !== 0) console.log(output.slice(output.indexOf('=== SUMMARY')));
    expect(code).toBe(0);
    expect(Number(total?.[1] ?? 0)).toBeGreaterThanOrEqual(minPassed);
    const listed = baseline(file);
    expect(failures(results, listed)).toEqual([...listed].sort());
  }, 250_000);
});
