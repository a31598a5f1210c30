/**
 * zod schemas of the webhook API: they validate requests, type the handlers and describe the MCP tool
 * `register_webhook` (one source for REST and MCP).
 *
 * Source: seed §2.6 (registration request), §6.1; issue 5 §1, §2.
 */
import { z } from 'zod';
import { isEventFilter } from '../domain/events';

const Time = (description: string) => z.string().meta({ description: `${description} (RFC 3339 time)` });

const EventFilter = z
  .string()
  .max(64)
  .refine(isEventFilter, { message: 'not a catalogued event type (GET /api/v1/webhooks/events), a group wildcard like order.* or *' });

const TargetUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Body of `POST /api/v1/webhooks` (seed §2.6). */
export const WebhookRegistrationRequest = z
  .object({
    url: TargetUrl.meta({ description: 'Receiver URL (http or https; public addresses only outside development mode)' }),
    agent_id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._:-]+$/)
      .optional()
      .meta({ description: "Receive the events of this agent's orders; needs that agent's wallet key as Bearer token" }),
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
    rotate_secret: z.boolean().optional().meta({ description: 'Issue a new secret; the current ones keep signing during the overlap' }),
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
    owner: z.enum(['agent', 'token', 'order']).meta({ description: "Who manages it: the agent's wallet key, or the endpoint's management token" }),
    secret: z.string().optional().meta({ description: 'Signing secret whsec_<base64>, shown once (registration, rotation)' }),
    management_token: z.string().optional().meta({ description: 'Bearer token that manages this endpoint, shown once' }),
    secrets: z.array(z.object({ created_at: Time('Issued'), expires_at: Time('Stops signing').nullable() })).meta({ description: 'Secrets that currently sign, newest first (values not shown)' }),
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
