/**
 * Pure webhook helpers: the SSRF address classifier, Standard Webhooks signing (checked against the
 * `standardwebhooks` package), Retry-After parsing and the event catalogue.
 */
import { Webhook } from 'standardwebhooks';
import { EVENT_CATALOGUE, EVENT_TYPES, eventMatches, isEventFilter } from '../../src/domain/events';
import { parseRetryAfter } from '../../src/webhooks/send';
import { newSigningSecret, signatureHeader } from '../../src/webhooks/signing';
import { assertPublicTarget, isPublicAddress } from '../../src/webhooks/ssrf';
import { ORDER_EVENT_TYPES } from '../../src/domain/order';

test.each([
  '127.0.0.1',
  '127.255.0.1',
  '10.0.0.1',
  '172.16.5.4',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  'fe80::1',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '64:ff9b::a00:1',
  'not-an-ip',
])('%s is not a public address', (ip) => {
  expect(isPublicAddress(ip)).toBe(false);
});

test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
  '%s is public',
  (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  },
);

test('assertPublicTarget refuses non-http schemes and credentials always, private literals unless allowed', async () => {
  await expect(assertPublicTarget('ftp://8.8.8.8/', true)).rejects.toThrow(/http/);
  await expect(assertPublicTarget('http://user:pw@8.8.8.8/', true)).rejects.toThrow(/credentials/);
  await expect(assertPublicTarget('http://10.0.0.1/hook', false)).rejects.toThrow(/not a public address/);
  await expect(assertPublicTarget('http://[::1]:8080/hook', false)).rejects.toThrow(/not a public address/);
  await expect(assertPublicTarget('http://10.0.0.1/hook', true)).resolves.toBeUndefined();
  await expect(assertPublicTarget('https://8.8.8.8/hook', false)).resolves.toBeUndefined();
});

test('signatures verify with the standardwebhooks package; each rotated secret signs', () => {
  const a = newSigningSecret();
  const b = newSigningSecret();
  expect(a).toMatch(/^whsec_/);
  expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
  const body = JSON.stringify({ type: 'order.paid', timestamp: new Date().toISOString(), data: { seq: 2 } });
  const ts = Math.floor(Date.now() / 1000);
  const header = signatureHeader([a, b], 'msg_1', ts, body);
  expect(header.split(' ')).toHaveLength(2);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': header };
  expect(new Webhook(a).verify(body, headers)).toMatchObject({ type: 'order.paid' });
  expect(new Webhook(b).verify(body, headers)).toMatchObject({ type: 'order.paid' });
  expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  expect(() => new Webhook(a).verify(body + ' ', headers)).toThrow();
  // Same result as the package's own signer.
  expect(signatureHeader([a], 'msg_1', ts, body)).toBe(new Webhook(a).sign('msg_1', new Date(ts * 1000), body));
});

test('Retry-After: delta seconds, HTTP dates, garbage, and a 24-hour cap', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  expect(parseRetryAfter('120', now)).toBe(120_000);
  expect(parseRetryAfter('Thu, 01 Jan 2026 00:10:00 GMT', now)).toBe(600_000);
  expect(parseRetryAfter('soon', now)).toBeNull();
  expect(parseRetryAfter(undefined, now)).toBeNull();
  expect(parseRetryAfter('999999', now)).toBe(24 * 3600_000);
});

test('the catalogue covers every order event and filters match by name, group wildcard or all', () => {
  for (const type of Object.values(ORDER_EVENT_TYPES)) expect(EVENT_TYPES).toContain(type);
  expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  for (const e of EVENT_CATALOGUE) expect(e.type).toMatch(/^[a-z]+\.[a-z_]+$/);
  expect(isEventFilter('order.*')).toBe(true);
  expect(isEventFilter('subscription.*')).toBe(true);
  expect(isEventFilter('robot.*')).toBe(false);
  expect(isEventFilter('order.teleported')).toBe(false);
  expect(eventMatches([], 'order.paid')).toBe(true);
  expect(eventMatches(['order.*'], 'order.paid')).toBe(true);
  expect(eventMatches(['order.*'], 'procurement.completed')).toBe(false);
  expect(eventMatches(['order.delivered'], 'order.paid')).toBe(false);
  expect(eventMatches(['*'], 'subscription.renewed')).toBe(true);
});
