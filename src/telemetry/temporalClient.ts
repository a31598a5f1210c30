/**
 * Issue 27 §5: the request id of the API request (or activity) that starts or messages a workflow, carried to it by
 * a Temporal client interceptor, so one id finds a request's whole path:
 * - a workflow started inside a request gets memo `request_id` (shown by the Web UI and `temporal workflow describe`)
 *   and the header `request-id` header; the workflow interceptors (src/telemetry/workflowInterceptors.ts) put
 *   it on every activity, child workflow and log line of the workflow, the worker's activity interceptor
 *   (src/telemetry/temporalWorker.ts) on every log line of the activity;
 * - Updates and Signals sent inside a request carry the header too, so the activities an Update handler schedules
 *   carry the id of the request that sent the Update;
 * - each start is logged (`workflow started`, with `workflowId` and `workflowType`) in the request's log context.
 *
 * Outside a request or activity (no {@link logContext}), calls pass through unchanged.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { currentRequestId, logger } from './logger';
import { REQUEST_ID_MEMO, withRequestIdHeader } from './requestIdNames';

export { REQUEST_ID_HEADER, REQUEST_ID_MEMO } from './requestIdNames';

/** Start options with memo `request_id` set (an id already in the memo is kept). */
function withMemo<T extends { memo?: Record<string, unknown> }>(options: T, requestId: string): T {
  if (options.memo?.[REQUEST_ID_MEMO] !== undefined) return options;
  return { ...options, memo: { ...options.memo, [REQUEST_ID_MEMO]: requestId } };
}

/** The start's line; `runId` is the run the call got (an existing one under conflict policy USE_EXISTING). */
function logStart(workflowType: string, workflowId: string, runId: string): void {
  logger().info({ workflowId, workflowType, runId }, 'workflow started');
}

/**
 * The client interceptor (see the module comment): one object serves every client; pass
 * {@link requestIdClientInterceptors} as the `interceptors` option of every `new Client(...)` of the API and the
 * worker.
 */
export const requestIdClientInterceptor: WorkflowClientInterceptor = {
  async startWithDetails(input, next) {
    const requestId = currentRequestId();
    if (!requestId) return next(input);
    const output = await next({
      ...input,
      headers: withRequestIdHeader(input.headers, requestId),
      options: withMemo(input.options, requestId),
    });
    logStart(input.workflowType, input.options.workflowId, output.runId);
    return output;
  },

  async signalWithStart(input, next) {
    const requestId = currentRequestId();
    if (!requestId) return next(input);
    const runId = await next({
      ...input,
      headers: withRequestIdHeader(input.headers, requestId),
      options: withMemo(input.options, requestId),
    });
    logStart(input.workflowType, input.options.workflowId, runId);
    return runId;
  },

  startUpdateWithStart(input, next) {
    const requestId = currentRequestId();
    if (!requestId) return next(input);
    return next({
      ...input,
      workflowStartHeaders: withRequestIdHeader(input.workflowStartHeaders, requestId),
      workflowStartOptions: withMemo(input.workflowStartOptions, requestId),
      updateHeaders: withRequestIdHeader(input.updateHeaders, requestId),
    });
  },

  startUpdate(input, next) {
    const requestId = currentRequestId();
    return next(requestId ? { ...input, headers: withRequestIdHeader(input.headers, requestId) } : input);
  },

  signal(input, next) {
    const requestId = currentRequestId();
    return next(requestId ? { ...input, headers: withRequestIdHeader(input.headers, requestId) } : input);
  },
};

/** The `interceptors` option of a `Client` that carries request ids (see the module comment). */
export function requestIdClientInterceptors(): { workflow: WorkflowClientInterceptor[] } {
  return { workflow: [requestIdClientInterceptor] };
}
