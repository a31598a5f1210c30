/**
 * Local settlement chain for development and tests: an anvil node answering as Base (chain id 8453) with a
 * USDC look-alike at the real Base USDC address and Multicall3 at its canonical address.
 *
 * Only anvil's well-known test keys (below) may ever sign against this chain: an EIP-3009 signature for
 * chain 8453 and the real USDC address is valid on the real network too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import {
  type Address,
  type Hex,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeFunctionResult,
  domainSeparator,
  encodeDeployData,
  encodeFunctionData,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import {
  BASE_CHAIN_ID,
  BASE_USDC_ADDRESS,
  MULTICALL3_ADDRESS,
  SerialQueue,
  USDC_EIP712_DOMAIN,
  defineEvmChain,
  isLocalUsdcRuntime,
  localUsdcAbi,
  localUsdcBytecode,
  multicall3Artifact,
} from '../../src/x402/chain';

/** Anvil's well-known test keys (mnemonic "test test ... junk"). Never fund these on a real network. */
export const ANVIL_KEYS = {
  /** Account #0: the local facilitator, which pays gas for settlements. */
  facilitator: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  /** Account #1: the buyer, who signs EIP-3009 authorizations. */
  buyer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  /** Account #2: the seller's pay-to wallet. */
  payTo: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  /** Account #9: deploys and mints the local USDC; kept apart so minting never races the facilitator's nonces. */
  minter: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
} as const satisfies Record<string, Hex>;

/** Addresses of {@link ANVIL_KEYS}. */
export const ANVIL_ADDRESSES = {
  facilitator: privateKeyToAccount(ANVIL_KEYS.facilitator).address,
  buyer: privateKeyToAccount(ANVIL_KEYS.buyer).address,
  payTo: privateKeyToAccount(ANVIL_KEYS.payTo).address,
  minter: privateKeyToAccount(ANVIL_KEYS.minter).address,
} as const satisfies Record<keyof typeof ANVIL_KEYS, Address>;

/** Options of {@link startAnvil}. */
export interface StartAnvilOptions {
  /** TCP port on 127.0.0.1; 0 or absent lets anvil pick a free one. */
  port?: number;
  /** Chain id the node answers with. Default 8453 (Base). */
  chainId?: number;
  /** Load state from this file if it exists and dump it there on exit (anvil `--state`), so deployments survive restarts. */
  stateFile?: string;
  /** With `stateFile`: also dump every this many seconds (anvil `--state-interval`), so a crash loses little. */
  stateIntervalSeconds?: number;
  /** Milliseconds to wait for the node to answer `eth_chainId`. Default 15000. */
  startTimeoutMs?: number;
}

/** A running anvil node. */
export interface AnvilHandle {
  /** JSON-RPC endpoint, e.g. `http://127.0.0.1:8545`. */
  rpcUrl: string;
  /** Stops the node (SIGTERM, letting it dump `stateFile`), resolving once the process has exited. */
  stop(): Promise<void>;
}

/** Raised when anvil cannot be found or does not come up; `output` holds its last lines. */
export class AnvilStartError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(output ? `${message}\n--- anvil output ---\n${output}` : message);
    this.name = 'AnvilStartError';
  }
}

