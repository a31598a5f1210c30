/**
 * The answers of the x402 seller, written on a Koa context: refusals as problem details (RFC 9457) keeping their
 * x402 headers, 402 challenges with a fresh `PAYMENT-REQUIRED`, 202s for settlements not confirmed yet, stored
 * responses replayed, and the buyer-facing receipt of a ledger entry. Amounts: `amount`/`price_usd` in USD,
 * `amount_micros`/`amount` strings in integer micro-units (USDC atomic units). Source: x402 v2 HTTP transport;
 * issue 3 §2, §7; issue 27 §2.
 */
import type { Context } from 'koa';
import type { HTTPResponseInstructions } from '@x402/core/server';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { Network, PaymentRequired, SettleResponse } from '@x402/core/types';
import type { X402PaymentDoc } from '../db';
import { microsToUsd } from '../domain/money';
import { ProblemError, problem } from '../errors';
import { encodePaymentRequired, encodePaymentResponse } from './headers';
import type { PaidQuote, PaymentReceipt, StoredResponse, X402Settings } from './types';

/** A ledger entry as a buyer-facing receipt (`amount` in USD, `amount_micros` in integer micro-units). */
export function receipt(
  p: Pick<
    X402PaymentDoc,
    '_id' | 'status' | 'transaction' | 'network' | 'payer' | 'amount_micros' | 'asset' | 'pay_to'
  >,
): PaymentReceipt {
  return {
    payment_id: p._id,
    status: p.status,
    transaction: p.transaction,
    network: p.network,
    payer: p.payer,
    amount: microsToUsd(p.amount_micros),
    amount_micros: p.amount_micros,
    asset: p.asset,
    pay_to: p.pay_to,
  };
}

/** The goods kept on a ledger entry (a JSON object; empty for an order payment). */
export function goodsOf(p: X402PaymentDoc): Record<string, unknown> {
  return (p.delivery as Record<string, unknown> | null) ?? {};
}

/** The quote a settled ledger entry was sold at (for answering a resend once the live quote no longer applies). */
export function quoteOfHeld(p: X402PaymentDoc): PaidQuote {
  return {
    priceMicros: p.amount_micros,
    description: p.resource,
    kind: p.resource_kind,
    ref: p.resource_ref,
    ...(p.order_id ? { orderId: p.order_id } : {}),
    bazaar: { info: { input: {}, output: {} }, schema: {} },
  };
}

/**
 * The 200 answer for a settled payment from its ledger entry (goods kept on it, `PAYMENT-RESPONSE` rebuilt from its
 * transaction), for resends and delivery URLs.
 */
export function settledResponseOf(p: X402PaymentDoc): StoredResponse {
  const settle: SettleResponse = {
    success: true,
    transaction: p.transaction ?? '',
    network: p.network as Network,
    payer: p.payer,
  };
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'PAYMENT-RESPONSE': encodePaymentResponse(settle),
    },
    body: { ...goodsOf(p), payment: receipt(p) },
  };
}

/** Body of a 202 for a settlement that is not confirmed yet. */
export function pendingBody(payment: PaymentReceipt, reason: string, deliveryUrl: string | null) {
  return {
    status: 'settlement_pending',
    reason,
    detail: payment.transaction
      ? `Transaction ${payment.transaction} was sent but is not confirmed yet; nothing more is charged. The goods are kept${deliveryUrl ? ' at delivery_url' : ''} until it settles; retry after Retry-After.`
      : 'The facilitator did not answer; the payment is being reconciled on chain. The goods are kept until it settles; nothing more is charged.',
    payment,
    delivery_url: deliveryUrl,
  };
}

/** The price as a refusal states it: USD, integer micro-units (as a string), and where to pay. */
function priceFacts(quote: PaidQuote, s: X402Settings) {
  return {
    price_usd: microsToUsd(quote.priceMicros),
    amount: String(quote.priceMicros),
    currency: 'USDC',
    network: s.network,
    asset: s.asset,
    pay_to: s.payTo,
    scheme: 'exact',
  };
}

