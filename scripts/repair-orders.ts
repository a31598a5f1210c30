/**
 * `npm run orders:repair [-- --order <order_id> ...] [--dry-run]`: finds the order workflows whose history the
 * current code cannot replay (issue 24 §1: two Updates in one workflow task under the code before the
 * `messages-in-main-coroutine` patch) and replaces each with a run that resumes where the order stands, or refunds it
 * (src/temporal/repairOrders.ts). Without `--order`, checks every running order workflow. Prints one line per order;
 * exits 0. Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, MONGODB_URI and MONGODB_DB as the worker.
 */
import { Client } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { workflowBundleOptions } from '../worker/bundle';
import { createServices } from '../src/ports';
import { temporalDataConverter } from '../src/temporal/codec';
import { connectTemporal } from '../src/temporal/connection';
import { repairBrokenOrders } from '../src/temporal/repairOrders';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const orderIds = args.flatMap((a, i) => (a === '--order' && args[i + 1] ? [args[i + 1] as string] : []));
  const config = loadConfig();
  const services = await createServices(config);
  const connection = await connectTemporal(config.TEMPORAL_ADDRESS);
  try {
    // Issue 26 §1: the configuration's data converter, for the client and the replays of (encrypted) histories.
    const dataConverter = temporalDataConverter(config);
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
    const workflowBundle = await bundleWorkflowCode({
      ...workflowBundleOptions(dataConverter),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    const outcomes = await repairBrokenOrders(
      {
        client,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        orders: services.orders,
        payments: { wallets: services.wallets, linkpay: services.linkProvider },
        workflowBundle,
        dataConverter,
      },
      { ...(orderIds.length > 0 ? { orderIds } : {}), dryRun: args.includes('--dry-run') },
    );
    for (const o of outcomes) {
      console.log(
        `${o.order_id}  ${o.action}${o.status ? ` (was ${o.status})` : ''}${o.detail ? `: ${o.detail}` : ''}`,
      );
    }
    const broken = outcomes.filter((o) => o.action !== 'ok').length;
    console.log(`${outcomes.length} order workflows checked, ${broken} broken`);
  } finally {
    await connection.close();
    await services.db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
