/**
 * Issue 26 §1, checked in a browser: headless Chromium drives the Temporal Web UI (ui-server v2.55.0, the Web UI of
 * the cluster topology) over the test run's Temporal server, with an API + worker encrypting payloads. Through the
 * real API: an expert order in engineering (claimed by eve, one upload), a subscription active between renewals and
 * an ordinary order awaiting the buyer's review. Then, from the Web UI alone:
 *
 * - with the codec server (signed in at `/codec/login`): each workflow's **current details** (User Metadata), the
 *   **summaries** of its timers and activities on the Timeline and in the Event History, decoded;
 * - the workflows list filtered by the `WaitingOn` / `WaitingSince` queries of docs/operators.md finds each workflow
 *   under its own query and not the others (and the "more than 48 hours" form does not find a fresh expert order);
 * - a Web UI without the codec server: ciphertext (`binary/encrypted` in the event JSON, a base64 input), no buyer
 *   e-mail address, no current details, no summary in clear.
 *
 * Every page is kept as a full-page screenshot and its text in TEST_ARTIFACTS_DIR (default `test-artifacts/web-ui/`,
 * git-ignored; the paths are printed). Shared browser and ui-server setup: test/helpers/webUi.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { freePort } from '../../scripts/lib/servers';
import { utc } from '../../workflows/details';
import { orderWorkflowId } from '../../workflows/shared';
import { subscriptionWorkflowId } from '../../workflows/subscriptionShared';
import { fundedAgent, OPERATOR_KEY, waitForOrder, type Stack } from '../helpers/stack';
import { capture, CIPHERTEXT, openWebUiFixture, signIn, type WebUiFixture } from '../helpers/webUi';

jest.setTimeout(300_000);

const op = { authorization: `Bearer ${OPERATOR_KEY}` };
/** `binary/encrypted` in base64, as the Web UI shows a payload's `encoding` it could not decode. */
const ENCRYPTED_ENCODING = `"encoding": "${Buffer.from('binary/encrypted').toString('base64')}"`;

let fx: WebUiFixture;
let stack: Stack;
/** The Web UI with the codec server (`codec.includeCredentials`), and one without any codec. */
let ui: string;
let plainUi: string;
let page: Page;
const email = `carol-${randomBytes(3).toString('hex')}@example.com`;

/** A workflow under test: its ids, and what the Web UI must show of it. */
interface Subject {
  name: string;
  workflowId: string;
  runId: string;
  /** A line of the workflow's input as the Web UI shows it decoded. */
  input: string;
  /** Current details: the headline (Markdown bold removed, as rendered) and facts. */
  details: string[];
  /** Timer and activity summaries the Timeline shows. */
  timeline: string[];
  /** Summaries the Event History shows (every one the workflow has scheduled so far). */
  history: string[];
}
const subjects: Record<'expert' | 'subscription' | 'review', Subject> = {} as never;
let expertWaitingSince = 0;
/** The order whose subscription is under test: delivered, so it waits on the buyer's review too. */
let subscriptionOrder = '';

/** Creates an order for a funded agent and pays it from the wallet; returns the order id. */
async function paidOrder(agentId: string, serviceId: string, usd: number, inputs: object): Promise<string> {
  const key = await fundedAgent(stack, agentId, usd);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: serviceId,
    agent_id: agentId,
    inputs,
    email,
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    { authorization: `Bearer ${key}` },
  );
  expect(paid.status).toBe(200);
  return orderId;
}

const runIdOf = async (workflowId: string) => (await stack.client.workflow.getHandle(workflowId).describe()).runId;

