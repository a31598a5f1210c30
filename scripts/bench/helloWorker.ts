/**
 * The hello-world anchor's worker in a process of its own, as Temporal's samples run it (`npm run start` beside the
 * client): `tsx scripts/bench/helloWorker.ts <task queue>`. Prints `ready` once polling; stops on SIGINT or SIGTERM.
 * Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), TEMPORAL_NAMESPACE (default `default`).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createHelloActivities } from './helloActivities';

async function main(): Promise<void> {
  const taskQueue = process.argv[2];
  if (!taskQueue) throw new Error('usage: helloWorker.ts <task queue>');
  // No extra logging: the SDK's own lines at warn and above only.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    workflowsPath: require.resolve('./helloWorkflow'),
    activities: createHelloActivities(),
  });
  const stop = (): void => worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const running = worker.run();
  console.log('ready');
  await running;
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
