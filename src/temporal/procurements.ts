import type { Client } from '@temporalio/client';
import { SA } from '../../workflows/shared';
import {
  procurementWorkflowId,
  type ProcurementResult,
  type ProcurementWorkflowInput,
} from '../../workflows/procurementShared';
import { formatUsd } from '../domain/money';
import { procurementWorkflow } from '../../workflows/procurement';

/**
 * The API's side of the procurement workflows: start one per `POST /api/v1/procure` and wait for its outcome.
 * Source: issue 4 §3.
 */
export class ProcurementWorkflows {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Starts `procurementWorkflow` with id `procurement-<id>` (a second start of the same id is rejected by Temporal). */
  async start(input: ProcurementWorkflowInput): Promise<void> {
    await this.client.workflow.start(procurementWorkflow, {
      taskQueue: this.taskQueue,
      workflowId: procurementWorkflowId(input.procurementId),
      args: [input],
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
   * @throws WorkflowFailedError when the workflow failed (an unexpected error, not a business outcome).
   */
  async result(procurementId: string, timeoutMs: number): Promise<ProcurementResult | null> {
    const handle = this.client.workflow.getHandle<typeof procurementWorkflow>(procurementWorkflowId(procurementId));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    try {
      return await Promise.race([handle.result(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
