/**
 * Test double of a text-generation model: a real HTTP server speaking the OpenAI chat-completions shape
 * (`POST /v1/chat/completions` → `{id, object, model, choices: [{message: {role, content}}]}`). By default it answers
 * with a deterministic JSON value that follows the request's `response_format.json_schema.schema` (array lengths
 * from minItems, enum values, strings that are distinct written sentences seeded by their path and the prompt), which
 * is what a compliant model returns in structured-output mode; {@link placeholderReply} answers template text instead. A custom handler can script statuses and bodies.
 *
 * test/globalSetup.ts starts one for the whole run and sets TEXTGEN_BASE_URL / TEXTGEN_MODEL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received chat-completions request. */
export interface FakeRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { name?: string; schema?: JsonSchema } };
    max_tokens?: number;
  };
}

/** What a handler answers: a status and a JSON body (or raw text), optionally after a delay in ms. */
export interface FakeReply {
  status: number;
  json?: unknown;
  text?: string;
  delayMs?: number;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
  const?: unknown;
};

/** A running fake model. */
export interface FakeTextModel {
  /** Base URL to configure as TEXTGEN_BASE_URL (ends in /v1). */
  baseUrl: string;
  /** Every request received, oldest first. */
  requests: FakeRequest[];
  stop(): Promise<void>;
}

/** Words the written stand-in composes its sentences from. */
const WORDS =
  'bright morning riders trust careful repairs tuned wheels fresh chains quick service honest prices local workshop spring rides weekend trails friendly advice safe brakes smooth gears community favourite booking today welcome back season ready'.split(
    ' ',
  );

/** A deterministic sentence that differs by `seed`: written-looking text, not a placeholder. */
export function writtenText(seed: string, maxLength = 2000): string {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const out: string[] = [];
  for (let i = 0; i < 32; i += 1) {
    h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0;
    out.push(WORDS[h % WORDS.length] as string);
  }
  const text = `${out.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
  return text.length <= maxLength ? text : text.slice(0, maxLength).replace(/\s+\S*$/, '') || text.slice(0, maxLength);
}

/**
 * A JSON value following `schema`. `style` 'written': strings are distinct written-looking sentences (a compliant
 * model); 'placeholder': strings carry their path and the start of `hint` (a model filling a template).
 */
export function instanceOf(
  schema: JsonSchema | undefined,
  path: string,
  hint: string,
  style: 'written' | 'placeholder' = 'written',
): unknown {
  if (!schema) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf && schema.anyOf[0]) return instanceOf(schema.anyOf[0], path, hint, style);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [
          k,
          instanceOf(v, path ? `${path}.${k}` : k, hint, style),
        ]),
      );
    case 'array': {
      const n = Math.max(schema.minItems ?? 2, 1);
      return Array.from({ length: Math.min(n, schema.maxItems ?? n) }, (_, i) =>
        instanceOf(schema.items, `${path}[${i}]`, hint, style),
      );
    }
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return style === 'placeholder'
        ? `${path}: ${hint.replace(/\s+/g, ' ').slice(0, 60)}`
        : writtenText(`${path}|${hint}`, schema.maxLength);
  }
}

/** The default handler: a schema-following reply, written (distinct sentences, no placeholders). */
export function schemaReply(req: FakeRequest): FakeReply {
  return replyOf(req, 'written');
}

/** A schema-following reply whose strings are placeholders (each its path and the start of the prompt). */
export function placeholderReply(req: FakeRequest): FakeReply {
  return replyOf(req, 'placeholder');
}

function replyOf(req: FakeRequest, style: 'written' | 'placeholder'): FakeReply {
  const user = req.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const schema = req.body.response_format?.json_schema?.schema;
  const content = JSON.stringify(instanceOf(schema ?? { type: 'string' }, '', user, style));
  return {
    status: 200,
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: req.body.model ?? 'fake-model',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    },
  };
}

/** Starts the fake on 127.0.0.1 (random port). */
export async function startFakeTextModel(
  handler: (req: FakeRequest) => FakeReply = schemaReply,
): Promise<FakeTextModel> {
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: FakeRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest['body'];
      } catch {
        // An unparsable body is recorded as empty; the handler decides.
      }
      const record: FakeRequest = { path: req.url ?? '', headers: req.headers, body };
      requests.push(record);
      const reply =
        req.method === 'POST' && req.url === '/v1/chat/completions'
          ? handler(record)
          : { status: 404, json: { error: { message: 'not found' } } };
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': reply.text !== undefined ? 'text/plain' : 'application/json' });
        res.end(reply.text ?? JSON.stringify(reply.json ?? {}));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The replies the fake model would give to a context's language tasks, without HTTP (for generator unit tests).
 * `overrides` replaces the reply of a task key.
 */
export function fakeLanguage(
  tasks: readonly { key: string; request: { schema: Record<string, unknown>; prompt: string } }[],
  overrides: Record<string, unknown> = {},
): Record<string, { value: unknown; model: string }> {
  return Object.fromEntries(
    tasks.map((t) => [
      t.key,
      {
        value: overrides[t.key] ?? instanceOf(t.request.schema as JsonSchema, '', `${t.key}|${t.request.prompt}`),
        model: 'fake-model',
      },
    ]),
  );
}
