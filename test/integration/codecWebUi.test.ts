/**
 * Issue 26 §1 Payloads encrypted at rest, checked in a browser (headless Chromium driving the real Temporal Web UI):
 *
 * - ui-server v2.55.0 (the Web UI of the cluster topology) configured with `codec.endpoint` = the API's `/codec` and
 *   `codec.includeCredentials: true`, over the Temporal dev server of the test run: an order's input is ciphertext
 *   (and the Web UI says the codec server refused) until the operator signs in at `/codec/login`, decoded (the buyer's
 *   e-mail address readable; the static summary and current details under User Metadata too) afterwards, ciphertext
 *   again after signing out.
 * - The dev server's own Web UI (v2.42.1, what `npm start` runs) started with `--ui-codec-endpoint`: that flag cannot
 *   turn `includeCredentials` on, so the operator, signed in, sets the browser's codec setting once ("Use my browser
 *   setting", the endpoint, "Include cross-origin credentials"), as docs/operators-encryption.md says; then decoded.
 *
 * Chromium as in test/integration/humanPages.test.ts; the ui-server binary that scripts/setup.sh builds
 * (TEMPORAL_UI_SERVER_PATH or the cache); without either this test fails, saying so. Screenshots and page texts go to
 * TEST_ARTIFACTS_DIR (default: a temporary folder, printed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { binaries, freePort } from '../../scripts/lib/servers';
import { clusterBinaries } from '../../scripts/lib/temporalCluster';
import { SEARCH_ATTRIBUTES, orderWorkflowId } from '../../workflows/shared';
import { OPERATOR_KEY, startStack, type Stack } from '../helpers/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const artifacts = process.env.TEST_ARTIFACTS_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'codec-web-ui-'));
const CODEC_FAILED = 'Codec Server could not connect';

const processes: ChildProcess[] = [];
const dirs: string[] = [];
const stacks: Stack[] = [];
let context: BrowserContext;

beforeAll(async () => {
  for (const [what, file, how] of [
    ['Chromium', CHROMIUM, 'CHROMIUM_PATH'],
    ['the Temporal ui-server', clusterBinaries().uiServer, 'TEMPORAL_UI_SERVER_PATH'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`No ${what} at ${file}: run scripts/setup.sh or set ${how}`);
  }
  mkdirSync(artifacts, { recursive: true });
  const profile = mkdtempSync(path.join(os.tmpdir(), 'codec-ui-chromium-'));
  dirs.push(profile);
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
}, 60_000);

afterAll(async () => {
  await context?.close();
  for (const p of processes) p.kill('SIGTERM');
  for (const s of stacks) await s.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  console.log(`codec Web UI screenshots: ${artifacts}`);
});

/** Polls `url` until it answers 2xx. @throws after `timeoutMs`. */
async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await fetch(url).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An API + worker encrypting payloads, whose codec server lets `uiUrl` in; and an order whose input names `email`. */
async function encryptedStackWithOrder(
  uiUrl: string,
  overrides: Record<string, string> = {},
): Promise<{ stack: Stack; orderId: string; email: string }> {
  const stack = await startStack({
    PAYLOAD_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    CODEC_CORS_ORIGINS: uiUrl,
    ...overrides,
  });
  stacks.push(stack);
  const email = `bob-${randomBytes(3).toString('hex')}@example.com`;
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'agent-web-ui',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: `HubSpot for ${email}` },
  });
  expect(created.status).toBe(201);
  return { stack, orderId: created.body.order_id as string, email };
}

/** The Input panel's text: from the `Input` heading to the `Result` heading. */
const inputPanel = (text: string): string => /\nInput\n([\s\S]*?)\nResult\n/.exec(text)?.[1] ?? '';

/**
 * Opens the order's workflow page in the Web UI at `uiUrl`, waits until the input is rendered and the page text
 * satisfies `ready`, saves a screenshot and the text as `shot`, and returns the text.
 */
async function orderPage(
  page: Page,
  uiUrl: string,
  orderId: string,
  shot: string,
  ready: (text: string) => boolean,
): Promise<string> {
  await page.goto(`${uiUrl}/namespaces/default/workflows/${orderWorkflowId(orderId)}`);
  const deadline = Date.now() + 30_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await page.locator('body').innerText();
    const input = inputPanel(text);
    if (input && !input.startsWith('Results will appear') && ready(text)) break;
    await page.waitForTimeout(250);
  }
  await page.screenshot({ path: path.join(artifacts, `${shot}.png`), fullPage: true });
  writeFileSync(path.join(artifacts, `${shot}.txt`), text);
  return text;
}

