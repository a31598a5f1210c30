/**
 * The books reconciliation's report (issue 24 §3): what was checked, what was repaired, what is still wrong. Pure data,
 * JSON-safe (ISO strings, integer micro-USD), shared by the application layer that builds it
 * (src/services/reconciliation.ts), the workflow that returns it, the collection that keeps the last one and the
 * operator endpoints that answer it.
 *
 * Source: issue 24 §3.
 */

/** What a discrepancy is about: the invariant it breaks (issue 24 §3 a–e). */
export const DISCREPANCY_KINDS = [
  /** a: a wallet's balance differs from the sum of its ledger entries (`amount_micros` = balance − ledger). */
  'wallet_balance_mismatch',
  /** a: ledger entries of an agent that has no wallet document. */
  'ledger_without_wallet',
  /** b: an `order:<id>` debit of an order that holds no payment, past the grace period, not repaired. */
  'orphan_debit',
  /** b: an `order:<id>` debit whose order was paid otherwise (another rail or amount). */
  'debit_not_order_payment',
  /** b: a refunded / rejected / cancelled wallet order whose debit has no `refund:<id>` credit. */
  'refund_missing',
  /** b: a `refund:<id>` credit whose amount differs from the debit it returns. */
  'refund_amount_mismatch',
  /** c: a settled x402 payment that pays no order (or another order than recorded) and no item. */
  'x402_unmatched_settlement',
  /** c: two settled x402 payments for one order. */
  'x402_duplicate_settlement',
  /** c: the chain's token transfers to the pay-to address differ from the settled ledger total. */
  'x402_chain_mismatch',
  /** c: the chain could not be read, so the settled total is unproven. */
  'x402_chain_unreadable',
  /** A succeeded payment-link transaction whose order holds no such payment and could not be adopted or refunded. */
  'linkpay_unmatched_payment',
  /** A delegated card PaymentIntent recorded as succeeded with no payment record (a run without repairs). */
  'card_charge_unrecorded',
  /** d: a commission credited (or pending, or taken back) in a state its order does not allow. */
  'commission_state_mismatch',
  /** d: the partner's wallet ledger disagrees with the commission record. */
  'commission_ledger_mismatch',
  /** e: Σ wallet balances ≠ Σ credits − Σ debits over all ledgers. */
  'books_unbalanced',
  /** The read model's status differs from the closed workflow's final state (not repaired). */
  'read_model_status_mismatch',
  /** An open order (read model) whose workflow does not exist or ended without a final state. */
  'workflow_missing',
  /** A check that could not run (an error reading a workflow, the database, …); `detail` says which. */
  'check_failed',
  /** More discrepancies than the report lists; `detail` says how many were left out. */
  'truncated',
] as const;
/** See {@link DISCREPANCY_KINDS}. */
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/** What a repair was about. */
export const REPAIR_KINDS = [
  /** An orphan `order:<id>` debit: its running workflow was signalled `recoverPayment`, or it was refunded. */
  'orphan_debit',
  /** A settled x402 payment of a running order that holds no payment: the workflow was signalled `recoverPayment`. */
  'orphan_x402_settlement',
  /** An `order:<id>` debit its order does not keep (paid otherwise, or refunded without its credit): credited back. */
  'returned_debit',
  /** A settled x402 payment no order or item kept (paid otherwise, ended unpaid, never delivered): refunded on chain. */
  'x402_refund',
  /** A succeeded payment-link transaction of an order that holds no payment: signalled `recoverPayment` or refunded. */
  'orphan_linkpay_payment',
  /**
   * A running order whose read model shows a payment its workflow does not hold (the activity that wrote `paid` ran
   * in a workflow task that a crash lost, with the Update that carried the payment): signalled `recoverPayment`.
   */
  'payment_ahead_of_workflow',
  /** A read model whose status differed from its closed workflow's final state: rewritten. */
  'read_model_status',
  /** Ledger entries a crashed process had not written, rewritten from the wallet's recent movements. */
  'wallet_ledger_entries',
  /**
   * A delegated card PaymentIntent recorded as succeeded with no payment record: mirrored as its order's link payment,
   * which the payment-link check then has the order adopt, or refunds.
   */
  'unrecorded_card_charge',
] as const;
/** See {@link REPAIR_KINDS}. */
export type RepairKind = (typeof REPAIR_KINDS)[number];

/** One repair made. `action` says what was done, in words (e.g. `refunded under refund:<id>`). */
export interface RepairRecord {
  kind: RepairKind;
  order_id?: string;
  agent_id?: string;
  /** Money moved or concerned, integer micro-USD. */
  amount_micros?: number;
  action: string;
}

/** One invariant found broken and not repaired. */
export interface Discrepancy {
  kind: DiscrepancyKind;
  order_id?: string;
  agent_id?: string;
  /** The amount at stake (a difference, an unreturned debit, …), integer micro-USD. */
  amount_micros?: number;
  detail: string;
}

/** A refund recorded as owed (`due`) on an order: x402 payments, payment-link refunds the provider refused. */
export interface RefundDue {
  order_id: string;
  rail: string;
  amount_micros: number;
  reason: string;
  at: string;
}

/** How many open orders a reconciliation asked about: see {@link ReconciliationReport.scope}. */
export const RECONCILIATION_SCOPES = ['full', 'recent'] as const;
export type ReconciliationScope = (typeof RECONCILIATION_SCOPES)[number];

/**
 * The result of one reconciliation. `ok`: no discrepancy left (repairs made do not count against it). Totals over every
 * wallet ledger: `balances_micros` = Σ balances, which must equal `credits_micros − debits_micros`;
 * `refunds_due_micros` = Σ of {@link refunds_due}. Times are ISO 8601.
 */
export interface ReconciliationReport {
  ok: boolean;
  /** Discrepancies found (all of them; at most {@link MAX_LISTED} are listed). */
  discrepancy_count: number;
  started_at: string;
  finished_at: string;
  /** Whether repairs were allowed in this run. */
  repair: boolean;
  /**
   * `full`: every open order's workflow was asked (an operator's run, and a scheduled one at least hourly); `recent`:
   * only the open orders whose workflow closed since {@link orders_closed_since} and those whose read model shows a
   * payment in flight (`paid`, `fulfilling`). Every other check covers the whole book in both.
   */
  scope: ReconciliationScope;
  /** With scope `recent`: the moment from which closed order workflows were listed (ISO 8601). */
  orders_closed_since?: string;
  /** Seconds a debit or an order change may be in flight before it counts (issue 24 §3 b). */
  grace_seconds: number;
  checked: { wallets: number; debits: number; x402_settlements: number; commissions: number; orders: number };
  repaired: RepairRecord[];
  discrepancies: Discrepancy[];
  totals: { balances_micros: number; credits_micros: number; debits_micros: number; refunds_due_micros: number };
  refunds_due: RefundDue[];
}

/** At most this many repairs, discrepancies and refunds due are listed (the rest are counted in a `truncated` entry). */
export const MAX_LISTED = 200;
