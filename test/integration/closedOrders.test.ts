/**
 * Issue 36 §A: an order whose workflow has closed (terminated by an operator, history deleted) answers every action
 * with a 4xx that says how it ended, never a 5xx, and gives back a payment-link payment the hosted form took before
 * it met the closed workflow. Real API, worker, Temporal server and database; MCP through the official client.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { orderWorkflowId } from '../../workflows/shared';
import { subscriptionWorkflowId } from '../../workflows/subscriptionShared';
import { fundedAgent, OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';

let stack: Stack;
const mcpClients: McpClient[] = [];
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await Promise.all(mcpClients.map((c) => c.close()));
  await stack?.stop();
});

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const op = { authorization: `Bearer ${OPERATOR_KEY}` };

/** Creates an automation-wf order (with `agentId` the wallet's, else an order secret) awaiting payment. */
async function awaitingOrder(agentId?: string): Promise<{ id: string; secret?: string }> {
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    ...(agentId ? { agent_id: agentId } : {}),
    inputs: automationInputs,
  });
  expect(created.status).toBe(201);
  return { id: created.body.order_id as string, secret: created.body.order_secret as string | undefined };
}

const terminate = (workflowId: string) =>
  stack.client.workflow.getHandle(workflowId).terminate('issue 36: an operator stopped it');

/** The payment-link transactions the provider holds for `orderId`. */
const linkTransactions = (orderId: string) =>
  stack.services.db.linkpayTransactions.find({ order_id: orderId }).sort({ created_at: 1 }).toArray();

/** The 409 of an order whose workflow was terminated while awaiting payment. */
const terminatedProblem = { status: 409, code: 'order_closed', workflow_status: 'terminated' };

