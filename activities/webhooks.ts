/**
 * Webhook activities: make one signed delivery attempt, and settle a message. Only this module sends webhooks; the
 * fan-out that creates the messages and starts their delivery workflows is src/webhooks/fanOut.ts.
 *
 * Delivery workflows are started and nudged through the `deliveries` port (the worker wires src/temporal/webhooks.ts
 * `DeliveryWorkflows` on its own connection and task queue), so activities never import the Temporal client layer.
 *
 * Source: issue 5 §2; ../shared/reference/api-conventions.md (Standard Webhooks).
 */
import type { OrderRepository } from '../src/repos/orders';
import { type WebhookRepository, activeSecrets } from '../src/repos/webhooks';
import type { DeliveryInput } from '../src/domain/events';
import type { FanOutPorts } from '../src/webhooks/fanOut';
import { sendWebhook } from '../src/webhooks/send';
import { signatureHeader } from '../src/webhooks/signing';
import { merchantSignature } from '../src/webhooks/acp';
import { ucpWebhookHeaders } from '../src/webhooks/ucp';
import type { MessageSigner } from '../src/ucp/signatures';
import { whileHeartbeating } from './heartbeat';

export { createWebhookFanOut, type DeliveryStarter, type FanOutItem } from '../src/webhooks/fanOut';

/** What the webhook activities need. `allowPrivateTargets` is DEV_MODE (SSRF guard off). */
export interface WebhookPorts extends FanOutPorts {
  webhooks: WebhookRepository;
  orders: OrderRepository;
  allowPrivateTargets: boolean;
  /** This business's signing key (a key of its UCP profile), for UCP platforms' order events; absent: none sent. */
  ucpSigner?: () => Promise<MessageSigner>;
}

/** Outcome of one attempt as the workflow sees it. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'failed'; status: number | null; retryInMs: number | null }
  | { kind: 'stop'; reason: string };

/** Builds the activities of {@link webhookDeliveryWorkflow} (workflows/webhooks.ts). */
export function createWebhookActivities(ports: WebhookPorts) {
  return {
    /** True while an earlier event of the same order is still pending for the same endpoint. */
    async hasPendingPredecessor(input: DeliveryInput): Promise<boolean> {
      if (input.orderId === null) return false;
      return (await ports.webhooks.pendingBefore(input.endpointId, input.orderId, input.seq)) !== null;
    },

    /**
     * One signed POST of the message to the endpoint's current URL; records the attempt in `webhook_deliveries`.
     * 2xx: delivered. 410: the endpoint is disabled and delivery stops. Otherwise the next attempt is due after
     * `nextDelayMs` or the receiver's Retry-After, whichever is later (null: the schedule is exhausted).
     */
    async attemptDelivery(
      input: DeliveryInput & { attempt: number; nextDelayMs: number | null },
    ): Promise<AttemptOutcome> {
      const [message, endpoint] = await Promise.all([
        ports.webhooks.message(input.messageId),
        ports.webhooks.get(input.endpointId),
      ]);
      if (!message) return { kind: 'stop', reason: 'message_missing' };
      if (!endpoint) return { kind: 'stop', reason: 'endpoint_deleted' };
      if (endpoint.status !== 'enabled') return { kind: 'stop', reason: 'endpoint_disabled' };
      const now = new Date();
      const timestamp = Math.floor(now.getTime() / 1000);
      const secrets = activeSecrets(endpoint, now).map((s) => s.secret);
      // An ACP platform's endpoint: ACP's Merchant-Signature (openapi.agentic_checkout_webhook.yaml) with its secret.
      if (endpoint.format === 'ucp' && !ports.ucpSigner) return { kind: 'stop', reason: 'no_ucp_signer' };
      const headers: Record<string, string> =
        endpoint.format === 'ucp' && ports.ucpSigner
          ? await ucpWebhookHeaders(
              await ports.ucpSigner(),
              endpoint.url,
              message.payload,
              message.event_id,
              timestamp,
              ports.publicBaseUrl,
            )
          : endpoint.format === 'acp'
            ? {
                'content-type': 'application/json',
                'user-agent': 'agent-commerce-webhooks/1.0',
                'request-id': message._id,
                timestamp: now.toISOString(),
                'merchant-signature': merchantSignature(secrets[0] ?? '', timestamp, message.payload),
              }
            : {
                'content-type': 'application/json',
                'user-agent': 'agent-commerce-webhooks/1.0',
                'webhook-id': message.event_id,
                'webhook-timestamp': String(timestamp),
                'webhook-signature': signatureHeader(secrets, message.event_id, timestamp, message.payload),
              };
      // Heartbeats while the receiver answers (up to 15 s): a worker that dies here is noticed in seconds.
      const res = await whileHeartbeating(() =>
        sendWebhook(endpoint.url, message.payload, headers, ports.allowPrivateTargets),
      );
      const ok = res.status !== null && res.status >= 200 && res.status < 300;
      const gone = res.status === 410;
      let retryInMs: number | null = null;
      if (!ok && !gone && !res.forbidden && input.nextDelayMs !== null)
        retryInMs = Math.max(input.nextDelayMs, res.retryAfterMs ?? 0);
      const error = res.error ?? (ok ? null : `HTTP ${res.status}`);
      await ports.webhooks.recordAttempt({
        _id: `${message._id}~${input.run}~${input.attempt}`,
        message_id: message._id,
        event_id: message.event_id,
        endpoint_id: endpoint._id,
        type: message.type,
        run: input.run,
        attempt: input.attempt,
        url: endpoint.url,
        status: ok ? 'delivered' : gone ? 'gone' : 'failed',
        response_code: res.status,
        latency_ms: res.latencyMs,
        error,
        next_retry_at: retryInMs === null ? null : new Date(Date.now() + retryInMs),
        at: now,
      });
      await ports.webhooks.setMessage(message._id, { attempts: message.attempts + 1, last_error: error });
      if (ok) return { kind: 'delivered', status: res.status ?? 200 };
      if (gone) {
        await ports.webhooks.disable(endpoint._id, 'the receiver answered 410 Gone');
        return { kind: 'stop', reason: 'gone' };
      }
      if (res.forbidden) return { kind: 'stop', reason: 'forbidden_target' };
      return { kind: 'failed', status: res.status, retryInMs };
    },

    /** Marks the message delivered or failed and nudges the next pending message of the same order and endpoint. */
    async settleMessage(input: DeliveryInput & { status: 'delivered' | 'failed'; reason?: string }): Promise<void> {
      await ports.webhooks.setMessage(input.messageId, {
        status: input.status,
        ...(input.reason ? { last_error: input.reason } : {}),
      });
      if (input.orderId === null) return;
      const next = await ports.webhooks.pendingAfter(input.endpointId, input.orderId, input.seq);
      if (!next) return;
      await ports.deliveries.predecessorSettled(next.event_id, next.endpoint_id);
    },
  };
}

/** The webhook activity interface the delivery workflow proxies (type only). */
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
