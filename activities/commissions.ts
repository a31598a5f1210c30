/**
 * Partner commission activities (issue 4 §4): credit 20% of a payment received to the partner's wallet, and reverse
 * it when the payment is refunded. Reusable by any workflow that receives money for a quote with a `partner_id`: the
 * order workflow calls them once per deal; a subscription workflow can call them once per paid period (`period`).
 */
import type { CommissionDoc } from '../src/db';
import type { CommissionRepository } from '../src/repos/commissions';

/** What the commission activities need. */
export interface CommissionPorts {
  commissions: CommissionRepository;
}

/** Summary of a commission as the activities return it (amounts in integer micro-units). */
export interface CommissionRecord {
  id: string;
  partner_id: string;
  status: CommissionDoc['status'];
  commission_micros: number;
  owed_micros: number;
}

const summary = (d: CommissionDoc): CommissionRecord => ({
  id: d._id,
  partner_id: d.partner_id,
  status: d.status,
  commission_micros: d.commission_micros,
  owed_micros: d.owed_micros,
});

/** Builds the commission activities over their ports. */
export function createCommissionActivities(ports: CommissionPorts) {
  return {
    /**
     * Credits the partner 20% of `amountMicros`, the payment actually received for `orderId` (and `period`, for a
     * renewal). Idempotent by the ledger id `commission:<orderId>[:<period>]`.
     */
    async creditCommission(req: { orderId: string; period?: string; partnerId: string; amountMicros: number; agentId?: string }): Promise<CommissionRecord> {
      return summary(await ports.commissions.credit(req));
    },

    /**
     * Reverses the commission of `orderId` (and `period`) after a refund; a short partner balance is recorded as owed
     * instead of failing. Returns null when there was no commission.
     */
    async reverseCommission(req: { orderId: string; period?: string }): Promise<CommissionRecord | null> {
      const doc = await ports.commissions.reverse(req.orderId, req.period);
      return doc ? summary(doc) : null;
    },
  };
}

/** The commission activity interface the workflows proxy (type only). */
export type CommissionActivities = ReturnType<typeof createCommissionActivities>;
