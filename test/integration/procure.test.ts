/**
 * Agents find and buy without a human (issue 4) against a real Temporal server and a real MongoDB-wire database:
 * discovery and negotiation over HTTP, goal-based procurement (201 / 402 / 422 / auto_purchase false / keys), partner
 * commissions (pending on payment, listing, cancelled on reject, self-referral) and trust telemetry that moves with traffic.
 */
import type { UptimeSampleDoc } from '../../src/db';
import { uptimeWindow } from '../../src/telemetry/uptime';
import { startStack, waitForOrder, fundedAgent, OPERATOR_KEY, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('discovery and negotiation over HTTP', () => {
  test('GET /api/v1/discover filters and explains; bad values are 400 naming the parameter', async () => {
    const res = await stack.call(
      'GET',
      '/api/v1/discover?capability=appointment&budget_max=70&billing=one-time&region=europe&language=ar&payment_rail=x402_usdc&max_fulfillment=24&min_sla=99.5&automation=fully_automated_core',
    );
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.services[0]).toMatchObject({
      id: 'website-booking',
      price: 69,
      linkpay_url: `${stack.url}/pay/services/website-booking`,
    });
    expect(Object.keys(res.body.services[0].matched_because).sort()).toEqual(
      [
        'automation',
        'billing',
        'budget_max',
        'capability',
        'language',
        'max_fulfillment',
        'min_sla',
        'payment_rail',
        'region',
      ].sort(),
    );
    const all = await stack.call('GET', '/api/v1/discover');
    expect(all.body.count).toBe(14);
    for (const [query, param] of [
      ['budget_max=cheap', 'budget_max'],
      ['billing=weekly', 'billing'],
      ['max_fulfillment=-2', 'max_fulfillment'],
      ['min_sla=120', 'min_sla'],
      ['colour=blue', 'colour'],
    ]) {
      const bad = await stack.call('GET', `/api/v1/discover?${query}`);
      expect([bad.status, bad.body.code, bad.body.param]).toEqual([400, 'invalid_request', param]);
      expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
    }
  });

  test('POST /api/v1/capabilities/negotiate sorts by coverage then price; conflicts are excluded; empty is 400', async () => {
    const res = await stack.call('POST', '/api/v1/capabilities/negotiate', {
      required_capabilities: ['web_chat', 'whatsapp_booking', 'voice_calls'],
    });
    expect(res.status).toBe(200);
    expect(res.body.excluded.map((e: { service_id: string }) => e.service_id)).toContain('ai-receptionist');
    expect(res.body.matches.map((m: { service_id: string }) => m.service_id)).not.toContain('ai-receptionist');
    const ok = await stack.call('POST', '/api/v1/capabilities/negotiate', {
      required_capabilities: ['rag_pipeline', 'api_integration'],
    });
    const order = ok.body.matches.map((m: { service_id: string; coverage: number; agent_price: number }) => [
      m.service_id,
      m.coverage,
      m.agent_price,
    ]);
    // agent-development alone covers both; then the services covering one, cheapest first.
    expect(order[0]).toEqual(['agent-development', 1, 299]);
    expect(order[1]).toEqual(['automation-wf', 0.5, 69]);
    expect(order.slice(1).map((o: [string, number, number]) => o[2])).toEqual(
      [...order.slice(1).map((o: [string, number, number]) => o[2])].sort((a, b) => a - b),
    );
    expect(ok.body.matches[0]).toMatchObject({ fully_covered: true, missing: [] });
    for (const body of [{}, { required_capabilities: [] }, { required_capabilities: ['--'] }]) {
      const bad = await stack.call('POST', '/api/v1/capabilities/negotiate', body);
      expect([bad.status, bad.body.param]).toEqual([400, 'required_capabilities']);
    }
  });
});

