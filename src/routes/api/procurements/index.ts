import { randomBytes } from 'node:crypto';
import { notFound, problem, unprocessable, type ErrorCode } from '../../../errors';
import { ProcurementRepository } from '../../../repos/procurements';
import { idempotentCreation } from '../../../http/idempotency';
import { ProcurementWorkflows } from '../../../temporal/procurements';
import type { ProcurementWorkflowInput } from '../../../domain/procurement';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { procurementGate } from './policy';
import { procurementOperations as ops } from './schema';
import { fromDoc, fromResult, procurementView } from './view';

/** How long `POST /api/v1/procure` waits for the workflow before answering 202 with a link to poll. */
export const PROCURE_WAIT_MS = 60_000;

/** New procurement id: `prc_` + 128 random bits; its quote and order reuse the random part. */
export const newProcurementId = (): string => `prc_${randomBytes(16).toString('base64url')}`;

/**
 * Goal-based procurement (seed §2.8, §4, §7, §8; issue 4 §3).
 *
 * `POST /api/v1/procure` runs one `procurementWorkflow` and answers with its outcome:
 * - 201 `completed`: plan, chosen service, quote and the order, paid from the agent wallet (fulfillment follows);
 * - 201 `planned` when `auto_purchase` is false: plan and a binding quote, nothing bought (a procurement record was
 *   created, hence 201 rather than 200);
 * - 422 `no_matching_service` with `missing` (what no service offers, the filter or the budget that ruled out the rest);
 * - 422 `no_service_available` with `missing` and `unavailable` when only services this deployment cannot sell fit
 *   (a model-written one without TEXTGEN_*; issue 24 §5): nothing is quoted or ordered;
 * - 422 `missing_inputs` when the chosen service needs inputs the request lacks (plan and quote included);
 * - 402 `insufficient_funds` / `payment_failed` when the wallet payment is refused: the order it created stays
 *   awaiting_payment (nothing was charged) until its payment deadline, so the agent can top up and pay it;
 * - 202 with a link when the workflow has not finished within {@link PROCURE_WAIT_MS}.
 * Buying (`auto_purchase` true) needs `agent_id` (400) and that wallet's key as `Authorization: Bearer ak_...`
 * (401 without, 403 wrong), checked by the gate (./policy.ts) and never passed to the workflow.
 *
 * `GET /api/v1/procurements/{id}` shows a stored procurement.
 */
export function procurementRoutes(deps: AppDeps): OperationRouter {
  const workflows = new ProcurementWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const records = new ProcurementRepository(deps.services.db);
  /** The procurement of the path; an id that cannot be one is not found, as an unknown one. @throws 404 `not_found`. */
  const procurementOfPath = async (input: { readonly params: { procurement_id: string } }) => {
    const id = input.params.procurement_id;
    const doc = /^prc_[A-Za-z0-9_-]{22,64}$/.test(id) ? await records.get(id) : null;
    if (!doc) throw notFound('not_found', `No procurement ${id}`);
    return doc;
  };

  return new OperationRouter(deps)
    .on(ops.procure, procurementGate(deps), async (ctx, _request, { req, budgetMicros }) => {
      // With an Idempotency-Key the id (hence the workflow, its quote and order, and the order's payment) and the
      // time come from the key's claim: a retry after a crash continues or answers the first run (issue 36).
      const creation = idempotentCreation(ctx);
      const input: ProcurementWorkflowInput = {
        procurementId: creation ? `prc_${creation.name('procurement')}` : newProcurementId(),
        ...(req.objective?.trim() ? { objective: req.objective.trim() } : {}),
        requirements: req.requirements,
        budgetMicros,
        currency: 'USD',
        autoPurchase: req.auto_purchase,
        ...(req.agent_id ? { agentId: req.agent_id } : {}),
        ...(req.email ? { email: req.email } : {}),
        inputs: req.inputs,
        walletSpendAuthorized: req.auto_purchase,
        createdAt: (creation?.at ?? new Date()).toISOString(),
      };
      await workflows.start(input);
      const result = await workflows.result(input.procurementId, PROCURE_WAIT_MS);
      const self = `/api/v1/procurements/${input.procurementId}`;
      if (!result) {
        ctx.status = 202;
        ctx.set('Location', self);
        ctx.set('Retry-After', '5');
        ctx.body = {
          procurement_id: input.procurementId,
          status: 'running',
          links: { self: `${deps.config.PUBLIC_BASE_URL}${self}` },
        };
        return;
      }
      const view = await procurementView(deps, fromResult(result));
      const { plan, quote, order } = view;
      switch (result.status) {
        case 'completed':
        case 'planned':
          ctx.status = 201;
          ctx.set('Location', self);
          ctx.body = view;
          return;
        case 'no_match': {
          // Plans recorded before issue 24 have no `unavailable`.
          const unavailable = result.plan.unavailable ?? [];
          throw unprocessable(
            unavailable.length > 0 ? 'no_service_available' : 'no_matching_service',
            result.plan.missing.join('; '),
            {
              procurement_id: input.procurementId,
              missing: result.plan.missing,
              ...(unavailable.length > 0 ? { unavailable } : {}),
              plan,
            },
          );
        }
        case 'needs_inputs': {
          const missing = (result.failure?.details?.missing as string[] | undefined) ?? result.plan.missing_inputs;
          throw unprocessable('missing_inputs', result.failure?.message ?? `inputs missing: ${missing.join(', ')}`, {
            param: 'inputs',
            procurement_id: input.procurementId,
            missing,
            plan,
            quote,
          });
        }
        case 'payment_failed': {
          const code: ErrorCode =
            result.failure?.code === 'insufficient_funds' ? 'insufficient_funds' : 'payment_failed';
          throw problem(code, result.failure?.message ?? 'The payment failed', {
            ...(result.failure?.details ?? {}),
            procurement_id: input.procurementId,
            plan,
            quote,
            order,
          });
        }
      }
    })
    .on(ops.get, { load: procurementOfPath }, async (ctx, _input, doc) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await procurementView(deps, fromDoc(doc));
    });
}
