/**
 * Shared by the browser tests of the Temporal Web UI (issue 26 §1: test/integration/codecWebUi.test.ts,
 * test/integration/webUi.test.ts): headless Chromium (as test/integration/humanPages.test.ts runs it), the ui-server
 * binary that scripts/setup.sh builds (v2.55.0, the Web UI of the cluster topology) started over the test run's
 * Temporal server with or without the codec server, an API + worker encrypting payloads, the codec server's sign-in,
 * and page texts with full-page screenshots kept as test artifacts.
 *
 * Artifacts go to TEST_ARTIFACTS_DIR, default `test-artifacts/web-ui/` under the repository (git-ignored).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../scripts/lib/servers';
import { clusterBinaries } from '../../scripts/lib/temporalCluster';
import { startWebUi } from '../../scripts/lib/webUi';
import type { TrackedChild } from '../../scripts/lib/servers';
import { OPERATOR_KEY, startStack, type Stack } from './stack';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];

/** Where screenshots and page texts are kept. */
export const ARTIFACTS =
  process.env.TEST_ARTIFACTS_DIR ?? path.resolve(__dirname, '..', '..', 'test-artifacts', 'web-ui');

/** What the Web UI says when the codec server refuses (no session) or cannot be reached. */
export const CODEC_FAILED = 'Codec Server could not connect';

/** A payload shown as stored (with or without its metadata, `binary/encrypted` in base64): a long base64 string. */
export const CIPHERTEXT = /"[A-Za-z0-9+/=]{200,}"/;

/** Processes, folders and stacks a test file started; {@link WebUiFixture.close} ends them. */
export interface WebUiFixture {
  context: BrowserContext;
  /** Starts an API + worker encrypting payloads, whose codec server lets the origins `uiUrls` in. */
  encryptedStack(uiUrls: readonly string[], overrides?: Record<string, string>): Promise<Stack>;
  /** Starts the ui-server over `temporalAddress`; with `codecEndpoint`, the codec server with the browser's cookie. */
  uiServer(opts: {
    temporalAddress: string;
    namespace: string;
    codecEndpoint?: string;
    port?: number;
  }): Promise<string>;
  /** Keeps `child` to be ended by {@link close}. */
  keep(child: ChildProcess): void;
  close(): Promise<void>;
}

/** Checks Chromium and the ui-server are there (failing, not skipping, without them) and opens a browser. */
export async function openWebUiFixture(): Promise<WebUiFixture> {
  for (const [what, file, how] of [
    ['Chromium', CHROMIUM, 'CHROMIUM_PATH'],
    ['the Temporal ui-server', clusterBinaries().uiServer, 'TEMPORAL_UI_SERVER_PATH'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`No ${what} at ${file}: run scripts/setup.sh or set ${how}`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const processes: ChildProcess[] = [];
  const dirs: string[] = [];
  const stacks: Stack[] = [];
  const uis: TrackedChild[] = [];
  const profile = mkdtempSync(path.join(os.tmpdir(), 'web-ui-chromium-'));
  dirs.push(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    // Tall enough for a full-page screenshot to hold a workflow page's timeline (the Web UI scrolls inside its layout).
    viewport: { width: 1600, height: 2400 },
  });
  return {
    context,
    keep: (child) => processes.push(child),
    async encryptedStack(uiUrls, overrides = {}) {
      const stack = await startStack({
        PAYLOAD_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        CODEC_CORS_ORIGINS: uiUrls.join(','),
        ...overrides,
      });
      stacks.push(stack);
      return stack;
    },
    async uiServer({ temporalAddress, namespace, codecEndpoint, port }) {
      // The Web UI exactly as `npm start` and `start:cluster` run it (scripts/lib/webUi.ts).
      const root = mkdtempSync(path.join(os.tmpdir(), 'web-ui-server-'));
      dirs.push(root);
      const ui = await startWebUi({
        temporalAddress,
        namespace,
        port: port ?? (await freePort()),
        ...(codecEndpoint ? { codecEndpoint } : {}),
        dir: root,
        logFile: path.join(root, 'ui-server.log'),
        binary: clusterBinaries().uiServer,
      });
      uis.push(ui);
      return ui.url;
    },
    async close() {
      await context.close();
      for (const p of processes) p.kill('SIGTERM');
      for (const ui of uis) await ui.stop();
      for (const s of stacks) await s.stop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `url` until it answers 2xx. @throws after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
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

/** Signs in at the codec server's login page, as an operator does by hand. */
export async function signIn(page: Page, apiUrl: string): Promise<void> {
  await page.goto(`${apiUrl}/codec/login`);
  await page.getByLabel('Operator key').fill(OPERATOR_KEY);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Signed in to the codec server').waitFor();
}

/** Signs out of the codec server (removes the session cookie). */
export async function signOut(page: Page, apiUrl: string): Promise<void> {
  await page.goto(`${apiUrl}/codec/login`);
  await page.evaluate(async () => {
    await fetch('/codec/logout', { method: 'POST' });
  });
}

/**
 * The text of the page and of every frame in it (the Web UI renders summaries and details as Markdown in sandboxed
 * frames), with typographic quotes made plain (its Markdown renders `buyer's` as `buyer’s`).
 */
export async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n').replace(/[‘’]/g, "'");
}

/**
 * Polls the page's text (frames included) until `ready` holds or `timeoutMs` passes (the caller's assertions then say
 * what is missing), saves a full-page screenshot `<shot>.png` and the text `<shot>.txt`, and returns the text.
 */
export async function capture(
  page: Page,
  shot: string,
  ready: (text: string) => boolean,
  timeoutMs = 30_000,
): Promise<string> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await allText(page);
    if (ready(text)) break;
    await page.waitForTimeout(300);
  }
  const file = path.join(ARTIFACTS, `${shot}.png`);
  await page.screenshot({ path: file, fullPage: true });
  writeFileSync(path.join(ARTIFACTS, `${shot}.txt`), text);
  console.log(`screenshot: ${file} (page ready in ${Date.now() - started} ms)`);
  return text;
}
