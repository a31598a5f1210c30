/**
 * Local settlement stack end to end: anvil answering as Base, the USDC look-alike at the Base USDC address,
 * Multicall3, and this project's facilitator over HTTP, driven by the x402 client scheme the way @x402/fetch
 * builds payments.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { HTTPFacilitatorClient } from '@x402/core/http';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { type Address, type Hex, createPublicClient, createWalletClient, http, parseSignature, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import {
  ANVIL_ADDRESSES,
  ANVIL_KEYS,
  type AnvilHandle,
  deployLocalUsdc,
  fundBuyer,
  startAnvil,
  usdcBalanceOf,
} from '../../scripts/lib/chain';
import { localUsdcArtifact } from '../../src/x402/chain/artifacts/localUsdc';
import { computeLocalUsdcSourceHash } from '../../src/x402/chain/compile';
import {
  BASE_NETWORK,
  BASE_USDC_ADDRESS,
  MULTICALL3_ADDRESS,
  USDC_EIP712_DOMAIN,
  defineEvmChain,
  localUsdcAbi,
} from '../../src/x402/chain';
import { type FacilitatorHandle, startFacilitator } from '../../src/x402/facilitator';
import { TRANSFER_WITH_AUTHORIZATION, verifyExactEip3009Offline } from '../../src/x402/offlineVerify';

/** Anvil account #3: has ETH but never gets USDC. */
const UNFUNDED_BUYER_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const PRICE = 990_000n;

function buildRequirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: BASE_NETWORK,
    amount: PRICE.toString(),
    asset: BASE_USDC_ADDRESS,
    payTo: ANVIL_ADDRESSES.payTo,
    maxTimeoutSeconds: 60,
    extra: { ...USDC_EIP712_DOMAIN },
    ...overrides,
  };
}

/** Signs a payment for `requirements` with the x402 client, as @x402/fetch does after a 402. */
async function buildPayment(
  requirements: PaymentRequirements,
  buyerKey: Hex = ANVIL_KEYS.buyer,
): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(buyerKey) });
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: 'http://localhost/test-resource', description: 'test', mimeType: 'application/json' },
    accepts: [requirements],
  });
}

async function postJson(url: string, body: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, json: await response.json() };
}

