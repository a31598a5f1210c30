/**
 * Webhook endpoints (seed §2.6, §4, §6.1; issue 5 §1, §2): zod schemas and operation definitions (route, validation,
 * OpenAPI operation and the MCP tools `register_webhook`, `list_webhook_events` come from them).
 */
import { z } from 'zod';
import { isEventFilter } from '../../../domain/events';
import { defineOperation } from '../../operation';

const Time = (description: string) => z.string().meta({ description: `${description} (RFC 3339 time)` });

const EventFilter = z.string().max(64).refine(isEventFilter, {
  message: 'not a catalogued event type (GET /api/v1/webhooks/events), a group wildcard like order.* or *',
});

const TargetUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Body of `POST /api/v1/webhooks` (seed §2.6). */
export const WebhookRegistrationRequest = z
  .object({
    url: TargetUrl.meta({
      description: 'Receiver URL (http or https; public addresses only outside development mode)',
    }),
    agent_id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._:-]+$/)
      .optional()
      .meta({
        description: "Receive the events of this agent's orders; needs that agent's wallet key as Bearer token",
      }),
    events: z
      .array(EventFilter)
      .max(50)
      .optional()
      .meta({ description: 'Event types to receive (default: all); group wildcards such as order.* allowed' }),
  })
  .strict()
  .meta({ id: 'WebhookRegistrationRequest' });
export type WebhookRegistrationRequest = z.infer<typeof WebhookRegistrationRequest>;

/** Body of `PATCH /api/v1/webhooks/{id}`. */
export const WebhookUpdateRequest = z
  .object({
    url: TargetUrl.optional(),
    events: z.array(EventFilter).max(50).optional().meta({ description: 'Replaces the filter; [] means all events' }),
    enabled: z.boolean().optional().meta({ description: 'Re-enable a disabled endpoint (true) or pause it (false)' }),
    rotate_secret: z
      .boolean()
      .optional()
      .meta({ description: 'Issue a new secret; the current ones keep signing during the overlap' }),
    rotation_overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional()
      .meta({ description: 'How long the previous secrets keep signing after a rotation (default 86400)' }),
  })
  .strict()
  .meta({ id: 'WebhookUpdateRequest' });
export type WebhookUpdateRequest = z.infer<typeof WebhookUpdateRequest>;

/** A webhook endpoint as the API shows it; `secret` and `management_token` only when just issued. */
export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ description: 'Endpoint id (we_...)' }),
    url: z.string(),
    agent_id: z.string().nullable(),
    order_id: z.string().nullable().meta({ description: "Set on an order's own webhook_url endpoint" }),
    events: z.array(z.string()).meta({ description: 'Subscribed types; empty means all' }),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable(),
    owner: z
      .enum(['agent', 'token', 'order'])
      .meta({ description: "Who manages it: the agent's wallet key, or the endpoint's management token" }),
    secret: z
      .string()
      .optional()
      .meta({ description: 'Signing secret whsec_<base64>, shown once (registration, rotation)' }),
    management_token: z
      .string()
      .optional()
      .meta({ description: 'Bearer token that manages this endpoint, shown once' }),
    secrets: z
      .array(z.object({ created_at: Time('Issued'), expires_at: Time('Stops signing').nullable() }))
      .meta({ description: 'Secrets that currently sign, newest first (values not shown)' }),
    created_at: Time('Registration time'),
    updated_at: Time('Last change'),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** One delivery attempt (`GET /api/v1/webhooks/{id}/deliveries`). */
export const WebhookDelivery = z
  .object({
    event_id: z.string().meta({ description: 'Also the webhook-id header' }),
    type: z.string(),
    run: z.number().int().meta({ description: '0 original delivery, n the n-th manual retry' }),
    attempt: z.number().int().meta({ description: 'Attempt number within the run, from 1' }),
    url: z.string(),
    status: z.enum(['delivered', 'failed', 'gone']),
    response_code: z.number().int().nullable(),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
    next_retry_at: Time('Next attempt').nullable(),
    at: Time('Attempt time'),
  })
  .meta({ id: 'WebhookDelivery' });

/** The event catalogue document (`GET /api/v1/webhooks/events`). */
export const EventCatalogue = z
  .object({
    events: z.array(
      z.object({
        type: z.string(),
        group: z.string(),
        description: z.string(),
        status: z.string().optional(),
        emitted: z.boolean().meta({ description: 'False for types reserved for features still being built' }),
      }),
    ),
    signing: z.object({ scheme: z.string(), headers: z.array(z.string()) }),
    retry_schedule_seconds: z.array(z.number()),
  })
  .meta({ id: 'EventCatalogue' });

