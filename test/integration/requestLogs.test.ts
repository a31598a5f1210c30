/**
 * Issue 27 §5 structured logs, against the real API and worker of a stack: one request id found on the whole path of
 * a request (the response header, the API's line, the workflow's memo, the workflow's and its activities' lines
 * written through the worker's Runtime logger), and no secret in any line.
 *
 * The process's logger is replaced (before the stack starts) by one at `trace` writing into an array, so every line
 * the API, the Temporal client interceptor, the workflow sandbox and the activities write in this process is read.
 */
import { randomBytes } from 'node:crypto';
import { createLogger, setLogger } from '../../src/telemetry/logger';
import { REQUEST_ID_MEMO } from '../../src/telemetry/requestIdNames';
import { startStack, waitForOrder, fundedAgent, OPERATOR_KEY, type Stack } from '../helpers/stack';

const raw: string[] = [];
setLogger(createLogger({ level: 'trace', destination: { write: (s: string) => void raw.push(s) } }));

type Line = Record<string, unknown> & { msg?: string; requestId?: string };
const lines = (): Line[] => raw.map((l) => JSON.parse(l) as Line);

/** Waits until a captured line matches `predicate` (worker lines arrive after the API answered). */
async function lineWhere(predicate: (l: Line) => boolean, what: string, timeoutMs = 30_000): Promise<Line> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = lines().find(predicate);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no log line: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

test('one request id: response header, API line, workflow memo, workflow and activity lines', async () => {
  const agentKey = await fundedAgent(stack, 'agent-logs', 100);
  const requestId = `test-${randomBytes(6).toString('hex')}`;
  const created = await stack.call(
    'POST',
    '/api/v1/orders',
    { service_id: 'automation-wf', agent_id: 'agent-logs', inputs: automationInputs },
    { 'x-request-id': requestId },
  );
  expect(created.status).toBe(201);
  expect(created.headers.get('x-request-id')).toBe(requestId);
  const orderId = created.body.order_id as string;
  const workflowId = `order-${orderId}`;

  // The API's line of the request: route pattern, status, duration, the id.
  const apiLine = await lineWhere((l) => l.msg === 'request' && l.requestId === requestId, 'the API request line');
  expect(apiLine).toMatchObject({ level: 'info', method: 'POST', route: '/api/v1/orders', status: 201 });
  expect(typeof apiLine.ms).toBe('number');
  expect(apiLine.path).toBe('/api/v1/orders');
  // The start of the workflow, logged in the request's context.
  expect(
    lines().some((l) => l.msg === 'workflow started' && l.workflowId === workflowId && l.requestId === requestId),
  ).toBe(true);

  // The workflow's memo (what the Web UI shows under Memo).
  const described = await stack.client.workflow.getHandle(workflowId).describe();
  expect(described.memo?.[REQUEST_ID_MEMO]).toBe(requestId);

  // Paying (another request, another id) lets the order run its activities.
  const payId = `pay-${randomBytes(6).toString('hex')}`;
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    {},
    { authorization: `Bearer ${agentKey}`, 'x-request-id': payId },
  );
  expect(paid.status).toBe(200);
  expect(paid.headers.get('x-request-id')).toBe(payId);
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered');

  // The workflow's own lines (workflow `log`, through the worker's Runtime logger) carry the id.
  const wfLine = await lineWhere(
    (l) => l.msg === 'Workflow started' && l.workflowId === workflowId,
    'the workflow started line',
  );
  expect(wfLine).toMatchObject({ requestId, workflowType: 'orderWorkflow', sdkComponent: 'worker' });
  // And every activity of the order: each completed activity's line carries the id of a request of this order.
  // (chargeAndDeliver records `delivered` itself, so its line can come after the order reads delivered: wait for it.)
  const isActivityLine = (l: Line) => l.msg === 'activity completed' && l.workflowId === workflowId;
  await lineWhere((l) => isActivityLine(l) && l.activityType === 'chargeAndDeliver', 'the line of chargeAndDeliver');
  const activityLines = lines().filter(isActivityLine);
  // Until the review, one local activity: the charge with the goods (patch charge-and-deliver, issue 39 §2).
  expect(activityLines.length).toBeGreaterThanOrEqual(1);
  for (const l of activityLines) {
    expect([requestId, payId]).toContain(l.requestId);
    expect(typeof l.activityType).toBe('string');
    expect(typeof l.durationMs).toBe('number');
  }
  expect(activityLines.some((l) => l.requestId === requestId)).toBe(true);
}, 90_000);

