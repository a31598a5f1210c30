/**
 * Issue 26 §1 Payloads encrypted at rest, checked in a browser (headless Chromium driving the real Temporal Web UI):
 *
 * - ui-server v2.55.0 (the Web UI `npm start` and the cluster topology run, started by scripts/lib/webUi.ts) with `codec.endpoint` = the API's `/codec` and
 *   `codec.includeCredentials: true`, over the Temporal dev server of the test run: an order's input is ciphertext
 *   (and the Web UI says the codec server refused) until the operator signs in at `/codec/login`, decoded (the buyer's
 *   e-mail address readable; the static summary and current details under User Metadata too) afterwards, ciphertext
 *   again after signing out.
 * - The dev server's own Web UI (v2.42.1, what `npm start` ran before issue 39) started with `--ui-codec-endpoint`: that flag cannot
 *   turn `includeCredentials` on, so the operator, signed in, sets the browser's codec setting once ("Use my browser
 *   setting", the endpoint, "Include cross-origin credentials"), as docs/operators-encryption.md says; then decoded.
 *
 * Chromium, the ui-server and the artifacts folder as in test/helpers/webUi.ts (shared with
 * test/integration/webUi.test.ts): without Chromium or the ui-server binary this test fails, saying so. Screenshots and
 * page texts go to TEST_ARTIFACTS_DIR (default `test-artifacts/web-ui/`, git-ignored).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { binaries, freePort } from '../../scripts/lib/servers';
import { SEARCH_ATTRIBUTES, orderWorkflowId } from '../../workflows/shared';
import type { Stack } from '../helpers/stack';
import {
  ARTIFACTS,
  CIPHERTEXT,
  CODEC_FAILED,
  capture,
  openWebUiFixture,
  signIn,
  signOut,
  waitForHttp,
  type WebUiFixture,
} from '../helpers/webUi';

let fx: WebUiFixture;

beforeAll(async () => {
  fx = await openWebUiFixture();
}, 60_000);

afterAll(async () => {
  await fx?.close();
  console.log(`codec Web UI screenshots: ${ARTIFACTS}`);
});

/** An API + worker encrypting payloads, whose codec server lets `uiUrl` in; and an order whose input names `email`. */
async function encryptedStackWithOrder(
  uiUrl: string,
  overrides: Record<string, string> = {},
): Promise<{ stack: Stack; orderId: string; email: string }> {
  const stack = await fx.encryptedStack([uiUrl], overrides);
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
  return capture(page, shot, (text) => {
    const input = inputPanel(text);
    return input !== '' && !input.startsWith('Results will appear') && ready(text);
  });
}

test('the Web UI npm start runs (ui-server 2.55.0, codec.includeCredentials): signing in is the only step', async () => {
  const uiPort = await freePort();
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const { stack, orderId, email } = await encryptedStackWithOrder(uiUrl);
  // The Web UI as an operator deployment runs it: the codec server, with the browser's credentials (the session cookie).
  await fx.uiServer({
    temporalAddress: stack.config.TEMPORAL_ADDRESS,
    namespace: stack.config.TEMPORAL_NAMESPACE,
    codecEndpoint: `${stack.url}/codec`,
    port: uiPort,
  });
  const settings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { Codec: Record<string, unknown> };
  expect(settings.Codec).toMatchObject({ Endpoint: `${stack.url}/codec`, IncludeCredentials: true });
  const page = await fx.context.newPage();

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
  const meta = await capture(page, 'ui-server-2b-user-metadata', (t) => t.includes(`Order ${orderId}:`), 20_000);
  expect(meta).toContain(`Order ${orderId}: Workflow Automation (n8n) for $69.00`);
  expect(meta).not.toMatch(/[A-Za-z0-9+/=]{200,}/);

  await signOut(page, stack.url);
  const out = await orderPage(page, uiUrl, orderId, 'ui-server-3-signed-out', (t) => t.includes(CODEC_FAILED));
  expect(out).toContain(CODEC_FAILED);
  expect(out).not.toContain(email);
  expect(inputPanel(out)).toMatch(CIPHERTEXT);
  await page.close();
}, 120_000);

test("the dev server's own Web UI: signed in, the browser's codec setting with credentials decodes", async () => {
  const [port, uiPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  // As `npm start` would run it: the dev server's Web UI pointed at the API's codec server.
  fx.keep(
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
  const page = await fx.context.newPage();
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
