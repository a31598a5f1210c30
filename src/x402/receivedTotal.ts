/**
 * What the settlement chain says the seller received (issue 24 §3 c): the sum of a token's `Transfer` events to the
 * pay-to address, through a viem public client. Read-only; the books reconciliation compares it with the settled
 * x402 ledger total.
 */
import { createPublicClient, http, type Hex } from 'viem';
import type { ChainTotalsPort } from '../services/reconciliation';
import { chainIdOfNetwork, defineEvmChain } from './chain';
import { SETTLEMENT_EVENTS_ABI } from './settlementChain';

/**
 * A {@link ChainTotalsPort} over JSON-RPC at `rpcUrl` for the CAIP-2 `network`. `receivedTotal` reads the token's
 * `Transfer(*, payTo)` logs from block 0 to the latest (the local chain, or a node that serves the full range: on a
 * public network give one that does, or expect an `x402_chain_unreadable` discrepancy).
 */
export function createReceivedTotals(rpcUrl: string, network: string): ChainTotalsPort {
  const client = createPublicClient({
    chain: defineEvmChain({ chainId: chainIdOfNetwork(network), rpcUrl, name: 'x402 settlement chain' }),
    transport: http(rpcUrl, { retryCount: 1, timeout: 10_000 }),
  });
  return {
    network,
    async receivedTotal(asset, payTo) {
      const logs = await client.getLogs({
        address: asset as Hex,
        event: SETTLEMENT_EVENTS_ABI[0],
        args: { to: payTo as Hex },
        fromBlock: 0n,
        toBlock: 'latest',
      });
      return logs.reduce((sum, l) => sum + (l.args.value ?? 0n), 0n);
    },
  };
}
