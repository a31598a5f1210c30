/**
 * Test-only MCP fixtures the official conformance suite (`@modelcontextprotocol/conformance`) calls by name: its
 * diagnostic tools (`test_*`), resources (`test://...`), prompts (`test_*_prompt`) and completions. Served only when
 * `MCP_CONFORMANCE_FIXTURES=true` with `DEV_MODE=true` (the conformance test's stack); never in production.
 *
 * Source: issue 12 §1; the suite's scenario descriptions (`conformance list`, scenario texts in its dist).
 */
import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, createRequestStateCodec } from '@modelcontextprotocol/server';
import type { PromptMessage, ReadResult, RequestContext } from './features';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const text = (t: string) => ({ type: 'text', text: t });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fixture tool result: a complete CallToolResult or a 2026-07-28 InputRequiredResult. */
export type FixtureResult = Record<string, unknown>;
interface FixtureTool {
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  /** Sends notifications while it runs: answered as an event stream. */
  streams?: boolean;
  run(args: Record<string, unknown>, ctx: RequestContext): Promise<FixtureResult>;
}

/**
 * The fixtures' `requestState` (input-required-result-*): the SDK's HMAC-SHA256 codec with a per-process key. Its
 * `verify` is the fixture server's `requestState.verify` hook (src/mcp/server.ts), so the SDK refuses a tampered or
 * expired state with -32602 before a handler runs, and a handler reads the verified payload as
 * `ctx.params.requestState`. Source: MCP 2026-07-28 (multi-round-trip requests); issue 27 §6.
 */
export const FIXTURE_STATE = createRequestStateCodec<Record<string, unknown>>({ key: randomBytes(32) });
const sign = (payload: Record<string, unknown>) => FIXTURE_STATE.mint(payload);
/** The verified payload of the request's `requestState`, if it carried one. */
const stateOf = (ctx: RequestContext) => ctx.params.requestState as Record<string, unknown> | undefined;

const elicit = (message: string, properties: Record<string, unknown>, required: string[]) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
});
const sampling = (prompt: string, maxTokens: number) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
});
const roots = { method: 'roots/list', params: {} };
const inputRequired = (inputRequests: Record<string, unknown>, requestState?: string) => ({
  resultType: 'input_required',
  inputRequests,
  ...(requestState ? { requestState } : {}),
});
const responses = (ctx: RequestContext) =>
  (ctx.params.inputResponses ?? {}) as Record<string, Record<string, unknown> | undefined>;
const missing = (ctx: RequestContext, keys: string[]) => keys.some((k) => responses(ctx)[k] === undefined);
const elicited = (r: Record<string, unknown> | undefined, field: string) =>
  String(((r?.content ?? {}) as Record<string, unknown>)[field] ?? '');
