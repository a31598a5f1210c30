import type { CommissionDoc, Database, OrderDoc, WalletDoc, WalletEntryDoc, X402PaymentDoc } from '../db';
import { TERMINAL_STATUSES, type OrderStatus } from '../domain/order/status';
import { entryId } from './wallets';

/** A wallet as the books reconciliation reads it: id, balance (integer micro-USD) and number of movements. */
export type WalletBalanceView = Pick<WalletDoc, '_id' | 'balance_micros' | 'seq'>;

/** A ledger entry as the books reconciliation reads it (amount positive for both kinds, integer micro-USD). */
export type LedgerEntryView = Pick<WalletEntryDoc, 'agent_id' | 'tx_id' | 'type' | 'amount_micros' | 'at'>;

/** An order read model without its inputs and deliverables. */
/** A succeeded payment-link transaction: `_id` is the transaction id; amount in integer micro-USD. */
export interface LinkTransactionView {
  _id: string;
  order_id: string;
  amount_micros: number;
  created_at: Date;
}

export type OrderView = Pick<
  OrderDoc,
  | '_id'
  | 'status'
  | 'agent_id'
  | 'partner_id'
  | 'amount_micros'
  | 'rails'
  | 'payment'
  | 'refund'
  | 'version'
  | 'payment_deadline'
  | 'progress'
  | 'created_at'
  | 'updated_at'
>;

/** A settled (or in-flight) x402 ledger entry without the goods it sold. */
export type X402View = Pick<
  X402PaymentDoc,
  | '_id'
  | 'status'
  | 'resource'
  | 'resource_kind'
  | 'resource_ref'
  | 'order_id'
  | 'amount_micros'
  | 'asset'
  | 'network'
  | 'pay_to'
  | 'transaction'
  | 'error_reason'
  | 'confirmation_due'
  | 'lease_until'
  | 'created_at'
  | 'settled_at'
  | 'refund'
>;

/** A commission record as the books reconciliation reads it. */
export type CommissionView = Pick<
  CommissionDoc,
  | '_id'
  | 'partner_id'
  | 'order_id'
  | 'period'
  | 'status'
  | 'commission_micros'
  | 'credit_tx_id'
  | 'reversal_tx_id'
  | 'debt_offset_micros'
  | 'reversal_debited_micros'
  | 'releasing'
>;

const ORDER_VIEW = {
  status: 1,
  agent_id: 1,
  partner_id: 1,
  amount_micros: 1,
  rails: 1,
  payment: 1,
  refund: 1,
  version: 1,
  payment_deadline: 1,
  progress: 1,
  created_at: 1,
  updated_at: 1,
} as const;

const X402_VIEW = {
  status: 1,
  refund: 1,
  resource: 1,
  resource_kind: 1,
  resource_ref: 1,
  order_id: 1,
  amount_micros: 1,
  asset: 1,
  network: 1,
  pay_to: 1,
  transaction: 1,
  error_reason: 1,
  confirmation_due: 1,
  lease_until: 1,
  created_at: 1,
  settled_at: 1,
} as const;

/** Ids per `$in` lookup. */
const BATCH = 500;

/**
 * Read-only views across the money collections (wallets and their ledger, orders, the x402 ledger, commissions) for
 * the books reconciliation (src/services/reconciliation.ts). Every read is a scan or an `_id` lookup: the
 * reconciliation runs every 30 s at most, off the request path, so it adds no index every write would pay for.
 * Writes go through the owning repositories (wallets, orders). Source: issue 24 §3.
 */
export class BooksRepository {
  constructor(private readonly d: Database) {}

  /** Every wallet's balance. */
  wallets(): Promise<WalletBalanceView[]> {
    return this.d.wallets.find<WalletBalanceView>({}, { projection: { balance_micros: 1, seq: 1 } }).toArray();
  }

  /** Every ledger entry, streamed (the ledger can be large). */
  entries(): AsyncIterable<LedgerEntryView> {
    return this.d.walletEntries.find<LedgerEntryView>(
      {},
      { projection: { _id: 0, agent_id: 1, tx_id: 1, type: 1, amount_micros: 1, at: 1 } },
    );
  }

  /** The ledger entry of transaction `txId` in the agent's wallet, or null. */
  entry(agentId: string, txId: string): Promise<LedgerEntryView | null> {
    return this.d.walletEntries.findOne<LedgerEntryView>(
      { _id: entryId(agentId, txId) },
      { projection: { _id: 0, agent_id: 1, tx_id: 1, type: 1, amount_micros: 1, at: 1 } },
    );
  }

  /** The orders with these ids (those that exist), without inputs and deliverables. */
  async orders(ids: readonly string[]): Promise<OrderView[]> {
    const out: OrderView[] = [];
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += BATCH) {
      const batch = unique.slice(i, i + BATCH);
      out.push(...(await this.d.orders.find<OrderView>({ _id: { $in: batch } }, { projection: ORDER_VIEW }).toArray()));
    }
    return out;
  }

  /**
   * Orders whose read model is not final and unchanged since `before`, least recently changed first, at most `limit`;
   * orders awaiting payment only once their payment deadline passed (before it, waiting is what they do). `only`
   * narrows them to the given ids and / or statuses.
   */
  openOrders(
    before: Date,
    limit: number,
    only: { ids?: readonly string[]; statuses?: readonly OrderStatus[] } = {},
  ): Promise<OrderView[]> {
    return this.d.orders
      .find<OrderView>(
        {
          ...(only.ids ? { _id: { $in: [...only.ids] } } : {}),
          status: only.statuses
            ? { $in: only.statuses.filter((s) => !TERMINAL_STATUSES.includes(s)) }
            : { $nin: [...TERMINAL_STATUSES] },
          updated_at: { $lt: before },
          $or: [{ status: { $ne: 'awaiting_payment' } }, { payment_deadline: { $lt: before } }],
        },
        { projection: ORDER_VIEW },
      )
      .sort({ updated_at: 1 })
      .limit(limit)
      .toArray();
  }

  /** Orders whose refund is recorded as owed (`refund.status: due`). */
  refundsDue(): Promise<OrderView[]> {
    return this.d.orders.find<OrderView>({ 'refund.status': 'due' }, { projection: ORDER_VIEW }).toArray();
  }

  /** x402 ledger entries in the given statuses, without the goods they sold. */
  x402Entries(statuses: readonly X402PaymentDoc['status'][]): Promise<X402View[]> {
    return this.d.x402Payments.find<X402View>({ status: { $in: [...statuses] } }, { projection: X402_VIEW }).toArray();
  }

  /** Succeeded payment-link transactions created before `before` (the local provider's; none with another). */
  linkTransactions(before: Date): Promise<LinkTransactionView[]> {
    return this.d.linkpayTransactions
      .find<LinkTransactionView>(
        { status: 'succeeded', created_at: { $lt: before } },
        { projection: { order_id: 1, amount_micros: 1, created_at: 1 } },
      )
      .toArray();
  }

  /** Every commission record. */
  commissions(): Promise<CommissionView[]> {
    return this.d.commissions
      .find<CommissionView>(
        {},
        {
          projection: {
            partner_id: 1,
            order_id: 1,
            period: 1,
            status: 1,
            commission_micros: 1,
            credit_tx_id: 1,
            reversal_tx_id: 1,
            debt_offset_micros: 1,
            reversal_debited_micros: 1,
            releasing: 1,
          },
        },
      )
      .toArray();
  }
}
