/**
 * The paid resources of seed §2.13 (path, price, method, description) and the `bazaar` discovery declarations
 * (input and output JSON Schema, x402 specs/extensions/bazaar.md) of every x402 resource the service sells.
 *
 * Methods and request shapes (the seed leaves them open; decided here):
 * - `GET /x402/item/{id}`: no body (seed §6.3);
 * - `GET /x402/template?sku=<sku>`: the sku in the query, so the 402 for a named sku quotes its own price;
 * - `POST /x402/audit`: the n8n workflow JSON as the body (or `{"workflow": {...}}`);
 * - `GET /x402/agent-starter`, `GET /x402/obs/tick`, `GET /x402/obs/agents`, `GET /x402/obs/methodology`: no input;
 * - `POST /x402/orders/{order_id}`: no body; pays that order's amount (issue 3 §8).
 */
import type { BazaarDeclaration } from '../../x402/koa';

/** One paid resource of seed §2.13. `price_micros` null for per-item prices (templates). */
export interface PaidResourceDefinition {
  path: string;
  method: 'GET' | 'POST';
  kind: string;
  price_usd: number | null;
  price_micros: number | null;
  priced_per_item: boolean;
  description: string;
}

/** Seed §2.13 "Paid resources", in the seed's order. */
export const PAID_RESOURCES: readonly PaidResourceDefinition[] = Object.freeze([
  {
    path: '/x402/template',
    method: 'GET',
    kind: 'template',
    price_usd: null,
    price_micros: null,
    priced_per_item: true,
    description:
      'One automation template (n8n workflow JSON), delivered instantly; 18 templates, each with its own price: name one with ?sku=',
  },
  {
    path: '/x402/audit',
    method: 'POST',
    kind: 'audit',
    price_usd: 49,
    price_micros: 49_000_000,
    priced_per_item: false,
    description:
      'Written report on one n8n workflow you POST: unknown node types, missing trigger, disconnected nodes, error handling, secrets in parameters and more',
  },
  {
    path: '/x402/agent-starter',
    method: 'GET',
    kind: 'agent_starter',
    price_usd: 149,
    price_micros: 149_000_000,
    priced_per_item: false,
    description: 'Three n8n templates that connect an agent to this service, plus integration notes',
  },
  {
    path: '/x402/obs/tick',
    method: 'GET',
    kind: 'obs_tick',
    price_usd: 0.001,
    price_micros: 1_000,
    priced_per_item: false,
    description:
      'One small JSON reading of agent traffic: agent visits, distinct identities, share hitting a single endpoint; metered for repeated sampling',
  },
  {
    path: '/x402/obs/agents',
    method: 'GET',
    kind: 'obs_agents',
    price_usd: 0.3,
    price_micros: 300_000,
    priced_per_item: false,
    description: 'JSON snapshot of agent behaviour over 24 hours with methodology and limits attached',
  },
  {
    path: '/x402/obs/methodology',
    method: 'GET',
    kind: 'obs_methodology',
    price_usd: 0.1,
    price_micros: 100_000,
    priced_per_item: false,
    description: 'How the observation feed is measured, exclusions, sampling caveats',
  },
] as const satisfies readonly PaidResourceDefinition[]);

/** A paid resource by path. */
export function paidResource(path: string): PaidResourceDefinition {
  const r = PAID_RESOURCES.find((p) => p.path === path);
  if (!r) throw new Error(`no paid resource ${path}`);
  return r;
}

type JsonSchema = Record<string, unknown>;
const S = '$schema';
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/** Builds a bazaar declaration whose `schema` validates its `info` (input shape, output example against `outputSchema`). */
function bazaar(
  input:
    | { method: 'GET'; queryParams?: Record<string, string>; querySchema?: JsonSchema }
    | { method: 'POST'; body: unknown; bodySchema: JsonSchema },
  output: { example: unknown; schema: JsonSchema },
): BazaarDeclaration {
  const inputInfo =
    input.method === 'GET'
      ? { type: 'http', method: 'GET', ...(input.queryParams ? { queryParams: input.queryParams } : {}) }
      : { type: 'http', method: 'POST', bodyType: 'json', body: input.body };
  const inputSchema: JsonSchema =
    input.method === 'GET'
      ? {
          type: 'object',
          properties: {
            type: { type: 'string', const: 'http' },
            method: { type: 'string', enum: ['GET'] },
            ...(input.querySchema ? { queryParams: input.querySchema } : {}),
            headers: { type: 'object', additionalProperties: { type: 'string' } },
          },
          required: ['type', 'method', ...(input.querySchema ? ['queryParams'] : [])],
          additionalProperties: false,
        }
      : {
          type: 'object',
          properties: {
            type: { type: 'string', const: 'http' },
            method: { type: 'string', enum: ['POST'] },
            bodyType: { type: 'string', enum: ['json'] },
            body: input.bodySchema,
            headers: { type: 'object', additionalProperties: { type: 'string' } },
          },
          required: ['type', 'method', 'bodyType', 'body'],
          additionalProperties: false,
        };
  return {
    info: { input: inputInfo, output: { type: 'json', example: output.example } },
    schema: {
      [S]: DRAFT,
      type: 'object',
      properties: {
        input: inputSchema,
        output: {
          type: 'object',
          properties: { type: { type: 'string', const: 'json' }, example: output.schema },
          required: ['type'],
        },
      },
      required: ['input'],
    },
  };
}

