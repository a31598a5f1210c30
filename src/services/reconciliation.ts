/**
 * Reconciliation that proves the books (issue 24 §3), without Temporal or HTTP: {@link reconcileBooks} reads every
 * money record through narrow ports, checks each invariant, repairs what it safely can and reports the rest. Amounts
 * are integer micro-USD. Run by the `reconcileBooks` activity (activities/reconciliation.ts) on a Temporal Schedule and
 * on an operator's request (`POST /api/v1/operator/reconciliation`).
 *
 * Invariants:
 * - a. each wallet's balance equals the sum of its ledger entries (credits − debits);
 * - b. each `order:<id>` wallet debit is the payment of its order (paid and in flight, delivered or accepted), or has
 *   its `refund:<id>` credit; a debit whose order holds no payment, older than the grace period, is an ORPHAN;
 * - c. each settled x402 payment pays one order (the order's payment is that transaction) or one item, and the chain's
 *   token transfers to the pay-to address equal the settled ledger total (when a chain port is given);
 * - d. partner commissions reach the partner's wallet only on accepted orders, and are cancelled or reversed on
 *   refunded ones; the partner's ledger agrees with the commission records;
 * - e. Σ wallet balances = Σ credits − Σ debits over every ledger; refunds owed (`due`) are listed with their total.
 *
 * Repairs (only with `repair: true`): an orphan debit (or an x402 settlement) of an order whose workflow still runs is
 * signalled `recoverPayment` (the workflow adopts the money as its payment); an orphan debit of an order whose
 * workflow closed without a payment is refunded once (`refundOrder`, idempotent under `refund:<id>`) and the refund
 * recorded on the order; a read model whose status differs from its closed workflow's final state is rewritten to it.
 * Ledger entries a crashed process left unwritten are rewritten from the wallet's recent movements on every run.
 */
import type { X402RefundOutcome } from './x402Refunds';
import type { OrderState, PaymentRecord } from '../domain/order';
import { TERMINAL_STATUSES, type OrderStatus } from '../domain/order/status';
import {
  MAX_LISTED,
  type Discrepancy,
  type ReconciliationReport,
  type RefundDue,
  type RepairRecord,
} from '../domain/reconciliation';
import type { PaymentLinkProvider } from '../payments/linkpay';
import type { StripeLinkProvider as StripePaymentPort } from '../payments/stripe';
import { commissionReversalTxId } from '../repos/commissions';
import type { BooksRepository, LedgerEntryView, OrderView, X402View } from '../repos/books';
import type { OrderRepository } from '../repos/orders';
import type { WalletRepository } from '../repos/wallets';
import { refundOrder, refundToWallet } from './payments';

/** Default seconds a debit, settlement or order change may be in flight before it counts (issue 24 §3 b). */
export const DEFAULT_GRACE_SECONDS = 20;
/** Default number of open orders whose workflow is asked per run (least recently changed first). */
export const DEFAULT_MAX_ORDER_CHECKS = 2000;

/** The order workflows, as reconciliation asks and signals them (src/temporal/reconciliation.ts over the client). */
export interface OrderWorkflowPort {
  /**
   * The order workflow's state: `running` and, for a closed workflow that completed, its final state; for a running one
   * its current state (a Query) unless `query: false`. Undefined when no such workflow exists (never started, or
   * removed after the namespace's retention). A closed workflow that failed or was terminated has no state.
   */
  orderWorkflowState(
    orderId: string,
    opts?: { query?: boolean },
  ): Promise<{ running: boolean; state?: OrderState } | undefined>;
  /** Sends the `recoverPayment` Signal (workflows/shared.ts) with `reason`. */
  recoverPayment(orderId: string, reason: string): Promise<void>;
  /**
   * Ids of the orders whose workflow closed at or after `since` (Temporal visibility: one listing, not a call per
   * order), for a `recent` run.
   */
  closedSince(since: Date): Promise<string[]>;
}

/** The settlement chain, as reconciliation reads it (src/x402/receivedTotal.ts). */
export interface ChainTotalsPort {
  /** CAIP-2 network of the chain (`eip155:8453`); ledger entries of other networks are not compared. */
  network: string;
  /** Σ of the token's `Transfer` events to `payTo`, in token atomic units (= micro-USD for USDC). */
  receivedTotal(asset: string, payTo: string): Promise<bigint>;
}

/** What {@link reconcileBooks} reads and writes. */
export interface ReconciliationPorts {
  books: Pick<
    BooksRepository,
    | 'wallets'
    | 'entries'
    | 'entry'
    | 'orders'
    | 'openOrders'
    | 'refundsDue'
    | 'x402Entries'
    | 'commissions'
    | 'linkTransactions'
  >;
  /** `snapshot` re-reads a wallet (rewriting missing ledger entries); `credit` refunds (through `refundOrder`). */
  wallets: Pick<WalletRepository, 'snapshot' | 'credit' | 'debit'>;
  linkpay: Pick<PaymentLinkProvider, 'getTransaction' | 'refund'>;
  orders: Pick<OrderRepository, 'patch' | 'rewriteStatus'>;
  workflows: OrderWorkflowPort;
  /** Absent: the chain check (c) is skipped. */
  chain?: ChainTotalsPort;
  /**
   * Issue 36 §1: refunds a settled x402 payment nothing kept (src/services/x402Refunds.ts `refundX402Settlement`);
   * absent, such payments are reported for an operator.
   */
  x402Refund?: (paymentId: string, reason: string) => Promise<X402RefundOutcome>;
  /**
   * Card charges (the Stripe adapter): recorded succeeded PaymentIntents without a payment record, and their mirror.
   * Absent (no Stripe): skipped.
   */
  cardIntents?: Pick<StripePaymentPort, 'unmirroredIntents' | 'mirrorIntent'>;
  /** The clock (tests). */
  now?: () => Date;
}

