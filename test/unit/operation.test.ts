/**
 * One definition per operation (issue 11 §1): the route, its validation, its OpenAPI operation and its MCP tool all
 * come from the definition, and an error's status from its code's definition. The route is the gate (issue 27 §1):
 * the declared auth is enforced for every kind, the resource loaded and every declared part parsed before the handler.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { z } from 'zod';
import { ERRORS, notFound, problem } from '../../src/errors';
import { bodyMiddleware } from '../../src/http/body';
import { problemMiddleware } from '../../src/http/errors';
import { refuse, type Actor } from '../../src/routes/gate';
import { OperationRouter, defineOperation, openApiOperation, type RawRequest } from '../../src/routes/operation';
import { orderOperations } from '../../src/routes/api/orders/schema';
import { toolOf } from '../../src/mcp/tools';
import type { AppDeps } from '../../src/routes/context';

const OPERATOR_KEY = 'op_unit_key_0123456789abcdef';

const thing = defineOperation({
  id: 'updateThing',
  method: 'post',
  path: '/things/{thing_id}',
  summary: 'Update a thing',
  auth: 'none',
  request: {
    params: z.object({ thing_id: z.string().regex(/^t_\d+$/) }),
    query: z.object({ times: z.coerce.number().int().min(1).default(1) }),
    body: z.object({ name: z.string().min(1) }).strict(),
  },
  responses: {
    '200': { description: 'The thing', json: z.object({ id: z.string(), name: z.string(), times: z.number() }) },
  },
  errors: {
    not_found: 'Unknown thing',
    invalid_request: 'Bad name',
    payment_failed: { status: 410, description: 'Gone for good' },
  },
});

const secret = defineOperation({
  id: 'readSecret',
  method: 'get',
  path: '/secret',
  summary: 'Operators only',
  auth: 'operator',
  responses: { '200': { description: 'The secret', json: z.object({ ok: z.boolean() }) } },
});

/** A thing only its owner may rename (`Bearer owner`); `Prefer` is a declared header. */
const guarded = defineOperation({
  id: 'renameThing',
  method: 'post',
  path: '/owned/{thing_id}',
  summary: 'Rename an owned thing',
  auth: 'buyer',
  request: {
    params: z.object({ thing_id: z.string().max(8) }),
    body: z.object({ name: z.string().min(1) }).strict(),
    headers: z.object({ Prefer: z.enum(['loud', 'quiet']).optional() }),
  },
  responses: { '200': { description: 'The thing', json: z.object({ id: z.string(), name: z.string() }) } },
});

/** Things by id; an id that cannot exist (not `t_` and digits) is not found, as an unknown one. */
const loadThing = (_input: unknown, raw: RawRequest) => {
  const id = raw.params.thing_id ?? '';
  if (!/^t_\d+$/.test(id) || id === 't_404') throw notFound('not_found', `No thing ${id}`);
  return { id, owner: 'owner' };
};
const ownerOnly = {
  load: loadThing,
  authorize: (actor: Actor, thing: { id: string; owner: string }) =>
    actor.token === thing.owner ? ('buyer' as const) : refuse(actor, 'Send the owner key', 'Not the owner key'),
};

let server: Server;
let base: string;
let handled = 0;
let lastPrefer: string | undefined;

