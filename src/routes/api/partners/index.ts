import { PARTNER_COMMISSION_PERCENT } from '../../../domain/catalogue';
import { CommissionRepository } from '../../../repos/commissions';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { ownerOrOperatorGate } from '../wallets/policy';
import { partnerOperations as ops } from './schema';
import { commissionTotals, commissionView } from './view';

/**
 * `GET /api/v1/partners/{partner_id}/commissions` (issue 4 §4, issue 10 §3): the partner's commissions, newest
 * first: pending / credited / cancelled / reversed (reversal_owed) / not_eligible, with totals.
 * The partner is the wallet `partner_id`: it authenticates with that wallet's agent key (claimed with
 * `GET /api/v1/wallets/{partner_id}`, which shows the key once), or an operator reads with the operator key.
 * Errors: 400 malformed id, 401 no key, 403 wrong key (the gate: src/routes/api/wallets/policy.ts).
 */
export function partnerRoutes(deps: AppDeps): OperationRouter {
  const commissions = new CommissionRepository(deps.services.db, deps.services.wallets);

  const partner = ownerOrOperatorGate(
    deps,
    (input: { readonly params: { partner_id: string } }) => input.params.partner_id,
    (id) => `Send the agent key of wallet ${id} (or the operator key) as a Bearer token`,
  );

  return new OperationRouter(deps).on(ops.commissions, partner, async (ctx, _input, { agentId: partnerId }) => {
    const list = await commissions.list(partnerId);
    const totals = commissionTotals(list, await commissions.owed(partnerId));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      partner_id: partnerId,
      percent: PARTNER_COMMISSION_PERCENT,
      totals,
      commissions: list.map(commissionView),
    };
  });
}
