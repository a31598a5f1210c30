/**
 * `npm run deploy -- <status|promote|rollback> [build id]` (issue 26 §2): the blue-green steps of a worker deploy
 * under Worker Versioning, for the deployment WORKER_DEPLOYMENT_NAME on TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE.
 *   status            the current build and every version's drainage (DRAINING: pinned workflows still on it)
 *   promote <build>   make <build> current: start its workers first (WORKER_BUILD_ID=<build>); AUTO_UPGRADE workflows
 *                     move at their next task, PINNED ones finish on the build they started on
 *   rollback <build>  make an earlier <build> current again (its workers must still be running)
 * Equivalent CLI: `temporal worker deployment set-current-version --deployment-name <name> --build-id <build>`.
 */
import { Connection } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { describeDeployment, setCurrentBuild } from '../src/temporal/deployments';

async function main(): Promise<number> {
  const [command, buildId] = process.argv.slice(2);
  const config = loadConfig();
  const deployment = config.WORKER_DEPLOYMENT_NAME;
  if (!deployment) {
    console.error('set WORKER_DEPLOYMENT_NAME (the workers run unversioned without it)');
    return 2;
  }
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  try {
    if ((command === 'promote' || command === 'rollback') && buildId) {
      await setCurrentBuild(connection, config.TEMPORAL_NAMESPACE, deployment, buildId);
      console.log(`${deployment}: current build is now ${buildId}`);
    } else if (command !== 'status') {
      console.error('usage: npm run deploy -- <status|promote|rollback> [build id]');
      return 2;
    }
    const state = await describeDeployment(connection, config.TEMPORAL_NAMESPACE, deployment);
    console.log(JSON.stringify(state, null, 2));
    return 0;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