/** Options of {@link reconcileBooks}. */
export interface ReconcileOptions {
  /** Make the repairs listed in the module comment; false: report them as discrepancies. */
  repair: boolean;
  /** Seconds a debit, settlement or order change may be in flight before it counts; default 20. */
  graceSeconds?: number;
  /** Open orders whose workflow is asked per run; default {@link DEFAULT_MAX_ORDER_CHECKS}. */
  maxOrderChecks?: number;
  /**
   * A `recent` run: of the open orders, ask only those whose workflow closed since this moment and those whose read
   * model shows a payment in flight. Absent: a `full` run asks every open order (up to `maxOrderChecks`). A stale read
   * model goes stale when its workflow closes, so a recent run from before the previous run's start misses none.
   */
  ordersClosedSince?: Date;
}

/** Statuses of an order whose payment was returned (or is being returned: `failed` goes to `refunded` at once). */
const REFUNDED: readonly OrderStatus[] = ['rejected', 'refunded', 'cancelled'];
/** Workflow-state questions in parallel. */
const CONCURRENCY = 4;

const ORDER_DEBIT = 'order:';
const REFUND_CREDIT = 'refund:';
const COMMISSION = 'commission:';
const COMMISSION_REVERSAL = 'commission-reversal:';

/** `agent|tx` key of a ledger entry. */
const key = (agentId: string, txId: string): string => `${agentId}|${txId}`;

/**
 * Checks every money invariant of issue 24 §3 (see the module comment) and, with `repair`, repairs orphan debits and
 * stale read models. Never throws for one order's trouble (a workflow that cannot be asked is a `check_failed`
 * discrepancy); a database error throws (the activity retries).
 * @returns the report; `ok` is true when no discrepancy is left.
 * @example
 * const report = await reconcileBooks(ports, { repair: true, graceSeconds: 20 });
 * if (!report.ok) console.log(report.discrepancies);
 */
export async function reconcileBooks(
  ports: ReconciliationPorts,
  opts: ReconcileOptions,
): Promise<ReconciliationReport> {
  const now = ports.now ?? (() => new Date());
  const started = now();
  const grace = opts.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  const cutoff = new Date(started.getTime() - grace * 1000);
  const out = new ReportBuilder();

  const ledger = await checkWallets(ports, out);
  await checkOrderDebits(ports, opts.repair, cutoff, ledger, out);
  await checkOrders(ports, opts, cutoff, out);
  await checkX402(ports, opts.repair, cutoff, started, out);
  await checkCardCharges(ports, opts.repair, cutoff, out);
  await checkLinkPayments(ports, opts.repair, cutoff, out);
  await checkCommissions(ports, cutoff, ledger, out);
  const refundsDue = await listRefundsDue(ports);

  return out.report({
    started_at: started.toISOString(),
    finished_at: now().toISOString(),
    repair: opts.repair,
    scope: opts.ordersClosedSince ? 'recent' : 'full',
    ...(opts.ordersClosedSince ? { orders_closed_since: opts.ordersClosedSince.toISOString() } : {}),
    grace_seconds: grace,
    refunds_due: refundsDue,
  });
}

// --- the report -------------------------------------------------------------------------------------------------

/** Collects counts, repairs and discrepancies; lists at most {@link MAX_LISTED} of each. */
class ReportBuilder {
  readonly checked = { wallets: 0, debits: 0, x402_settlements: 0, commissions: 0, orders: 0 };
  readonly totals = { balances_micros: 0, credits_micros: 0, debits_micros: 0, refunds_due_micros: 0 };
  private readonly repaired: RepairRecord[] = [];
  private readonly discrepancies: Discrepancy[] = [];
  private discrepancyCount = 0;
  private repairCount = 0;

  repair(r: RepairRecord): void {
    if (++this.repairCount <= MAX_LISTED) this.repaired.push(r);
  }

  discrepancy(d: Discrepancy): void {
    if (++this.discrepancyCount <= MAX_LISTED) this.discrepancies.push(d);
  }

  report(
    rest: Pick<
      ReconciliationReport,
      'started_at' | 'finished_at' | 'repair' | 'scope' | 'orders_closed_since' | 'grace_seconds' | 'refunds_due'
    >,
  ): ReconciliationReport {
    const discrepancies = [...this.discrepancies];
    if (this.discrepancyCount > MAX_LISTED)
      discrepancies.push({ kind: 'truncated', detail: `${this.discrepancyCount - MAX_LISTED} more not listed` });
    const refundsDueMicros = rest.refunds_due.reduce((sum, r) => sum + r.amount_micros, 0);
    return {
      ok: this.discrepancyCount === 0,
      discrepancy_count: this.discrepancyCount,
      started_at: rest.started_at,
      finished_at: rest.finished_at,
      repair: rest.repair,
      scope: rest.scope,
      ...(rest.orders_closed_since ? { orders_closed_since: rest.orders_closed_since } : {}),
      grace_seconds: rest.grace_seconds,
      checked: { ...this.checked },
      repaired: [...this.repaired],
      discrepancies,
      totals: { ...this.totals, refunds_due_micros: refundsDueMicros },
      refunds_due: rest.refunds_due.slice(0, MAX_LISTED),
    };
  }
}

// --- a, e: wallets and their ledgers ----------------------------------------------------------------------------

/** The ledger entries later checks need, gathered in the one pass over the ledger. */
interface LedgerIndex {
  orderDebits: LedgerEntryView[];
  /** `agent|tx` → entry, for `refund:`, `commission:` and `commission-reversal:` entries. */
  byKey: Map<string, LedgerEntryView>;
  /** Commission credits (`commission:…`) seen in the ledger. */
  commissionCredits: LedgerEntryView[];
}

