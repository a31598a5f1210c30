/**
 * Procurement workflow contract shared by the API, the activities and the workflow: input, result, statuses and the
 * workflow id. Workflow-safe (types and pure helpers only).
 *
 * Source: seed §2.8 (procurement request), §4 (procure: 201 / 402 / 422), §8 (defaults); issue 4 §3.
 */
import type { ProcurementPlan } from '../src/domain/procurement';
import type { OrderInputs } from '../src/domain/order';

/**
 * Outcome of a procurement: `completed` (ordered and paid), `planned` (auto_purchase false: plan and quote only),
 * `no_match` (nothing fits), `needs_inputs` (the chosen service needs inputs the request did not give),
 * `payment_failed` (the order was created but the wallet payment was refused; the order stays awaiting_payment).
 */
export type ProcurementStatus = 'completed' | 'planned' | 'no_match' | 'needs_inputs' | 'payment_failed';

/** Values of the `ProcurementStatus` search attribute: the outcomes plus the running steps. */
export type ProcurementProgress = 'planning' | 'quoting' | 'ordering' | 'paying' | ProcurementStatus;

/** Arguments of `procurementWorkflow`; amounts in integer micro-units. */
export interface ProcurementWorkflowInput {
  procurementId: string;
  objective?: string;
  requirements: string[];
  budgetMicros: number;
  currency: string;
  autoPurchase: boolean;
  agentId?: string;
  email?: string;
  inputs: OrderInputs;
  /**
   * True when the API checked the agent key of `agentId`'s wallet before starting the workflow. The key itself never
   * enters the workflow (its history is readable by operators); this flag is what lets the payment activity spend.
   */
  walletSpendAuthorized: boolean;
  createdAt: string;
}

/** What the workflow returns (and records); the API renders quote and order from their ids. */
export interface ProcurementResult {
  procurementId: string;
  status: ProcurementStatus;
  plan: ProcurementPlan;
  serviceId: string | null;
  quoteId: string | null;
  orderId: string | null;
  /** Why the purchase stopped (payment_failed, needs_inputs): the API error code, message and details. */
  failure?: { code: string; message: string; details?: Record<string, unknown> };
  completedAt: string;
}

/** Workflow id of a procurement (issue 4 §3: one workflow per run, id `procurement-<id>`). */
export const procurementWorkflowId = (procurementId: string): string => `procurement-${procurementId}`;

/** The random part shared by a procurement's own ids: `prc_X` → quote `quo_X`, order `ord_X` (retry-safe creation). */
export function procurementSuffix(procurementId: string): string {
  return procurementId.replace(/^prc_/, '');
}
