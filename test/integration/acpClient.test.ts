/**
 * An ACP client generated from the copied OpenAPI (test/generated/acp.ts, `npm run gen:acp`: openapi-typescript over
 * test/fixtures/acp-2026-04-17/openapi.agentic_checkout.yaml; requests through openapi-fetch) buys every service of
 * the catalogue (GET /api/v1/services) on each payment handler: the agent wallet (a delegated token), the hosted
 * link (requires_escalation, then Pay on the hosted page) and x402 (where the service is sold over x402). Every answer
 * is validated against the copied JSON schemas. The monthly service sells its first month (renewals are invoices,
 * test/integration/subscriptions.test.ts). The books:
 * the wallet is debited exactly the sessions' totals, the buyer's USDC exactly the x402 totals.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import type { components, paths } from '../generated/acp';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import { ACP_VERSION, conforms, issuePlatform } from '../helpers/acpSpec';
import { signPayment, startX402Chain, type X402Chain } from '../helpers/x402';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';

let stack: Stack;
let chain: X402Chain;
let acp: Client<paths>;
let agentKey: string;
let platformKey: string;

/** The ACP headers the spec requires, typed by the generated client; a fresh Idempotency-Key each time. */
const header = () => ({
  Authorization: `Bearer ${platformKey}`,
  'Content-Type': 'application/json',
  'API-Version': ACP_VERSION,
  'Idempotency-Key': randomUUID(),
});
const AGENT = 'acp-client-buyer';

interface CatalogueService {
  id: string;
  billing: string;
  payment_rails: string[];
  inputs: Record<string, string>;
}
let services: CatalogueService[];

/** A value for each required input (an email where the name says so). */
const inputsOf = (s: CatalogueService): Record<string, string> =>
  Object.fromEntries(
    Object.entries(s.inputs)
      .filter(([, requirement]) => requirement === 'required')
      .map(([name]) => [name, name.includes('email') ? 'buyer@example.com' : `${name} for ${s.id}`]),
  );

type Session = Record<string, any>;
type PaymentData = components['schemas']['PaymentData'];

/** Opens a ready session of `service` with the generated client; returns it and its total in cents. */
async function open(service: CatalogueService): Promise<{ session: Session; total: number }> {
  const { data, error, response } = await acp.POST('/checkout_sessions', {
    params: { header: header() },
    body: {
      line_items: [{ id: service.id }],
      currency: 'usd',
      capabilities: {},
      metadata: { inputs: inputsOf(service) },
    },
  });
  expect({ status: response.status, error }).toEqual({ status: 201, error: undefined });
  conforms('checkout#/$defs/CheckoutSession', data);
  const session = data as Session;
  expect({ id: service.id, status: session.status }).toEqual({ id: service.id, status: 'ready_for_payment' });
  const total = (session.totals as { type: string; amount: number }[]).find((t) => t.type === 'total')?.amount ?? 0;
  return { session, total };
}

/** Completes `sessionId` with `payment_data`; validates the answer. */
async function complete(sessionId: string, paymentData: PaymentData, buyer?: { email: string }) {
  const { data, error, response } = await acp.POST('/checkout_sessions/{checkout_session_id}/complete', {
    params: { header: header(), path: { checkout_session_id: sessionId } },
    body: { payment_data: paymentData, ...(buyer ? { buyer } : {}) },
  });
  if (error) throw new Error(`complete ${sessionId}: ${response.status} ${JSON.stringify(error)}`);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', data);
  return data as Session;
}

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
  platformKey = await issuePlatform(stack, 'generated-client');
  agentKey = await fundedAgent(stack, AGENT, 5000);
  acp = createClient<paths>({ baseUrl: stack.url });
  const catalogue = await stack.call('GET', '/api/v1/services');
  services = catalogue.body.services as CatalogueService[];
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

test('the catalogue has 14 services; the monthly one sells its first month and says how renewals are billed', async () => {
  expect(services).toHaveLength(14);
  const monthly = services.filter((s) => s.billing === 'monthly');
  expect(monthly.map((s) => s.id)).toEqual(['ai-receptionist']);
  const { session } = await open(monthly[0]!);
  const info = (session.messages as { type: string; content: string }[]).filter((m) => m.type === 'info');
  expect(info).toHaveLength(1);
  expect(info[0]?.content).toMatch(/billed monthly: this payment is the first month\. Each renewal is an invoice/);
});