describe('goal-based procurement', () => {
  test('201: plans, quotes, orders and pays from the wallet; the order is then delivered', async () => {
    const key = await fundedAgent(stack, 'buyer-ok', 100);
    const res = await stack.call(
      'POST',
      '/api/v1/procure',
      {
        objective: 'An n8n workflow to sync new Typeform leads into HubSpot',
        budget: 80,
        agent_id: 'buyer-ok',
        inputs: automationInputs,
      },
      bearer(key),
    );
    expect(res.status).toBe(201);
    expect(res.body.procurement_id).toMatch(/^prc_/);
    expect(res.body.status).toBe('completed');
    expect(res.body.service.id).toBe('automation-wf');
    expect(res.body.plan.chosen).toMatchObject({ service_id: 'automation-wf', agent_price: 69 });
    expect(res.body.plan.explanation.join('\n')).toMatch(/chose automation-wf/);
    expect(res.body.quote).toMatchObject({ service_id: 'automation-wf', amount: 69, is_agent: true });
    expect(res.body.order).toMatchObject({
      service_id: 'automation-wf',
      agent_id: 'buyer-ok',
      quote_id: res.body.quote.quote_id,
    });
    expect(res.body.order.payment).toMatchObject({ rail: 'agent_wallet', amount: 69 });
    expect(res.headers.get('location')).toBe(`/api/v1/procurements/${res.body.procurement_id}`);

    const delivered = await waitForOrder(stack, res.body.order.order_id, (o) => o.status === 'delivered');
    expect(delivered.deliverables.length).toBeGreaterThan(0);
    const wallet = await stack.call('GET', '/api/v1/wallets/buyer-ok', undefined, bearer(key));
    expect(wallet.body.balance_micros).toBe(31_000_000);

    // The workflow is `procurement-<id>`, its search attribute ends `completed`, and the event was recorded.
    const desc = await stack.client.workflow.getHandle(`procurement-${res.body.procurement_id}`).describe();
    expect(desc.typedSearchAttributes.getAll().find((p) => p.key.name === 'ProcurementStatus')?.value).toBe(
      'completed',
    );
    expect(await desc.staticSummary()).toContain(res.body.procurement_id);
    const history = JSON.stringify(
      (await stack.client.workflow.getHandle(`procurement-${res.body.procurement_id}`).fetchHistory()).events,
    );
    expect(history).not.toContain(key);
    const event = await stack.services.db.events.findOne({ order_id: res.body.procurement_id });
    expect(event).toMatchObject({
      type: 'procurement.completed',
      data: { order_id: res.body.order.order_id, procurement_id: res.body.procurement_id },
    });
    const stored = await stack.call('GET', `/api/v1/procurements/${res.body.procurement_id}`);
    expect(stored.body).toMatchObject({ status: 'completed', service: { id: 'automation-wf' } });
  });

  test('auto_purchase false: 201 with plan and quote, nothing bought, no key needed', async () => {
    const res = await stack.call('POST', '/api/v1/procure', {
      objective: 'AI receptionist answering FAQ on WhatsApp',
      auto_purchase: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'planned',
      order: null,
      service: { id: 'ai-receptionist' },
      quote: { service_id: 'ai-receptionist', amount: 39 },
    });
    expect(res.body.plan.budget).toBe(100);
    expect(res.body.plan.missing_inputs).toEqual(['business_name', 'contact_email', 'services']);
    expect(await stack.services.db.orders.countDocuments({ quote_id: res.body.quote.quote_id })).toBe(0);
  });

  test('402: the wallet cannot pay; the order stays awaiting_payment and nothing is charged', async () => {
    const key = await fundedAgent(stack, 'buyer-poor', 20);
    const res = await stack.call(
      'POST',
      '/api/v1/procure',
      { objective: 'n8n workflow automation', agent_id: 'buyer-poor', inputs: automationInputs },
      bearer(key),
    );
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: 'insufficient_funds',
      balance_micros: 20_000_000,
      amount_micros: 69_000_000,
    });
    expect(res.body.order).toMatchObject({ status: 'awaiting_payment', service_id: 'automation-wf' });
    expect(res.body.procurement_id).toMatch(/^prc_/);
    const wallet = await stack.call('GET', '/api/v1/wallets/buyer-poor', undefined, bearer(key));
    expect(wallet.body.balance_micros).toBe(20_000_000);
    const stored = await stack.call('GET', `/api/v1/procurements/${res.body.procurement_id}`);
    expect(stored.body).toMatchObject({ status: 'payment_failed', failure: { code: 'insufficient_funds' } });
  });

  test('422: nothing matches, saying what is missing', async () => {
    const key = await fundedAgent(stack, 'buyer-422', 1000);
    const unknown = await stack.call(
      'POST',
      '/api/v1/procure',
      { objective: 'robots', requirements: ['teleportation'], agent_id: 'buyer-422' },
      bearer(key),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('no_matching_service');
    expect(unknown.body.missing[0]).toMatch(/teleportation/);
    const budget = await stack.call(
      'POST',
      '/api/v1/procure',
      { objective: 'ROS2 robot control for a pick-and-place arm', budget: 100, agent_id: 'buyer-422' },
      bearer(key),
    );
    expect(budget.status).toBe(422);
    expect(budget.body.missing.join(' ')).toMatch(
      /budget: the cheapest matching service, .* costs \d+ USD, above the budget of 100 USD/,
    );
    const filters = await stack.call(
      'POST',
      '/api/v1/procure',
      { requirements: ['ros2', 'language:es'], budget: 1000, agent_id: 'buyer-422' },
      bearer(key),
    );
    expect(filters.status).toBe(422);
    expect(filters.body.missing.join(' ')).toMatch(/fails language=es/);
    const inputs = await stack.call(
      'POST',
      '/api/v1/procure',
      { objective: 'booking website', agent_id: 'buyer-422' },
      bearer(key),
    );
    expect(inputs.status).toBe(422);
    expect(inputs.body).toMatchObject({ code: 'missing_inputs', missing: ['business_name', 'industry', 'services'] });
    expect(await stack.services.db.orders.countDocuments({ agent_id: 'buyer-422' })).toBe(0);
  });

  test('buying needs the agent key: 400 without agent_id, 401 without key, 403 with a wrong one; bad bodies 400', async () => {
    await fundedAgent(stack, 'buyer-keys', 100);
    const body = { objective: 'summarize a document', agent_id: 'buyer-keys' };
    const noAgent = await stack.call('POST', '/api/v1/procure', { objective: 'summarize a document' });
    expect([noAgent.status, noAgent.body.param]).toEqual([400, 'agent_id']);
    expect((await stack.call('POST', '/api/v1/procure', body)).status).toBe(401);
    expect((await stack.call('POST', '/api/v1/procure', body, bearer('ak_wrong'))).status).toBe(403);
    expect(
      (await stack.call('POST', '/api/v1/procure', { ...body, agent_id: 'nobody-has-this' }, bearer('ak_wrong')))
        .status,
    ).toBe(403);
    const badBudget = await stack.call('POST', '/api/v1/procure', { ...body, budget: -5 });
    expect([badBudget.status, badBudget.body.param]).toEqual([400, 'budget']);
    const badCurrency = await stack.call('POST', '/api/v1/procure', { ...body, currency: 'EUR' });
    expect([badCurrency.status, badCurrency.body.param]).toEqual([400, 'currency']);
    const badRequirement = await stack.call('POST', '/api/v1/procure', {
      ...body,
      requirements: ['ok', 'language:xx'],
    });
    expect([badRequirement.status, badRequirement.body.param]).toEqual([400, 'requirements.1']);
    expect(await stack.services.db.procurements.countDocuments({ agent_id: 'buyer-keys' })).toBe(0);
  });
});

