/**
 * Pure parts of the long-running orders (issue 6): calendar-month periods, the terms derived from the catalogue, the
 * state table, and webhook payloads of events that are not a status change.
 */
import { SERVICES, getService } from '../../src/domain/catalogue';
import { isPerTaskService, longRunningTerms } from '../../src/domain/longRunning';
import { EVENT_TYPES } from '../../src/domain/events';
import { buildPayload } from '../../src/webhooks/payload';
import {
  ORDER_EVENT_TYPES,
  ORDER_PROGRESS_EVENT_TYPES,
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  TERMINAL_STATUSES,
} from '../../src/domain/order';
import { SUBSCRIPTION_EVENT_TYPES, TASK_EVENT_TYPES, addMonths, periodOf } from '../../src/domain/subscription';

describe('addMonths / periodOf', () => {
  test.each([
    ['2026-01-31T10:00:00.000Z', 1, '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'],
    ['2026-01-31T10:00:00.000Z', 2, '2026-03-31T10:00:00.000Z'],
    ['2026-11-15T23:59:59.999Z', 2, '2027-01-15T23:59:59.999Z'],
    ['2026-03-31T00:00:00.000Z', -1, '2026-02-28T00:00:00.000Z'],
    ['2026-05-10T08:30:00.000Z', 0, '2026-05-10T08:30:00.000Z'],
  ])('%s + %i months = %s', (anchor, months, expected) => {
    expect(addMonths(anchor, months)).toBe(expected);
  });

  test('periods are counted from the anchor, so a short month does not shift later ones', () => {
    const anchor = '2026-01-31T12:00:00.000Z';
    expect([1, 2, 3].map((n) => periodOf(anchor, n))).toEqual([
      { number: 1, start: '2026-01-31T12:00:00.000Z', end: '2026-02-28T12:00:00.000Z' },
      { number: 2, start: '2026-02-28T12:00:00.000Z', end: '2026-03-31T12:00:00.000Z' },
      { number: 3, start: '2026-03-31T12:00:00.000Z', end: '2026-04-30T12:00:00.000Z' },
    ]);
  });

  test('an invalid anchor throws', () => {
    expect(() => addMonths('not a time', 1)).toThrow(RangeError);
  });
});

describe('terms from the catalogue', () => {
  test('expert_delivery services get the SLA clock of their max_fulfillment_hours; others none', () => {
    const expert = SERVICES.filter((s) => longRunningTerms(s).expert)
      .map((s) => s.id)
      .sort();
    expect(expert).toEqual(['agent-development', 'integration-project', 'robot-control-system', 'robotics-bundle']);
    // Issue 6 §1: escalated at 80 % of the SLA.
    expect(longRunningTerms(getService('robot-control-system')!).expert).toEqual({
      maxFulfillmentHours: 168,
      escalateAtPercent: 80,
    });
  });

  test('monthly services get subscription terms: three retries over a week', () => {
    const monthly = SERVICES.filter((s) => longRunningTerms(s).subscription).map((s) => s.id);
    expect(monthly).toEqual(['ai-receptionist']);
    expect(longRunningTerms(getService('ai-receptionist')!).subscription).toEqual({
      interval: 'month',
      retryAfterSeconds: [86_400, 259_200, 604_800],
      invoiceDueSeconds: 604_800,
    });
  });

  test('task-worker is the per-task service', () => {
    expect(SERVICES.filter(isPerTaskService).map((s) => s.id)).toEqual(['task-worker']);
  });
});

describe('state table and event catalogue', () => {
  test('terminal statuses lead nowhere, every other status leads on, and every status but the first is reachable', () => {
    for (const s of ORDER_STATUSES) {
      expect(ORDER_EVENT_TYPES[s]).toMatch(/^order\./);
      if (TERMINAL_STATUSES.includes(s)) expect(ORDER_TRANSITIONS[s]).toEqual([]);
      else expect(ORDER_TRANSITIONS[s].length).toBeGreaterThan(0);
    }
    const reachable = new Set(Object.values(ORDER_TRANSITIONS).flat());
    expect(ORDER_STATUSES.filter((s) => !reachable.has(s))).toEqual(['awaiting_payment']);
    // The paths the workflows take are checked against the table in test/unit/workflows/.
  });

  test('every event the long-running workflows emit is in the webhook catalogue', () => {
    const emitted = [
      ...Object.values(ORDER_EVENT_TYPES),
      ...Object.values(ORDER_PROGRESS_EVENT_TYPES),
      ...Object.values(SUBSCRIPTION_EVENT_TYPES),
      ...Object.values(TASK_EVENT_TYPES),
    ];
    for (const t of emitted) expect(EVENT_TYPES).toContain(t);
  });

  test('a webhook payload carries the details of a progress event and the order status when the event names none', () => {
    const event = {
      _id: 'msg_ord_x_1000003',
      order_id: 'ord_x',
      seq: 1_000_003,
      type: 'subscription.payment_failed',
      data: { order_id: 'ord_x', details: { period: 3, attempt: 1, next_retry_at: '2026-03-02T00:00:00.000Z' } },
      created_at: new Date('2026-03-01T00:00:00.000Z'),
    };
    const payload = buildPayload(event, null, 'http://x');
    expect(payload.data).toMatchObject({ seq: 1_000_003, status: '', details: { period: 3, attempt: 1 } });
    const plain = buildPayload({ ...event, data: { order_id: 'ord_x', status: 'paid' } }, null, 'http://x');
    expect(plain.data).not.toHaveProperty('details');
  });
});
