import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { ERRORS, problem, type ErrorCode, type ProblemError } from '../errors';
import { SA } from '../../workflows/shared';
import { procurementWorkflowId } from '../../workflows/procurementShared';
import { type ProcurementResult, type ProcurementWorkflowInput } from '../domain/procurement';
import { formatUsd } from '../domain/money';
import { procurementWorkflow } from '../../workflows/procurement';

/**
 * The problem detail of a procurement workflow that failed on a business refusal it does not handle itself: a
 * non-retryable `ApplicationFailure` (raised by an activity through the application layer, activities/failures.ts)
 * whose type is an error code answered below 500 (src/errors.ts), with its first detail object as extension members.
 * Anything else (a bug, an exhausted retry) gives undefined and stays a 500. The plan keeps refusals of this kind
 * from happening (issue 24 §5); this is the net under it, so a refusal is never turned into a 500.
 */
export function procurementFailureProblem(err: unknown): ProblemError | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  const failure = err.cause instanceof ActivityFailure ? err.cause.cause : err.cause;
  if (!(failure instanceof ApplicationFailure) || !failure.nonRetryable || !failure.type) return undefined;
  const code = failure.type as ErrorCode;
  if (!Object.hasOwn(ERRORS, code) || ERRORS[code].status >= 500) return undefined;
  const details = failure.details?.[0];
  return problem(code, failure.message, details && typeof details === 'object' ? { ...details } : {});
}

/**
 * The API's side of the procurement workflows: start one per `POST /api/v1/procure` and wait for its outcome.
 * Source: issue 4 §3.
 */
export class ProcurementWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts `procurementWorkflow` with id `procurement-<id>`; a second start of the same id (a retried request with an
   * Idempotency-Key, issue 36) is a no-op, whether the first run still runs or has ended: never a second run.
   */
  async start(input: ProcurementWorkflowInput): Promise<void> {
    try {
      await this.launch(input);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  private async launch(input: ProcurementWorkflowInput): Promise<void> {
    await this.client.workflow.start(procurementWorkflow, {
      taskQueue: this.taskQueue,
      workflowId: procurementWorkflowId(input.procurementId),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: SA.procurementStatus, value: 'planning' },
        ...(input.agentId ? [{ key: SA.agentId, value: input.agentId }] : []),
      ],
      staticSummary: `Procurement ${input.procurementId}: ${(input.objective ?? input.requirements.join(', ')).slice(0, 120) || '(no objective)'} within ${formatUsd(input.budgetMicros)}`,
      staticDetails: [
        `agent: ${input.agentId ?? '(none)'}`,
        `budget: ${input.budgetMicros} micro-USD`,
        `auto_purchase: ${input.autoPurchase}`,
        `requirements: ${input.requirements.join(' | ') || '(none)'}`,
      ].join('\n'),
    });
  }

  /**
   * The outcome, or null when the workflow has not finished within `timeoutMs` (it keeps running; the caller can
   * read the procurement later).
   * @throws ProblemError (4xx, the refusal's code) when the workflow failed on a business refusal it does not handle
   *   ({@link procurementFailureProblem}); WorkflowFailedError when it failed otherwise (an unexpected error).
   */
  async result(procurementId: string, timeoutMs: number): Promise<ProcurementResult | null> {
    const handle = this.client.workflow.getHandle<typeof procurementWorkflow>(procurementWorkflowId(procurementId));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    try {
      return await Promise.race([handle.result(), timeout]);
    } catch (err) {
      throw procurementFailureProblem(err) ?? err;
    } finally {
      clearTimeout(timer);
    }
  }
}
