/**
 * What the API answers when a message (Update or Signal) meets a workflow that is no longer running (issue 36).
 * Temporal answers NotFound ("workflow execution already completed") for a message to a closed workflow, and also for
 * a workflow whose history is gone; `describe` tells them apart, and reading it needs no worker.
 *
 * - completed: the order reached a final status; 409 `invalid_state_transition` with that status (as before).
 * - terminated, failed, timed out, cancelled: 409 `order_closed` with `workflow_status` and the last order status.
 * - gone (the order exists but Temporal has no history of it: deleted after the namespace's retention): 410
 *   `order_gone`. The order's read model still answers reads.
 * - still running (a NotFound raced a continue-as-new): 503 with Retry-After, the request may be sent again.
 */
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { type ProblemError, problem, unavailable } from '../errors';
import { SA } from '../../workflows/shared';

/** How a workflow ended, as the closed-workflow problems say it (`workflow_status`); `gone`: no history left. */
export type WorkflowEnd =
  'completed' | 'terminated' | 'failed' | 'timed_out' | 'cancelled' | 'continued_as_new' | 'gone';

/** The extension members of a closed-workflow problem (`current_status`: the last status known, when known). */
export interface ClosedWorkflowMembers {
  workflow_status: WorkflowEnd;
  current_status?: string;
}

/** True when `err` is the answer for a closed or gone workflow ({@link closedWorkflowProblem}). */
export const isClosedWorkflowProblem = (err: unknown): err is ProblemError =>
  typeof err === 'object' &&
  err !== null &&
  'extra' in err &&
  typeof (err as ProblemError).extra?.workflow_status === 'string';

/**
 * The problem for a message that met the workflow of `handle` closed or gone. `subject` words it ("The order", "The
 * subscription"). The last status comes from the completed run's result (`status`), else from the `OrderStatus`
 * search attribute the order workflow keeps.
 * @throws what `describe` throws when Temporal cannot be asked (mapped to 503 by src/http/errors.ts).
 */
export async function closedWorkflowProblem(handle: WorkflowHandle, subject: string): Promise<ProblemError> {
  let described: Awaited<ReturnType<WorkflowHandle['describe']>>;
  try {
    described = await handle.describe();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return problem(
      'order_gone',
      `${subject}'s workflow history is gone (deleted after its retention period); it takes no more actions`,
      { workflow_status: 'gone' } satisfies ClosedWorkflowMembers,
    );
  }
  const name = described.status.name;
  if (name === 'RUNNING' || name === 'PAUSED' || name === 'UNSPECIFIED' || name === 'UNKNOWN')
    return unavailable(`${subject}'s workflow did not take the request; retry shortly`, 2, 'temporal');
  const end = name.toLowerCase() as WorkflowEnd;
  if (end === 'completed') {
    // The completed run's result is its final state; reading it needs no worker.
    const final = (await handle.result().catch(() => null)) as { status?: string } | null;
    const status = final?.status ?? 'ended';
    return problem('invalid_state_transition', `${subject} has ended (${status})`, {
      current_status: status,
      workflow_status: end,
    } satisfies ClosedWorkflowMembers);
  }
  const last = described.typedSearchAttributes.get(SA.orderStatus);
  return problem(
    'order_closed',
    `${subject}'s workflow was ${end.replace('_', ' ')}${last ? ` while ${last}` : ''}; it takes no more actions`,
    { workflow_status: end, ...(last ? { current_status: last } : {}) } satisfies ClosedWorkflowMembers,
  );
}
