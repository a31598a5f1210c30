/**
 * Agent wallets (seed §2.9, issue 2 §5), registered from their definitions in ./schema.ts.
 * - `GET /api/v1/wallets/{agent_id}` creates the wallet if absent and then shows its `agent_key` once; reading an
 *   existing wallet needs that key (`Authorization: Bearer ak_...`) or the operator key.
 * - `POST /api/v1/wallets/{agent_id}/credits` (operator key) credits a wallet, idempotent per `transaction_id`. A
 *   credit to a wallet without a key (absent, or created by a commission) issues its `agent_key` in the answer, once,
 *   for the operator to hand to its owner out of band: nobody claims money by being first to read it (issue 10 §2).
 * - `POST /api/v1/wallets/{agent_id}/key`: the owner (current agent key) rotates the key; the operator issues a key
 *   for a wallet that has none. The new key is shown once.
 * Who may do what is ./policy.ts, checked by each operation's gate; the public form is ./view.ts.
 */
import { microsToUsd, usdToMicros } from '../../../domain/money';
import { badRequest, forbidden, notFound, problem } from '../../../errors';
import type { WalletDoc } from '../../../db';
import type { AppDeps } from '../../context';
import type { Actor } from '../../gate';
import { OperationRouter } from '../../operation';
import { opensWallet, walletOwner, type WalletRef } from './policy';
import { walletOperations as ops } from './schema';
import { walletView } from './view';

/** The wallet routes. */
export function walletRoutes(deps: AppDeps): OperationRouter {
  // Reading opens the wallet: created if absent, and then its key is shown once to whoever created it (`none`);
  // an existing wallet is read by the operator or its owner.
  const opened = {
    load: async (input: { readonly params: { agent_id: string } }) => ({
      agentId: input.params.agent_id,
      ...(await deps.services.wallets.open(input.params.agent_id)),
    }),
    authorize: (actor: Actor, w: { agentId: string; wallet: WalletDoc; agentKey?: string }) =>
      w.agentKey
        ? ('none' as const)
        : actor.operator
          ? ('operator' as const)
          : walletOwner(actor, w.wallet, w.agentId, `Wallet ${w.agentId} exists; send its agent key as a Bearer token`),
  };
  // Rotating: the owner with the current key; the operator issues a key for a wallet without one.
  const keyed = {
    load: async (input: { readonly params: { agent_id: string } }): Promise<WalletRef> => ({
      agentId: input.params.agent_id,
      wallet: await deps.services.wallets.get(input.params.agent_id),
    }),
    authorize: (actor: Actor, { agentId, wallet }: WalletRef) =>
      opensWallet(wallet, actor.token)
        ? ('agent_key' as const)
        : actor.operator
          ? ('operator' as const)
          : walletOwner(
              actor,
              null,
              agentId,
              `Rotating the key of wallet ${agentId} needs its current agent key as a Bearer token`,
            ),
  };

  return new OperationRouter(deps)
    .on(ops.get, opened, async (ctx, _input, { agentId, wallet, agentKey }) => {
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
    .on(ops.rotateKey, keyed, async (ctx, _input, { agentId, wallet }, access) => {
      let agentKey: string | undefined;
      if (access.as === 'agent_key') {
        agentKey = await deps.services.wallets.rotateKey(agentId, access.actor.token ?? '');
        // Another request rotated the key between the check and this write: the key sent no longer opens it.
        if (!agentKey) throw forbidden(`The key does not open wallet ${agentId}`);
      } else {
        if (!wallet) throw notFound('wallet_not_found', `No wallet ${agentId}`);
        agentKey = await deps.services.wallets.claim(agentId);
        if (!agentKey) throw problem('wallet_claimed', `Wallet ${agentId} has a key; only its owner can rotate it`);
      }
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { agent_id: agentId, agent_key: agentKey };
    });
}
