import { type Hex, hexToBytes, bytesToHex } from 'viem';

import { localUsdcArtifact } from './artifacts/localUsdc';

/** ABI of the local USDC look-alike (typed, from the generated artifact). */
export const localUsdcAbi = localUsdcArtifact.abi;

/** Creation bytecode of the local USDC look-alike; constructor argument: the minter address. */
export const localUsdcBytecode: Hex = localUsdcArtifact.bytecode;

/**
 * Zeroes the immutable slots of LocalUsdc runtime code, so two copies built with different constructor
 * arguments or at different addresses compare equal.
 */
export function maskLocalUsdcImmutables(runtimeCode: Hex): Hex {
  const bytes = hexToBytes(runtimeCode);
  for (const ranges of Object.values(localUsdcArtifact.immutableReferences)) {
    for (const { start, length } of ranges) {
      if (start + length <= bytes.length) bytes.fill(0, start, start + length);
    }
  }
  return bytesToHex(bytes);
}

/** Whether `runtimeCode` is the current artifact's LocalUsdc (immutables aside). */
export function isLocalUsdcRuntime(runtimeCode: Hex | undefined): boolean {
  if (!runtimeCode || runtimeCode === '0x') return false;
  const expected = localUsdcArtifact.deployedBytecode;
  if (runtimeCode.length !== expected.length) return false;
  return maskLocalUsdcImmutables(runtimeCode).toLowerCase() === maskLocalUsdcImmutables(expected).toLowerCase();
}
