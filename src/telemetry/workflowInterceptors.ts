/**
 * Workflow interceptors that carry the request id (issue 27 §5) through a workflow. This module runs inside the
 * workflow sandbox (deterministic code, as workflows/): it imports `@temporalio/workflow` and pure constants only.
 * It is bundled with the workflows by listing it in `workflowInterceptorModules` (WORKFLOW_INTERCEPTOR_MODULES in
 * src/telemetry/temporalWorker.ts) and adds no command and no history event, so replay is unchanged.
 *
 * - The workflow's request id is the `request-id` header of its start (set by the API's client interceptor,
 *   src/telemetry/temporalClient.ts), else its memo `request_id`.
 * - An Update or Signal that carries the header runs its handler with that id until the handler's first await: the
 *   lines it logs while it validates and queues (handlers issue no command, decision 0018) carry the id of the request
 *   that sent it. No AsyncLocalStorage: one `run` turns Node's promise hook on for every promise of the workflow
 *   thread, a third of a second of CPU per 150 orders (docs/benchmarks.md).
 * - Every activity, local activity, child workflow and continue-as-new gets the header; every line of the workflow's
 *   `log` gets `requestId` (the worker's Runtime logger writes them: src/telemetry/temporalWorker.ts).
 */
import { workflowInfo, type Headers, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { REQUEST_ID_LOG_FIELD, REQUEST_ID_MEMO, requestIdOfHeaders, withRequestIdHeader } from './requestIdNames';

/** The request id in the workflow's memo (set with the header by the client interceptor), or undefined. */
function fromMemo(): string | undefined {
  const memo = workflowInfo().memo?.[REQUEST_ID_MEMO];
  return typeof memo === 'string' ? memo : undefined;
}

/** The interceptors of one workflow run (the SDK calls this once per run). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let runRequestId: string | undefined;
  /** The request id of the Update or Signal handler running synchronously now. */
  let handlerRequestId: string | undefined;
  const whileHandling = <T>(id: string, handle: () => T): T => {
    const outer = handlerRequestId;
    handlerRequestId = id;
    try {
      return handle();
    } finally {
      handlerRequestId = outer;
    }
  };
  // Lines logged before `execute` ran (the SDK's own `Workflow started`) read the memo.
  const current = (): string | undefined => handlerRequestId ?? runRequestId ?? fromMemo();
  const withHeader = <T extends { headers: Headers }>(input: T): T => ({
    ...input,
    headers: withRequestIdHeader(input.headers, current()),
  });
  return {
    inbound: [
      {
        execute(input, next) {
          runRequestId = requestIdOfHeaders(input.headers) ?? fromMemo();
          return next(input);
        },
        handleUpdate(input, next) {
          const id = requestIdOfHeaders(input.headers);
          return id ? whileHandling(id, () => next(input)) : next(input);
        },
        handleSignal(input, next) {
          const id = requestIdOfHeaders(input.headers);
          return id ? whileHandling(id, () => next(input)) : next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(withHeader(input)),
        scheduleLocalActivity: (input, next) => next(withHeader(input)),
        startChildWorkflowExecution: (input, next) => next(withHeader(input)),
        continueAsNew: (input, next) => next(withHeader(input)),
        getLogAttributes(input, next) {
          const id = current();
          return next(id ? { ...input, [REQUEST_ID_LOG_FIELD]: id } : input);
        },
      },
    ],
  };
};
