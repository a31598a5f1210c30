/**
 * Issue 26 §1 Payloads encrypted at rest, against the Temporal dev server of the test run (test/globalSetup.ts): with
 * PAYLOAD_ENCRYPTION_KEYS set, an order runs end to end (API client and worker encrypt and decrypt), its history read
 * by a client without the codec holds only ciphertext, and the codec server at `/codec` gives the operator (Bearer
 * operator key, or the session cookie of `/codec/login` for the Web UI) the decoded input: 401 without a credential,
 * 403 with another one, CORS for the Web UI's origin. The `temporal` CLI reads the history decoded with
 * `--codec-endpoint` and `--codec-auth`, and ciphertext without them.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { binaries } from '../../scripts/lib/servers';
import { EncryptionCodec } from '../../src/temporal/codec';
import { orderWorkflowId } from '../../workflows/shared';
import { fundedAgent, OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';

const run = promisify(execFile);
const EMAIL = `alice-${randomBytes(3).toString('hex')}@example.com`;
const UI_ORIGIN = 'http://127.0.0.1:8233';
const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('hex');

let stack: Stack;
let orderId: string;
let history: temporal.api.history.v1.IHistory;

beforeAll(async () => {
  // Rotated ring: `new` encrypts, `old` still decrypts.
  stack = await startStack({ PAYLOAD_ENCRYPTION_KEYS: `new:${newKey},old:${oldKey}`, CODEC_CORS_ORIGINS: UI_ORIGIN });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Every payload of a history with where it sits (dotted path), found by walking the protobuf object. */
function payloadsOf(value: unknown, where = ''): { where: string; payload: Payload }[] {
  if (!value || typeof value !== 'object') return [];
  if (value instanceof Uint8Array) return [];
  const o = value as Record<string, unknown>;
  if ('metadata' in o && 'data' in o && o.metadata && typeof o.metadata === 'object') {
    return [{ where, payload: o as Payload }];
  }
  return Object.entries(o).flatMap(([k, v]) => payloadsOf(v, where ? `${where}.${k}` : k));
}

const metaText = (p: Payload, key: string) => Buffer.from(p.metadata?.[key] ?? new Uint8Array()).toString('utf8');
const json = (p: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

function codec(route: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.url}/codec${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': stack.config.TEMPORAL_NAMESPACE, ...headers },
    body: JSON.stringify(body),
  });
}