test('buys each of the 14 services on every handler it offers: wallet, hosted link, x402; the books reconcile', async () => {
  const walletBefore = await stack.services.wallets.balance(AGENT);
  const usdcBefore = await chain.balance(ANVIL_ADDRESSES.buyer);
  let walletCents = 0;
  let x402Cents = 0;
  const orders: string[] = [];
  const bought: string[] = [];

  for (const service of services) {
    // The agent wallet: a delegated token for exactly the total.
    {
      const { session, total } = await open(service);
      const delegated = await stack.call(
        'POST',
        '/agentic_commerce/delegate_payment',
        {
          allowance: {
            reason: 'one_time',
            max_amount: total,
            currency: 'usd',
            checkout_session_id: session.id,
            merchant_id: 'agent-commerce',
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          },
        },
        { authorization: `Bearer ${agentKey}`, 'api-version': ACP_VERSION, 'idempotency-key': randomUUID() },
      );
      expect(delegated.status).toBe(201);
      const done = await complete(session.id as string, {
        handler_id: 'agent_wallet',
        instrument: { type: 'wallet_token', credential: { type: 'spt', token: delegated.body.id } },
      });
      expect(done.status).toBe('completed');
      walletCents += total;
      orders.push(done.order.id as string);
      bought.push(`${service.id} agent_wallet`);
    }
    // The hosted link: escalation, then Pay on the hosted page, then the session reads completed.
    {
      const { session } = await open(service);
      const escalated = await complete(
        session.id as string,
        { handler_id: 'hosted_link', instrument: { type: 'hosted_link', credential: { type: 'none', token: 'none' } } },
        { email: 'human@example.com' },
      );
      expect(escalated.status).toBe('requires_escalation');
      const link = new URL(escalated.continue_url as string);
      const pay = await fetch(new URL(link.pathname, stack.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: link.searchParams.get('secret') ?? '', email: 'human@example.com' }),
      });
      expect(pay.status).toBe(200);
      await waitForOrder(stack, escalated.order.id as string, (o) => o.payment !== null);
      const { data } = await acp.GET('/checkout_sessions/{checkout_session_id}', {
        params: { header: header(), path: { checkout_session_id: session.id as string } },
      });
      conforms('checkout#/$defs/CheckoutSessionWithOrder', data);
      expect((data as Session).status).toBe('completed');
      orders.push(escalated.order.id as string);
      bought.push(`${service.id} hosted_link`);
    }
    // x402, where the service is sold over it: the handler's requirements, signed by the buyer.
    {
      const { session, total } = await open(service);
      const handler = (session.capabilities.payment.handlers as { id: string; config: any }[]).find(
        (h) => h.id === 'x402',
      );
      expect(handler !== undefined).toBe(service.payment_rails.includes('x402_usdc'));
      if (handler) {
        const payload = await signPayment({
          x402Version: 2,
          resource: { url: `${stack.url}/checkout_sessions/${session.id}/complete`, description: '', mimeType: '' },
          accepts: handler.config.accepts as PaymentRequirements[],
        });
        const done = await complete(session.id as string, {
          handler_id: 'x402',
          instrument: {
            type: 'x402',
            credential: { type: 'x402_payment_payload', token: encodePaymentSignatureHeader(payload) },
          },
        });
        expect(done.status).toBe('completed');
        x402Cents += total;
        orders.push(done.order.id as string);
        bought.push(`${service.id} x402`);
      } else {
        const { response } = await acp.POST('/checkout_sessions/{checkout_session_id}/cancel', {
          params: { header: header(), path: { checkout_session_id: session.id as string } },
          body: {},
        });
        expect(response.status).toBe(200);
      }
    }
  }

  expect(bought).toHaveLength(14 * 2 + 10);
  // The books: the wallet paid exactly the wallet sessions' totals, the buyer's USDC exactly the x402 totals.
  expect(walletBefore - (await stack.services.wallets.balance(AGENT))).toBe(walletCents * 10_000);
  expect(usdcBefore - (await chain.balance(ANVIL_ADDRESSES.buyer))).toBe(BigInt(x402Cents * 10_000));
  // One paid order per purchase, each for its session's total.
  const paid = await stack.services.db.orders.find({ _id: { $in: orders } }).toArray();
  expect(paid).toHaveLength(orders.length);
  expect(paid.every((o) => o.payment !== null)).toBe(true);
}, 90_000);
