/**
 * schemathesis with the copied ACP 2026-04-17 OpenAPI documents (test/fixtures/acp-2026-04-17, unchanged) against the
 * running service, as an agent platform would try it (issue 37, "How it will be checked"): generated requests to the
 * checkout operations with a platform's API key (a platform without a signing key) and `API-Version: 2026-04-17`, and
 * to the delegated payment with an agent key; no server error, every status documented, every body within the
 * spec's schema. The session operations run on real sessions (their ids in the run's configuration), so requests
 * reach the sessions' logic and not only a 404. Where the spec itself is wrong, docs/agent-checkouts.md lists the gap
 * and a `filter_failure` hook drops exactly those failures (../helpers/acpSchemathesisHooks.py).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cacheDir } from '../../scripts/lib/servers';
import { ACP_FIXTURES, ACP_VERSION, issuePlatform } from '../helpers/acpSpec';
import { fundedAgent, startStack, type Stack } from '../helpers/stack';

const SCHEMATHESIS = process.env.SCHEMATHESIS_PATH ?? path.join(cacheDir(), 'schemathesis', 'bin', 'schemathesis');
/** Examples per operation and phase; SCHEMATHESIS_MAX_EXAMPLES raises it for a longer run. */
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 25);
const HOOKS = path.join(__dirname, '..', 'helpers', 'acpSchemathesisHooks.py');

let stack: Stack;
let platformKey: string;
let agentKey: string;
let config: string;
beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0' });
  platformKey = await issuePlatform(stack, 'schemathesis-platform');
  agentKey = await fundedAgent(stack, 'acp-schemathesis-agent', 1000);
  // A real session per operation on a session: read and updated, completed (with generated payment data), canceled.
  const session = async (n: number) => {
    const res = await stack.call(
      'POST',
      '/checkout_sessions',
      {
        line_items: [{ id: 'automation-wf' }],
        currency: 'usd',
        capabilities: {},
        metadata: { inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' } },
      },
      {
        authorization: `Bearer ${platformKey}`,
        'api-version': ACP_VERSION,
        'idempotency-key': `schemathesis-session-${n}`,
      },
    );
    if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  const [read, complete, cancel] = [await session(1), await session(2), await session(3)];
  const op = (id: string, sessionId: string) =>
    `[[operations]]\ninclude-operation-id = "${id}"\nparameters = { checkout_session_id = "${sessionId}" }\n`;
  config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-schemathesis-config-')), 'schemathesis.toml');
  fs.writeFileSync(
    config,
    [
      op('getCheckoutSession', read),
      op('updateCheckoutSession', read),
      op('completeCheckoutSession', complete),
      op('cancelCheckoutSession', cancel),
    ].join('\n'),
  );
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Runs schemathesis; resolves with its exit code and output. */
function run(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1', SCHEMATHESIS_HOOKS: HOOKS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** One run over `spec` with `credential`; the summary's figures, or the whole output on failure. */
async function schemathesis(spec: string, credential: string, maxTime: string) {
  const report = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-schemathesis-'));
  const { code, output } = await run(
    [
      '--config-file',
      config,
      'run',
      path.join(ACP_FIXTURES, spec),
      '--url',
      stack.url,
      '--checks',
      'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
      '--phases',
      'examples,coverage,fuzzing',
      '--max-examples',
      String(MAX_EXAMPLES),
      // One worker: see schemathesis.test.ts (a CPython 3.11 ast race inside hypothesis).
      '--workers',
      '1',
      '--max-time',
      maxTime,
      '--request-timeout',
      '20',
      '--seed',
      '1',
      '--suppress-health-check',
      'all',
      '-H',
      `Authorization: Bearer ${credential}`,
      '-H',
      `API-Version: ${ACP_VERSION}`,
      '-H',
      'Content-Type: application/json',
      '--report',
      'junit',
      '--report-dir',
      report,
    ],
    200_000,
  );
  if (code !== 0) console.log(output);
  else
    console.log(
      `schemathesis ${spec}: ${output.match(/\d+ generated[^\n]*/)?.[0] ?? 'no summary'}; ${output.match(/Tested: \d+/)?.[0] ?? ''} operations; ${output.match(/Filtered: \d+/)?.[0] ?? 'Filtered: 0'} (spec gaps)`,
    );
  return { code, output };
}

test('the ACP checkout OpenAPI: no server error, every response documented and within its schema', async () => {
  const { code, output } = await schemathesis(
    'openapi.agentic_checkout.yaml',
    platformKey,
    process.env.SCHEMATHESIS_MAX_TIME ?? '45',
  );
  expect({
    code,
    failures: output.match(/^\S.*(Server error|Undocumented|Response violates schema|content type).*$/gim) ?? [],
  }).toEqual({ code: 0, failures: [] });
  expect(output).toMatch(/Tested: 5\b/);
  // The session operations ran on the real sessions, not on 404s only.
  expect(output).not.toMatch(/repeatedly returned 404/);
  expect(Number(output.match(/(\d+) generated/)?.[1] ?? 0)).toBeGreaterThan(100);
}, 240_000);

test('the ACP delegate_payment OpenAPI (an agent key: the wallet is the instrument): no server error, every response documented', async () => {
  const { code, output } = await schemathesis('openapi.delegate_payment.yaml', agentKey, '15');
  expect({
    code,
    failures: output.match(/^\S.*(Server error|Undocumented|Response violates schema|content type).*$/gim) ?? [],
  }).toEqual({ code: 0, failures: [] });
  expect(output).toMatch(/Tested: 1\b/);
}, 240_000);