beforeAll(async () => {
  const started = Date.now();
  fx = await openWebUiFixture();
  const [uiPort, plainPort] = [await freePort(), await freePort()];
  stack = await fx.encryptedStack([`http://127.0.0.1:${uiPort}`, `http://127.0.0.1:${plainPort}`]);
  const temporal = { temporalAddress: stack.config.TEMPORAL_ADDRESS, namespace: stack.config.TEMPORAL_NAMESPACE };
  [ui, plainUi] = await Promise.all([
    fx.uiServer({ ...temporal, port: uiPort, codecEndpoint: `${stack.url}/codec` }),
    fx.uiServer({ ...temporal, port: plainPort }),
  ]);

  // An expert order: paid, in the engineer queue, claimed by eve, one file uploaded.
  const expert = await paidOrder('agent-webui-expert', 'robot-control-system', 499, {
    robot_type: 'six-axis arm',
    controller: 'ROS 2 Humble',
    objective: 'pick and place parcels from a conveyor',
  });
  await waitForOrder(stack, expert, (o) => o.status === 'in_engineering');
  expect((await stack.call('POST', `/api/v1/engineering/${expert}/claim`, { engineer: 'eve' }, op)).status).toBe(200);
  const upload = {
    engineer: 'eve',
    // Underscores Markdown would read as emphasis were the name not escaped.
    name: 'arm_ctrl_v2_.py',
    content_base64: Buffer.from('print(1)\n').toString('base64'),
  };
  expect((await stack.call('POST', `/api/v1/engineering/${expert}/deliverables`, upload, op)).status).toBe(201);
  // A subscription (its period 1 paid by the order) and an ordinary order, both delivered.
  const subscribed = await paidOrder('agent-webui-sub', 'ai-receptionist', 39, {
    business_name: 'Cedar Dental',
    contact_email: 'front@cedar.example',
    services: 'cleaning, whitening',
  });
  const review = await paidOrder('agent-webui-review', 'automation-wf', 69, {
    workflow_type: 'lead_sync',
    source_app: 'Typeform',
    target_app: 'HubSpot',
  });
  await waitForOrder(stack, review, (o) => o.status === 'delivered');
  const sub = (await waitForOrder(stack, subscribed, (o) => o.subscription?.status === 'active')).subscription;
  const eng = (
    await waitForOrder(stack, expert, (o) => o.engineering?.uploads === 1 && o.engineering?.engineer === 'eve')
  ).engineering;
  expertWaitingSince = Date.parse(eng.assigned_at as string);
  subscriptionOrder = orderWorkflowId(subscribed);

  subjects.expert = {
    name: 'expert',
    workflowId: orderWorkflowId(expert),
    runId: await runIdOf(orderWorkflowId(expert)),
    input: `"email": "${email}"`,
    details: [
      `In engineering (engineer eve, claimed ${utc(eng.claimed_at)}; 1 upload) — SLA deadline ${utc(eng.sla_deadline)}`,
      `Order ${expert} · robot-control-system · 499.00 USD`,
      `In the engineer queue since ${utc(eng.assigned_at)}`,
      `Escalates at ${utc(eng.escalate_at)}`,
      'Uploads: arm_ctrl_v2_.py',
    ],
    timeline: [
      `SLA escalation at ${utc(eng.escalate_at)}`,
      'Record engineer_claimed (eve)',
      'Record deliverable_uploaded (eve)',
      'Payment deadline: expires at ',
    ],
    history: [
      'Payment deadline: expires at ',
      'Charge 499.00 USD on agent_wallet and record paid → fulfilling',
      'Produce robot-control-system',
      'Record in_engineering',
      `SLA escalation at ${utc(eng.escalate_at)}`,
      'Record engineer_claimed (eve)',
      'Record deliverable_uploaded (eve)',
      `Order ${expert}: Robot Control System for $499.00`,
    ],
  };
  subjects.subscription = {
    name: 'subscription',
    workflowId: subscriptionWorkflowId(subscribed),
    runId: await runIdOf(subscriptionWorkflowId(subscribed)),
    input: `"orderId": "${subscribed}"`,
    details: [
      `Period 1 — renewal 2 on ${utc(sub.next_charge_at)}`,
      `Subscription of order ${subscribed} · ai-receptionist · 39.00 USD a month on agent_wallet`,
      `Period 1: ${utc(sub.current_period.start)} → ${utc(sub.current_period.end)}`,
    ],
    timeline: [
      'Open the subscription (period 1 paid by the order)',
      `Period 1 ends: renewal at ${utc(sub.next_charge_at)}`,
    ],
    history: [
      `Subscription of order ${subscribed} (ai-receptionist)`,
      'Open the subscription (period 1 paid by the order)',
      `Period 1 ends: renewal at ${utc(sub.next_charge_at)}`,
    ],
  };
  subjects.review = {
    name: 'review',
    workflowId: orderWorkflowId(review),
    runId: await runIdOf(orderWorkflowId(review)),
    input: `"email": "${email}"`,
    // The auto-accept time is read from the page and compared with the review timer's summary (below).
    details: [
      "Waiting for the buyer's review — auto-accept at ",
      `Order ${review} · automation-wf · 69.00 USD`,
      'Delivered ',
    ],
    timeline: ['Review window: auto-accept at ', 'Payment deadline: expires at '],
    history: [
      'Charge 69.00 USD on agent_wallet, produce automation-wf, record paid → fulfilling → delivered',
      'Review window: auto-accept at ',
      `Order ${review}: Workflow Automation (n8n) for $69.00`,
    ],
  };
  page = await fx.context.newPage();
  await signIn(page, stack.url);
  console.log(`web UI test setup (stack, two ui-servers, three orders): ${Date.now() - started} ms`);
}, 180_000);