/** Schema of the `payment` receipt every paid 200 carries. */
const ReceiptSchema: JsonSchema = {
  type: 'object',
  properties: {
    payment_id: { type: 'string' },
    status: { type: 'string', enum: ['settled'] },
    transaction: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
    network: { type: 'string' },
    payer: { type: 'string' },
    amount: { type: 'number' },
    amount_micros: { type: 'integer' },
    asset: { type: 'string' },
    pay_to: { type: 'string' },
  },
};

const WorkflowSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    nodes: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          typeVersion: { type: 'number' },
          parameters: { type: 'object' },
        },
        required: ['name', 'type'],
      },
    },
    connections: { type: 'object' },
    settings: { type: 'object' },
  },
  required: ['nodes', 'connections'],
};

/** Bazaar declaration of `GET /x402/item/{id}`. */
export const ITEM_BAZAAR = bazaar(
  { method: 'GET' },
  {
    example: {
      item: { id: 'recipe-typeform-to-slack', kind: 'recipe', title: 'Typeform to Slack', price: 0.99 },
      file: 'recipe-typeform-to-slack.json',
      media_type: 'application/json',
      sha256: '…',
      content: { nodes: [], connections: {} },
    },
    schema: {
      type: 'object',
      properties: {
        item: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            kind: { type: 'string', enum: ['recipe', 'prompt_pack', 'schema', 'tool'] },
            title: { type: 'string' },
            price: { type: 'number' },
          },
          required: ['id', 'kind'],
        },
        file: { type: 'string' },
        media_type: { type: 'string' },
        sha256: { type: 'string' },
        content: {},
        payment: ReceiptSchema,
      },
      required: ['item', 'content'],
    },
  },
);

/** Bazaar declaration of `GET /x402/template?sku=`. */
export const TEMPLATE_BAZAAR = bazaar(
  {
    method: 'GET',
    queryParams: { sku: 'tpl-webhook-lead-to-hubspot' },
    querySchema: {
      type: 'object',
      properties: { sku: { type: 'string', pattern: '^tpl-[a-z0-9-]+$' } },
      required: ['sku'],
    },
  },
  {
    example: {
      template: {
        sku: 'tpl-webhook-lead-to-hubspot',
        title: 'Website lead form to HubSpot with Slack ping',
        price_usd: 19,
      },
      file: 'tpl-webhook-lead-to-hubspot.json',
      workflow: { name: '…', nodes: [], connections: {} },
    },
    schema: {
      type: 'object',
      properties: {
        template: {
          type: 'object',
          properties: {
            sku: { type: 'string' },
            title: { type: 'string' },
            price_usd: { type: 'number' },
            credentials_needed: { type: 'array', items: { type: 'string' } },
          },
          required: ['sku', 'price_usd'],
        },
        file: { type: 'string' },
        sha256: { type: 'string' },
        workflow: WorkflowSchema,
        payment: ReceiptSchema,
      },
      required: ['template', 'workflow'],
    },
  },
);

