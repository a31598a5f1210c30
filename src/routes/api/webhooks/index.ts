/**
 * Webhook endpoints (seed §2.6, §4, §6.1; issue 5), registered from their definitions in ./schema.ts:
 * - `GET /api/v1/webhooks/events`: the event catalogue, signing scheme and retry schedule.
 * - `POST /api/v1/webhooks` → 200 endpoint with its secret (and management token) shown once. With `agent_id` the
 *   caller must send that agent's wallet key; the endpoint then receives that agent's orders' events.
 * - `GET /api/v1/webhooks` lists the caller's endpoints; `GET|PATCH|DELETE /api/v1/webhooks/{id}` (owner).
 * - `GET /api/v1/webhooks/{id}/deliveries` (owner): every attempt, newest first.
 * - `POST /api/v1/webhooks/{id}/deliveries/{event_id}/retry` (owner) → 202: delivers the event again.
 * Who may do what is ./policy.ts; the public forms ./view.ts.
 */
import { EVENT_CATALOGUE } from '../../../domain/events';
import { notFound, problem } from '../../../errors';
import { deliveryWorkflowId, startDelivery } from '../../../temporal/webhooks';
import { checkTarget } from '../../../webhooks/ssrf';
import { idempotentCreation, type IdempotentCreation } from '../../../http/idempotency';
import { RETRY_SCHEDULE_MS } from '../../../../workflows/webhooks';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { endpointGate, listGate, registrationGate } from './policy';
import { webhookOperations as ops } from './schema';
import { deliveryView, endpointView } from './view';

/** The id, secret and token bytes of an endpoint registered under an Idempotency-Key (issue 36). */
export const webhookNames = (c: IdempotentCreation) => ({
  id: c.name('webhook'),
  secret: c.bytes('webhook secret', 32),
  token: c.bytes('webhook token', 24),
});

/** The webhook routes. */
export function webhookRoutes(deps: AppDeps): OperationRouter {
  const { webhooks } = deps.services;
  const owned = endpointGate(deps);

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
    .on(ops.register, registrationGate(deps), async (ctx, input) => {
      const req = input.body;
      await checkTarget(req.url, deps.config.DEV_MODE);
      // With an Idempotency-Key, a retry after a crash returns the endpoint (and credentials) the first one made.
      const creation = idempotentCreation(ctx);
      const created = await webhooks.register({
        url: req.url,
        agentId: req.agent_id ?? null,
        events: [...new Set(req.events ?? [])],
        ...(creation ? { named: webhookNames(creation) } : {}),
      });
      ctx.status = 200;
      ctx.set('Location', `/api/v1/webhooks/${created.endpoint._id}`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = endpointView(created.endpoint, created);
    })
    .on(ops.list, listGate(), async (ctx, _input, _none, { actor }) => {
      const token = actor.token ?? '';
      const walletId = await deps.services.wallets.idOfKey(token);
      const list = await webhooks.listOwned(token, walletId ? [walletId] : []);
      ctx.body = { webhooks: list.map((e) => endpointView(e)) };
    })
    .on(ops.get, owned, (ctx, _input, endpoint) => {
      ctx.body = endpointView(endpoint);
    })
    .on(ops.update, owned, async (ctx, input, endpoint) => {
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
    .on(ops.delete, owned, async (ctx, _input, endpoint) => {
      await webhooks.delete(endpoint._id);
      ctx.status = 204;
    })
    .on(ops.deliveries, owned, async (ctx, input, endpoint) => {
      const { limit, event_id: eventId } = input.query;
      const list = await webhooks.deliveries(endpoint._id, { ...(eventId ? { eventId } : {}), limit });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { webhook_id: endpoint._id, deliveries: list.map(deliveryView) };
    })
    .on(ops.retry, owned, async (ctx, { params }, endpoint) => {
      const eventId = params.event_id;
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
