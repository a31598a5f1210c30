/**
 * The agent starter bundle sold at `GET /x402/agent-starter` (seed §2.13: "three templates plus integration notes"):
 * three n8n workflows that connect an agent to this service (buy an order, follow its signed events, sample the
 * paid observation feed through an x402 signer) and the notes an integrator needs. Pure, deterministic.
 */
import { buildWorkflow, type N8nWorkflow } from './n8n';

const B = 'n8n-nodes-base.';

/** One starter template. */
export interface StarterTemplate {
  id: string;
  title: string;
  purpose: string;
  workflow: N8nWorkflow;
}

/** One section of the integration notes. */
export interface IntegrationNote {
  title: string;
  body: string;
}

/** The bundle; `baseUrl` is the service's public address, written into the workflows and notes. */
export interface AgentStarterBundle {
  bundle: 'agent-starter';
  version: number;
  templates: StarterTemplate[];
  integration_notes: IntegrationNote[];
}

/** Builds the bundle for a service at `baseUrl` (no trailing slash). */
export function agentStarterBundle(baseUrl: string): AgentStarterBundle {
  const orderIntake = buildWorkflow(
    'Agent starter: task to paid order',
    [
      {
        name: 'Task In',
        type: `${B}webhook`,
        typeVersion: 2,
        parameters: {
          httpMethod: 'POST',
          path: 'agent-task',
          authentication: 'headerAuth',
          responseMode: 'responseNode',
        },
        credentials: { httpHeaderAuth: 'Agent task shared header' },
        next: ['Quote'],
      },
      {
        name: 'Quote',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'POST',
          url: `${baseUrl}/api/v1/quote`,
          sendBody: true,
          specifyBody: 'json',
          jsonBody: '={{ JSON.stringify({ service_id: $json.body.service_id, is_agent: true }) }}',
          options: { timeout: 15000 },
        },
        retry: true,
        next: ['Create Order'],
      },
      {
        name: 'Create Order',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'POST',
          url: `${baseUrl}/api/v1/orders`,
          sendHeaders: true,
          headerParameters: {
            parameters: [{ name: 'Idempotency-Key', value: "={{ $('Task In').item.json.body.task_id }}" }],
          },
          sendBody: true,
          specifyBody: 'json',
          jsonBody:
            "={{ JSON.stringify({ quote_id: $json.quote_id, agent_id: $('Task In').item.json.body.agent_id, inputs: $('Task In').item.json.body.inputs }) }}",
          options: { timeout: 15000 },
        },
        retry: true,
        next: ['Answer'],
      },
      {
        name: 'Answer',
        type: `${B}respondToWebhook`,
        typeVersion: 1.1,
        parameters: {
          respondWith: 'json',
          responseBody:
            '={{ JSON.stringify({ order_id: $json.order_id, status: $json.status, pay: $json.payment_options }) }}',
          options: { responseCode: 201 },
        },
      },
    ],
    {
      tags: ['agent-starter'],
      description: 'Quote and order a service for a task, idempotently, and answer with the payment options.',
    },
  );

  const eventFollower = buildWorkflow(
    'Agent starter: follow signed order events',
    [
      {
        name: 'Order Event',
        type: `${B}webhook`,
        typeVersion: 2,
        parameters: {
          httpMethod: 'POST',
          path: 'order-events',
          authentication: 'none',
          responseMode: 'onReceived',
          options: { rawBody: true },
        },
        notes: 'Authenticity is checked by the next node (Standard Webhooks signature).',
        next: ['Verify Signature'],
      },
      {
        name: 'Verify Signature',
        type: `${B}code`,
        typeVersion: 2,
        parameters: {
          mode: 'runOnceForEachItem',
          jsCode: [
            "const crypto = require('crypto');",
            "const secret = Buffer.from($env.WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');",
            "const h = $json.headers; const body = $binary?.data ? Buffer.from($binary.data.data, 'base64').toString('utf8') : JSON.stringify($json.body);",
            "const expected = crypto.createHmac('sha256', secret).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${body}`).digest('base64');",
            "const ok = String(h['webhook-signature'] || '').split(' ').some((s) => s === `v1,${expected}`);",
            "if (!ok || Math.abs(Date.now() / 1000 - Number(h['webhook-timestamp'])) > 300) throw new Error('bad webhook signature');",
            'return { json: JSON.parse(body) };',
          ].join('\n'),
        },
        notes:
          'Needs NODE_FUNCTION_ALLOW_BUILTIN=crypto and the endpoint secret in the WEBHOOK_SECRET environment variable.',
        onError: 'stopWorkflow',
        next: ['By Event Type'],
      },
      {
        name: 'By Event Type',
        type: `${B}switch`,
        typeVersion: 3.2,
        parameters: {
          rules: {
            values: ['order.delivered', 'order.failed'].map((t) => ({
              conditions: {
                options: { caseSensitive: true, typeValidation: 'strict' },
                combinator: 'and',
                conditions: [
                  { leftValue: '={{ $json.type }}', rightValue: t, operator: { type: 'string', operation: 'equals' } },
                ],
              },
              renameOutput: true,
              outputKey: t,
            })),
          },
          options: {},
        },
        next: [['Verify Deliverables'], ['Alert Owner']],
      },
      {
        name: 'Verify Deliverables',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'GET',
          url: `=${baseUrl}/api/v1/orders/{{ $json.data.order_id }}/verification`,
          options: { timeout: 15000 },
        },
        retry: true,
        next: ['Accept Delivery'],
      },
      {
        name: 'Accept Delivery',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'POST',
          url: `=${baseUrl}/api/v1/orders/{{ $json.order_id }}/review`,
          sendBody: true,
          specifyBody: 'json',
          jsonBody:
            '={{ JSON.stringify({ action: $json.status === "verified" ? "accept" : "reject", reason: $json.status }) }}',
          options: { timeout: 15000 },
        },
        retry: true,
      },
      {
        name: 'Alert Owner',
        type: `${B}slack`,
        typeVersion: 2.3,
        parameters: {
          resource: 'message',
          operation: 'post',
          select: 'channel',
          channelId: { __rl: true, mode: 'name', value: '#agent-ops' },
          text: '=Order {{ $json.data.order_id }} failed: {{ $json.data.failure }}',
        },
        credentials: { slackApi: 'Slack account' },
        retry: true,
      },
    ],
    {
      tags: ['agent-starter'],
      description:
        'Receive order events, verify their Standard Webhooks signature, check deliverable checksums and review.',
    },
  );

  const feedSampler = buildWorkflow(
    'Agent starter: sample the paid observation feed',
    [
      {
        name: 'Every 15 Minutes',
        type: `${B}scheduleTrigger`,
        typeVersion: 1.2,
        parameters: { rule: { interval: [{ field: 'minutes', minutesInterval: 15 }] } },
        next: ['Paid Tick via x402 Signer'],
      },
      {
        name: 'Paid Tick via x402 Signer',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'GET',
          url: 'http://127.0.0.1:4402/pay',
          sendQuery: true,
          queryParameters: {
            parameters: [
              { name: 'url', value: `${baseUrl}/x402/obs/tick` },
              { name: 'max_usd', value: '0.01' },
            ],
          },
          options: { timeout: 120000 },
        },
        notes: 'The x402 signer sidecar from the integration notes pays the 402 and returns the goods.',
        retry: true,
        next: ['Record Reading'],
      },
      {
        name: 'Record Reading',
        type: `${B}googleSheets`,
        typeVersion: 4.5,
        parameters: {
          resource: 'sheet',
          operation: 'append',
          documentId: { __rl: true, mode: 'id', value: 'REPLACE_SHEET_ID' },
          sheetName: { __rl: true, mode: 'name', value: 'Ticks' },
          columns: { mappingMode: 'autoMapInputData' },
        },
        credentials: { googleSheetsOAuth2Api: 'Google Sheets account' },
        retry: true,
      },
    ],
    { tags: ['agent-starter'], description: 'Buy one observation tick every 15 minutes over x402 and record it.' },
  );

  return {
    bundle: 'agent-starter',
    version: 1,
    templates: [
      {
        id: 'starter-order-intake',
        title: orderIntake.name,
        purpose: 'Turn a task into a quoted, idempotent order and return how to pay it.',
        workflow: orderIntake,
      },
      {
        id: 'starter-event-follower',
        title: eventFollower.name,
        purpose: 'Follow an order through signed webhooks and accept or reject the delivery on its checksums.',
        workflow: eventFollower,
      },
      {
        id: 'starter-feed-sampler',
        title: feedSampler.name,
        purpose: 'Pay per request for the observation feed through an x402 signer.',
        workflow: feedSampler,
      },
    ],
    integration_notes: [
      {
        title: 'Base address and discovery',
        body: `API under ${baseUrl}/api/v1 (OpenAPI: ${baseUrl}/api/v1/openapi.json). Services: GET /api/v1/services. x402 discovery: GET ${baseUrl}/.well-known/x402. Micro catalogue: GET /api/v1/x402/micro.`,
      },
      {
        title: 'Ordering',
        body: 'POST /api/v1/quote {service_id} → quote_id (binding until expires_at). POST /api/v1/orders {quote_id, agent_id, inputs} with an Idempotency-Key header: a retry with the same key returns the same order. The order lists payment_options per rail.',
      },
      {
        title: 'Paying an order',
        body: 'agent_wallet: POST /api/v1/orders/{id}/confirm_payment {rail: "agent_wallet"} with Authorization: Bearer <agent key>. x402_usdc: POST the x402 resource in payment_options.x402_usdc.resource with an x402 client; settlement marks the order paid. linkpay_ncp: open the checkout_url.',
      },
      {
        title: 'x402 per-request payments',
        body: 'Request the resource; a 402 carries PAYMENT-REQUIRED (base64 JSON, x402 v2, scheme exact, USDC on eip155:8453, the exact amount in atomic units). Sign an EIP-3009 authorization for it and resend with PAYMENT-SIGNATURE; the 200 carries the goods and PAYMENT-RESPONSE with the transaction hash. Add the payment-identifier extension (an id of 16 to 128 characters) so a retry after a lost response returns the same goods without a second charge. Note: @x402/fetch caps a payment at 1 USD unless spendControls.maxAmountPerPayment is raised.',
      },
      {
        title: 'x402 signer sidecar (for n8n)',
        body: "n8n cannot sign x402 payments itself. Run a 15-line Node service: `import { wrapFetchWithPayment, x402Client } from '@x402/fetch'; import { registerExactEvmScheme } from '@x402/evm/exact/client'; const c = new x402Client(); registerExactEvmScheme(c, { signer: privateKeyToAccount(process.env.BUYER_KEY) }); c.setSpendControls({ maxAmountPerPayment: '$1' });` and expose GET /pay?url= that calls `wrapFetchWithPayment(fetch, c)(url)` and returns the body. Keep the key in the sidecar, never in n8n.",
      },
      {
        title: 'Webhooks',
        body: 'Callbacks follow Standard Webhooks 1.0: headers webhook-id, webhook-timestamp, webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">). Verify before acting, deduplicate on webhook-id, answer 2xx quickly.',
      },
      {
        title: 'Verification and review',
        body: 'GET /api/v1/orders/{id}/verification rehashes every deliverable (sha256). Accept or reject with POST /api/v1/orders/{id}/review {action}. Silence accepts after the review window.',
      },
      {
        title: 'Errors',
        body: 'Every error is RFC 9457 problem details (application/problem+json) with a stable code, e.g. invalid_request, payment_required, invalid_payment_header, order_not_found. Retry 409 idempotency_in_flight and 502/503 after Retry-After.',
      },
    ],
  };
}