const EndpointPath = z.object({ id: z.string().meta({ description: 'Endpoint id (we_...)' }) });
/** One endpoint is managed by its management token, the agent that owns it (its agent key) or the operator. */
const OWNER_OR_OPERATOR = ['endpoint_owner', 'operator'] as const;
const read = { readOnlyHint: true, openWorldHint: false } as const;

/** The webhook operations. */
export const webhookOperations = {
  events: defineOperation({
    id: 'listWebhookEvents',
    method: 'get',
    path: '/api/v1/webhooks/events',
    summary: 'Webhook event catalogue, signing scheme and retry schedule',
    auth: 'none',
    responses: { '200': { description: 'Catalogue', json: EventCatalogue } },
    mcp: {
      name: 'list_webhook_events',
      title: 'Webhook event catalogue',
      description: 'Every webhook event type, the signing scheme and the retry schedule (GET /api/v1/webhooks/events).',
      annotations: read,
    },
  }),
  register: defineOperation({
    id: 'registerWebhook',
    method: 'post',
    path: '/api/v1/webhooks',
    summary: 'Register a webhook endpoint (secret shown once)',
    description:
      "With agent_id the endpoint receives that agent's orders' events, and the request needs that agent's key.",
    auth: ['none', 'agent_key'],
    request: { body: WebhookRegistrationRequest },
    responses: { '200': { description: 'Registered', json: WebhookEndpoint } },
    errors: {
      invalid_request: 'Invalid body or event name',
      webhook_target_forbidden: 'Target resolves to a non-public address',
    },
    mcp: {
      name: 'register_webhook',
      title: 'Register a webhook',
      description:
        "Registers a callback URL for order events (POST /api/v1/webhooks); with agent_id it receives that agent's orders' events and needs the agent key. The signing secret is shown once.",
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      credential: 'agent_key',
    },
  }),
  list: defineOperation({
    id: 'listWebhooks',
    method: 'get',
    path: '/api/v1/webhooks',
    summary: "The caller's endpoints",
    auth: 'endpoint_owner',
    responses: { '200': { description: 'Endpoints', json: z.object({ webhooks: z.array(WebhookEndpoint) }) } },
  }),
  get: defineOperation({
    id: 'getWebhook',
    method: 'get',
    path: '/api/v1/webhooks/{id}',
    summary: 'One endpoint (owner)',
    auth: OWNER_OR_OPERATOR,
    request: { params: EndpointPath },
    responses: { '200': { description: 'Endpoint', json: WebhookEndpoint } },
    errors: { webhook_not_found: 'Unknown endpoint' },
  }),
  update: defineOperation({
    id: 'updateWebhook',
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    summary: 'Change url, events or state; rotate the secret with an overlap (owner)',
    auth: OWNER_OR_OPERATOR,
    request: { params: EndpointPath, body: WebhookUpdateRequest },
    responses: { '200': { description: 'Updated; a rotated secret is shown once', json: WebhookEndpoint } },
    errors: { webhook_not_found: 'Unknown endpoint', webhook_target_forbidden: 'Target not allowed' },
  }),
  delete: defineOperation({
    id: 'deleteWebhook',
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    summary: 'Delete an endpoint (owner)',
    auth: OWNER_OR_OPERATOR,
    request: { params: EndpointPath },
    responses: { '204': { description: 'Deleted' } },
    errors: { webhook_not_found: 'Unknown endpoint' },
  }),
  deliveries: defineOperation({
    id: 'listWebhookDeliveries',
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    summary: 'Every delivery attempt, newest first (owner)',
    auth: OWNER_OR_OPERATOR,
    request: {
      params: EndpointPath,
      query: z.object({
        event_id: z.string().optional(),
        limit: z.coerce
          .number()
          .int()
          .min(1)
          .max(500)
          .default(100)
          .meta({ description: 'At most this many attempts (1 to 500, default 100)' }),
      }),
    },
    responses: {
      '200': {
        description: 'Attempts',
        json: z.object({ webhook_id: z.string(), deliveries: z.array(WebhookDelivery) }),
      },
    },
    errors: { webhook_not_found: 'Unknown endpoint', invalid_request: 'limit not an integer from 1 to 500' },
  }),
  retry: defineOperation({
    id: 'retryWebhookDelivery',
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{event_id}/retry',
    summary: 'Send an event again (owner)',
    auth: OWNER_OR_OPERATOR,
    request: { params: EndpointPath.extend({ event_id: z.string() }) },
    responses: { '202': { description: 'Redelivery started' } },
    errors: {
      webhook_not_found: 'Unknown endpoint',
      webhook_event_not_found: 'The event was never sent to this endpoint',
      invalid_state_transition: 'Still pending, or the endpoint is disabled',
    },
  }),
};