afterAll(async () => {
  await fx?.close();
});

/** The expected strings `text` lacks (an empty list when it has them all). */
const missing = (text: string, expected: readonly string[]) => expected.filter((e) => !text.includes(e));

const TABS = { timeline: 'Timeline', 'user-metadata': 'User Metadata', history: 'Event History' } as const;

/**
 * Shows `tab` of the subject's workflow page in `uiUrl` (loads the page for the timeline, the first tab read; the
 * others are opened by clicking their tab, as an operator does) and captures it once `ready` holds.
 */
async function workflowTab(
  uiUrl: string,
  s: Subject,
  tab: keyof typeof TABS,
  shot: string,
  ready: (text: string) => boolean,
): Promise<string> {
  if (tab === 'timeline') {
    await page.goto(`${uiUrl}/namespaces/default/workflows/${s.workflowId}/${s.runId}/timeline`, {
      waitUntil: 'domcontentloaded',
    });
  } else {
    await page.getByRole('tab', { name: new RegExp(`^${TABS[tab]}`) }).click();
    await page.waitForURL(`**/${s.runId}/${tab}`);
  }
  return capture(page, shot, ready, 45_000);
}

describe.each(['expert', 'subscription', 'review'] as const)('%s, with the codec server', (which) => {
  test('current details, timeline and event-history summaries, decoded', async () => {
    const s = subjects[which];
    // The timers' and activities' summaries, and the workflow's input decoded (an order's input holds the buyer's
    // e-mail address).
    const onTimeline = [...s.timeline, s.input];
    const timeline = await workflowTab(
      ui,
      s,
      'timeline',
      `${which}-1-timeline`,
      (t) => missing(t, onTimeline).length === 0,
    );
    expect(missing(timeline, onTimeline)).toEqual([]);

    const details = await workflowTab(
      ui,
      s,
      'user-metadata',
      `${which}-2-current-details`,
      (t) => missing(t, s.details).length === 0,
    );
    expect(missing(details, s.details)).toEqual([]);
    expect(details).not.toContain('No Current Details');

    const history = await workflowTab(
      ui,
      s,
      'history',
      `${which}-3-event-history`,
      (t) => missing(t, s.history).length === 0,
    );
    expect(missing(history, s.history)).toEqual([]);

    if (which === 'review') {
      // The same auto-accept time in the current details and on the review window's timer.
      const at = /auto-accept at (\d{4}-\d\d-\d\d \d\d:\d\d UTC)/;
      const fromDetails = at.exec(details)?.[1];
      expect(fromDetails).toBeDefined();
      expect(history).toContain(`Review window: auto-accept at ${fromDetails}`);
      expect(Date.parse(`${fromDetails?.replace(' UTC', 'Z').replace(' ', 'T')}`)).toBeGreaterThan(Date.now());
    }
  });
});

/**
 * Opens the workflows list filtered by `query` and returns its text once the visibility store answered: reloads until
 * the list holds `expected`, or (without `expected`) until it shows rows or "No Workflows Found".
 */
async function workflowList(query: string, shot: string, expected?: string): Promise<string> {
  const deadline = Date.now() + 45_000;
  const answered = (t: string) => t.includes('No Workflows Found') || /\bof \d+\b/.test(t);
  for (;;) {
    await page.goto(`${ui}/namespaces/default/workflows?query=${encodeURIComponent(query)}`, {
      waitUntil: 'domcontentloaded',
    });
    const text = await capture(page, shot, (t) => (expected ? t.includes(expected) : answered(t)), 8_000);
    if (!expected || text.includes(expected) || Date.now() > deadline) return text;
  }
}

