/**
 * Every catalogue service bought through UCP (issue 37 §5), against the real API, worker, Temporal server and
 * database: the signed UCP test platform (../helpers/ucpClient.ts) opens a checkout per service listed by
 * `GET /api/v1/services`, gives the service's inputs through `service_inputs`, and completes on the agent wallet (a
 * delegated token), and each that offers it also through the hosted link (requires_escalation, then paid on the
 * hosted page). The text-model services run on the run's fake chat-completions model (test/globalSetup.ts). Afterwards the
 * books: the wallet is debited exactly the sum of the checkout totals, each order was paid that total on the rail and
 * is delivered, or in_engineering when an engineer delivers it (expert_delivery). The monthly service sells its first
 * month, with an info message saying renewals are invoices (test/integration/subscriptions.test.ts renews one).
 */
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { platformKey, platformProfile, profileServer, UcpPlatform } from '../helpers/ucpClient';
import { UCP, ucpConforms } from '../helpers/ucpSchemas';

let stack: Stack;
let profiles: Awaited<ReturnType<typeof profileServer>>;
let platform: UcpPlatform;

/** The inputs each service asks for (its required ones, some optional ones too). */
const INPUTS: Record<string, Record<string, string>> = {
  'ai-receptionist': {
    business_name: 'Northwind Clinic',
    contact_email: 'ops@northwind.example',
    services: 'checkups',
  },
  'website-booking': { business_name: 'Northwind Clinic', industry: 'dental', services: 'checkups, cleaning' },
  'automation-wf': { workflow_type: 'new order notification', source_app: 'Shopify', target_app: 'Slack' },
  'task-worker': { task_prompt: 'Write three subject lines for a spring sale e-mail', format: 'markdown' },
  'smart-consultation': { type: 'market_entry', description: 'Opening a bicycle shop in Lisbon' },
  'robot-control-system': {
    robot_type: 'six-axis arm',
    controller: 'ROS 2 Humble',
    objective: 'pick and place parcels',
  },
  'agent-development': { use_case: 'answer supplier e-mails', tools_required: 'Gmail, Airtable' },
  'integration-project': { systems: 'Shopify, NetSuite', direction: 'bidirectional', volume: '5k orders per day' },
  'automation-audit': { business_description: 'Logistics company typing phone orders into Excel' },
  'starter-pack': { business_name: 'Northwind Bikes', industry: 'retail', contact_email: 'ops@northwind.example' },
  'clinic-pack': { business_name: 'Northwind Clinic', practice_type: 'dental', contact_email: 'ops@northwind.example' },
  'store-pack': { business_name: 'Northwind Store', category: 'bicycles', contact_email: 'ops@northwind.example' },
  'growth-pack': { business_name: 'Northwind Bikes', growth_goals: 'more bookings', contact_email: 'ops@nw.example' },
  'robotics-bundle': { objective: 'pick and place parcels', contact_email: 'ops@northwind.example' },
};

const total = (checkout: Record<string, any>): number =>
  checkout.totals.find((t: { type: string }) => t.type === 'total').amount as number;

beforeAll(async () => {
  stack = await startStack();
  profiles = await profileServer();
  const key = platformKey('shop-2026');
  profiles.set('/shop/.well-known/ucp', platformProfile([key.jwk], `${profiles.base}/hooks/shop`));
  platform = new UcpPlatform(stack, `${profiles.base}/shop/.well-known/ucp`, {
    privateKey: key.privateKey,
    kid: 'shop-2026',
  });
}, 120_000);

afterAll(async () => {
  await profiles?.close();
  await stack?.stop();
});

/** Opens a checkout of `serviceId` with its inputs: ready_for_complete, validated against checkout.json. */
async function ready(serviceId: string): Promise<Record<string, any>> {
  const body = {
    line_items: [{ item: { id: serviceId }, quantity: 1 }],
    buyer: { email: 'buyer@example.com' },
    service_inputs: INPUTS[serviceId],
  };
  ucpConforms(UCP.checkout, body, 'create');
  const res = await platform.send('create_checkout', { body });
  expect(res.status).toBe(201);
  ucpConforms(UCP.checkout, res.body);
  expect({ id: serviceId, status: res.body.status }).toEqual({ id: serviceId, status: 'ready_for_complete' });
  return res.body as Record<string, any>;
}