/** Checks a (balance = Σ ledger) per wallet and e (the global sum); returns the entries later checks need. */
async function checkWallets(ports: ReconciliationPorts, out: ReportBuilder): Promise<LedgerIndex> {
  const wallets = await ports.books.wallets();
  const sums = new Map<string, LedgerSum>();
  const index: LedgerIndex = { orderDebits: [], byKey: new Map(), commissionCredits: [] };
  for await (const e of ports.books.entries()) {
    const s = sums.get(e.agent_id) ?? sumOf([]);
    if (e.type === 'credit') s.credits += e.amount_micros;
    else s.debits += e.amount_micros;
    s.net = s.credits - s.debits;
    s.count += 1;
    sums.set(e.agent_id, s);
    if (e.type === 'debit' && e.tx_id.startsWith(ORDER_DEBIT)) index.orderDebits.push(e);
    else if (
      e.tx_id.startsWith(REFUND_CREDIT) ||
      e.tx_id.startsWith(COMMISSION) ||
      e.tx_id.startsWith(COMMISSION_REVERSAL)
    ) {
      index.byKey.set(key(e.agent_id, e.tx_id), e);
      if (e.type === 'credit' && e.tx_id.startsWith(COMMISSION)) index.commissionCredits.push(e);
    }
  }

  out.checked.wallets = wallets.length;
  const seen = new Set<string>();
  for (const w of wallets) {
    seen.add(w._id);
    let balance = w.balance_micros;
    let s = sums.get(w._id) ?? sumOf([]);
    if (balance !== s.net || s.count < w.seq) {
      // The scan is not one snapshot (a movement may land between the two reads), and a crashed process may have left
      // an entry unwritten: read this wallet again, which rewrites such entries from its recent movements.
      const missing = s.count < w.seq;
      let seq = w.seq;
      for (let attempt = 0; attempt < 3 && (balance !== s.net || s.count < seq); attempt++) {
        const snap = await ports.wallets.snapshot(w._id);
        if (!snap) break;
        balance = snap.balance_micros;
        seq = snap.wallet.seq;
        s = sumOf(snap.entries);
      }
      if (missing && s.count >= seq) {
        out.repair({
          kind: 'wallet_ledger_entries',
          agent_id: w._id,
          action: "ledger entries a crashed process left unwritten were rewritten from the wallet's recent movements",
        });
      }
      if (balance !== s.net) {
        out.discrepancy({
          kind: 'wallet_balance_mismatch',
          agent_id: w._id,
          amount_micros: balance - s.net,
          detail: `balance ${balance} micro-USD, ledger ${s.net} (credits ${s.credits} − debits ${s.debits})`,
        });
      }
    }
    out.totals.balances_micros += balance;
    out.totals.credits_micros += s.credits;
    out.totals.debits_micros += s.debits;
  }
  for (const [agentId, s] of sums) {
    if (seen.has(agentId)) continue;
    out.discrepancy({
      kind: 'ledger_without_wallet',
      agent_id: agentId,
      amount_micros: s.net,
      detail: `${s.count} ledger entries (net ${s.net} micro-USD) of an agent without a wallet`,
    });
    out.totals.credits_micros += s.credits;
    out.totals.debits_micros += s.debits;
  }
  const { balances_micros, credits_micros, debits_micros } = out.totals;
  if (balances_micros !== credits_micros - debits_micros) {
    out.discrepancy({
      kind: 'books_unbalanced',
      amount_micros: balances_micros - (credits_micros - debits_micros),
      detail: `Σ balances ${balances_micros} ≠ Σ credits ${credits_micros} − Σ debits ${debits_micros}`,
    });
  }
  return index;
}

/** Σ credits, Σ debits, their difference and the number of `entries`. */
function sumOf(entries: readonly Pick<LedgerEntryView, 'type' | 'amount_micros'>[]): LedgerSum {
  const s: LedgerSum = { net: 0, credits: 0, debits: 0, count: entries.length };
  for (const e of entries) {
    if (e.type === 'credit') s.credits += e.amount_micros;
    else s.debits += e.amount_micros;
  }
  s.net = s.credits - s.debits;
  return s;
}

/** A ledger's sums, integer micro-USD. */
interface LedgerSum {
  net: number;
  credits: number;
  debits: number;
  count: number;
}

// --- b: order debits --------------------------------------------------------------------------------------------

/** The order id of an `order:<id>` transaction. */
const orderIdOf = (txId: string): string => txId.slice(ORDER_DEBIT.length);

/** Checks b for every `order:<id>` debit; repairs orphans. */
async function checkOrderDebits(
  ports: ReconciliationPorts,
  repair: boolean,
  cutoff: Date,
  ledger: LedgerIndex,
  out: ReportBuilder,
): Promise<void> {
  out.checked.debits = ledger.orderDebits.length;
  const orders = byId(await ports.books.orders(ledger.orderDebits.map((d) => orderIdOf(d.tx_id))));
  const orphans: LedgerEntryView[] = [];
  for (const debit of ledger.orderDebits) {
    const orderId = orderIdOf(debit.tx_id);
    const refundTx = `${REFUND_CREDIT}${orderId}`;
    const refund = ledger.byKey.get(key(debit.agent_id, refundTx));
    if (refund) {
      if (refund.type !== 'credit' || refund.amount_micros !== debit.amount_micros) {
        out.discrepancy({
          kind: 'refund_amount_mismatch',
          order_id: orderId,
          agent_id: debit.agent_id,
          amount_micros: debit.amount_micros - (refund.type === 'credit' ? refund.amount_micros : 0),
          detail: `debit ${debit.amount_micros} micro-USD, ${refundTx} ${refund.type} of ${refund.amount_micros}`,
        });
      }
      continue;
    }
    const order = orders.get(orderId);
    const moving = debit.at >= cutoff || (order !== undefined && order.updated_at >= cutoff);
    if (order?.payment) {
      if (!isThisDebit(order.payment, debit)) {
        if (!moving)
          await returnDebit(
            ports,
            repair,
            debit,
            `debit ${debit.tx_id} of ${debit.amount_micros} micro-USD, but the order was paid ${describePayment(order.payment)}`,
            out,
          );
        continue;
      }
      if (REFUNDED.includes(order.status) && !moving && !(await ports.books.entry(debit.agent_id, refundTx))) {
        await returnDebit(
          ports,
          repair,
          debit,
          `the order is ${order.status} but its debit has no ${refundTx} credit`,
          out,
          'refund_missing',
        );
      }
      continue;
    }
    // No payment on the read model: in flight while young, an orphan after the grace period.
    if (debit.at >= cutoff) continue;
    orphans.push(debit);
  }
  for (const debit of orphans) await handleOrphanDebit(ports, repair, debit, orders.get(orderIdOf(debit.tx_id)), out);
}

