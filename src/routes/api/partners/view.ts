/** Public forms of a partner's commissions and their totals (issue 4 §4, issue 10 §3). */
import type { CommissionDoc } from '../../../db';
import { microsToUsd, sumMicros } from '../../../domain/money';

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
    debt_offset_micros: c.debt_offset_micros ?? 0,
    reversal_debited_micros: c.reversal_debited_micros ?? (c.status === 'reversed' ? c.commission_micros : 0),
    owed_micros: c.owed_micros,
    credit_tx_id: c.credit_tx_id,
    reversal_tx_id: c.reversal_tx_id,
    created_at: c.created_at.toISOString(),
    credited_at: c.credited_at ? c.credited_at.toISOString() : null,
    cancelled_at: c.cancelled_at ? c.cancelled_at.toISOString() : null,
    reversed_at: c.reversed_at ? c.reversed_at.toISOString() : null,
  };
}

/**
 * Totals of a partner's commissions in integer micro-units (issue 10 §3): `pending` (order not final), `credited`
 * (ever credited), `cancelled` (pending when the payment was refunded: never paid), `reversed` (credited, then taken
 * back or owed), `owed` (still owed back: `owedNow` from the partner's debt plus reversals recorded before the debt
 * existed), `net` = credited − reversed.
 */
export function commissionTotals(list: CommissionDoc[], owedNow: number) {
  const sum = (pred: (c: CommissionDoc) => boolean) => sumMicros(...list.filter(pred).map((c) => c.commission_micros));
  const wasCredited = (c: CommissionDoc) =>
    c.status === 'credited' || c.status === 'reversed' || c.status === 'reversal_owed';
  const pending = sum((c) => c.status === 'pending');
  const credited = sum(wasCredited);
  const cancelled = sum((c) => c.status === 'cancelled');
  const reversed = sum((c) => c.status === 'reversed' || c.status === 'reversal_owed');
  const legacyOwed = sumMicros(
    ...list
      .filter((c) => c.status === 'reversal_owed' && c.reversal_debited_micros === undefined)
      .map((c) => c.owed_micros),
  );
  const owed = owedNow + legacyOwed;
  const net = credited - reversed;
  return {
    pending: microsToUsd(pending),
    pending_micros: pending,
    credited: microsToUsd(credited),
    credited_micros: credited,
    cancelled: microsToUsd(cancelled),
    cancelled_micros: cancelled,
    reversed: microsToUsd(reversed),
    reversed_micros: reversed,
    owed: microsToUsd(owed),
    owed_micros: owed,
    net: microsToUsd(net),
    net_micros: net,
  };
}
