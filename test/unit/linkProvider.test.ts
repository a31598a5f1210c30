/**
 * Issue 37 §3: the local payment-link provider is a test-mode default. Its page says so, and a deployment that
 * declares itself production (DEPLOYMENT_ENV) is refused at start with it; Stripe needs both of its keys.
 */
import { ZodError } from 'zod';
import { loadConfig } from '../../src/config';
import { checkoutBody } from '../../src/routes/api/pay/pages';
import type { OrderDoc } from '../../src/db';

/** The zod issues of a refused configuration, as `VARIABLE: message`. */
function refusal(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ZodError) return err.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw err;
  }
  return [];
}

const stripe = {
  LINK_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_live_0123456789',
  STRIPE_WEBHOOK_SECRET: 'whsec_0123456789',
};

test('the local provider is the default, and refused in production', () => {
  expect(loadConfig({}).LINK_PROVIDER).toBe('local');
  expect(loadConfig({ DEPLOYMENT_ENV: 'staging' }).LINK_PROVIDER).toBe('local');
  expect(refusal({ DEPLOYMENT_ENV: 'production' })).toEqual([
    expect.stringMatching(/^LINK_PROVIDER: the local payment-link provider takes no money \(test mode\)/),
  ]);
  // NODE_ENV is the image's, not a declaration of production.
  expect(loadConfig({ NODE_ENV: 'production' }).LINK_PROVIDER).toBe('local');
  expect(loadConfig({ DEPLOYMENT_ENV: 'production', ...stripe }).LINK_PROVIDER).toBe('stripe');
});

test('Stripe needs its keys, and no mock address in production', () => {
  expect(refusal({ LINK_PROVIDER: 'stripe' })).toEqual([
    'STRIPE_SECRET_KEY: required with LINK_PROVIDER=stripe',
    'STRIPE_WEBHOOK_SECRET: required with LINK_PROVIDER=stripe',
  ]);
  expect(refusal({ DEPLOYMENT_ENV: 'production', ...stripe, STRIPE_API_BASE: 'http://127.0.0.1:12111' })).toEqual([
    expect.stringMatching(/^STRIPE_API_BASE: /),
  ]);
});

test("the local provider's checkout says it is test mode; Stripe's says the card goes to Stripe", () => {
  const order = {
    _id: 'ord_test',
    service_id: 'automation-wf',
    amount_micros: 69_000_000,
    inputs: {},
    email: null,
    payment_deadline: new Date('2026-12-03T00:00:00Z'),
  } as unknown as OrderDoc;
  const local = checkoutBody(order, undefined, undefined);
  expect(local).toContain('id="test-mode"');
  expect(local).toContain('no card is charged and no money moves');
  const card = checkoutBody(order, undefined, undefined, 'stripe');
  expect(card).not.toContain('test-mode');
  expect(card).toContain('Stripe’s secure payment page');
});