function paymentDetail(reason: string | undefined, quote: PaidQuote): string {
  const price = `${microsToUsd(quote.priceMicros)} USDC (${quote.priceMicros} atomic units)`;
  if (!reason || reason === 'Payment required') {
    return `Pay ${price}: sign the PAYMENT-REQUIRED requirements and resend this request with PAYMENT-SIGNATURE`;
  }
  return `Payment refused: ${reason}. Price: ${price}`;
}

/** Writes a stored response (status, headers, body) on `ctx`. */
export function writeStored(ctx: Context, response: StoredResponse): void {
  for (const [k, v] of Object.entries(response.headers)) ctx.set(k, v);
  ctx.status = response.status;
  ctx.body = response.body;
}

/** Writes the response stored under a payment id, marked `Payment-Identifier-Replayed: true`. */
export function writeReplay(ctx: Context, response: StoredResponse): void {
  writeStored(ctx, response);
  ctx.set('Payment-Identifier-Replayed', 'true');
}

/**
 * Renders a 402 (or other) answer of `processHTTPRequest` as problem details, keeping its x402 headers; its
 * `reason` is the `error` of the `PAYMENT-REQUIRED` it carries.
 */
export function writePaymentError(
  ctx: Context,
  response: HTTPResponseInstructions,
  price: { quote: PaidQuote; settings: X402Settings },
): void {
  let required: PaymentRequired | null = null;
  const encoded = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'payment-required')?.[1];
  if (encoded) {
    try {
      required = decodePaymentRequiredHeader(encoded);
    } catch {
      required = null;
    }
  }
  for (const [k, v] of Object.entries(response.headers)) if (k.toLowerCase() !== 'content-type') ctx.set(k, v);
  const reason = required?.error;
  const refusal = new ProblemError(response.status, 'payment_required', paymentDetail(reason, price.quote), {
    reason: reason ?? null,
    ...priceFacts(price.quote, price.settings),
  });
  ctx.status = response.status;
  ctx.type = 'application/problem+json';
  ctx.body = refusal.toProblem(ctx.path);
}

/** A 402 challenge: the fresh `PAYMENT-REQUIRED`, its reason code, and what the buyer is told. */
export interface Challenge {
  required: PaymentRequired;
  reason: string;
  quote: PaidQuote;
  settings: X402Settings;
  detail: string;
  /** The receipt of a payment kept on the ledger as failed. */
  payment?: PaymentReceipt;
}

/** Writes a 402 with `PAYMENT-REQUIRED` (whose `error` is the reason) and problem details naming the price. */
export function writeChallenge(ctx: Context, c: Challenge): void {
  ctx.set('PAYMENT-REQUIRED', encodePaymentRequired(c.required));
  const refusal = problem('payment_required', c.detail, {
    reason: c.reason,
    ...priceFacts(c.quote, c.settings),
    ...(c.payment ? { payment: c.payment } : {}),
  });
  ctx.status = 402;
  ctx.type = 'application/problem+json';
  ctx.body = refusal.toProblem(ctx.path);
}

/** A settlement recorded as pending: the claim, its transaction hash (if any), delivery token and reason code. */
export interface PendingAnswer {
  claim: X402PaymentDoc;
  transaction: string | null;
  token: string;
  reason: string;
  publicBaseUrl: string;
}

/**
 * 202 `settlement_pending`: the payment is recorded and reconciled on chain; the goods wait at the delivery URL.
 * Not a 402: the buyer has paid, and a fresh PAYMENT-REQUIRED would invite a client to pay a second time.
 */
export function writePending(ctx: Context, p: PendingAnswer): void {
  const deliveryUrl = `${p.publicBaseUrl}/x402/deliveries/${p.token}`;
  ctx.status = 202;
  ctx.set('Retry-After', '5');
  ctx.set('Location', deliveryUrl);
  ctx.body = pendingBody(receipt({ ...p.claim, status: 'pending', transaction: p.transaction }), p.reason, deliveryUrl);
}
