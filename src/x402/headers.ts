/**
 * Encoders of the x402 v2 HTTP headers `PAYMENT-REQUIRED` and `PAYMENT-RESPONSE` (x402 v2 HTTP transport: base64 of
 * the UTF-8 JSON). `@x402/core`'s own encoders (`safeBase64Encode`, as x402-foundation/x402#866 made it UTF-8 safe)
 * build the base64 input as an array of one-character strings through an iterator, which measured at about 150 KB of
 * garbage per paid purchase in the API (a 1.8 KB header), the largest single share of its allocation; these give the
 * same bytes through `Buffer`.
 */
import { x402HTTPResourceServer } from '@x402/core/server';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { buyerFacingSettleResponse } from './settlementFailure';

/** Base64 (RFC 4648 §4, padded) of the UTF-8 JSON of `value`: the encoding of every x402 v2 header. */
export function encodeX402Header(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** `PAYMENT-REQUIRED` of a 402: the same value as `encodePaymentRequiredHeader` of `@x402/core/http`. */
export function encodePaymentRequired(required: PaymentRequired): string {
  return encodeX402Header(required);
}

/**
 * `PAYMENT-RESPONSE` of a settlement: the same value as `encodePaymentResponseHeader` of `@x402/core/http`, which
 * leaves out `extensionResponses` (the facilitator's extension data, not the buyer's); a failed or pending one also
 * loses `errorMessage` and keeps only the code of its `errorReason` (the facilitator's raw error text stays out of
 * the answer: ./settlementFailure.ts).
 */
export function encodePaymentResponse(settle: SettleResponse): string {
  const buyerFacing: Record<string, unknown> = { ...buyerFacingSettleResponse(settle) };
  delete buyerFacing.extensionResponses;
  return encodeX402Header(buyerFacing);
}

/** `@x402/core`'s HTTP resource server, its settlement headers encoded by {@link encodePaymentResponse}. */
export class X402HTTPServer extends x402HTTPResourceServer {
  override createSettlementHeaders(settleResponse: SettleResponse): Record<string, string> {
    return { 'PAYMENT-RESPONSE': encodePaymentResponse(settleResponse) };
  }
}