/** Signs in at the codec server's login page, as an operator does by hand. */
async function signIn(page: Page, apiUrl: string): Promise<void> {
  await page.goto(`${apiUrl}/codec/login`);
  await page.getByLabel('Operator key').fill(OPERATOR_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in to the codec server').waitFor();
}

/** Shown as stored (with or without its metadata, `binary/encrypted` in base64): a long base64 string. */
const CIPHERTEXT = /"[A-Za-z0-9+/=]{200,}"/;

test('ui-server 2.55.0 with codec.includeCredentials: ciphertext, decoded once signed in, ciphertext after signing out', async () => {
  const uiPort = await freePort();
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const { stack, orderId, email } = await encryptedStackWithOrder(uiUrl);
  // The Web UI as an operator deployment runs it: the codec server, with the browser's credentials (the session cookie).
  const uiRoot = mkdtempSync(path.join(os.tmpdir(), 'codec-ui-'));
  dirs.push(uiRoot);
  mkdirSync(path.join(uiRoot, 'config'));
  writeFileSync(
    path.join(uiRoot, 'config', 'test.yaml'),
    JSON.stringify({
      temporalGrpcAddress: stack.config.TEMPORAL_ADDRESS,
      host: '127.0.0.1',
      port: uiPort,
      enableUi: true,
      defaultNamespace: stack.config.TEMPORAL_NAMESPACE,
      auth: { enabled: false },
      codec: { endpoint: `${stack.url}/codec`, includeCredentials: true },
    }),
  );
  processes.push(
    spawn(clusterBinaries().uiServer, ['--root', uiRoot, '--config', 'config', '--env', 'test', 'start'], {
      stdio: 'ignore',
    }),
  );
  await waitForHttp(`${uiUrl}/api/v1/settings`);
  const page = await context.newPage();

  // The Web UI asked the codec server, got 401, says so and shows the payload as it is stored.
  const before = await orderPage(page, uiUrl, orderId, 'ui-server-1-before-sign-in', (t) => t.includes(CODEC_FAILED));
  expect(before).toContain(CODEC_FAILED);
  expect(before).not.toContain(email);
  expect(inputPanel(before)).toMatch(CIPHERTEXT);

  await signIn(page, stack.url);
  const after = await orderPage(page, uiUrl, orderId, 'ui-server-2-signed-in', (t) => t.includes(email));
  expect(after).not.toContain(CODEC_FAILED);
  expect(inputPanel(after)).toContain(`"orderId": "${orderId}"`);
  expect(inputPanel(after)).toContain(`"target_app": "HubSpot for ${email}"`);
  // The static summary and the current details (user metadata, a query) are payloads too: decoded as well. The Web UI
  // renders them as Markdown in sandboxed frames.
  await page.getByText('User Metadata', { exact: true }).first().dispatchEvent('click');
  const frameTexts = async () =>
    (
      await Promise.all(
        page.frames().map((f) =>
          f
            .locator('body')
            .innerText()
            .catch(() => ''),
        ),
      )
    ).join('\n');
  const metaDeadline = Date.now() + 20_000;
  let meta = '';
  while (Date.now() < metaDeadline) {
    meta = await frameTexts();
    if (meta.includes(`Order ${orderId}:`)) break;
    await page.waitForTimeout(250);
  }
  await page.screenshot({ path: path.join(artifacts, 'ui-server-2b-user-metadata.png'), fullPage: true });
  expect(meta).toContain(`Order ${orderId}: Workflow Automation (n8n) for $69.00`);
  expect(meta).not.toMatch(/[A-Za-z0-9+/=]{200,}/);

  await page.goto(`${stack.url}/codec/login`);
  await page.evaluate(async () => {
    await fetch('/codec/logout', { method: 'POST' });
  });
  const out = await orderPage(page, uiUrl, orderId, 'ui-server-3-signed-out', (t) => t.includes(CODEC_FAILED));
  expect(out).toContain(CODEC_FAILED);
  expect(out).not.toContain(email);
  expect(inputPanel(out)).toMatch(CIPHERTEXT);
  await page.close();
}, 120_000);

test("the dev server's Web UI (npm start): signed in, the browser's codec setting with credentials decodes", async () => {
  const [port, uiPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  // As `npm start` would run it: the dev server's Web UI pointed at the API's codec server.
  processes.push(
    spawn(
      binaries().temporal,
      [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--ui-port',
        String(uiPort),
        '--ui-codec-endpoint',
        `${apiUrl}/codec`,
        '--log-level',
        'error',
        ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
      ],
      { stdio: 'ignore' },
    ),
  );
  await waitForHttp(`${uiUrl}/api/v1/settings`);
  const settings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { Codec: Record<string, unknown> };
  expect(settings.Codec).toMatchObject({ Endpoint: `${apiUrl}/codec`, IncludeCredentials: false });
  const { orderId, email } = await encryptedStackWithOrder(uiUrl, {
    PORT: String(apiPort),
    TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    TEMPORAL_NAMESPACE: 'default',
  });
  const page = await context.newPage();
  await signIn(page, apiUrl);

  // The cluster-level setting sends no credentials: refused although signed in.
  const clusterLevel = await orderPage(page, uiUrl, orderId, 'dev-ui-1-cluster-setting', (t) =>
    t.includes(CODEC_FAILED),
  );
  expect(clusterLevel).toContain(CODEC_FAILED);
  expect(clusterLevel).not.toContain(email);

  // The operator's one-time browser setting (the dialog behind the codec status button).
  await page.getByTestId('data-encoder-status-error').click();
  await page.getByTestId('override-accordion').click();
  await page.getByText('Use my browser setting and ignore Cluster-level setting.').click();
  await page.getByTestId('data-encoder-endpoint-input').fill(`${apiUrl}/codec`);
  // The sticky top bar overlaps the dialog in a headless viewport: the controls are clicked in the page.
  const include = page.locator('#pass-access-credentials');
  await include.dispatchEvent('click');
  expect(await include.isChecked()).toBe(true);
  await page.getByTestId('confirm-data-encoder-button').dispatchEvent('click');

  const decoded = await orderPage(page, uiUrl, orderId, 'dev-ui-2-browser-setting', (t) => t.includes(email));
  expect(decoded).not.toContain(CODEC_FAILED);
  expect(inputPanel(decoded)).toContain(`"target_app": "HubSpot for ${email}"`);
  await page.close();
}, 120_000);
