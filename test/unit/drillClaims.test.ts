/**
 * The chaos drill's view of x402 claims (scripts/drills/lib.ts `ordersHeldByClaims`): an order still awaiting payment
 * because its x402 claim is open is as final as that claim; any other order not final is still counted as stuck.
 */
import type { X402PaymentDoc } from '../../src/db';
import { ordersHeldByClaims, x402AuditKey, type BooksAudit } from '../../scripts/drills/lib';

const claim = (id: string, orderId: string | null, status: X402PaymentDoc['status']) =>
  ({ _id: id, resource: `/x402/orders/${orderId ?? 'none'}`, order_id: orderId, status }) as X402PaymentDoc;

function audit(notFinal: [string, string][], open: X402PaymentDoc[]): BooksAudit {
  return { notFinal: new Map(notFinal), unsettledX402: open } as unknown as BooksAudit;
}

describe('ordersHeldByClaims', () => {
  const held = claim('x4p_a', 'ord_a', 'settling');
  const other = claim('x4p_b', 'ord_b', 'pending');
  const books = audit(
    [
      ['ord_a', 'awaiting_payment'],
      ['ord_b', 'paid'],
      ['ord_c', 'awaiting_payment'],
    ],
    [held, other, claim('x4p_item', null, 'settling')],
  );

  it('holds only orders awaiting payment behind an open claim of theirs', () => {
    expect([...ordersHeldByClaims(books)]).toEqual(['ord_a']);
  });

  it('narrows to the claims named (e.g. those whose authorization was never used)', () => {
    expect([...ordersHeldByClaims(books, new Set([x402AuditKey(held)]))]).toEqual(['ord_a']);
    expect([...ordersHeldByClaims(books, new Set([x402AuditKey(other)]))]).toEqual([]);
  });
});
