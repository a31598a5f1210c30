/**
 * The pages a human uses (issue 13), in a real headless Chromium (Debian's, driven by playwright-core) against the
 * real API, worker, Temporal server and database: the payment link's form labelled in words, paying on the hosted
 * checkout, the order page (status and progress, each file with its download link, size and sha256, accept / reject
 * with the order secret from the link), and what the page shows without that secret.
 *
 * Chromium comes from `scripts/setup.sh` (Debian package `chromium`, or CHROMIUM_PATH). Without it this test fails,
 * saying so: it never skips.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { getService } from '../../src/domain/catalogue';
import { inputField } from '../../src/domain/inputLabels';
import { startStack, type Stack } from '../helpers/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// As on this project's machines: no GPU, no QUIC, nothing phoning home (the network is closed), a fresh profile.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let stack: Stack;
let context: BrowserContext;
let profile: string;
/** Console errors of every page (a CSP violation shows here). */
const consoleErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}. This test drives a real headless browser and does not skip: run scripts/setup.sh as root ` +
        '(it installs the Debian package chromium), or apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH.',
    );
  }
  stack = await startStack();
  profile = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    acceptDownloads: true,
  });
  // The one refusal the tests cause on purpose (the form sent incomplete, 422) is not an error of the page.
  context.on('page', (p) =>
    p.on('console', (m) => m.type() === 'error' && !/status of 422/.test(m.text()) && consoleErrors.push(m.text())),
  );
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await stack?.stop();
});

const automationInputs = { workflow_type: 'Sync new leads', source_app: 'Typeform', target_app: 'HubSpot' };
const service = getService('automation-wf');

/**
 * As a human: opens the service's payment link, fills the form by its worded labels, pays on the checkout and
 * follows the receipt's link to the order page. Returns the page (on the order page), the order id and the secret.
 */
async function orderAndPay(page: Page): Promise<{ id: string; secret: string }> {
  await page.goto(`${stack.url}/pay/services/automation-wf`);
  for (const [name, value] of Object.entries(automationInputs))
    await page.getByLabel(inputField('automation-wf', name).label).fill(value);
  await page.getByLabel('Your e-mail').fill('owner@lakeside-physio.example');
  await page.getByRole('button', { name: 'Continue to payment' }).click();

  // The checkout: the secret is in the link, the details in words, the human price on the button.
  await page.waitForURL(/\/pay\/orders\/ord_[A-Za-z0-9_-]+\?secret=os_/);
  const url = new URL(page.url());
  const id = url.pathname.split('/').pop() ?? '';
  const secret = url.searchParams.get('secret') ?? '';
  const details = await page.locator('dl').innerText();
  expect(details).toContain('Where the data comes from');
  expect(details).toContain('Typeform');
  await page.getByRole('button', { name: 'Pay $89' }).click();

  await page.getByRole('heading', { name: 'Payment received' }).waitFor();
  await page.getByRole('link', { name: 'Follow the order' }).click();
  await page.waitForURL((u) => u.pathname === `/pay/orders/${id}`);
  expect(new URL(page.url()).searchParams.get('secret')).toBe(secret);
  return { id, secret };
}

/** Waits on the order page (which reloads itself while the order moves) until it shows `status`. */
async function waitForStatus(page: Page, status: string): Promise<void> {
  await page.locator(`#status[data-status="${status}"]`).waitFor({ timeout: 30_000 });
}

