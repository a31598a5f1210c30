/** Workflow entry point for the worker's bundle: every workflow type the service runs. */
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { orderWorkflow, fulfillmentWorkflow } from './order';
import { procurementWorkflow } from './procurement';
import { x402ReconcileWorkflow } from './x402Reconcile';
import { x402RefundWorkflow } from './x402Refund';
import { webhookDeliveryWorkflow } from './webhooks';
import { subscriptionWorkflow } from './subscription';
import { taskWorkflow } from './tasks';
import { booksReconciliationWorkflow } from './reconciliation';
import { checkoutSessionWorkflow } from './checkoutSession';
import { VERSIONING_BEHAVIOR } from './versioning';

export {
  orderWorkflow,
  fulfillmentWorkflow,
  procurementWorkflow,
  x402ReconcileWorkflow,
  x402RefundWorkflow,
  webhookDeliveryWorkflow,
  subscriptionWorkflow,
  taskWorkflow,
  booksReconciliationWorkflow,
  checkoutSessionWorkflow,
};

// Issue 26 §2: each type's Worker Versioning behavior (workflows/versioning.ts), only on a versioned worker
// (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID): an unversioned worker's tasks that name a behavior are refused
// ("versioning behavior cannot be specified without deployment options being set"). Read once per run's activation.
const WORKFLOW_TYPES: Record<keyof typeof VERSIONING_BEHAVIOR, (...args: never[]) => Promise<unknown>> = {
  orderWorkflow,
  fulfillmentWorkflow,
  procurementWorkflow,
  x402ReconcileWorkflow,
  x402RefundWorkflow,
  webhookDeliveryWorkflow,
  subscriptionWorkflow,
  taskWorkflow,
  booksReconciliationWorkflow,
  checkoutSessionWorkflow,
};
for (const [name, fn] of Object.entries(WORKFLOW_TYPES)) {
  const versioningBehavior = VERSIONING_BEHAVIOR[name as keyof typeof VERSIONING_BEHAVIOR];
  setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {}), fn);
}
