/**
 * The x402 order-payment check in the application layer (src/services/payments.ts `verifyX402Payment`, issue 27 §2):
 * one ledger read, the same coded refusals as the other rails.
 */
import type { X402PaymentDoc } from '../../src/db';
import { ProblemError } from '../../src/errors';
import { chargeOrder, verifyX402Payment, type X402Ledger } from '../../src/services/payments';

const TX = '0x' + 'ab'.repeat(32);

function ledgerOf(entry: Partial<X402PaymentDoc> | null): X402Ledger & { reads: number } {
  const ledger = {
    reads: 0,
    getByTransaction: (_tx: string) => {
      ledger.reads++;
      return Promise.resolve(
        entry ? ({ _id: 'x4p_1', resource: '/x402/orders/o1', ...entry } as X402PaymentDoc) : null,
      );
    },
  };
  return ledger;
}

const settled = { status: 'settled' as const, order_id: 'o1', amount_micros: 5_000_000, transaction: TX };

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ProblemError) return err.code;
    throw err;
  }
  return 'none';
}

describe('verifyX402Payment', () => {
  it('accepts a settled entry of this order for its exact amount, in one ledger read', async () => {
    const ledger = ledgerOf(settled);
    await expect(
      verifyX402Payment(ledger, { transactionId: TX, orderId: 'o1', amountMicros: 5_000_000 }),
    ).resolves.toEqual({
      transaction_id: TX,
      amount_micros: 5_000_000,
    });
    expect(ledger.reads).toBe(1);
  });

  it.each([
    ['invalid_request', settled, { transactionId: undefined }],
    ['transaction_not_found', null, {}],
    ['transaction_already_used', { ...settled, order_id: 'o2' }, {}],
    ['transaction_already_used', { ...settled, order_id: null }, {}],
    ['payment_failed', { ...settled, status: 'pending' as const }, {}],
    ['transaction_amount_mismatch', { ...settled, amount_micros: 4_000_000 }, {}],
  ])('refuses with %s', async (code, entry, req) => {
    const p = verifyX402Payment(ledgerOf(entry), { transactionId: TX, orderId: 'o1', amountMicros: 5_000_000, ...req });
    expect(await codeOf(p)).toBe(code);
  });

  it('is the x402_usdc rail of chargeOrder, refused when x402 is not configured', async () => {
    const req = {
      orderId: 'o1',
      rail: 'x402_usdc' as const,
      transactionId: TX,
      amountMicros: 5_000_000,
      paidAt: 'now',
    };
    const ports = { wallets: {} as never, linkpay: {} as never };
    await expect(chargeOrder({ ...ports, x402: ledgerOf(settled) }, req)).resolves.toEqual({
      rail: 'x402_usdc',
      transaction_id: TX,
      amount_micros: 5_000_000,
      paid_at: 'now',
    });
    expect(await codeOf(chargeOrder(ports, req))).toBe('payment_failed');
  });
});
