/**
 * The payment session: one paid request carried through claim → verify → settle → record → deliver. The session
 * holds what the steps hand each other (the sale and its x402 request, the ledger claim with its lease, the goods)
 * so that no step takes a dozen parameters. Amounts are integer micro-units (USDC atomic units).
 *
 * - claim: the goods are built (`produce`, pure) and the payload's authorization (network, payer, nonce) is claimed
 *   by a unique insert into `x402_payments`, while the payment is verified; the claim's lease is renewed until the
 *   session releases it (CLAIM_LEASE_MS), so only a claim whose request died lapses. A refused claim (the
 *   authorization or the order held by another request) is answered by the middleware.
 * - verify: `processHTTPRequest` (offline for an EOA's EIP-3009 signature, the facilitator otherwise).
 * - settle: `processSettlement`.
 * - record: settled (catalogue goods go out while the record is written), pending (202 with a delivery URL,
 *   reconciled by its transaction hash), or failed (kept when a transaction may have been sent, withdrawn otherwise;
 *   402 with a fresh PAYMENT-REQUIRED and the reason code only).
 * - deliver: `resource.deliver` (confirming an order) after the settled record.
 *
 * Source: x402 v2 specification (verify → handler → settle); issue 3 §1, §2; issue 14; issue 24 §5; issue 27 §2.
 */
import type {
  HTTPProcessResult,
  HTTPRequestContext,
  ProcessSettleFailureResponse,
  x402HTTPResourceServer,
} from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import type { X402PaymentDoc } from '../db';
import { ProblemError, problem } from '../errors';
import { CLAIM_LEASE_MS, type ClaimRefusal, type X402PaymentRepository } from '../repos/x402Payments';
import { authorizationOf, paymentIdentifierOf } from './paymentHeader';
import { goodsOf, receipt, writePending, writeStored } from './responses';
import type { PaymentServer } from './server';
import {
  SETTLEMENT_PENDING_REASON,
  refusedBeforeSending,
  settlementFailureDetail,
  settlementReasonCode,
} from './settlementFailure';
import type { Reconcile } from './sweeper';
import { errorLogger } from '../telemetry/logger';
import type { Sale, StoredResponse, X402Settings } from './types';

/** What the seller's pieces share, built once per gateway (src/x402/gateway.ts). */
export interface SellerDeps {
  settings: X402Settings;
  ledger: X402PaymentRepository;
  server: PaymentServer;
  /** Hands a ledger entry to reconciliation (src/x402/sweeper.ts). */
  reconcile: Reconcile;
  log?: (err: unknown) => void;
}

/** A sale as x402 carries it: the per-request HTTP server, the request context and the payment id's ledger key. */
export interface SaleRequest extends Sale {
  http: x402HTTPResourceServer;
  context: HTTPRequestContext;
  /** Ledger key of the request's `payment-identifier` (X402PaymentRepository.paymentIdKey), or null. */
  paymentIdKey: string | null;
}

/** A payment `processHTTPRequest` verified. */
export type VerifiedPayment = Pick<
  Extract<HTTPProcessResult, { type: 'payment-verified' }>,
  'paymentPayload' | 'paymentRequirements' | 'declaredExtensions'
>;

type ClaimOutcome = { refusal: ClaimRefusal | null } | { error: unknown };

/** One paid request from claim to delivery; see the module comment. */
export class PaymentSession {
  /** The ledger entry this request holds (after the claim step, or a claim taken over), or null. */
  claim: X402PaymentDoc | null = null;
  /** The goods sold (a JSON object; empty for an order payment). */
  goods: Record<string, unknown> = {};
  private takenOver = false;
  private claiming: Promise<ClaimOutcome> | null = null;
  private stopRenewal: () => void = () => undefined;

  constructor(
    private readonly deps: SellerDeps,
    readonly sale: SaleRequest,
  ) {}

  // --- claim ------------------------------------------------------------------------------------------------

  /**
   * Starts the claim step for `payload`: builds the goods and claims its authorization with the requirements this
   * seller offers (one `exact` option). Runs while the payment is verified; {@link claimed} gives its outcome.
   */
  startClaim(payload: PaymentPayload): void {
    // Settled either way (an error is an outcome), so that no rejection goes unobserved while verify runs.
    this.claiming = this.produceAndClaim(payload).then(
      (refusal) => ({ refusal }),
      (error: unknown) => ({ error }),
    );
  }

  private async produceAndClaim(payload: PaymentPayload): Promise<ClaimRefusal | null> {
    const { ctx, resource, quote } = this.sale;
    const goods = await resource.produce(ctx, quote);
    const auth = authorizationOf(payload);
    const s = this.deps.settings;
    const claim = await this.deps.ledger.claim(
      {
        resource: ctx.path,
        resource_kind: quote.kind,
        resource_ref: quote.ref,
        order_id: quote.orderId ?? null,
        amount_micros: quote.priceMicros,
        asset: s.asset,
        network: s.network,
        pay_to: s.payTo,
        payer: auth.payer,
        nonce: auth.nonce,
        valid_before: auth.validBefore,
        payment_id: paymentIdentifierOf(payload),
      },
      goods,
    );
    this.goods = goods;
    if ('refused' in claim) return claim;
    // Held from now on, verification included (a facilitator's verify may outlast a lease).
    this.hold(claim);
    return null;
  }

