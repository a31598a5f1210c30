/**
 * The procurement workflow: one per `POST /api/v1/procure`, id `procurement-<id>`. Plans (objective and requirements →
 * one service within budget, with reasons), quotes, and with `auto_purchase` orders and pays from the agent wallet.
 * The `ProcurementStatus` search attribute follows the steps (planning → quoting → ordering → paying → outcome).
 *
 * The agent key never reaches this workflow: the API verifies it and passes `walletSpendAuthorized`.
 *
 * Source: seed §2.8, §4 (procure), §7 (402 payment failed, 422 no match), §8 (defaults); issue 4 §3.
 */
import { proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { ProcurementActivities } from '../activities/procurement';
import { procurementDetails } from './details';
import { CAPTURE, businessFailure, nowIso, withSummary } from './policies';
import { SA } from './shared';
import type { ProcurementProgress, ProcurementResult, ProcurementWorkflowInput } from '../src/domain/procurement';

/** Planning, quoting, ordering and bookkeeping: business refusals are non-retryable, the rest retries. */
const steps = proxyActivities<ProcurementActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * Payment waits for the order workflow's Update to return; a few attempts, then the failure is reported. It
 * heartbeats while it waits, so an attempt lost with its worker is retried after 10 s (issue 14).
 */
const paying = proxyActivities<ProcurementActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: CAPTURE,
});

/** The business failure carried by a failed activity, if it is one. */
function purchaseFailure(err: unknown): { code: string; message: string; details?: Record<string, unknown> } | null {
  const cause = businessFailure(err);
  if (!cause?.nonRetryable) return null;
  const details = cause.details?.[0];
  return {
    code: cause.type ?? 'payment_failed',
    message: cause.message,
    ...(details && typeof details === 'object' ? { details: details as Record<string, unknown> } : {}),
  };
}

/** Runs one procurement to its outcome (see `ProcurementStatus`). */
export async function procurementWorkflow(input: ProcurementWorkflowInput): Promise<ProcurementResult> {
  let quoteId: string | null = null;
  let orderId: string | null = null;
  let serviceId: string | null = null;
  /** The current details (issue 26 §1), shown at every step. */
  const show = (step: ProcurementProgress, failure?: string): void =>
    setCurrentDetails(
      procurementDetails({
        procurementId: input.procurementId,
        step,
        serviceId,
        quoteId,
        orderId,
        ...(failure ? { failure } : {}),
      }),
    );
  const progress = (value: ProcurementProgress) => {
    upsertSearchAttributes([{ key: SA.procurementStatus, value }]);
    show(value);
  };
  progress('planning');
  const plan = await withSummary(steps.planProcurement, 'Plan: choose a service within budget', input);
  serviceId = plan.chosen?.service_id ?? null;

  const finish = async (
    status: ProcurementResult['status'],
    failure?: ProcurementResult['failure'],
  ): Promise<ProcurementResult> => {
    const result: ProcurementResult = {
      procurementId: input.procurementId,
      status,
      plan,
      serviceId: plan.chosen?.service_id ?? null,
      quoteId,
      orderId,
      ...(failure ? { failure } : {}),
      completedAt: nowIso(),
    };
    progress(status);
    if (failure) show(status, `${failure.code}: ${failure.message}`);
    await withSummary(steps.finishProcurement, `Record the outcome: ${status}`, {
      ...result,
      ...(input.agentId ? { agentId: input.agentId } : {}),
    });
    return result;
  };

  if (!plan.chosen) return finish('no_match');
  progress('quoting');
  quoteId = await withSummary(steps.quoteProcurement, `Quote ${plan.chosen.service_id}`, {
    procurementId: input.procurementId,
    serviceId: plan.chosen.service_id,
  });
  if (!input.autoPurchase) return finish('planned');
  if (plan.missing_inputs.length > 0) {
    return finish('needs_inputs', {
      code: 'missing_inputs',
      message: `${plan.chosen.service_id} needs inputs: ${plan.missing_inputs.join(', ')}`,
      details: { missing: plan.missing_inputs },
    });
  }

  progress('ordering');
  try {
    orderId = await withSummary(steps.orderProcurement, `Order ${plan.chosen.service_id} on quote ${quoteId}`, {
      procurementId: input.procurementId,
      quoteId,
      ...(input.agentId ? { agentId: input.agentId } : {}),
      ...(input.email ? { email: input.email } : {}),
      inputs: plan.inputs,
    });
  } catch (err) {
    const failure = purchaseFailure(err);
    if (failure?.code === 'missing_inputs') return finish('needs_inputs', failure);
    throw err;
  }

  progress('paying');
  try {
    await withSummary(paying.payProcurementOrder, `Pay order ${orderId} from the agent wallet`, {
      orderId,
      walletSpendAuthorized: input.walletSpendAuthorized,
    });
  } catch (err) {
    const failure = purchaseFailure(err);
    if (failure) return finish('payment_failed', failure);
    throw err;
  }
  return finish('completed');
}
