/** Workflow entry point for the worker's bundle: every workflow type the service runs. */
export { orderWorkflow, fulfillmentWorkflow } from './order';
export { x402ReconcileWorkflow } from './x402Reconcile';
export { procurementWorkflow } from './procurement';
export { webhookDeliveryWorkflow } from './webhooks';
