/**
 * Reading a procurement request and who may buy with it (seed §2.8; issue 4 §3; issue 27 §1). Anyone may plan
 * (`auto_purchase: false`); buying pays from the agent wallet `agent_id`, so it needs that wallet's agent key as
 * `Authorization: Bearer ak_...` (401 without, 403 wrong). The key is checked here and never passed to the workflow.
 */
import type { WalletDoc } from '../../../db';
import { usdToMicros } from '../../../domain/money';
import { parseRequirements } from '../../../domain/procurement';
import { badRequest } from '../../../errors';
import type { AppDeps } from '../../context';
import type { Actor, Refusal } from '../../gate';
import { walletOwner } from '../wallets/policy';
import type { ProcurementRequest } from './schema';

/** A procurement request read whole: the budget in micro-units and, when buying, the paying agent and its wallet. */
export interface ProcurementOrder {
  req: ProcurementRequest;
  budgetMicros: number;
  buyer: { agentId: string; wallet: WalletDoc | null } | null;
}

/**
 * The gate of `POST /api/v1/procure` (`auth: ['none', 'agent_key']`): the body (400, naming the requirement or the
 * budget it cannot read; `agent_id` required when buying), then, when buying, the agent key of its wallet.
 */
export function procurementGate(deps: Pick<AppDeps, 'services'>) {
  return {
    async load(input: { readonly body: ProcurementRequest }): Promise<ProcurementOrder> {
      const req = input.body;
      const reqs = parseRequirements(req.requirements);
      if (!reqs.ok) throw badRequest(`requirements.${reqs.index}: ${reqs.message}`, `requirements.${reqs.index}`);
      let budgetMicros: number;
      try {
        budgetMicros = usdToMicros(req.budget);
      } catch (err) {
        throw badRequest(`budget: ${(err as Error).message}`, 'budget');
      }
      if (!req.auto_purchase) return { req, budgetMicros, buyer: null };
      if (!req.agent_id)
        throw badRequest('agent_id is required when auto_purchase is true: the agent wallet pays', 'agent_id');
      return {
        req,
        budgetMicros,
        buyer: { agentId: req.agent_id, wallet: await deps.services.wallets.get(req.agent_id) },
      };
    },
    authorize: (actor: Actor, { buyer }: ProcurementOrder): 'none' | 'agent_key' | Refusal =>
      buyer
        ? walletOwner(
            actor,
            buyer.wallet,
            buyer.agentId,
            `Buying from wallet ${buyer.agentId} needs its agent key as a Bearer token`,
          )
        : 'none',
  };
}
