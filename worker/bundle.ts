/**
 * How the order workflows are bundled (webpack, `bundleWorkflowCode`), in one place for every bundle of this
 * repository: `npm start`'s prebuilt bundle (scripts/bundle-workflows.ts), the tests, the repair script and the
 * drills. The bundle carries the request-id interceptors (issue 27 §5) and the failure converter of the data
 * converter its worker runs with (src/temporal/codec.ts `temporalDataConverter`: with payloads encrypted, the one
 * that encrypts failure messages too, issue 26 §1), so bundle and worker cannot disagree.
 */
import type { DataConverter } from '@temporalio/common';
import type { BundleOptions } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../src/telemetry/temporalWorker';
import { TRACING_WORKFLOW_INTERCEPTOR_MODULE } from '../src/telemetry/tracing';

/** The parts of `bundleWorkflowCode`'s options that decide what the bundle is. */
export type WorkflowBundleOptions = Pick<
  BundleOptions,
  'workflowsPath' | 'workflowInterceptorModules' | 'failureConverterPath'
>;

/**
 * The bundle options of workflows/index.ts for a worker running with `dataConverter` (its `failureConverterPath`, if
 * any, goes into the bundle). `workflowsPath` may name another entry (a drill's variant build); `tracing` must be
 * what the worker that loads the bundle runs with.
 */
export function workflowBundleOptions(
  dataConverter: Pick<DataConverter, 'failureConverterPath'>,
  workflowsPath = require.resolve('../workflows'),
  opts: { tracing?: boolean } = {},
): WorkflowBundleOptions {
  return {
    workflowsPath,
    // Issue 39 §1: with tracing on, Temporal's OpenTelemetry workflow interceptors too (the worker adds their sink).
    workflowInterceptorModules: [
      ...WORKFLOW_INTERCEPTOR_MODULES,
      ...(opts.tracing ? [TRACING_WORKFLOW_INTERCEPTOR_MODULE] : []),
    ],
    ...(dataConverter.failureConverterPath ? { failureConverterPath: dataConverter.failureConverterPath } : {}),
  };
}
