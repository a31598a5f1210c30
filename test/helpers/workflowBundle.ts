/**
 * The workflow bundle of workflows/index.ts, built once per test file (webpack takes seconds), and the worker runtime
 * logging at WARN and above only, so test output shows what matters. Shared by the stacks, the replay test and the
 * workflow unit tests.
 */
import { DefaultLogger, Runtime, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

// Worker logs at WARN and above only, so test output shows what matters.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this process.
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** The workflow bundle, built once per test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietLogger });
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