/** Path of the anvil binary shipped in the platform package of npm `@foundry-rs/anvil`. */
export function anvilBinaryPath(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const candidates: string[] = [];
  if (arch) {
    try {
      candidates.push(require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${binary}`));
    } catch {
      // platform package not installed: try the wrapper's dist/ fallback below
    }
  }
  try {
    candidates.push(path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), '..', 'dist', binary));
  } catch {
    // wrapper not installed either
  }
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    const platform = `${process.platform}/${process.arch}`;
    throw new AnvilStartError(`anvil binary not found for ${platform}; is @foundry-rs/anvil installed?`, '');
  }
  return found;
}

const runningChildren = new Set<ChildProcess>();
let exitHooksInstalled = false;

/** Kills running anvil children when this process exits or is told to terminate. */
function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', () => {
    for (const child of runningChildren) child.kill('SIGTERM');
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      for (const child of runningChildren) child.kill('SIGTERM');
      process.off(signal, onSignal);
      // Nobody else handles the signal: keep Node's default of terminating.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result === undefined ? undefined : Number(body.result);
  } catch {
    return undefined;
  }
}

/**
 * Starts anvil from npm `@foundry-rs/anvil` on 127.0.0.1 and waits until it answers `eth_chainId`.
 * The child is killed when this process exits.
 *
 * @example
 * const anvil = await startAnvil({ port: 8545, stateFile: '.data/anvil-state.json' });
 * const { asset } = await deployLocalUsdc(anvil.rpcUrl);
 * // ...
 * await anvil.stop();
 */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilHandle> {
  const chainId = opts.chainId ?? BASE_CHAIN_ID;
  const args = ['--host', '127.0.0.1', '--port', String(opts.port ?? 0), '--chain-id', String(chainId)];
  if (opts.stateFile !== undefined) {
    args.push('--state', opts.stateFile);
    if (opts.stateIntervalSeconds !== undefined) args.push('--state-interval', String(opts.stateIntervalSeconds));
  }

  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  runningChildren.add(child);
  installExitHooks();

  // anvil logs every RPC method: keep draining the pipes (a full pipe blocks it), remember the tail for errors.
  const tail: string[] = [];
  let listening: string | undefined;
  const onData = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      listening ??= /Listening on ([\d.]+:\d+)/.exec(line)?.[1];
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  let exitStatus: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      runningChildren.delete(child);
      exitStatus = signal ?? String(code);
      resolve();
    });
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 15_000);
  const failed = await Promise.race([
    spawnError,
    (async (): Promise<Error | string> => {
      while (Date.now() < deadline) {
        if (exitStatus !== undefined) return new Error(`anvil exited during start-up (${exitStatus})`);
        if (listening) {
          const rpcUrl = `http://${listening}`;
          const answered = await rpcChainId(rpcUrl);
          if (answered === chainId) return rpcUrl;
          if (answered !== undefined) return new Error(`anvil answered chain id ${answered}, expected ${chainId}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return new Error(`anvil did not answer eth_chainId within ${opts.startTimeoutMs ?? 15_000} ms`);
    })(),
  ]);
  if (typeof failed === 'string') return { rpcUrl: failed, stop };
  await stop();
  throw new AnvilStartError(failed.message, tail.join('\n'));
}

function localClients(rpcUrl: string, chainId: number) {
  const chain = defineEvmChain({ chainId, rpcUrl, name: 'local anvil' });
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const testClient = createTestClient({ mode: 'anvil', chain, transport });
  const minter = createWalletClient({
    account: privateKeyToAccount(ANVIL_KEYS.minter),
    chain,
    transport,
    pollingInterval: 100,
  });
  return { publicClient, testClient, minter };
}

/**
 * Chain id of the node at `rpcUrl`, after making sure it is anvil: these helpers set code and mint with
 * well-known keys, which must never be pointed at a real network.
 */
async function anvilChainIdOf(rpcUrl: string): Promise<number> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_clientVersion', params: [] }),
    signal: AbortSignal.timeout(5000),
  });
  const { result } = (await response.json()) as { result?: unknown };
  if (typeof result !== 'string' || !result.toLowerCase().startsWith('anvil')) {
    throw new Error(
      `${rpcUrl} is not an anvil node (client version ${String(result)}); refusing to use test keys on it`,
    );
  }
  const id = await rpcChainId(rpcUrl);
  if (id === undefined) throw new Error(`no eth_chainId answer from ${rpcUrl}`);
  return id;
}

/** The one Multicall3 function the x402 exact facilitator calls. */
const tryAggregateAbi = [
  {
    type: 'function',
    name: 'tryAggregate',
    stateMutability: 'payable',
    inputs: [
      { name: 'requireSuccess', type: 'bool' },
      {
        name: 'calls',
        type: 'tuple[]',
        components: [
          { name: 'target', type: 'address' },
          { name: 'callData', type: 'bytes' },
        ],
      },
    ],
    outputs: [
      {
        name: 'returnData',
        type: 'tuple[]',
        components: [
          { name: 'success', type: 'bool' },
          { name: 'returnData', type: 'bytes' },
        ],
      },
    ],
  },
] as const;

/** Runs creation code in an `eth_call` and returns the runtime code it would deploy. */
async function runtimeCodeOf(
  publicClient: ReturnType<typeof localClients>['publicClient'],
  creationCode: Hex,
  from: Address,
): Promise<Hex> {
  const { data } = await publicClient.call({ account: from, data: creationCode });
  if (!data || data === '0x') throw new Error('constructor returned no runtime code');
  return data;
}

/**
 * Makes the local chain look like Base for x402: puts the LocalUsdc runtime code (see
 * `src/x402/chain/contracts/LocalUsdc.sol`) at the Base USDC address and Multicall3 at its canonical address,
 * each with `anvil_setCode`. Idempotent: code already in place (for example from a `--state` file) is kept.
 *
 * The runtime code comes from running the creation code in an `eth_call`, so no transaction is sent and no
 * nonce is used. LocalUsdc keeps nothing in storage that code copying would lose: its name, version and
 * minter are constants or immutables, and OpenZeppelin's EIP712 recomputes the domain separator when
 * `address(this)` differs from the address the constructor ran at.
 *
 * @returns The token address (always {@link BASE_USDC_ADDRESS}) and the Multicall3 address.
 */
export async function deployLocalUsdc(rpcUrl: string): Promise<{ asset: Address; multicall3: Address }> {
  const chainId = await anvilChainIdOf(rpcUrl);
  const { publicClient, testClient } = localClients(rpcUrl, chainId);

  const tokenCode = await publicClient.getCode({ address: BASE_USDC_ADDRESS });
  const minterMatches = async (): Promise<boolean> => {
    const minter = await publicClient.readContract({
      address: BASE_USDC_ADDRESS,
      abi: localUsdcAbi,
      functionName: 'minter',
    });
    return minter.toLowerCase() === ANVIL_ADDRESSES.minter.toLowerCase();
  };
  if (!isLocalUsdcRuntime(tokenCode) || !(await minterMatches())) {
    const creation = encodeDeployData({
      abi: localUsdcAbi,
      bytecode: localUsdcBytecode,
      args: [ANVIL_ADDRESSES.minter],
    });
    const runtime = await runtimeCodeOf(publicClient, creation, ANVIL_ADDRESSES.minter);
    await testClient.setCode({ address: BASE_USDC_ADDRESS, bytecode: runtime });
  }

  const multicallCode = await publicClient.getCode({ address: MULTICALL3_ADDRESS });
  if (!multicallCode || multicallCode === '0x') {
    const runtime = await runtimeCodeOf(publicClient, multicall3Artifact.creationBytecode, ANVIL_ADDRESSES.minter);
    await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: runtime });
  }

  // Sanity: the token's EIP-712 domain must be the one x402 clients sign against at this address.
  const expected = domainSeparator({
    domain: { ...USDC_EIP712_DOMAIN, chainId, verifyingContract: BASE_USDC_ADDRESS },
  });
  const actual = await publicClient.readContract({
    address: BASE_USDC_ADDRESS,
    abi: localUsdcAbi,
    functionName: 'DOMAIN_SEPARATOR',
  });
  if (actual !== expected) throw new Error(`LocalUsdc domain separator ${actual} differs from expected ${expected}`);
  // Sanity: Multicall3 answers tryAggregate with an empty call list.
  const { data } = await publicClient.call({
    to: MULTICALL3_ADDRESS,
    data: encodeFunctionData({ abi: tryAggregateAbi, functionName: 'tryAggregate', args: [false, []] }),
  });
  decodeFunctionResult({ abi: tryAggregateAbi, functionName: 'tryAggregate', data: data ?? '0x' });

  return { asset: BASE_USDC_ADDRESS, multicall3: MULTICALL3_ADDRESS };
}

/**
 * Mints go out one at a time, each taking the node's pending transaction count as its nonce. No nonce manager:
 * viem's shared one would remember nonces of an earlier chain with the same chain id (a restart without state).
 */
const mintQueue = new SerialQueue();

/**
 * Mints `usdMicros` atomic units (10^-6 USD) of the local USDC to `address` and waits for the receipt.
 *
 * @example
 * await fundBuyer(rpcUrl, asset, ANVIL_ADDRESSES.buyer, 100n * USDC_MICROS_PER_USD); // 100 USD
 */
export async function fundBuyer(rpcUrl: string, asset: Address, address: Address, usdMicros: bigint): Promise<Hex> {
  const { publicClient, minter } = localClients(rpcUrl, await anvilChainIdOf(rpcUrl));
  const hash = await mintQueue.run(() =>
    minter.writeContract({ address: asset, abi: localUsdcAbi, functionName: 'mint', args: [address, usdMicros] }),
  );
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`mint of ${usdMicros} to ${address} reverted (tx ${hash})`);
  return hash;
}

/** Reads the USDC balance of `address` in atomic units (read only: works against any node). */
export async function usdcBalanceOf(rpcUrl: string, asset: Address, address: Address): Promise<bigint> {
  const chainId = await rpcChainId(rpcUrl);
  if (chainId === undefined) throw new Error(`no eth_chainId answer from ${rpcUrl}`);
  const { publicClient } = localClients(rpcUrl, chainId);
  return publicClient.readContract({ address: asset, abi: localUsdcAbi, functionName: 'balanceOf', args: [address] });
}
