/**
 * The API's side of the long-running orders (issue 6): engineer queue and buyer-cancel Updates on the order workflow,
 * subscription Updates, per-task workflow starts. Every method throws {@link ProblemError}s.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { type ProblemError, problem, type ErrorCode } from '../errors';
import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { closedWorkflowProblem, type WorkflowEnd } from './closed';
import { FAILURE_TYPES as ORDER_FAILURE_TYPES, updateProblem as orderUpdateProblem } from './orders';
import {
  addDeliverableUpdate,
  cancelOrderUpdate,
  claimEngineeringUpdate,
  markReadyUpdate,
  orderWorkflowId,
} from '../../workflows/shared';
import {
  type CancelOrderRequest,
  type ClaimRequest,
  type DeliverableUpload,
  type OrderState,
  type ReadyRequest,
} from '../domain/order';
import {
  cancelSubscriptionUpdate,
  payInvoiceUpdate,
  subscriptionWorkflowId,
  taskWorkflowId,
} from '../../workflows/subscriptionShared';
import {
  type CancelSubscriptionRequest,
  type PayInvoiceRequest,
  type SubscriptionState,
  type TaskInput,
  type TaskResult,
} from '../domain/subscription';
import { taskWorkflow } from '../../workflows/tasks';

/** The failure types the long-running workflows raise (error codes, answered with their status). */
const FAILURE_TYPES: readonly ErrorCode[] = [
  ...ORDER_FAILURE_TYPES,
  'already_claimed',
  'engineering_not_claimed',
  'deliverable_conflict',
  'no_deliverables',
  'invoice_not_found',
];

/** How a task workflow ended, from the failure `result()` threw. */
function workflowEndOf(err: WorkflowFailedError): WorkflowEnd {
  if (err.cause instanceof TerminatedFailure) return 'terminated';
  if (err.cause instanceof CancelledFailure) return 'cancelled';
  if (err.cause instanceof TimeoutFailure) return 'timed_out';
  return 'failed';
}

const updateProblem = (err: WorkflowUpdateFailedError): ProblemError => orderUpdateProblem(err, FAILURE_TYPES);

/** Client of the long-running order workflows. */
export class LongRunningWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** `claimEngineering` Update: an engineer takes the order. */
  claim(orderId: string, req: ClaimRequest): Promise<OrderState> {
    return this.orderUpdate(orderId, (h) => h.executeUpdate(claimEngineeringUpdate, { args: [req] }));
  }

  /** `addDeliverable` Update: records a file the API already stored. */
  addDeliverable(orderId: string, req: DeliverableUpload): Promise<OrderState> {
    return this.orderUpdate(orderId, (h) => h.executeUpdate(addDeliverableUpdate, { args: [req] }));
  }

  /** `markReady` Update: answers with the delivered order. */
  markReady(orderId: string, req: ReadyRequest): Promise<OrderState> {
    return this.orderUpdate(orderId, (h) => h.executeUpdate(markReadyUpdate, { args: [req] }));
  }

  /** `cancelOrder` Update (buyer, after an SLA breach): answers with the cancelled, refunded order. */
  cancelOrder(orderId: string, req: CancelOrderRequest): Promise<OrderState> {
    return this.orderUpdate(orderId, (h) => h.executeUpdate(cancelOrderUpdate, { args: [req] }));
  }

  /** `cancelSubscription` Update: cancel at the end of the period. */
  cancelSubscription(orderId: string, req: CancelSubscriptionRequest): Promise<SubscriptionState> {
    return this.subscriptionUpdate(orderId, (h) => h.executeUpdate(cancelSubscriptionUpdate, { args: [req] }));
  }

  /** `payInvoice` Update: a hosted-link transaction pays the open renewal invoice. */
  payInvoice(orderId: string, req: PayInvoiceRequest): Promise<SubscriptionState> {
    return this.subscriptionUpdate(orderId, (h) => h.executeUpdate(payInvoiceUpdate, { args: [req] }));
  }

  /**
   * Starts task `input.taskNumber` (id `task-<order>-<n>`, a second start is a no-op) and waits up to `waitMs` for
   * its outcome; null when it is still running then. A task that has ended is never run again (a retried submission
   * gets its outcome: issue 36).
   */
  async runTask(input: TaskInput, waitMs: number): Promise<TaskResult | null> {
    const workflowId = taskWorkflowId(input.orderId, input.taskNumber);
    try {
      await this.client.workflow.start(taskWorkflow, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: `Task ${input.taskNumber} of order ${input.orderId}`,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    const handle = this.client.workflow.getHandle<typeof taskWorkflow>(workflowId);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    });
    try {
      return await Promise.race([handle.result(), timeout]);
    } catch (err) {
      // A task workflow stopped from outside (terminated, cancelled, timed out) or failed will not run: 409, not 500.
      if (err instanceof WorkflowFailedError) {
        const end = workflowEndOf(err);
        throw problem('order_closed', `Task ${input.taskNumber}'s workflow was ${end.replace('_', ' ')}`, {
          workflow_status: end,
        });
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private orderUpdate<T>(
    orderId: string,
    run: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<T>,
  ): Promise<T> {
    return this.update(orderWorkflowId(orderId), 'The order', run);
  }

  private subscriptionUpdate<T>(
    orderId: string,
    run: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<T>,
  ): Promise<T> {
    return this.update(subscriptionWorkflowId(orderId), 'The subscription', run);
  }

  private async update<T>(
    workflowId: string,
    subject: string,
    run: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<T>,
  ): Promise<T> {
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      return await run(handle);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw updateProblem(err);
      // An Update to a closed workflow answers NotFound: 409 with the state it ended in, 410 when it is gone.
      if (err instanceof WorkflowNotFoundError) throw await closedWorkflowProblem(handle, subject);
      throw err;
    }
  }
}
