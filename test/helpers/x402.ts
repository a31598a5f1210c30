/**
 * x402 test fixtures: a private settlement chain per test file (anvil on a free port, the USDC look-alike, a funded
 * buyer, this project's facilitator) and buyers built from the unmodified x402 client packages.
 */
import { x402Client } from '@x402/core/client';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  ANVIL_ADDRESSES,
  ANVIL_KEYS,
  deployLocalUsdc,
  fundBuyer,
  startAnvil,
  usdcBalanceOf,
} from '../../scripts/lib/chain';
import { startFacilitator } from '../../src/x402/facilitator';

/** Anvil account #3 (mnemonic "test … junk"): ETH for gas, never any USDC. */
export const UNFUNDED_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

/** A running private chain with facilitator. */
export interface X402Chain {
  rpcUrl: string;
  facilitatorUrl: string;
  asset: Address;
  balance(address: Address | string): Promise<bigint>;
  /** Stack overrides pointing the API and worker at this chain. */
  stackConfig: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts anvil, deploys the token, funds the buyer with `buyerMicros` and starts a facilitator. */
export async function startX402Chain(
  opts: { buyerMicros?: bigint; confirmationTimeoutMs?: number } = {},
): Promise<X402Chain> {
  const anvil = await startAnvil({});
  try {
    const { asset } = await deployLocalUsdc(anvil.rpcUrl);
    await fundBuyer(anvil.rpcUrl, asset, ANVIL_ADDRESSES.buyer, opts.buyerMicros ?? 5_000_000_000n);
    const facilitator = await startFacilitator({
      port: 0,
      rpcUrl: anvil.rpcUrl,
      privateKey: ANVIL_KEYS.facilitator,
      ...(opts.confirmationTimeoutMs ? { confirmationTimeoutMs: opts.confirmationTimeoutMs } : {}),
    });
    return {
      rpcUrl: anvil.rpcUrl,
      facilitatorUrl: facilitator.url,
      asset,
      balance: (address) => usdcBalanceOf(anvil.rpcUrl, asset, address as Address),
      stackConfig: {
        X402_FACILITATOR_URL: facilitator.url,
        X402_PAY_TO: ANVIL_ADDRESSES.payTo,
        X402_RPC_URL: anvil.rpcUrl,
        X402_REFUND_PRIVATE_KEY: ANVIL_KEYS.payTo,
      },
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

/** An unmodified x402 client for `key`; the spend cap is raised from its 1 USD default (templates cost up to 362). */
export function buyerClient(key: Hex = ANVIL_KEYS.buyer, maxUsd = 1000): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(key) });
  client.setSpendControls({ maxAmountPerPayment: `$${maxUsd}` });
  return client;
}

/** `fetch` that pays 402s with `@x402/fetch`'s `wrapFetchWithPayment` over {@link buyerClient}. */
export function payingFetch(key: Hex = ANVIL_KEYS.buyer, maxUsd = 1000): typeof fetch {
  return wrapFetchWithPayment(fetch, buyerClient(key, maxUsd)) as typeof fetch;
}

/** Decodes the PAYMENT-REQUIRED header of a response (throws when absent). */
export function paymentRequiredOf(res: { headers: Headers }): PaymentRequired {
  const h = res.headers.get('payment-required');
  if (!h) throw new Error('no PAYMENT-REQUIRED header');
  return decodePaymentRequiredHeader(h);
}

/** Decodes the PAYMENT-RESPONSE header of a response (throws when absent). */
export function paymentResponseOf(res: { headers: Headers }): SettleResponse {
  const h = res.headers.get('payment-response');
  if (!h) throw new Error('no PAYMENT-RESPONSE header');
  return decodePaymentResponseHeader(h);
}

/**
 * Signs a payment the way @x402/fetch does, optionally for altered requirements (`signFor`), then claims the
 * server's requirements in `accepted` (so the server matches it and the facilitator judges the signature).
 */
export async function signPayment(
  required: PaymentRequired,
  opts: { key?: Hex; signFor?: Partial<PaymentRequirements>; keepAccepted?: boolean; paymentId?: string } = {},
): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(opts.key ?? ANVIL_KEYS.buyer) });
  client.setSpendControls(false);
  const real = required.accepts[0] as PaymentRequirements;
  const altered = { ...real, ...(opts.signFor ?? {}) };
  const payload = await client.createPaymentPayload({ ...required, accepts: [altered] });
  if (!opts.keepAccepted) payload.accepted = real;
  if (opts.paymentId) {
    payload.extensions = {
      ...(payload.extensions ?? {}),
      'payment-identifier': {
        ...((required.extensions?.['payment-identifier'] as object | undefined) ?? {}),
        info: { required: false, id: opts.paymentId },
      },
    };
  }
  return payload;
}

/** The PAYMENT-SIGNATURE header value of a payload. */
export const signatureHeader = (payload: PaymentPayload): Record<string, string> => ({
  'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload),
});
