/**
 * A worker process (as worker/index.ts) whose deliverable store stalls: a `put` of content containing
 * `SLOW_STORE_MARKER` waits `SLOW_STORE_MS` first and prints `slow-worker: stalled` when it starts waiting. Crash
 * tests kill this process while a fulfillment attempt is provably in progress (issue 14).
 */
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { createServices } from '../../src/ports';
import { createWorker } from '../../worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await createServices(config);
  const marker = process.env.SLOW_STORE_MARKER ?? '';
  const delayMs = Number(process.env.SLOW_STORE_MS ?? 600_000);
  const put = services.store.put.bind(services.store);
  services.store.put = async (content: Buffer) => {
    if (marker && content.includes(marker)) {
      console.log('slow-worker: stalled');
      await new Promise((r) => setTimeout(r, delayMs));
    }
    return put(content);
  };
  // Producers write an order's files in one call where the store can (src/storage/deliverables.ts `putAll`).
  const putMany = services.store.putMany?.bind(services.store);
  if (putMany) {
    services.store.putMany = async (contents: Buffer[]) => {
      if (marker && contents.some((c) => c.includes(marker))) {
        console.log('slow-worker: stalled');
        await new Promise((r) => setTimeout(r, delayMs));
      }
      return putMany(contents);
    };
  }
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const bundlePath = process.env.WORKFLOW_BUNDLE_PATH;
  const worker = await createWorker({
    connection,
    config,
    services,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
  });
  console.log(`worker: task queue ${config.TEMPORAL_TASK_QUEUE} on ${config.TEMPORAL_ADDRESS}`);
  await worker.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
