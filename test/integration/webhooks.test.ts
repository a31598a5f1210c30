/**
 * Webhooks end to end (issue 5 §1, §2): real API + worker + Temporal dev server, real receivers on 127.0.0.1 that
 * verify every delivery with the `standardwebhooks` package.
 */
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/domain/events';
import { startStack, waitForOrder, fundedAgent, type Stack } from '../helpers/stack';
import { startReceiver, type Receiver } from '../helpers/receiver';

let stack: Stack;
const receivers: Receiver[] = [];
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Creates a wallet-paid order for `agentId`, pays it and accepts the delivery; returns the order id. */
async function purchase(
  agentId: string,
  agentKey: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: agentId,
    inputs: automationInputs,
    ...extra,
  });
  expect(created.status).toBe(201);
  const id = created.body.order_id as string;
  const paid = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(agentKey));
  expect(paid.status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  const review = await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'accept' }, bearer(agentKey));
  expect(review.status).toBe(200);
  return { id };
}

const LIFECYCLE = ['order.created', 'order.paid', 'order.fulfillment_started', 'order.delivered', 'order.accepted'];

test('the event catalogue is served with every emitted order event', async () => {
  const res = await stack.call('GET', '/api/v1/webhooks/events');
  expect(res.status).toBe(200);
  const types = res.body.events.map((e: { type: string }) => e.type);
  expect(types).toEqual(EVENT_TYPES);
  for (const t of [
    ...LIFECYCLE,
    'order.rejected',
    'order.refunded',
    'order.expired',
    'order.failed',
    'procurement.completed',
  ])
    expect(types).toContain(t);
  expect(res.body.retry_schedule_seconds).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
});

test('registration: agent endpoints need the agent key; token endpoints get a management token; owners manage them', async () => {
  const agentKey = await fundedAgent(stack, 'hook-owner', 0);
  const r = await receiver();
  const noKey = await stack.call('POST', '/api/v1/webhooks', { url: r.url, agent_id: 'hook-owner' });
  expect(noKey.status).toBe(401);
  const wrongKey = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: r.url, agent_id: 'hook-owner' },
    bearer('ak_wrong'),
  );
  expect(wrongKey.status).toBe(403);
  const badEvent = await stack.call('POST', '/api/v1/webhooks', { url: r.url, events: ['order.teleported'] });
  expect(badEvent.status).toBe(400);
  expect(badEvent.body).toMatchObject({ code: 'invalid_request', param: 'events.0' });
  const badUrl = await stack.call('POST', '/api/v1/webhooks', { url: 'ftp://example.com/x' });
  expect(badUrl.status).toBe(400);

  const agentHook = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: r.url, agent_id: 'hook-owner', events: ['order.*'] },
    bearer(agentKey),
  );
  expect(agentHook.status).toBe(200);
  expect(agentHook.body).toMatchObject({
    url: r.url,
    agent_id: 'hook-owner',
    events: ['order.*'],
    status: 'enabled',
    owner: 'agent',
  });
  expect(agentHook.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(agentHook.body.secret.slice(6), 'base64').length).toBe(32);
  expect(agentHook.body.management_token).toBeUndefined();

  const tokenHook = await stack.call('POST', '/api/v1/webhooks', { url: r.url });
  expect(tokenHook.status).toBe(200);
  expect(tokenHook.body.management_token).toMatch(/^wht_/);
  const token = tokenHook.body.management_token as string;

  // The secret is never shown again.
  const read = await stack.call('GET', `/api/v1/webhooks/${agentHook.body.id}`, undefined, bearer(agentKey));
  expect(read.status).toBe(200);
  expect(read.body.secret).toBeUndefined();
  expect(read.body.secrets).toHaveLength(1);
  expect((await stack.call('GET', `/api/v1/webhooks/${agentHook.body.id}`)).status).toBe(401);
  expect((await stack.call('GET', `/api/v1/webhooks/${agentHook.body.id}`, undefined, bearer(token))).status).toBe(403);
  expect((await stack.call('GET', `/api/v1/webhooks/we_nothing`, undefined, bearer(token))).status).toBe(404);

  const mine = await stack.call('GET', '/api/v1/webhooks', undefined, bearer(agentKey));
  expect(mine.body.webhooks.map((w: { id: string }) => w.id)).toEqual([agentHook.body.id]);

  const patched = await stack.call(
    'PATCH',
    `/api/v1/webhooks/${tokenHook.body.id}`,
    { events: ['order.delivered'] },
    bearer(token),
  );
  expect(patched.status).toBe(200);
  expect(patched.body.events).toEqual(['order.delivered']);
  const deleted = await stack.call('DELETE', `/api/v1/webhooks/${tokenHook.body.id}`, undefined, bearer(token));
  expect(deleted.status).toBe(204);
  expect((await stack.call('GET', `/api/v1/webhooks/${tokenHook.body.id}`, undefined, bearer(token))).status).toBe(404);
});