/** Read-model statuses right after a payment: an order that stays in one past the grace period is looked at. */
const PAYING: readonly OrderStatus[] = ['paid', 'fulfilling'];

/**
 * A running order whose read model shows a payment but that has not moved for the grace period: its workflow must
 * hold that payment. When it does not (the local activity that wrote `paid` and `fulfilling` ran in a workflow task a
 * crash lost, with the Update that carried the payment; issue 24 §2), the workflow is signalled `recoverPayment`, so it
 * adopts the money it was paid with.
 */
async function checkPaymentHeld(
  ports: ReconciliationPorts,
  repair: boolean,
  order: OrderView,
  out: ReportBuilder,
): Promise<void> {
  const base = { order_id: order._id, amount_micros: order.amount_micros };
  try {
    const wf = await ports.workflows.orderWorkflowState(order._id);
    if (!wf?.running || wf.state?.payment) return;
    if (!repair) {
      out.discrepancy({
        kind: 'read_model_status_mismatch',
        ...base,
        detail: `the read model says ${order.status} with a payment; the running workflow holds none (a repair signals recoverPayment)`,
      });
      return;
    }
    await ports.workflows.recoverPayment(
      order._id,
      `reconciliation: the read model shows a payment the workflow lacks`,
    );
    out.repair({
      kind: 'payment_ahead_of_workflow',
      ...base,
      action: 'signalled recoverPayment to the running order workflow',
    });
  } catch (err) {
    out.discrepancy({ kind: 'check_failed', ...base, detail: `payment check: ${String(err)}` });
  }
}

/** True when `payment` is this wallet debit (same rail, transaction and amount). */
const isThisDebit = (payment: PaymentRecord, debit: LedgerEntryView): boolean =>
  payment.rail === 'agent_wallet' &&
  payment.transaction_id === debit.tx_id &&
  payment.amount_micros === debit.amount_micros;

const describePayment = (p: PaymentRecord): string =>
  `on ${p.rail} (${p.transaction_id}, ${p.amount_micros} micro-USD)`;

/**
 * Gives an `order:<id>` debit that its order does not keep back to the wallet it came from, under `refund:<id>` (a
 * wallet credits one transaction id once, so a second run or a racing refund credits nothing more). Safe because the
 * order's own refund of another rail never credits the wallet, and a refunded wallet order's refund is this very
 * credit. Reported as a discrepancy of `kind` when the repair does not run. Issue 36 §1.
 */
async function returnDebit(
  ports: ReconciliationPorts,
  repair: boolean,
  debit: LedgerEntryView,
  detail: string,
  out: ReportBuilder,
  kind: 'debit_not_order_payment' | 'refund_missing' = 'debit_not_order_payment',
): Promise<void> {
  const orderId = orderIdOf(debit.tx_id);
  const base = { order_id: orderId, agent_id: debit.agent_id, amount_micros: debit.amount_micros };
  if (!repair) {
    out.discrepancy({ kind, ...base, detail });
    return;
  }
  if (kind === 'debit_not_order_payment') {
    // The read model may lag its workflow: credited back only when the workflow too holds another payment.
    let wf: Awaited<ReturnType<OrderWorkflowPort['orderWorkflowState']>>;
    try {
      wf = await ports.workflows.orderWorkflowState(orderId);
    } catch (err) {
      out.discrepancy({ kind: 'check_failed', ...base, detail: `${detail}; workflow not readable: ${String(err)}` });
      return;
    }
    const held = wf?.state?.payment;
    if (!held || isThisDebit(held, debit)) {
      out.discrepancy({
        kind,
        ...base,
        detail: `${detail}; the workflow ${held ? 'holds this debit' : 'shows no payment'}: held for an operator`,
      });
      return;
    }
  }
  await refundToWallet(ports.wallets, {
    agentId: debit.agent_id,
    amountMicros: debit.amount_micros,
    txId: `${REFUND_CREDIT}${orderId}`,
    memo: `Refund of order ${orderId}: ${detail}`,
    source: `${REFUND_CREDIT}${orderId}`,
  });
  out.repair({ kind: 'returned_debit', ...base, action: `credited back under ${REFUND_CREDIT}${orderId}: ${detail}` });
}