describe('partner commissions', () => {
  test('20% of the payment is recorded pending on payment, listed for the partner, and cancelled when the buyer rejects', async () => {
    const buyerKey = await fundedAgent(stack, 'buyer-partnered', 100);
    const partnerKey = await fundedAgent(stack, 'partner-a', 0);
    const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf', partner_id: 'partner-a' });
    expect(quote.body.commission_micros).toBe(13_800_000);
    const order = await stack.call('POST', '/api/v1/orders', {
      quote_id: quote.body.quote_id,
      agent_id: 'buyer-partnered',
      inputs: automationInputs,
    });
    const id = order.body.order_id as string;
    expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(buyerKey))).status).toBe(200);
    await waitForOrder(stack, id, (o) => o.status === 'delivered');

    const noKey = await stack.call('GET', '/api/v1/partners/partner-a/commissions');
    expect(noKey.status).toBe(401);
    expect(
      (await stack.call('GET', '/api/v1/partners/partner-a/commissions', undefined, bearer(buyerKey))).status,
    ).toBe(403);
    const listed = await stack.call('GET', '/api/v1/partners/partner-a/commissions', undefined, bearer(partnerKey));
    expect(listed.status).toBe(200);
    expect(listed.body.commissions).toEqual([
      expect.objectContaining({
        id: `commission:${id}`,
        order_id: id,
        status: 'pending',
        payment_micros: 69_000_000,
        commission_micros: 13_800_000,
        commission: 13.8,
        percent: 20,
      }),
    ]);
    expect(listed.body.totals).toMatchObject({ pending_micros: 13_800_000, credited_micros: 0, net_micros: 0 });
    // Not spendable before the order is final (issue 10 §3).
    const partnerWallet = await stack.call('GET', '/api/v1/wallets/partner-a', undefined, bearer(partnerKey));
    expect(partnerWallet.body.balance_micros).toBe(0);
    expect(partnerWallet.body.transactions).toEqual([]);

    const rejected = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'reject', reason: 'not what I asked' },
      bearer(buyerKey),
    );
    expect(rejected.body.status).toBe('rejected');
    const after = await stack.call('GET', '/api/v1/partners/partner-a/commissions', undefined, {
      'x-operator-key': OPERATOR_KEY,
    });
    expect(after.body.commissions[0]).toMatchObject({ status: 'cancelled', credit_tx_id: null, reversal_tx_id: null });
    expect(after.body.totals).toMatchObject({
      pending_micros: 0,
      cancelled_micros: 13_800_000,
      credited_micros: 0,
      net_micros: 0,
    });
    const partnerAfter = await stack.call('GET', '/api/v1/wallets/partner-a', undefined, bearer(partnerKey));
    expect(partnerAfter.body.balance_micros).toBe(0);
    const buyerAfter = await stack.call('GET', '/api/v1/wallets/buyer-partnered', undefined, bearer(buyerKey));
    expect(buyerAfter.body.balance_micros).toBe(100_000_000);
  });

  test('self-referral earns nothing (the owed reversal of orders paid before issue 10: commissionInvariant.test.ts)', async () => {
    const selfKey = await fundedAgent(stack, 'self-referrer', 100);
    const selfQuote = await stack.call('POST', '/api/v1/quote', {
      service_id: 'smart-consultation',
      partner_id: 'self-referrer',
    });
    const selfOrder = await stack.call('POST', '/api/v1/orders', {
      quote_id: selfQuote.body.quote_id,
      agent_id: 'self-referrer',
      inputs: { type: 'market_entry', description: 'Opening a shop in Lisbon' },
    });
    await stack.call('POST', `/api/v1/orders/${selfOrder.body.order_id}/confirm_payment`, {}, bearer(selfKey));
    await waitForOrder(stack, selfOrder.body.order_id, (o) => o.status === 'delivered');
    const selfList = await stack.call('GET', '/api/v1/partners/self-referrer/commissions', undefined, bearer(selfKey));
    expect(selfList.body.commissions[0]).toMatchObject({
      status: 'not_eligible',
      commission_micros: 0,
      reason: 'the partner is the buying agent',
    });
    expect(await stack.services.wallets.balance('self-referrer')).toBe(99_000_000);
  });
});