test('a whole purchase reaches the agent endpoint and the order webhook_url once per event, signed and in order; the log matches', async () => {
  const agentKey = await fundedAgent(stack, 'hook-buyer', 100);
  const agentReceiver = await receiver();
  const orderReceiver = await receiver();
  const filtered = await receiver();
  const reg = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: agentReceiver.url, agent_id: 'hook-buyer' },
    bearer(agentKey),
  );
  agentReceiver.secrets = [reg.body.secret];
  const onlyDelivered = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: filtered.url, agent_id: 'hook-buyer', events: ['order.delivered'] },
    bearer(agentKey),
  );
  filtered.secrets = [onlyDelivered.body.secret];

  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  // The order's own webhook_url: its endpoint and secret come back once, in the creation response.
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'hook-buyer',
    inputs: automationInputs,
    webhook_url: orderReceiver.url,
  });
  expect(created.status).toBe(201);
  expect(created.body.webhook).toMatchObject({
    url: orderReceiver.url,
    owner: 'order',
    order_id: created.body.order_id,
  });
  orderReceiver.secrets = [created.body.webhook.secret];
  const id = created.body.order_id as string;
  expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.webhook).toBeUndefined();

  expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(agentKey))).status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  expect((await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'accept' }, bearer(agentKey))).status).toBe(
    200,
  );

  await agentReceiver.waitFor((r) => r.accepted.length >= LIFECYCLE.length);
  // order.created may have been refused (401) before the test learned the secret: the retry 5 s later delivers it.
  await orderReceiver.waitFor((r) => r.accepted.length >= LIFECYCLE.length);
  await filtered.waitFor((r) => r.accepted.length >= 1);
  await new Promise((r) => setTimeout(r, 500));

  for (const r of [agentReceiver, orderReceiver]) {
    const events = r.events().filter((e) => e.data.order_id === id);
    expect(events.map((e) => e.type)).toEqual(LIFECYCLE);
    expect(events.map((e) => e.data.seq)).toEqual([1, 2, 3, 4, 5]);
    const ids = r.accepted.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => `msg_${id}_${n}`));
    const delivered = events.find((e) => e.type === 'order.delivered');
    expect(delivered?.data.status).toBe('delivered');
    expect(delivered?.data.order).toMatchObject({ order_id: id, status: 'delivered', amount: 69 });
    expect((delivered?.data.order?.deliverables as unknown[]).length).toBeGreaterThan(0);
  }
  expect(agentReceiver.requests.every((q) => q.verified)).toBe(true);
  expect(filtered.events().map((e) => e.type)).toEqual(['order.delivered']);

  // The delivery log says what the receiver saw: one delivered attempt per event, answered 204.
  // Attempts are logged after the receiver answers: wait (bounded) until the log has caught up.
  const readLog = () => stack.call('GET', `/api/v1/webhooks/${reg.body.id}/deliveries`, undefined, bearer(agentKey));

  const mine = (l: { body: { deliveries: any[] } }) =>
    l.body.deliveries.filter((d: { event_id: string }) => d.event_id.startsWith(`msg_${id}_`));
  let log = await readLog();
  for (let i = 0; i < 100 && log.status === 200 && mine(log).length < LIFECYCLE.length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    log = await readLog();
  }
  expect(log.status).toBe(200);
  const attempts = mine(log);
  expect(attempts).toHaveLength(LIFECYCLE.length);
  for (const a of attempts) {
    expect(a).toMatchObject({
      status: 'delivered',
      response_code: 204,
      attempt: 1,
      run: 0,
      error: null,
      next_retry_at: null,
      url: agentReceiver.url,
    });
    expect(a.latency_ms).toBeGreaterThanOrEqual(0);
  }
  expect(attempts.map((a: { event_id: string }) => a.event_id).sort()).toEqual(
    agentReceiver.accepted.map((a) => a.id).sort(),
  );

  // The order endpoint's log, read with its management token, matches its receiver too, refused attempts included.
  const orderLog = await stack.call(
    'GET',
    `/api/v1/webhooks/${created.body.webhook.id}/deliveries`,
    undefined,
    bearer(created.body.webhook.management_token),
  );
  expect(orderLog.status).toBe(200);
  expect(orderLog.body.deliveries).toHaveLength(orderReceiver.requests.length);
  const byAttempt = [...orderLog.body.deliveries].sort((a: { at: string }, b: { at: string }) =>
    a.at.localeCompare(b.at),
  );
  expect(byAttempt.map((d: { response_code: number }) => d.response_code)).toEqual(
    orderReceiver.requests.map((q) => q.answered),
  );
}, 60_000);

