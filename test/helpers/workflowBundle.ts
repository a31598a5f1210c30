/**
 * The workflow bundle of workflows/index.ts with the request-id interceptors (issue 27 §5), built once per test file
 * (webpack takes seconds), and the worker runtime logging into the process's structured logger
 * (src/telemetry/logger.ts: JSON lines at LOG_LEVEL, which test/globalSetup.ts sets to `warn` unless set), so test
 * output shows what matters and a test can read the worker's lines. Shared by the stacks, the replay test and the
 * workflow unit tests.
 */
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { levelFromEnv } from '../../src/telemetry/logger';
import { installRuntimeLogging } from '../../src/telemetry/temporalWorker';
import { ENCRYPTED_FAILURE_CONVERTER_PATH } from '../../src/temporal/codec';
import { workflowBundleOptions } from '../../worker/bundle';

// Does nothing when this process's Runtime exists already.
installRuntimeLogging(levelFromEnv());

const bundles = new Map<boolean, Promise<WorkflowBundleWithSourceMap>>();
/**
 * The workflow bundle as worker/bundle.ts builds it, once per test file and kind: `encrypted` (the stack's
 * PAYLOAD_ENCRYPTION_KEYS set) adds the failure converter that encrypts failure messages (issue 26 §1).
 */
export function workflowBundle(opts: { encrypted?: boolean } = {}): Promise<WorkflowBundleWithSourceMap> {
  const encrypted = opts.encrypted ?? false;
  let bundle = bundles.get(encrypted);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      ...workflowBundleOptions(encrypted ? { failureConverterPath: ENCRYPTED_FAILURE_CONVERTER_PATH } : {}),
      logger: quietLogger,
    });
    bundles.set(encrypted, bundle);
  }
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
