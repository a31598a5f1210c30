/** The forms of an x402 ledger entry (issue 3 §7; issue 36 §2): the operator's, and everyone else's. */
import type { X402PaymentDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';

/** The path template an order payment's resource is shown as to anyone but the operator. */
export const ORDER_RESOURCE_TEMPLATE = '/x402/orders/{order_id}';

/** A ledger entry as the operator sees it (issue 3 §7): every field, the order paid and the internal error text. */
export function paymentView(p: X402PaymentDoc, baseUrl: string) {
  return {
    ...publicPaymentView(p, baseUrl),
    resource: `${baseUrl}${p.resource}`,
    resource_ref: p.resource_ref,
    order_id: p.order_id,
    error_message: p.error_message,
  };
}

/**
 * A ledger entry as anyone may see it (issue 36 §2): what a payer needs (status, amount, the transaction, the reason
 * code of a failure) and nothing that unlocks an order. The order id reads the order (decision 0011), and transaction
 * hashes are public on chain, so an order payment shows its resource as the path template, `resource_ref` null, no
 * `order_id`; `error_message` (internal text: the chain's, the workflow's) is left out, `error_reason` is a code.
 */
export function publicPaymentView(p: X402PaymentDoc, baseUrl: string) {
  const order = p.order_id !== null || p.resource_kind === 'order';
  return {
    payment_id: p._id,
    status: p.status,
    resource: `${baseUrl}${order ? ORDER_RESOURCE_TEMPLATE : p.resource}`,
    resource_kind: p.resource_kind,
    resource_ref: order ? null : p.resource_ref,
    amount: microsToUsd(p.amount_micros),
    amount_micros: p.amount_micros,
    currency: 'USDC' as const,
    asset: p.asset,
    network: p.network,
    pay_to: p.pay_to,
    payer: p.payer,
    transaction: p.transaction,
    error_reason: p.error_reason,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    settled_at: p.settled_at ? p.settled_at.toISOString() : null,
  };
}
