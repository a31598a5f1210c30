/**
 * Reconciliation hand-off and the orphan sweeper of the x402 seller: ledger entries whose request died between the
 * claim and the facilitator's answer, and settled order payments whose order was never confirmed, are handed to
 * `onPending` (which starts `workflows/x402Reconcile.ts` with a fixed workflow id, so repeated hand-offs are
 * harmless). Source: issue 3 §2; issue 14 (requests killed mid-settlement); issue 27 §2.
 */
import type { X402PaymentDoc } from '../db';
import type { X402PaymentRepository } from '../repos/x402Payments';

/**
 * A `settling` claim written before claims had leases, older than this, outlived any settlement call (facilitator
 * timeout 150 s): its request died. Claims with a lease are orphaned once it lapses (CLAIM_LEASE_MS). Milliseconds.
 */
export const ORPHAN_CLAIM_MS = 5 * 60_000;

/** Hands the ledger entry `paymentId` to reconciliation. Never throws for `onPending`'s errors: they are logged. */
export type Reconcile = (paymentId: string) => Promise<void>;

/** What reconciliation reads: the ledger, the hand-off and where its errors go. */
export interface ReconcileOptions {
  ledger: Pick<X402PaymentRepository, 'get'>;
  /** Starts the reconciliation of an entry; absent, nothing is reconciled. */
  onPending?: (payment: X402PaymentDoc) => Promise<void>;
  log?: (err: unknown) => void;
}

/**
 * The {@link Reconcile} function over `opts`: reads the entry as it is now and hands it to `onPending` (nothing when
 * the entry is gone or there is no `onPending`).
 * @throws what the ledger read throws; `onPending`'s errors are logged instead.
 */
export function reconcilerOf(opts: ReconcileOptions): Reconcile {
  return async (paymentId) => {
    const doc = await opts.ledger.get(paymentId);
    if (!doc || !opts.onPending) return;
    await opts.onPending(doc).catch((err) => opts.log?.(err));
  };
}

/** What the sweeper reads: stale claims and stale order confirmations of the ledger. */
export type SweptLedger = Pick<X402PaymentRepository, 'staleClaims' | 'staleConfirmations'>;

/**
 * At once and then every `intervalMs`, hands claims left `settling` whose lease lapsed (their request died between
 * the claim and the facilitator's answer; legacy claims: older than {@link ORPHAN_CLAIM_MS}), and settled order
 * payments whose lease lapsed with the order unconfirmed, to `reconcile`, which reconciles them on chain (and
 * confirms their order). Runs in every API process; the reconcile workflow id makes concurrent sweeps harmless.
 * The timers do not keep the process alive; a failed sweep is dropped (the next one retries). At most 50 of each
 * kind per sweep.
 * @returns a function stopping the sweeper.
 */
export function startOrphanSweeper(ledger: SweptLedger, reconcile: Reconcile, intervalMs = 5_000): () => void {
  const sweep = async () => {
    const now = new Date();
    const orphans = await ledger.staleClaims(now, 50, ORPHAN_CLAIM_MS);
    // Settled order payments whose request died before the order was confirmed: reconciliation confirms it.
    const unconfirmed = await ledger.staleConfirmations(now, 50);
    for (const o of [...orphans, ...unconfirmed]) await reconcile(o._id);
  };
  const first = setTimeout(() => void sweep().catch(() => undefined), 0);
  const timer = setInterval(() => void sweep().catch(() => undefined), intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
