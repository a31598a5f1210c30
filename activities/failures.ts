import { ApplicationFailure } from '@temporalio/common';
import { ProblemError } from '../src/errors';
import { TextGenerationError } from '../src/textgen/port';

/**
 * A text-generation failure as Temporal should see it (issue 13): retryable ones (timeouts, 429, 5xx, bad replies)
 * stay retryable so the activity's retry policy asks the model again; the others (no model configured, key or
 * request refused) fail the fulfilment at once, which refunds the order. Other errors are returned unchanged.
 */
export function asTextGenerationFailure(err: unknown): unknown {
  if (!(err instanceof TextGenerationError)) return err;
  const type = err.code === 'unavailable' ? 'text_generation_unavailable' : `text_generation_${err.code}`;
  return ApplicationFailure.create({
    message: err.message,
    type,
    nonRetryable: !err.retryable,
    details: [{ code: err.code, status: err.status ?? null }],
  });
}

/**
 * A refusal of the application layer (a {@link ProblemError} below 500, src/errors.ts) becomes a non-retryable failure
 * whose `type` is its code and whose first detail is its extension members, so the workflow (or the API, through
 * `updateProblem`) can answer with the same code. Anything else is returned unchanged, to be retried.
 */
export function asCodedFailure(err: unknown): unknown {
  if (err instanceof ProblemError && err.status < 500) {
    return ApplicationFailure.create({
      message: err.detail ?? err.message,
      type: err.code,
      nonRetryable: true,
      details: [err.extra],
    });
  }
  return err;
}
