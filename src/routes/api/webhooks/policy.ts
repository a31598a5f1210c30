/**
 * Loading a webhook endpoint and who may manage it (seed §2.6; issue 5; issue 27 §1): the holder of its management
 * token (`wht_...`, shown once at registration), the agent that owns it by its agent key, or the operator. Registering
 * an endpoint for an agent's orders needs that agent's key.
 */
import type { WebhookEndpointDoc } from '../../../db';
import { notFound } from '../../../errors';
import { WebhookRepository } from '../../../repos/webhooks';
import type { AppDeps } from '../../context';
import { refuse, type Actor, type Refusal, type Verdict } from '../../gate';
import { opensWallet, type WalletRef } from '../wallets/policy';
import type { WebhookRegistrationRequest } from './schema';

/**
 * The gate of the operations on one endpoint (`auth: ['endpoint_owner', 'operator']`): the endpoint of the path
 * (404 `webhook_not_found`), then the operator, its management token, or (an agent-owned endpoint) the agent's key.
 */
export function endpointGate(deps: Pick<AppDeps, 'services'>) {
  return {
    async load(input: { readonly params: { id: string } }): Promise<WebhookEndpointDoc> {
      const id = input.params.id;
      const endpoint = id ? await deps.services.webhooks.get(id) : null;
      if (!endpoint) throw notFound('webhook_not_found', `No webhook endpoint ${id}`);
      return endpoint;
    },
    async authorize(actor: Actor, endpoint: WebhookEndpointDoc): Promise<Verdict<'endpoint_owner' | 'operator'>> {
      if (actor.operator) return 'operator';
      if (WebhookRepository.tokenMatches(endpoint, actor.token)) return 'endpoint_owner';
      if (endpoint.owner === 'agent' && endpoint.agent_id && actor.token) {
        if (opensWallet(await deps.services.wallets.get(endpoint.agent_id), actor.token)) return 'endpoint_owner';
      }
      return refuse(
        actor,
        'Managing a webhook endpoint needs its management token or the agent key as a Bearer token',
        `The token does not manage webhook endpoint ${endpoint._id}`,
      );
    },
  };
}

/**
 * Listing endpoints (`auth: 'endpoint_owner'`): any Bearer token lists the endpoints it manages (its own management
 * token's, and those of the agent whose key it is), so there is no stranger, only an empty list.
 */
export function listGate() {
  return {
    authorize: (actor: Actor): Verdict<'endpoint_owner'> =>
      actor.token
        ? 'endpoint_owner'
        : refuse(
            actor,
            'Listing webhook endpoints needs a management token or an agent key as a Bearer token',
            'Listing webhook endpoints needs a management token or an agent key as a Bearer token',
          ),
  };
}

/**
 * Registering (`auth: ['none', 'agent_key']`): the body (400), and with `agent_id` the agent's wallet; anyone may
 * register an endpoint of their own, but subscribing to an agent's orders needs that agent's key (401 / 403).
 */
export function registrationGate(deps: Pick<AppDeps, 'services'>) {
  return {
    async load(input: { readonly body: WebhookRegistrationRequest }): Promise<WalletRef | null> {
      const agentId = input.body.agent_id;
      return agentId ? { agentId, wallet: await deps.services.wallets.get(agentId) } : null;
    },
    authorize(actor: Actor, agent: WalletRef | null): 'none' | 'agent_key' | Refusal {
      if (!agent) return 'none';
      if (opensWallet(agent.wallet, actor.token)) return 'agent_key';
      return refuse(
        actor,
        `Subscribing to agent ${agent.agentId}'s orders needs its agent key as a Bearer token (GET /api/v1/wallets/${agent.agentId} issues it)`,
        `The key is not agent ${agent.agentId}'s key`,
      );
    },
  };
}
