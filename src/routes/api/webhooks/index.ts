/**
 * Webhook endpoints (seed §2.6, §4, §6.1; issue 5), registered from their definitions in ./schema.ts:
 * - `GET /api/v1/webhooks/events`: the event catalogue, signing scheme and retry schedule.
 * - `POST /api/v1/webhooks` → 200 endpoint with its secret (and management token) shown once. With `agent_id` the
 *   caller must send that agent's wallet key; the endpoint then receives that agent's orders' events.
 * - `GET /api/v1/webhooks` lists the caller's endpoints; `GET|PATCH|DELETE /api/v1/webhooks/{id}` (owner).
 * - `GET /api/v1/webhooks/{id}/deliveries` (owner): every attempt, newest first.
 * - `POST /api/v1/webhooks/{id}/deliveries/{event_id}/retry` (owner) → 202: delivers the event again.
 */
import type { Context } from 'koa';
import type { WebhookDeliveryDoc, WebhookEndpointDoc } from '../../../db';
import { EVENT_CATALOGUE } from '../../../domain/events';
import { forbidden, notFound, problem, unauthorized } from '../../../errors';
import { bearerToken, isOperator } from '../../../http/auth';
import { WalletRepository } from '../../../repos/wallets';
import { WebhookRepository, activeSecrets } from '../../../repos/webhooks';
import { deliveryWorkflowId, startDelivery } from '../../../temporal/webhooks';
import { checkTarget } from '../../../webhooks/ssrf';
import { RETRY_SCHEDULE_MS } from '../../../../workflows/webhooks';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { webhookOperations as ops, type WebhookEndpoint } from './schema';

