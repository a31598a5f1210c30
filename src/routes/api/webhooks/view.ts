/** Public forms of webhook endpoints and their delivery attempts (seed §2.6, §6.1; issue 5). */
import type { WebhookDeliveryDoc, WebhookEndpointDoc } from '../../../db';
import { activeSecrets } from '../../../repos/webhooks';
import type { WebhookEndpoint } from './schema';

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