describe('an order whose workflow was terminated while awaiting payment', () => {
  test('every action is a 409 order_closed naming how it ended; the wallet is not charged', async () => {
    const agentKey = await fundedAgent(stack, 'agent-closed', 100);
    const { id } = await awaitingOrder('agent-closed');
    await terminate(orderWorkflowId(id));
    const buyer = { authorization: `Bearer ${agentKey}` };

    const wallet = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { rail: 'agent_wallet' }, buyer);
    expect(wallet.body).toMatchObject({ ...terminatedProblem, current_status: 'awaiting_payment' });
    expect(wallet.body.detail).toContain('terminated');
    const review = await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'accept' }, buyer);
    expect(review.body).toMatchObject(terminatedProblem);
    // Refused by the read model's state before any message is sent: a 409 too.
    const cancel = await stack.call('POST', `/api/v1/orders/${id}/cancel`, {}, buyer);
    expect(cancel.status).toBe(409);
    const task = await stack.call('POST', `/api/v1/orders/${id}/tasks`, { task_prompt: 'one more' }, buyer);
    expect(task.status).toBeGreaterThanOrEqual(400);
    expect(task.status).toBeLessThan(500);
    const subscription = await stack.call('POST', `/api/v1/orders/${id}/subscription/cancel`, {}, buyer);
    expect(subscription.status).toBeGreaterThanOrEqual(400);
    expect(subscription.status).toBeLessThan(500);

    // The same through MCP: a business failure with the problem detail, not an internal error.
    const mcp = new McpClient({ name: 'closed-orders-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers: buyer } }),
    );
    mcpClients.push(mcp);
    for (const [name, args] of [
      ['confirm_payment', { order_id: id }],
      ['review_order', { order_id: id, action: 'reject' }],
    ] as const) {
      const res = await mcp.callTool({ name, arguments: args });
      expect(res.isError).toBe(true);
      const content = res.content as { text?: string }[];
      expect(JSON.parse(content[1]?.text ?? '{}')).toMatchObject(terminatedProblem);
    }

    expect(await stack.services.wallets.balance('agent-closed')).toBe(100_000_000);
  });

  test('the hosted form takes no money from a closed order; a link payment confirmed through the API is refunded', async () => {
    const { id, secret } = await awaitingOrder();
    expect(secret).toMatch(/^os_/);
    await terminate(orderWorkflowId(id));

    // The form holds the order before it takes the card payment (issue 36 §1): a closed order refuses the hold, so
    // nothing is taken, and the page says why. Twice: still nothing.
    for (let i = 0; i < 2; i++) {
      const pay = await fetch(`${stack.url}/pay/orders/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: secret ?? '', email: 'buyer@example.com' }),
      });
      expect(pay.status).toBe(409);
      expect(await pay.text()).toContain('Payment not completed');
    }
    expect(await linkTransactions(id)).toEqual([]);

    // A link payment taken in another tab, confirmed through the API: 409 with the refund made.
    const other = await stack.services.linkpay.createTransaction(id, 69_000_000, 'USD', null);
    const confirm = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { transaction_id: other.id });
    expect(confirm.body).toMatchObject({
      ...terminatedProblem,
      refund: { status: 'completed', rail: 'linkpay_ncp', transaction_id: other.id, amount_micros: 69_000_000 },
    });
    expect((await stack.services.linkpay.getTransaction(other.id))?.status).toBe('refunded');
    // Asked again: the same answer, refunded once.
    const repeat = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { transaction_id: other.id });
    expect(repeat.body).toMatchObject({ ...terminatedProblem, refund: { status: 'completed' } });

    const review = await fetch(`${stack.url}/pay/orders/${id}/review`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: secret ?? '', action: 'accept' }),
    });
    expect(review.status).toBe(409);
    expect(await review.text()).toContain('terminated');
  });
});

test('an order whose workflow history is gone answers 410 order_gone', async () => {
  const { id } = await awaitingOrder();
  const workflowId = orderWorkflowId(id);
  await stack.client.workflowService.deleteWorkflowExecution({
    namespace: stack.config.TEMPORAL_NAMESPACE,
    workflowExecution: { workflowId },
  });
  // Deletion is asynchronous on the server.
  const deadline = Date.now() + 20_000;
  let res = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { transaction_id: 'lp_none' });
  while (res.status !== 410 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    res = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { transaction_id: 'lp_none' });
  }
  expect(res.body).toMatchObject({ status: 410, code: 'order_gone', workflow_status: 'gone' });
  // The read model still answers reads.
  expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('awaiting_payment');
});

test("an expert order's and a subscription's terminated workflows answer 409 order_closed", async () => {
  // The engineer queue: a robot-control-system order paid, in engineering, then its workflow terminated.
  const expertKey = await fundedAgent(stack, 'agent-closed-expert', 499);
  const expert = await stack.call('POST', '/api/v1/orders', {
    service_id: 'robot-control-system',
    agent_id: 'agent-closed-expert',
    inputs: { robot_type: 'six-axis arm', controller: 'ROS 2 Humble', objective: 'pick and place parcels' },
  });
  const expertId = expert.body.order_id as string;
  const buyer = { authorization: `Bearer ${expertKey}` };
  expect(
    (await stack.call('POST', `/api/v1/orders/${expertId}/confirm_payment`, { rail: 'agent_wallet' }, buyer)).status,
  ).toBe(200);
  await waitForOrder(stack, expertId, (o) => o.status === 'in_engineering', 60_000);
  await terminate(orderWorkflowId(expertId));
  const claim = await stack.call('POST', `/api/v1/engineering/${expertId}/claim`, { engineer: 'alice' }, op);
  expect(claim.body).toMatchObject({ ...terminatedProblem, current_status: 'in_engineering' });
  const ready = await stack.call('POST', `/api/v1/engineering/${expertId}/ready`, { engineer: 'alice' }, op);
  expect(ready.body).toMatchObject(terminatedProblem);
  const cancel = await stack.call('POST', `/api/v1/orders/${expertId}/cancel`, {}, buyer);
  expect(cancel.body).toMatchObject(terminatedProblem);

  // A monthly subscription, active, then its workflow terminated.
  const subKey = await fundedAgent(stack, 'agent-closed-sub', 39);
  const sub = await stack.call('POST', '/api/v1/orders', {
    service_id: 'ai-receptionist',
    agent_id: 'agent-closed-sub',
    inputs: { business_name: 'Cedar Dental', contact_email: 'front@cedar.example', services: 'cleaning, whitening' },
  });
  const subId = sub.body.order_id as string;
  const subBuyer = { authorization: `Bearer ${subKey}` };
  expect(
    (await stack.call('POST', `/api/v1/orders/${subId}/confirm_payment`, { rail: 'agent_wallet' }, subBuyer)).status,
  ).toBe(200);
  const deadline = Date.now() + 60_000;
  while ((await stack.call('GET', `/api/v1/orders/${subId}/subscription`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('the subscription did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  await terminate(subscriptionWorkflowId(subId));
  const subCancel = await stack.call('POST', `/api/v1/orders/${subId}/subscription/cancel`, {}, subBuyer);
  expect(subCancel.body).toMatchObject({ status: 409, code: 'order_closed', workflow_status: 'terminated' });
  const invoice = await stack.call(
    'POST',
    `/api/v1/orders/${subId}/subscription/invoices/inv_none/pay`,
    { transaction_id: 'lp_none' },
    subBuyer,
  );
  expect(invoice.body).toMatchObject({ status: 409, code: 'order_closed' });
}, 150_000);
