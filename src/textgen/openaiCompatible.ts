/**
 * OpenAI-compatible chat-completions adapter of the {@link TextGenerator} port: `POST {baseUrl}/chat/completions`
 * with a system and a user message and `response_format: {type: "json_schema"}` (non-strict, so servers that do not
 * enforce every keyword accept it; the reply is validated by the caller; served by
 * OpenAI, vLLM, llama.cpp's server, Ollama's /v1, LiteLLM, …). Plain `fetch`, one timeout per request.
 *
 * Errors: network failures, timeouts, 408, 409, 429 and 5xx are retryable; other 4xx (bad key, unknown model,
 * request refused) are not; a 2xx whose body is not the chat-completions shape or whose content is not JSON is
 * retryable (`bad_response`: models sometimes answer badly once).
 *
 * Source: issue 13; OpenAI API reference "Create chat completion" (request `model`, `messages`, `max_tokens`,
 * `response_format`; response `choices[].message.content`, `model`).
 */
import { z } from 'zod';
import { TextGenerationError, type TextGenerator, type TextRequest, type TextResult } from './port';

/** Settings of {@link OpenAiCompatibleTextGenerator}. */
export interface OpenAiCompatibleOptions {
  /** API root that ends before `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Per-request timeout in milliseconds (default 60,000). */
  timeoutMs?: number;
  /** Replaceable for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

const ChatCompletion = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
});

/** Statuses worth asking again: request timeout, conflict, rate limit, server errors. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Strips a Markdown code fence some models wrap JSON in. */
function unfence(content: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  return m?.[1] ?? content;
}

/** The chat-completions adapter; see the module comment for the error mapping. */
export class OpenAiCompatibleTextGenerator implements TextGenerator {
  readonly model: string;
  private readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(opts: OpenAiCompatibleOptions) {
    this.model = opts.model;
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** {@inheritDoc TextGenerator.generate} */
  async generate(request: TextRequest): Promise<TextResult> {
    const body = {
      model: this.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.prompt },
      ],
      temperature: 0.3,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      response_format: {
        type: 'json_schema',
        json_schema: { name: request.schemaName, strict: false, schema: request.schema },
      },
    };
    let response: Response;
    try {
      response = await this.fetchFn(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new TextGenerationError(
          'timeout',
          `The text-generation model did not answer within ${this.timeoutMs} ms`,
          true,
        );
      }
      throw new TextGenerationError(
        'network',
        `The text-generation model could not be reached: ${(err as Error).message}`,
        true,
      );
    }
    const raw = await response.text().catch(() => '');
    if (!response.ok) {
      const detail = raw.slice(0, 300).replace(/\s+/g, ' ');
      const code =
        response.status === 429 ? 'rate_limited' : retryableStatus(response.status) ? 'upstream_error' : 'rejected';
      throw new TextGenerationError(
        code,
        `The text-generation model answered HTTP ${response.status}: ${detail}`,
        retryableStatus(response.status),
        response.status,
      );
    }
    let parsed: z.infer<typeof ChatCompletion>;
    try {
      parsed = ChatCompletion.parse(JSON.parse(raw));
    } catch {
      throw new TextGenerationError(
        'bad_response',
        'The text-generation model answered with something other than a chat completion',
        true,
        response.status,
      );
    }
    const choice = parsed.choices[0];
    const content = choice?.message.content ?? '';
    if (content.trim() === '') {
      const why = choice?.message.refusal
        ? `refused: ${choice.message.refusal.slice(0, 200)}`
        : `finish_reason ${choice?.finish_reason ?? 'unknown'}`;
      throw new TextGenerationError(
        'bad_response',
        `The text-generation model returned no content (${why})`,
        true,
        response.status,
      );
    }
    try {
      return { value: JSON.parse(unfence(content)) as unknown, model: parsed.model ?? this.model };
    } catch {
      throw new TextGenerationError(
        'bad_response',
        'The text-generation model did not return JSON',
        true,
        response.status,
      );
    }
  }
}
