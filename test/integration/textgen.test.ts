/**
 * Issue 13 end to end: services whose promise is language work go through the configured model (the local fake
 * chat-completions server test/globalSetup.ts starts), and without a model they are refused at order creation with
 * 422 text_generation_unavailable, while deterministic services are ordered as usual.
 */
import { placeholderReply, schemaReply, startFakeTextModel, type FakeTextModel } from '../helpers/fakeTextModel';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';

describe('without a model configured', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ TEXTGEN_BASE_URL: '', TEXTGEN_MODEL: '' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('task-worker and a bundle holding the consultation are refused up front, naming what is missing; the catalogue says so', async () => {
    const refused = await stack.call('POST', '/api/v1/orders', {
      service_id: 'task-worker',
      inputs: { task_prompt: 'Write five e-mails for our spring sale' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'text_generation_unavailable',
      missing: ['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL'],
      needed_by: ['task-worker'],
      param: 'service_id',
    });
    const bundle = await stack.call('POST', '/api/v1/orders', {
      service_id: 'starter-pack',
      inputs: { business_name: 'Bright Smile', industry: 'Dental', contact_email: 'a@b.example' },
    });
    expect(bundle.status).toBe(422);
    expect(bundle.body.needed_by).toEqual(['smart-consultation']);
    const fine = await stack.call('POST', '/api/v1/orders', {
      service_id: 'website-booking',
      inputs: { business_name: 'Bright Smile', industry: 'Dental', services: 'Cleaning (45 min)' },
    });
    expect(fine.status).toBe(201);
    const catalogue = await stack.call('GET', '/api/v1/services');
    const tw = catalogue.body.services.find((s: { id: string }) => s.id === 'task-worker');
    expect(tw.constraints.requires).toEqual(['text_generation_model']);
  });

  test('a human on the payment link is told so on a page, not in JSON', async () => {
    const res = await fetch(`${stack.url}/pay/services/starter-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        business_name: 'Bright Smile',
        industry: 'Dental',
        contact_email: 'a@b.example',
        email: 'human@example.com',
      }),
      redirect: 'manual',
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('cannot be ordered here');
    expect(page).toContain('TEXTGEN_BASE_URL');
  });
});

describe('with the model configured', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('a task-worker order delivers the pieces it asks for, written through the model', async () => {
    const key = await fundedAgent(stack, 'agent-textgen', 20);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'task-worker',
      agent_id: 'agent-textgen',
      inputs: { task_prompt: 'Write three taglines for Harbor Bikes, a bike repair shop.', format: 'markdown' },
    });
    expect(created.status).toBe(201);
    const id = created.body.order_id as string;
    expect(
      (
        await stack.call(
          'POST',
          `/api/v1/orders/${id}/confirm_payment`,
          { rail: 'agent_wallet' },
          { authorization: `Bearer ${key}` },
        )
      ).status,
    ).toBe(200);
    const order = await waitForOrder(stack, id, (o) => o.status === 'delivered');
    const json = (order.deliverables as { name: string; url: string }[]).find(
      (d) => d.name === 'task-worker-result.json',
    );
    const result = (await (await fetch(json!.url)).json()) as {
      result: { count: number };
      written_by: { model: string };
    };
    expect(result.result.count).toBe(3);
    expect(result.written_by.model).toBe('fake-model');
  });
});

describe('when the model fails', () => {
  let stack: Stack;
  let model: FakeTextModel;
  let flakyCalls = 0;
  beforeAll(async () => {
    // A model that refuses one prompt for good (401) and fails another twice (503) before answering.
    model = await startFakeTextModel((req) => {
      const prompt = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      if (prompt.includes('PLACEHOLDER')) return placeholderReply(req);
      if (prompt.includes('REFUSED')) return { status: 401, json: { error: { message: 'invalid api key' } } };
      if (prompt.includes('FLAKY') && (flakyCalls += 1) <= 2)
        return { status: 503, json: { error: { message: 'overloaded' } } };
      return schemaReply(req);
    });
    stack = await startStack({ TEXTGEN_BASE_URL: model.baseUrl, TEXTGEN_MODEL: 'scripted-model' });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await model?.stop();
  });

  async function orderAndPay(agent: string, prompt: string): Promise<string> {
    const key = await fundedAgent(stack, agent, 15);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'task-worker',
      agent_id: agent,
      inputs: { task_prompt: prompt },
    });
    expect(created.status).toBe(201);
    const id = created.body.order_id as string;
    expect(
      (
        await stack.call(
          'POST',
          `/api/v1/orders/${id}/confirm_payment`,
          { rail: 'agent_wallet' },
          { authorization: `Bearer ${key}` },
        )
      ).status,
    ).toBe(200);
    return id;
  }

  test('a 503 is retried by the activity until the model answers; the order is delivered', async () => {
    const id = await orderAndPay('agent-flaky', 'FLAKY: write two taglines for a bakery');
    await waitForOrder(stack, id, (o) => o.status === 'delivered', 60_000);
    expect(flakyCalls).toBe(3);
  }, 90_000);

  test('issue 38 §5: placeholder work is asked again, then failed and refunded, never completed', async () => {
    const before = model.requests.length;
    const id = await orderAndPay('agent-placeholder', 'PLACEHOLDER: write five e-mails for our spring sale');
    const order = await waitForOrder(stack, id, (o) => o.status === 'refunded', 30_000);
    expect((order.progress as { status: string }[]).map((p) => p.status)).not.toContain('delivered');
    expect(model.requests.length - before).toBe(3);
    expect(await stack.services.wallets.balance('agent-placeholder')).toBe(15_000_000);
  }, 60_000);

  test('a refused key is not retried: the fulfilment fails at once and the payment is refunded', async () => {
    const before = model.requests.length;
    const id = await orderAndPay('agent-refused', 'REFUSED: write two taglines for a bakery');
    await waitForOrder(stack, id, (o) => o.status === 'refunded', 30_000);
    expect(model.requests.length - before).toBe(1);
    expect(await stack.services.wallets.balance('agent-refused')).toBe(15_000_000);
  }, 60_000);
});
