/**
 * ACP checkout sessions' durable timer and finisher (issue 37 §1, decision 0032), against the real API, worker,
 * Temporal server and database. Quotes live 12 s here, so a session's timer fires within the test. A complete whose
 * process died after recording its commitment (and, in the second case, after its order started) is finished by the
 * session's workflow alone, with no further request from the platform: one order, one debit.
 */
import { checkoutSessionWorkflowId } from '../../src/temporal/checkoutSessions';
import { sessionCompletingSignal } from '../../workflows/checkoutSession';
import { fundedAgent, OPERATOR_KEY, startStack, type Stack } from '../helpers/stack';

jest.setTimeout(120_000);

const VERSION = '2026-04-17';
let stack: Stack;
let platformKey: string;
let n = 0;

const acp = (method: string, path: string, body?: unknown, key = platformKey) =>
  stack.call(method, path, body, {
    authorization: `Bearer ${key}`,
    'api-version': VERSION,
    ...(method === 'POST' ? { 'idempotency-key': `acp-wf-${process.pid}-${++n}` } : {}),
  });

const inputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const newSession = async (): Promise<string> => {
  const res = await acp('POST', '/checkout_sessions', {
    line_items: [{ id: 'automation-wf' }],
    currency: 'usd',
    capabilities: {},
    metadata: { inputs },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  stack = await startStack({ QUOTE_TTL_SECONDS: '12' });
  const res = await stack.call(
    'POST',
    '/api/v1/acp/platforms',
    { name: 'timers' },
    {
      authorization: `Bearer ${OPERATOR_KEY}`,
    },
  );
  platformKey = res.body.api_key as string;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('an open session is closed by its timer when its quote expires', async () => {
  const id = await newSession();
  const handle = stack.client.workflow.getHandle(checkoutSessionWorkflowId(id));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  // Closed in the database by the timer, not only read as expired.
  const doc = await until(
    'the timer',
    () => stack.services.db.checkoutSessions.findOne({ _id: id }),
    (d) => d?.status === 'expired',
  );
  expect(doc?.status).toBe('expired');
  expect(await handle.result()).toBe('expired');
  const read = await acp('GET', `/checkout_sessions/${id}`);
  expect(read.body.status).toBe('expired');
  const complete = await acp('POST', `/checkout_sessions/${id}/complete`, {
    payment_data: { handler_id: 'hosted_link' },
  });
  expect(complete.status).toBe(409);
});

const walletPayment = (token: string) => ({
  payment_data: {
    handler_id: 'agent_wallet',
    instrument: { type: 'wallet_token', credential: { type: 'spt', token } },
  },
});

test.each([
  ['after its commitment, before the order', false],
  ['after the charge, before the session said completed', true],
])('a complete that died %s is finished by the session workflow: one order, one debit', async (_when, charged) => {
  const agentId = `acp-finisher-${charged ? 'b' : 'a'}`;
  const agentKey = await fundedAgent(stack, agentId, 100);
  const id = await newSession();
  const token = await acp(
    'POST',
    '/agentic_commerce/delegate_payment',
    {
      allowance: {
        reason: 'one_time',
        max_amount: 6900,
        currency: 'usd',
        checkout_session_id: id,
        merchant_id: 'agent-commerce',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    },
    agentKey,
  );
  expect(token.status).toBe(201);
  const tokenId = token.body.id as string;
  if (charged) {
    // The whole complete ran (order created and charged), then the session is put back as a process that died
    // before its last write leaves it.
    expect((await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(tokenId))).body.status).toBe(
      'completed',
    );
    await stack.services.db.checkoutSessions.updateOne(
      { _id: id },
      { $set: { status: 'complete_in_progress' }, $inc: { version: 1 } },
    );
  } else {
    // What a complete leaves when its process dies right after its commitment: the workflow told, the commitment
    // recorded, nothing else.
    await stack.client.workflow.getHandle(checkoutSessionWorkflowId(id)).signal(sessionCompletingSignal);
    await stack.services.db.checkoutSessions.updateOne(
      { _id: id },
      {
        $set: {
          status: 'complete_in_progress',
          payment: { handler_id: 'agent_wallet', token_id: tokenId, agent_id: agentId },
          completed_at: new Date(),
        },
        $inc: { version: 1 },
      },
    );
  }
  const done = await until(
    'the finisher',
    () => stack.services.db.checkoutSessions.findOne({ _id: id }),
    (d) => d?.status === 'completed',
  );
  const orderId = done?.order_id ?? '';
  const order = await until(
    'the payment',
    () => stack.services.orders.get(orderId),
    (o) => o?.payment != null,
  );
  expect(order?.payment).toMatchObject({ rail: 'agent_wallet' });
  expect(await stack.services.wallets.balance(agentId)).toBe(31_000_000);
  expect(await stack.services.db.orders.countDocuments({ agent_id: agentId })).toBe(1);
  // The session's workflow ended with it.
  expect(await stack.client.workflow.getHandle(checkoutSessionWorkflowId(id)).result()).toBe('completed');
  // The platform's late retry answers the same order, and charges nothing more.
  const retry = await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(tokenId));
  expect(retry.body).toMatchObject({ status: 'completed', order: { id: orderId } });
  expect(await stack.services.wallets.balance(agentId)).toBe(31_000_000);
});