  /**
   * Takes over `claim`, left by a request that died, with its kept goods; a settlement failure is then recorded as
   * pending and reconciled, never as failed (the dead request's own settlement may still land).
   */
  adopt(claim: X402PaymentDoc): void {
    this.goods = goodsOf(claim);
    this.takenOver = true;
    this.hold(claim);
  }

  /** Holds `claim`, renewing its lease until {@link release}. */
  private hold(claim: X402PaymentDoc): void {
    this.claim = claim;
    this.stopRenewal = renewLease(this.deps.ledger, claim._id);
  }

  /** Stops renewing the claim's lease. */
  release(): void {
    this.stopRenewal();
  }

  /** Withdraws the claim (its payment was not verified), once the claim step has finished; nothing if none is held. */
  async withdraw(): Promise<void> {
    const o = await this.claiming;
    if (!o || 'error' in o || !this.claim) return;
    this.release();
    await this.deps.ledger.withdrawClaim(this.claim._id);
  }

  /**
   * The outcome of the claim step: null when the claim is held, else why it was refused.
   * @throws what `produce` or the ledger threw; ProblemError 500 when no claim was started (no payload).
   */
  async claimed(): Promise<ClaimRefusal | null> {
    const o = await this.claiming;
    if (!o) throw problem('internal_error', 'verified x402 payment without a payload');
    if ('error' in o) throw o.error;
    return o.refusal;
  }

  // --- verify -----------------------------------------------------------------------------------------------

  /**
   * Verifies the request's payment. `onChain`: by the facilitator even when it could be verified offline (whether
   * an authorization was already used is on chain).
   * @throws ProblemError 502 `facilitator_error` (PaymentServer.process).
   */
  verify(onChain = false): Promise<HTTPProcessResult> {
    const { ctx, http, context } = this.sale;
    const request = onChain ? this.deps.server.requestContext(ctx, context.paymentHeader ?? '', true) : context;
    return this.deps.server.process(http, request);
  }

  // --- settle → record → deliver ----------------------------------------------------------------------------

  /**
   * Settles the held claim's payment, records the outcome and delivers. Returns true when goods (or a pending
   * receipt) went out, false when a 402 was written.
   * @throws ProblemError from delivery (see {@link deliverSettled}); 500 `internal_error` when no claim is held.
   */
  async settle(verified: VerifiedPayment): Promise<boolean> {
    const claim = this.claim;
    if (!claim) throw problem('internal_error', 'x402 settlement without a claim');
    let settled;
    try {
      settled = await this.sale.http.processSettlement(
        verified.paymentPayload,
        verified.paymentRequirements,
        verified.declaredExtensions,
        { request: this.sale.context, responseBody: Buffer.from(JSON.stringify(this.goods)), responseHeaders: {} },
      );
    } catch (err) {
      // The facilitator's answer was lost: the transfer may or may not be on chain. Reconcile by authorization.
      // The error's own text goes to the log, not to the ledger entry (the public receipt view shows it).
      const answered = await this.recordPending(claim, {
        transaction: null,
        reason: 'facilitator_error',
        message: 'the facilitator did not answer the settlement',
        headers: {},
      });
      this.deps.log?.(err);
      return answered;
    }
    if (settled.success) return this.recordSettled(claim, settled.transaction, settled.headers);
    return this.recordFailure(claim, settled, verified);
  }

  private async recordSettled(claim: X402PaymentDoc, transaction: string, headers: Record<string, string>) {
    const { ctx, resource, paymentIdKey } = this.sale;
    const { ledger, log } = this.deps;
    // Catalogue goods need nothing more from the ledger: they go out while the settled record is written
    // (recordSettled says why that is safe). Order payments and payment ids build on the record: they wait.
    const payment =
      !resource.deliver && !paymentIdKey && claim.order_id === null
        ? ledger.recordSettled(claim, transaction, log ?? errorLogger('x402: recording a settled payment failed'))
        : await ledger.markSettled(claim._id, transaction, claim.order_id !== null);
    if (!payment) throw problem('internal_error', `ledger entry ${claim._id} vanished`);
    for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
    const response = await deliverSettled(this.deps, this.sale, { payment, goods: this.goods, headers });
    if (paymentIdKey) await ledger.completePaymentId(paymentIdKey, 'done', payment._id, response);
    writeStored(ctx, response);
    return true;
  }