test('an id that is not sane is replaced, and each request without one gets its own', async () => {
  const bad = await stack.call('GET', '/api/v1/services', undefined, { 'x-request-id': 'no spaces {allowed}' });
  const again = await stack.call('GET', '/api/v1/services');
  const third = await stack.call('GET', '/api/v1/services');
  const ids = [bad, again, third].map((r) => r.headers.get('x-request-id'));
  for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(new Set(ids).size).toBe(3);
  // Answers from the response cache are requests too: each has its line, at debug (the first ran the whole chain).
  for (const id of ids) await lineWhere((l) => l.msg === 'request' && l.requestId === id, `the line of ${id}`);
  const levels = raw
    .map((s) => JSON.parse(s) as Record<string, unknown>)
    .filter((l) => ids.includes(l.requestId as string));
  expect(levels.map((l) => l.level).sort()).toEqual(['debug', 'debug', 'info']);
  expect(bad.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
});

test('no secret reaches the logs: keys, order secrets, payment signatures, webhook secrets', async () => {
  const secrets: string[] = [OPERATOR_KEY];
  const agentKey = await fundedAgent(stack, 'agent-secrets', 100);
  secrets.push(agentKey);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  // A webhook endpoint: its signing secret comes back once; the body sent carries one of the caller's too.
  const mySecret = `whsec_${randomBytes(24).toString('base64')}`;
  secrets.push(mySecret);
  const hook = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: 'http://127.0.0.1:9/hook', agent_id: 'agent-secrets', secret: mySecret },
    bearer(agentKey),
  );
  if (hook.body.secret) secrets.push(hook.body.secret as string);
  if (hook.body.management_token) secrets.push(hook.body.management_token as string);

  // An order without an agent: its order secret comes back once, then travels as a Bearer and in a link's query.
  const guest = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    inputs: automationInputs,
    webhook_url: 'http://127.0.0.1:9/order-hook',
  });
  expect(guest.status).toBe(201);
  const orderSecret = guest.body.order_secret as string;
  expect(orderSecret).toMatch(/^os_/);
  secrets.push(orderSecret);
  const guestHook = guest.body.webhook as { secret?: string; management_token?: string } | undefined;
  if (guestHook?.secret) secrets.push(guestHook.secret);
  if (guestHook?.management_token) secrets.push(guestHook.management_token);
  const guestId = guest.body.order_id as string;
  await stack.call('GET', `/pay/orders/${guestId}?secret=${encodeURIComponent(orderSecret)}`);
  await stack.call('POST', `/api/v1/orders/${guestId}/review`, { action: 'accept' }, bearer(orderSecret));
  await stack.call('POST', `/api/v1/orders/${guestId}/confirm_payment`, {}, bearer(orderSecret));

  // An agent's order paid with its key, with an API key header that means nothing here.
  const apiKey = `key_${randomBytes(12).toString('hex')}`;
  secrets.push(apiKey);
  const order = await stack.call(
    'POST',
    '/api/v1/orders',
    { service_id: 'automation-wf', agent_id: 'agent-secrets', inputs: automationInputs },
    { 'x-api-key': apiKey },
  );
  await stack.call('POST', `/api/v1/orders/${order.body.order_id}/confirm_payment`, {}, bearer(agentKey));
  await waitForOrder(stack, order.body.order_id as string, (o) => o.status === 'delivered');

  // Payment signatures on an x402 resource (refused, but read).
  const signature = Buffer.from(JSON.stringify({ x402Version: 2, payload: { signature: '0xfeed' } })).toString(
    'base64',
  );
  secrets.push(signature);
  await stack.call('GET', '/x402/item/recipe-no-such-thing', undefined, { 'PAYMENT-SIGNATURE': signature });
  await stack.call('GET', '/x402/item/recipe-no-such-thing', undefined, { 'X-PAYMENT': signature });
  // The operator's key.
  await stack.call('GET', '/api/v1/reconciliation/reports', undefined, bearer(OPERATOR_KEY));

  // Lines were written (the capture works), and none holds a secret.
  await lineWhere(
    (l) => l.msg === 'activity completed' && l.workflowId === `order-${order.body.order_id}`,
    'an activity line of the agent order',
  );
  expect(lines().filter((l) => l.msg === 'request').length).toBeGreaterThan(8);
  const text = raw.join('');
  for (const s of secrets) {
    expect(s.length).toBeGreaterThan(8);
    expect(text).not.toContain(s);
  }
}, 90_000);