describe('local settlement chain and facilitator', () => {
  let anvil: AnvilHandle;
  let facilitator: FacilitatorHandle;
  let client: HTTPFacilitatorClient;
  let asset: Address;

  const balance = (address: Address): Promise<bigint> => usdcBalanceOf(anvil.rpcUrl, asset, address);

  beforeAll(async () => {
    const started = Date.now();
    anvil = await startAnvil({});
    const anvilUp = Date.now();
    ({ asset } = await deployLocalUsdc(anvil.rpcUrl));
    const deployed = Date.now();
    await fundBuyer(anvil.rpcUrl, asset, ANVIL_ADDRESSES.buyer, 100_000_000n);
    facilitator = await startFacilitator({ port: 0, rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS.facilitator });
    client = new HTTPFacilitatorClient({ url: facilitator.url });
    console.log(
      `anvil start ${anvilUp - started} ms, deploy ${deployed - anvilUp} ms, total set-up ${Date.now() - started} ms`,
    );
  });

  afterAll(async () => {
    await facilitator?.stop();
    await anvil?.stop();
  });

  describe('chain', () => {
    it('has LocalUsdc at the Base USDC address and Multicall3 at its canonical address', async () => {
      const publicClient = createPublicClient({ transport: http(anvil.rpcUrl) });
      expect(asset).toBe(BASE_USDC_ADDRESS);
      expect(await publicClient.getChainId()).toBe(8453);
      const read = <F extends 'name' | 'version' | 'symbol' | 'decimals'>(functionName: F) =>
        publicClient.readContract({ address: asset, abi: localUsdcAbi, functionName });
      expect(await read('name')).toBe('USD Coin');
      expect(await read('version')).toBe('2');
      expect(await read('symbol')).toBe('USDC');
      expect(await read('decimals')).toBe(6);
      expect((await publicClient.getCode({ address: MULTICALL3_ADDRESS }))?.length).toBeGreaterThan(2);
    });

    it('deployLocalUsdc is idempotent and keeps balances', async () => {
      const before = await balance(ANVIL_ADDRESSES.buyer);
      await expect(deployLocalUsdc(anvil.rpcUrl)).resolves.toEqual({
        asset: BASE_USDC_ADDRESS,
        multicall3: MULTICALL3_ADDRESS,
      });
      expect(await balance(ANVIL_ADDRESSES.buyer)).toBe(before);
    });

    it('accepts the bytes-signature overload of transferWithAuthorization', async () => {
      const buyer = privateKeyToAccount(ANVIL_KEYS.buyer);
      const chain = defineEvmChain({ chainId: 8453, rpcUrl: anvil.rpcUrl });
      const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 100 });
      const relayer = createWalletClient({
        account: privateKeyToAccount(UNFUNDED_BUYER_KEY),
        chain,
        transport: http(anvil.rpcUrl),
      });
      const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)));
      const message = {
        from: buyer.address,
        to: ANVIL_ADDRESSES.payTo,
        value: 1n,
        validAfter: 0n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce,
      };
      const signature = await buyer.signTypedData({
        domain: { ...USDC_EIP712_DOMAIN, chainId: 8453, verifyingContract: asset },
        types: TRANSFER_WITH_AUTHORIZATION,
        primaryType: 'TransferWithAuthorization',
        message,
      });
      expect(parseSignature(signature).v).toBeDefined();
      const payeeBefore = await balance(ANVIL_ADDRESSES.payTo);
      const hash = await relayer.writeContract({
        address: asset,
        abi: localUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [message.from, message.to, message.value, message.validAfter, message.validBefore, nonce, signature],
      });
      expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
      expect(await balance(ANVIL_ADDRESSES.payTo)).toBe(payeeBefore + 1n);
      expect(
        await publicClient.readContract({
          address: asset,
          abi: localUsdcAbi,
          functionName: 'authorizationState',
          args: [buyer.address, nonce],
        }),
      ).toBe(true);
    });

    it('the committed LocalUsdc artifact matches the Solidity source (else: npx tsx src/x402/chain/compile.ts)', () => {
      expect(localUsdcArtifact.sourceHash).toBe(computeLocalUsdcSourceHash());
    });
  });

  describe('facilitator over HTTP', () => {
    it('GET /supported lists exact on eip155:8453 and the facilitator signer', async () => {
      const supported = await client.getSupported();
      expect(supported.kinds).toContainEqual(
        expect.objectContaining({ x402Version: 2, scheme: 'exact', network: BASE_NETWORK }),
      );
      expect(Object.values(supported.signers).flat()).toContain(ANVIL_ADDRESSES.facilitator);
    });

    it('verifies, settles once, and refuses the replay', async () => {
      const requirements = buildRequirements();
      const payment = await buildPayment(requirements);
      const buyerBefore = await balance(ANVIL_ADDRESSES.buyer);
      const payeeBefore = await balance(ANVIL_ADDRESSES.payTo);

      const verified = await client.verify(payment, requirements);
      expect(verified).toMatchObject({ isValid: true, payer: ANVIL_ADDRESSES.buyer });

      const settled = await client.settle(payment, requirements);
      expect(settled).toMatchObject({ success: true, network: BASE_NETWORK, payer: ANVIL_ADDRESSES.buyer });
      expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - PRICE);
      expect(await balance(ANVIL_ADDRESSES.payTo)).toBe(payeeBefore + PRICE);

      // Verify simulates the transfer; Multicall3 lets the facilitator name the reason.
      const reverified = await client.verify(payment, requirements);
      expect(reverified).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });

      // Settle does not simulate; gas estimation reverts with FiatTokenV2's message, which x402 maps.
      const resettled = await client.settle(payment, requirements);
      expect(resettled).toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_nonce_already_used',
        transaction: '',
      });
      expect(await balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - PRICE);

      // The failed settlement took no nonce: the next one goes through at once.
      const next = buildRequirements();
      const started = Date.now();
      await expect(client.settle(await buildPayment(next), next)).resolves.toMatchObject({ success: true });
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('refuses a wrong amount, a wrong payTo, an unfunded buyer and a too short timeout', async () => {
      const payment = await buildPayment(buildRequirements());

      const wrongAmount = buildRequirements({ amount: '500000' });
      await expect(client.verify(payment, wrongAmount)).resolves.toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_payload_authorization_value_mismatch',
      });

      const wrongPayTo = buildRequirements({ payTo: privateKeyToAccount(UNFUNDED_BUYER_KEY).address });
      await expect(client.verify(payment, wrongPayTo)).resolves.toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_recipient_mismatch',
      });

      const requirements = buildRequirements();
      const unfunded = await buildPayment(requirements, UNFUNDED_BUYER_KEY);
      await expect(client.verify(unfunded, requirements)).resolves.toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_insufficient_balance',
      });
      await expect(client.settle(unfunded, requirements)).resolves.toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_insufficient_balance',
      });

      // The client signs validBefore = now + maxTimeoutSeconds; the facilitator wants 6 s of slack.
      const hurried = buildRequirements({ maxTimeoutSeconds: 5 });
      await expect(client.verify(await buildPayment(hurried), hurried)).resolves.toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_evm_payload_authorization_valid_before',
      });
    });

    it('offline verification accepts exactly what the facilitator accepts (funded buyer), and no forgery', async () => {
      const requirements = buildRequirements();
      const valid = await buildPayment(requirements);
      const other = await buildPayment(requirements, UNFUNDED_BUYER_KEY);
      const auth = (valid.payload as { authorization: Record<string, string> }).authorization;
      const cases: [string, PaymentPayload, PaymentRequirements][] = [
        ['valid', valid, requirements],
        ['wrong amount', valid, buildRequirements({ amount: '500000' })],
        ['wrong payTo', valid, buildRequirements({ payTo: ANVIL_ADDRESSES.buyer })],
        ['wrong domain', valid, buildRequirements({ extra: { name: 'USDC', version: '2' } })],
        ['too short a timeout', await buildPayment(buildRequirements({ maxTimeoutSeconds: 5 })), requirements],
        // Another key's signature over this authorization: the signer is not `from`.
        ['signed by another key', { ...valid, payload: { ...other.payload, authorization: auth } }, requirements],
        [
          'value raised after signing',
          { ...valid, payload: { ...valid.payload, authorization: { ...auth, value: '990001' } } },
          buildRequirements({ amount: '990001' }),
        ],
      ];
      for (const [name, payment, req] of cases) {
        const offline = await verifyExactEip3009Offline(payment, req);
        const facilitator = await client.verify(payment, req);
        expect({ name, valid: offline?.isValid ?? false }).toEqual({ name, valid: facilitator.isValid });
        if (offline) expect(offline.payer).toBe(facilitator.payer);
      }
      // The unfunded buyer's own payload is well signed: offline says yes, the chain (settlement) says no.
      await expect(verifyExactEip3009Offline(other, requirements)).resolves.toMatchObject({ isValid: true });
      await expect(client.settle(other, requirements)).resolves.toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_insufficient_balance',
      });
    });

    it('settles 5 distinct payments in parallel', async () => {
      const payeeBefore = await balance(ANVIL_ADDRESSES.payTo);
      const requirements = buildRequirements();
      const payments = await Promise.all(Array.from({ length: 5 }, () => buildPayment(requirements)));
      const results = await Promise.all(payments.map((payment) => client.settle(payment, requirements)));
      for (const result of results) expect(result).toMatchObject({ success: true });
      expect(new Set(results.map((result) => result.transaction)).size).toBe(5);
      expect(await balance(ANVIL_ADDRESSES.payTo)).toBe(payeeBefore + 5n * PRICE);
    });

    it('keeps settling in parallel while reverting settlements are mixed in (nonce manager stays gap-free)', async () => {
      const payeeBefore = await balance(ANVIL_ADDRESSES.payTo);
      const requirements = buildRequirements();
      const keys = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? UNFUNDED_BUYER_KEY : ANVIL_KEYS.buyer));
      const payments = await Promise.all(keys.map((key) => buildPayment(requirements, key)));
      const results = await Promise.all(payments.map((payment) => client.settle(payment, requirements)));
      results.forEach((result, i) =>
        expect(result).toMatchObject(
          keys[i] === UNFUNDED_BUYER_KEY
            ? { success: false, errorReason: 'invalid_exact_evm_insufficient_balance' }
            : { success: true },
        ),
      );
      expect(await balance(ANVIL_ADDRESSES.payTo)).toBe(payeeBefore + 8n * PRICE);
    });

    it('settles the same payload sent twice at once only once', async () => {
      const requirements = buildRequirements();
      const payment = await buildPayment(requirements);
      const buyerBefore = await balance(ANVIL_ADDRESSES.buyer);
      const results = await Promise.all([client.settle(payment, requirements), client.settle(payment, requirements)]);
      expect(results.filter((result) => result.success)).toHaveLength(1);
      expect(results.find((result) => !result.success)).toMatchObject({
        errorReason: 'invalid_exact_evm_nonce_already_used',
      });
      expect(await balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - PRICE);
    });

    it('answers another network with invalid_network', async () => {
      // Signed for Base: the x402 client's spend controls only allow default assets, and Base USDC is not
      // the default asset of eip155:84532.
      const payment = await buildPayment(buildRequirements());
      const requirements = buildRequirements({ network: 'eip155:84532' });
      await expect(client.verify(payment, requirements)).resolves.toMatchObject({
        isValid: false,
        invalidReason: 'invalid_network',
      });
      await expect(client.settle(payment, requirements)).resolves.toMatchObject({
        success: false,
        errorReason: 'invalid_network',
      });
    });

    it('answers 400 to malformed bodies', async () => {
      const requirements = buildRequirements();
      const payment = await buildPayment(requirements);

      const notJson = await postJson(`${facilitator.url}/verify`, '{"x402Version": 2,');
      expect(notJson.status).toBe(400);

      const missing = await postJson(
        `${facilitator.url}/settle`,
        JSON.stringify({ x402Version: 2, paymentPayload: payment }),
      );
      expect(missing).toMatchObject({ status: 400, json: { error: 'invalid_request', param: 'paymentRequirements' } });

      const badAmount = await postJson(
        `${facilitator.url}/verify`,
        JSON.stringify({
          x402Version: 2,
          paymentPayload: payment,
          paymentRequirements: { ...requirements, amount: '0.99' },
        }),
      );
      expect(badAmount).toMatchObject({ status: 400, json: { param: 'paymentRequirements.amount' } });

      const v1 = await postJson(
        `${facilitator.url}/verify`,
        JSON.stringify({ x402Version: 1, paymentPayload: payment, paymentRequirements: requirements }),
      );
      expect(v1).toMatchObject({ status: 400, json: { param: 'x402Version' } });
    });
  });
});