test('a failed attempt is retried on schedule with the same webhook-id; Retry-After is honoured; the log shows both attempts', async () => {
  const agentKey = await fundedAgent(stack, 'hook-retry', 100);
  const r = await receiver();
  const reg = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: r.url, agent_id: 'hook-retry', events: ['order.paid'] },
    bearer(agentKey),
  );
  r.secrets = [reg.body.secret];
  r.respond = (req, n) =>
    n === 1 ? { status: 503, headers: { 'retry-after': '7' } } : { status: req.verified ? 200 : 401 };
  const { id } = await purchase('hook-retry', agentKey);
  await r.waitFor((x) => x.accepted.length === 1, 30_000);
  expect(r.requests).toHaveLength(2);
  expect(r.requests[0]!.id).toBe(`msg_${id}_2`);
  expect(r.requests[1]!.id).toBe(r.requests[0]!.id);
  // Retry-After (7 s) beats the scheduled 5 s ± 10%.
  expect(r.requests[1]!.at - r.requests[0]!.at).toBeGreaterThanOrEqual(6_900);
  // The attempt is logged after the receiver answers, so the second entry can trail the receiver by a moment.
  let log = await stack.call(
    'GET',
    `/api/v1/webhooks/${reg.body.id}/deliveries?event_id=msg_${id}_2`,
    undefined,
    bearer(agentKey),
  );
  for (let i = 0; i < 100 && log.body.deliveries.length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    log = await stack.call(
      'GET',
      `/api/v1/webhooks/${reg.body.id}/deliveries?event_id=msg_${id}_2`,
      undefined,
      bearer(agentKey),
    );
  }
  const [second, first] = log.body.deliveries;
  expect(first).toMatchObject({ attempt: 1, status: 'failed', response_code: 503, error: 'HTTP 503' });
  expect(Date.parse(first.next_retry_at) - Date.parse(first.at)).toBeGreaterThanOrEqual(7_000);
  expect(second).toMatchObject({ attempt: 2, status: 'delivered', response_code: 200, next_retry_at: null });
}, 60_000);

test('410 Gone disables the endpoint and stops delivery; after re-enabling, a manual retry sends the event again', async () => {
  const agentKey = await fundedAgent(stack, 'hook-gone', 100);
  const r = await receiver();
  const reg = await stack.call('POST', '/api/v1/webhooks', { url: r.url, agent_id: 'hook-gone' }, bearer(agentKey));
  r.secrets = [reg.body.secret];
  r.respond = () => ({ status: 410 });
  const { id } = await purchase('hook-gone', agentKey);
  await new Promise((res) => setTimeout(res, 1500));
  expect(r.requests.map((q) => q.id)).toEqual([`msg_${id}_1`]);
  const endpoint = await stack.call('GET', `/api/v1/webhooks/${reg.body.id}`, undefined, bearer(agentKey));
  expect(endpoint.body).toMatchObject({ status: 'disabled', disabled_reason: expect.stringContaining('410') });
  const log = await stack.call('GET', `/api/v1/webhooks/${reg.body.id}/deliveries`, undefined, bearer(agentKey));
  expect(log.body.deliveries).toEqual([
    expect.objectContaining({ event_id: `msg_${id}_1`, status: 'gone', response_code: 410, next_retry_at: null }),
  ]);

  const refused = await stack.call(
    'POST',
    `/api/v1/webhooks/${reg.body.id}/deliveries/msg_${id}_1/retry`,
    undefined,
    bearer(agentKey),
  );
  expect(refused.status).toBe(409);
  const unknown = await stack.call(
    'POST',
    `/api/v1/webhooks/${reg.body.id}/deliveries/msg_nope_1/retry`,
    undefined,
    bearer(agentKey),
  );
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('webhook_event_not_found');

  r.respond = (q) => ({ status: q.verified ? 200 : 401 });
  expect(
    (await stack.call('PATCH', `/api/v1/webhooks/${reg.body.id}`, { enabled: true }, bearer(agentKey))).body.status,
  ).toBe('enabled');
  const retry = await stack.call(
    'POST',
    `/api/v1/webhooks/${reg.body.id}/deliveries/msg_${id}_1/retry`,
    undefined,
    bearer(agentKey),
  );
  expect(retry.status).toBe(202);
  expect(retry.body).toMatchObject({ event_id: `msg_${id}_1`, run: 1 });
  await r.waitFor((x) => x.accepted.length === 1);
  expect(r.accepted[0]!.id).toBe(`msg_${id}_1`);
  // The attempt is logged after the receiver answers: wait (bounded) for the log to catch up.
  let after = await stack.call(
    'GET',
    `/api/v1/webhooks/${reg.body.id}/deliveries?event_id=msg_${id}_1`,
    undefined,
    bearer(agentKey),
  );
  for (let i = 0; i < 100 && after.body.deliveries[0]?.run !== 1; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    after = await stack.call(
      'GET',
      `/api/v1/webhooks/${reg.body.id}/deliveries?event_id=msg_${id}_1`,
      undefined,
      bearer(agentKey),
    );
  }
  expect(after.body.deliveries[0]).toMatchObject({ run: 1, attempt: 1, status: 'delivered', response_code: 200 });
}, 60_000);