/** An `order:<id>` debit whose order's read model holds no payment, past the grace period. */
async function handleOrphanDebit(
  ports: ReconciliationPorts,
  repair: boolean,
  debit: LedgerEntryView,
  order: OrderView | undefined,
  out: ReportBuilder,
): Promise<void> {
  const orderId = orderIdOf(debit.tx_id);
  const base = { order_id: orderId, agent_id: debit.agent_id, amount_micros: debit.amount_micros };
  // The refund may have landed since the ledger was read (the workflow refunds at once on a failure).
  if (await ports.books.entry(debit.agent_id, `${REFUND_CREDIT}${orderId}`)) return;
  if (order && (order.amount_micros !== debit.amount_micros || (order.agent_id ?? debit.agent_id) !== debit.agent_id)) {
    // Not a payment the order could adopt: neither signalled nor refunded blindly.
    out.discrepancy({
      kind: 'debit_not_order_payment',
      ...base,
      detail: `debit ${debit.tx_id} of ${debit.amount_micros} micro-USD from ${debit.agent_id}; the order costs ${order.amount_micros} and belongs to ${order.agent_id ?? 'no agent'}`,
    });
    return;
  }
  let wf: Awaited<ReturnType<OrderWorkflowPort['orderWorkflowState']>>;
  try {
    wf = await ports.workflows.orderWorkflowState(orderId);
  } catch (err) {
    out.discrepancy({ kind: 'check_failed', ...base, detail: `orphan debit: workflow not readable: ${String(err)}` });
    return;
  }
  if (wf?.state?.payment) {
    // The workflow holds a payment the read model does not show yet: not an orphan (the order check rewrites a
    // closed workflow's stale read model).
    if (!isThisDebit(wf.state.payment, debit)) {
      await returnDebit(
        ports,
        repair,
        debit,
        `debit ${debit.tx_id}, but the workflow holds the payment ${describePayment(wf.state.payment)}`,
        out,
      );
    }
    return;
  }
  if (wf?.running) {
    const reason = `reconciliation: ${debit.tx_id} debited ${debit.amount_micros} micro-USD at ${debit.at.toISOString()} without a payment`;
    if (!repair) {
      out.discrepancy({
        kind: 'orphan_debit',
        ...base,
        detail: 'debit without payment; the workflow is running (a repair signals recoverPayment)',
      });
      return;
    }
    try {
      await ports.workflows.recoverPayment(orderId, reason);
      out.repair({ kind: 'orphan_debit', ...base, action: 'signalled recoverPayment to the running order workflow' });
    } catch (err) {
      out.discrepancy({ kind: 'orphan_debit', ...base, detail: `recoverPayment signal failed: ${String(err)}` });
    }
    return;
  }
  // Closed without a payment, or gone after retention with a final read model: the money was taken for nothing.
  const closedStatus = wf
    ? (wf.state?.status ?? 'closed')
    : order && TERMINAL_STATUSES.includes(order.status)
      ? order.status
      : undefined;
  if (closedStatus === undefined) {
    out.discrepancy({
      kind: 'orphan_debit',
      ...base,
      detail: order ? `no workflow for the ${order.status} order holding this debit` : 'no order and no workflow',
    });
    return;
  }
  if (!repair) {
    out.discrepancy({
      kind: 'orphan_debit',
      ...base,
      detail: `the order's workflow ended ${closedStatus} without a payment (a repair refunds it)`,
    });
    return;
  }
  const at = (ports.now ?? (() => new Date()))().toISOString();
  const refund = await refundOrder(ports, {
    orderId,
    payment: {
      rail: 'agent_wallet',
      transaction_id: debit.tx_id,
      amount_micros: debit.amount_micros,
      paid_at: debit.at.toISOString(),
    },
    agentId: debit.agent_id,
    reason: `orphan debit: the order ended ${closedStatus} without a payment (books reconciliation)`,
    at,
  });
  if (order && !order.refund) await ports.orders.patch(orderId, { refund });
  out.repair({
    kind: 'orphan_debit',
    ...base,
    action: `refunded under ${REFUND_CREDIT}${orderId} (the workflow ended ${closedStatus} without a payment)`,
  });
}

// --- read models against closed workflows -------------------------------------------------------------------------

/**
 * Asks the workflow of every open order (read model not final, unchanged for the grace period) whether it closed; in a
 * `recent` run ({@link ReconcileOptions.ordersClosedSince}) only of those whose workflow closed since then or whose read
 * model shows a payment in flight.
 */
async function checkOrders(
  ports: ReconciliationPorts,
  opts: ReconcileOptions,
  cutoff: Date,
  out: ReportBuilder,
): Promise<void> {
  const limit = opts.maxOrderChecks ?? DEFAULT_MAX_ORDER_CHECKS;
  const open = opts.ordersClosedSince
    ? await recentOpenOrders(ports, opts.ordersClosedSince, cutoff, limit)
    : await ports.books.openOrders(cutoff, limit);
  out.checked.orders = open.length;
  await forEachLimit(open, CONCURRENCY, async (order) => {
    let wf: Awaited<ReturnType<OrderWorkflowPort['orderWorkflowState']>>;
    try {
      wf = await ports.workflows.orderWorkflowState(order._id, { query: false });
    } catch (err) {
      out.discrepancy({ kind: 'check_failed', order_id: order._id, detail: `workflow not readable: ${String(err)}` });
      return;
    }
    if (wf?.running) {
      if (order.payment && PAYING.includes(order.status)) await checkPaymentHeld(ports, opts.repair, order, out);
      return;
    }
    if (!wf?.state) {
      // Ended without a result (terminated, failed, timed out) while awaiting payment: nothing can pay it any more, and
      // money taken for it is given back by the checks of debits, link payments and settlements. Its read model is
      // closed as expired (issue 36 §1). Anything further along is held for an operator.
      if (opts.repair && order.status === 'awaiting_payment' && !order.payment) {
        const at = new Date().toISOString();
        const rewritten = await ports.orders.rewriteStatus(
          order._id,
          { status: order.status, version: order.version },
          {
            status: 'expired',
            progress: [...(order.progress ?? []), { status: 'expired', at }],
            failure: wf ? 'the order workflow ended without a result (terminated)' : 'the order workflow is gone',
          },
        );
        if (rewritten) {
          out.repair({
            kind: 'read_model_status',
            order_id: order._id,
            action: `awaiting_payment → expired: the workflow ${wf ? 'ended without a result' : 'is gone'}, nothing was kept`,
          });
          return;
        }
      }
      out.discrepancy({
        kind: 'workflow_missing',
        order_id: order._id,
        detail: wf
          ? `the read model says ${order.status}; the workflow ended without a final state (failed or terminated)`
          : `the read model says ${order.status}; there is no workflow`,
      });
      return;
    }
    const final = wf.state;
    if (final.status === order.status) return;
    const change = `${order.status} → ${final.status}`;
    if (!opts.repair) {
      out.discrepancy({
        kind: 'read_model_status_mismatch',
        order_id: order._id,
        detail: `the read model says ${order.status}, the closed workflow ${final.status} (a repair rewrites ${change})`,
      });
      return;
    }
    const rewritten = await ports.orders.rewriteStatus(
      order._id,
      { status: order.status, version: order.version },
      {
        status: final.status,
        progress: final.progress,
        ...(final.payment ? { payment: final.payment } : {}),
        ...(final.refund ? { refund: final.refund } : {}),
        ...(final.review ? { review: final.review } : {}),
        ...(final.failure !== undefined ? { failure: final.failure } : {}),
      },
    );
    // Null: the read model changed since it was read (a late activity write): the next run looks again.
    if (rewritten)
      out.repair({ kind: 'read_model_status', order_id: order._id, action: `read model status rewritten ${change}` });
  });
}

