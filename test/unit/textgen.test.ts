/**
 * The text-generation port's OpenAI-compatible adapter against a real local HTTP server speaking the
 * chat-completions shape (test/helpers/fakeTextModel.ts), its error mapping, the pipeline that feeds replies to the
 * generators, and the up-front refusal when no model is configured (issue 13).
 */
import { z } from 'zod';
import { getService, SERVICES, TEXT_GENERATION_MODEL } from '../../src/domain/catalogue';
import { produceDeliverables } from '../../src/products/deliverables';
import { LANGUAGE_ASKS } from '../../src/products/deliverables/index';
import { refuseUnavailableService } from '../../src/products/deliverables/availability';
import { languageTask } from '../../src/products/deliverables/language';
import { ProblemError } from '../../src/errors';
import { asTextGenerationFailure } from '../../activities/failures';
import { ApplicationFailure } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import {
  OpenAiCompatibleTextGenerator,
  TextGenerationError,
  createTextGenerator,
  missingTextgenSettings,
} from '../../src/textgen';
import {
  placeholderReply,
  schemaReply,
  startFakeTextModel,
  writtenText,
  type FakeReply,
  type FakeRequest,
  type FakeTextModel,
} from '../helpers/fakeTextModel';

const task = languageTask(
  'greeting',
  true,
  'You greet.',
  'Greet Dana.',
  z.object({ text: z.string(), count: z.number() }),
);

function completion(content: string): FakeReply {
  return {
    status: 200,
    json: {
      id: 'x',
      object: 'chat.completion',
      model: 'served-model-1',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    },
  };
}

