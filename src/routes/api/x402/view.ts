/** The public form of an x402 ledger entry (issue 3 §7). */
import type { X402PaymentDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';

/** A ledger entry as the API shows it (issue 3 §7). */
export function paymentView(p: X402PaymentDoc, baseUrl: string) {
  return {
    payment_id: p._id,
    status: p.status,
    resource: `${baseUrl}${p.resource}`,
    resource_kind: p.resource_kind,
    resource_ref: p.resource_ref,
    order_id: p.order_id,
    amount: microsToUsd(p.amount_micros),
    amount_micros: p.amount_micros,
    currency: 'USDC',
    asset: p.asset,
    network: p.network,
    pay_to: p.pay_to,
    payer: p.payer,
    transaction: p.transaction,
    error_reason: p.error_reason,
    error_message: p.error_message,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    settled_at: p.settled_at ? p.settled_at.toISOString() : null,
  };
}
