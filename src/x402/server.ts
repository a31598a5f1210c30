/**
 * The seller's side of `@x402/core`: one `x402ResourceServer` per API process (`@x402/evm`'s exact scheme, an
 * `HTTPFacilitatorClient` on the configured facilitator, offline verification of EOA-signed EIP-3009 payloads, the
 * `offer-receipt` extension when an issuer is given), initialised lazily from the facilitator's `GET /supported`,
 * and the per-request route configuration, verification and 402 challenge built on it. Prices in integer micro-units
 * (USDC atomic units). Source: x402 v2 specification; issue 3 §1, §2; issue 12 §3; issue 27 §2.
 */
import type { Context } from 'koa';
import {
  FacilitatorResponseError,
  HTTPFacilitatorClient,
  type HTTPProcessResult,
  type HTTPRequestContext,
  type RouteConfig,
  type x402HTTPResourceServer,
  x402ResourceServer,
} from '@x402/core/server';
import type { Network, PaymentRequired, PaymentRequirements, SupportedResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { createOfferReceiptExtension, declareOfferReceiptExtension } from '@x402/extensions/offer-receipt';
import { STALE_GRACE_MS } from '../http/cachedJson';
import { problem } from '../errors';
import { OFFER_REUSE_MS } from '../signing/signer';
import { KoaAdapter } from './adapter';
import { X402HTTPServer } from './headers';
import { verifyExactEip3009Offline } from './offlineVerify';
import { PAYMENT_IDENTIFIER_EXTENSION } from './paymentHeader';
import { writeChallenge, type Challenge } from './responses';
import type { PaidQuote, X402GatewayOptions, X402Settings } from './types';

/** How long a bare 402 is shared from the response cache: the facilitator's supported kinds are re-read as often. */
export const CHALLENGE_TTL_MS = 60_000;

/** What {@link PaymentServer.challenge} needs besides the context: the requirements refused and why. */
export type ChallengeRequest = Omit<Challenge, 'required' | 'settings'> & {
  requirements: PaymentRequirements;
  http: x402HTTPResourceServer;
};

/**
 * The x402 resource server of one API process and what is built on it per request. Public members: `facilitator`
 * and `server` (the `@x402/core` objects), `settings`.
 */
export class PaymentServer {
  readonly facilitator: HTTPFacilitatorClient;
  readonly server: x402ResourceServer;
  private init: Promise<void> | null = null;
  private supportedCache: { at: number; value: Promise<SupportedResponse> } | null = null;

  constructor(private readonly opts: Omit<X402GatewayOptions, 'ledger' | 'onPending'>) {
    // Always the configured facilitator: HTTPFacilitatorClient's default is a public one.
    this.facilitator = new HTTPFacilitatorClient({
      url: opts.settings.facilitatorUrl,
      timeoutMs: opts.facilitatorTimeoutMs ?? 150_000,
    });
    this.server = new x402ResourceServer(this.facilitator).register(
      opts.settings.network as Network,
      new ExactEvmScheme(),
    );
    // EOA-signed EIP-3009 payloads are verified here; the facilitator verifies the rest (src/x402/offlineVerify.ts).
    this.server.onBeforeVerify(async ({ paymentPayload, requirements, transportContext }) => {
      const adapter = (transportContext as { request?: HTTPRequestContext } | undefined)?.request?.adapter;
      if (adapter instanceof KoaAdapter && adapter.verifyOnChain) return undefined;
      const result = await verifyExactEip3009Offline(paymentPayload, requirements);
      return result ? { skip: true as const, result } : undefined;
    });
    if (opts.offerReceipt) {
      const extension = createOfferReceiptExtension(opts.offerReceipt);
      const settle = extension.enrichSettlementResponse?.bind(extension);
      const declaration = this.offerReceiptDeclaration();
      // x402ResourceServer writes the 402's offers over the route's declaration object, so the settlement hook
      // would no longer see `includeTxHash`: it is handed our declaration instead.
      this.server.registerExtension({
        ...extension,
        ...(settle ? { enrichSettlementResponse: (_declared, context) => settle(declaration, context) } : {}),
      });
    }
  }

  get settings(): X402Settings {
    return this.opts.settings;
  }

  /** Declaration of the `offer-receipt` extension (issue 12 §3). */
  private offerReceiptDeclaration() {
    return declareOfferReceiptExtension({
      includeTxHash: true,
      // A cached 402 is served up to its TTL plus the stale grace, with offers signed up to OFFER_REUSE_MS before it
      // was built: its signed offers must outlive all three.
      offerValiditySeconds:
        this.opts.settings.maxTimeoutSeconds + (CHALLENGE_TTL_MS + STALE_GRACE_MS + OFFER_REUSE_MS) / 1000,
    })['offer-receipt'];
  }

  /**
   * Extensions every 402 declares: bazaar, payment-identifier and, with an issuer, offer-receipt (receipts carry the
   * transaction hash; offers stay valid for the payment timeout plus the minute a bare 402 may be served from cache).
   */
  private extensionsFor(quote: PaidQuote): Record<string, unknown> {
    return {
      bazaar: quote.bazaar,
      'payment-identifier': PAYMENT_IDENTIFIER_EXTENSION,
      ...(this.opts.offerReceipt ? { 'offer-receipt': this.offerReceiptDeclaration() } : {}),
    };
  }

  /** The exact requirements for `priceMicros` (what `PAYMENT-REQUIRED` carries), without asking the facilitator. */
  requirementsFor(priceMicros: number): PaymentRequirements {
    const s = this.opts.settings;
    return {
      scheme: 'exact',
      network: s.network as Network,
      asset: s.asset,
      amount: String(priceMicros),
      payTo: s.payTo,
      maxTimeoutSeconds: s.maxTimeoutSeconds,
      extra: { name: s.assetName, version: s.assetVersion },
    };
  }

  /**
   * The facilitator's `GET /supported`, cached for `maxAgeMs` (failures are not cached).
   * @throws the facilitator client's error when it cannot be reached.
   */
  supported(maxAgeMs = 10_000): Promise<SupportedResponse> {
    const now = Date.now();
    if (this.supportedCache && now - this.supportedCache.at < maxAgeMs) return this.supportedCache.value;
    const value = this.facilitator.getSupported();
    this.supportedCache = { at: now, value };
    value.catch(() => {
      if (this.supportedCache?.value === value) this.supportedCache = null;
    });
    return value;
  }

  /**
   * Initialises the resource server from the facilitator's `GET /supported` (once; retried after a failure).
   * @throws ProblemError 502 `facilitator_error` with Retry-After 5 when the facilitator cannot be reached.
   */
  async ensureInitialized(): Promise<void> {
    this.init ??= this.server.initialize();
    try {
      await this.init;
    } catch (err) {
      this.init = null;
      this.opts.log?.(err);
      throw problem(
        'facilitator_error',
        'The payment facilitator cannot be reached; try again shortly',
        {},
        { headers: { 'Retry-After': '5' } },
      );
    }
  }

  /**
   * The x402 HTTP server of one request: its own method and path (so the bazaar extension names no wildcard)
   * mapped to a config built for this request (price, description and bazaar declaration vary per item, sku and
   * order).
   */
  httpServerFor(ctx: Context, quote: PaidQuote): x402HTTPResourceServer {
    return new X402HTTPServer(this.server, { [`${ctx.method} ${ctx.path}`]: this.routeConfig(ctx, quote) });
  }

  private routeConfig(ctx: Context, quote: PaidQuote): RouteConfig {
    const s = this.opts.settings;
    return {
      accepts: {
        scheme: 'exact',
        network: s.network as Network,
        payTo: s.payTo,
        price: {
          amount: String(quote.priceMicros),
          asset: s.asset,
          extra: { name: s.assetName, version: s.assetVersion },
        },
        maxTimeoutSeconds: s.maxTimeoutSeconds,
      },
      resource: `${s.publicBaseUrl}${ctx.path}${ctx.querystring ? `?${ctx.querystring}` : ''}`,
      description: quote.description,
      mimeType: 'application/json',
      serviceName: 'Agent Commerce',
      extensions: this.extensionsFor(quote),
    };
  }

  /**
   * The request as `processHTTPRequest` reads it. With `verifyOnChain`, the payment is verified by the facilitator
   * even when it could be verified offline.
   */
  requestContext(ctx: Context, paymentHeader: string, verifyOnChain = false): HTTPRequestContext {
    return {
      adapter: new KoaAdapter(ctx, this.opts.settings.publicBaseUrl, verifyOnChain),
      path: ctx.path,
      method: ctx.method,
      ...(paymentHeader ? { paymentHeader } : {}),
    };
  }

  /**
   * Verifies the request's payment (`processHTTPRequest`).
   * @throws ProblemError 502 `facilitator_error` with Retry-After 5 when the facilitator answered malformed data.
   */
  async process(http: x402HTTPResourceServer, context: HTTPRequestContext): Promise<HTTPProcessResult> {
    try {
      return await http.processHTTPRequest(context);
    } catch (err) {
      if (err instanceof FacilitatorResponseError) {
        throw problem(
          'facilitator_error',
          `The payment facilitator failed: ${err.message}`,
          {},
          { headers: { 'Retry-After': '5' } },
        );
      }
      throw err;
    }
  }

  /** Writes a 402 with a fresh `PAYMENT-REQUIRED` for `c.requirements` whose `error` is `c.reason`. */
  async challenge(ctx: Context, c: ChallengeRequest): Promise<void> {
    const required = await this.server.createPaymentRequiredResponse(
      [c.requirements],
      routeConfigResource(c.http),
      c.reason,
      this.extensionsFor(c.quote),
    );
    writeChallenge(ctx, {
      required,
      reason: c.reason,
      quote: c.quote,
      settings: this.opts.settings,
      detail: c.detail,
      ...(c.payment ? { payment: c.payment } : {}),
    });
  }
}

/** The `resource` of a 402 for the one route of a per-request HTTP server. */
function routeConfigResource(http: x402HTTPResourceServer): PaymentRequired['resource'] {
  const cfg = Object.values(http.routes as Record<string, RouteConfig>)[0] ?? ({} as Partial<RouteConfig>);
  return {
    url: cfg.resource ?? '',
    description: cfg.description ?? '',
    mimeType: cfg.mimeType ?? 'application/json',
    ...(cfg.serviceName ? { serviceName: cfg.serviceName } : {}),
  };
}
