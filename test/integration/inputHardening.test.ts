/**
 * Issue 10 §4, "No input crashes a request": hostile JSON (`__proto__`, deep nesting), sub-micro amounts, unusual
 * methods, forms outside the checkout pages, rate limits shared through the database, and cloud metadata webhook
 * targets in development mode. Against the real API, worker and servers.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { Server } from 'node:http';
import { createApp } from '../../src/app';
import { RATE_LIMIT_COLLECTION } from '../../src/http/rateLimit';
import { OrderWorkflows } from '../../src/temporal/orders';
import { sendWebhook } from '../../src/webhooks/send';
import { freePort } from '../../scripts/lib/servers';
import { startStack, fundedAgent, OPERATOR_KEY, type ApiResponse, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const operator = { authorization: `Bearer ${OPERATOR_KEY}` };

/** A request with any method (fetch refuses TRACE) and a raw body; JSON bodies parsed. */
function raw(
  base: string,
  method: string,
  urlPath: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + urlPath,
      {
        method,
        headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

/**
 * Whether `res` refuses the body with `code`. ACP's delegate_payment answers in its own spec's error shape, whose
 * `code` is a closed list (openapi.delegate_payment.yaml; docs/agent-checkouts.md): there the reason is in `message`.
 */
function refusedWith(res: ApiResponse, path: string, code: string, reason: RegExp): boolean {
  if (res.status !== 400) return false;
  if (path === '/agentic_commerce/delegate_payment')
    return res.body?.type === 'invalid_request' && reason.test(String(res.body?.message ?? ''));
  return res.body?.code === code;
}

/** Every operation of the OpenAPI document that takes a body, with its path parameters filled in. */
async function bodyOperations(): Promise<{ method: string; path: string }[]> {
  const doc = await stack.call('GET', '/api/v1/openapi.json');
  expect(doc.status).toBe(200);
  const ops: { method: string; path: string }[] = [];
  for (const [p, item] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
    // The methods whose bodies are parsed (DELETE bodies are never read).
    for (const method of ['post', 'put', 'patch']) {
      if (item[method]) ops.push({ method: method.toUpperCase(), path: p.replace(/\{[^}]+\}/g, 'x-1') });
    }
  }
  return ops;
}

describe('JSON bodies with "__proto__" keys', () => {
  const bodies = [
    '{"__proto__": {"x": 1}, "service_id": "automation-wf"}',
    '{"service_id": "automation-wf", "inputs": {"workflow_type": "sync", "__proto__": {"isAdmin": true}}}',
    '[{"a": [{"__proto__": null}]}]',
    '{"\\u005f_proto__": {"x": 1}}',
  ];

  test('every operation answers 400 json_forbidden_key, never 500', async () => {
    const ops = await bodyOperations();
    expect(ops.length).toBeGreaterThanOrEqual(15);
    const failures: string[] = [];
    for (const op of ops) {
      for (const body of bodies) {
        const res = await stack.call(op.method, op.path, body, operator);
        if (!refusedWith(res, op.path, 'json_forbidden_key', /__proto__/))
          failures.push(`${op.method} ${op.path} ${body} → ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('the same request without the key still works', async () => {
    const ok = await stack.call('POST', '/api/v1/quote', '{"service_id": "automation-wf"}');
    expect(ok.status).toBe(201);
  });
});

describe('deeply nested JSON bodies', () => {
  const arrays = '['.repeat(10_000) + ']'.repeat(10_000);
  const objects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);

  test.each(['/api/v1/quote', '/api/v1/orders'])(
    'POST %s with an Idempotency-Key answers 400 json_too_deep',
    async (p) => {
      for (const [i, body] of [arrays, objects].entries()) {
        const res = await stack.call('POST', p, body, { 'idempotency-key': `deep-${i}-${p}` });
        expectProblem(res, 400, 'json_too_deep');
        expect(res.body.max_depth).toBe(64);
      }
    },
  );

  test('every operation refuses them, with or without an Idempotency-Key', async () => {
    const failures: string[] = [];
    for (const op of await bodyOperations()) {
      for (const headers of [{}, { 'idempotency-key': `deep-${op.method}-${op.path}` }] as Record<string, string>[]) {
        const res = await stack.call(op.method, op.path, arrays, { ...operator, ...headers });
        if (!refusedWith(res, op.path, 'json_too_deep', /nested deeper than 64 levels/))
          failures.push(`${op.method} ${op.path} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('64 levels are still accepted by the parser', async () => {
    let inputs: unknown = 'x';
    for (let i = 0; i < 63; i++) inputs = { a: inputs }; // the body, then 63 nested objects: depth 64
    const res = await stack.call(
      'POST',
      '/api/v1/quote',
      { service_id: 'automation-wf', inputs },
      { 'idempotency-key': 'depth-64' },
    );
    expect(res.body?.code).not.toBe('json_too_deep');
    expect(res.status).toBeLessThan(500);
    let deeper: unknown = inputs;
    deeper = { a: deeper };
    const over = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf', inputs: deeper });
    expectProblem(over, 400, 'json_too_deep');
  });
});

describe('USD amounts with more than six decimals', () => {
  beforeAll(async () => {
    await fundedAgent(stack, 'agent-decimals', 0);
  });

  test.each(['1e-7', '5e-324', '0.0000005', '1.0000001', '2.1234564'])(
    'a wallet credit of %s is 400 naming amount, nothing credited',
    async (amount) => {
      const res = await stack.call(
        'POST',
        '/api/v1/wallets/agent-decimals/credits',
        `{"amount": ${amount}, "transaction_id": "t-${amount}"}`,
        operator,
      );
      expectProblem(res, 400, 'invalid_request');
      expect(res.body.param).toBe('amount');
      const wallet = await stack.call('GET', '/api/v1/wallets/agent-decimals', undefined, operator);
      expect(wallet.body.balance_micros).toBe(0);
    },
  );

  test('six decimals are exact, not rounded', async () => {
    await fundedAgent(stack, 'agent-micro', 0);
    const res = await stack.call(
      'POST',
      '/api/v1/wallets/agent-micro/credits',
      '{"amount": 0.000001, "transaction_id": "one-micro"}',
      operator,
    );
    expect(res.status).toBe(201);
    expect(res.body.transaction.amount_micros).toBe(1);
    const more = await stack.call(
      'POST',
      '/api/v1/wallets/agent-micro/credits',
      '{"amount": 19.999999, "transaction_id": "more"}',
      operator,
    );
    expect(more.body.balance_micros).toBe(20_000_000);
  });

  test('the procurement budget and the discovery budget_max follow the same rule', async () => {
    const procure = await stack.call('POST', '/api/v1/procure', '{"objective": "book appointments", "budget": 1e-7}');
    expectProblem(procure, 400, 'invalid_request');
    expect(procure.body.param).toBe('budget');
    const discover = await stack.call('GET', '/api/v1/discover?budget_max=0.0000001');
    expect(discover.status).toBe(400);
    expect(discover.body.param).toBe('budget_max');
    expect((await stack.call('GET', '/api/v1/discover?budget_max=69.000001')).status).toBe(200);
  });
});

describe('methods no route has', () => {
  test.each(['TRACE', 'QUERY'])(
    '%s on a route is 405 method_not_allowed with Allow; on no route 404',
    async (method) => {
      const res = await raw(stack.url, method, '/api/v1/services');
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toMatch(/\bGET\b/);
      expect(res.body.allow).toContain('GET');
      const none = await raw(stack.url, method, '/no/such/route');
      expectProblem(none, 404, 'not_found');
      expect(none.headers.get('allow')).toBeNull();
    },
  );

  test('a method the path lacks is still 405 with the new code', async () => {
    const res = await stack.call('DELETE', '/api/v1/services');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toMatch(/\bGET\b/);
  });
});

describe('form bodies', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  test('are 415 unsupported_media_type outside the checkout pages', async () => {
    for (const p of ['/api/v1/quote', '/api/v1/orders', '/api/v1/webhooks', '/mcp']) {
      const res = await stack.call('POST', p, 'service_id=automation-wf', form);
      expectProblem(res, 415, 'unsupported_media_type');
    }
  });

  test('are still parsed by the hosted checkout pages', async () => {
    // Only the e-mail: the page asks for the service's inputs, not for the e-mail it read from the form.
    const res = await stack.call('POST', '/pay/services/automation-wf', 'email=buyer%40example.com', form);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const missing = /Please fill in: ([^<]*)\./.exec(res.text)?.[1];
    expect(missing).toBeTruthy();
    expect(missing).not.toMatch(/email/);
  });
});

describe('webhook targets in development mode', () => {
  test.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.10.1/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://[::ffff:169.254.169.254]/',
  ])('%s is refused even with DEV_MODE=true', async (url) => {
    expect(stack.config.DEV_MODE).toBe(true);
    const res = await stack.call('POST', '/api/v1/webhooks', { url });
    expectProblem(res, 422, 'webhook_target_forbidden');
    expect(res.body.detail).toMatch(/metadata/);
    const sent = await sendWebhook(url, '{}', {}, true);
    expect(sent).toMatchObject({ forbidden: true, status: null });
  });

  test('loopback targets stay allowed in development mode', async () => {
    const res = await stack.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
    expect(res.status).toBe(200);
  });
});

describe('rate limits', () => {
  let limited: Stack;
  let second: Server | undefined;
  beforeAll(async () => {
    limited = await startStack({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '6', RATE_LIMIT_PER_MINUTE: '4' });
  }, 120_000);
  afterAll(async () => {
    if (second) await new Promise<void>((resolve) => second!.close(() => resolve()));
    await limited?.stop();
  });

  test('the counters live in the database, with a unique key index and a TTL index', async () => {
    // Not /health: it is not counted (it must answer while the database is down, issue 14).
    await limited.call('GET', '/api/v1/services', undefined, { authorization: 'Bearer index-check' });
    const indexes = await limited.services.db.db.collection(RATE_LIMIT_COLLECTION).indexes();
    expect(indexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { key: 1 }, unique: true }),
        expect.objectContaining({ key: { expire: 1 }, expireAfterSeconds: 0 }),
      ]),
    );
    expect(await limited.services.db.db.collection(RATE_LIMIT_COLLECTION).countDocuments({})).toBeGreaterThan(0);
  });

  test('an anonymous burst gets 429 rate_limited with Retry-After and RateLimit fields, shared by two API processes', async () => {
    // A second API on the same database: the counters are shared, not per process.
    const port = await freePort();
    const app = createApp({
      config: limited.config,
      services: limited.services,
      temporal: limited.client,
      orderWorkflows: new OrderWorkflows(limited.client, limited.config.TEMPORAL_TASK_QUEUE),
    });
    second = await new Promise<Server>((resolve) => {
      const s = app.listen(port, '127.0.0.1', () => resolve(s));
    });
    const otherUrl = `http://127.0.0.1:${port}`;
    // Warm the shared response cache of the catalogue (one counted request).
    expect((await limited.call('GET', '/api/v1/services')).status).toBe(200);
    const statuses: number[] = [];
    let last: ApiResponse | undefined;
    for (let i = 0; i < 8; i++) {
      last = await raw(i % 2 ? otherUrl : limited.url, 'GET', `/api/v1/orders/ord_none${i}`);
      statuses.push(last.status);
      if (last.status !== 429) expect(last.headers.get('ratelimit-policy')).toBe('"address";q=6;w=60');
    }
    expect(statuses.filter((s) => s !== 429)).toHaveLength(5);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expectProblem(last!, 429, 'rate_limited');
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last!.headers.get('ratelimit')).toMatch(/^"address";r=0;t=\d+$/);
    // A forged X-Forwarded-For does not escape (no proxy is trusted by default).
    const spoofed = await raw(limited.url, 'GET', '/api/v1/orders/ord_x', undefined, {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(spoofed.status).toBe(429);
    // Cached anonymous public GETs are not counted.
    expect((await limited.call('GET', '/api/v1/services')).status).toBe(200);
  });

  test('each credential has its own budget', async () => {
    const a = { authorization: 'Bearer ak_rate_a' };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, a)).status);
    expect(statuses.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(4)).toEqual([429, 429]);
    const b = await limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, {
      authorization: 'Bearer ak_rate_b',
    });
    expect(b.status).not.toBe(429);
    expect(b.headers.get('ratelimit-policy')).toBe('"credential";q=4;w=60');
  });

  test('a counter whose window ended but is not swept yet starts a new window (not a request uncounted)', async () => {
    const h = { authorization: 'Bearer ak_rate_expired' };
    expect((await limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, h)).status).not.toBe(429);
    const counters = limited.services.db.db.collection<{ key: string; points: number; expire: Date }>(
      RATE_LIMIT_COLLECTION,
    );
    const key = { key: `cred:${createHash('sha256').update('ak_rate_expired').digest('hex')}` };
    expect(await counters.findOne(key)).toMatchObject({ points: 1 });
    // The TTL monitor has not run yet: the spent window's counter is still there, expired.
    await counters.updateOne(key, { $set: { points: 4, expire: new Date(Date.now() - 1000) } });
    expect((await limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, h)).status).not.toBe(429);
    const renewed = await counters.findOne(key);
    expect(renewed?.points).toBe(1);
    expect(renewed!.expire.getTime()).toBeGreaterThan(Date.now());
  });

  test('a burst at the window rollover (the expired counter still there): the new window counts every request once', async () => {
    const h = { authorization: 'Bearer ak_rate_rollover' };
    expect((await limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, h)).status).not.toBe(429);
    const counters = limited.services.db.db.collection<{ key: string; points: number; expire: Date }>(
      RATE_LIMIT_COLLECTION,
    );
    const key = { key: `cred:${createHash('sha256').update('ak_rate_rollover').digest('hex')}` };
    await counters.updateOne(key, { $set: { points: 4, expire: new Date(Date.now() - 1000) } });
    const burst = await Promise.all(
      Array.from({ length: 30 }, () => limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, h)),
    );
    expect(burst.filter((r) => r.status !== 429)).toHaveLength(4);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(26);
    expect((await counters.findOne(key))?.points).toBe(30);
  });

  test('concurrent first requests of a credential all count (the upserts that lose the race to create its counter count again)', async () => {
    for (let n = 0; n < 5; n++) {
      const h = { authorization: `Bearer ak_rate_race_${n}` };
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => limited.call('GET', '/api/v1/wallets/rate-nobody', undefined, h)),
      );
      // A budget of 4: exactly 4 pass, however the 12 raced to create the counter.
      expect(burst.filter((r) => r.status !== 429)).toHaveLength(4);
    }
  });
});

describe('burst limits', () => {
  let bursty: Stack;
  beforeAll(async () => {
    bursty = await startStack({ RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '5', RATE_LIMIT_BURST_PER_SECOND: '5' });
  }, 120_000);
  afterAll(async () => {
    await bursty?.stop();
  });

  test('a quick burst meets the per-second limit long before the minute one: 429 with window_seconds 1', async () => {
    for (const headers of [{}, { authorization: 'Bearer ak_burst' }] as Record<string, string>[]) {
      const answers: ApiResponse[] = [];
      for (let i = 0; i < 20; i++)
        answers.push(await bursty.call('GET', `/api/v1/orders/ord_burst${i}`, undefined, headers));
      const limited = answers.filter((a) => a.status === 429);
      // At most 5 per one-second window pass; 20 quick requests span one or two windows.
      expect(limited.length).toBeGreaterThanOrEqual(10);
      expectProblem(limited[0]!, 429, 'rate_limited');
      expect(limited[0]!.body).toMatchObject({ limit: 5, window_seconds: 1, retry_after_seconds: 1 });
      expect(limited[0]!.headers.get('retry-after')).toBe('1');
    }
  });
});