/** The open orders a `recent` run asks about: closed since `since`, or showing a payment in flight; by id, once. */
async function recentOpenOrders(
  ports: ReconciliationPorts,
  since: Date,
  cutoff: Date,
  limit: number,
): Promise<OrderView[]> {
  const closed = await ports.workflows.closedSince(since);
  const [paying, stale] = await Promise.all([
    ports.books.openOrders(cutoff, limit, { statuses: PAYING }),
    closed.length ? ports.books.openOrders(cutoff, limit, { ids: closed }) : Promise.resolve([]),
  ]);
  const byId = new Map([...paying, ...stale].map((o) => [o._id, o]));
  return [...byId.values()].slice(0, limit);
}

// --- b': payment-link transactions -----------------------------------------------------------------------------

/**
 * Each succeeded payment-link transaction older than the grace period pays its order: the order's payment is that
 * transaction. One whose order holds no payment (the buyer paid and the confirmation never reached the workflow) is,
 * with `repair`, signalled `recoverPayment` while the workflow runs (it adopts the transaction), or refunded at the
 * provider once the workflow has closed unpaid. Issue 24 §2.
 */
async function checkLinkPayments(
  ports: ReconciliationPorts,
  repair: boolean,
  cutoff: Date,
  out: ReportBuilder,
): Promise<void> {
  const txs = await ports.books.linkTransactions(cutoff);
  const orders = new Map((await ports.books.orders(txs.map((t) => t.order_id))).map((o) => [o._id, o]));
  for (const tx of txs) {
    const order = orders.get(tx.order_id);
    if (order?.payment?.rail === 'linkpay_ncp' && order.payment.transaction_id === tx._id) continue;
    const base = { order_id: tx.order_id, amount_micros: tx.amount_micros };
    let wf: Awaited<ReturnType<OrderWorkflowPort['orderWorkflowState']>>;
    try {
      wf = await ports.workflows.orderWorkflowState(tx.order_id);
    } catch (err) {
      out.discrepancy({ kind: 'check_failed', ...base, detail: `link payment ${tx._id}: ${String(err)}` });
      continue;
    }
    const held = wf?.state?.payment ?? order?.payment ?? undefined;
    if (held) {
      if (held.rail === 'linkpay_ncp' && held.transaction_id === tx._id) continue;
      // A second charge for an order paid otherwise (two Pay presses at once, before the unique index): give it back.
      if (repair && (await ports.linkpay.refund(tx._id))) {
        out.repair({
          kind: 'orphan_linkpay_payment',
          ...base,
          action: `refunded ${tx._id} at the provider: the order was paid ${describePayment(held)}`,
        });
      } else {
        out.discrepancy({
          kind: 'linkpay_unmatched_payment',
          ...base,
          detail: `link payment ${tx._id} succeeded, but the order was paid ${describePayment(held)}: a refund is due`,
        });
      }
      continue;
    }
    if (!repair) {
      out.discrepancy({ kind: 'linkpay_unmatched_payment', ...base, detail: `link payment ${tx._id}: order unpaid` });
      continue;
    }
    if (wf?.running) {
      await ports.workflows.recoverPayment(tx.order_id, `reconciliation: link payment ${tx._id} without a payment`);
      out.repair({
        kind: 'orphan_linkpay_payment',
        ...base,
        action: 'signalled recoverPayment to the running order workflow',
      });
    } else if (await ports.linkpay.refund(tx._id)) {
      out.repair({ kind: 'orphan_linkpay_payment', ...base, action: `refunded ${tx._id} at the provider` });
    } else {
      out.discrepancy({ kind: 'linkpay_unmatched_payment', ...base, detail: `link payment ${tx._id}: refund refused` });
    }
  }
}

/**
 * Money Stripe took for a delegated card charge that no payment record shows (issue 37 §3): with `repair`, mirrored as
 * its order's link payment, so {@link checkLinkPayments} (run next) has the order adopt it or refunds it.
 */
async function checkCardCharges(
  ports: ReconciliationPorts,
  repair: boolean,
  cutoff: Date,
  out: ReportBuilder,
): Promise<void> {
  if (!ports.cardIntents) return;
  for (const intent of await ports.cardIntents.unmirroredIntents(cutoff)) {
    const base = { order_id: intent.order_id, amount_micros: intent.amount_cents * 10_000 };
    if (!repair) {
      out.discrepancy({
        kind: 'card_charge_unrecorded',
        ...base,
        detail: `PaymentIntent ${intent._id}: no payment record`,
      });
      continue;
    }
    const recorded = await ports.cardIntents.mirrorIntent(intent);
    out.repair({
      kind: 'unrecorded_card_charge',
      ...base,
      action:
        recorded.outcome === 'second'
          ? `PaymentIntent ${intent._id} was a second payment of the order: refunded at Stripe`
          : `recorded PaymentIntent ${intent._id} as the order's link payment`,
    });
  }
}

// --- c: x402 settlements ----------------------------------------------------------------------------------------

