/**
 * The embedded x402 settlement stack of `npm start` (issue 3 §9): anvil answering as Base (chain id from
 * X402_NETWORK, default 8453) with its state in the data folder, the USDC look-alike and Multicall3
 * (`deployLocalUsdc`), the project's facilitator, and a funded test buyer (anvil account #1).
 *
 * Idempotent across restarts: anvil reloads its state file, `deployLocalUsdc` keeps code already in place, and the
 * buyer is only topped up when its balance fell below the floor. Only anvil's well-known keys sign against this
 * chain: a signature for chain 8453 and the Base USDC address is valid on the real network too.
 */
import path from 'node:path';
import type { Hex } from 'viem';
import { ANVIL_ADDRESSES, ANVIL_KEYS, deployLocalUsdc, fundBuyer, startAnvil, usdcBalanceOf } from './chain';
import { chainIdOfNetwork, type Eip155Network } from '../../src/x402/chain';
import { startFacilitator } from '../../src/x402/facilitator';

/** Options of {@link startLocalX402}. */
export interface LocalX402Options {
  dataDir: string;
  /** CAIP-2 network; default eip155:8453. */
  network?: string;
  anvilPort?: number;
  facilitatorPort?: number;
  /** Buyer balance below which it is topped up, and the amount minted then (USDC atomic units). */
  buyerFloor?: bigint;
  buyerTopUp?: bigint;
}

/** The running local stack. */
export interface LocalX402 {
  rpcUrl: string;
  facilitatorUrl: string;
  network: string;
  asset: string;
  buyer: { address: string; privateKey: Hex; balance: bigint; minted: Hex | null };
  stop(): Promise<void>;
}

/** Starts anvil, deploys the token, funds the buyer and starts the facilitator (see the module comment). */
export async function startLocalX402(opts: LocalX402Options): Promise<LocalX402> {
  const network = opts.network ?? 'eip155:8453';
  const anvil = await startAnvil({
    port: opts.anvilPort ?? 8545,
    chainId: chainIdOfNetwork(network),
    stateFile: path.join(opts.dataDir, 'anvil-state.json'),
    stateIntervalSeconds: 5,
  });
  try {
    const { asset } = await deployLocalUsdc(anvil.rpcUrl);
    const floor = opts.buyerFloor ?? 100_000_000n;
    let balance = await usdcBalanceOf(anvil.rpcUrl, asset, ANVIL_ADDRESSES.buyer);
    let minted: Hex | null = null;
    if (balance < floor) {
      minted = await fundBuyer(anvil.rpcUrl, asset, ANVIL_ADDRESSES.buyer, opts.buyerTopUp ?? 1_000_000_000n);
      balance = await usdcBalanceOf(anvil.rpcUrl, asset, ANVIL_ADDRESSES.buyer);
    }
    const facilitator = await startFacilitator({
      port: opts.facilitatorPort ?? 4020,
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_KEYS.facilitator,
      network: network as Eip155Network,
    });
    return {
      rpcUrl: anvil.rpcUrl,
      facilitatorUrl: facilitator.url,
      network,
      asset,
      buyer: { address: ANVIL_ADDRESSES.buyer, privateKey: ANVIL_KEYS.buyer, balance, minted },
      async stop() {
        await facilitator.stop().catch(() => undefined);
        await anvil.stop();
      },
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
