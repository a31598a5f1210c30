export * from './constants';
export { defineEvmChain } from './evmChain';
export { isLocalUsdcRuntime, localUsdcAbi, localUsdcBytecode, maskLocalUsdcImmutables } from './localUsdc';
export { multicall3Artifact } from './artifacts/multicall3';
export { SerialQueue } from './serialQueue';
