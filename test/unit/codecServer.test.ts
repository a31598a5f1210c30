/**
 * Issue 26 §1 Payloads encrypted at rest: the codec server in-process (src/http/codecServer.ts), as `npm run
 * codec-server` serves it: encode → decode round trip over HTTP, 401 / 403, a session cookie that expires, a trailing
 * slash in the endpoint, and nothing served outside `/codec`. (The API's `/codec` against a real history:
 * test/integration/payloadEncryption.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import { codecServerApp, codecServerMiddleware, payloadFromJson, payloadToJson } from '../../src/http/codecServer';
import { problemMiddleware } from '../../src/http/errors';
import { payloadCodec } from '../../src/temporal/codec';

const OPERATOR_KEY = 'op_codec_unit_key_0123456789';
const config = loadConfig({
  OPERATOR_KEY,
  PAYLOAD_ENCRYPTION_KEYS: `k:${randomBytes(32).toString('base64')}`,
  CODEC_CORS_ORIGINS: 'http://ui.example:8233',
});
const servers: Server[] = [];

async function listen(app: Koa): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const auth = { authorization: `Bearer ${OPERATOR_KEY}` };

test('npm run codec-server: encode then decode over HTTP gives the payload back; 401, 403; 404 outside /codec', async () => {
  const url = await listen(codecServerApp(config, () => undefined));
  const value = payloadToJson(defaultPayloadConverter.toPayload({ email: 'carol@example.com' }));
  expect((await post(`${url}/codec/encode`, { payloads: [value] })).status).toBe(401);
  expect((await post(`${url}/codec/encode`, { payloads: [value] }, { authorization: 'Bearer nope' })).status).toBe(403);
  // An empty list, as proto3 JSON writes it (the temporal CLI's `workflow metadata` sends it).
  const empty = await post(`${url}/codec/encode`, {}, auth);
  expect([empty.status, await empty.json()]).toEqual([200, { payloads: [] }]);
  const enc = (await (await post(`${url}/codec/encode`, { payloads: [value] }, auth)).json()) as {
    payloads: { data: string }[];
  };
  expect(Buffer.from(enc.payloads[0]!.data, 'base64').includes('carol@example.com')).toBe(false);
  // An endpoint configured with a trailing slash: the Web UI then asks for `//decode`.
  const dec = await post(`${url}/codec//decode`, enc, auth);
  expect(dec.status).toBe(200);
  const back = ((await dec.json()) as { payloads: Parameters<typeof payloadFromJson>[0][] }).payloads[0]!;
  expect(defaultPayloadConverter.fromPayload(payloadFromJson(back))).toEqual({ email: 'carol@example.com' });
  expect((await fetch(`${url}/api/v1/services`)).status).toBe(404);
  expect((await fetch(`${url}/codec/nothing`, { headers: auth })).status).toBe(404);
});

test('a session cookie decodes until it expires; then 401 saying so', async () => {
  let now = Date.parse('2026-12-01T10:00:00Z');
  const app = new Koa();
  app.use(problemMiddleware(() => undefined));
  app.use(
    codecServerMiddleware({
      codec: payloadCodec(config),
      operatorKey: OPERATOR_KEY,
      namespace: 'default',
      allowedOrigins: [],
      sessionSeconds: 60,
      now: () => now,
    }),
  );
  const url = await listen(app);
  const login = await post(`${url}/codec/login`, { operator_key: OPERATOR_KEY });
  expect(login.status).toBe(204);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  expect(cookie).toMatch(/^codec_session=v1\./);
  expect((await post(`${url}/codec/decode`, { payloads: [] }, { cookie })).status).toBe(200);
  now += 61_000;
  const expired = await post(`${url}/codec/decode`, { payloads: [] }, { cookie });
  expect(expired.status).toBe(401);
  expect(((await expired.json()) as { detail: string }).detail).toMatch(/session sent has expired/);
  // The login refuses another key.
  expect((await post(`${url}/codec/login`, { operator_key: 'op_other' })).status).toBe(403);
});
