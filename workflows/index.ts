/** Workflow entry point for the worker's bundle: every workflow type the service runs. */
export { orderWorkflow, fulfillmentWorkflow } from './order';
export { procurementWorkflow } from './procurement';
export { webhookDeliveryWorkflow } from './webhooks';
