/**
 * The texts operators read in the Temporal Web UI (issue 26 §1, workflows/details.ts): current details of each
 * workflow at each state, `WaitingOn` per state, money and time formatting, timeline summaries. Pure functions: no
 * server.
 */
import MarkdownIt from 'markdown-it';
import {
  WAITING_ON_VALUES,
  mdId,
  mdText,
  money,
  orderDetails,
  orderSummaries,
  orderWaitingOn,
  procurementDetails,
  railCurrency,
  reconciliationDetails,
  subscriptionDetails,
  subscriptionWaitingOn,
  taskDetails,
  utc,
  webhookDetails,
  x402Details,
  type OrderDetailsInput,
} from '../../workflows/details';
import { ORDER_STATUSES, type EngineeringRecord, type OrderState } from '../../src/domain/order';
import type { SubscriptionState } from '../../src/domain/subscription';

const T0 = '2026-11-28T14:00:00.000Z';

function order(state: Partial<OrderState>, over: Partial<OrderDetailsInput> = {}): string {
  return orderDetails({
    orderId: 'ord_1',
    serviceId: 'automation-wf',
    amountMicros: 69_000_000,
    currency: 'USD',
    rails: ['linkpay_ncp', 'x402_usdc', 'agent_wallet'],
    paymentDeadline: '2026-11-29T14:00:00.000Z',
    includes: [],
    state: {
      status: 'awaiting_payment',
      progress: [{ status: 'awaiting_payment', at: T0 }],
      deliverables: [],
      ...state,
    },
    ...over,
  });
}