  /** Records a settlement not confirmed yet, starts its reconciliation and answers 202 with the delivery URL. */
  private async recordPending(
    claim: X402PaymentDoc,
    p: { transaction: string | null; reason: string; message: string | null; headers: Record<string, string> },
  ): Promise<boolean> {
    const { ledger, settings } = this.deps;
    const token = await ledger.markPending(claim._id, p.transaction, p.reason, p.message, this.goods);
    const { ctx, paymentIdKey } = this.sale;
    if (paymentIdKey) await ledger.completePaymentId(paymentIdKey, 'pending', claim._id, null);
    await this.deps.reconcile(claim._id);
    for (const [k, v] of Object.entries(p.headers)) ctx.set(k, v);
    writePending(ctx, {
      claim,
      transaction: p.transaction,
      token,
      reason: p.reason,
      publicBaseUrl: settings.publicBaseUrl,
    });
    return true;
  }

  /**
   * A settlement that did not succeed. Buyers and the ledger get the reason code only: the facilitator's text
   * (viem's error with the sender address, the call's arguments, the library version) goes to the server log.
   */
  private async recordFailure(claim: X402PaymentDoc, settled: ProcessSettleFailureResponse, verified: VerifiedPayment) {
    const reason = settlementReasonCode(settled.errorReason);
    if (reason !== SETTLEMENT_PENDING_REASON) {
      this.deps.log?.(
        new Error(
          `x402 settlement of payment ${claim._id} failed: ${settled.errorReason ?? '(no reason)'}${settled.errorMessage && settled.errorMessage !== settled.errorReason ? `: ${settled.errorMessage}` : ''}`,
        ),
      );
    }
    const transaction = settled.transaction || null;
    // A claim taken over from a dead request: its own settlement may still land, so a failure here is reconciled.
    if ((reason === SETTLEMENT_PENDING_REASON && transaction) || this.takenOver) {
      return this.recordPending(claim, { transaction, reason, message: null, headers: settled.headers });
    }
    // Refused before anything was sent (an unfunded payer, a nonce used elsewhere: settlement's own checks): nothing
    // moved, so nothing is kept, as for a payment refused at verification. A transaction that failed is recorded.
    const kept = Boolean(transaction) || !refusedBeforeSending(reason);
    const detail = settlementFailureDetail(reason, kept);
    if (kept) await this.deps.ledger.markFailed(claim._id, reason, detail, transaction);
    else await this.deps.ledger.withdrawClaim(claim._id);
    const { ctx, quote, http } = this.sale;
    for (const [k, v] of Object.entries(settled.headers)) ctx.set(k, v);
    await this.deps.server.challenge(ctx, {
      requirements: verified.paymentRequirements,
      http,
      reason,
      quote,
      detail,
      ...(kept ? { payment: receipt({ ...claim, status: 'failed', transaction }) } : {}),
    });
    return false;
  }
}

/**
 * Renews the lease of ledger entry `claimId` every third of CLAIM_LEASE_MS (so that only an entry whose request
 * died lapses) until the returned function is called. The timer does not keep the process alive.
 */
function renewLease(ledger: Pick<X402PaymentRepository, 'renewClaim'>, claimId: string): () => void {
  const renewal = setInterval(() => void ledger.renewClaim(claimId).catch(() => undefined), CLAIM_LEASE_MS / 3);
  renewal.unref();
  return () => clearInterval(renewal);
}

/** A settled payment to deliver: its ledger entry, the goods, and the settlement's headers (`PAYMENT-RESPONSE`). */
export interface SettledPayment {
  payment: X402PaymentDoc;
  goods: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * The 200 answer for a settled payment: runs `resource.deliver` (confirming the order an order payment pays; the
 * order's `confirmPayment` is idempotent for the same transaction, so a resend may run it again) and clears the
 * entry's `confirmation_due`. A refusal (the order's state) becomes a 409 carrying the receipt, never a 402; an
 * unreachable order workflow leaves `confirmation_due` set for the sweeper.
 * @throws ProblemError the refusal, with `payment` (the receipt) in its extension members; other errors of
 *   `resource.deliver` unchanged (noted on the ledger entry first).
 */
export async function deliverSettled(
  deps: Pick<SellerDeps, 'ledger'>,
  sale: Sale,
  settled: SettledPayment,
): Promise<StoredResponse> {
  const { ctx, resource, quote } = sale;
  const { payment, goods, headers } = settled;
  let body = goods;
  if (resource.deliver) {
    try {
      body = await resource.deliver(ctx, quote, payment, goods);
      if (payment.confirmation_due) await deps.ledger.markOrderConfirmed(payment._id);
    } catch (err) {
      // Paid, but the post-payment step failed: say so, keep the receipt header, keep the ledger honest.
      const refusal = err instanceof ProblemError && err.status < 500;
      await deps.ledger.noteDeliveryFailure(payment._id, err instanceof Error ? err.message : String(err), refusal);
      const noted = (await deps.ledger.get(payment._id)) ?? payment;
      if (err instanceof ProblemError) {
        // The payment itself settled: a refusal here is about the order's state, never "payment required".
        throw new ProblemError(
          err.status === 402 ? 409 : err.status,
          err.code,
          `Payment ${noted._id} settled (${noted.transaction}) but: ${err.detail ?? err.message}`,
          { ...err.extra, payment: receipt(noted) },
          headers,
        );
      }
      throw err;
    }
  }
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: { ...body, payment: receipt(payment) },
  };
}
