/**
 * Starting and signalling ACP checkout session workflows (workflows/checkoutSession.ts, issue 37 §1, decision 0032):
 * the API's `sessionWorkflow` port of src/services/checkoutSessions.ts.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { CheckoutSessionDoc } from '../db';
import { checkoutSessionWorkflow, sessionCompletingSignal } from '../../workflows/checkoutSession';

/** Workflow id of a session's timer and finisher. */
export const checkoutSessionWorkflowId = (sessionId: string): string => `checkout-session-${sessionId}`;

/** The session workflows of one task queue. */
export class CheckoutSessionWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  private options(doc: CheckoutSessionDoc) {
    return {
      taskQueue: this.taskQueue,
      workflowId: checkoutSessionWorkflowId(doc._id),
      args: [{ sessionId: doc._id, expiresAt: doc.expires_at.toISOString() }] as [
        { sessionId: string; expiresAt: string },
      ],
      staticSummary: `ACP checkout session ${doc._id}: expiry and finisher`,
    };
  }

  /** Starts the session's workflow; idempotent (an existing run, running or closed, is left as it is). */
  async started(doc: CheckoutSessionDoc): Promise<void> {
    try {
      await this.client.workflow.start(checkoutSessionWorkflow, {
        ...this.options(doc),
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  /** Tells the session's workflow that complete is starting (starting it when it does not run). */
  async completing(doc: CheckoutSessionDoc): Promise<void> {
    await this.client.workflow.signalWithStart(checkoutSessionWorkflow, {
      ...this.options(doc),
      signal: sessionCompletingSignal,
      signalArgs: [],
    });
  }
}
