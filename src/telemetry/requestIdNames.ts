/**
 * The names under which a request id travels through Temporal (issue 27 §5), in a module of their own: the workflow
 * sandbox (src/telemetry/workflowInterceptors.ts), the client (src/telemetry/temporalClient.ts) and the worker
 * (src/telemetry/temporalWorker.ts) all read them. Workflow-safe: pure constants and one reader.
 */
import { defaultPayloadConverter, type Headers, type Payload } from '@temporalio/common';

/**
 * The Temporal header carrying the request id on workflow starts, Updates, Signals, activities and child workflows:
 * a JSON string payload, not encoded by the payload codec (the SDK does not encode headers; the id is no secret).
 */
export const REQUEST_ID_HEADER = 'request-id';

/** The memo field holding the request id of the request that started a workflow (shown by the Web UI). */
export const REQUEST_ID_MEMO = 'request_id';

/** The field name of the request id in every log line. */
export const REQUEST_ID_LOG_FIELD = 'requestId';

/** The request id in a set of Temporal headers (workflow, Update, Signal or activity), or undefined when absent. */
export function requestIdOfHeaders(headers: Record<string, Payload>): string | undefined {
  const payload = headers[REQUEST_ID_HEADER];
  if (!payload) return undefined;
  try {
    const v = defaultPayloadConverter.fromPayload<unknown>(payload);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `headers` with the request id added as {@link REQUEST_ID_HEADER}, or `headers` itself without one. */
export function withRequestIdHeader(headers: Headers, requestId: string | undefined): Headers {
  if (!requestId) return headers;
  return { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) };
}
