/**
 * The human pages' HTML (src/routes/payPages.ts) and the words for every input (src/domain/inputLabels.ts), issue 13:
 * every catalogued input has a label and help in words, values are escaped, the stylesheet's hash is the one the
 * CSP allows, and the order page shows files and review controls only to the holder of the order secret.
 */
import { createHash } from 'node:crypto';
import type { OrderDoc } from '../../src/db';
import { SERVICES, getService, priceMicros } from '../../src/domain/catalogue';
import { inputField, inputsWithoutWords } from '../../src/domain/inputLabels';
import type { Context } from 'koa';
import {
  PAGE_CSP,
  checkoutBody,
  orderPageBody,
  sendPage,
  serviceFormBody,
  sizeInWords,
} from '../../src/routes/api/pay/pages';

const EVIL = `<script>alert(1)</script>"'&`;

/** A delivered order without agent, as the read model holds it. */
function deliveredOrder(over: Partial<OrderDoc> = {}): OrderDoc {
  const at = '2026-11-22T10:57:54.033Z';
  return {
    _id: 'ord_AAAAAAAAAAAAAAAAAAAAAA',
    service_id: 'automation-wf',
    quote_id: null,
    agent_id: null,
    email: 'h@example.com',
    webhook_url: null,
    partner_id: null,
    buyer_secret_hash: 'a'.repeat(64),
    inputs: { workflow_type: EVIL, source_app: 'Typeform', target_app: 'HubSpot' },
    amount_micros: 89_000_000,
    currency: 'USD',
    billing: 'one_time',
    is_agent: false,
    rails: ['linkpay_ncp'],
    status: 'delivered',
    version: 4,
    progress: [
      { status: 'awaiting_payment', at },
      { status: 'paid', at },
      { status: 'fulfilling', at },
      { status: 'delivered', at },
    ],
    payment: { rail: 'linkpay_ncp', transaction_id: 'lp_1', amount_micros: 89_000_000, paid_at: at },
    deliverables: [
      {
        name: `a${EVIL}.json`,
        sha256: 'b'.repeat(64),
        size: 5515,
        media_type: 'application/json',
        service_id: 'automation-wf',
      },
    ],
    review: null,
    refund: null,
    failure: null,
    payment_deadline: new Date(at),
    created_at: new Date(at),
    updated_at: new Date(at),
    ...over,
  } as OrderDoc;
}

test('every input of every service has a label and help text in words', () => {
  expect(inputsWithoutWords()).toEqual([]);
  for (const s of SERVICES) {
    for (const name of Object.keys(s.inputs)) {
      const f = inputField(s.id, name);
      expect({ input: `${s.id}.${name}`, raw: f.label.includes('_') || f.label === name }).toEqual({
        input: `${s.id}.${name}`,
        raw: false,
      });
      expect(f.help.length).toBeGreaterThan(5);
    }
  }
  // The fallback for an input the table does not know still reads as words.
  expect(inputField('automation-wf', 'new_input').label).toBe('New input');
});

test('the service form labels each input in words, marks required ones, and refills values escaped', () => {
  const svc = getService('ai-receptionist');
  if (!svc) throw new Error('ai-receptionist missing');
  const html = serviceFormBody(svc, priceMicros(svc, false), { business_name: EVIL }, ['services']);
  expect(html).toContain('>Business name <span class="muted">(required)</span></label>');
  expect(html).toContain('>WhatsApp number <span class="muted">(optional)</span></label>');
  expect(html).not.toMatch(/business_name \*|>business_name</);
  expect(html).toContain('type="tel"');
  expect(html).toContain('Please fill in: Services the receptionist can book.');
  expect(html).not.toContain('<script>');
  expect(html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"');
});

test('the checkout lists the details with their labels, escaped', () => {
  const html = checkoutBody(deliveredOrder({ status: 'awaiting_payment' }), getService('automation-wf'), undefined);
  expect(html).toContain('<dt>What the workflow should do</dt><dd>&lt;script&gt;');
  expect(html).not.toContain('<script>');
  expect(html).toContain('Pay $89.00');
});

test('the order page: files and review only with the secret; names escaped; reloads only while the order moves', () => {
  const doc = deliveredOrder();
  const buyer = orderPageBody(doc, getService('automation-wf'), `os_${'s'.repeat(43)}`, 'buyer');
  expect(buyer.body).toContain('id="deliverables"');
  expect(buyer.body).toContain(`<code class="sha256">${'b'.repeat(64)}</code>`);
  expect(buyer.body).toContain('5,515 bytes (5.5 KB)');
  expect(buyer.body).toContain(
    '/api/v1/orders/ord_AAAAAAAAAAAAAAAAAAAAAA/deliverables/a%3Cscript%3Ealert(1)%3C%2Fscript%3E%22&#39;%26.json',
  );
  expect(buyer.body).toContain('name="action" value="accept"');
  expect(buyer.body).toContain('name="action" value="reject"');
  expect(buyer.body).toContain(`name="secret" value="os_${'s'.repeat(43)}"`);
  expect(buyer.body).not.toContain('<script>');
  expect(buyer.refreshSeconds).toBeUndefined();

  for (const state of ['none', 'wrong'] as const) {
    const other = orderPageBody(doc, getService('automation-wf'), undefined, state);
    expect(other.body).toContain('data-status="delivered"');
    expect(other.body).not.toContain('id="deliverables"');
    expect(other.body).not.toContain('<form');
    expect(other.body).toContain('status only');
  }
  expect(orderPageBody({ ...doc, status: 'fulfilling' }, undefined, undefined, 'none').refreshSeconds).toBeGreaterThan(
    0,
  );
  expect(orderPageBody({ ...doc, status: 'accepted' }, undefined, `os_${'s'.repeat(43)}`, 'buyer').body).not.toContain(
    '<form',
  );
});

test("the CSP allows exactly the pages' stylesheet", () => {
  const svc = getService('automation-wf');
  if (!svc) throw new Error('automation-wf missing');
  // sendPage wraps the body; render one through a minimal Koa-like context.
  const headers: Record<string, string> = {};
  const ctx = { set: (k: string, v: string) => (headers[k] = v), type: '', body: '' } as unknown as Context;
  sendPage(ctx, 'T', serviceFormBody(svc, priceMicros(svc, false)));
  const style = /<style>([\s\S]*?)<\/style>/.exec(String(ctx.body))?.[1] ?? '';
  expect(headers['Content-Security-Policy']).toBe(PAGE_CSP);
  expect(PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
  expect(PAGE_CSP).not.toMatch(/script-src|unsafe-inline/);
  expect(headers['Referrer-Policy']).toBe('no-referrer');
});

test('sizes read in words', () => {
  expect(sizeInWords(1)).toBe('1 byte');
  expect(sizeInWords(999)).toBe('999 bytes');
  expect(sizeInWords(1_840)).toBe('1,840 bytes (1.8 KB)');
  expect(sizeInWords(2_500_000)).toBe('2,500,000 bytes (2.5 MB)');
});