const sampled = (r: Record<string, unknown> | undefined) =>
  String(((r?.content ?? {}) as { text?: unknown }).text ?? '');

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** The diagnostic tools. */
export const FIXTURE_TOOLS: readonly FixtureTool[] = [
  {
    name: 'greet',
    description: 'Greets by name (sync only; the tasks scenarios)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
    run: async (a) => ({ content: [text(`Hello, ${String(a.name ?? 'World')}!`)] }),
  },
  {
    name: 'test_simple_text',
    description: 'Simple text content',
    run: async () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  {
    name: 'test_image_content',
    description: 'Image content',
    run: async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  },
  {
    name: 'test_audio_content',
    description: 'Audio content',
    run: async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
  },
  {
    name: 'test_embedded_resource',
    description: 'Embedded resource content',
    run: async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  {
    name: 'test_multiple_content_types',
    description: 'Text, image and resource content',
    run: async () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  },
  {
    name: 'test_tool_with_logging',
    description: 'Sends three info log notifications',
    streams: true,
    run: async (_a, ctx) => {
      for (const [i, m] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (i) await sleep(50);
        await ctx.notify('notifications/message', { level: 'info', data: m });
      }
      return { content: [text('Tool with logging executed successfully')] };
    },
  },
  {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50, 100 of 100',
    streams: true,
    run: async (_a, ctx) => {
      const token = (ctx.params._meta as Record<string, unknown> | undefined)?.progressToken;
      for (const p of [0, 50, 100]) {
        if (p) await sleep(50);
        if (token !== undefined)
          await ctx.notify('notifications/progress', {
            progressToken: token,
            progress: p,
            total: 100,
            message: `Completed step ${p} of 100`,
          });
      }
      return { content: [text(String(token ?? 'no progress token'))] };
    },
  },
  {
    name: 'test_error_handling',
    description: 'Always fails',
    run: async () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] }),
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: JSON_SCHEMA_2020_12,
    run: async () => ({ content: [text('ok')] }),
  },
  {
    name: 'test_missing_capability',
    description: 'Needs the sampling client capability (2026-07-28)',
    run: async (_a, ctx) => {
      if (!ctx.clientCapabilities?.sampling)
        throw new ProtocolError(
          ProtocolErrorCode.MissingRequiredClientCapability,
          'This tool needs the sampling client capability',
          { requiredCapabilities: { sampling: {} } },
        );
      return inputRequired({ sample: sampling('Say hello', 20) });
    },
  },
  {
    name: 'test_logging_tool',
    description: 'Logs at info level only when the request asks for logs (2026-07-28 _meta logLevel)',
    streams: true,
    run: async (_a, ctx) => {
      await ctx.log('info', 'test_logging_tool ran');
      return { content: [text('logged')] };
    },
  },
  {
    name: 'test_streaming_elicitation',
    description: 'Asks for input with an InputRequiredResult, never a server-initiated request',
    run: async (_a, ctx) =>
      missing(ctx, ['answer'])
        ? inputRequired({ answer: elicit('Anything to add?', { note: { type: 'string' } }, []) })
        : { content: [text('thanks')] },
  },
  {
    name: 'test_input_required_result_elicitation',
    description: 'InputRequiredResult with one elicitation',
    run: async (_a, ctx) =>
      missing(ctx, ['user_name'])
        ? inputRequired({ user_name: elicit('What is your name?', { name: { type: 'string' } }, ['name']) })
        : { content: [text(`Hello, ${elicited(responses(ctx).user_name, 'name')}!`)] },
  },
  {
    name: 'test_input_required_result_sampling',
    description: 'InputRequiredResult with one sampling request',
    run: async (_a, ctx) =>
      missing(ctx, ['capital_question'])
        ? inputRequired({ capital_question: sampling('What is the capital of France?', 100) })
        : { content: [text(`The model answered: ${sampled(responses(ctx).capital_question)}`)] },
  },
  {
    name: 'test_input_required_result_list_roots',
    description: 'InputRequiredResult with roots/list',
    run: async (_a, ctx) => {
      if (missing(ctx, ['client_roots'])) return inputRequired({ client_roots: roots });
      const list = ((responses(ctx).client_roots?.roots ?? []) as { uri?: string }[]).map((r) => r.uri).join(', ');
      return { content: [text(`Roots: ${list}`)] };
    },
  },
  {
    name: 'test_input_required_result_request_state',
    description: 'InputRequiredResult with a signed requestState',
    run: async (_a, ctx) => {
      if (missing(ctx, ['confirm']) || ctx.params.requestState === undefined)
        return inputRequired(
          { confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']) },
          await sign({ tool: 'request_state' }),
        );
      return { content: [text('state-ok: confirmed')] };
    },
  },
  {
    name: 'test_input_required_result_multiple_inputs',
    description: 'InputRequiredResult with elicitation, sampling and roots/list',
    run: async (_a, ctx) => {
      const keys = ['user_name', 'greeting', 'client_roots'];
      if (missing(ctx, keys) || ctx.params.requestState === undefined)
        return inputRequired(
          {
            user_name: elicit('What is your name?', { name: { type: 'string' } }, ['name']),
            greeting: sampling('Generate a greeting', 50),
            client_roots: roots,
          },
          await sign({ tool: 'multiple' }),
        );
      return { content: [text(`Got ${keys.join(', ')}`)] };
    },
  },
  {
    name: 'test_input_required_result_multi_round',
    description: 'Two rounds of InputRequiredResult, then a result',
    run: async (_a, ctx) => {
      const step1 = async () =>
        inputRequired(
          { step1: elicit('Step 1: What is your name?', { name: { type: 'string' } }, ['name']) },
          await sign({ round: 1 }),
        );
      const step2 = async (name: string) =>
        inputRequired(
          { step2: elicit('Step 2: What is your favorite color?', { color: { type: 'string' } }, ['color']) },
          await sign({ round: 2, name }),
        );
      const state = stateOf(ctx);
      if (!state) return step1();
      if (state.round === 1) return missing(ctx, ['step1']) ? step1() : step2(elicited(responses(ctx).step1, 'name'));
      if (missing(ctx, ['step2'])) return step2(String(state.name));
      return { content: [text(`${String(state.name)} likes ${elicited(responses(ctx).step2, 'color')}`)] };
    },
  },
  {
    name: 'test_input_required_result_tampered_state',
    description: 'InputRequiredResult whose requestState is HMAC-signed',
    run: async (_a, ctx) => {
      if (ctx.params.requestState === undefined)
        return inputRequired(
          { confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']) },
          await sign({ tool: 'tampered' }),
        );
      return { content: [text('state-ok')] };
    },
  },
  {
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for what the client declared',
    run: async (_a, ctx) => {
      const caps = ctx.clientCapabilities ?? {};
      const wanted: Record<string, unknown> = {};
      if (caps.elicitation) wanted.user_name = elicit('What is your name?', { name: { type: 'string' } }, ['name']);
      if (caps.sampling) wanted.greeting = sampling('Generate a greeting', 50);
      if (caps.roots) wanted.client_roots = roots;
      const open = Object.keys(wanted).filter((k) => responses(ctx)[k] === undefined);
      if (open.length) return inputRequired(Object.fromEntries(open.map((k) => [k, wanted[k]])));
      return { content: [text('done')] };
    },
  },
];

/** The fixture tool named `name`, if any. */
export function findFixtureTool(name: string): FixtureTool | undefined {
  return FIXTURE_TOOLS.find((t) => t.name === name);
}

/** `tools/list` entries of the fixtures. */
export function fixtureToolList(): Record<string, unknown>[] {
  return FIXTURE_TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
  }));
}

