/**
 * Worker Deployments (issue 26 §2; Temporal's Worker Versioning, server ≥ 1.29.1): which build of the workers is
 * current, set through the workflow service. A deploy is blue-green: the new build's workers start beside the old,
 * `promote` makes it current (AUTO_UPGRADE workflows move at their next task, PINNED ones stay on the old build until
 * they end), `rollback` makes the old one current again. Used by the worker at start and by `npm run deploy`.
 */
import type { Connection } from '@temporalio/client';

/** What these calls need of a connection: the client's `Connection` or the worker's `NativeConnection`. */
export type WorkflowServiceConnection = Pick<Connection, 'workflowService'>;

/** A deployment's versions as the server describes them. */
export interface DeploymentState {
  /** Build id of the current version, or null when none is set (new workflows then go to unversioned workers). */
  currentBuildId: string | null;
  /** Every version with its drainage status (`DRAINING`: pinned workflows still run on it; `DRAINED`: none). */
  versions: { buildId: string; status: string; drainage: string }[];
}

/** The deployment's current build and versions; `null` when the deployment does not exist yet. */
export async function describeDeployment(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentState | null> {
  try {
    const res = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    const info = res.workerDeploymentInfo;
    return {
      currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId || null,
      versions: (info?.versionSummaries ?? []).map((v) => ({
        buildId: v.deploymentVersion?.buildId ?? '',
        status: String(v.status ?? ''),
        drainage: String(v.drainageStatus ?? ''),
      })),
    };
  } catch (err) {
    if ((err as { code?: number }).code === 5) return null;
    throw err;
  }
}

/**
 * Makes `buildId` the deployment's current version (promote, or rollback to an earlier build). The build's workers must
 * be polling (the server refuses a version without pollers).
 * @throws the server's error (e.g. FAILED_PRECONDITION when no worker of that build has polled yet).
 */
export async function setCurrentBuild(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
): Promise<void> {
  await connection.workflowService.setWorkerDeploymentCurrentVersion({
    namespace,
    deploymentName,
    buildId,
    identity: `agent-commerce deploy (${process.pid})`,
  });
}

/**
 * At a versioned worker's start: when the deployment has no current version yet (its first build), make this build
 * current, so a fresh install serves at once; a later build is promoted by the operator (`npm run deploy`). Retries for
 * `timeoutMs` while the server has not seen this build's pollers. Resolves to what it did.
 */
export async function adoptFirstBuild(
  connection: WorkflowServiceConnection,
  namespace: string,
  deploymentName: string,
  buildId: string,
  timeoutMs = 30_000,
): Promise<'made current' | `kept ${string}`> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await describeDeployment(connection, namespace, deploymentName);
    if (state?.currentBuildId) return `kept ${state.currentBuildId}`;
    try {
      await setCurrentBuild(connection, namespace, deploymentName, buildId);
      return 'made current';
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
