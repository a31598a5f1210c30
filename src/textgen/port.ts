/**
 * The text-generation port: the one way deliverables get language work done (task-worker doing the task, the
 * consultation's prose, the receptionist's wording, the audit's reading of a business description). Adapters live
 * beside it (openaiCompatible.ts); activities receive one through the worker, generators never call it themselves.
 *
 * Source: issue 13 ("Services that need language work go through one text-generation port").
 */

/** One request: instructions, the buyer's material, and the JSON Schema the reply must follow. */
export interface TextRequest {
  /** What the model is and how it must answer (system message). */
  system: string;
  /** The task, built from the order's inputs (user message). */
  prompt: string;
  /** JSON Schema (draft 2020-12) of the reply; the reply is one JSON value of this shape. */
  schema: Record<string, unknown>;
  /** Schema name sent with the request (`[a-zA-Z0-9_-]{1,64}`). */
  schemaName: string;
  /** Upper bound on generated tokens. */
  maxTokens?: number;
}

/** A reply: the parsed JSON value (not yet validated against the schema) and the model that wrote it. */
export interface TextResult {
  value: unknown;
  /** Model id as the server reported it (or as configured). */
  model: string;
}

/** A language model behind the port. */
export interface TextGenerator {
  /** Configured model id, e.g. `gpt-4o-mini`. */
  readonly model: string;
  /**
   * Generates one structured reply.
   * @throws TextGenerationError — `retryable` says whether asking again may succeed.
   */
  generate(request: TextRequest): Promise<TextResult>;
}

/** Reasons a generation fails; `unavailable` means no model is configured. */
export type TextGenerationErrorCode =
  | 'unavailable'
  | 'timeout'
  | 'network'
  | 'rate_limited'
  | 'upstream_error'
  | 'rejected'
  | 'bad_response'
  /** Replies asked again with the reasons still fail their schema or checks (issue 38 §5): not retried. */
  | 'unusable';

/** Named error of the port; activities map `retryable` onto Temporal's retry policy. */
export class TextGenerationError extends Error {
  readonly code: TextGenerationErrorCode;
  /** True when the same request may succeed later (timeouts, 429, 5xx, malformed replies). */
  readonly retryable: boolean;
  /** HTTP status of the model server's answer, when there was one. */
  readonly status: number | undefined;
  constructor(code: TextGenerationErrorCode, message: string, retryable: boolean, status?: number) {
    super(message);
    this.name = 'TextGenerationError';
    this.code = code;
    this.retryable = retryable;
    this.status = status;
  }
}