/** Checks c: each settled x402 payment pays one order or one item; the chain's transfers equal the settled total. */
async function checkX402(
  ports: ReconciliationPorts,
  repair: boolean,
  cutoff: Date,
  started: Date,
  out: ReportBuilder,
): Promise<void> {
  const all = await ports.books.x402Entries(['settled']);
  out.checked.x402_settlements = all.length;
  // A settlement refunded on chain is accounted for (issue 36 §1): the money went back to its payer.
  const settled = all.filter((p) => p.refund?.status !== 'sent');
  /**
   * An unmatched settlement: refunded on chain when a refunder is configured and the repair runs (a repair), else
   * reported for an operator with `detail` (a discrepancy). A refund that fails now is reported and retried next run.
   */
  const unmatched = async (p: X402View, base: { order_id?: string; amount_micros: number }, detail: string) => {
    if (repair && ports.x402Refund) {
      try {
        const r = await ports.x402Refund(p._id, detail);
        if (r.status === 'sent') {
          out.repair({ kind: 'x402_refund', ...base, action: `refunded on chain to the payer in ${r.transaction}` });
          return;
        }
        if (r.status === 'not_due') return;
        detail = `${detail} (${r.detail})`;
      } catch (err) {
        detail = `${detail} (refund failed, retried next run: ${err instanceof Error ? err.message : String(err)})`;
      }
    }
    out.discrepancy({ kind: 'x402_unmatched_settlement', ...base, detail });
  };
  const perOrder = new Map<string, X402View[]>();
  for (const p of settled) if (p.order_id) perOrder.set(p.order_id, [...(perOrder.get(p.order_id) ?? []), p]);
  const orders = byId(await ports.books.orders([...perOrder.keys()]));
  for (const [orderId, list] of perOrder) {
    if (list.length > 1) {
      out.discrepancy({
        kind: 'x402_duplicate_settlement',
        order_id: orderId,
        amount_micros: list.slice(1).reduce((sum, p) => sum + p.amount_micros, 0),
        detail: `${list.length} settled x402 payments for one order: ${list.map((p) => p._id).join(', ')}`,
      });
    }
  }
  for (const p of settled) {
    const base = { ...(p.order_id ? { order_id: p.order_id } : {}), amount_micros: p.amount_micros };
    if (!p.order_id) {
      // Held for an operator, never refunded blindly: catalogue goods go out before their record is written, so a
      // settlement noted this way may well have delivered them.
      if (p.error_reason === 'delivery_failed') {
        out.discrepancy({
          kind: 'x402_unmatched_settlement',
          ...base,
          detail: `x402 payment ${p._id} for ${p.resource} settled (${p.transaction}); its delivery is not recorded: refund or deliver by hand`,
        });
      }
      continue;
    }
    const order = orders.get(p.order_id);
    const tx = (p.transaction ?? '').toLowerCase();
    if (order?.payment) {
      if (order.payment.rail !== 'x402_usdc' || order.payment.transaction_id.toLowerCase() !== tx) {
        await unmatched(
          p,
          base,
          `x402 payment ${p._id} settled (${p.transaction}), but the order was paid ${describePayment(order.payment)}: an on-chain refund is due`,
        );
      }
      continue;
    }
    // Not (yet) on the read model: in flight while its confirmation is held or young.
    const since = p.settled_at ?? p.created_at;
    if (since >= cutoff || (p.confirmation_due && p.lease_until && p.lease_until > started)) continue;
    let wf: Awaited<ReturnType<OrderWorkflowPort['orderWorkflowState']>>;
    try {
      wf = await ports.workflows.orderWorkflowState(p.order_id);
    } catch (err) {
      out.discrepancy({
        kind: 'check_failed',
        ...base,
        detail: `x402 payment ${p._id}: workflow not readable: ${String(err)}`,
      });
      continue;
    }
    const paid = wf?.state?.payment;
    if (paid) {
      if (paid.rail !== 'x402_usdc' || paid.transaction_id.toLowerCase() !== tx) {
        await unmatched(
          p,
          base,
          `x402 payment ${p._id} settled, but the workflow holds the payment ${describePayment(paid)}: an on-chain refund is due`,
        );
      }
      continue;
    }
    if (wf?.running && repair) {
      try {
        await ports.workflows.recoverPayment(
          p.order_id,
          `reconciliation: x402 payment ${p._id} settled (${p.transaction}) without confirming the order`,
        );
        out.repair({
          kind: 'orphan_x402_settlement',
          ...base,
          action: 'signalled recoverPayment to the running order workflow',
        });
        continue;
      } catch (err) {
        out.discrepancy({
          kind: 'x402_unmatched_settlement',
          ...base,
          detail: `recoverPayment signal failed: ${String(err)}`,
        });
        continue;
      }
    }
    if (wf?.running) {
      out.discrepancy({
        kind: 'x402_unmatched_settlement',
        ...base,
        detail: `x402 payment ${p._id} settled; the running order holds no payment (a repair signals recoverPayment)`,
      });
      continue;
    }
    await unmatched(
      p,
      base,
      `x402 payment ${p._id} settled (${p.transaction}) for an order that ended ${wf?.state?.status ?? order?.status ?? 'unknown'} unpaid: an on-chain refund is due`,
    );
  }
  // The chain's incoming transfers include the refunded settlements: the sum to compare is every settled entry's.
  if (ports.chain && all.length > 0) await checkChain(ports.chain, all, ports, out);
}

