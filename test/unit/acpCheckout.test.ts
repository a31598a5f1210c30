/**
 * The pure parts of ACP checkout sessions (issue 37 §1): ACP's error shape of a problem, JSONPaths of parameters, the
 * messages and the status of a session.
 */
import type { CheckoutSessionDoc } from '../../src/db';
import { acpErrorOf, isAcpPath, jsonPathOf } from '../../src/http/acp';
import { acpStatus, centsOfMicros, sessionMessages } from '../../src/services/checkoutSessions';

const session = (over: Partial<CheckoutSessionDoc> = {}): CheckoutSessionDoc => ({
  _id: 'cs_x',
  platform_id: 'plat_x',
  status: 'open',
  line: { service_id: 'automation-wf', quantity: 1 },
  inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
  buyer: null,
  metadata: {},
  quote_id: 'quo_x',
  unit_amount_micros: 69_000_000,
  currency: 'usd',
  order_id: 'ord_x',
  seed: 'c2VlZA',
  payment: null,
  completed_at: null,
  created_at: new Date(),
  updated_at: new Date(),
  expires_at: new Date(Date.now() + 60_000),
  version: 1,
  ...over,
});

test('problems become ACP errors with JSONPath params; 5xx are processing or unavailable', () => {
  expect(
    acpErrorOf(400, { code: 'invalid_request', title: 'Invalid request', detail: 'x', param: 'line_items.0.id' }),
  ).toEqual({ type: 'invalid_request', code: 'invalid_request', message: 'x', param: '$.line_items[0].id' });
  expect(acpErrorOf(400, { code: 'unsupported_api_version', detail: 'y', param: 'API-Version' }).param).toBe(
    'API-Version',
  );
  expect(acpErrorOf(503, { code: 'dependency_unavailable', title: 'A dependency is unavailable' })).toEqual({
    type: 'service_unavailable',
    code: 'dependency_unavailable',
    message: 'A dependency is unavailable',
  });
  expect(acpErrorOf(500, { code: 'internal_error', title: 'Internal server error' }).type).toBe('processing_error');
  expect(jsonPathOf('$.buyer.email')).toBe('$.buyer.email');
  expect(isAcpPath('/checkout_sessions')).toBe(true);
  expect(isAcpPath('/checkout_sessionsX')).toBe(false);
  expect(isAcpPath('/agentic_commerce/delegate_payment')).toBe(true);
});

test('a session is ready only with every required input and one unit; each gap is a message naming its param', () => {
  expect(sessionMessages(session())).toEqual([]);
  expect(acpStatus(session(), null)).toBe('ready_for_payment');
  const gaps = session({ inputs: { workflow_type: 'lead_sync' }, line: { service_id: 'automation-wf', quantity: 3 } });
  expect(sessionMessages(gaps).map((m) => `${m.code} ${m.param}`)).toEqual([
    'quantity_exceeded $.line_items[0].quantity',
    'missing $.metadata.inputs.source_app',
    'missing $.metadata.inputs.target_app',
  ]);
  expect(acpStatus(gaps, null)).toBe('not_ready_for_payment');
  expect(acpStatus(session({ expires_at: new Date(Date.now() - 1) }), null)).toBe('expired');
  expect(acpStatus(session({ status: 'awaiting_payment' }), null)).toBe('requires_escalation');
  expect(centsOfMicros(69_000_000)).toBe(6900);
});
