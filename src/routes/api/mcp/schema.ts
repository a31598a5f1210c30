/**
 * `/mcp` (seed §4, issue 12 §1): MCP over Streamable HTTP, stateless. Operation definitions (src/routes/operation.ts);
 * the JSON-RPC methods themselves are described by the MCP server (tools/list, resources/list, ...).
 */
import { z } from 'zod';
import { defineOperation, problemResponse } from '../../operation';

/** A JSON-RPC error answer of /mcp. */
const JsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .meta({ id: 'JsonRpcError' });

const notAllowed = {
  summary: 'Not served: this MCP server is stateless (no SSE stream, no sessions); POST JSON-RPC messages to /mcp',
  auth: 'none',
  responses: { '405': { description: 'Method not allowed (Allow: POST), as a JSON-RPC error', json: JsonRpcError } },
} as const;

// The JSON-RPC message is read by the MCP server, whose refusals are JSON-RPC errors: documented, not parsed here.
const MCP_REQUEST = {
  content: {
    'application/json': {
      schema: z.object({
        jsonrpc: z.literal('2.0'),
        id: z.union([z.string(), z.number()]).optional(),
        method: z.string(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    },
  },
};

/** The answers of an MCP endpoint. */
const MCP_RESPONSES = {
  '200': {
    description: 'JSON-RPC response (application/json, or text/event-stream when a tool call sends notifications)',
  },
  '202': { description: 'Notification accepted' },
  '400': {
    description:
      'JSON-RPC error (issue 12 §1, 2026-07-28): _meta without protocol version or client capabilities (-32602), MCP-Protocol-Version, Mcp-Method or Mcp-Name not matching the body (-32020), a missing client capability (-32021), an unsupported version (-32022); or a malformed body (problem detail)',
    json: JsonRpcError,
    content: problemResponse('').content,
  },
  '403': { description: "A browser Origin other than the service's own", json: JsonRpcError },
  '404': {
    description:
      'Unknown or removed method (2026-07-28: initialize, ping, logging/setLevel, resources/subscribe and unsubscribe), -32601',
    json: JsonRpcError,
  },
  '406': {
    description: 'The Accept header does not allow application/json and text/event-stream (Streamable HTTP)',
  },
} as const;

/** The /mcp operations. */
export const mcpOperations = {
  post: defineOperation({
    id: 'mcp',
    method: 'post',
    path: '/mcp',
    summary:
      'MCP over Streamable HTTP (stateless): tools, resources, prompts, completion, logging; 2025-11-25 (initialize) and 2026-07-28 (server/discover, per-request _meta)',
    auth: 'none',
    request: MCP_REQUEST,
    responses: MCP_RESPONSES,
  }),
  get: defineOperation({ id: 'mcpGet', method: 'get', path: '/mcp', ...notAllowed }),
  ucpPost: defineOperation({
    id: 'ucpMcp',
    method: 'post',
    path: '/ucp/mcp',
    summary:
      "UCP's shopping service over MCP (source/services/shopping/mcp.openrpc.json), as /.well-known/ucp names it: the checkout tools and get_order. Each request signed by the platform (RFC 9421, UCP-Agent)",
    auth: 'none',
    request: MCP_REQUEST,
    responses: MCP_RESPONSES,
  }),
  delete: defineOperation({ id: 'mcpDelete', method: 'delete', path: '/mcp', ...notAllowed }),
};