test('an order runs end to end with payloads encrypted (API client and worker share the keys)', async () => {
  const agentKey = await fundedAgent(stack, 'agent-encrypted', 100);
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'agent-encrypted',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: `HubSpot for ${EMAIL}` },
  });
  expect(created.status).toBe(201);
  orderId = created.body.order_id as string;
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    {},
    { authorization: `Bearer ${agentKey}` },
  );
  expect(paid.status).toBe(200);
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
  const accepted = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${agentKey}` },
  );
  expect(accepted.status).toBe(200);
  expect(accepted.body.status).toBe('accepted');
  // The API's client decodes what the worker encrypted.
  await stack.client.workflow.getHandle(orderWorkflowId(orderId)).result();
}, 60_000);

test('a client without the codec sees only ciphertext in the history', async () => {
  const plain = new Client({ connection: stack.client.connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  history = await plain.workflow.getHandle(orderWorkflowId(orderId)).fetchHistory();
  const all = payloadsOf(history);
  // Search attributes are for the server to index: payload codecs never touch them.
  const coded = all.filter((p) => !/searchAttributes/.test(p.where));
  expect(coded.length).toBeGreaterThan(10);
  // Marker details `data` (local activity: seq, attempt, type, times) and `patch-data` (patch id) are the SDK's own
  // bookkeeping, written by the worker's core in clear; the local activities' results (`result`) are encrypted.
  const sdkOwn = /markerRecordedEventAttributes\.details\.(data|patch-data)\./;
  for (const p of coded.filter((c) => sdkOwn.test(c.where))) {
    const v = defaultPayloadConverter.fromPayload<Record<string, unknown>>(p.payload);
    expect(Object.keys(v).sort()).toEqual(
      'id' in v
        ? ['deprecated', 'id']
        : ['activity_id', 'activity_type', 'attempt', 'backoff', 'complete_time', 'original_schedule_time', 'seq'],
    );
  }
  // The `request-id` header (issue 27 §5) is the one field of ours left in clear, by design: an id, never a secret
  // (headers do not go through the payload codec); it must hold nothing but the id.
  const requestId = /\.header\.fields\.request-id$/;
  for (const p of coded.filter((c) => requestId.test(c.where))) {
    expect(defaultPayloadConverter.fromPayload<unknown>(p.payload)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  }
  const clear = coded
    .filter(
      (p) =>
        !sdkOwn.test(p.where) && !requestId.test(p.where) && metaText(p.payload, 'encoding') !== 'binary/encrypted',
    )
    .map((p) => p.where);
  expect(clear).toEqual([]);
  expect(coded.filter((p) => /markerRecordedEventAttributes\.details\.result\./.test(p.where)).length).toBeGreaterThan(
    0,
  );
  expect(
    new Set(
      coded
        .filter((p) => !sdkOwn.test(p.where) && !requestId.test(p.where))
        .map((p) => metaText(p.payload, 'encryption-key-id')),
    ),
  ).toEqual(new Set(['new']));
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  expect(bytes.includes(EMAIL)).toBe(false);
  expect(bytes.includes(orderId)).toBe(true); // the workflow id and search attributes stay readable
  // The input itself: ciphertext that the SDK's default converter cannot read.
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] as Payload;
  expect(() => defaultPayloadConverter.fromPayload(input)).toThrow(/binary\/encrypted/);
});

/** Every Temporal failure object of a history (an Update's refusal, an activity's error, …), with where it sits. */
function failuresOf(value: unknown, where = ''): { where: string; failure: temporal.api.failure.v1.IFailure }[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return [];
  const o = value as Record<string, unknown>;
  const own = 'message' in o && 'failureInfo' in o ? [{ where, failure: o as temporal.api.failure.v1.IFailure }] : [];
  return [...own, ...Object.entries(o).flatMap(([k, v]) => failuresOf(v, where ? `${where}.${k}` : k))];
}

test('failure messages are encrypted too: an Update refused for want of funds leaves no text in clear', async () => {
  const agentKey = await fundedAgent(stack, 'agent-encrypted-poor', 10);
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'agent-encrypted-poor',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
  });
  expect(created.status).toBe(201);
  const poorOrder = created.body.order_id as string;
  const refused = await stack.call(
    'POST',
    `/api/v1/orders/${poorOrder}/confirm_payment`,
    {},
    { authorization: `Bearer ${agentKey}` },
  );
  // The API's client reads the failure back through the codec: the buyer still gets the reason.
  expect(refused.status).toBe(402);
  expect(refused.body).toMatchObject({ code: 'insufficient_funds' });
  expect(String(refused.body.detail)).toMatch(/micro-USD|balance|funds/i);
  const plain = new Client({ connection: stack.client.connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  const poorHistory = await plain.workflow.getHandle(orderWorkflowId(poorOrder)).fetchHistory();
  const failures = failuresOf(poorHistory);
  expect(failures.length).toBeGreaterThan(0);
  for (const { where, failure } of failures) {
    // The SDK leaves a placeholder; the message and stack trace are in the encrypted `encodedAttributes`.
    expect([where, failure.message]).toEqual([where, 'Encoded failure']);
    expect(failure.stackTrace ?? '').toBe('');
    expect(failure.encodedAttributes && metaText(failure.encodedAttributes as Payload, 'encoding')).toBe(
      'binary/encrypted',
    );
  }
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(poorHistory).finish());
  expect(bytes.includes('micro-USD')).toBe(false);
  expect(bytes.includes('agent-encrypted-poor holds')).toBe(false);
}, 60_000);

describe('codec server at /codec', () => {
  const input = () => history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] as Payload;

  test('401 without a credential, 403 with another one, 200 with the operator key: the decoded input', async () => {
    const body = { payloads: [json(input())] };
    const none = await codec('/decode', body, { origin: UI_ORIGIN });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    // CORS headers on errors too, so the Web UI reads the status instead of a network error.
    expect(none.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    const other = await codec('/decode', body, { authorization: 'Bearer op_not_the_operator_key_000' });
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ code: 'forbidden' });
    const agentKeyLike = await codec('/decode', body, { 'x-operator-key': 'nope' });
    expect(agentKeyLike.status).toBe(403);

    const ok = await codec('/decode', body, { authorization: `Bearer ${OPERATOR_KEY}`, origin: UI_ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const decoded = (await ok.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(decoded.payloads).toHaveLength(1);
    const p = decoded.payloads[0]!;
    expect(Buffer.from(p.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    const value = JSON.parse(Buffer.from(p.data, 'base64').toString()) as Record<string, unknown>;
    expect(value).toMatchObject({ orderId, serviceId: 'automation-wf', agentId: 'agent-encrypted' });
    expect(JSON.stringify(value)).toContain(EMAIL);
  });

  test('decodes every payload of the history in one call; payloads in clear pass unchanged', async () => {
    const coded = payloadsOf(history).filter((p) => !/searchAttributes/.test(p.where));
    const clear = defaultPayloadConverter.toPayload({ written: 'before encryption' });
    const res = await codec(
      '/decode',
      { payloads: [...coded.map((p) => json(p.payload)), json(clear)] },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(res.status).toBe(200);
    const out = ((await res.json()) as { payloads: { metadata: Record<string, string> }[] }).payloads;
    expect(out).toHaveLength(coded.length + 1);
    const encodings = new Set(out.map((p) => Buffer.from(p.metadata.encoding!, 'base64').toString()));
    expect(encodings.has('binary/encrypted')).toBe(false);
    expect(out[out.length - 1]).toEqual(json(clear));
  });

  test('encode (what `temporal workflow signal --codec-endpoint` uses) encrypts with the first key', async () => {
    const value = defaultPayloadConverter.toPayload({ note: EMAIL });
    const res = await codec('/encode', { payloads: [json(value)] }, { authorization: `Bearer ${OPERATOR_KEY}` });
    expect(res.status).toBe(200);
    const [enc] = ((await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    expect(Buffer.from(enc!.metadata['encryption-key-id']!, 'base64').toString()).toBe('new');
    expect(Buffer.from(enc!.data, 'base64').includes(EMAIL)).toBe(false);
    const back = await codec('/decode', { payloads: [enc] }, { authorization: `Bearer ${OPERATOR_KEY}` });
    expect(((await back.json()) as { payloads: unknown[] }).payloads[0]).toEqual(json(value));
  });

  test('a payload under the old key still decodes (rotation); an unknown key or altered data is 400', async () => {
    const [old] = await new EncryptionCodec([{ id: 'old', key: Buffer.from(oldKey, 'base64') }]).encode([
      defaultPayloadConverter.toPayload('from last year'),
    ]);
    const auth = { authorization: `Bearer ${OPERATOR_KEY}` };
    const res = await codec('/decode', { payloads: [json(old!)] }, auth);
    expect(res.status).toBe(200);
    const [p] = ((await res.json()) as { payloads: { data: string }[] }).payloads;
    expect(Buffer.from(p!.data, 'base64').toString()).toBe('"from last year"');
    const [unknown] = await new EncryptionCodec([{ id: 'gone', key: randomBytes(32) }]).encode([old!]);
    const refused = await codec('/decode', { payloads: [json(unknown!)] }, auth);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/key "gone"/);
  });

  test('X-Namespace must be the configured namespace; bodies are checked', async () => {
    const auth = { authorization: `Bearer ${OPERATOR_KEY}` };
    const other = await codec('/decode', { payloads: [] }, { ...auth, 'x-namespace': 'someone-else' });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ code: 'invalid_request', param: 'X-Namespace' });
    const bad = await codec('/decode', { nope: 1 }, auth);
    expect(bad.status).toBe(400);
    const notJson = await fetch(`${stack.url}/codec/decode`, { method: 'POST', headers: auth, body: '{"payloads":' });
    expect(notJson.status).toBe(400);
    const get = await fetch(`${stack.url}/codec/decode`, { headers: auth });
    expect(get.status).toBe(405);
  });

  test("CORS preflight: the Web UI's origin is allowed with credentials, another origin is not", async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.url}/codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const ui = await preflight(UI_ORIGIN);
    expect(ui.status).toBe(204);
    expect(ui.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(ui.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ui.headers.get('access-control-allow-methods')).toContain('POST');
    expect(ui.headers.get('access-control-allow-headers')).toBe('content-type,x-namespace');
    const evil = await preflight('https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(evil.headers.get('access-control-allow-credentials')).toBeNull();
    // The API's own routes keep their `*`.
    const api = await fetch(`${stack.url}/api/v1/services`, { headers: { origin: 'https://evil.example' } });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('the Web UI path: sign in at /codec/login, the session cookie decodes; sign out ends it', async () => {
    const page = await fetch(`${stack.url}/codec/login`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="operator_key"');
    const form = (key: string) =>
      fetch(`${stack.url}/codec/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ operator_key: key }).toString(),
        redirect: 'manual',
      });
    const wrong = await form('op_wrong_key_000000000000');
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const signedIn = await form(OPERATOR_KEY);
    expect(signedIn.status).toBe(200);
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^codec_session=v1\.\d+\.[A-Za-z0-9_-]{43}; Path=\/codec; Max-Age=43200; HttpOnly; SameSite=Strict$/,
    );
    const session = setCookie.split(';')[0]!;
    expect(session).not.toContain(OPERATOR_KEY);

    const withCookie = await codec('/decode', { payloads: [json(input())] }, { cookie: session, origin: UI_ORIGIN });
    expect(withCookie.status).toBe(200);
    const status = await fetch(`${stack.url}/codec/`, { headers: { cookie: session } });
    expect(await status.json()).toEqual({
      namespace: stack.config.TEMPORAL_NAMESPACE,
      encryption: 'on',
      encrypting_key_id: 'new',
      key_ids: ['new', 'old'],
    });
    // A forged or tampered session is no credential.
    const forged = await codec(
      '/decode',
      { payloads: [] },
      { cookie: session.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) },
    );
    expect(forged.status).toBe(401);
    const json2 = await fetch(`${stack.url}/codec/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operator_key: OPERATOR_KEY }),
    });
    expect(json2.status).toBe(204);
    const out = await fetch(`${stack.url}/codec/logout`, { method: 'POST', headers: { cookie: session } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^codec_session=; Path=\/codec; Max-Age=0/);
  });

  test('the temporal CLI shows the input decoded with --codec-endpoint/--codec-auth, ciphertext without', async () => {
    const show = async (...extra: string[]) => {
      const { stdout } = await run(binaries().temporal, [
        'workflow',
        'show',
        '--address',
        stack.config.TEMPORAL_ADDRESS,
        '--namespace',
        stack.config.TEMPORAL_NAMESPACE,
        '--workflow-id',
        orderWorkflowId(orderId),
        '--output',
        'json',
        ...extra,
      ]);
      // proto3 JSON: the started event's input payload, its encoding and data decoded from base64.
      const started = (JSON.parse(stdout) as { events: Record<string, any>[] }).events[0]!;
      const p = started.workflowExecutionStartedEventAttributes.input.payloads[0] as {
        metadata: Record<string, string>;
        data: string;
      };
      return {
        encoding: Buffer.from(p.metadata.encoding!, 'base64').toString(),
        data: Buffer.from(p.data, 'base64').toString(),
      };
    };
    const without = await show();
    expect(without.encoding).toBe('binary/encrypted');
    expect(without.data).not.toContain(EMAIL);
    const decoded = await show('--codec-endpoint', `${stack.url}/codec`, '--codec-auth', `Bearer ${OPERATOR_KEY}`);
    expect(decoded.encoding).toBe('json/plain');
    expect(JSON.parse(decoded.data)).toMatchObject({ orderId, inputs: { target_app: `HubSpot for ${EMAIL}` } });
    // Another credential: the codec server answers 403, which the CLI retries until its command deadline.
    await expect(
      show(
        '--codec-endpoint',
        `${stack.url}/codec`,
        '--codec-auth',
        'Bearer op_not_the_operator_key_000',
        '--command-timeout',
        '2s',
      ),
    ).rejects.toThrow(/failed getting next history event/);
  }, 30_000);
});
