/**
 * OpenAPI paths of the webhook API and `/mcp`, built from the same zod schemas that validate the requests
 * (src/routes/webhookSchemas.ts). Source: issue 5; seed §4.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { EventCatalogue, WebhookDelivery, WebhookEndpoint, WebhookRegistrationRequest, WebhookUpdateRequest } from './webhookSchemas';

/** The helpers of src/routes/openapi.ts, passed in so every path renders problems the same way. */
export interface OpenApiHelpers {
  op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject;
  json(schema: z.ZodType): { content: { 'application/json': { schema: z.ZodType } } };
  problem(description: string): { description: string; content: { 'application/problem+json': { schema: z.ZodType } } };
}

/** The buyer's credential on actions that change an order (issue 10 §1). */
export const buyerAuthorization = z
  .string()
  .optional()
  .meta({ description: "Bearer <the agent key of the order's agent_id, or the order secret (os_...) of an order without one>" });

/** 401 and 403 of an action only the buyer may take. */
export const buyerOnlyResponses = <P>(problem: (description: string) => P): Record<'401' | '403', P> => ({
  '401': problem("No credential: send the buyer's"),
  '403': problem("Not the buyer's credential"),
});

const bearer = z.string().optional().meta({ description: 'Bearer management token (wht_...) or the agent key (ak_...)' });

/** A JSON-RPC error answer of /mcp. */
const JsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({ id: 'JsonRpcError' });

/** `/api/v1/webhooks*` and `/mcp` path items. */
export function webhookOpenApiPaths({ op, json, problem }: OpenApiHelpers): ZodOpenApiPathsObject {
  const id = z.object({ id: z.string().meta({ description: 'Endpoint id (we_...)' }) });
  const owner = { header: z.object({ Authorization: bearer }) };
  const ownerOnly = { '401': problem('Management token or agent key required'), '403': problem('The token does not manage this endpoint') };
  return {
    '/api/v1/webhooks/events': {
      get: op({ summary: 'Webhook event catalogue, signing scheme and retry schedule', responses: { '200': { description: 'Catalogue', ...json(EventCatalogue) } } }),
    },
    '/api/v1/webhooks': {
      post: op({
        summary: 'Register a webhook endpoint (secret shown once)',
        requestParams: { header: z.object({ Authorization: z.string().optional().meta({ description: 'Bearer agent key, required with agent_id' }) }) },
        requestBody: json(WebhookRegistrationRequest),
        responses: {
          '200': { description: 'Registered', ...json(WebhookEndpoint) },
          '400': problem('Invalid body or event name'),
          '401': problem('agent_id given without the agent key'),
          '403': problem('Wrong agent key'),
          '422': problem('Target resolves to a non-public address (webhook_target_forbidden)'),
        },
      }),
      get: op({
        summary: "The caller's endpoints",
        requestParams: owner,
        responses: { '200': { description: 'Endpoints', ...json(z.object({ webhooks: z.array(WebhookEndpoint) })) }, '401': problem('Token required') },
      }),
    },
    '/api/v1/webhooks/{id}': {
      get: op({ summary: 'One endpoint (owner)', requestParams: { path: id, ...owner }, responses: { '200': { description: 'Endpoint', ...json(WebhookEndpoint) }, ...ownerOnly, '404': problem('Unknown endpoint') } }),
      patch: op({
        summary: 'Change url, events or state; rotate the secret with an overlap (owner)',
        requestParams: { path: id, ...owner },
        requestBody: json(WebhookUpdateRequest),
        responses: { '200': { description: 'Updated; a rotated secret is shown once', ...json(WebhookEndpoint) }, ...ownerOnly, '404': problem('Unknown endpoint'), '422': problem('Target not allowed') },
      }),
      delete: op({ summary: 'Delete an endpoint (owner)', requestParams: { path: id, ...owner }, responses: { '204': { description: 'Deleted' }, ...ownerOnly, '404': problem('Unknown endpoint') } }),
    },
    '/api/v1/webhooks/{id}/deliveries': {
      get: op({
        summary: 'Every delivery attempt, newest first (owner)',
        requestParams: { path: id, ...owner, query: z.object({ event_id: z.string().optional(), limit: z.number().int().min(1).max(500).optional() }) },
        responses: { '200': { description: 'Attempts', ...json(z.object({ webhook_id: z.string(), deliveries: z.array(WebhookDelivery) })) }, ...ownerOnly, '404': problem('Unknown endpoint') },
      }),
    },
    '/api/v1/webhooks/{id}/deliveries/{event_id}/retry': {
      post: op({
        summary: 'Send an event again (owner)',
        requestParams: { path: id.extend({ event_id: z.string() }), ...owner },
        responses: { '202': { description: 'Redelivery started' }, ...ownerOnly, '404': problem('Unknown endpoint or event'), '409': problem('Still pending, or the endpoint is disabled') },
      }),
    },
    '/mcp': {
      post: op({
        summary:
          'MCP over Streamable HTTP (stateless): tools, resources, prompts, completion, logging; 2025-11-25 (initialize) and 2026-07-28 (server/discover, per-request _meta)',
        requestBody: json(z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).optional(), method: z.string(), params: z.record(z.string(), z.unknown()).optional() })),
        responses: {
          '200': { description: 'JSON-RPC response (application/json, or text/event-stream when a tool call sends notifications)' },
          '202': { description: 'Notification accepted' },
          '400': {
            description:
              'JSON-RPC error (issue 12 §1, 2026-07-28): _meta without protocol version or client capabilities (-32602), MCP-Protocol-Version, Mcp-Method or Mcp-Name not matching the body (-32020), a missing client capability (-32021), an unsupported version (-32022); or a malformed body (problem detail)',
            content: { 'application/json': { schema: JsonRpcError }, 'application/problem+json': { schema: problem('').content['application/problem+json'].schema } },
          },
          '403': { description: 'A browser Origin other than the service\'s own', content: { 'application/json': { schema: JsonRpcError } } },
          '404': { description: 'Unknown or removed method (2026-07-28: initialize, ping, logging/setLevel, resources/subscribe and unsubscribe), -32601', content: { 'application/json': { schema: JsonRpcError } } },
          '406': { description: 'The Accept header does not allow application/json and text/event-stream (Streamable HTTP)' },
        },
      }),
    },
  };
}
