/**
 * Agent wallets (seed §2.9, issue 2 §5), registered from their definitions in ./schema.ts.
 * - `GET /api/v1/wallets/{agent_id}` creates the wallet if absent and then shows its `agent_key` once; reading an
 *   existing wallet needs that key (`Authorization: Bearer ak_...`) or the operator key.
 * - `POST /api/v1/wallets/{agent_id}/credits` (operator key) credits a wallet, idempotent per `transaction_id`. A
 *   credit to a wallet without a key (absent, or created by a commission) issues its `agent_key` in the answer, once,
 *   for the operator to hand to its owner out of band: nobody claims money by being first to read it (issue 10 §2).
 * - `POST /api/v1/wallets/{agent_id}/key`: the owner (current agent key) rotates the key; the operator issues a key
 *   for a wallet that has none. The new key is shown once.
 */
import type { WalletDoc, WalletEntryDoc } from '../../../db';
import { microsToUsd, usdToMicros } from '../../../domain/money';
import { badRequest, forbidden, notFound, problem, unauthorized } from '../../../errors';
import { bearerToken, hasCredential, isOperator } from '../../../http/auth';
import { WalletRepository } from '../../../repos/wallets';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { walletOperations as ops } from './schema';

/** Public form of a wallet; `agentKey` only when this request issued it. */
export function walletView(w: WalletDoc, balanceMicros: number, entries: WalletEntryDoc[], agentKey?: string) {
  return {
    agent_id: w._id,
    balance: microsToUsd(balanceMicros),
    balance_micros: balanceMicros,
    currency: w.currency,
    ...(agentKey ? { agent_key: agentKey } : {}),
    transactions: entries.map((t) => ({
      id: t.tx_id,
      type: t.type,
      amount: microsToUsd(t.amount_micros),
      amount_micros: t.amount_micros,
      balance_after_micros: t.balance_after_micros,
      memo: t.memo,
      source: t.source,
      at: t.at.toISOString(),
    })),
    created_at: w.created_at.toISOString(),
  };
}

/** The wallet routes. */
export function walletRoutes(deps: AppDeps): OperationRouter {
  return new OperationRouter(deps)
    .on(ops.get, async (ctx, input) => {
      const agentId = input.params.agent_id;
      const { wallet, agentKey } = await deps.services.wallets.open(agentId);
      if (!agentKey && !isOperator(ctx, deps.config.OPERATOR_KEY)) {
        const token = bearerToken(ctx);
        if (!token) throw unauthorized(`Wallet ${agentId} exists; send its agent key as a Bearer token`);
        if (!WalletRepository.keyMatches(wallet, token)) throw forbidden(`The key does not open wallet ${agentId}`);
      }
      const snap = await deps.services.wallets.snapshot(agentId);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = walletView(wallet, snap?.balance_micros ?? 0, snap?.entries ?? [], agentKey);
    })
    .on(ops.credit, async (ctx, input) => {
      const agentId = input.params.agent_id;
      const { amount, transaction_id, memo } = input.body;
      let micros: number;
      try {
        micros = usdToMicros(amount);
      } catch (err) {
        throw badRequest(`amount: ${(err as Error).message}`, 'amount');
      }
      const tx = await deps.services.wallets.credit(agentId, micros, `credit:${transaction_id}`, memo, 'operator');
      const agentKey = await deps.services.wallets.claim(agentId);
      const balance = await deps.services.wallets.balance(agentId);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        ...(agentKey ? { agent_key: agentKey } : {}),
        transaction: {
          id: tx.tx_id,
          type: tx.type,
          amount: microsToUsd(tx.amount_micros),
          amount_micros: tx.amount_micros,
          memo: tx.memo,
          at: tx.at.toISOString(),
        },
        balance: microsToUsd(balance),
        balance_micros: balance,
      };
    })
    .on(ops.rotateKey, async (ctx, input) => {
      const agentId = input.params.agent_id;
      const wallet = await deps.services.wallets.get(agentId);
      const token = bearerToken(ctx);
      let agentKey: string | undefined;
      if (wallet && token && WalletRepository.keyMatches(wallet, token)) {
        agentKey = await deps.services.wallets.rotateKey(agentId, token);
      } else if (isOperator(ctx, deps.config.OPERATOR_KEY)) {
        if (!wallet) throw notFound('wallet_not_found', `No wallet ${agentId}`);
        agentKey = await deps.services.wallets.claim(agentId);
        if (!agentKey) throw problem('wallet_claimed', `Wallet ${agentId} has a key; only its owner can rotate it`);
      } else if (!hasCredential(ctx)) {
        throw unauthorized(`Rotating the key of wallet ${agentId} needs its current agent key as a Bearer token`);
      } else {
        throw forbidden(`The key does not open wallet ${agentId}`);
      }
      if (!agentKey) throw forbidden(`The key does not open wallet ${agentId}`);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { agent_id: agentId, agent_key: agentKey };
    });
}
