/**
 * Read-only chain access for reconciling x402 settlements (issue 3 §2): receipts by transaction hash and the
 * EIP-3009 `AuthorizationUsed` event by (authorizer, nonce), through a viem public client. Used by the worker's
 * `reconcileX402Payment` activity; never signs anything.
 */
import { createPublicClient, http, parseAbi, parseEventLogs, type Hex, type PublicClient } from 'viem';
import { defineEvmChain } from './chain';

/** The two EIP-3009 / ERC-20 events reconciliation reads (USDC's FiatTokenV2 and the local token emit both). */
export const SETTLEMENT_EVENTS_ABI = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

/** A mined transaction's outcome and the transfers it made. Values in token atomic units. */
export interface SettlementReceipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  transfers: { token: string; from: string; to: string; value: bigint }[];
}

/** What reconciliation asks the chain. */
export interface SettlementChain {
  /** The receipt of `hash`, or null while it is not mined (or unknown to the node). */
  receipt(hash: string): Promise<SettlementReceipt | null>;
  /** The transaction that used authorization (authorizer, nonce) on `token`, searched over recent blocks; null if none. */
  findAuthorizationTx(token: string, authorizer: string, nonce: string): Promise<string | null>;
  /** Timestamp of the latest block, unix seconds (the clock `validBefore` is checked against). */
  latestTimestamp(): Promise<number>;
}

/** How far back `findAuthorizationTx` searches, in blocks (about 28 hours on Base). */
export const AUTHORIZATION_SEARCH_BLOCKS = 50_000n;

/** A {@link SettlementChain} over JSON-RPC at `rpcUrl` for chain `chainId`. */
export function createSettlementChain(rpcUrl: string, chainId: number): SettlementChain {
  const client: PublicClient = createPublicClient({
    chain: defineEvmChain({ chainId, rpcUrl, name: 'x402 settlement chain' }),
    transport: http(rpcUrl),
  });
  return {
    async receipt(hash) {
      let r;
      try {
        r = await client.getTransactionReceipt({ hash: hash as Hex });
      } catch (err) {
        if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
        throw err;
      }
      const transfers = parseEventLogs({ abi: SETTLEMENT_EVENTS_ABI, logs: r.logs, eventName: 'Transfer' }).map(
        (l) => ({
          token: l.address.toLowerCase(),
          from: l.args.from.toLowerCase(),
          to: l.args.to.toLowerCase(),
          value: l.args.value,
        }),
      );
      return { status: r.status, blockNumber: r.blockNumber, transfers };
    },
    async findAuthorizationTx(token, authorizer, nonce) {
      if (!/^0x[0-9a-fA-F]{64}$/.test(nonce)) return null;
      const latest = await client.getBlockNumber();
      const fromBlock = latest > AUTHORIZATION_SEARCH_BLOCKS ? latest - AUTHORIZATION_SEARCH_BLOCKS : 0n;
      const logs = await client.getLogs({
        address: token as Hex,
        event: SETTLEMENT_EVENTS_ABI[1],
        args: { authorizer: authorizer as Hex, nonce: nonce as Hex },
        fromBlock,
        toBlock: latest,
      });
      return logs[0]?.transactionHash ?? null;
    },
    async latestTimestamp() {
      const block = await client.getBlock({ blockTag: 'latest' });
      return Number(block.timestamp);
    },
  };
}
