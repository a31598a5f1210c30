/**
 * Who may use a wallet (seed §2.9; issue 10 §2; issue 27 §1): its owner, by the agent key (`Authorization: Bearer
 * ak_...`) it was given once; the operator reads any wallet and issues a key for a wallet that has none. Nobody claims
 * money by being first to read a wallet: only its creation shows the key, to whoever created it.
 */
import type { WalletDoc } from '../../../db';
import { WalletRepository } from '../../../repos/wallets';
import type { AppDeps } from '../../context';
import { refuse, type Actor, type Refusal, type Verdict } from '../../gate';

/** True when `token` is the agent key of `wallet` (constant-time; false for no wallet or a wallet without key). */
export function opensWallet(wallet: WalletDoc | null, token: string | undefined): boolean {
  return !!wallet && WalletRepository.keyMatches(wallet, token);
}

/**
 * The owner's right on wallet `agentId` (`wallet` as loaded, null when absent): `agent_key`, or the refusal, 401 with
 * `missing` (what to send) without a credential, 403 "The key does not open wallet ..." with another.
 */
export function walletOwner(
  actor: Actor,
  wallet: WalletDoc | null,
  agentId: string,
  missing: string,
): 'agent_key' | Refusal {
  return opensWallet(wallet, actor.token)
    ? 'agent_key'
    : refuse(actor, missing, `The key does not open wallet ${agentId}`);
}

/** A wallet that a request acts on, by its id (null when it does not exist). */
export interface WalletRef {
  agentId: string;
  wallet: WalletDoc | null;
}

/**
 * The gate of a wallet's own reads (`auth: ['agent_key', 'operator']`): the wallet `agentIdOf(input)` names, loaded
 * (the id parsed first: 400 when malformed); the operator, or its owner by the agent key. `missing` words the 401.
 */
export function ownerOrOperatorGate<I>(
  deps: Pick<AppDeps, 'services'>,
  agentIdOf: (input: I) => string,
  missing: (agentId: string) => string,
) {
  return {
    async load(input: I): Promise<WalletRef> {
      const agentId = agentIdOf(input);
      return { agentId, wallet: await deps.services.wallets.get(agentId) };
    },
    authorize: (actor: Actor, { agentId, wallet }: WalletRef): Verdict<'agent_key' | 'operator'> =>
      actor.operator ? 'operator' : walletOwner(actor, wallet, agentId, missing(agentId)),
  };
}
