/**
 * Builds the workflow bundle (webpack, through the Temporal SDK's `bundleWorkflowCode`) into a file, so the worker
 * process loads it with `WORKFLOW_BUNDLE_PATH` instead of running webpack itself: the worker starts faster and does
 * not carry webpack's heap for its whole life. `npm start` runs it before the worker.
 *
 * Usage: `tsx scripts/bundle-workflows.ts <out-file>`
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { temporalDataConverter } from '../src/temporal/codec';
import { workflowBundleOptions } from '../worker/bundle';

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx scripts/bundle-workflows.ts <out-file>');
  const config = loadConfig();
  const { code } = await bundleWorkflowCode({
    // The worker that loads it runs with the same environment (npm start passes it to both).
    ...workflowBundleOptions(temporalDataConverter(config), undefined, {
      tracing: Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT),
    }),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  writeFileSync(`${out}.tmp`, code);
  renameSync(`${out}.tmp`, out);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
