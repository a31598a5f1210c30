/**
 * Verification of an `exact` EIP-3009 payment without the facilitator: the checks of `@x402/evm`'s facilitator
 * verify that need no chain (its `verifyEIP3009`), for signatures an externally owned account made.
 *
 * Why: the facilitator's `/verify` is a round trip plus an `eth_call` simulation whose answer its `/settle` establishes
 * again moments later (settle re-runs these checks, then estimates gas for the very call, which reverts for an
 * unfunded payer or a used nonce). Our goods are pure and the ledger claim is written before settlement, so the
 * facilitator's verify bought nothing but latency (8–10 ms of a 30 ms purchase on the local chain). `@x402/core`'s
 * `upfront` flow rests on the same premise ("payment validity is established by settle"); this keeps the default
 * `authorization` flow and its claim-before-settle, and still refuses forged or mismatched payloads before any write.
 * Source: ../shared/reference/x402-v2.md ("The exact scheme on EVM"), x402 `specs/schemes/exact/scheme_exact_evm.md`.
 */
import type { DeepReadonly, PaymentPayload, PaymentRequirements, VerifyResponse } from '@x402/core/types';
import {
  type Address,
  type Hex,
  bytesToHex,
  getAddress,
  hashTypedData,
  hexToBytes,
  isAddress,
  isHex,
  recoverAddress,
} from 'viem';
import { publicKeyToAddress } from 'viem/accounts';

/**
 * EIP-712 struct of EIP-3009 `transferWithAuthorization` (the EIP's `TRANSFER_WITH_AUTHORIZATION_TYPEHASH`). The same
 * as `@x402/evm`'s `authorizationTypes`, which only the package root exports (1.3 MB more heap in the API).
 */
export const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** Seconds of validity the facilitator wants left on an authorization (its verify and settle refuse less). */
const VALID_BEFORE_SLACK_SECONDS = 6;

const uint = (v: unknown): bigint | null => {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  try {
    const n = BigInt(v);
    return n >= 0n ? n : null;
  } catch {
    return null;
  }
};

/**
 * Verifies `payload` against `requirements` offline. Returns `{isValid: true, payer}` when it is an `exact`
 * EIP-3009 payload on an `eip155:<chainId>` network whose 65-byte signature recovers to `authorization.from` over
 * the token's EIP-712 domain (`extra.name`, `extra.version`, chain id, `asset`), paying `payTo` exactly `amount`,
 * valid now (`validAfter <= now`, `validBefore >= now + 6 s`). Returns null when it cannot say yes offline: smart
 * wallet signatures (ERC-1271, ERC-6492), Permit2, and every failed check, so that the facilitator's verify answers
 * those with its own reason code. Balance, nonce state and the token's code are left to settlement, which checks
 * them on chain before any transfer. Never throws.
 * @param nowSeconds wall clock, Unix seconds.
 */
export async function verifyExactEip3009Offline(
  payload: DeepReadonly<PaymentPayload>,
  requirements: DeepReadonly<PaymentRequirements>,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<VerifyResponse | null> {
  const inner = payload.payload as { signature?: unknown; authorization?: Record<string, unknown> };
  const auth = inner.authorization;
  const signature = inner.signature;
  const { name, version } = (requirements.extra ?? {}) as { name?: unknown; version?: unknown };
  const chain = /^eip155:(\d+)$/.exec(requirements.network);
  if (
    payload.x402Version !== 2 ||
    payload.accepted.scheme !== 'exact' ||
    requirements.scheme !== 'exact' ||
    payload.accepted.network !== requirements.network ||
    !chain ||
    typeof name !== 'string' ||
    typeof version !== 'string' ||
    !auth ||
    // An EOA's r, s, v: longer signatures are ERC-1271 or ERC-6492 and need the chain.
    typeof signature !== 'string' ||
    !isHex(signature) ||
    signature.length !== 132
  ) {
    return null;
  }
  const { from, to, nonce } = auth;
  const value = uint(auth.value);
  const validAfter = uint(auth.validAfter);
  const validBefore = uint(auth.validBefore);
  if (
    typeof from !== 'string' ||
    typeof to !== 'string' ||
    !isAddress(from) ||
    !isAddress(to) ||
    !isAddress(requirements.asset) ||
    !isAddress(requirements.payTo) ||
    typeof nonce !== 'string' ||
    !isHex(nonce) ||
    nonce.length !== 66 ||
    value === null ||
    validAfter === null ||
    validBefore === null
  ) {
    return null;
  }
  if (
    getAddress(to) !== getAddress(requirements.payTo) ||
    value !== uint(requirements.amount) ||
    validAfter > BigInt(nowSeconds) ||
    validBefore < BigInt(nowSeconds + VALID_BEFORE_SLACK_SECONDS)
  ) {
    return null;
  }
  try {
    const digest = hashTypedData({
      domain: { name, version, chainId: Number(chain[1]), verifyingContract: getAddress(requirements.asset) },
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: 'TransferWithAuthorization',
      message: { from: from as Address, to: to as Address, value, validAfter, validBefore, nonce: nonce as Hex },
    });
    const signer = await recoverSigner(digest, signature as Hex);
    return signer === getAddress(from) ? { isValid: true, payer: from } : null;
  } catch {
    return null;
  }
}

/** libsecp256k1's public-key recovery, through the N-API binding of the `secp256k1` package. */
export interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, message32: Uint8Array, compressed: boolean): Uint8Array;
}

/**
 * The binding, or null where no prebuilt one loads (then viem's `@noble/curves` recovers). Measured: viem's whole
 * typed-data check 1.4 ms of CPU, the largest part of the API's work per purchase in a profile at 8 in flight;
 * libsecp256k1's recovery 0.04 ms.
 */
const native: NativeSecp256k1 | null = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional native binding: absent is not an error
    return require('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return null;
  }
})();

/** True when signatures are recovered by the native binding (false: by viem). */
export const nativeRecovery = native !== null;

/**
 * The address whose key made the 65-byte `signature` (r, s, v with v 27/28 or 0/1) over the 32-byte `digest`, with
 * `binding` (default: the native one when it loaded) or else viem.
 * @throws when the signature is malformed or recovers no key.
 */
export async function recoverSigner(
  digest: Hex,
  signature: Hex,
  binding: NativeSecp256k1 | null = native,
): Promise<Address> {
  if (!binding) return recoverAddress({ hash: digest, signature });
  const bytes = hexToBytes(signature);
  const v = bytes[64]!;
  const key = binding.ecdsaRecover(bytes.subarray(0, 64), v >= 27 ? v - 27 : v, hexToBytes(digest), false);
  return publicKeyToAddress(bytesToHex(key));
}
