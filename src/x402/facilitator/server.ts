import type { AddressInfo } from 'node:net';

import type { Hex } from 'viem';

import { BASE_NETWORK, type Eip155Network, chainIdOfNetwork } from '../chain';
import { createFacilitatorApp } from './app';

/** Options of {@link startFacilitator}. */
export interface StartFacilitatorOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** JSON-RPC endpoint of the settlement chain. */
  rpcUrl: string;
  /** Key of the account that submits settlements. */
  privateKey: Hex;
  /** CAIP-2 network served. Default `eip155:8453`. */
  network?: Eip155Network;
  /** Bound of each receipt wait before a settlement reports `settlement_pending`. Default 60000. */
  confirmationTimeoutMs?: number;
}

/** A listening facilitator. */
export interface FacilitatorHandle {
  /** Base URL to give `HTTPFacilitatorClient`, e.g. `http://127.0.0.1:4020`. */
  url: string;
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
}

async function rpcChainId(rpcUrl: string): Promise<number> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(5000),
  });
  const body = (await response.json()) as { result?: string };
  if (body.result === undefined) throw new Error(`no eth_chainId answer from ${rpcUrl}`);
  return Number(body.result);
}

/**
 * Starts the facilitator HTTP server ({@link createFacilitatorApp}) after checking that the RPC serves the
 * chain of `network`.
 *
 * @example
 * const facilitator = await startFacilitator({ port: 0, rpcUrl, privateKey: ANVIL_KEYS.facilitator });
 * const client = new HTTPFacilitatorClient({ url: facilitator.url });
 * // ...
 * await facilitator.stop();
 */
export async function startFacilitator(opts: StartFacilitatorOptions): Promise<FacilitatorHandle> {
  const network = opts.network ?? BASE_NETWORK;
  const expected = chainIdOfNetwork(network);
  const actual = await rpcChainId(opts.rpcUrl);
  if (actual !== expected) throw new Error(`${opts.rpcUrl} serves chain ${actual}, not ${network}`);

  const app = createFacilitatorApp({
    rpcUrl: opts.rpcUrl,
    privateKey: opts.privateKey,
    networks: [network],
    ...(opts.confirmationTimeoutMs === undefined ? {} : { confirmationTimeoutMs: opts.confirmationTimeoutMs }),
  });
  const host = opts.host ?? '127.0.0.1';
  const server = app.listen(opts.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
