/**
 * The structured logger's configuration (issue 27 §5): secret keys are redacted wherever they sit, the request id of
 * the active context is on every line, incoming request ids are kept only when sane, LOG_LEVEL is checked.
 */
import {
  createLogger,
  levelFromEnv,
  logContext,
  REDACTED,
  redactSecrets,
  requestIdOf,
} from '../../src/telemetry/logger';

/** A logger writing into an array of parsed lines. */
function captured(level: 'trace' | 'info' = 'trace') {
  const lines: string[] = [];
  const log = createLogger({ level, destination: { write: (s: string) => void lines.push(s) } });
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

test('secret keys are redacted at any depth up to five levels, whatever their case, other fields kept', () => {
  const { log, lines, parsed } = captured();
  const secrets = {
    authorization: 'Bearer ak_top_secret_1',
    headers: {
      authorization: 'Bearer os_secret_2',
      'x-api-key': 'key_secret_3',
      'payment-signature': 'eyJzaWduYXR1cmUiOiJzZWNyZXRfNCJ9',
      'x-payment': 'secret_5',
      cookie: 'session=secret_6',
      'PAYMENT-SIGNATURE': 'upper_secret_14',
    },
    body: { endpoint: { secret: 'whsec_secret_7', url: 'https://example.com/hook' }, agent_key: 'ak_secret_8' },
    wallet: { owner: { agent: { agentKey: 'ak_secret_9' } } },
    jwk: { kty: 'OKP', d: 'private_secret_10' },
    order: { order_secret: 'os_secret_11', private_key: '0xsecret_12', signature: '0xsecret_13' },
  };
  log.info(secrets, 'with secrets');
  const text = lines.join('');
  for (const s of ['_secret_', 'secret_5', 'secret_6', 'eyJzaWdu']) expect(text).not.toContain(s);
  const [line] = parsed();
  expect(line).toMatchObject({
    msg: 'with secrets',
    level: 'info',
    authorization: REDACTED,
    headers: { authorization: REDACTED, 'x-api-key': REDACTED, 'payment-signature': REDACTED, cookie: REDACTED },
    body: { endpoint: { secret: REDACTED, url: 'https://example.com/hook' }, agent_key: REDACTED },
    wallet: { owner: { agent: { agentKey: REDACTED } } },
    jwk: { kty: 'OKP', d: REDACTED },
    order: { order_secret: REDACTED, private_key: REDACTED, signature: REDACTED },
  });
});

test('redaction copies only what it changes and leaves errors and buffers alone', () => {
  const clean = { method: 'GET', nested: { list: [{ a: 1 }] } };
  expect(redactSecrets(clean)).toBe(clean);
  const err = new Error('boom');
  const input = { err, list: [{ token: 't_secret' }, { ok: 1 }], buf: Buffer.from('x') };
  const out = redactSecrets(input);
  expect(out).not.toBe(input);
  expect(input.list[0]).toEqual({ token: 't_secret' });
  expect(out.err).toBe(err);
  expect(out.buf).toBe(input.buf);
  expect(out.list).toEqual([{ token: REDACTED }, { ok: 1 }]);
  expect(out.list[1]).toBe(input.list[1]);
});

test('the request id of the active context is on each line; outside it none', () => {
  const { log, parsed } = captured('info');
  logContext.run({ requestId: 'req-abc' }, () => log.info({ a: 1 }, 'inside'));
  log.info('outside');
  log.debug('below the level');
  const [inside, outside, ...rest] = parsed();
  expect(inside).toMatchObject({ msg: 'inside', a: 1, requestId: 'req-abc' });
  expect(typeof inside?.time).toBe('string');
  expect(outside?.requestId).toBeUndefined();
  expect(rest).toEqual([]);
});

test('an incoming X-Request-Id is kept when sane, else replaced by a UUID', () => {
  expect(requestIdOf('abc-123_X.y:z')).toBe('abc-123_X.y:z');
  expect(requestIdOf(['first', 'second'])).toBe('first');
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  for (const bad of [undefined, '', 'a'.repeat(129), 'with space', 'line\nbreak', '{"json":1}', 'é'])
    expect(requestIdOf(bad)).toMatch(uuid);
  expect(requestIdOf(undefined)).not.toBe(requestIdOf(undefined));
});

test('LOG_LEVEL: info when unset, a known level kept, a typo refused', () => {
  expect(levelFromEnv({})).toBe('info');
  expect(levelFromEnv({ LOG_LEVEL: 'DEBUG' })).toBe('debug');
  expect(() => levelFromEnv({ LOG_LEVEL: 'verbose' })).toThrow(/LOG_LEVEL/);
});
