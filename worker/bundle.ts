/**
 * How the order workflows are bundled (webpack, `bundleWorkflowCode`), in one place for every bundle of this
 * repository: `npm start`'s prebuilt bundle (scripts/bundle-workflows.ts), a worker bundling for itself, the tests,
 * the repair script and the drills. The bundle carries the request-id interceptors (issue 27 §5) and, when payloads
 * are encrypted, the failure converter that encrypts failure messages too (issue 26 §1): a worker's bundle and its
 * data converter (src/temporal/codec.ts `temporalDataConverter`) are built from the same configuration.
 */
import type { BundleOptions } from '@temporalio/worker';
import type { Config } from '../src/config';
import { ENCRYPTED_FAILURE_CONVERTER_PATH, payloadCodec } from '../src/temporal/codec';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/telemetry/temporalWorker';

/** The parts of `bundleWorkflowCode`'s options that decide what the bundle is. */
export type WorkflowBundleOptions = Pick<
  BundleOptions,
  'workflowsPath' | 'workflowInterceptorModules' | 'failureConverterPath'
>;

/**
 * The bundle options of workflows/index.ts for a configuration: with `PAYLOAD_ENCRYPTION_KEYS` (a payload codec), the
 * encrypting failure converter too. `workflowsPath` may name another entry (a drill's variant build).
 */
export function workflowBundleOptions(
  config: Pick<Config, 'PAYLOAD_ENCRYPTION_KEYS'>,
  workflowsPath = require.resolve('../workflows'),
): WorkflowBundleOptions {
  return {
    workflowsPath,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    ...(payloadCodec(config) ? { failureConverterPath: ENCRYPTED_FAILURE_CONVERTER_PATH } : {}),
  };
}