describe('OpenAiCompatibleTextGenerator over HTTP', () => {
  let model: FakeTextModel;
  let script: ((req: FakeRequest) => FakeReply) | null = null;
  beforeAll(async () => {
    model = await startFakeTextModel((req) => (script ? script(req) : schemaReply(req)));
  });
  afterAll(() => model.stop());
  beforeEach(() => {
    script = null;
    model.requests.length = 0;
  });

  test('sends the chat-completions request (model, messages, json_schema, bearer key) and parses the JSON content', async () => {
    script = () => completion('{"text":"Hello Dana","count":2}');
    const gen = new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm-1', apiKey: 'sk-test' });
    const out = await gen.generate(task.request);
    expect(out).toEqual({ value: { text: 'Hello Dana', count: 2 }, model: 'served-model-1' });
    const req = model.requests[0];
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-test');
    expect(req?.body.model).toBe('m-1');
    expect(req?.body.messages?.map((m) => m.role)).toEqual(['system', 'user']);
    expect(req?.body.messages?.[1]?.content).toBe('Greet Dana.');
    expect(req?.body.response_format?.type).toBe('json_schema');
    expect(req?.body.response_format?.json_schema?.schema).toMatchObject({
      type: 'object',
      required: ['text', 'count'],
    });
  });

  test('a fenced JSON reply is read; no key sends no Authorization header', async () => {
    script = () => completion('```json\n{"text":"Hi","count":1}\n```');
    const out = await new OpenAiCompatibleTextGenerator({ baseUrl: `${model.baseUrl}/`, model: 'm' }).generate(
      task.request,
    );
    expect(out.value).toEqual({ text: 'Hi', count: 1 });
    expect(model.requests[0]?.headers.authorization).toBeUndefined();
  });

  test.each([
    [500, 'upstream_error', true],
    [503, 'upstream_error', true],
    [429, 'rate_limited', true],
    [401, 'rejected', false],
    [400, 'rejected', false],
    [404, 'rejected', false],
  ])('HTTP %i → %s, retryable %s', async (status, code, retryable) => {
    script = () => ({ status, json: { error: { message: `status ${status}` } } });
    const err = await new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm' })
      .generate(task.request)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TextGenerationError);
    expect(err).toMatchObject({ code, retryable, status });
  });

  test('a reply that is not a chat completion, empty content or non-JSON content is a retryable bad_response', async () => {
    const gen = new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm' });
    for (const reply of [
      { status: 200, text: '<html>proxy</html>' },
      completion(''),
      completion('Sure! Here you go.'),
      { status: 200, json: { choices: [] } },
    ] as FakeReply[]) {
      script = () => reply;
      await expect(gen.generate(task.request)).rejects.toMatchObject({ code: 'bad_response', retryable: true });
    }
  });

  test('a server slower than the timeout is a retryable timeout', async () => {
    script = () => ({ ...completion('{"text":"late","count":1}'), delayMs: 1500 });
    const started = Date.now();
    await expect(
      new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm', timeoutMs: 200 }).generate(task.request),
    ).rejects.toMatchObject({ code: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(1400);
  });

  test('an unreachable server is a retryable network error', async () => {
    const gone = await startFakeTextModel();
    const url = gone.baseUrl;
    await gone.stop();
    await expect(
      new OpenAiCompatibleTextGenerator({ baseUrl: url, model: 'm' }).generate(task.request),
    ).rejects.toMatchObject({ code: 'network', retryable: true });
  });

  test("produceDeliverables sends task-worker's prompt through the port and delivers the pieces asked for", async () => {
    const gen = createTextGenerator(loadConfig({ TEXTGEN_BASE_URL: model.baseUrl, TEXTGEN_MODEL: 'fake-model' }));
    expect(gen).toBeInstanceOf(OpenAiCompatibleTextGenerator);
    const files = await produceDeliverables(
      {
        orderId: 'ord_tg_1',
        serviceId: 'task-worker',
        inputs: {
          task_prompt: 'Write five e-mails announcing our spring sale to past customers of Harbor Bikes.',
          format: 'markdown',
        },
        issuedAt: '2026-03-01T10:00:00.000Z',
      },
      gen,
    );
    const sent = model.requests[0]?.body;
    expect(sent?.messages?.[1]?.content).toContain('Harbor Bikes');
    expect(sent?.messages?.[0]?.content).toMatch(/exactly 5/);
    const json = JSON.parse(files.find((f) => f.name === 'task-worker-result.json')?.content.toString() ?? '{}');
    expect(json.result.count).toBe(5);
    expect(json.task.requested).toEqual({ count: 5, kind: 'e-mails' });
    // One section per piece, each with its subject line (an e-mail has one: issue 38 §5).
    const md = files.find((f) => f.name === 'task-worker-result.md')?.content.toString() ?? '';
    expect(md.match(/^## /gm)).toHaveLength(5 + 2);
    expect(md.match(/^\*\*subject line:\*\* \S/gm)).toHaveLength(5);
    expect(json.result.items[0].fields.subject_line).toEqual(expect.any(String));
  });

  test('issue 38 §5: placeholder replies are asked again with the reasons, then refused as unusable (not retryable)', async () => {
    const gen = new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm' });
    const ctx = {
      orderId: 'o',
      serviceId: 'task-worker',
      inputs: { task_prompt: 'Write five e-mails announcing our spring sale to past customers of Harbor Bikes.' },
      issuedAt: '2026-03-01T10:00:00.000Z',
    };
    const before = model.requests.length;
    script = (req) => placeholderReply(req);
    await expect(produceDeliverables(ctx, gen)).rejects.toMatchObject({ code: 'unusable', retryable: false });
    const asked = model.requests.slice(before);
    expect(asked).toHaveLength(LANGUAGE_ASKS);
    expect(asked[1]?.body.messages?.[1]?.content).toMatch(/previous answer was refused: .*schema path/);
    // One e-mail where five were asked: refused by the schema, asked again, refused.
    script = () =>
      completion(
        JSON.stringify({
          title: 'Spring sale',
          pieces: [{ heading: 'E-mail 1', body: writtenText('one'), fields: { subject_line: 'Spring is here' } }],
          notes: [],
        }),
      );
    await expect(produceDeliverables(ctx, gen)).rejects.toMatchObject({ code: 'unusable' });
  });

  test("a reply of the wrong shape, asked again, fails the required task as unusable; a failing model fails it as the model's error", async () => {
    const gen = new OpenAiCompatibleTextGenerator({ baseUrl: model.baseUrl, model: 'm' });
    const ctx = {
      orderId: 'o',
      serviceId: 'task-worker',
      inputs: { task_prompt: 'Write three taglines for a bakery.' },
      issuedAt: '2026-03-01T10:00:00.000Z',
    };
    script = () => completion(JSON.stringify({ title: 't', pieces: [{ heading: 'a', body: 'b' }], notes: [] }));
    await expect(produceDeliverables(ctx, gen)).rejects.toMatchObject({ code: 'unusable', retryable: false });
    script = () => ({ status: 401, json: { error: { message: 'bad key' } } });
    await expect(produceDeliverables(ctx, gen)).rejects.toMatchObject({ code: 'rejected', retryable: false });
  });
});

describe('without a model', () => {
  test('config: both TEXTGEN_BASE_URL and TEXTGEN_MODEL are needed; empty values count as unset', () => {
    expect(missingTextgenSettings(loadConfig({}))).toEqual(['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL']);
    expect(
      missingTextgenSettings(loadConfig({ TEXTGEN_BASE_URL: 'http://127.0.0.1:1/v1', TEXTGEN_MODEL: '' })),
    ).toEqual(['TEXTGEN_MODEL']);
    expect(createTextGenerator(loadConfig({ TEXTGEN_BASE_URL: '', TEXTGEN_MODEL: 'm' }))).toBeUndefined();
  });

  test('the catalogue says which services need a model; bundles inherit it from their parts', () => {
    const needing = SERVICES.filter((s) => s.constraints.requires?.includes(TEXT_GENERATION_MODEL))
      .map((s) => s.id)
      .sort();
    expect(needing).toEqual(['growth-pack', 'smart-consultation', 'starter-pack', 'task-worker']);
  });

  test('ordering such a service is refused with 422 text_generation_unavailable naming the settings; others pass', () => {
    const missing = ['TEXTGEN_BASE_URL', 'TEXTGEN_MODEL'];
    for (const id of ['task-worker', 'growth-pack']) {
      let err: unknown;
      try {
        refuseUnavailableService(getService(id)!, missing);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProblemError);
      const p = (err as ProblemError).toProblem('/api/v1/orders');
      expect(p).toMatchObject({ status: 422, type: expect.stringContaining('text_generation_unavailable'), missing });
      expect(p.detail).toContain('TEXTGEN_BASE_URL');
    }
    expect(
      (() => {
        try {
          refuseUnavailableService(getService('growth-pack')!, missing);
        } catch (e) {
          return (e as ProblemError).extra.needed_by;
        }
        return null;
      })(),
    ).toEqual(['task-worker', 'smart-consultation']);
    expect(() => refuseUnavailableService(getService('website-booking')!, missing)).not.toThrow();
    expect(() => refuseUnavailableService(getService('task-worker')!, [])).not.toThrow();
  });

  test('produceDeliverables: a required task without a model is a non-retryable unavailable error; deterministic services need none', async () => {
    const base = { orderId: 'o', issuedAt: '2026-03-01T10:00:00.000Z' };
    await expect(
      produceDeliverables({ ...base, serviceId: 'task-worker', inputs: { task_prompt: 'Write a haiku.' } }, undefined),
    ).rejects.toMatchObject({ code: 'unavailable', retryable: false });
    const files = await produceDeliverables(
      {
        ...base,
        serviceId: 'website-booking',
        inputs: { business_name: 'A', industry: 'Dental', services: 'Cleaning' },
      },
      undefined,
    );
    expect(files.length).toBeGreaterThan(0);
  });
});

describe('activity failure mapping', () => {
  test('retryable model errors stay retryable for Temporal; unavailable and refused ones are not', () => {
    const timeout = asTextGenerationFailure(new TextGenerationError('timeout', 'slow', true)) as ApplicationFailure;
    expect(timeout).toBeInstanceOf(ApplicationFailure);
    expect(timeout).toMatchObject({ type: 'text_generation_timeout', nonRetryable: false });
    expect(asTextGenerationFailure(new TextGenerationError('unavailable', 'none', false))).toMatchObject({
      type: 'text_generation_unavailable',
      nonRetryable: true,
    });
    expect(asTextGenerationFailure(new TextGenerationError('rejected', '401', false, 401))).toMatchObject({
      type: 'text_generation_rejected',
      nonRetryable: true,
    });
    const other = new Error('disk full');
    expect(asTextGenerationFailure(other)).toBe(other);
  });
});
