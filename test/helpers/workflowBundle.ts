/**
 * The workflow bundle of workflows/index.ts with the request-id interceptors (issue 27 §5), built once per test file
 * (webpack takes seconds), and the worker runtime logging into the process's structured logger
 * (src/telemetry/logger.ts: JSON lines at LOG_LEVEL, which test/globalSetup.ts sets to `warn` unless set), so test
 * output shows what matters and a test can read the worker's lines. Shared by the stacks, the replay test and the
 * workflow unit tests.
 */
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { levelFromEnv } from '../../src/telemetry/logger';
import { WORKFLOW_INTERCEPTOR_MODULES, installRuntimeLogging } from '../../src/telemetry/temporalWorker';

// Does nothing when this process's Runtime exists already.
installRuntimeLogging(levelFromEnv());

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** The workflow bundle, built once per test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: quietLogger,
  });
  return bundle;
}

const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error(message: string, meta?: unknown) {
    console.error(message, meta);
  },
};