/** Fixture resources (`resources/list`); the watched one only answers reads. */
export const FIXTURE_RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'Static text', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'Static PNG', mimeType: 'image/png' },
];
/** Fixture URI templates. */
export const FIXTURE_TEMPLATES = [
  {
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data by id',
    mimeType: 'application/json',
  },
];

/** Reads a fixture resource; undefined when `uri` is not one. */
export function readFixtureResource(uri: string): ReadResult | undefined {
  const hints = { ttlMs: 0, cacheScope: 'public' as const };
  if (uri === 'test://static-text')
    return {
      contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
      hints,
    };
  if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }], hints };
  if (uri === 'test://watched-resource')
    return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }], hints };
  const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (m)
    return {
      contents: [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }),
        },
      ],
      hints,
    };
  return undefined;
}

/** Fixture prompts (`prompts/list`). */
export const FIXTURE_PROMPTS = [
  { name: 'test_simple_prompt', description: 'A simple prompt' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt with an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
  { name: 'test_input_required_result_prompt', description: 'A prompt that asks for context first (2026-07-28)' },
];

/** `prompts/get` of a fixture prompt: messages, an InputRequiredResult, or undefined when not a fixture. */
export function getFixturePrompt(
  name: string,
  args: Record<string, unknown>,
  ctx: RequestContext,
): { messages: PromptMessage[] } | FixtureResult | undefined {
  const u = (content: Record<string, unknown>): PromptMessage => ({ role: 'user', content });
  switch (name) {
    case 'test_simple_prompt':
      return { messages: [u(text('This is a simple prompt for testing.'))] };
    case 'test_prompt_with_arguments':
      return { messages: [u(text(`Prompt with arguments: arg1='${String(args.arg1)}', arg2='${String(args.arg2)}'`))] };
    case 'test_prompt_with_embedded_resource':
      return {
        messages: [
          u({
            type: 'resource',
            resource: {
              uri: String(args.resourceUri),
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          }),
          u(text('Please process the embedded resource above.')),
        ],
      };
    case 'test_prompt_with_image':
      return {
        messages: [u({ type: 'image', data: PNG, mimeType: 'image/png' }), u(text('Please analyze the image above.'))],
      };
    case 'test_input_required_result_prompt':
      if (missing(ctx, ['user_context']))
        return inputRequired({
          user_context: elicit('What context should the prompt use?', { context: { type: 'string' } }, ['context']),
        });
      return { messages: [u(text(`Use this context: ${elicited(responses(ctx).user_context, 'context')}`))] };
    default:
      return undefined;
  }
}
