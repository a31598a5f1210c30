/**
 * Starting and nudging webhook delivery workflows (workflows/webhooks.ts): the API's manual retry calls
 * {@link startDelivery}; the worker hands a {@link DeliveryWorkflows} to the fan-out activities as their port, so
 * activities never import this client layer. Source: issue 5 §2; issue 11 §2.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryInput } from '../domain/events';
import { predecessorSettledSignal, webhookDeliveryWorkflow } from '../../workflows/webhooks';

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

/** The delivery workflows of one task queue, as the webhook activities use them (their `deliveries` port). */
export class DeliveryWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts the delivery workflow of a message (idempotent, see {@link startDelivery}). */
  start(input: DeliveryInput): Promise<void> {
    return startDelivery(this.client, this.taskQueue, input);
  }

  /**
   * Signals `predecessorSettled` to the original delivery (run 0) of `eventId` to `endpointId`. Not started yet (it
   * checks on start) or already finished: nothing to nudge, no error.
   */
  async predecessorSettled(eventId: string, endpointId: string): Promise<void> {
    try {
      await this.client.workflow.getHandle(deliveryWorkflowId(eventId, endpointId, 0)).signal(predecessorSettledSignal);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
}
