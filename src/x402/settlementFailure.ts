/**
 * The buyer-facing form of a settlement that did not succeed (issue 24 §5). A facilitator's `SettleResponse` carries
 * `errorReason` (an x402 v2 reason code such as `invalid_exact_evm_insufficient_balance`, though `@x402/evm` appends
 * the library's error text to some: `invalid_exact_evm_transaction_failed: <message>`) and `errorMessage` (the raw
 * error: viem's text with the facilitator's sender address, the contract call's arguments and the library version).
 * Buyers get the reason code and a short sentence; the raw text goes to the server log only.
 *
 * Source: x402 v2 specification (`SettleResponse.errorReason`, error codes), ../shared/reference/x402-v2.md;
 * `@x402/evm` exact facilitator reasons; ./facilitator/reasons.ts.
 */
import type { SettleResponse } from '@x402/core/types';
import { FacilitatorReason } from './facilitator/reasons';

/**
 * The reason of a settlement that came back pending (`settlement_pending`): the transfer may still land on chain, so
 * the payment is recorded as pending and reconciled, not failed.
 */
export const SETTLEMENT_PENDING_REASON = 'settlement_pending';

/**
 * Settlement failures decided before any transaction was sent: the facilitator's settle re-verifies, then estimates
 * gas, whose revert it maps onto these (`@x402/evm` exact facilitator). Anything else (`..._transaction_failed` from
 * an unknown error, `unexpected_settle_error`) may hide a broadcast and stays on the ledger as `failed`.
 */
const REFUSED_BEFORE_SENDING: ReadonlySet<string> = new Set([
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_insufficient_balance',
  'asset_not_deployed_contract',
  FacilitatorReason.nonceAlreadyUsed,
  FacilitatorReason.invalidNetwork,
  FacilitatorReason.unsupportedScheme,
]);

/**
 * Whether a failed settlement with reason `code` (from {@link settlementReasonCode}) was refused before any
 * transaction was sent, so nothing can have moved (true), or may hide a broadcast (false).
 */
export function refusedBeforeSending(code: string): boolean {
  return REFUSED_BEFORE_SENDING.has(code);
}

/** A reason code: lower-case snake case, alone or before `:` and the library's text. */
const REASON_CODE = /^[a-z][a-z0-9_]{0,79}(?=$|:)/;

/**
 * The stable reason code of a settlement failure: the code `errorReason` starts with, or `unexpected_settle_error`
 * when it holds none (missing, or free text such as `@x402/core`'s "Settlement failed" or an error's message).
 * @example settlementReasonCode('invalid_exact_evm_transaction_failed: execution reverted …') // 'invalid_exact_evm_transaction_failed'
 * @example settlementReasonCode('Settlement failed') // 'unexpected_settle_error'
 */
export function settlementReasonCode(errorReason: string | null | undefined): string {
  return REASON_CODE.exec(errorReason?.trim() ?? '')?.[0] ?? FacilitatorReason.unexpectedSettleError;
}

/** What each known reason means to the buyer, without any of the facilitator's or the chain's text. */
const REASON_TEXT: Readonly<Record<string, string>> = Object.freeze({
  invalid_exact_evm_insufficient_balance: "the payer's token balance does not cover the price",
  [FacilitatorReason.nonceAlreadyUsed]: 'this authorization has already been used or is being settled',
  invalid_exact_evm_payload_authorization_valid_before: 'the authorization expired before it could be settled',
  invalid_exact_evm_payload_authorization_valid_after: 'the authorization is not valid yet',
  invalid_exact_evm_signature: 'the signature does not match the payment requirements',
  invalid_exact_evm_failed_to_parse_signature: 'the signature could not be read',
  invalid_exact_evm_recipient_mismatch: 'the authorization pays another recipient',
  invalid_exact_evm_payload_authorization_value_mismatch: 'the authorized amount is not the price',
  invalid_exact_evm_authorization_value: 'the authorized amount is not the price',
  invalid_exact_evm_network_mismatch: 'the payment is for another network',
  [FacilitatorReason.invalidNetwork]: 'the payment is for a network this server does not settle on',
  invalid_exact_evm_scheme: 'the payment does not use the exact scheme',
  [FacilitatorReason.unsupportedScheme]: 'the payment uses a scheme this server does not settle',
  invalid_exact_evm_missing_eip712_domain: "the requirements lack the token's EIP-712 domain",
  asset_not_deployed_contract: 'the token contract is not deployed on this network',
  invalid_exact_evm_transaction_simulation_failed: 'the transfer would not go through on chain',
  invalid_exact_evm_transaction_failed: 'the transfer transaction failed',
  invalid_exact_evm_transfer_event_mismatch: 'the transaction did not transfer what was authorized',
  invalid_transaction_state: 'the transaction did not reach a settled state',
  [FacilitatorReason.unexpectedSettleError]: 'the facilitator could not settle the payment',
});

/**
 * The `detail` of a 402 for a failed settlement: the code and a short sentence, never the facilitator's error text.
 * @param code - from {@link settlementReasonCode}.
 * @param recorded - true when the attempt is kept on the ledger (its receipt is in the answer's `payment`), false when
 *   it was refused before anything was sent (nothing charged, nothing kept).
 */
export function settlementFailureDetail(code: string, recorded: boolean): string {
  const what = REASON_TEXT[code] ?? 'the facilitator refused the settlement';
  return `Settlement failed (${code}): ${what}. ${
    recorded
      ? 'The attempt is recorded (see payment); check its status before paying again.'
      : 'Nothing was charged; sign a new authorization to pay again.'
  }`;
}

/**
 * The `PAYMENT-RESPONSE` value of a settlement: a success unchanged; a failure (or pending settlement) with its reason
 * reduced to the code of {@link settlementReasonCode} and without `errorMessage` (x402 v2's SettleResponse is
 * `{success, errorReason?, payer?, transaction, network, amount?}`).
 */
export function buyerFacingSettleResponse(settle: SettleResponse): SettleResponse {
  if (settle.success) return settle;
  const { errorMessage: _raw, ...rest } = settle;
  return { ...rest, errorReason: settlementReasonCode(settle.errorReason) };
}
