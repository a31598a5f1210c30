/**
 * x402 version 2 on Koa: the gateway that runs `@x402/core`'s `x402HTTPResourceServer` (with `@x402/evm`'s exact
 * scheme and an `HTTPFacilitatorClient` on the configured facilitator) around paid resources, modelled on
 * `@x402/hono`'s `paymentMiddlewareFromHTTPServer`. It only assembles the pieces, each in a file of its own:
 * ./adapter.ts (Koa ↔ x402 HTTP), ./server.ts (the resource server), ./middleware.ts (the switch on the processing
 * result), ./session.ts (claim → verify → settle → record → deliver), ./replay.ts (`payment-identifier`),
 * ./sweeper.ts (orphaned claims), ./responses.ts (answers), ./paymentHeader.ts (PAYMENT-SIGNATURE).
 *
 * Flow of a paid request (issue 3 §1, §2; ../shared/reference/x402-v2.md):
 * 1. `quote(ctx)` prices the request; unknown ids and bad input are answered (404 / 400) before any payment is asked.
 * 2. No `PAYMENT-SIGNATURE`: 402 with `PAYMENT-REQUIRED` (exact amount, bazaar extension). A malformed header: 400.
 * 3. `processHTTPRequest` verifies the payment: offline for an EOA's EIP-3009 signature (`offlineVerify.ts`; balance
 *    and nonce are then checked on chain by settlement), with the facilitator otherwise (an invalid one: 402 with
 *    its reason). Steps 4 and 5 run meanwhile; a claim for a payment that fails verification is withdrawn.
 * 4. `produce(ctx, quote)` builds the goods. It must be pure: no writes, no side effects, because the payment is
 *    not settled yet (the default verify → handler → settle flow; x402 issue 451 is what happens otherwise).
 * 5. The authorization (network, payer, nonce) is claimed by a unique insert into `x402_payments`; of two requests
 *    carrying one payload only one gets past this point, the other is answered 402.
 * 6. `processSettlement`; only on success is the ledger entry marked settled and the goods sent, with
 *    `PAYMENT-RESPONSE` (catalogue goods go out while that record is written: `X402PaymentRepository.recordSettled`).
 *    `deliver` (order payments) runs after that. A settlement that comes back `settlement_pending` is recorded as
 *    pending, answered 202 with a delivery URL, and reconciled by its transaction hash (`onPending`); a failed one is
 *    recorded as failed (its claim withdrawn when nothing was sent) and answered 402 with a fresh PAYMENT-REQUIRED,
 *    `reason` (the x402 reason code) and a short `detail`; the facilitator's error text goes to the log only
 *    (`settlementFailure.ts`).
 * The `payment-identifier` extension makes a retried purchase return the stored response without a second charge.
 * With an `offerReceipt` issuer, the `offer-receipt` extension of `@x402/extensions` (issue 12 §3) signs an offer per
 * requirement in every 402 (`extensions["offer-receipt"].info.offers`) and a receipt in the `PAYMENT-RESPONSE` of
 * every settled purchase (`extensions["offer-receipt"].info.receipt`, with the transaction hash).
 * Source: issue 3; issue 27 §2 (the pieces).
 */
import type { Middleware } from 'koa';
import type { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentRequirements, SupportedResponse } from '@x402/core/types';
import { paymentMiddleware } from './middleware';
import { PaymentServer } from './server';
import type { SellerDeps } from './session';
import { reconcilerOf, startOrphanSweeper } from './sweeper';
import type { PaidResource, X402GatewayOptions, X402Settings } from './types';

/**
 * Runs paid resources over x402 (see the module comment for the flow). One gateway per API process: it owns the
 * `x402ResourceServer`, initialised lazily from the facilitator's `GET /supported` (retried after a failure).
 */
export class X402Gateway {
  private readonly deps: SellerDeps;

  constructor(private readonly opts: X402GatewayOptions) {
    const server = new PaymentServer(opts);
    this.deps = {
      settings: opts.settings,
      ledger: opts.ledger,
      server,
      reconcile: reconcilerOf(opts),
      ...(opts.log ? { log: opts.log } : {}),
    };
  }

  /** The facilitator client (always the configured facilitator). */
  get facilitator(): HTTPFacilitatorClient {
    return this.deps.server.facilitator;
  }

  /** `@x402/core`'s resource server this gateway runs. */
  get server(): x402ResourceServer {
    return this.deps.server.server;
  }

  get settings(): X402Settings {
    return this.opts.settings;
  }

  /** The exact requirements for `priceMicros` (integer micro-units), without asking the facilitator. */
  requirementsFor(priceMicros: number): PaymentRequirements {
    return this.deps.server.requirementsFor(priceMicros);
  }

  /**
   * The facilitator's `GET /supported`, cached for `maxAgeMs` (failures are not cached).
   * @throws the facilitator client's error when it cannot be reached.
   */
  supported(maxAgeMs = 10_000): Promise<SupportedResponse> {
    return this.deps.server.supported(maxAgeMs);
  }

  /** Koa middleware selling `resource` per request over x402 (./middleware.ts). */
  middleware(resource: PaidResource): Middleware {
    return paymentMiddleware(this.deps, resource);
  }

  /**
   * Starts the orphan sweeper (./sweeper.ts): every `intervalMs`, claims whose request died and settled order
   * payments left unconfirmed are handed to `onPending`.
   * @returns a function stopping the sweeper.
   */
  startOrphanSweeper(intervalMs = 5_000): () => void {
    return startOrphanSweeper(this.opts.ledger, this.deps.reconcile, intervalMs);
  }
}
