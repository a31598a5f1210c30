/** Workflow entry point for the worker's bundle: every workflow type the service runs. */
export { orderWorkflow, fulfillmentWorkflow } from './order';
export { procurementWorkflow } from './procurement';
export { x402ReconcileWorkflow } from './x402Reconcile';
export { webhookDeliveryWorkflow } from './webhooks';
export { subscriptionWorkflow } from './subscription';
export { taskWorkflow } from './tasks';
export { booksReconciliationWorkflow } from './reconciliation';
