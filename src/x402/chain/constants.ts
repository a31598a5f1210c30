import type { Address } from 'viem';

/** USDC on Base mainnet. The local chain carries a look-alike token at this very address. */
export const BASE_USDC_ADDRESS: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** Canonical Multicall3 address; the x402 exact facilitator calls it to explain failed simulations. */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** Base mainnet chain id, the default of the local chain so production requirements work unchanged. */
export const BASE_CHAIN_ID = 8453;

/** CAIP-2 id of Base mainnet. */
export const BASE_NETWORK = 'eip155:8453' as const;

/** USDC's EIP-712 domain name and version, as sent in `PaymentRequirements.extra`. */
export const USDC_EIP712_DOMAIN = { name: 'USD Coin', version: '2' } as const;

/** USDC atomic units per US dollar (6 decimals). */
export const USDC_MICROS_PER_USD = 1_000_000n;

/** A CAIP-2 network id of the `eip155` family, e.g. `eip155:8453`. */
export type Eip155Network = `eip155:${number}`;

/**
 * Builds the CAIP-2 network id of an EVM chain.
 *
 * @example toEip155Network(8453) // 'eip155:8453'
 */
export function toEip155Network(chainId: number): Eip155Network {
  return `eip155:${chainId}`;
}

/**
 * Parses the chain id out of a CAIP-2 `eip155:<id>` network id.
 *
 * @throws Error when the id is not of the `eip155` family.
 */
export function chainIdOfNetwork(network: string): number {
  const match = /^eip155:(\d+)$/.exec(network);
  const id = match?.[1];
  if (id === undefined || !Number.isSafeInteger(Number(id))) {
    throw new Error(`not an eip155 CAIP-2 network id: ${network}`);
  }
  return Number(id);
}