/** The details as the Web UI shows them: rendered as Markdown (CommonMark), tags dropped, lines kept. */
function rendered(markdown: string): { html: string; text: string } {
  const html = new MarkdownIt().render(markdown);
  const text = html
    .replace(/<\/(p|li)>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join('\n');
  return { html, text };
}

const payment = { rail: 'x402_usdc' as const, transaction_id: '0xabc', amount_micros: 19_000_000, paid_at: T0 };

function engineering(over: Partial<EngineeringRecord> = {}): EngineeringRecord {
  return {
    queue: 'expert',
    assigned_at: '2026-11-28T14:05:00.000Z',
    sla_deadline: '2026-12-05T14:00:00.000Z',
    escalate_at: '2026-12-04T04:24:00.000Z',
    escalated_at: null,
    breached_at: null,
    engineer: null,
    claimed_at: null,
    uploads: [],
    ready_at: null,
    note: null,
    ...over,
  };
}

describe('formatting', () => {
  test('utc: minutes in UTC; anything unparsable unchanged', () => {
    expect(utc('2026-12-01T14:00:59.999Z')).toBe('2026-12-01 14:00 UTC');
    expect(utc('2026-12-01T15:00:00+01:00')).toBe('2026-12-01 14:00 UTC');
    expect(utc('soon')).toBe('soon');
  });

  test('money: integer micro-units, two decimals unless finer, never a float', () => {
    expect(money(19_000_000, 'USDC')).toBe('19.00 USDC');
    expect(money(69_500_000, 'USD')).toBe('69.50 USD');
    expect(money(1_234_567, 'USD')).toBe('1.234567 USD');
    expect(money(100, 'USD')).toBe('0.0001 USD');
    expect(money(-3_000_000, 'USD')).toBe('-3.00 USD');
    expect(railCurrency('x402_usdc', 'USD')).toBe('USDC');
    expect(railCurrency('agent_wallet', 'USD')).toBe('USD');
  });
});

describe('WaitingOn', () => {
  test('every order status maps to a documented value; terminal ones to nothing', () => {
    for (const s of ORDER_STATUSES) expect(WAITING_ON_VALUES).toContain(orderWaitingOn(s));
    expect(ORDER_STATUSES.map((s) => [s, orderWaitingOn(s)])).toEqual([
      ['awaiting_payment', 'payment'],
      ['paid', 'fulfillment'],
      ['fulfilling', 'fulfillment'],
      ['delivered', 'buyer_review'],
      ['accepted', 'nothing'],
      ['rejected', 'nothing'],
      ['expired', 'nothing'],
      ['failed', 'refund'],
      ['refunded', 'nothing'],
      ['in_engineering', 'engineer'],
      ['sla_breached', 'engineer'],
      ['cancelled', 'nothing'],
    ]);
  });

  test('a subscription waits on its renewal, on payment while a renewal is unpaid, on nothing once ended', () => {
    const base = subscription({});
    expect(subscriptionWaitingOn(base)).toBe('renewal');
    expect(subscriptionWaitingOn({ ...base, status: 'past_due' })).toBe('payment');
    expect(
      subscriptionWaitingOn({
        ...base,
        open_invoice: { invoice_id: 'inv_1_2', period: 2, amount_micros: 1, due_at: T0 },
      }),
    ).toBe('payment');
    expect(subscriptionWaitingOn({ ...base, status: 'suspended' })).toBe('nothing');
    expect(subscriptionWaitingOn({ ...base, status: 'cancelled' })).toBe('nothing');
  });
});

describe('order details', () => {
  test('awaiting payment: amount, rails and expiry; a refused attempt is listed', () => {
    expect(order({})).toBe(
      [
        '**Payment due** — 69.00 USD on `linkpay_ncp`, `x402_usdc` or `agent_wallet`, expires 2026-11-29 14:00 UTC',
        '',
        '- Order `ord_1` · automation-wf · 69.00 USD',
      ].join('\n'),
    );
    expect(order({}, { lastPaymentFailure: 'insufficient_funds on agent_wallet' })).toContain(
      '- Last payment attempt refused: insufficient\\_funds on agent\\_wallet',
    );
  });

  test('fulfilling: the service, or the bundle parts', () => {
    expect(order({ status: 'fulfilling', payment })).toMatch(
      /^\*\*Fulfilling\*\* — producing the deliverables of automation-wf\n\n- Order .*\n- Paid 19.00 USDC on `x402_usdc` at 2026-11-28 14:00 UTC$/,
    );
    expect(order({ status: 'fulfilling', payment }, { includes: ['a', 'b'] })).toContain(
      '**Fulfilling** — producing 2 bundle parts: a, b',
    );
  });

  test("delivered: waiting for the buyer's review until the auto-accept time; a decision being recorded", () => {
    const delivered: Partial<OrderState> = {
      status: 'delivered',
      payment,
      progress: [{ status: 'delivered', at: T0 }],
      deliverables: [{ name: 'README.md', sha256: '', size: 1, media_type: 'text/markdown', service_id: 's' }],
    };
    const text = order(delivered, { autoAcceptAt: '2026-12-01T14:00:00.000Z' });
    expect(text.split('\n')[0]).toBe("**Waiting for the buyer's review** — auto-accept at 2026-12-01 14:00 UTC");
    expect(text).toContain('- Delivered 2026-11-28 14:00 UTC: README.md');
    expect(order({ ...delivered, review: { action: 'reject', automatic: false, at: T0 } })).toMatch(
      /^\*\*Rejected by the buyer\*\* — refunding 69.00 USD/,
    );
  });

  test("ids, file names and the buyer's words render as written: no emphasis, link, image or HTML", () => {
    const id = 'ord_4O_-OY_x';
    const reason = '**wrong** [CRM](https://evil.example) ![x](https://t.example/p.png) <b>now</b> *please*';
    const rejected = rendered(
      order(
        {
          status: 'rejected',
          review: { action: 'reject', automatic: false, at: T0, reason },
          refund: { rail: 'agent_wallet', amount_micros: 69_000_000, status: 'completed', at: T0, reason: 'rejected' },
          payment: { ...payment, rail: 'agent_wallet' },
        },
        { orderId: id, serviceId: 'custom_7_days' },
      ),
    );
    expect(rejected.text).toBe(
      [
        `Refunded 69.00 USD after rejection: ${reason}`,
        `Order ${id} · custom_7_days · 69.00 USD`,
        'Paid 19.00 USD on agent_wallet at 2026-11-28 14:00 UTC',
      ].join('\n'),
    );
    expect(rejected.html).not.toMatch(/<(a|img|em|b)[ >]/);
    expect(rejected.html).toContain(`<code>${id}</code>`);
    const file = { sha256: '', size: 1, media_type: 'text/x-python', service_id: 's' };
    const deliveredText = rendered(
      order({
        status: 'delivered',
        progress: [{ status: 'delivered', at: T0 }],
        deliverables: [
          { ...file, name: 'robot_arm_v2_.py' },
          { ...file, name: '_init_.py' },
        ],
      }),
    ).text;
    expect(deliveredText).toContain('Delivered 2026-11-28 14:00 UTC: robot_arm_v2_.py, _init_.py');
    expect(mdText('a_b*c`d')).toBe('a\\_b\\*c\\`d');
    expect(mdId('ord_1')).toBe('`ord_1`');
  });

  test('ends: accepted (by the buyer or automatically), refunded after rejection, expired, failed, cancelled', () => {
    const accepted = { status: 'accepted' as const, progress: [{ status: 'accepted' as const, at: T0 }] };
    expect(order({ ...accepted, review: { action: 'accept', automatic: true, at: T0 } })).toMatch(
      /^\*\*Accepted\*\* automatically at 2026-11-28 14:00 UTC \(review window lapsed\)/,
    );
    expect(order({ ...accepted, review: { action: 'accept', automatic: false, at: T0 } })).toMatch(
      /^\*\*Accepted\*\* by the buyer at 2026-11-28 14:00 UTC/,
    );
    const refund = {
      status: 'completed' as const,
      rail: 'x402_usdc' as const,
      amount_micros: 19_000_000,
      reason: 'r',
      at: T0,
    };
    expect(
      order({
        status: 'rejected',
        payment,
        refund,
        review: { action: 'reject', reason: 'wrong app', automatic: false, at: T0 },
      }),
    ).toMatch(/^\*\*Refunded 19.00 USDC after rejection\*\*: wrong app/);
    expect(order({ status: 'rejected', refund: { ...refund, status: 'due', rail: 'linkpay_ncp' } })).toMatch(
      /^\*\*Refund of 19.00 USD due after rejection\*\*/,
    );
    expect(order({ status: 'expired', progress: [{ status: 'expired', at: T0 }] })).toMatch(
      /^\*\*Expired\*\* unpaid at 2026-11-28 14:00 UTC/,
    );
    expect(order({ status: 'failed', failure: 'boom' })).toMatch(
      /^\*\*Fulfillment failed\*\* — refunding 69.00 USD\n[^]*- Failure: boom$/,
    );
    expect(order({ status: 'refunded', refund, failure: 'boom' })).toMatch(
      /^\*\*Refunded 19.00 USDC after fulfillment failed\*\*/,
    );
    expect(order({ status: 'cancelled', refund })).toMatch(
      /^\*\*Cancelled after the SLA breach\*\* — refunded 19.00 usdc/i,
    );
  });

  test('expert: unclaimed, claimed with uploads, escalated, breached, marked ready', () => {
    expect(order({ status: 'in_engineering', engineering: engineering() }).split('\n')[0]).toBe(
      '**In engineering** (unclaimed) — SLA deadline 2026-12-05 14:00 UTC',
    );
    const upload = { name: 'controller.py', sha256: '', size: 1, media_type: 'text/x-python', service_id: 's' };
    const claimed = engineering({ engineer: 'eve', claimed_at: '2026-11-28T16:00:00.000Z', uploads: [upload] });
    const text = order({ status: 'in_engineering', engineering: claimed });
    expect(text.split('\n')[0]).toBe(
      '**In engineering** (engineer eve, claimed 2026-11-28 16:00 UTC; 1 upload) — SLA deadline 2026-12-05 14:00 UTC',
    );
    expect(text).toContain('- In the engineer queue since 2026-11-28 14:05 UTC');
    expect(text).toContain('- Escalates at 2026-12-04 04:24 UTC');
    expect(text).toContain('- Uploads: controller.py');
    expect(
      order({ status: 'in_engineering', engineering: { ...claimed, escalated_at: '2026-12-04T04:24:00.000Z' } }),
    ).toContain('- Escalated at 2026-12-04 04:24 UTC');
    expect(
      order({ status: 'sla_breached', engineering: { ...claimed, breached_at: '2026-12-05T14:00:00.000Z' } }).split(
        '\n',
      )[0],
    ).toBe(
      '**SLA breached** at 2026-12-05 14:00 UTC (engineer eve, claimed 2026-11-28 16:00 UTC; 1 upload) — the buyer may cancel for a full refund',
    );
    expect(order({ status: 'in_engineering', engineering: { ...claimed, ready_at: T0 } }).split('\n')[0]).toBe(
      '**Marked ready** by eve — delivering',
    );
  });
});

function subscription(over: Partial<SubscriptionState>): SubscriptionState {
  return {
    order_id: 'ord_s',
    status: 'active',
    current_period: { number: 3, start: '2026-12-28T14:00:00.000Z', end: '2027-01-28T14:00:00.000Z' },
    next_charge_at: '2027-01-28T14:00:00.000Z',
    cancel_at_period_end: false,
    cancel_reason: null,
    ended_at: null,
    dunning: null,
    open_invoice: null,
    ...over,
  };
}

describe('subscription details', () => {
  const sub = (state: SubscriptionState, over = {}) =>
    subscriptionDetails({
      serviceId: 'ai-receptionist',
      amountMicros: 39_000_000,
      currency: 'USD',
      rail: 'agent_wallet',
      state,
      ...over,
    });

  test('between renewals: the period and the next renewal', () => {
    expect(sub(subscription({}))).toBe(
      [
        '**Period 3** — renewal 4 on 2027-01-28 14:00 UTC',
        '',
        '- Subscription of order `ord_s` · ai-receptionist · 39.00 USD a month on `agent_wallet`',
        '- Period 3: 2026-12-28 14:00 UTC → 2027-01-28 14:00 UTC',
      ].join('\n'),
    );
    expect(sub(subscription({ cancel_at_period_end: true, cancel_reason: 'too dear', next_charge_at: null }))).toMatch(
      /^\*\*Period 3\*\*, cancelled at its end — ends 2027-01-28 14:00 UTC\n[^]*- Cancel requested: too dear/,
    );
  });

  test('renewing, dunning, invoice due, ended', () => {
    expect(sub(subscription({}), { renewing: true })).toMatch(
      /^\*\*Renewing\*\* period 3 — charging 39.00 USD on `agent_wallet`/,
    );
    const pastDue = subscription({
      status: 'past_due',
      dunning: { retries_done: 0, next_retry_at: '2026-12-29T14:00:00.000Z' },
    });
    expect(sub(pastDue, { lastFailure: 'insufficient_funds' })).toMatch(
      /^\*\*Payment failed\*\* for period 3 — retry 1 at 2026-12-29 14:00 UTC\n[^]*- Last charge refused: insufficient\\_funds/,
    );
    expect(sub(subscription({ status: 'past_due', dunning: { retries_done: 3, next_retry_at: null } }))).toMatch(
      /— no retry left/,
    );
    const invoice = {
      invoice_id: 'inv_ord_s_3',
      period: 3,
      amount_micros: 39_000_000,
      due_at: '2027-01-04T14:00:00.000Z',
    };
    expect(sub(subscription({ open_invoice: invoice }), { rail: 'linkpay_ncp' })).toMatch(
      /^\*\*Payment due\*\* — invoice `inv_ord_s_3`, 39.00 USD, due 2027-01-04 14:00 UTC/,
    );
    expect(sub(subscription({ status: 'cancelled', ended_at: T0, cancel_reason: 'order rejected' }))).toMatch(
      /^\*\*Cancelled\*\* at 2026-11-28 14:00 UTC \(order rejected\)/,
    );
    expect(sub(subscription({ status: 'suspended', ended_at: T0 }))).toMatch(
      /^\*\*Suspended\*\* at 2026-11-28 14:00 UTC — renewal 3 unpaid/,
    );
  });
});

describe('other workflows', () => {
  test('task, procurement, webhook, x402 and reconciliation headlines', () => {
    const task = { orderId: 'ord_t', taskNumber: 2, serviceId: 'task-worker', amountMicros: 15_000_000 };
    expect(taskDetails({ ...task, step: 'charging' })).toMatch(
      /^\*\*Charging\*\* task 2 of order `ord_t` — 15.00 USD from the agent wallet/,
    );
    expect(
      taskDetails({
        ...task,
        step: 'failed',
        result: {
          status: 'failed',
          charge: null,
          deliverables: [],
          refund: {
            status: 'completed',
            rail: 'agent_wallet',
            amount_micros: 15_000_000,
            reason: 'task_failed',
            at: T0,
          },
          failure: { code: 'task_failed', message: 'x' },
        },
      }),
    ).toMatch(/^\*\*Failed\*\* task 2 of order `ord_t` — refunded 15.00 USD/);
    expect(procurementDetails({ procurementId: 'prc_1', step: 'paying', serviceId: 's', orderId: 'ord_p' })).toMatch(
      /^\*\*Paying\*\* order `ord_p` from the agent wallet/,
    );
    expect(
      webhookDetails({
        eventId: 'evt_1',
        endpointId: 'wep_1',
        orderId: 'ord_w',
        step: 'retrying',
        attempt: 3,
        maxAttempts: 10,
        lastStatus: 500,
        nextAt: T0,
      }),
    ).toMatch(
      /^\*\*Retrying\*\* — attempt 3 of 10 failed \(HTTP 500\), next at 2026-11-28 14:00 UTC\n\n- Event `evt_1` → endpoint `wep_1`/,
    );
    expect(
      x402Details({
        paymentId: 'x4p_1',
        status: 'pending',
        checks: 2,
        nextAt: T0,
        givesUpAt: '2026-11-29T14:00:00.000Z',
      }),
    ).toMatch(
      /^\*\*Waiting for settlement\*\* on chain — check 3 at 2026-11-28 14:00 UTC, gives up at 2026-11-29 14:00 UTC/,
    );
    expect(x402Details({ paymentId: 'x4p_1', status: 'settled', orderId: 'ord_x', checks: 0, givesUpAt: T0 })).toMatch(
      /^\*\*Settled\*\* — order `ord_x` confirmed/,
    );
    expect(reconciliationDetails({ discrepancy_count: 2, repaired: [1], finished_at: T0 })).toBe(
      '**2 discrepancies need an operator** — reconciled at 2026-11-28 14:00 UTC\n\n- 1 repair made',
    );
  });

  test('timeline summaries are one line each', () => {
    const lines = [
      orderSummaries.recordOrder('ord_1'),
      orderSummaries.charge('x402_usdc', 19_000_000, 'USD'),
      orderSummaries.record(['paid', 'fulfilling']),
      orderSummaries.refund('agent_wallet', 69_000_000, 'USD', 'rejected'),
      orderSummaries.commission('release', 'partner-1'),
      orderSummaries.progress('engineer_claimed', 'eve'),
      orderSummaries.paymentDeadline(T0),
      orderSummaries.reviewWindow(T0),
      orderSummaries.slaMilestone('escalation', T0),
    ];
    expect(lines).toEqual([
      'Record order ord_1',
      'Charge 19.00 USDC on x402_usdc',
      'Record paid → fulfilling',
      'Refund 69.00 USD on agent_wallet (rejected)',
      'Release the partner commission of partner-1',
      'Record engineer_claimed (eve)',
      'Payment deadline: expires at 2026-11-28 14:00 UTC',
      'Review window: auto-accept at 2026-11-28 14:00 UTC',
      'SLA escalation at 2026-11-28 14:00 UTC',
    ]);
    for (const l of lines) expect(l).not.toContain('\n');
  });
});
