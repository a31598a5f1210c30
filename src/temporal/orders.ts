import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ProblemError, problem, unavailable, type ErrorCode } from '../errors';
import {
  SA,
  confirmPaymentUpdate,
  getStateQuery,
  orderWorkflowId,
  reviewUpdate,
  holdPaymentUpdate,
} from '../../workflows/shared';
import {
  type ConfirmPaymentRequest,
  type HoldPaymentRequest,
  type OrderState,
  type OrderWorkflowInput,
  type ReviewRequest,
} from '../domain/order';
import { orderWorkflow } from '../../workflows/order';
import { formatUsd } from '../domain/money';
import { closedWorkflowProblem } from './closed';

/** The failure types the order workflow raises: error codes, answered with their status (src/errors.ts). */
export const FAILURE_TYPES: readonly ErrorCode[] = [
  'invalid_state_transition',
  'rail_not_offered',
  'insufficient_funds',
  'payment_failed',
  'transaction_not_found',
  'transaction_already_used',
  'transaction_amount_mismatch',
  'invalid_request',
  'payment_in_progress',
];

/**
 * Turns a failed Update into the problem detail its failure type names, when it is one of `failureTypes` (the
 * failure's first detail object becomes extension members). Unknown types are a 500 that exposes nothing.
 */
export function updateProblem(
  err: WorkflowUpdateFailedError,
  failureTypes: readonly ErrorCode[] = FAILURE_TYPES,
): ProblemError {
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type && (failureTypes as readonly string[]).includes(cause.type)) {
    const extra = (cause.details?.[0] ?? {}) as Record<string, unknown>;
    return problem(cause.type as ErrorCode, cause.message, extra);
  }
  // Not a business refusal: the Update did not run to its end (lost by a restarting server, an activity cancelled
  // under it). Asking again is safe (payments are keyed by order), so 503 with Retry-After (issue 14).
  if (!(cause instanceof ApplicationFailure) || !cause.type)
    return unavailable('The order workflow did not take the request; retry shortly', 2, 'temporal');
  return problem('internal_error', cause?.message ?? err.message);
}

/**
 * The API's side of the order workflows: start one per order, send it Updates, query it.
 * Every method throws {@link ProblemError}s (404 unknown order, 409 wrong state, 402 payment refused; an Update to a
 * closed workflow 409 `invalid_state_transition` or `order_closed`, 410 `order_gone`: ./closed.ts).
 */
export class OrderWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts `orderWorkflow` with id `order-<order_id>`; a second start of the same id is a no-op
   * (conflict policy USE_EXISTING), which makes a retried creation safe.
   */
  async start(input: OrderWorkflowInput, serviceName: string): Promise<void> {
    try {
      await this.client.workflow.start(orderWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: orderWorkflowId(input.orderId),
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        // An order that has ended is never run again by a retried creation (issue 36).
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA.orderStatus, value: 'awaiting_payment' },
          { key: SA.serviceId, value: input.serviceId },
          ...(input.agentId ? [{ key: SA.agentId, value: input.agentId }] : []),
          // Issue 26 §1: set here, so the workflow need not upsert them (one history event fewer per order).
          { key: SA.waitingOn, value: 'payment' },
          { key: SA.waitingSince, value: new Date(input.record.created_at) },
        ],
        staticSummary: `Order ${input.orderId}: ${serviceName} for ${formatUsd(input.amountMicros)}`,
        staticDetails: [
          `service: ${input.serviceId}`,
          `agent: ${input.agentId ?? '(none)'}`,
          `amount: ${input.amountMicros} micro-USD`,
          `rails: ${input.rails.join(', ')}`,
        ].join('\n'),
        memo: { service_id: input.serviceId, amount_micros: input.amountMicros },
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      throw err;
    }
  }

  /** Runs the `confirmPayment` Update and returns the state after payment. */
  confirmPayment(orderId: string, req: ConfirmPaymentRequest): Promise<OrderState> {
    return this.update(orderId, () =>
      this.client.workflow.getHandle(orderWorkflowId(orderId)).executeUpdate(confirmPaymentUpdate, { args: [req] }),
    );
  }

  /**
   * Holds the order for a payment on `rail` about to move money outside the workflow, for `seconds` (0 releases;
   * issue 36 §1). A worker without the Update
   * (an older build) answers `null`: the settlement then goes ahead unheld, and a refusal after it is refunded.
   * @throws ProblemError 409 `payment_in_progress` (another rail is paying) or `invalid_state_transition`.
   */
  async holdPayment(
    orderId: string,
    seconds: number,
    rail: HoldPaymentRequest['rail'] = 'x402_usdc',
  ): Promise<OrderState | null> {
    try {
      return await this.update(orderId, () =>
        this.client.workflow
          .getHandle(orderWorkflowId(orderId))
          .executeUpdate(holdPaymentUpdate, { args: [{ seconds, rail }] }),
      );
    } catch (err) {
      if (
        err instanceof ProblemError &&
        err.code === 'internal_error' &&
        /no registered handler for update/i.test(err.message)
      )
        return null;
      throw err;
    }
  }

  /** Runs the `review` Update and returns the final state. */
  review(orderId: string, req: ReviewRequest): Promise<OrderState> {
    return this.update(orderId, () =>
      this.client.workflow.getHandle(orderWorkflowId(orderId)).executeUpdate(reviewUpdate, { args: [req] }),
    );
  }

  /** The live state from the workflow (works for closed workflows too). */
  async state(orderId: string): Promise<OrderState> {
    try {
      return await this.client.workflow.getHandle(orderWorkflowId(orderId)).query(getStateQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw problem('order_not_found', `No order ${orderId}`);
      throw err;
    }
  }

  private async update(orderId: string, run: () => Promise<OrderState>): Promise<OrderState> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) throw updateProblem(err);
      // Temporal answers NotFound for an Update sent to a closed workflow: 409 with the state it ended in, 410 gone.
      if (err instanceof WorkflowNotFoundError)
        throw await closedWorkflowProblem(this.client.workflow.getHandle(orderWorkflowId(orderId)), 'The order');
      throw err;
    }
  }
}
