/**
 * Issue 24 §5: no 5xx from a plan the deployment cannot serve. On a deployment without a text-generation model,
 * discovery marks the model-written services unavailable (with the reason code), and procurement never picks them:
 * when only such a service fits, `POST /api/v1/procure` answers 422 `no_service_available` (nothing ordered, nothing
 * charged, the procurement stored as no_match); when a sellable service also fits, that one is planned.
 */
import { fundedAgent, startStack, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ TEXTGEN_BASE_URL: '', TEXTGEN_MODEL: '' });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** Only smart-consultation (model-written) fits this within 100 USD. */
const consultation = {
  objective: 'business advice on market entry',
  budget: 100,
  inputs: { type: 'market_entry', description: 'Opening a shop in Lisbon' },
};

describe('a deployment without a text model', () => {
  test('GET /api/v1/discover marks the model-written services unavailable with a reason code', async () => {
    const res = await stack.call('GET', '/api/v1/discover?capability=consultation');
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(
      res.body.services.map((s: { id: string; available: boolean; unavailable_reason: string | null }) => [
        s.id,
        [s.available, s.unavailable_reason],
      ]),
    );
    expect(byId['smart-consultation']).toEqual([false, 'text_generation_unavailable']);
    expect(byId['starter-pack']).toEqual([false, 'text_generation_unavailable']);
    expect(res.body.available_count).toBe(0);
    const fine = await stack.call('GET', '/api/v1/discover?capability=website_builder');
    const site = fine.body.services.find((s: { id: string }) => s.id === 'website-booking');
    expect(site).toMatchObject({ available: true, unavailable_reason: null });
  });

  test('POST /api/v1/procure answers 422 no_service_available when only a model-written service fits, never 500', async () => {
    const key = await fundedAgent(stack, 'buyer-no-model', 100);
    const res = await stack.call(
      'POST',
      '/api/v1/procure',
      { ...consultation, agent_id: 'buyer-no-model' },
      bearer(key),
    );
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'no_service_available',
      type: 'https://agent-commerce.dev/problems/no_service_available',
      unavailable: [
        { service_id: 'smart-consultation', reason: 'text_generation_unavailable', missing: expect.any(Array) },
      ],
    });
    expect(res.body.detail).toMatch(/smart-consultation/);
    expect(res.body.procurement_id).toMatch(/^prc_/);
    expect(await stack.services.db.orders.countDocuments({ agent_id: 'buyer-no-model' })).toBe(0);
    expect(await stack.services.wallets.balance('buyer-no-model')).toBe(100_000_000);
    const stored = await stack.call('GET', `/api/v1/procurements/${res.body.procurement_id}`);
    expect(stored.body).toMatchObject({ status: 'no_match', service: null, order: null });

    // Planning only (auto_purchase false) refuses the same way: no quote for a service that cannot be ordered.
    const planned = await stack.call('POST', '/api/v1/procure', { ...consultation, auto_purchase: false });
    expect([planned.status, planned.body.code]).toEqual([422, 'no_service_available']);
  });

  test('a sellable service that also fits is planned instead of the model-written one', async () => {
    // starter-pack (a model-written part) covers all three wishes; website-booking two, and needs no model.
    const res = await stack.call('POST', '/api/v1/procure', {
      objective: 'booking website and business advice',
      budget: 200,
      auto_purchase: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'planned', service: { id: 'website-booking' } });
    // Both would fit but for the model: the consultation (one wish, 1 USD) and starter-pack (every wish).
    expect(res.body.plan.unavailable).toEqual([
      { service_id: 'smart-consultation', reason: 'text_generation_unavailable', missing: expect.any(Array) },
      { service_id: 'starter-pack', reason: 'text_generation_unavailable', missing: expect.any(Array) },
    ]);
  });
});
