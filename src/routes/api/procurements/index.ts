import { randomBytes } from 'node:crypto';
import { getService, serviceView } from '../../../domain/catalogue';
import { usdToMicros } from '../../../domain/money';
import { parseRequirements } from '../../../domain/procurement';
import type { ProcurementDoc } from '../../../db';
import { badRequest, forbidden, notFound, problem, unauthorized, unprocessable, type ErrorCode } from '../../../errors';
import { bearerToken } from '../../../http/auth';
import { WalletRepository } from '../../../repos/wallets';
import { ProcurementRepository } from '../../../repos/procurements';
import { signedQuoteView } from '../quotes/view';
import { ProcurementWorkflows } from '../../../temporal/procurements';
import type { ProcurementResult, ProcurementWorkflowInput } from '../../../../workflows/procurementShared';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { orderView } from '../../orders';
import { procurementOperations as ops } from './schema';

/** How long `POST /api/v1/procure` waits for the workflow before answering 202 with a link to poll. */
export const PROCURE_WAIT_MS = 60_000;

/** New procurement id: `prc_` + 128 random bits; its quote and order reuse the random part. */
export const newProcurementId = (): string => `prc_${randomBytes(16).toString('base64url')}`;

/** The parts of a procurement the API shows, from the workflow's result or the stored record. */
interface Outcome {
  procurementId: string;
  status: ProcurementDoc['status'];
  plan: Record<string, unknown> | null;
  serviceId: string | null;
  quoteId: string | null;
  orderId: string | null;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
}

const fromResult = (r: ProcurementResult): Outcome => ({
  procurementId: r.procurementId,
  status: r.status,
  plan: r.plan as unknown as Record<string, unknown>,
  serviceId: r.serviceId,
  quoteId: r.quoteId,
  orderId: r.orderId,
  failure: r.failure ?? null,
});

const fromDoc = (d: ProcurementDoc): Outcome => ({
  procurementId: d._id,
  status: d.status,
  plan: d.plan,
  serviceId: d.service_id,
  quoteId: d.quote_id,
  orderId: d.order_id,
  failure: d.failure,
});

/** Public form of a procurement with its service, quote and order rendered as their own endpoints show them. */
async function procurementView(deps: AppDeps, o: Outcome) {
  const base = deps.config.PUBLIC_BASE_URL;
  const service = o.serviceId ? getService(o.serviceId) : undefined;
  const quote = o.quoteId ? await deps.services.quotes.get(o.quoteId) : null;
  const order = o.orderId ? await deps.services.orders.get(o.orderId) : null;
  return {
    procurement_id: o.procurementId,
    status: o.status,
    plan: o.plan,
    service: service ? serviceView(service, base) : null,
    quote: quote ? await signedQuoteView(deps, quote) : null,
    order: order ? orderView(order, deps) : null,
    failure: o.failure ? { code: o.failure.code, message: o.failure.message } : null,
    links: {
      self: `${base}/api/v1/procurements/${o.procurementId}`,
      ...(order ? { order: `${base}/api/v1/orders/${order._id}` } : {}),
    },
  };
}

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
 * (401 without, 403 wrong). The key is checked here and never passed to the workflow.
 *
 * `GET /api/v1/procurements/{id}` shows a stored procurement.
 */
export function procurementRoutes(deps: AppDeps): OperationRouter {
  const workflows = new ProcurementWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const records = new ProcurementRepository(deps.services.db);

  return new OperationRouter(deps)
    .on(ops.procure, async (ctx, request) => {
      const req = request.body;
      const reqs = parseRequirements(req.requirements);
      if (!reqs.ok) throw badRequest(`requirements.${reqs.index}: ${reqs.message}`, `requirements.${reqs.index}`);
      let budgetMicros: number;
      try {
        budgetMicros = usdToMicros(req.budget);
      } catch (err) {
        throw badRequest(`budget: ${(err as Error).message}`, 'budget');
      }
      if (req.auto_purchase) {
        if (!req.agent_id)
          throw badRequest('agent_id is required when auto_purchase is true: the agent wallet pays', 'agent_id');
        const token = bearerToken(ctx);
        if (!token) throw unauthorized(`Buying from wallet ${req.agent_id} needs its agent key as a Bearer token`);
        const wallet = await deps.services.wallets.get(req.agent_id);
        if (!wallet || !WalletRepository.keyMatches(wallet, token))
          throw forbidden(`The key does not open wallet ${req.agent_id}`);
      }
      const input: ProcurementWorkflowInput = {
        procurementId: newProcurementId(),
        ...(req.objective?.trim() ? { objective: req.objective.trim() } : {}),
        requirements: req.requirements,
        budgetMicros,
        currency: 'USD',
        autoPurchase: req.auto_purchase,
        ...(req.agent_id ? { agentId: req.agent_id } : {}),
        ...(req.email ? { email: req.email } : {}),
        inputs: req.inputs,
        walletSpendAuthorized: req.auto_purchase,
        createdAt: new Date().toISOString(),
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
    .on(ops.get, async (ctx) => {
      const id = ctx.params.procurement_id ?? '';
      const doc = /^prc_[A-Za-z0-9_-]{22,64}$/.test(id) ? await records.get(id) : null;
      if (!doc) throw notFound('not_found', `No procurement ${id}`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await procurementView(deps, fromDoc(doc));
    });
}
