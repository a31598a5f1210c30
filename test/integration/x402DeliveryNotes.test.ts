/**
 * The x402 ledger's `delivery_failed` note (src/repos/x402Payments.ts `noteDeliveryFailure`) against the real
 * database: it is written only while the order's confirmation is due. Found by the cluster chaos drill: a duplicate
 * request of the same payment failed to confirm the order (the frontend was killed) after the first had confirmed it,
 * and its note stayed as a false refund alarm that no sweeper would clear.
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/ports';
import { isolatedServices } from '../helpers/services';

let services: Services;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ services, dispose } = await isolatedServices('x402notes'));
}, 120_000);

afterAll(async () => {
  await dispose?.();
});

/** A claim of a fresh authorization: for order `orderId`, or for a micro item when null. */
async function claimFor(orderId: string | null) {
  const claim = await services.x402Payments.claim({
    resource: orderId ? `/x402/orders/${orderId}` : '/x402/item/recipe',
    resource_kind: orderId ? 'order' : 'micro_item',
    resource_ref: orderId ?? 'recipe',
    order_id: orderId,
    amount_micros: orderId ? 69_000_000 : 1_990_000,
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    network: 'eip155:8453',
    pay_to: '0x0000000000000000000000000000000000000001',
    payer: '0x0000000000000000000000000000000000000002',
    nonce: `0x${randomBytes(32).toString('hex')}`,
    valid_before: Math.floor(Date.now() / 1000) + 600,
    payment_id: orderId ? `pay_${randomBytes(8).toString('hex')}` : null,
  });
  if ('refused' in claim) throw new Error(`claim refused: ${claim.refused}`);
  return claim;
}

/** A settled order payment whose order is still to be confirmed (`confirmation_due`), as a settlement leaves it. */
async function settledOrderPayment() {
  const claim = await claimFor(`ord_${randomBytes(8).toString('hex')}`);
  const settled = await services.x402Payments.markSettled(claim._id, `0x${randomBytes(32).toString('hex')}`, true);
  expect(settled).toMatchObject({ status: 'settled', confirmation_due: true });
  return claim._id;
}

test('a failure noted after the order was confirmed by another request notes nothing', async () => {
  const ledger = services.x402Payments;
  const id = await settledOrderPayment();
  await ledger.markOrderConfirmed(id);
  await ledger.noteDeliveryFailure(id, 'Workflow Update failed', false);
  await ledger.noteDeliveryFailure(id, 'order not confirmed: invalid_state_transition', true);
  const entry = await ledger.get(id);
  expect(entry?.error_reason ?? null).toBeNull();
  expect(entry?.confirmation_due).toBeUndefined();
});

test('while the confirmation is due, a failure is noted; the confirmation clears it', async () => {
  const ledger = services.x402Payments;
  const unreachable = await settledOrderPayment();
  await ledger.noteDeliveryFailure(unreachable, 'the order workflow was unreachable', false);
  expect(await ledger.get(unreachable)).toMatchObject({
    error_reason: 'delivery_failed',
    error_message: 'the order workflow was unreachable',
    confirmation_due: true,
  });
  await ledger.markOrderConfirmed(unreachable);
  const confirmed = await ledger.get(unreachable);
  expect(confirmed?.error_reason ?? null).toBeNull();
  expect(confirmed?.confirmation_due).toBeUndefined();

  // A refusal (the order ended meanwhile) is final: noted, and the confirmation ends.
  const refused = await settledOrderPayment();
  await ledger.noteDeliveryFailure(refused, 'order not confirmed: invalid_state_transition', true);
  const entry = await ledger.get(refused);
  expect(entry).toMatchObject({ error_reason: 'delivery_failed' });
  expect(entry?.confirmation_due).toBeUndefined();
});

test("an item's payment (no order to confirm) is always noted", async () => {
  const ledger = services.x402Payments;
  const claim = await claimFor(null);
  await ledger.markSettled(claim._id, `0x${randomBytes(32).toString('hex')}`, false);
  await ledger.noteDeliveryFailure(claim._id, 'the request died before delivering');
  expect(await ledger.get(claim._id)).toMatchObject({ status: 'settled', error_reason: 'delivery_failed' });
});
