/**
 * Reason codes this facilitator adds to those of `@x402/evm` (which start with `invalid_exact_evm_`).
 * Names follow the x402 v2 specification's error codes.
 */
export const FacilitatorReason = {
  /** The requirements name a network this facilitator does not settle on. */
  invalidNetwork: 'invalid_network',
  /** The requirements name a scheme this facilitator does not implement. */
  unsupportedScheme: 'unsupported_scheme',
  /** The same authorization is being settled by another request right now. */
  nonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  /** `@x402/core` threw during verification. */
  unexpectedVerifyError: 'unexpected_verify_error',
  /** `@x402/core` threw during settlement. */
  unexpectedSettleError: 'unexpected_settle_error',
} as const;
export type FacilitatorReason = (typeof FacilitatorReason)[keyof typeof FacilitatorReason];