test('secret rotation: during the overlap every delivery carries a signature for the new and the old secret', async () => {
  const agentKey = await fundedAgent(stack, 'hook-rotate', 100);
  const r = await receiver();
  const reg = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: r.url, agent_id: 'hook-rotate', events: ['order.created'] },
    bearer(agentKey),
  );
  const rotated = await stack.call(
    'PATCH',
    `/api/v1/webhooks/${reg.body.id}`,
    { rotate_secret: true, rotation_overlap_seconds: 3600 },
    bearer(agentKey),
  );
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(reg.body.secret);
  expect(rotated.body.secrets).toHaveLength(2);
  expect(rotated.body.secrets[1].expires_at).not.toBeNull();
  r.secrets = [rotated.body.secret];
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'hook-rotate',
    inputs: automationInputs,
  });
  await r.waitFor((x) => x.accepted.length === 1);
  const got = r.accepted[0]!;
  expect(got.signature.split(' ')).toHaveLength(2);
  const headers = { 'webhook-id': got.id, 'webhook-timestamp': got.timestamp, 'webhook-signature': got.signature };
  expect(() => new Webhook(reg.body.secret).verify(got.body, headers)).not.toThrow();
  expect(() => new Webhook(rotated.body.secret).verify(got.body, headers)).not.toThrow();
  expect(() => new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(got.body, headers)).toThrow();
}, 60_000);

test("procurement.completed reaches the buying agent's endpoint with the procurement and its order", async () => {
  const agentKey = await fundedAgent(stack, 'hook-procure', 100);
  const r = await receiver();
  const reg = await stack.call(
    'POST',
    '/api/v1/webhooks',
    { url: r.url, agent_id: 'hook-procure', events: ['procurement.completed'] },
    bearer(agentKey),
  );
  r.secrets = [reg.body.secret];
  const res = await stack.call(
    'POST',
    '/api/v1/procure',
    {
      objective: 'An n8n workflow to sync new Typeform leads into HubSpot',
      budget: 80,
      agent_id: 'hook-procure',
      inputs: automationInputs,
    },
    bearer(agentKey),
  );
  expect(res.status).toBe(201);
  await r.waitFor((x) => x.accepted.length === 1);
  const [event] = r.events() as unknown as { type: string; data: Record<string, unknown> }[];
  expect(event).toMatchObject({
    type: 'procurement.completed',
    data: {
      procurement_id: res.body.procurement_id,
      agent_id: 'hook-procure',
      order_id: res.body.order.order_id,
      seq: 1,
    },
  });
  expect(r.accepted[0]!.id).toBe(event!.data.event_id);
}, 60_000);

describe('outside development mode', () => {
  let prod: Stack;
  beforeAll(async () => {
    prod = await startStack({ DEV_MODE: 'false' });
  }, 120_000);
  afterAll(async () => {
    await prod?.stop();
  });

  test('targets on loopback, private, link-local or unspecified addresses are refused with a 422 problem', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://0.0.0.0/',
      'http://[::ffff:192.168.1.1]/',
    ]) {
      const res = await prod.call('POST', '/api/v1/webhooks', { url });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'webhook_target_forbidden', param: 'url' });
    }
    const order = await prod.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      inputs: automationInputs,
      webhook_url: 'http://192.168.0.10/hook',
    });
    expect(order.status).toBe(422);
    expect(order.body).toMatchObject({ code: 'webhook_target_forbidden', param: 'webhook_url' });
  });

  test('the target is checked again at delivery time: nothing is sent to a private address, the attempt is logged', async () => {
    const r = await receiver();
    // An endpoint stored with a loopback URL (as if its DNS answer changed after registration).
    const { endpoint } = await prod.services.webhooks.register({
      url: r.url,
      agentId: 'prod-agent',
      events: ['order.created'],
    });
    const created = await prod.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'prod-agent',
      inputs: automationInputs,
    });
    expect(created.status).toBe(201);
    const eventId = `msg_${created.body.order_id}_1`;
    const deadline = Date.now() + 20_000;
    while ((await prod.services.webhooks.messageFor(eventId, endpoint._id))?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error('the delivery did not stop');
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(r.requests).toHaveLength(0);
    const log = await prod.services.webhooks.deliveries(endpoint._id);
    expect(log).toEqual([
      expect.objectContaining({
        event_id: eventId,
        status: 'failed',
        response_code: null,
        next_retry_at: null,
        error: expect.stringContaining('not a public address'),
      }),
    ]);
  });
});
