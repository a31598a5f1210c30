/**
 * MCP at POST /mcp (issue 5 §3, issue 12 §1) with the official client (`@modelcontextprotocol/sdk` Client over
 * Streamable HTTP): tools listed with JSON Schemas, a whole purchase run through tools, every failure readable by the
 * client (problem details as text, no structuredContent that breaks an output schema, argument errors as isError
 * results), resources, prompts, completion and logging, and the 2026-07-28 rules (`server/discover`, per-request
 * `_meta`, header checks, caching hints) over raw HTTP checked against the OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { OPERATOR_KEY, startStack, type Stack } from '../helpers/stack';

let stack: Stack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await stack?.stop();
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'agent-commerce-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

// Tool results are loosely typed by the SDK; tests read JSON members.

type Structured = any;
/** Calls a tool; `problem` is the problem detail an error result carries as its second text block. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; data: Structured; text: string; problem: Structured }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text?: string }[];
  const isError = res.isError === true;
  return {
    isError,
    data: res.structuredContent,
    text: content[0]?.text ?? '',
    problem: isError && content[1]?.text ? JSON.parse(content[1].text) : undefined,
  };
}

const TOOL_NAMES = [
  'list_services',
  'discover_services',
  'negotiate_capabilities',
  'create_quote',
  'create_order',
  'get_order',
  'confirm_payment',
  'verify_order',
  'review_order',
  'procure',
  'get_wallet',
  'trust_status',
  'micro_catalogue',
  'buy_micro_item',
  'register_webhook',
  'list_webhook_events',
  'create_checkout_session',
  'get_checkout_session',
  'update_checkout_session',
  'complete_checkout_session',
  'cancel_checkout_session',
  'create_checkout',
  'get_checkout',
  'update_checkout',
  'complete_checkout',
  'cancel_checkout',
  'receptionist_chat',
];

test('initialize, ping and tools/list: one tool per operation, each with an object input schema', async () => {
  const client = await connect();
  expect(client.getServerVersion()).toMatchObject({ name: 'agent-commerce' });
  expect(client.getServerCapabilities()?.tools).toBeDefined();
  await expect(client.ping()).resolves.toEqual({});
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  for (const t of tools) {
    expect(t.inputSchema.type).toBe('object');
    expect(t.description).toBeTruthy();
  }
  const createOrder = tools.find((t) => t.name === 'create_order')!;
  expect(Object.keys(createOrder.inputSchema.properties ?? {})).toEqual(
    expect.arrayContaining(['service_id', 'quote_id', 'agent_id', 'email', 'webhook_url', 'inputs']),
  );
  expect(createOrder.outputSchema?.properties).toHaveProperty('status');
  const confirm = tools.find((t) => t.name === 'confirm_payment')!;
  expect(confirm.inputSchema.required).toEqual(['order_id']);
  expect((confirm.inputSchema.properties as Record<string, { enum?: string[] }>).rail).toBeDefined();
});

test('a whole purchase through tools: quote, order, wallet, payment with the agent key, delivery, verification, review', async () => {
  const client = await connect();
  const services = await call(client, 'list_services');
  expect(services.isError).toBe(false);
  expect(services.data.services).toHaveLength(14);

  const wallet = await call(client, 'get_wallet', { agent_id: 'mcp-agent' });
  expect(wallet.isError).toBe(false);
  const agentKey = wallet.data.agent_key as string;
  expect(agentKey).toMatch(/^ak_/);
  const credit = await stack.call(
    'POST',
    '/api/v1/wallets/mcp-agent/credits',
    { amount: 100, transaction_id: 'mcp-fund' },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  expect(credit.status).toBe(201);

  const quote = await call(client, 'create_quote', { service_id: 'automation-wf' });
  expect(quote.isError).toBe(false);
  expect(quote.data).toMatchObject({ service_id: 'automation-wf', amount: 69 });
  const order = await call(client, 'create_order', {
    quote_id: quote.data.quote_id,
    agent_id: 'mcp-agent',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
  });
  expect(order.isError).toBe(false);
  expect(order.data.status).toBe('awaiting_payment');
  const orderId = order.data.order_id as string;

  // Without the key the REST API answers 401: a business failure, so isError with the problem detail.
  const unpaid = await call(client, 'confirm_payment', { order_id: orderId });
  expect(unpaid.isError).toBe(true);
  expect(unpaid.data).toBeUndefined();
  expect(unpaid.problem).toMatchObject({ status: 401, code: 'unauthorized' });
  expect(unpaid.text).toContain('401');

  // The caller's Authorization header is forwarded to the inner call.
  const keyed = await connect({ authorization: `Bearer ${agentKey}` });
  const paid = await call(keyed, 'confirm_payment', { order_id: orderId });
  expect(paid.isError).toBe(false);
  expect(paid.data.payment).toMatchObject({ rail: 'agent_wallet', amount: 69 });

  let current: Structured;
  const deadline = Date.now() + 30_000;
  do {
    current = (await call(client, 'get_order', { order_id: orderId })).data;
    if (current.status === 'delivered') break;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  expect(current.status).toBe('delivered');
  expect(current.deliverables.length).toBeGreaterThan(0);

  // Each deliverable is a resource; its bytes hash to the recorded sha256.
  const d = current.deliverables[0] as { name: string; sha256: string; media_type: string };
  const file = (
    await client.readResource({ uri: `agent-commerce://orders/${orderId}/deliverables/${encodeURIComponent(d.name)}` })
  ).contents[0] as { text?: string; blob?: string; mimeType?: string };
  const bytes = file.blob !== undefined ? Buffer.from(file.blob, 'base64') : Buffer.from(String(file.text), 'utf8');
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(d.sha256);
  expect(file.mimeType).toBe(d.media_type.split(';')[0]);

  const verification = await call(client, 'verify_order', { order_id: orderId });
  expect(verification.isError).toBe(false);
  expect(verification.data.status).toBe('verified');

  // Only the buyer reviews: without a credential 401, with another agent's key 403, with the buyer's key as an argument 200.
  const anonymous = await call(client, 'review_order', { order_id: orderId, action: 'accept' });
  expect(anonymous.isError).toBe(true);
  expect(anonymous.problem).toMatchObject({ status: 401, code: 'unauthorized' });
  const strangerKey = (await call(client, 'get_wallet', { agent_id: 'mcp-stranger' })).data.agent_key as string;
  const stranger = await call(client, 'review_order', { order_id: orderId, action: 'reject', agent_key: strangerKey });
  expect(stranger).toMatchObject({ isError: true, problem: { status: 403, code: 'forbidden' } });
  expect(stranger.text).toContain('code forbidden');
  const reviewed = await call(client, 'review_order', { order_id: orderId, action: 'accept', agent_key: agentKey });
  expect(reviewed.isError).toBe(false);
  expect(reviewed.data.status).toBe('accepted');

  const balance = await call(keyed, 'get_wallet', { agent_id: 'mcp-agent' });
  expect(balance.data.balance).toBe(31);
  // The agent_key argument works too, instead of the header.
  const viaArg = await call(client, 'get_wallet', { agent_id: 'mcp-agent', agent_key: agentKey });
  expect(viaArg.data.balance).toBe(31);
}, 60_000);

test('every failure is readable with the official client: problem details as text, argument errors as isError results (SEP-1303)', async () => {
  const client = await connect();
  // Tools with an output schema: no structuredContent on errors, or the client would reject the result (typescript-sdk#1943).
  const missing = await call(client, 'get_order', { order_id: 'ord_doesnotexist0000000000000' });
  expect(missing).toMatchObject({ isError: true, data: undefined, problem: { status: 404, code: 'order_not_found' } });
  expect(missing.text).toMatch(/HTTP 404, code order_not_found/);

  const unknownService = await call(client, 'create_quote', { service_id: 'no-such-service' });
  expect(unknownService).toMatchObject({ isError: true, data: undefined, problem: { code: 'service_not_found' } });
  const noInputs = await call(client, 'create_order', { service_id: 'automation-wf', email: 'buyer@example.com' });
  expect(noInputs).toMatchObject({ isError: true, data: undefined, problem: { status: 422, code: 'missing_inputs' } });
  expect(noInputs.text).toContain('automation-wf needs inputs');

  // Arguments the input schema refuses: an isError result naming the argument, without any "MCP error" prefix.
  const bad = await call(client, 'create_quote', { service_id: 42 });
  expect(bad.isError).toBe(true);
  expect(bad.text).toMatch(/^Invalid arguments for create_quote: service_id: /);
  expect(bad.text).not.toContain('MCP error');
  expect((await call(client, 'review_order', { order_id: 'ord_x', action: 'maybe' })).text).toContain('action');

  // An unknown tool stays a protocol error, its message prefixed once by the client.
  const unknown = await client.callTool({ name: 'teleport', arguments: {} }).catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(McpError);
  expect(unknown).toMatchObject({ code: ErrorCode.InvalidParams, message: 'MCP error -32602: Unknown tool: teleport' });
});

test('resources, prompts, completion and logging with the official client', async () => {
  const client = await connect();
  expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {}, completions: {}, logging: {} });
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual([
    'agent-commerce://catalogue',
    'agent-commerce://micro-catalogue',
    'agent-commerce://webhook-events',
  ]);
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
    'agent-commerce://services/{service_id}',
    'agent-commerce://orders/{order_id}',
    'agent-commerce://orders/{order_id}/deliverables/{name}',
  ]);
  const catalogue = await client.readResource({ uri: 'agent-commerce://catalogue' });
  expect(JSON.parse(String((catalogue.contents[0] as { text?: string }).text)).services).toHaveLength(14);
  const micro = await client.readResource({ uri: 'agent-commerce://micro-catalogue' });
  expect(JSON.parse(String((micro.contents[0] as { text?: string }).text))).toMatchObject({ tier: 'impulse' });
  const service = await client.readResource({ uri: 'agent-commerce://services/automation-wf' });
  expect(JSON.parse(String((service.contents[0] as { text?: string }).text))).toMatchObject({ id: 'automation-wf' });

  // An order as a resource (whoever holds the order id can follow it, as with GET /api/v1/orders/{order_id}).
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'task-worker',
    email: 'buyer@example.com',
    inputs: { task_prompt: 'summarise this' },
  });
  const orderUri = `agent-commerce://orders/${created.body.order_id}`;
  const order = await client.readResource({ uri: orderUri });
  expect(order.contents[0]).toMatchObject({ uri: orderUri, mimeType: 'application/json' });
  expect(JSON.parse(String((order.contents[0] as { text?: string }).text))).toMatchObject({
    order_id: created.body.order_id,
    status: 'awaiting_payment',
  });

  // SEP-2164: an unknown resource is -32602 with the URI.
  const unknown = await client
    .readResource({ uri: 'agent-commerce://orders/ord_doesnotexist0000000000000' })
    .catch((e: unknown) => e);
  expect(unknown).toMatchObject({
    code: ErrorCode.InvalidParams,
    data: { uri: 'agent-commerce://orders/ord_doesnotexist0000000000000' },
  });

  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toEqual(['procure_for_goal', 'buy_service']);
  const prompt = await client.getPrompt({
    name: 'procure_for_goal',
    arguments: { goal: 'answer the phone for my clinic', budget: '300' },
  });
  expect(JSON.stringify(prompt.messages)).toContain('answer the phone for my clinic');
  await expect(client.getPrompt({ name: 'procure_for_goal', arguments: {} })).rejects.toMatchObject({
    code: ErrorCode.InvalidParams,
  });

  const ids = await client.complete({
    ref: { type: 'ref/prompt', name: 'buy_service' },
    argument: { name: 'service_id', value: 'ai-' },
  });
  expect(ids.completion.values).toContain('ai-receptionist');
  expect(ids.completion.values.every((v) => v.includes('ai-'))).toBe(true);
  const byTemplate = await client.complete({
    ref: { type: 'ref/resource', uri: 'agent-commerce://services/{service_id}' },
    argument: { name: 'service_id', value: 'automation' },
  });
  expect(byTemplate.completion.values).toContain('automation-wf');
  const caps = await client.complete({
    ref: { type: 'ref/prompt', name: 'procure_for_goal' },
    argument: { name: 'capability', value: 'appointment' },
  });
  expect(caps.completion.values).toContain('appointment_scheduling');
  await expect(client.setLoggingLevel('info')).resolves.toEqual({});
});

test('discovery, negotiation, procurement, trust and micro catalogue tools answer within their output schemas', async () => {
  const client = await connect();
  // The client checks structuredContent against each tool's outputSchema and throws on a mismatch.
  const discovered = await call(client, 'discover_services', {
    capability: 'appointment_scheduling',
    budget_max: '100',
  });
  expect(discovered.isError).toBe(false);
  expect(discovered.data.services.length).toBeGreaterThan(0);
  expect(await call(client, 'discover_services', { budget_max: 'lots' })).toMatchObject({
    isError: true,
    text: expect.stringContaining('budget_max'),
  });
  const negotiated = await call(client, 'negotiate_capabilities', {
    required_capabilities: ['appointment_scheduling'],
  });
  expect(negotiated.isError).toBe(false);
  expect(negotiated.data.matches.length).toBeGreaterThan(0);
  const trust = await call(client, 'trust_status');
  expect(trust.isError).toBe(false);
  expect(trust.data.generated_at).toBeTruthy();
  const micro = await call(client, 'micro_catalogue');
  expect(micro.isError).toBe(false);
  expect(micro.data).toMatchObject({ tier: 'impulse', version: 2 });
  const tooCheap = await call(client, 'procure', {
    objective: 'answer the phone for my clinic',
    budget: 60,
    auto_purchase: false,
  });
  expect(tooCheap).toMatchObject({ isError: true, problem: { status: 422, code: 'no_matching_service' } });
  const planned = await call(client, 'procure', {
    objective: 'answer the phone for my clinic',
    budget: 300,
    auto_purchase: false,
  });
  expect(planned.isError).toBe(false);
  expect(planned.data).toMatchObject({ status: 'planned' });
  expect(planned.data.procurement_id).toBeTruthy();
  expect(await call(client, 'procure', { budget: 'cheap' })).toMatchObject({
    isError: true,
    text: expect.stringContaining('budget'),
  });
}, 60_000);

test('register_webhook over MCP returns the signing secret once', async () => {
  const client = await connect();
  const res = await call(client, 'register_webhook', { url: 'http://127.0.0.1:9/hook', events: ['order.delivered'] });
  expect(res.isError).toBe(false);
  expect(res.data.secret).toMatch(/^whsec_/);
  expect(res.data.management_token).toMatch(/^wht_/);
});

describe('raw HTTP', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  test('GET and DELETE answer 405 (stateless: no SSE stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${stack.url}/mcp`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  // 2026-07-28: every request carries _meta with the version and client capabilities, and Mcp-Method / Mcp-Name headers.
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const rpc = (
    id: number,
    method: string,
    params: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) => {
    const name = method === 'resources/read' ? params.uri : params.name;
    return stack.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id, method, params: { _meta: META, ...params } },
      {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      },
    );
  };

  test('2026-07-28: server/discover without initialize, results with resultType and caching hints, tools, resources and prompts', async () => {
    const discover = await rpc(1, 'server/discover');
    expect(discover.status).toBe(200);
    expect(discover.body.result).toMatchObject({
      resultType: 'complete',
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'agent-commerce' } },
      cacheScope: 'public',
    });
    expect(discover.body.result.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));

    const list = await rpc(2, 'tools/list');
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(TOOL_NAMES);
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'public', ttlMs: 300_000 });
    const quote = await rpc(3, 'tools/call', { name: 'create_quote', arguments: { service_id: 'task-worker' } });
    expect(quote.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { service_id: 'task-worker', amount: 15 },
    });
    const unknownTool = await rpc(4, 'tools/call', { name: 'nope', arguments: {} });
    expect(unknownTool.body).toMatchObject({ id: 4, error: { code: -32602, message: 'Unknown tool: nope' } });

    // Caching hints of a resource come from its REST Cache-Control (public, max-age=60 for the catalogue).
    const catalogue = await rpc(5, 'resources/read', { uri: 'agent-commerce://catalogue' });
    expect(catalogue.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'public', ttlMs: 60_000 });
    const prompt = await rpc(6, 'prompts/get', { name: 'buy_service', arguments: { service_id: 'automation-wf' } });
    expect(JSON.stringify(prompt.body.result.messages)).toContain('automation-wf');
    const completion = await rpc(7, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'buy_service' },
      argument: { name: 'service_id', value: 'task' },
    });
    expect(completion.body.result.completion.values).toContain('task-worker');
  });

  test('2026-07-28: missing _meta 400/-32602, header mismatch 400/-32020, unknown version 400/-32022, removed and unknown methods 404/-32601', async () => {
    const noMeta = await stack.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    );
    expect(noMeta.status).toBe(400);
    expect(noMeta.body).toMatchObject({ id: 1, error: { code: -32602 } });
    // No version anywhere (neither header nor _meta): malformed, -32602, not -32022 (issue 36 §C; basic/index
    // "A request missing any required field is malformed ... -32602"). The SDK answers -32022 there.
    const noVersion = await stack.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 11, method: 'server/discover', params: {} },
      { 'mcp-method': 'server/discover' },
    );
    expect(noVersion.status).toBe(400);
    expect(noVersion.body).toMatchObject({
      id: 11,
      error: { code: -32602, data: { envelope: { missing: ['_meta'] } } },
    });
    // server/discover is a request like any other: without the MCP-Protocol-Version header, 400 / -32020
    // (streamable-http "Server Validation": a required standard header is missing).
    const noHeader = await stack.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 12, method: 'server/discover', params: { _meta: META } },
      { 'mcp-method': 'server/discover' },
    );
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.error.code).toBe(-32020);

    const mismatch = await rpc(2, 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
    const methodHeader = await rpc(3, 'tools/list', {}, { 'mcp-method': 'prompts/list' });
    expect(methodHeader.status).toBe(400);
    expect(methodHeader.body.error.code).toBe(-32020);

    const v999 = { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999' };
    const unsupported = await stack.call(
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: v999 } },
      { 'mcp-protocol-version': 'v999', 'mcp-method': 'server/discover' },
    );
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toMatchObject({
      code: -32022,
      data: { requested: 'v999', supported: expect.arrayContaining(['2026-07-28']) },
    });

    for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/subscribe', 'resources/teleport']) {
      const res = await rpc(5, method);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ id: 5, error: { code: -32601 } });
    }
  });

  test('2026-07-28 Tasks extension: create_order creates the task order-<order_id>, followed and cancelled through the order', async () => {
    const TASKS = {
      ...META,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const taskRpc = (
      id: number,
      method: string,
      params: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) =>
      rpc(
        id,
        method,
        { ...params, _meta: TASKS },
        { ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}), ...headers },
      );
    const discover = await rpc(1, 'server/discover');
    expect(discover.body.result.capabilities.extensions).toHaveProperty(['io.modelcontextprotocol/tasks']);
    const list = await rpc(2, 'tools/list');
    expect(list.body.result.tools.find((t: { name: string }) => t.name === 'create_order').execution).toEqual({
      taskSupport: 'optional',
    });

    const args = {
      service_id: 'automation-wf',
      email: 'tasks@example.com',
      inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
    };
    // Without the extension: the plain tool result.
    const plain = await rpc(3, 'tools/call', { name: 'create_order', arguments: args });
    expect(plain.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { status: 'awaiting_payment' },
    });
    expect(plain.body.result.taskId).toBeUndefined();

    const created = await taskRpc(4, 'tools/call', { name: 'create_order', arguments: args });
    const task = created.body.result;
    expect(task).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: null,
      taskId: expect.stringMatching(/^order-/),
    });
    // A CreateTaskResult is flat: the task's fields only (no result, and no content the SDK would add to a tool result).
    expect(task.result).toBeUndefined();
    expect(task.content).toBeUndefined();
    const order = task._meta['agent-commerce/order'];
    expect(task.taskId).toBe(`order-${order.order_id}`);
    expect(order.order_secret).toEqual(expect.stringMatching(/^os_/));
    const secret = { authorization: `Bearer ${order.order_secret}` };

    // Followed later by task id alone (GET /api/v1/orders/{order_id}, like get_order): the order's status, nothing held in the process.
    const got = await taskRpc(5, 'tasks/get', { taskId: task.taskId });
    expect(got.body.result).toMatchObject({
      resultType: 'complete',
      taskId: task.taskId,
      status: 'working',
      statusMessage: expect.stringContaining('awaiting_payment'),
    });
    expect(got.body.result.result).toBeUndefined();
    const unknown = await taskRpc(7, 'tasks/get', { taskId: 'order-ord_nope' }, secret);
    expect(unknown.body.error.code).toBe(-32602);
    const notDeclared = await rpc(8, 'tasks/get', { taskId: task.taskId }, { 'mcp-name': task.taskId, ...secret });
    expect(notDeclared.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    const wrongName = await taskRpc(9, 'tasks/get', { taskId: task.taskId }, { 'mcp-name': 'order-other', ...secret });
    expect(wrongName.body.error.code).toBe(-32020);

    // Cancellation is the order's cancelOrder Update, which only long-running (engineering) orders accept.
    const cancel = await taskRpc(10, 'tasks/cancel', { taskId: task.taskId }, secret);
    expect(cancel.body.error).toMatchObject({ code: -32600, data: { status: 409 } });
    const still = await taskRpc(11, 'tasks/get', { taskId: task.taskId }, secret);
    expect(still.body.result.status).toBe('working');

    // Paid later (hosted link), the task is followed to its end by id alone: completed, the delivered order as result.
    const tx = await stack.services.linkpay.createTransaction(
      order.order_id,
      order.amount_micros,
      'USD',
      'tasks@example.com',
    );
    expect(
      (await stack.call('POST', `/api/v1/orders/${order.order_id}/confirm_payment`, { transaction_id: tx.id })).status,
    ).toBe(200);
    let done = still.body.result;
    for (let i = 12, deadline = Date.now() + 30_000; done.status === 'working' && Date.now() < deadline; i++) {
      await new Promise((r) => setTimeout(r, 200));
      done = (await taskRpc(i, 'tasks/get', { taskId: task.taskId })).body.result;
    }
    expect(done).toMatchObject({ taskId: task.taskId, status: 'completed' });
    const result = done.result;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ order_id: order.order_id, status: 'delivered' });
    expect(result.structuredContent.deliverables.length).toBeGreaterThan(0);
  });

  test('a stack without MCP_CONFORMANCE_FIXTURES serves none of the suite fixtures', async () => {
    const resources = await rpc(1, 'resources/list');
    expect(resources.body.result.resources.every((r: { uri: string }) => r.uri.startsWith('agent-commerce://'))).toBe(
      true,
    );
    const fixture = await rpc(2, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(fixture.body.error.code).toBe(-32602);
  });

  test('foreign browser origins are refused', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });
});