/** Public form of an endpoint; `secret` / `token` only when this request issued them. */
export function endpointView(e: WebhookEndpointDoc, issued: { secret?: string; token?: string } = {}): WebhookEndpoint {
  return {
    id: e._id,
    url: e.url,
    agent_id: e.agent_id,
    order_id: e.order_id,
    events: e.events,
    status: e.status,
    disabled_reason: e.disabled_reason,
    owner: e.owner,
    ...(issued.secret ? { secret: issued.secret } : {}),
    ...(issued.token ? { management_token: issued.token } : {}),
    secrets: activeSecrets(e, new Date()).map((s) => ({
      created_at: s.created_at.toISOString(),
      expires_at: s.expires_at?.toISOString() ?? null,
    })),
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

/** Public form of one delivery attempt. */
export function deliveryView(d: WebhookDeliveryDoc) {
  return {
    event_id: d.event_id,
    type: d.type,
    run: d.run,
    attempt: d.attempt,
    url: d.url,
    status: d.status,
    response_code: d.response_code,
    latency_ms: d.latency_ms,
    error: d.error,
    next_retry_at: d.next_retry_at?.toISOString() ?? null,
    at: d.at.toISOString(),
  };
}

/** Requires the agent key of `agentId`'s wallet. @throws ProblemError 401 without a key, 403 with a wrong one. */
async function requireAgentKey(ctx: Context, deps: AppDeps, agentId: string): Promise<void> {
  const token = bearerToken(ctx);
  if (!token)
    throw unauthorized(
      `Subscribing to agent ${agentId}'s orders needs its agent key as a Bearer token (GET /api/v1/wallets/${agentId} issues it)`,
    );
  const wallet = await deps.services.wallets.get(agentId);
  if (!wallet || !WalletRepository.keyMatches(wallet, token)) throw forbidden(`The key is not agent ${agentId}'s key`);
}

/**
 * Loads an endpoint its caller may manage: the operator, the holder of its management token, or (agent-owned
 * endpoints) the agent's wallet key. @throws ProblemError 404 (unknown, or not the caller's), 401 without a token.
 */
async function ownedEndpoint(ctx: Context, deps: AppDeps, id: string | undefined): Promise<WebhookEndpointDoc> {
  const endpoint = id ? await deps.services.webhooks.get(id) : null;
  if (!endpoint) throw notFound('webhook_not_found', `No webhook endpoint ${id}`);
  if (isOperator(ctx, deps.config.OPERATOR_KEY)) return endpoint;
  const token = bearerToken(ctx);
  if (!token)
    throw unauthorized('Managing a webhook endpoint needs its management token or the agent key as a Bearer token');
  if (WebhookRepository.tokenMatches(endpoint, token)) return endpoint;
  if (endpoint.owner === 'agent' && endpoint.agent_id) {
    const wallet = await deps.services.wallets.get(endpoint.agent_id);
    if (wallet && WalletRepository.keyMatches(wallet, token)) return endpoint;
  }
  throw forbidden(`The token does not manage webhook endpoint ${endpoint._id}`);
}

/** The webhook routes. */
export function webhookRoutes(deps: AppDeps): OperationRouter {
  const { webhooks } = deps.services;

  return new OperationRouter(deps)
    .on(ops.events, (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = {
        events: EVENT_CATALOGUE.map((e) => ({ ...e })),
        signing: {
          scheme:
            'Standard Webhooks 1.0: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"> keyed with the base64 part of whsec_<base64>',
          headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
        },
        retry_schedule_seconds: RETRY_SCHEDULE_MS.map((ms) => ms / 1000),
      };
    })
    .on(ops.register, async (ctx, input) => {
      const req = input.body;
      if (req.agent_id) await requireAgentKey(ctx, deps, req.agent_id);
      await checkTarget(req.url, deps.config.DEV_MODE);
      const created = await webhooks.register({
        url: req.url,
        agentId: req.agent_id ?? null,
        events: [...new Set(req.events ?? [])],
      });
      ctx.status = 200;
      ctx.set('Location', `/api/v1/webhooks/${created.endpoint._id}`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = endpointView(created.endpoint, created);
    })
    .on(ops.list, async (ctx) => {
      const token = bearerToken(ctx);
      if (!token)
        throw unauthorized('Listing webhook endpoints needs a management token or an agent key as a Bearer token');
      const walletId = await deps.services.wallets.idOfKey(token);
      const list = await webhooks.listOwned(token, walletId ? [walletId] : []);
      ctx.body = { webhooks: list.map((e) => endpointView(e)) };
    })
    .on(ops.get, async (ctx) => {
      ctx.body = endpointView(await ownedEndpoint(ctx, deps, ctx.params.id));
    })
    .on(ops.update, async (ctx, input) => {
      const endpoint = await ownedEndpoint(ctx, deps, ctx.params.id);
      const req = input.body;
      if (req.url !== undefined) await checkTarget(req.url, deps.config.DEV_MODE);
      const updated = await webhooks.update(endpoint._id, {
        ...(req.url !== undefined ? { url: req.url } : {}),
        ...(req.events !== undefined ? { events: [...new Set(req.events)] } : {}),
        ...(req.enabled !== undefined ? { enabled: req.enabled } : {}),
        ...(req.rotate_secret
          ? {
              rotate: true,
              ...(req.rotation_overlap_seconds !== undefined ? { overlapSeconds: req.rotation_overlap_seconds } : {}),
            }
          : {}),
      });
      if (!updated) throw notFound('webhook_not_found', `No webhook endpoint ${endpoint._id}`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = endpointView(updated.endpoint, updated.secret ? { secret: updated.secret } : {});
    })
    .on(ops.delete, async (ctx) => {
      const endpoint = await ownedEndpoint(ctx, deps, ctx.params.id);
      await webhooks.delete(endpoint._id);
      ctx.status = 204;
    })
    .on(ops.deliveries, async (ctx, input) => {
      const endpoint = await ownedEndpoint(ctx, deps, ctx.params.id);
      const { limit, event_id: eventId } = input.query;
      const list = await webhooks.deliveries(endpoint._id, { ...(eventId ? { eventId } : {}), limit });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { webhook_id: endpoint._id, deliveries: list.map(deliveryView) };
    })
    .on(ops.retry, async (ctx) => {
      const endpoint = await ownedEndpoint(ctx, deps, ctx.params.id);
      const eventId = ctx.params.event_id ?? '';
      const message = await webhooks.messageFor(eventId, endpoint._id);
      if (!message) throw notFound('webhook_event_not_found', `Event ${eventId} was never sent to ${endpoint._id}`);
      if (message.status === 'pending') {
        throw problem('invalid_state_transition', `Event ${eventId} is still being delivered`, {
          current_status: 'pending',
        });
      }
      if (endpoint.status !== 'enabled') {
        throw problem(
          'invalid_state_transition',
          `Endpoint ${endpoint._id} is disabled (${endpoint.disabled_reason}); re-enable it first`,
          {
            current_status: 'disabled',
          },
        );
      }
      const run = message.run + 1;
      await webhooks.setMessage(message._id, { status: 'pending', run });
      await startDelivery(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, {
        messageId: message._id,
        eventId: message.event_id,
        endpointId: endpoint._id,
        orderId: message.order_id,
        seq: message.seq,
        run,
      });
      ctx.status = 202;
      ctx.body = {
        event_id: message.event_id,
        webhook_id: endpoint._id,
        run,
        workflow_id: deliveryWorkflowId(message.event_id, endpoint._id, run),
      };
    });
}
