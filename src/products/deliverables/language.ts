/**
 * Language work of the deliverables (issue 13). A generator that needs prose declares {@link LanguageTask}s: a
 * request for the text-generation port, built from the order's inputs, and the zod schema its reply must match. The
 * activity runs the tasks through the port and hands the validated replies to the generator in
 * `DeliverableContext.language`, so generators stay pure: the same inputs and replies give the same bytes.
 *
 * Which services need a model, and why (the catalogue's `constraints.requires` says the same):
 * - task-worker — required: the promise is the work itself ("write five e-mails" delivers five e-mails).
 * - smart-consultation — required: the promise is an answer to the buyer's own question, in prose. Bundles holding
 *   it (starter-pack, growth-pack) need the model too.
 * - ai-receptionist — optional: the configuration, hours, durations and routing are facts read from the inputs;
 *   with a model, the greeting and the answers to the common questions are written for the business.
 * - automation-audit — optional: tools are classified from the product table; with a model, the free-text business
 *   description is also read for the processes it describes.
 * Everything else is deterministic.
 */
import { z } from 'zod';
import type { TextRequest } from '../../textgen/port';
import type { DeliverableContext } from './types';

/** One piece of language work a generator needs. */
export interface LanguageTask {
  /** Key of the reply in `DeliverableContext.language`. */
  key: string;
  /** Without a model (or when the model fails for good), a required task fails the delivery; an optional one is skipped. */
  required: boolean;
  request: TextRequest;
  /** Shape the reply must have; also sent to the model as JSON Schema. */
  schema: z.ZodType;
  /**
   * What a reply of the right shape must still be (issue 38 §5): the reasons it is unusable (empty, placeholder,
   * generic, not what the prompt asked), or none. A reply with reasons is asked again with them.
   */
  check?: (value: unknown) => string[];
}

/** Builds a task: the JSON Schema sent to the model is derived from `schema`. */
export function languageTask(
  key: string,
  required: boolean,
  system: string,
  prompt: string,
  schema: z.ZodType,
  maxTokens = 2000,
): LanguageTask {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return {
    key,
    required,
    schema,
    request: { system, prompt, schema: json, schemaName: key.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64), maxTokens },
  };
}

/** A validated reply: the value and the model that wrote it. */
export interface LanguageReply {
  value: unknown;
  model: string;
}

/** The reply of `key`, parsed by `schema`; undefined when the task was skipped or the reply does not match. */
export function languageReply<T>(
  ctx: DeliverableContext,
  key: string,
  schema: z.ZodType<T>,
): { value: T; model: string } | undefined {
  const reply = ctx.language?.[key];
  if (!reply) return undefined;
  const parsed = schema.safeParse(reply.value);
  return parsed.success ? { value: parsed.data, model: reply.model } : undefined;
}

/** Common instruction appended to every system message. */
export const HOUSE_RULES =
  'Write for the buyer named in the material, in plain English unless the material asks for another language. Use only facts given in the material; where a fact is missing, say what to check rather than inventing it. Answer with one JSON value following the given schema, nothing else.';
