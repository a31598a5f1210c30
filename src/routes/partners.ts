import Router from '@koa/router';
import type { CommissionDoc } from '../db';
import { microsToUsd, sumMicros } from '../domain/money';
import { PARTNER_COMMISSION_PERCENT } from '../domain/catalogue';
import { badRequest, forbidden, unauthorized } from '../errors';
import { bearerToken, isOperator } from '../http/auth';
import { CommissionRepository } from '../repos/commissions';
import { WalletRepository } from '../repos/wallets';
import type { AppDeps } from './context';

const PARTNER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Public form of one commission (USD numbers with micro-unit twins). */
export function commissionView(c: CommissionDoc) {
  return {
    id: c._id,
    order_id: c.order_id,
    period: c.period,
    status: c.status,
    reason: c.reason,
    payment: microsToUsd(c.payment_micros),
    payment_micros: c.payment_micros,
    percent: c.percent,
    commission: microsToUsd(c.commission_micros),
    commission_micros: c.commission_micros,
    owed_micros: c.owed_micros,
    credit_tx_id: c.credit_tx_id,
    reversal_tx_id: c.reversal_tx_id,
    created_at: c.created_at.toISOString(),
    reversed_at: c.reversed_at ? c.reversed_at.toISOString() : null,
  };
}

/**
 * `GET /api/v1/partners/{partner_id}/commissions` (issue 4 §4): the partner's commissions, newest first, with totals.
 * The partner is the wallet `partner_id`: it authenticates with that wallet's agent key (claimed with
 * `GET /api/v1/wallets/{partner_id}`, which shows the key once), or an operator reads with the operator key.
 * Errors: 400 malformed id, 401 no key, 403 wrong key.
 */
export function partnerRoutes(deps: AppDeps): Router {
  const router = new Router();
  const commissions = new CommissionRepository(deps.services.db, deps.services.wallets);

  router.get('/api/v1/partners/:partner_id/commissions', async (ctx) => {
    const partnerId = ctx.params.partner_id ?? '';
    if (!PARTNER_ID.test(partnerId)) throw badRequest('partner_id: letters, digits and . _ : - only', 'partner_id');
    if (!isOperator(ctx, deps.config.OPERATOR_KEY)) {
      const token = bearerToken(ctx);
      if (!token) throw unauthorized(`Send the agent key of wallet ${partnerId} (or the operator key) as a Bearer token`);
      const wallet = await deps.services.wallets.get(partnerId);
      if (!wallet || !WalletRepository.keyMatches(wallet, token)) throw forbidden(`The key does not open wallet ${partnerId}`);
    }
    const list = await commissions.list(partnerId);
    const credited = sumMicros(...list.filter((c) => c.status !== 'not_eligible').map((c) => c.commission_micros));
    const reversed = sumMicros(...list.filter((c) => c.status === 'reversed').map((c) => c.commission_micros));
    const owed = sumMicros(...list.map((c) => c.owed_micros));
    const net = credited - reversed - owed;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      partner_id: partnerId,
      percent: PARTNER_COMMISSION_PERCENT,
      totals: {
        credited: microsToUsd(credited),
        credited_micros: credited,
        reversed: microsToUsd(reversed),
        reversed_micros: reversed,
        owed: microsToUsd(owed),
        owed_micros: owed,
        net: microsToUsd(net),
        net_micros: net,
      },
      commissions: list.map(commissionView),
    };
  });

  return router;
}
