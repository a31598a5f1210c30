/**
 * Offline verification of exact EIP-3009 payloads (src/x402/offlineVerify.ts) against payloads the stock x402 client
 * signs. Agreement with the facilitator's own verify is checked on a real chain in test/integration/chain.test.ts.
 */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { keccak256, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

import { ANVIL_ADDRESSES, ANVIL_KEYS } from '../../scripts/lib/chain';
import { BASE_NETWORK, BASE_USDC_ADDRESS, USDC_EIP712_DOMAIN } from '../../src/x402/chain';
import { nativeRecovery, recoverSigner, verifyExactEip3009Offline } from '../../src/x402/offlineVerify';

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: BASE_NETWORK,
  amount: '990000',
  asset: BASE_USDC_ADDRESS,
  payTo: ANVIL_ADDRESSES.payTo,
  maxTimeoutSeconds: 60,
  extra: { ...USDC_EIP712_DOMAIN },
};

async function sign(req: PaymentRequirements = requirements): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(ANVIL_KEYS.buyer) });
  return client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://localhost/x' }, accepts: [req] });
}

type Auth = Record<string, string>;
const withAuth = (p: PaymentPayload, change: Partial<Auth>): PaymentPayload => {
  const inner = p.payload as { authorization: Auth; signature: string };
  return { ...p, payload: { ...inner, authorization: { ...inner.authorization, ...change } } };
};
const withSignature = (p: PaymentPayload, signature: string): PaymentPayload => ({
  ...p,
  payload: { ...p.payload, signature },
});

describe('verifyExactEip3009Offline', () => {
  let payload: PaymentPayload;
  let now: number;
  beforeAll(async () => {
    payload = await sign();
    now = Math.floor(Date.now() / 1000);
  });

  it('accepts what the stock client signs, naming the payer', async () => {
    await expect(verifyExactEip3009Offline(payload, requirements, now)).resolves.toEqual({
      isValid: true,
      payer: ANVIL_ADDRESSES.buyer,
    });
  });

  it.each<[string, () => [PaymentPayload, PaymentRequirements, number?]]>([
    ['another amount', () => [payload, { ...requirements, amount: '990001' }]],
    ['another recipient', () => [payload, { ...requirements, payTo: ANVIL_ADDRESSES.buyer }]],
    ['another token', () => [payload, { ...requirements, asset: ANVIL_ADDRESSES.payTo }]],
    ['another domain version', () => [payload, { ...requirements, extra: { name: 'USD Coin', version: '1' } }]],
    ['another chain', () => [payload, { ...requirements, network: 'eip155:84532' }]],
    ['no EIP-712 domain', () => [payload, { ...requirements, extra: {} }]],
    ['a changed nonce', () => [withAuth(payload, { nonce: `0x${'ab'.repeat(32)}` }), requirements]],
    ['a changed from', () => [withAuth(payload, { from: ANVIL_ADDRESSES.payTo }), requirements]],
    ['a garbage value', () => [withAuth(payload, { value: 'lots' }), requirements]],
    ['expired (less than 6 s left)', () => [payload, requirements, now + 60]],
    ['not yet valid', () => [withAuth(payload, { validAfter: String(now + 600) }), requirements]],
    [
      'a smart-wallet (longer) signature',
      () => [withSignature(payload, `${payload.payload.signature as string}00`), requirements],
    ],
    ['a non-hex signature', () => [withSignature(payload, `0x${'zz'.repeat(65)}`), requirements]],
    ['no authorization', () => [{ ...payload, payload: { signature: payload.payload.signature } }, requirements]],
  ])('leaves %s to the facilitator (null)', async (_name, build) => {
    const [p, req, at] = build();
    await expect(verifyExactEip3009Offline(p, req, at ?? now)).resolves.toBeNull();
  });
});

describe('recoverSigner', () => {
  it('loads the native secp256k1 binding on this platform', () => {
    expect(nativeRecovery).toBe(true);
  });

  it('recovers the same signer natively and with viem, and refuses a malformed signature', async () => {
    for (let i = 0; i < 20; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const digest = keccak256(toHex(`message ${i}`));
      const signature = await account.sign({ hash: digest });
      await expect(recoverSigner(digest, signature)).resolves.toBe(account.address);
      await expect(recoverSigner(digest, signature, null)).resolves.toBe(account.address);
    }
    const zero = `0x${'00'.repeat(64)}1b` as const;
    await expect(recoverSigner(keccak256('0x01'), zero)).rejects.toThrow();
  });
});
