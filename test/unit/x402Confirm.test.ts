/**
 * `confirmX402Order` (activities/x402.ts) when the order refuses the Update: the payment is confirmed when the order
 * already holds it, noted `delivery_failed` when the order says it is not its, and the attempt fails (retried) when
 * the order cannot be asked. Fakes of the ledger and of the order workflows' port; the ledger's own rules are in
 * test/integration/x402DeliveryNotes.test.ts.
 */
import { createX402Activities, type X402ActivityPorts } from '../../activities/x402';
import type { X402PaymentDoc } from '../../src/db';
import type { OrderState } from '../../src/domain/order';
import { problem } from '../../src/errors';

const TX = '0xAbC0000000000000000000000000000000000000000000000000000000000001';
const payment = { _id: 'x4p_1', status: 'settled', order_id: 'ord_1', transaction: TX } as X402PaymentDoc;

function activities(state: () => Promise<OrderState>) {
  const payments = {
    get: jest.fn(async () => payment),
    markOrderConfirmed: jest.fn(async () => undefined),
    noteDeliveryFailure: jest.fn(async () => undefined),
  };
  const ports = {
    payments,
    chain: {},
    orderWorkflows: {
      confirmPayment: jest.fn(async () => {
        throw problem('invalid_state_transition', 'Cannot confirm another payment while the order is accepted');
      }),
      state: jest.fn(state),
    },
  } as unknown as X402ActivityPorts;
  return { acts: createX402Activities(ports), payments };
}

const held = (transaction: string): OrderState =>
  ({
    status: 'accepted',
    progress: [],
    deliverables: [],
    payment: { rail: 'x402_usdc', transaction_id: transaction, amount_micros: 69_000_000, paid_at: 'then' },
  }) as OrderState;

test('refused, but the order holds this very payment: confirmed, nothing noted', async () => {
  const { acts, payments } = activities(async () => held(TX.toLowerCase()));
  expect(await acts.confirmX402Order({ paymentId: 'x4p_1' })).toEqual({
    confirmed: true,
    order_status: 'accepted',
    reason: null,
  });
  expect(payments.markOrderConfirmed).toHaveBeenCalledWith('x4p_1');
  expect(payments.noteDeliveryFailure).not.toHaveBeenCalled();
});

test('refused, and the order holds another payment: noted delivery_failed', async () => {
  const { acts, payments } = activities(async () => held('0xother'));
  expect(await acts.confirmX402Order({ paymentId: 'x4p_1' })).toMatchObject({
    confirmed: false,
    reason: 'invalid_state_transition',
  });
  expect(payments.noteDeliveryFailure).toHaveBeenCalledTimes(1);
  expect(payments.markOrderConfirmed).not.toHaveBeenCalled();
});

test('refused, and the order cannot be asked (frontend restarting): the attempt fails, nothing noted', async () => {
  const { acts, payments } = activities(async () => {
    throw new Error('14 UNAVAILABLE: connection refused');
  });
  await expect(acts.confirmX402Order({ paymentId: 'x4p_1' })).rejects.toThrow('UNAVAILABLE');
  expect(payments.noteDeliveryFailure).not.toHaveBeenCalled();
  expect(payments.markOrderConfirmed).not.toHaveBeenCalled();
});
