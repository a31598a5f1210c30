/** The public form of a monthly order's subscription (issue 6 §2), shown by its routes and the order's view. */
import type { z } from 'zod';
import type { SubscriptionDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';
import type { SubscriptionView } from './schema';

/** A subscription with its charge log (`past_charges`, oldest first). */
export function subscriptionView(s: SubscriptionDoc, baseUrl: string): z.infer<typeof SubscriptionView> {
  const self = `${baseUrl}/api/v1/orders/${s.order_id}/subscription`;
  return {
    status: s.status,
    rail: s.rail,
    amount: microsToUsd(s.amount_micros),
    amount_micros: s.amount_micros,
    current_period: s.current_period,
    next_charge_at: s.next_charge_at,
    cancel_at_period_end: s.cancel_at_period_end,
    cancel_reason: s.cancel_reason,
    ended_at: s.ended_at,
    dunning: s.dunning,
    open_invoice: s.open_invoice
      ? {
          ...s.open_invoice,
          amount: microsToUsd(s.open_invoice.amount_micros),
          pay_url: `${self}/invoices/${s.open_invoice.invoice_id}/pay`,
        }
      : null,
    past_charges: s.charges.map((c) => ({ ...c, amount: microsToUsd(c.amount_micros) })),
    links: { cancel: `${self}/cancel` },
  };
}
