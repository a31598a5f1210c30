/**
 * On-chain refunds of x402 settlements (issue 36 §1): money a payer sent for an order that another rail had already
 * paid, or for an order that ended without goods, goes back to the payer in the same token.
 *
 * The refund is an EIP-3009 `transferWithAuthorization` from the seller's pay-to account to the payer, signed with
 * that account's key and submitted through the facilitator's `/settle` (the payer of the refund is the seller, its
 * payee the original payer). Its nonce is derived from the x402 payment id (`keccak256("x402-refund:<id>")`), so the
 * token itself guarantees at most one refund per payment: a retry after any crash re-submits the same authorization,
 * which the chain accepts once and refuses after (`AuthorizationUsed`). Amounts are USDC atomic units (micro-USD).
 *
 * Source: EIP-3009; x402 v2 `exact` scheme on EVM (../shared/reference/x402-v2.md).
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainIdOfNetwork } from './chain';
import { TRANSFER_WITH_AUTHORIZATION } from './offlineVerify';
import type { SettlementChain } from './settlementChain';

/** A settled x402 payment to give back: who paid, how much (USDC atomic units), on which token and network. */
export interface RefundablePayment {
  /** The ledger entry's id (`x4p_…`): the refund's idempotency key. */
  id: string;
  payer: string;
  amount_micros: number;
  asset: string;
  network: string;
  pay_to: string;
}

/** A refund that is on chain: the transaction that moved the money back. */
export interface RefundSent {
  transaction: string;
}

/** Sends refunds of settled x402 payments; see the module comment. */
export interface X402Refunder {
  /** The account refunds come from (the pay-to address whose key is configured), lowercase. */
  readonly from: string;
  /**
   * Refunds `p` once: answers the transaction when the refund is (or already was) on chain.
   * @throws Error when the refund could not be confirmed on chain yet (retry later; never refunds twice), or when
   *   `p` was paid to another address than this refunder's.
   */
  refund(p: RefundablePayment): Promise<RefundSent>;
}

/** The facilitator's settle, as `HTTPFacilitatorClient.settle` has it. */
export interface SettleClient {
  settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<{ success: boolean; transaction?: string; errorReason?: string }>;
}

/** Options of {@link createX402Refunder}. */
export interface X402RefunderOptions {
  /** Private key of the pay-to account (X402_REFUND_PRIVATE_KEY). */
  privateKey: Hex;
  /** EIP-712 domain of the token (X402_ASSET_NAME, X402_ASSET_VERSION). */
  assetName: string;
  assetVersion: string;
  facilitator: SettleClient;
  chain: Pick<SettlementChain, 'findAuthorizationTx' | 'receipt'>;
  /** Seconds the refund's authorization stays valid (it is re-signed identically on a retry). Default 1 year. */
  validitySeconds?: number;
}

/** The EIP-3009 nonce of the refund of x402 payment `paymentId` (bytes32). */
export function refundNonce(paymentId: string): Hex {
  return keccak256(toHex(`x402-refund:${paymentId}`));
}

/**
 * A {@link X402Refunder} signing with `opts.privateKey`. Retries may sign another `validBefore` (at least one
 * `validitySeconds` ahead); the nonce, derived from the payment id, is what the token accepts once.
 */
export function createX402Refunder(opts: X402RefunderOptions): X402Refunder {
  const account = privateKeyToAccount(opts.privateKey);
  const from = account.address.toLowerCase();
  const validity = BigInt(opts.validitySeconds ?? 365 * 24 * 3600);

  async function onChain(p: RefundablePayment, nonce: Hex): Promise<string | null> {
    const tx = await opts.chain.findAuthorizationTx(p.asset, from, nonce);
    if (!tx) return null;
    const r = await opts.chain.receipt(tx);
    return r?.status === 'success' ? tx : null;
  }

  return {
    from,
    async refund(p) {
      if (p.pay_to.toLowerCase() !== from) {
        throw new Error(`x402 payment ${p.id} was paid to ${p.pay_to}, not to the refund account ${from}`);
      }
      const nonce = refundNonce(p.id);
      const done = await onChain(p, nonce);
      if (done) return { transaction: done };
      // At least one validity period ahead; a retry's message may differ, its nonce does not.
      const validBefore = (BigInt(Math.floor(Date.now() / 1000)) / validity + 2n) * validity;
      const authorization = {
        from: account.address,
        to: p.payer as Hex,
        value: BigInt(p.amount_micros),
        validAfter: 0n,
        validBefore,
        nonce,
      };
      const signature = await account.signTypedData({
        domain: {
          name: opts.assetName,
          version: opts.assetVersion,
          chainId: chainIdOfNetwork(p.network),
          verifyingContract: p.asset as Hex,
        },
        types: TRANSFER_WITH_AUTHORIZATION,
        primaryType: 'TransferWithAuthorization',
        message: authorization,
      });
      const requirements: PaymentRequirements = {
        scheme: 'exact',
        network: p.network as PaymentRequirements['network'],
        asset: p.asset,
        amount: String(p.amount_micros),
        payTo: p.payer,
        maxTimeoutSeconds: 60,
        extra: { name: opts.assetName, version: opts.assetVersion },
      };
      const payload: PaymentPayload = {
        x402Version: 2,
        accepted: requirements,
        payload: {
          signature,
          authorization: {
            from: authorization.from,
            to: authorization.to,
            value: String(authorization.value),
            validAfter: '0',
            validBefore: String(validBefore),
            nonce,
          },
        },
      } as PaymentPayload;
      let settled: Awaited<ReturnType<SettleClient['settle']>> | null = null;
      try {
        settled = await opts.facilitator.settle(payload, requirements);
      } catch {
        // The answer was lost: the chain says whether it went through.
      }
      if (settled?.success && settled.transaction) {
        const r = await opts.chain.receipt(settled.transaction);
        if (r?.status === 'success') return { transaction: settled.transaction };
      }
      const landed = await onChain(p, nonce);
      if (landed) return { transaction: landed };
      throw new Error(
        `refund of x402 payment ${p.id} not on chain yet${settled?.errorReason ? ` (${settled.errorReason})` : ''}`,
      );
    },
  };
}