describe('trust telemetry', () => {
  test('GET /api/v1/trust/status reports measured figures that move with traffic, beside the declared targets', async () => {
    const before = await stack.call('GET', '/api/v1/trust/status');
    expect(before.status).toBe(200);
    const discoverBefore = before.body.latency.groups.discover?.count ?? 0;
    for (let i = 0; i < 5; i++) await stack.call('GET', '/api/v1/discover?capability=ros2');
    await stack.call('POST', '/api/v1/orders', { service_id: 'automation-wf', inputs: automationInputs });
    const after = await stack.call('GET', '/api/v1/trust/status');
    const discover = after.body.latency.groups.discover;
    expect(discover.count).toBe(discoverBefore + 5);
    expect(discover.p50_ms).toBeGreaterThan(0);
    expect(discover.p50_ms).toBeLessThanOrEqual(discover.p95_ms);
    expect(discover.p95_ms).toBeLessThanOrEqual(discover.p99_ms);
    expect(after.body.orders.by_status.awaiting_payment).toBe((before.body.orders.by_status.awaiting_payment ?? 0) + 1);
    expect(after.body.orders.total).toBe(before.body.orders.total + 1);

    // Uptime comes from the heartbeat minutes this API wrote.
    expect(after.body.uptime.process.uptime_seconds).toBeGreaterThan(0);
    expect(after.body.uptime.windows.last_hour.minutes_up).toBeGreaterThanOrEqual(1);
    expect(after.body.uptime.windows.last_hour.share).toBeGreaterThan(0);

    // Fulfillment of the orders delivered above, against max_fulfillment_hours.
    const wf = after.body.fulfillment.services.find((s: { service_id: string }) => s.service_id === 'automation-wf');
    expect(wf.declared).toMatchObject({ sla: '99.9%', max_fulfillment_hours: 0.05 });
    expect(wf.measured.delivered).toBeGreaterThanOrEqual(2);
    expect(wf.measured.p50_hours).toBeLessThan(0.05);
    expect(wf.measured.sla_met).toBe(wf.measured.sla_decided);
    expect(after.body.fulfillment.overall.sla_met_share).toBe(1);
    const robot = after.body.fulfillment.services.find(
      (s: { service_id: string }) => s.service_id === 'robot-control-system',
    );
    expect(robot.measured).toMatchObject({ delivered: 0, p50_hours: null, sla_met_share: null });
    expect(after.body.sla.declared).toHaveLength(14);
  });

  test('uptime counts missing minutes as downtime', async () => {
    // A collection of its own, so this API's live heartbeats do not mix in.
    const db = {
      ...stack.services.db,
      uptimeSamples: stack.services.db.db.collection<UptimeSampleDoc>('uptime_samples_fixture'),
    };
    // A service started 10 minutes before `now` that was up for 4 of its 10 complete minutes, and in the current one.
    const now = new Date(Date.UTC(2030, 0, 1, 12, 0, 30));
    const base = Date.UTC(2030, 0, 1, 11, 50);
    for (const m of [0, 1, 2, 7, 10]) {
      const minute = new Date(base + m * 60_000);
      await db.uptimeSamples.insertOne({ _id: `${minute.toISOString().slice(0, 16)}Z`, minute, created_at: minute });
    }
    const w = await uptimeWindow(db, 3_600_000, now);
    expect(w).toMatchObject({ minutes_expected: 11, minutes_up: 5, from: '2030-01-01T11:50:00.000Z' });
    expect(w.share).toBeCloseTo(5 / 11);
    // The last 5 minutes (11:56 to 12:00): up in 11:57 and 12:00 only.
    const recent = await uptimeWindow(db, 5 * 60_000, now);
    expect(recent).toMatchObject({ minutes_expected: 5, minutes_up: 2 });
  });
});