describe('anvil lifecycle', () => {
  it('keeps the token, Multicall3 and balances across restarts with stateFile', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'anvil-state-'));
    const stateFile = path.join(dir, 'state.json');
    try {
      const first = await startAnvil({ stateFile });
      try {
        const { asset } = await deployLocalUsdc(first.rpcUrl);
        await fundBuyer(first.rpcUrl, asset, ANVIL_ADDRESSES.buyer, 7n);
      } finally {
        await first.stop();
      }
      const second = await startAnvil({ stateFile });
      try {
        const publicClient = createPublicClient({ transport: http(second.rpcUrl) });
        expect((await publicClient.getCode({ address: MULTICALL3_ADDRESS }))?.length).toBeGreaterThan(2);
        expect(await usdcBalanceOf(second.rpcUrl, BASE_USDC_ADDRESS, ANVIL_ADDRESSES.buyer)).toBe(7n);
        await deployLocalUsdc(second.rpcUrl);
        await fundBuyer(second.rpcUrl, BASE_USDC_ADDRESS, ANVIL_ADDRESSES.buyer, 1n);
        expect(await usdcBalanceOf(second.rpcUrl, BASE_USDC_ADDRESS, ANVIL_ADDRESSES.buyer)).toBe(8n);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mints and settles on a fresh chain after other chains with the same id ran in this process', async () => {
    for (let round = 0; round < 2; round++) {
      const node = await startAnvil({});
      let facilitator: FacilitatorHandle | undefined;
      try {
        const { asset } = await deployLocalUsdc(node.rpcUrl);
        await fundBuyer(node.rpcUrl, asset, ANVIL_ADDRESSES.buyer, 2n * PRICE);
        facilitator = await startFacilitator({ port: 0, rpcUrl: node.rpcUrl, privateKey: ANVIL_KEYS.facilitator });
        const client = new HTTPFacilitatorClient({ url: facilitator.url });
        const requirements = buildRequirements();
        await expect(client.settle(await buildPayment(requirements), requirements)).resolves.toMatchObject({
          success: true,
        });
        expect(await usdcBalanceOf(node.rpcUrl, asset, ANVIL_ADDRESSES.buyer)).toBe(PRICE);
      } finally {
        await facilitator?.stop();
        await node.stop();
      }
    }
  });

  it('refuses to start a facilitator whose RPC serves another chain', async () => {
    const node = await startAnvil({ chainId: 31337 });
    try {
      await expect(
        startFacilitator({ port: 0, rpcUrl: node.rpcUrl, privateKey: ANVIL_KEYS.facilitator }),
      ).rejects.toThrow(/serves chain 31337, not eip155:8453/);
    } finally {
      await node.stop();
    }
  });
});