test('the WaitingOn queries of docs/operators.md find each workflow under its own query only', async () => {
  const { expert, subscription, review } = subjects;
  const all = [expert.workflowId, subscription.workflowId, review.workflowId, subscriptionOrder];
  const others = (...ids: string[]) => all.filter((w) => !ids.includes(w));
  /** ISO 8601 UTC to the second, as the documented queries write it. */
  const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
  // The documented queries, narrowed to this test's task queue: the test files running beside this one share the
  // Temporal server, and their orders (hundreds over a run, many left in their review window) would fill the list.
  const ours = (query: string) => `${query} AND TaskQueue = '${stack.config.TEMPORAL_TASK_QUEUE}'`;
  const engineer = (since: string) =>
    ours(`WorkflowType = 'orderWorkflow' AND WaitingOn = 'engineer' AND WaitingSince < '${since}'`);

  // "Every order waiting on an engineer for more than …", with the cut-off just after this one started waiting.
  const engineers = await workflowList(
    engineer(iso(expertWaitingSince + 2000)),
    'query-1-waiting-on-engineer',
    expert.workflowId,
  );
  expect(engineers).toContain('WaitingOn = "engineer"');
  expect(engineers).toContain('WaitingSince before');
  expect(engineers).toContain(expert.workflowId);
  expect(others(expert.workflowId).filter((id) => engineers.includes(id))).toEqual([]);

  // The documented 48-hour form: this order has waited seconds, not 48 hours.
  const stale = await workflowList(engineer(iso(Date.now() - 48 * 3600_000)), 'query-2-engineer-48h');
  expect(stale).toContain('WaitingSince before');
  expect(stale).toContain('No Workflows Found');
  expect(all.filter((id) => stale.includes(id))).toEqual([]);

  const reviews = await workflowList(
    ours("WorkflowType = 'orderWorkflow' AND WaitingOn = 'buyer_review'"),
    'query-3-waiting-on-buyer-review',
    review.workflowId,
  );
  expect(reviews).toContain('WaitingOn = "buyer_review"');
  expect(reviews).toContain(review.workflowId);
  expect(reviews).toContain(subscriptionOrder);
  expect(others(review.workflowId, subscriptionOrder).filter((id) => reviews.includes(id))).toEqual([]);

  const renewals = await workflowList(
    ours("WorkflowType = 'subscriptionWorkflow' AND WaitingOn = 'renewal'"),
    'query-4-waiting-on-renewal',
    subscription.workflowId,
  );
  expect(renewals).toContain('WaitingOn = "renewal"');
  expect(renewals).toContain(subscription.workflowId);
  expect(others(subscription.workflowId).filter((id) => renewals.includes(id))).toEqual([]);
});

test('a Web UI without the codec server shows ciphertext: no e-mail address, no current details, no summary', async () => {
  for (const which of ['expert', 'subscription', 'review'] as const) {
    const s = subjects[which];
    const clear = [...s.details, ...s.timeline, ...s.history, s.input, email];
    const timeline = await workflowTab(plainUi, s, 'timeline', `no-codec-${which}-1-timeline`, (t) =>
      CIPHERTEXT.test(t),
    );
    expect(timeline).toMatch(CIPHERTEXT);
    expect(clear.filter((c) => timeline.includes(c))).toEqual([]);

    const details = await workflowTab(plainUi, s, 'user-metadata', `no-codec-${which}-2-user-metadata`, (t) =>
      t.includes('No Current Details'),
    );
    expect(details).toContain('No Current Details');
    expect(clear.filter((c) => details.includes(c))).toEqual([]);

    // The event history as JSON: the summaries and the input as stored, `binary/encrypted`.
    await page.getByRole('tab', { name: /^Event History/ }).click();
    await page.waitForURL(`**/${s.runId}/history`);
    await page.getByText('JSON', { exact: true }).first().click();
    const json = await capture(page, `no-codec-${which}-3-event-json`, (t) => t.includes(ENCRYPTED_ENCODING));
    expect(json).toContain('"userMetadata"');
    expect(json).toContain(ENCRYPTED_ENCODING);
    expect(clear.filter((c) => json.includes(c))).toEqual([]);
  }
});
