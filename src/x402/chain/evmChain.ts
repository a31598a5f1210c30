import { type Chain, defineChain } from 'viem';

/**
 * A viem chain for `chainId` served at `rpcUrl`, without network-specific formatters or fee logic.
 * Used for the local anvil chain, which answers with Base's chain id but is plain Ethereum underneath.
 *
 * @example
 * const chain = defineEvmChain({ chainId: 8453, rpcUrl: 'http://127.0.0.1:8545' });
 */
export function defineEvmChain({ chainId, rpcUrl, name }: { chainId: number; rpcUrl: string; name?: string }): Chain {
  return defineChain({
    id: chainId,
    name: name ?? `EVM chain ${chainId} at ${rpcUrl}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
