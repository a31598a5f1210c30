/**
 * Starting webhook delivery workflows (workflows/webhooks.ts), shared by the fan-out activity and the API's manual
 * retry. Source: issue 5 §2.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { webhookDeliveryWorkflow, type DeliveryInput } from '../../workflows/webhooks';

/** Workflow id of the delivery of `eventId` to `endpointId` (run 0 = original, n = n-th manual retry). */
export function deliveryWorkflowId(eventId: string, endpointId: string, run = 0): string {
  return `webhook-${eventId}-${endpointId}${run > 0 ? `-retry-${run}` : ''}`;
}

/**
 * Starts the delivery workflow of a message. Idempotent: the id derives from event, endpoint and run; conflict policy
 * USE_EXISTING (still running) and reuse policy REJECT_DUPLICATE (already finished), so a retried fan-out or a
 * double-clicked retry starts nothing twice.
 */
export async function startDelivery(client: Client, taskQueue: string, input: DeliveryInput): Promise<void> {
  try {
    await client.workflow.start(webhookDeliveryWorkflow, {
      taskQueue,
      workflowId: deliveryWorkflowId(input.eventId, input.endpointId, input.run),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `Webhook ${input.eventId} to ${input.endpointId}${input.run > 0 ? ` (retry ${input.run})` : ''}`,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}