beforeAll(async () => {
  const router = new OperationRouter({ config: { OPERATOR_KEY } } as unknown as AppDeps)
    .on(thing, (ctx, input) => {
      handled++;
      ctx.body = { id: input.params.thing_id, name: input.body.name, times: input.query.times };
    })
    .on(guarded, ownerOnly, (ctx, input, owned, access) => {
      handled++;
      lastPrefer = input.headers.Prefer;
      ctx.body = { id: owned.id, name: input.body.name, as: access.as };
    })
    .on(secret, (ctx) => {
      ctx.body = { ok: true };
    });
  const app = new Koa();
  app.use(problemMiddleware(() => undefined));
  app.use(bodyMiddleware());
  app.use(router.router.routes());
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((r) => server.close(r)));

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('the route of a definition', () => {
  test('serves its method and path with the parsed parts (query coerced, defaults applied)', async () => {
    const res = await post('/things/t_7?times=3', { name: 'lamp' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 't_7', name: 'lamp', times: 3 });
    expect(((await post('/things/t_7', { name: 'lamp' }).then((r) => r.json())) as { times: number }).times).toBe(1);
  });

  test('a bad body, query or path parameter is a 400 naming it', async () => {
    const body = await post('/things/t_7', { name: '' });
    expect(body.status).toBe(400);
    expect(await body.json()).toMatchObject({ code: 'invalid_request', param: 'name' });
    const extra = (await (await post('/things/t_7', { name: 'x', color: 'red' })).json()) as { code: string };
    expect(extra.code).toBe('invalid_request');
    const paramOf = async (res: Promise<Response>) => ((await (await res).json()) as { param?: string }).param;
    expect(await paramOf(post('/things/t_7?times=0', { name: 'x' }))).toBe('times');
    expect(await paramOf(post('/things/nope', { name: 'x' }))).toBe('thing_id');
  });

  test('every declared part is parsed before the handler runs', async () => {
    const before = handled;
    expect((await post('/things/t_7?times=0', { name: 'x' })).status).toBe(400);
    expect((await post('/owned/t_7', { name: 'x' }, { authorization: 'Bearer owner', prefer: 'shout' })).status).toBe(
      400,
    );
    expect(handled).toBe(before);
    const ok = await post('/owned/t_7', { name: 'x' }, { authorization: 'Bearer owner', prefer: 'quiet' });
    expect(await ok.json()).toEqual({ id: 't_7', name: 'x', as: 'buyer' });
    expect(lastPrefer).toBe('quiet');
  });

  test('the policy answers before the parts are parsed: none 401, a stranger 403, the owner through', async () => {
    const before = handled;
    const none = await post('/owned/t_7', { name: '' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toMatchObject({ code: 'unauthorized', detail: 'Send the owner key' });
    const stranger = await post('/owned/t_7', { name: '' }, { authorization: 'Bearer someone' });
    expect(await stranger.json()).toMatchObject({ status: 403, code: 'forbidden', detail: 'Not the owner key' });
    // X-Operator-Key is a credential too, just not this one.
    expect((await post('/owned/t_7', { name: '' }, { 'x-operator-key': 'op_wrong' })).status).toBe(403);
    expect(handled).toBe(before);
    expect((await post('/owned/t_7', { name: '' }, { authorization: 'Bearer owner' })).status).toBe(400);
  });

  test('the resource is loaded before the policy: an unknown or impossible id is its 404', async () => {
    expect((await post('/owned/t_404', { name: 'x' })).status).toBe(404);
    // Longer than the declared path schema allows: the lookup, which runs first, does not find it.
    expect((await post('/owned/nothing-like-an-id', { name: 'x' })).status).toBe(404);
  });

  test('an operator-only operation checks the key before its handler: none 401, another 403', async () => {
    expect((await fetch(`${base}/secret`)).status).toBe(401);
    expect((await fetch(`${base}/secret`, { headers: { authorization: 'Bearer op_wrong' } })).status).toBe(403);
    const ok = await fetch(`${base}/secret`, { headers: { 'x-operator-key': OPERATOR_KEY } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
  });

  test('mounting refuses a definition whose declared auth would go unchecked', () => {
    const router = new OperationRouter({ config: { OPERATOR_KEY } } as unknown as AppDeps);
    // A kind the router cannot check alone, without a policy.
    expect(() => router.on(guarded, () => undefined)).toThrow(
      /renameThing declares auth buyer: mount it with a policy/,
    );
    // A policy on an operation that declares no credential it could grant.
    const grant = { authorize: () => 'buyer' } as unknown as Parameters<typeof router.on<typeof thing, undefined>>[1];
    expect(() => router.on(thing, grant, () => undefined)).toThrow(/updateThing declares auth none/);
  });

  test('a policy that grants a kind its definition does not declare is a server error, not a way in', async () => {
    const router = new OperationRouter({ config: { OPERATOR_KEY } } as unknown as AppDeps);
    const lax = { load: loadThing, authorize: () => 'operator' } as unknown as typeof ownerOnly;
    router.on({ ...guarded, path: '/lax/{thing_id}' }, lax, (ctx) => {
      ctx.body = { reached: true };
    });
    const app = new Koa();
    app.use(problemMiddleware(() => undefined));
    app.use(bodyMiddleware());
    app.use(router.router.routes());
    const lone = app.listen(0, '127.0.0.1');
    await new Promise((r) => lone.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(lone.address() as AddressInfo).port}/lax/t_1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x' }),
      });
      expect(res.status).toBe(500);
    } finally {
      await new Promise((r) => lone.close(r));
    }
  });

  test('another method on the path is not routed', async () => {
    const before = handled;
    expect((await fetch(`${base}/things/t_7`)).status).toBe(404);
    expect(handled).toBe(before);
  });
});

describe('the OpenAPI operation of a definition', () => {
  test('documents parameters, body, success and each error code under its status', () => {
    const op = openApiOperation(thing);
    expect(op.operationId).toBe('updateThing');
    expect(Object.keys(op.requestParams ?? {}).sort()).toEqual(['path', 'query']);
    expect(Object.keys(op.requestBody?.content ?? {})).toEqual(['application/json']);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '404', '410']);
    expect((op.responses['410'] as { description: string }).description).toBe('Gone for good (payment_failed)');
    expect((op.responses['404'] as { description: string }).description).toBe('Unknown thing (not_found)');
  });

  test('a credential kind adds the Authorization header and its 401 / 403', () => {
    const op = openApiOperation(secret);
    expect(Object.keys((op.requestParams?.header as z.ZodObject | undefined)?.shape ?? {})).toEqual(['Authorization']);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '403']);
  });
});

describe('error status from the code', () => {
  test('problem() takes the status of the code, unless the one answer says otherwise', () => {
    expect(problem('quote_expired').status).toBe(409);
    expect(problem('wallet_not_found').status).toBe(404);
    expect(problem('payment_failed', 'gone', {}, { status: 410 }).status).toBe(410);
    expect(problem('rate_limited', 'slow down', {}, { headers: { 'Retry-After': '3' } }).headers).toEqual({
      'Retry-After': '3',
    });
    expect(problem('forbidden').toProblem('/x')).toMatchObject({
      status: 403,
      title: ERRORS.forbidden.title,
      code: 'forbidden',
      instance: '/x',
    });
  });
});

describe('the MCP tool of a definition', () => {
  test('takes path parameters, the body and the credential, and calls the REST operation with them', () => {
    const tool = toolOf(orderOperations.confirmPayment);
    expect(tool.name).toBe('confirm_payment');
    const args = { order_id: 'ord_a/b', rail: 'agent_wallet', agent_key: 'ak_1' };
    expect(tool.input.safeParse(args).success).toBe(true);
    expect(tool.input.safeParse({ rail: 'agent_wallet' }).success).toBe(false);
    expect(tool.request(args)).toEqual({
      method: 'POST',
      path: '/api/v1/orders/ord_a%2Fb/confirm_payment',
      body: { rail: 'agent_wallet' },
      bearer: 'ak_1',
    });
  });

  test('an operation without MCP exposure has no tool', () => {
    expect(() => toolOf(orderOperations.events)).toThrow(/not exposed/);
  });
});
