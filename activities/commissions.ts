/**
 * Partner commission activities (issue 4 §4, issue 10 §3). Orders: `recordCommission` at payment (pending, nothing
 * spendable), `releaseCommission` when the order is accepted, `reverseCommission` when it is refunded (a pending
 * commission is cancelled, a credited one taken back). `creditCommission` credits at once: subscription renewals
 * (final when paid) and orders whose workflows started before issue 10. Amounts in integer micro-units.
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
     * renewal), at once; self-referrals are `not_eligible`. Idempotent by the ledger id `commission:<orderId>[:<period>]`.
     */
    async creditCommission(req: {
      orderId: string;
      period?: string;
      partnerId: string;
      amountMicros: number;
      agentId?: string;
    }): Promise<CommissionRecord> {
      return summary(await ports.commissions.credit(req));
    },

    /**
     * Records 20% of `amountMicros` as `pending` (or `not_eligible`) at payment; no wallet movement. Idempotent by the
     * commission id `commission:<orderId>[:<period>]`. Source: issue 10 §3.
     */
    async recordCommission(req: {
      orderId: string;
      period?: string;
      partnerId: string;
      amountMicros: number;
      agentId?: string;
    }): Promise<CommissionRecord> {
      return summary(await ports.commissions.record(req));
    },

    /**
     * Credits the pending commission of `orderId` (and `period`) once the order is final and kept, paying off what the
     * partner owes first. Idempotent by the ledger id `commission:<orderId>[:<period>]`; null when there is none.
     * Source: issue 10 §3.
     */
    async releaseCommission(req: { orderId: string; period?: string }): Promise<CommissionRecord | null> {
      const doc = await ports.commissions.release(req.orderId, req.period);
      return doc ? summary(doc) : null;
    },

    /**
     * After a refund: cancels a pending commission of `orderId` (and `period`), or takes a credited one back (what the
     * balance holds; the rest is owed). Returns null when there was no commission.
     */
    async reverseCommission(req: { orderId: string; period?: string }): Promise<CommissionRecord | null> {
      const doc = await ports.commissions.reverse(req.orderId, req.period);
      return doc ? summary(doc) : null;
    },
  };
}

/** The commission activity interface the workflows proxy (type only). */
export type CommissionActivities = ReturnType<typeof createCommissionActivities>;