test('all 14 services bought on each handler they offer (agent wallet, hosted link); the books reconcile', async () => {
  const listed = await stack.call('GET', '/api/v1/services');
  expect(listed.status).toBe(200);
  const services = (
    listed.body.services as { id: string; billing: string; automation_level: string; payment_rails: string[] }[]
  ).map((s) => s);
  expect(services).toHaveLength(14);
  expect(Object.keys(INPUTS).sort()).toEqual(services.map((s) => s.id).sort());

  const agentKey = await fundedAgent(stack, 'ucp-all', 5_000);
  const before = await stack.services.wallets.balance('ucp-all');
  const bought: { serviceId: string; orderId: string; cents: number; expert: boolean; rail: string }[] = [];

  for (const service of services) {
    const checkout = await ready(service.id);
    // The monthly service sells its first month; the checkout says renewals are invoices (never this token again).
    const info = (checkout.messages ?? []).filter((m: { type: string }) => m.type === 'info');
    expect(info.map((m: { code: string }) => m.code)).toEqual(service.billing === 'monthly' ? ['billing'] : []);
    const delegated = await stack.call(
      'POST',
      '/agentic_commerce/delegate_payment',
      {
        allowance: {
          reason: 'one_time',
          max_amount: total(checkout),
          currency: 'usd',
          checkout_session_id: checkout.id,
          merchant_id: 'agent-commerce',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      },
      { authorization: `Bearer ${agentKey}`, 'api-version': '2026-04-17', 'idempotency-key': `all-${service.id}` },
    );
    expect(delegated.status).toBe(201);
    const body = {
      payment: {
        instruments: [
          {
            id: 'pi_w',
            handler_id: 'agent_wallet',
            type: 'agent_wallet',
            selected: true,
            credential: { type: 'delegated_token', token: delegated.body.id },
          },
        ],
      },
    };
    ucpConforms(UCP.checkout, body, 'complete');
    const res = await platform.send('complete_checkout', { id: checkout.id, body });
    expect(res.status).toBe(200);
    ucpConforms(UCP.checkout, res.body);
    expect({ id: service.id, status: res.body.status }).toEqual({ id: service.id, status: 'completed' });
    bought.push({
      serviceId: service.id,
      orderId: res.body.order.id,
      cents: total(checkout),
      expert: service.automation_level === 'expert_delivery',
      rail: 'agent_wallet',
    });
  }

  // The hosted link, for every service that offers it: the buyer pays on the hosted page the checkout hands over.
  for (const service of services.filter((s) => s.payment_rails.includes('linkpay_ncp'))) {
    const linked = await ready(service.id);
    const esc = await platform.send('complete_checkout', {
      id: linked.id,
      body: { payment: { instruments: [{ id: 'pi_h', handler_id: 'hosted_link', type: 'hosted_link' }] } },
    });
    ucpConforms(UCP.checkout, esc.body);
    expect({ id: service.id, status: esc.body.status }).toEqual({ id: service.id, status: 'requires_escalation' });
    const link = new URL(esc.body.continue_url as string);
    const pay = await fetch(`${stack.url}${link.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: link.searchParams.get('secret') ?? '', email: 'buyer@example.com' }),
    });
    expect(pay.status).toBe(200);
    const linkedOrder = link.pathname.split('/').pop() as string;
    await waitForOrder(stack, linkedOrder, (o) => o.status !== 'awaiting_payment');
    const after = await platform.send('get_checkout', { id: linked.id });
    ucpConforms(UCP.checkout, after.body);
    expect(after.body.status).toBe('completed');
    bought.push({
      serviceId: service.id,
      orderId: linkedOrder,
      cents: total(linked),
      expert: service.automation_level === 'expert_delivery',
      rail: 'link',
    });
  }

  expect(bought.filter((b) => b.rail === 'agent_wallet')).toHaveLength(14);
  expect(bought.filter((b) => b.rail === 'link')).toHaveLength(14);
  // The books: the wallet paid exactly the wallet checkouts' totals; each order was paid its total once.
  const walletCents = bought.filter((b) => b.rail === 'agent_wallet').reduce((s, b) => s + b.cents, 0);
  expect(before - (await stack.services.wallets.balance('ucp-all'))).toBe(walletCents * 10_000);
  for (const b of bought) {
    const order = await waitForOrder(
      stack,
      b.orderId,
      (o) => o.status === 'delivered' || (b.expert && o.status === 'in_engineering'),
      60_000,
    );
    const doc = await stack.services.orders.get(b.orderId);
    expect({ id: b.serviceId, service: order.service_id, amount: doc?.amount_micros }).toEqual({
      id: b.serviceId,
      service: b.serviceId,
      amount: b.cents * 10_000,
    });
    expect(doc?.payment).toBeTruthy();
  }
  expect(await stack.services.db.orders.countDocuments({ agent_id: 'ucp-all' })).toBe(14);
}, 240_000);