describe('a human buys on the payment link and follows the order in a browser', () => {
  test('the payment form says in words what each input is; nothing is labelled with a field name', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${stack.url}/pay/services/automation-wf`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    for (const name of Object.keys(service?.inputs ?? {})) {
      const label = page.locator(`label[for="f-${name}"]`);
      const text = await label.innerText();
      expect(text).not.toContain(name);
      expect(text).toContain(inputField('automation-wf', name).label);
      expect(text).toMatch(/\((required|optional)\)/);
      // The help text is tied to the field.
      const help = await page.locator(`#f-${name}`).getAttribute('aria-describedby');
      expect((await page.locator(`#${help}`).innerText()).length).toBeGreaterThan(10);
    }
    expect(await page.content()).not.toMatch(/\b(workflow_type|source_app|target_app) \*/);

    // A refused submission names the missing field in words and keeps what was typed.
    await page.getByLabel('Where the data comes from').fill('Typeform');
    await page.locator('form').evaluate((f) => f.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    const alert = await page.getByRole('alert').innerText();
    expect(alert).toContain('What the workflow should do');
    expect(alert).toContain('Your e-mail');
    expect(await page.getByLabel('Where the data comes from').inputValue()).toBe('Typeform');
    await page.close();
  }, 120_000);

  test('pay, follow to delivered, download every file with its sha256, accept', async () => {
    const page = await context.newPage();
    const { id, secret } = await orderAndPay(page);
    await waitForStatus(page, 'delivered');

    // Progress: each step in order, in words.
    const steps = await page
      .locator('#progress li')
      .evaluateAll((lis) => lis.map((li) => li.getAttribute('data-status')));
    expect(steps).toEqual(['awaiting_payment', 'paid', 'fulfilling', 'delivered']);
    expect(await page.locator('#progress').innerText()).toContain('Being prepared');

    // Each file: downloaded by the browser, its bytes hash to the sha256 and size the page shows and the API reports.
    const api = (await stack.call('GET', `/api/v1/orders/${id}`)).body as {
      deliverables: { name: string; sha256: string; size: number }[];
    };
    expect(api.deliverables.length).toBeGreaterThan(0);
    const rows = page.locator('#deliverables tr.deliverable');
    expect(await rows.count()).toBe(api.deliverables.length);
    for (const d of api.deliverables) {
      const row = page.locator(`#deliverables tr.deliverable[data-name="${d.name}"]`);
      expect(await row.locator('code.sha256').innerText()).toBe(d.sha256);
      expect(await row.locator('td.size').getAttribute('data-bytes')).toBe(String(d.size));
      expect(await row.locator('td.size').innerText()).toContain(`${d.size.toLocaleString('en-US')} bytes`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        row.getByRole('link', { name: d.name }).click(),
      ]);
      const bytes = readFileSync((await download.path()) ?? '');
      expect(bytes.length).toBe(d.size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(d.sha256);
    }

    await page.getByRole('button', { name: 'Accept the delivery' }).click();
    await page.getByRole('heading', { name: 'Delivery accepted' }).waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('accepted');
    await page.getByRole('link', { name: 'Back to your order' }).click();
    await waitForStatus(page, 'accepted');
    expect(await page.locator('#review').count()).toBe(0);
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('accepted');
    expect(secret).toMatch(/^os_/);
    await page.close();
  }, 120_000);

  test('a second order is rejected from its page and refunded; without the secret the page shows the status only', async () => {
    const page = await context.newPage();
    const { id, secret } = await orderAndPay(page);
    await waitForStatus(page, 'delivered');

    // The same page without the secret, or with another order's: status and progress, no files, no review.
    const stranger = await context.newPage();
    for (const link of [`/pay/orders/${id}`, `/pay/orders/${id}?secret=os_${'x'.repeat(43)}`]) {
      const res = await stranger.goto(`${stack.url}${link}`);
      expect(res?.headers()['referrer-policy']).toBe('no-referrer');
      await waitForStatus(stranger, 'delivered');
      expect(await stranger.locator('#review').count()).toBe(0);
      expect(await stranger.locator('#deliverables').count()).toBe(0);
      expect(await stranger.locator('form').count()).toBe(0);
      expect(await stranger.locator('.notice').innerText()).toContain('status only');
    }
    await stranger.close();
    // The review form posted with a wrong secret (well formed or not) is refused; without one it asks for it.
    const post = (form: Record<string, string>) =>
      fetch(`${stack.url}/pay/orders/${id}/review`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    expect((await post({ secret: `os_${'y'.repeat(43)}`, action: 'reject' })).status).toBe(403);
    expect((await post({ secret: 'not-a-secret', action: 'reject' })).status).toBe(403);
    expect((await post({ action: 'reject' })).status).toBe(401);
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('delivered');

    await page.getByLabel('What is wrong').fill('The workflow maps the wrong Typeform fields');
    await page.getByRole('button', { name: 'Reject and refund' }).click();
    await page.getByRole('heading', { name: 'Delivery rejected' }).waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('rejected');
    await page.getByRole('link', { name: 'Back to your order' }).click();
    await waitForStatus(page, 'rejected');
    const text = await page.locator('body').innerText();
    expect(text).toContain('The workflow maps the wrong Typeform fields');
    expect(text).toContain('Refund of $89.00: completed');
    const order = (await stack.call('GET', `/api/v1/orders/${id}`)).body;
    expect(order).toMatchObject({ status: 'rejected', refund: { status: 'completed', amount: 89 } });
    expect(secret).toMatch(/^os_/);
    await page.close();
  }, 120_000);

  test('no page broke its Content-Security-Policy or logged an error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
