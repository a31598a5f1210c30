/**
 * Procurement activities (issue 4 §3): plan, quote, order and pay for one procurement, each retry-safe (ids derive
 * from the procurement id), creating quotes and orders through the application layer (src/services) as the API does.
 *
 * Business refusals are non-retryable `ApplicationFailure`s whose `type` is the API error code (e.g.
 * `insufficient_funds`), so the workflow can report them.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EventDoc } from '../src/db';
import { planProcurement } from '../src/domain/procurement';
import type { ProcurementPlan } from '../src/domain/procurement';
import type { EventRepository } from '../src/repos/events';
import type { ProcurementRepository } from '../src/repos/procurements';
import { createOrder, type OrderCreationPorts } from '../src/services/orders';
import { createQuote, type QuotePorts } from '../src/services/quotes';
import { missingTextgenSettings } from '../src/textgen';
import type { ConfirmPaymentRequest, OrderState } from '../src/domain/order';
import { procurementWorkflowId } from '../workflows/procurementShared';
import { procurementSuffix, type ProcurementResult, type ProcurementWorkflowInput } from '../src/domain/procurement';
import { asCodedFailure } from './failures';
import { whileHeartbeating } from './heartbeat';

/** Event type emitted when a procurement bought something (issue 5 event catalogue). */
export const PROCUREMENT_COMPLETED = 'procurement.completed';

/** What the procurement activities need. */
export interface ProcurementPorts {
  /** Quote and order creation ports (src/services/quotes.ts, src/services/orders.ts): made as the API makes them. */
  commerce: QuotePorts & OrderCreationPorts;
  /**
   * Runs the order workflow's `confirmPayment` Update (src/temporal/orders.ts `OrderWorkflows.confirmPayment`).
   * @throws ProblemError with the refusal's code (insufficient_funds, invalid_state_transition, …).
   */
  confirmPayment(orderId: string, req: ConfirmPaymentRequest): Promise<OrderState>;
  procurements: ProcurementRepository;
  events: EventRepository;
  /** Webhook fan-out of an appended event, when webhooks are wired; absent: the event is only stored. */
  webhooks?: { fanOut(event: EventDoc): Promise<void> };
}

/** Builds the procurement activities over their ports. */
export function createProcurementActivities(ports: ProcurementPorts) {
  return {
    /**
     * Records the procurement as running and returns the plan (src/domain/procurement.ts; pure and deterministic).
     * The plan leaves out services this deployment cannot sell (a model-written one without TEXTGEN_*), judged by
     * the configuration order creation reads, so a plan never picks what `createOrder` would refuse (issue 24 §5).
     */
    async planProcurement(input: ProcurementWorkflowInput): Promise<ProcurementPlan> {
      await ports.procurements.ensure({
        _id: input.procurementId,
        workflow_id: procurementWorkflowId(input.procurementId),
        agent_id: input.agentId ?? null,
        objective: input.objective ?? null,
        requirements: input.requirements,
        budget_micros: input.budgetMicros,
        currency: input.currency,
        auto_purchase: input.autoPurchase,
        status: 'running',
        plan: null,
        service_id: null,
        quote_id: null,
        order_id: null,
        failure: null,
        created_at: new Date(input.createdAt),
        completed_at: null,
      });
      try {
        return planProcurement({
          objective: input.objective,
          requirements: input.requirements,
          budgetMicros: input.budgetMicros,
          autoPurchase: input.autoPurchase,
          inputs: input.inputs,
          ...(input.email ? { email: input.email } : {}),
          deployment: { missingTextgen: missingTextgenSettings(ports.commerce.config) },
        });
      } catch (err) {
        // The API validated the requirements; a RangeError here cannot heal by retrying.
        throw ApplicationFailure.nonRetryable((err as Error).message, 'invalid_request');
      }
    },

    /** Binding agent-price quote for the chosen service, id `quo_<procurement suffix>`. Returns the quote id. */
    async quoteProcurement(req: { procurementId: string; serviceId: string }): Promise<string> {
      try {
        const quote = await createQuote(
          ports.commerce,
          { service_id: req.serviceId, is_agent: true },
          `quo_${procurementSuffix(req.procurementId)}`,
        );
        return quote._id;
      } catch (err) {
        throw asCodedFailure(err);
      }
    },

    /** Creates the order from the quote (id `ord_<procurement suffix>`, so a retry makes no second order). Returns its id. */
    async orderProcurement(req: {
      procurementId: string;
      quoteId: string;
      agentId?: string;
      email?: string;
      inputs: ProcurementWorkflowInput['inputs'];
    }): Promise<string> {
      try {
        const { doc } = await createOrder(ports.commerce, {
          quote_id: req.quoteId,
          ...(req.agentId ? { agent_id: req.agentId } : {}),
          ...(req.email ? { email: req.email } : {}),
          inputs: req.inputs,
          is_agent: true,
          order_id: `ord_${procurementSuffix(req.procurementId)}`,
        });
        return doc._id;
      } catch (err) {
        throw asCodedFailure(err);
      }
    },

    /**
     * Pays the order from the agent's wallet through the order workflow's `confirmPayment` Update (the same path as
     * `POST /orders/{id}/confirm_payment`). Refuses unless the API verified the wallet owner's key.
     * @throws ApplicationFailure (non-retryable) `forbidden`, `insufficient_funds`, `payment_failed`, `invalid_state_transition`.
     */
    async payProcurementOrder(req: { orderId: string; walletSpendAuthorized: boolean }): Promise<{ status: string }> {
      if (!req.walletSpendAuthorized) {
        throw ApplicationFailure.nonRetryable('The wallet owner did not authorize this spend', 'forbidden');
      }
      try {
        // Waits on the order workflow's Update: heartbeat so a dead worker is noticed in seconds.
        const state = await whileHeartbeating(() => ports.confirmPayment(req.orderId, { rail: 'agent_wallet' }));
        return { status: state.status };
      } catch (err) {
        throw asCodedFailure(err);
      }
    },

    /** Stores the outcome; a completed purchase appends the `procurement.completed` event (and fans it out when wired). */
    async finishProcurement(result: ProcurementResult & { agentId?: string }): Promise<void> {
      await ports.procurements.complete(result.procurementId, {
        status: result.status,
        plan: result.plan as unknown as Record<string, unknown>,
        service_id: result.serviceId,
        quote_id: result.quoteId,
        order_id: result.orderId,
        failure: result.failure ? { code: result.failure.code, message: result.failure.message } : null,
        completed_at: new Date(result.completedAt),
      });
      if (result.status !== 'completed') return;
      // The procurement is its own event stream (sequence 1), so it never collides with its order's numbering.
      const event = await ports.events.append(
        result.procurementId,
        1,
        PROCUREMENT_COMPLETED,
        {
          procurement_id: result.procurementId,
          agent_id: result.agentId ?? null,
          service_id: result.serviceId,
          quote_id: result.quoteId,
          order_id: result.orderId,
        },
        result.completedAt,
      );
      await ports.webhooks?.fanOut(event);
    },
  };
}

/** The procurement activity interface the workflow proxies (type only). */
export type ProcurementActivities = ReturnType<typeof createProcurementActivities>;