/** Bazaar declaration of `POST /x402/audit`. */
export const AUDIT_BAZAAR = bazaar(
  {
    method: 'POST',
    body: {
      name: 'My workflow',
      nodes: [{ name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: {} }],
      connections: {},
    },
    bodySchema: WorkflowSchema,
  },
  {
    example: {
      summary: { score: 83, grade: 'B', errors: 0, warnings: 2, infos: 1 },
      findings: [{ rule: 'webhook_without_auth', severity: 'warning', node: 'Webhook' }],
      report: '# Workflow audit…',
    },
    schema: {
      type: 'object',
      properties: {
        summary: {
          type: 'object',
          properties: {
            score: { type: 'integer', minimum: 0, maximum: 100 },
            grade: { type: 'string' },
            errors: { type: 'integer' },
            warnings: { type: 'integer' },
            infos: { type: 'integer' },
          },
          required: ['score', 'grade'],
        },
        findings: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              rule: { type: 'string' },
              severity: { enum: ['error', 'warning', 'info'] },
              node: { type: ['string', 'null'] },
              message: { type: 'string' },
              fix: { type: 'string' },
            },
            required: ['rule', 'severity', 'message'],
          },
        },
        checked_against: { type: 'object' },
        report: { type: 'string' },
        payment: ReceiptSchema,
      },
      required: ['summary', 'findings', 'report'],
    },
  },
);

/** Bazaar declaration of `GET /x402/agent-starter`. */
export const AGENT_STARTER_BAZAAR = bazaar(
  { method: 'GET' },
  {
    example: {
      bundle: 'agent-starter',
      templates: [{ id: 'starter-order-intake', title: '…', workflow: {} }],
      integration_notes: [{ title: 'Ordering', body: '…' }],
    },
    schema: {
      type: 'object',
      properties: {
        bundle: { const: 'agent-starter' },
        templates: {
          type: 'array',
          minItems: 3,
          maxItems: 3,
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, title: { type: 'string' }, workflow: { type: 'object' } },
            required: ['id', 'workflow'],
          },
        },
        integration_notes: {
          type: 'array',
          items: {
            type: 'object',
            properties: { title: { type: 'string' }, body: { type: 'string' } },
            required: ['title', 'body'],
          },
        },
        payment: ReceiptSchema,
      },
      required: ['templates', 'integration_notes'],
    },
  },
);

/** Bazaar declaration of `GET /x402/obs/tick`. */
export const OBS_TICK_BAZAAR = bazaar(
  { method: 'GET' },
  {
    example: { reading: 'agent-traffic-tick', agent_visits: 42, distinct_identities: 7, single_endpoint_share: 0.2857 },
    schema: {
      type: 'object',
      properties: {
        reading: { const: 'agent-traffic-tick' },
        at: { type: 'string' },
        window: { type: 'object' },
        agent_visits: { type: 'integer', minimum: 0 },
        distinct_identities: { type: 'integer', minimum: 0 },
        single_endpoint_share: { type: ['number', 'null'], minimum: 0, maximum: 1 },
        payment: ReceiptSchema,
      },
      required: ['agent_visits', 'distinct_identities', 'single_endpoint_share'],
    },
  },
);

/** Bazaar declaration of `GET /x402/obs/agents`. */
export const OBS_AGENTS_BAZAAR = bazaar(
  { method: 'GET' },
  {
    example: {
      snapshot: 'agent-behaviour',
      totals: { agent_visits: 420, distinct_identities: 31 },
      methodology: { document: 'observation-feed-methodology' },
    },
    schema: {
      type: 'object',
      properties: {
        snapshot: { const: 'agent-behaviour' },
        totals: { type: 'object' },
        clients: { type: 'array' },
        endpoints: { type: 'array' },
        x402_funnel: { type: 'object' },
        methodology: { type: 'object' },
        payment: ReceiptSchema,
      },
      required: ['totals', 'methodology'],
    },
  },
);

/** Bazaar declaration of `GET /x402/obs/methodology`. */
export const OBS_METHODOLOGY_BAZAAR = bazaar(
  { method: 'GET' },
  {
    example: { document: 'observation-feed-methodology', definitions: {}, exclusions: [], caveats: [] },
    schema: {
      type: 'object',
      properties: {
        document: { const: 'observation-feed-methodology' },
        definitions: { type: 'object' },
        exclusions: { type: 'array' },
        caveats: { type: 'array' },
        payment: ReceiptSchema,
      },
      required: ['definitions', 'exclusions', 'caveats'],
    },
  },
);

/** Bazaar declaration of `POST /x402/orders/{order_id}`. */
export const ORDER_BAZAAR = bazaar(
  { method: 'POST', body: {}, bodySchema: { type: 'object', maxProperties: 0 } },
  {
    example: { order: { order_id: 'ord_…', status: 'paid', payment: { rail: 'x402_usdc', transaction_id: '0x…' } } },
    schema: {
      type: 'object',
      properties: {
        order: { type: 'object', properties: { order_id: { type: 'string' }, status: { type: 'string' } } },
        payment: ReceiptSchema,
      },
      required: ['order'],
    },
  },
);
