import { type FacilitatorEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import {
  type Abi,
  type Address,
  type Hex,
  type TypedDataDefinition,
  createPublicClient,
  createWalletClient,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createNonceManager, jsonRpc } from 'viem/nonce';

import { SerialQueue, defineEvmChain } from '../chain';

/** Options of {@link createFacilitatorSigner}. */
export interface FacilitatorSignerOptions {
  /** JSON-RPC endpoint of the settlement chain. */
  rpcUrl: string;
  /** Key of the account that pays gas for settlements. */
  privateKey: Hex;
  /** Chain id the RPC serves (8453 for Base and the local anvil chain). */
  chainId: number;
  /** Bound of every receipt wait; past it a settlement reports `settlement_pending`. Default 60000. */
  confirmationTimeoutMs?: number;
  /** How often receipts are polled. Default 200 ms (anvil mines instantly; Base makes a block every 2 s). */
  pollingIntervalMs?: number;
  /** Added on top of `eth_estimateGas`, in percent. Default 25. */
  gasMarginPercent?: number;
}

/**
 * Builds the facilitator's chain access for `@x402/evm`'s `ExactEvmScheme`: reads and signature checks through
 * a viem public client, transactions through a viem wallet client whose account has a viem nonce manager
 * (`createNonceManager`, one per signer).
 *
 * viem's nonce manager hands out a nonce before gas estimation; when the send then fails, viem (2.57) resets
 * the manager, which re-reads the pending count from the node. A reset racing other sends in flight hands out a
 * nonce twice, so with reverting settlements (replays, unfunded buyers) mixed into parallel valid ones, valid
 * settlements failed with `invalid_exact_evm_transaction_failed` or hung until `settlement_pending`. Two guards:
 * - gas is estimated before the wallet client is called, so a reverting settlement fails without taking a nonce,
 *   and its revert reason still reaches `@x402/evm`'s error parser (FiatTokenV2 messages map onto reason codes);
 * - broadcasts (signing and `eth_sendRawTransaction`, not the receipt wait) go through a {@link SerialQueue},
 *   so a reset after a failed broadcast never races another broadcast.
 */
export function createFacilitatorSigner(opts: FacilitatorSignerOptions): {
  signer: FacilitatorEvmSigner;
  address: Address;
} {
  const { rpcUrl, chainId } = opts;
  const pollingInterval = opts.pollingIntervalMs ?? 200;
  const margin = BigInt(100 + (opts.gasMarginPercent ?? 25));
  const chain = defineEvmChain({ chainId, rpcUrl, name: 'x402 settlement chain' });
  // Per signer, not viem's process-wide `nonceManager`: that one is keyed by address and chain id only, so after
  // a local chain restarts without state (same key, same chain id 8453) it would hand out stale, too high nonces.
  const nonceManager = createNonceManager({ source: jsonRpc() });
  const account = privateKeyToAccount(opts.privateKey, { nonceManager });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval });
  const walletClient = createWalletClient({ account, chain, transport, pollingInterval });

  const queue = new SerialQueue();
  const broadcast = (send: () => Promise<Hex>): Promise<Hex> =>
    queue.run(async () => {
      try {
        return await send();
      } catch (error) {
        nonceManager.reset({ address: account.address, chainId });
        throw error;
      }
    });
  const withMargin = (gas: bigint): bigint => (gas * margin) / 100n;

  // viem's actions are generic over the ABI; the x402 signer interface is not, hence the casts to Abi.
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) =>
        publicClient.readContract({
          address: args.address,
          abi: args.abi as Abi,
          functionName: args.functionName,
          args: args.args as unknown[] | undefined,
        }),
      verifyTypedData: (args) =>
        publicClient.verifyTypedData({
          ...(args as unknown as TypedDataDefinition),
          address: args.address,
          signature: args.signature,
        }),
      writeContract: async (args) => {
        const request = {
          address: args.address,
          abi: args.abi as Abi,
          functionName: args.functionName,
          args: args.args as unknown[],
          ...(args.dataSuffix ? { dataSuffix: args.dataSuffix } : {}),
        };
        const gas = args.gas ?? withMargin(await publicClient.estimateContractGas({ ...request, account }));
        return broadcast(() => walletClient.writeContract({ ...request, gas, account, chain }));
      },
      sendTransaction: async ({ to, data }) => {
        const gas = withMargin(await publicClient.estimateGas({ account, to, data }));
        return broadcast(() => walletClient.sendTransaction({ to, data, gas, account, chain }));
      },
      waitForTransactionReceipt: async ({ hash, timeout }) => {
        // anvil mines a few ms after eth_sendRawTransaction returns (5 ms once it holds 1,400 blocks, 1 ms when new):
        // viem looks twice at once, then sleeps a whole polling interval, so a purchase took 230 ms instead of 25.
        // A few quick looks first, backing off up to the polling interval, then viem's own wait (anvil answering no
        // receipt right after the send: foundry-rs/foundry#10944).
        const started = Date.now();
        for (let delay = 2; delay < pollingInterval; delay *= 2) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
          if (receipt) return receipt;
        }
        const left = timeout === undefined ? undefined : Math.max(timeout - (Date.now() - started), 1);
        return publicClient.waitForTransactionReceipt({ hash, ...(left === undefined ? {} : { timeout: left }) });
      },
      getCode: ({ address }) => publicClient.getCode({ address }),
    },
    { confirmationTimeoutMs: opts.confirmationTimeoutMs ?? 60_000 },
  );
  return { signer, address: account.address };
}