/** The chain's transfers to each pay-to address against the settled ledger total (payments still settling may differ). */
async function checkChain(
  chain: ChainTotalsPort,
  settled: X402View[],
  ports: ReconciliationPorts,
  out: ReportBuilder,
): Promise<void> {
  const groups = new Map<string, { asset: string; payTo: string; settled: number; inFlight: number }>();
  const group = (p: X402View) => {
    const k = `${p.asset.toLowerCase()}|${p.pay_to.toLowerCase()}`;
    const g = groups.get(k) ?? { asset: p.asset, payTo: p.pay_to, settled: 0, inFlight: 0 };
    groups.set(k, g);
    return g;
  };
  for (const p of settled) if (p.network === chain.network) group(p).settled += p.amount_micros;
  for (const p of await ports.books.x402Entries(['settling', 'pending'])) {
    if (p.network === chain.network && groups.has(`${p.asset.toLowerCase()}|${p.pay_to.toLowerCase()}`))
      group(p).inFlight += p.amount_micros;
  }
  for (const g of groups.values()) {
    let received: bigint;
    try {
      received = await chain.receivedTotal(g.asset, g.payTo);
    } catch (err) {
      out.discrepancy({
        kind: 'x402_chain_unreadable',
        amount_micros: g.settled,
        detail: `transfers of ${g.asset} to ${g.payTo} not readable on ${chain.network}: ${String(err)}`,
      });
      continue;
    }
    const diff = received - BigInt(g.settled);
    // Settlements still running may have moved money the ledger does not call settled yet.
    if (diff === 0n || (diff > 0n && diff <= BigInt(g.inFlight))) continue;
    out.discrepancy({
      kind: 'x402_chain_mismatch',
      amount_micros: Number(diff),
      detail: `the chain shows ${received} of ${g.asset} received by ${g.payTo}, the ledger ${g.settled} settled (${g.inFlight} in flight)`,
    });
  }
}

// --- d: commissions ---------------------------------------------------------------------------------------------

/** Checks d: commission states against their orders, and the partner ledgers against the commission records. */
async function checkCommissions(
  ports: ReconciliationPorts,
  cutoff: Date,
  ledger: LedgerIndex,
  out: ReportBuilder,
): Promise<void> {
  const commissions = await ports.books.commissions();
  out.checked.commissions = commissions.length;
  const ids = new Set(commissions.map((c) => c._id));
  const orders = byId(await ports.books.orders(commissions.filter((c) => !c.period).map((c) => c.order_id)));
  for (const c of commissions) {
    if (c.releasing) continue; // a release in progress: its retry finishes it
    const base = { order_id: c.order_id, agent_id: c.partner_id };
    const mismatch = (detail: string, amount?: number) =>
      out.discrepancy({
        kind: 'commission_ledger_mismatch',
        ...base,
        ...(amount !== undefined ? { amount_micros: amount } : {}),
        detail: `${c._id} (${c.status}): ${detail}`,
      });
    // The partner's ledger.
    const credit = ledger.byKey.get(key(c.partner_id, c._id));
    const paidOut = ['credited', 'reversed', 'reversal_owed'].includes(c.status);
    const net = c.commission_micros - (c.debt_offset_micros ?? 0);
    if (paidOut && net > 0 && credit?.amount_micros !== net)
      mismatch(credit ? `credited ${credit.amount_micros}, the record says ${net}` : `no wallet credit of ${net}`, net);
    if (!paidOut && credit) mismatch(`a wallet credit of ${credit.amount_micros} exists`, credit.amount_micros);
    const debited = c.reversal_debited_micros ?? 0;
    if ((c.status === 'reversed' || c.status === 'reversal_owed') && debited > 0) {
      const reversal = ledger.byKey.get(key(c.partner_id, commissionReversalTxId(c.order_id, c.period)));
      if (reversal?.amount_micros !== debited)
        mismatch(
          reversal
            ? `reversal debit ${reversal.amount_micros}, the record says ${debited}`
            : `no reversal debit of ${debited}`,
          debited,
        );
    }
    // The order's state (renewal commissions, with a period, are final when paid).
    if (c.period) continue;
    const order = orders.get(c.order_id);
    if (!order) {
      out.discrepancy({ kind: 'commission_state_mismatch', ...base, detail: `${c._id}: no such order` });
      continue;
    }
    if (order.updated_at >= cutoff) continue; // the order is moving: its commission step follows
    const state = (detail: string) =>
      out.discrepancy({
        kind: 'commission_state_mismatch',
        ...base,
        amount_micros: c.commission_micros,
        detail: `${c._id} is ${c.status} on a ${order.status} order: ${detail}`,
      });
    switch (c.status) {
      case 'credited':
        if (order.status !== 'accepted') state('commissions are credited only on accepted orders');
        break;
      case 'pending':
        if (TERMINAL_STATUSES.includes(order.status)) state('a final order leaves no commission pending');
        break;
      case 'cancelled':
      case 'reversed':
      case 'reversal_owed':
        if (!REFUNDED.includes(order.status) && order.status !== 'failed')
          state('only a refunded order cancels or reverses its commission');
        break;
      case 'not_eligible':
        break;
    }
  }
  // Commission money in a wallet without a commission record.
  for (const e of ledger.commissionCredits) {
    if (!ids.has(e.tx_id))
      out.discrepancy({
        kind: 'commission_ledger_mismatch',
        agent_id: e.agent_id,
        amount_micros: e.amount_micros,
        detail: `wallet credit ${e.tx_id} has no commission record`,
      });
  }
}

// --- e: refunds due ---------------------------------------------------------------------------------------------

/** Refunds recorded as owed on orders, oldest first. */
async function listRefundsDue(ports: ReconciliationPorts): Promise<RefundDue[]> {
  const orders = await ports.books.refundsDue();
  return orders
    .flatMap((o) =>
      o.refund?.status === 'due'
        ? [
            {
              order_id: o._id,
              rail: o.refund.rail,
              amount_micros: o.refund.amount_micros,
              reason: o.refund.reason,
              at: o.refund.at,
            },
          ]
        : [],
    )
    .sort((a, b) => a.at.localeCompare(b.at));
}

// --- helpers ----------------------------------------------------------------------------------------------------

const byId = <T extends { _id: string }>(docs: T[]): Map<string, T> => new Map(docs.map((d) => [d._id, d]));

/** Runs `fn` over `items`, at most `limit` at a time. */
async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
