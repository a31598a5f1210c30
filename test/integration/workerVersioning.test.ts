/**
 * Issue 26 §2, Worker Versioning on the dev server of the test run (Temporal 1.29.1): two builds of the real workflow
 * bundle in one Worker Deployment. The first build becomes current by itself (`adoptFirstBuild`, as the worker does at
 * start); an order (AUTO_UPGRADE) started on build A moves to build B at its next workflow task once B is promoted,
 * and back to A on rollback; a bundle part's fulfilment runs PINNED to the build that started it. `npm run deploy`'s
 * operations are the ones used here (src/temporal/deployments.ts).
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { orderWorkflow, fulfillmentWorkflow } from '../../workflows/order';
import { orderWorkflowId, recoverPaymentSignal } from '../../workflows/shared';
import { adoptFirstBuild, describeDeployment, setCurrentBuild } from '../../src/temporal/deployments';
import { buildOrderInput } from '../fixtures/workflowInputs';
import { FakeWallet, eventually, fakeActivities } from '../helpers/workflowTestEnv';
import { workflowBundle } from '../helpers/workflowBundle';

const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const deploymentName = `wv-test-${randomBytes(3).toString('hex')}`;
const taskQueue = `wv-${randomBytes(3).toString('hex')}`;
let connection: Connection;
let native: NativeConnection;
let client: Client;
const workers: { worker: Worker; running: Promise<void> }[] = [];

beforeAll(async () => {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS must be set (test/globalSetup.ts)');
  connection = await Connection.connect({ address });
  native = await NativeConnection.connect({ address });
  client = new Client({ connection, namespace });
});

afterAll(async () => {
  for (const w of workers) w.worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.running));
  await native?.close();
  await connection?.close();
});

/** Starts a worker of `buildId` in the test's deployment (real workflow bundle, fake activities). */
async function startBuild(buildId: string): Promise<void> {
  const worker = await Worker.create({
    connection: native,
    namespace,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: fakeActivities(new FakeWallet()),
    workerDeploymentOptions: {
      useWorkerVersioning: true,
      version: { deploymentName, buildId },
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    },
  });
  workers.push({ worker, running: worker.run() });
}

/** The build and behavior the server records for a workflow's last task. */
async function versionOf(workflowId: string): Promise<{ buildId: string; behavior: string }> {
  const d = await client.workflow.getHandle(workflowId).describe();
  const info = d.raw.workflowExecutionInfo?.versioningInfo;
  return {
    buildId: info?.deploymentVersion?.buildId ?? '',
    behavior: temporal.api.enums.v1.VersioningBehavior[info?.behavior ?? 0] ?? '',
  };
}

test('an order moves to the promoted build at its next task and back on rollback; a fulfilment stays pinned', async () => {
  await startBuild('build-a');
  expect(await adoptFirstBuild(native, namespace, deploymentName, 'build-a')).toBe('made current');

  const input = buildOrderInput();
  const order = await client.workflow.start(orderWorkflow, {
    taskQueue,
    workflowId: orderWorkflowId(input.orderId),
    args: [input],
  });
  await eventually(
    () => versionOf(order.workflowId),
    (v) => v.buildId === 'build-a',
  );
  expect((await versionOf(order.workflowId)).behavior).toBe('VERSIONING_BEHAVIOR_AUTO_UPGRADE');

  const part = await client.workflow.start(fulfillmentWorkflow, {
    taskQueue,
    workflowId: `wv-part-${input.orderId}`,
    args: [{ orderId: input.orderId, serviceId: 'automation-wf', inputs: {}, issuedAt: new Date().toISOString() }],
  });
  await part.result();
  expect(await versionOf(part.workflowId)).toEqual({ buildId: 'build-a', behavior: 'VERSIONING_BEHAVIOR_PINNED' });

  // Blue-green: build B's workers start beside A's, then B is promoted; the order moves at its next task.
  await startBuild('build-b');
  await eventually(
    () =>
      setCurrentBuild(native, namespace, deploymentName, 'build-b').then(
        () => true,
        () => false,
      ),
    (ok) => ok,
    20_000,
  );
  expect((await describeDeployment(native, namespace, deploymentName))?.currentBuildId).toBe('build-b');
  await order.signal(recoverPaymentSignal, { reason: 'versioning test' });
  await eventually(
    () => versionOf(order.workflowId),
    (v) => v.buildId === 'build-b',
    20_000,
  );

  // Rollback: A is current again (its workers still run); the order's next task runs on A.
  await setCurrentBuild(native, namespace, deploymentName, 'build-a');
  await order.signal(recoverPaymentSignal, { reason: 'versioning test, rollback' });
  await eventually(
    () => versionOf(order.workflowId),
    (v) => v.buildId === 'build-a',
    20_000,
  );
  await order.terminate('versioning test done');
}, 120_000);
