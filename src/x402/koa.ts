/**
 * x402 version 2 on Koa: an `HTTPAdapter` for a Koa context and a gateway that runs `@x402/core`'s
 * `x402HTTPResourceServer` (with `@x402/evm`'s exact scheme and an `HTTPFacilitatorClient` on the configured
 * facilitator) around paid resources, modelled on `@x402/hono`'s `paymentMiddlewareFromHTTPServer`.
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
 */
import type { Context, Middleware } from 'koa';
import {
  FacilitatorResponseError,
  HTTPFacilitatorClient,
  type x402HTTPResourceServer,
  x402ResourceServer,
  type HTTPAdapter,
  type HTTPRequestContext,
  type HTTPResponseInstructions,
  type RouteConfig,
} from '@x402/core/server';
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import type {
  Network,
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import {
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  type OfferReceiptIssuer,
} from '@x402/extensions/offer-receipt';
import { z } from 'zod';
import type { X402PaymentDoc, X402PaymentIdDoc } from '../db';
import { STALE_GRACE_MS, markShared } from '../http/cachedJson';
import { microsToUsd } from '../domain/money';
import { ProblemError, problem } from '../errors';
import { CLAIM_LEASE_MS, X402PaymentRepository } from '../repos/x402Payments';
import { sha256Hex } from '../hash';
import { OFFER_REUSE_MS } from '../signing/signer';
import { FacilitatorReason } from './facilitator/reasons';
import { X402HTTPServer, encodePaymentRequired, encodePaymentResponse } from './headers';
import { verifyExactEip3009Offline } from './offlineVerify';
import { settlementFailureDetail, settlementReasonCode } from './settlementFailure';

/** x402 settings, from the X402_* configuration (src/config.ts). */
export interface X402Settings {
  /** CAIP-2 network, e.g. `eip155:8453`. */
  network: string;
  /** Token address (USDC on Base by default). */
  asset: string;
  /** EIP-712 domain of the token, sent as `extra` in the requirements. */
  assetName: string;
  assetVersion: string;
  payTo: string;
  facilitatorUrl: string;
  maxTimeoutSeconds: number;
  /** Public base of resource URLs, e.g. `https://api.example.com`. */
  publicBaseUrl: string;
}

/** The `bazaar` discovery extension of a 402 (x402 specs/extensions/bazaar.md): `info` and a schema validating it. */
export interface BazaarDeclaration {
  info: { input: Record<string, unknown>; output: Record<string, unknown> };
  schema: Record<string, unknown>;
}

/** What a paid request costs and how it is described. `priceMicros` in USDC atomic units (= micro-USD). */
export interface PaidQuote {
  priceMicros: number;
  description: string;
  /** Ledger `resource_kind`, e.g. `micro_item`, `template`, `order`. */
  kind: string;
  /** Ledger `resource_ref`: item id, template sku, order id. */
  ref: string | null;
  orderId?: string;
  bazaar: BazaarDeclaration;
}

/** A settled (or pending) payment as shown to the buyer and on the ledger. */
export interface PaymentReceipt {
  payment_id: string;
  status: X402PaymentDoc['status'];
  transaction: string | null;
  network: string;
  payer: string;
  amount: number;
  amount_micros: number;
  asset: string;
  pay_to: string;
}

/** A resource sold per request. */
export interface PaidResource {
  /**
   * Prices the request. Throws a {@link ProblemError} (404 unknown id, 400 bad input, 409 wrong state) to refuse
   * before any payment is asked.
   */
  quote(ctx: Context): Promise<PaidQuote> | PaidQuote;
  /** Builds the goods (a JSON object). Must not write anything: it runs before settlement. */
  produce(ctx: Context, quote: PaidQuote): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Runs after a successful settlement, with the settled ledger entry; its answer becomes the body. For effects
   * that must follow the payment (confirming an order).
   */
  deliver?(
    ctx: Context,
    quote: PaidQuote,
    payment: X402PaymentDoc,
    goods: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}

/** Options of {@link X402Gateway}. */
export interface X402GatewayOptions {
  settings: X402Settings;
  ledger: X402PaymentRepository;
  /** Called once per settlement recorded as pending (start the reconciliation). Errors are logged, not thrown. */
  onPending?: (payment: X402PaymentDoc) => Promise<void>;
  log?: (err: unknown) => void;
  /** Facilitator request timeout, ms. Default 150000 (a settlement may wait for two receipt timeouts). */
  facilitatorTimeoutMs?: number;
  /** Signs x402 offers and receipts (`offer-receipt` extension, issue 12 §3); without it none are sent. */
  offerReceipt?: OfferReceiptIssuer;
}

/**
 * `HTTPAdapter` of `@x402/core` over a Koa context (counterpart of `@x402/hono`'s `HonoAdapter`). With
 * `publicBaseUrl`, `getUrl()` is the public URL of the request (the `resourceUrl` signed receipts name, the same as
 * the offers' and the requirements' `resource`).
 */
export class KoaAdapter implements HTTPAdapter {
  /**
   * @param verifyOnChain the payment is verified by the facilitator even when it could be verified offline (its
   *   simulation tells whether the authorization was already used on chain).
   */
  constructor(
    readonly ctx: Context,
    private readonly publicBaseUrl?: string,
    readonly verifyOnChain = false,
  ) {}
  getHeader(name: string): string | undefined {
    return this.ctx.get(name) || undefined;
  }
  getMethod(): string {
    return this.ctx.method;
  }
  getPath(): string {
    return this.ctx.path;
  }
  getUrl(): string {
    if (!this.publicBaseUrl) return this.ctx.href;
    return `${this.publicBaseUrl}${this.ctx.path}${this.ctx.querystring ? `?${this.ctx.querystring}` : ''}`;
  }
  getAcceptHeader(): string {
    return this.ctx.get('accept');
  }
  getUserAgent(): string {
    return this.ctx.get('user-agent');
  }
  getQueryParams(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(this.ctx.query)) if (v !== undefined) out[k] = v;
    return out;
  }
  getQueryParam(name: string): string | string[] | undefined {
    return this.ctx.query[name];
  }
  getBody(): unknown {
    return (this.ctx.request as { body?: unknown }).body;
  }
}

/** The `payment-identifier` extension the 402s advertise (x402 specs/extensions/payment_identifier.md). */
export const PAYMENT_IDENTIFIER_EXTENSION = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      required: { type: 'boolean' },
      id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
    },
    required: ['required'],
  },
} as const;

const PAYMENT_ID_RE = /^[A-Za-z0-9_-]{16,128}$/;

/** Shape of a decoded PAYMENT-SIGNATURE the gateway accepts (x402 v2 PaymentPayload). */
const PaymentPayloadShape = z.looseObject({
  x402Version: z.literal(2, 'only x402 version 2 payloads are accepted'),
  accepted: z.looseObject({
    scheme: z.string().min(1),
    network: z.string().min(3),
    amount: z.string().regex(/^\d+$/, 'amount must be an integer string'),
    asset: z.string().min(1),
    payTo: z.string().min(1),
    maxTimeoutSeconds: z.number().int().positive(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: z.record(z.string(), z.unknown()),
  resource: z.looseObject({ url: z.string() }).optional(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
});

const invalidHeader = (detail: string) => problem('invalid_payment_header', detail, { param: 'PAYMENT-SIGNATURE' });

/**
 * Decodes and checks a `PAYMENT-SIGNATURE` header.
 * @throws ProblemError 400 `invalid_payment_header` when it is not base64 JSON of an x402 v2 payment payload.
 */
export function parsePaymentHeader(header: string): PaymentPayload {
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header.trim());
  } catch {
    throw invalidHeader('PAYMENT-SIGNATURE is not base64-encoded JSON');
  }
  const parsed = PaymentPayloadShape.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidHeader(
      `PAYMENT-SIGNATURE: ${issue ? `${issue.path.join('.') || 'payload'}: ${issue.message}` : 'not an x402 v2 payment payload'}`,
    );
  }
  const pid = paymentIdentifierOf(decoded as PaymentPayload);
  if (pid !== null && !PAYMENT_ID_RE.test(pid)) {
    throw invalidHeader(
      'payment-identifier id must be 16 to 128 characters of letters, digits, hyphens and underscores',
    );
  }
  return decoded as PaymentPayload;
}

/** The `payment-identifier` id a payload carries, or null. */
export function paymentIdentifierOf(payload: PaymentPayload): string | null {
  const ext = payload.extensions?.['payment-identifier'] as { info?: { id?: unknown } } | undefined;
  const id = ext?.info?.id;
  return typeof id === 'string' ? id : id === undefined || id === null ? null : String(id);
}

/** Who signed and which authorization: what (network, payer, nonce) claims identify. */
export interface AuthorizationFacts {
  payer: string;
  nonce: string;
  validBefore: number;
}

/**
 * Payer, nonce and expiry of an exact-scheme payload: EIP-3009 `authorization`, or Permit2 `permit2Authorization`;
 * anything else is keyed by the sha256 of its signature.
 */
export function authorizationOf(payload: PaymentPayload): AuthorizationFacts {
  const p = payload.payload as Record<string, unknown>;
  const auth = (p.authorization ?? p.permit2Authorization) as Record<string, unknown> | undefined;
  const str = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? String(v) : '';
  const payer = str(auth?.from).toLowerCase() || 'unknown';
  const nonce = str(auth?.nonce).toLowerCase() || `sig:${sha256Hex(str(p.signature))}`;
  const validBefore = Number(str(auth?.validBefore ?? auth?.deadline)) || 0;
  return { payer, nonce, validBefore };
}

/** How long a bare 402 is shared from the response cache: the facilitator's supported kinds are re-read as often. */
const CHALLENGE_TTL_MS = 60_000;

/**
 * Settlement failures decided before any transaction was sent: the facilitator's settle re-verifies, then estimates
 * gas, whose revert it maps onto these (`@x402/evm` exact facilitator). Anything else (`..._transaction_failed` from
 * an unknown error, `unexpected_settle_error`) may hide a broadcast and stays on the ledger as `failed`.
 */
const REFUSED_BEFORE_SENDING = new Set([
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_insufficient_balance',
  'asset_not_deployed_contract',
  FacilitatorReason.nonceAlreadyUsed,
  FacilitatorReason.invalidNetwork,
  FacilitatorReason.unsupportedScheme,
]);

/** Settlement failure reasons after which the chain may still carry the transfer. */
const PENDING_REASON = 'settlement_pending';
/**
 * A `settling` claim written before claims had leases, older than this, outlived any settlement call (facilitator
 * timeout 150 s): its request died. Claims with a lease are orphaned once it lapses (CLAIM_LEASE_MS).
 */
export const ORPHAN_CLAIM_MS = 5 * 60_000;

/** A response as sent and as stored under its payment id: status, headers, JSON body. */
type StoredResponse = NonNullable<X402PaymentIdDoc['response']>;

/**
 * Runs paid resources over x402 (see the module comment for the flow). One gateway per API process: it owns the
 * `x402ResourceServer`, initialised lazily from the facilitator's `GET /supported` (retried after a failure).
 */
export class X402Gateway {
  readonly facilitator: HTTPFacilitatorClient;
  readonly server: x402ResourceServer;
  private init: Promise<void> | null = null;
  private supportedCache: { at: number; value: Promise<SupportedResponse> } | null = null;

  constructor(private readonly opts: X402GatewayOptions) {
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

  get settings(): X402Settings {
    return this.opts.settings;
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

  private async ensureInitialized(): Promise<void> {
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
   * Route table of one request: its own method and path (so the bazaar extension names no wildcard) mapped to a
   * config built for this request (price, description and bazaar declaration vary per item, sku and order).
   */
  private routes(ctx: Context, quote: PaidQuote): Record<string, RouteConfig> {
    return { [`${ctx.method} ${ctx.path}`]: this.routeConfig(ctx, quote) };
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

  /** Koa middleware selling `resource` per request over x402. */
  middleware(resource: PaidResource): Middleware {
    return async (ctx) => {
      const header = ctx.get('payment-signature');
      let quote: PaidQuote;
      try {
        quote = await resource.quote(ctx);
      } catch (err) {
        // A resend of a purchase that went through: its quote may no longer apply (409: the order it paid is paid).
        // Not for 401/403: who may pay is checked first, resend or not.
        if (header && err instanceof ProblemError && err.status === 409) {
          if (await this.answerResendAfterRefusal(ctx, resource, header)) return;
        }
        throw err;
      }
      if (!header && ctx.get('x-payment')) {
        throw invalidHeader(
          'X-PAYMENT (x402 version 1) is not supported: send an x402 v2 payload in PAYMENT-SIGNATURE',
        );
      }
      const payload = header ? parsePaymentHeader(header) : null;
      await this.ensureInitialized();
      const http = new X402HTTPServer(this.server, this.routes(ctx, quote));
      const context: HTTPRequestContext = {
        adapter: new KoaAdapter(ctx, this.opts.settings.publicBaseUrl),
        path: ctx.path,
        method: ctx.method,
        ...(header ? { paymentHeader: header } : {}),
      };
      ctx.set('Cache-Control', 'no-store');

      const pid = payload ? this.paymentIdScope(ctx, payload, quote) : null;
      if (pid) {
        // No takeover by age: answerInFlightPaymentId asks the ledger how far the first request got.
        const claimed = await this.opts.ledger.claimPaymentId(pid.doc, Number.POSITIVE_INFINITY);
        if (claimed) {
          await this.answerFromPaymentId(ctx, resource, http, context, pid, claimed, quote);
          return;
        }
      }
      let delivered = false;
      try {
        delivered = await this.sell(ctx, resource, quote, http, context, payload, pid?.doc._id ?? null);
      } finally {
        if (pid && !delivered) await this.opts.ledger.releasePaymentId(pid.doc._id).catch(() => undefined);
      }
    };
  }

  /**
   * Verify ∥ (produce → claim), then settle. Returns true when goods (or a pending receipt) went out.
   * The goods are built and the authorization claimed while the payment is verified (both wait on a round trip of
   * their own; goods are pure and the claim names only our own requirements and the payload's authorization). A
   * claim whose payment then fails verification is withdrawn, so that nothing is kept for a payment never settled.
   */
  private async sell(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    http: x402HTTPResourceServer,
    context: HTTPRequestContext,
    payload: PaymentPayload | null,
    paymentIdKey: string | null,
  ): Promise<boolean> {
    const prepared = payload ? this.produceAndClaim(ctx, resource, quote, payload) : null;
    // Settled either way (an error is an outcome), so that no rejection goes unobserved while verify runs.
    const outcome = prepared?.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const withdraw = async () => {
      const o = await outcome;
      if (!o || 'error' in o || 'refused' in o.value.claim) return;
      o.value.stopRenewal();
      await this.opts.ledger.withdrawClaim(o.value.claim._id);
    };
    let result: Awaited<ReturnType<X402Gateway['process']>>;
    try {
      result = await this.process(http, context);
    } catch (err) {
      await withdraw();
      throw err;
    }
    if (result.type !== 'payment-verified') {
      await withdraw();
      if (result.type === 'no-payment-required')
        throw problem('internal_error', 'x402 route matched no payment option');
      this.writePaymentError(ctx, result.response, quote);
      // A bare 402 of catalogue goods is the same for every caller (src/http/cachedJson.ts ResponseCache); an
      // order's stops applying once the order is paid.
      if (!context.paymentHeader && ctx.status === 402 && quote.kind !== 'order') markShared(ctx, CHALLENGE_TTL_MS);
      return false;
    }
    const { paymentPayload, paymentRequirements, declaredExtensions, cancellationDispatcher } = result;
    const o = await outcome;
    if (!o || 'error' in o) {
      const err = o ? o.error : problem('internal_error', 'verified x402 payment without a payload');
      await cancellationDispatcher.cancel({ reason: 'handler_threw', error: err }).catch(() => undefined);
      throw err;
    }
    const { goods, claim } = o.value;
    if ('refused' in claim) {
      if (claim.refused === 'order') {
        throw problem(
          'payment_in_progress',
          `Another x402 payment for order ${quote.orderId} is being settled or has settled`,
          {
            order_id: quote.orderId,
          },
        );
      }
      // The same signed authorization is being (or was) settled by another request: this one is not settled again.
      const auth = authorizationOf(paymentPayload);
      const reason = FacilitatorReason.nonceAlreadyUsed;
      await this.writeChallenge(ctx, paymentRequirements, routeConfigResource(http), reason, quote, {
        detail: `This authorization (payer ${auth.payer}, nonce ${auth.nonce}) is already ${claim.existing?.status ?? 'claimed'} by another request`,
      });
      return false;
    }

    try {
      return await this.settleClaimed(
        ctx,
        resource,
        quote,
        http,
        context,
        paymentIdKey,
        claim,
        goods,
        paymentPayload,
        paymentRequirements,
        declaredExtensions,
      );
    } finally {
      o.value.stopRenewal();
    }
  }

  /**
   * Builds the goods of `quote` and claims `payload`'s authorization (network, payer, nonce) for them in the ledger,
   * with the requirements this gateway offers (one `exact` option: our network, asset and payTo).
   * @throws what `resource.produce` or the ledger throws.
   */
  private async produceAndClaim(ctx: Context, resource: PaidResource, quote: PaidQuote, payload: PaymentPayload) {
    const goods = await resource.produce(ctx, quote);
    const auth = authorizationOf(payload);
    const s = this.opts.settings;
    const claim = await this.opts.ledger.claim(
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
    // Held from now on, verification included (a facilitator's verify may outlast a lease).
    const stopRenewal = 'refused' in claim ? () => undefined : this.renewing(claim._id);
    return { goods, claim, stopRenewal };
  }

  /**
   * Runs `fn` while renewing the lease of ledger entry `claimId`, so that only an entry whose request died lapses
   * (see CLAIM_LEASE_MS).
   */
  private async holdingClaim<T>(claimId: string, fn: () => Promise<T>): Promise<T> {
    const stop = this.renewing(claimId);
    try {
      return await fn();
    } finally {
      stop();
    }
  }

  /** Renews the lease of ledger entry `claimId` every third of CLAIM_LEASE_MS until the returned function is called. */
  private renewing(claimId: string): () => void {
    const renewal = setInterval(
      () => void this.opts.ledger.renewClaim(claimId).catch(() => undefined),
      CLAIM_LEASE_MS / 3,
    );
    renewal.unref();
    return () => clearInterval(renewal);
  }

  /** Settle → record → deliver, for a claim this request holds. Returns true when goods (or a pending receipt) went out. */
  private async settleClaimed(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    http: x402HTTPResourceServer,
    context: HTTPRequestContext,
    paymentIdKey: string | null,
    claim: X402PaymentDoc,
    goods: Record<string, unknown>,
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
    declaredExtensions: Record<string, unknown> | undefined,
    takenOver = false,
  ): Promise<boolean> {
    let settled;
    try {
      settled = await http.processSettlement(paymentPayload, paymentRequirements, declaredExtensions, {
        request: context,
        responseBody: Buffer.from(JSON.stringify(goods)),
        responseHeaders: {},
      });
    } catch (err) {
      // The facilitator's answer was lost: the transfer may or may not be on chain. Reconcile by authorization.
      // The error's own text goes to the log below, not to the ledger entry (the public receipt view shows it).
      const token = await this.opts.ledger.markPending(
        claim._id,
        null,
        'facilitator_error',
        'the facilitator did not answer the settlement',
        goods,
      );
      if (paymentIdKey) await this.opts.ledger.completePaymentId(paymentIdKey, 'pending', claim._id, null);
      await this.startReconcile(claim._id);
      this.opts.log?.(err);
      this.writePending(ctx, claim, null, token, 'facilitator_error');
      return true;
    }

    if (settled.success) {
      // Catalogue goods need nothing more from the ledger: they go out while the settled record is written
      // (recordSettled says why that is safe). Order payments and payment ids build on the record: they wait.
      const payment =
        !resource.deliver && !paymentIdKey && claim.order_id === null
          ? this.opts.ledger.recordSettled(claim, settled.transaction, this.opts.log ?? console.error)
          : await this.opts.ledger.markSettled(claim._id, settled.transaction, claim.order_id !== null);
      if (!payment) throw problem('internal_error', `ledger entry ${claim._id} vanished`);
      for (const [k, v] of Object.entries(settled.headers)) ctx.set(k, v);
      const response = await this.deliverSettled(ctx, resource, quote, payment, goods, settled.headers);
      if (paymentIdKey) await this.opts.ledger.completePaymentId(paymentIdKey, 'done', payment._id, response);
      writeStored(ctx, response);
      return true;
    }

    // Buyers and the ledger get the reason code only: the facilitator's text (viem's error with the sender address,
    // the call's arguments, the library version) goes to the server log.
    const reason = settlementReasonCode(settled.errorReason);
    if (reason !== PENDING_REASON) {
      this.opts.log?.(
        new Error(
          `x402 settlement of payment ${claim._id} failed: ${settled.errorReason ?? '(no reason)'}${settled.errorMessage && settled.errorMessage !== settled.errorReason ? `: ${settled.errorMessage}` : ''}`,
        ),
      );
    }
    // A claim taken over from a dead request: its own settlement may still land, so a failure here is reconciled.
    if ((reason === PENDING_REASON && settled.transaction) || takenOver) {
      const token = await this.opts.ledger.markPending(claim._id, settled.transaction || null, reason, null, goods);
      if (paymentIdKey) await this.opts.ledger.completePaymentId(paymentIdKey, 'pending', claim._id, null);
      await this.startReconcile(claim._id);
      for (const [k, v] of Object.entries(settled.headers)) ctx.set(k, v);
      this.writePending(ctx, claim, settled.transaction || null, token, reason);
      return true;
    }
    // Refused before anything was sent (an unfunded payer, a nonce used elsewhere: settlement's own checks): nothing
    // moved, so nothing is kept, as for a payment refused at verification. A transaction that failed is recorded.
    const kept = Boolean(settled.transaction) || !REFUSED_BEFORE_SENDING.has(reason);
    const detail = settlementFailureDetail(reason, kept);
    if (kept) await this.opts.ledger.markFailed(claim._id, reason, detail, settled.transaction || null);
    else await this.opts.ledger.withdrawClaim(claim._id);
    for (const [k, v] of Object.entries(settled.headers)) ctx.set(k, v);
    await this.writeChallenge(ctx, paymentRequirements, routeConfigResource(http), reason, quote, {
      detail,
      ...(kept ? { payment: receipt({ ...claim, status: 'failed', transaction: settled.transaction || null }) } : {}),
    });
    return false;
  }

  /**
   * The 200 answer for a settled payment: runs `resource.deliver` (confirming the order an order payment pays; the
   * order's `confirmPayment` is idempotent for the same transaction, so a resend may run it again) and clears the
   * entry's `confirmation_due`. A refusal (the order's state) becomes a 409 carrying the receipt, never a 402; an
   * unreachable order workflow leaves `confirmation_due` set for the sweeper.
   * @throws ProblemError the refusal, with `payment` (the receipt) in its extension members.
   */
  private async deliverSettled(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    payment: X402PaymentDoc,
    goods: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<StoredResponse> {
    let body = goods;
    if (resource.deliver) {
      try {
        body = await resource.deliver(ctx, quote, payment, goods);
        if (payment.confirmation_due) await this.opts.ledger.markOrderConfirmed(payment._id);
      } catch (err) {
        // Paid, but the post-payment step failed: say so, keep the receipt header, keep the ledger honest.
        const refusal = err instanceof ProblemError && err.status < 500;
        await this.opts.ledger.noteDeliveryFailure(
          payment._id,
          err instanceof Error ? err.message : String(err),
          refusal,
        );
        const noted = (await this.opts.ledger.get(payment._id)) ?? payment;
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

  /**
   * A resend whose quote was refused (the order it paid is no longer awaiting payment): when the same signed payload
   * with its payment-identifier already bought this resource, answers as for any resend (the stored response, or the
   * order confirmed and shown). Returns false when there is no such purchase (the refusal stands).
   */
  private async answerResendAfterRefusal(ctx: Context, resource: PaidResource, header: string): Promise<boolean> {
    let payload: PaymentPayload;
    try {
      payload = parsePaymentHeader(header);
    } catch {
      return false;
    }
    const id = paymentIdentifierOf(payload);
    if (!id) return false;
    const existing = await this.opts.ledger.getPaymentId(X402PaymentRepository.paymentIdKey(ctx.path, id));
    if (!existing || existing.payload_hash !== sha256Hex(JSON.stringify(payload))) return false;
    if (existing.state === 'done' && existing.response) {
      this.replay(ctx, existing.response);
      return true;
    }
    const held = await this.heldBy(payload);
    if (!held || held.resource !== existing.resource || held.status !== 'settled') return false;
    await this.answerSettledResend(ctx, resource, quoteOfHeld(held), existing._id, held);
    return true;
  }

  /**
   * A resend of a payment that settled: the goods kept on the entry, and for an order payment whose request died
   * before confirming the order, the order confirmed now and shown; the payment id is then done.
   */
  private async answerSettledResend(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    paymentIdKey: string,
    held: X402PaymentDoc,
  ): Promise<void> {
    const stored = settledResponseOf(held);
    const response = held.confirmation_due
      ? await this.deliverSettled(ctx, resource, quote, held, goodsOf(held), stored.headers)
      : stored;
    await this.opts.ledger.completePaymentId(paymentIdKey, 'done', held._id, response);
    this.replay(ctx, response);
  }

  private async process(http: x402HTTPResourceServer, context: HTTPRequestContext) {
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

  /**
   * At once and then every `intervalMs`, hands claims left `settling` whose lease lapsed (their request died between
   * the claim and the facilitator's answer; legacy claims: older than {@link ORPHAN_CLAIM_MS}), and settled order
   * payments whose lease lapsed with the order unconfirmed, to `onPending`, which reconciles them on chain (and
   * confirms their order). Runs in every API process; the reconcile workflow id makes concurrent sweeps harmless.
   * The timers do not keep the process alive.
   * @returns a function stopping the sweeper.
   */
  startOrphanSweeper(intervalMs = 5_000): () => void {
    const sweep = async () => {
      const now = new Date();
      const orphans = await this.opts.ledger.staleClaims(now, 50, ORPHAN_CLAIM_MS);
      // Settled order payments whose request died before the order was confirmed: reconciliation confirms it.
      const unconfirmed = await this.opts.ledger.staleConfirmations(now, 50);
      for (const o of [...orphans, ...unconfirmed]) await this.startReconcile(o._id);
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

  private async startReconcile(paymentId: string): Promise<void> {
    const doc = await this.opts.ledger.get(paymentId);
    if (!doc || !this.opts.onPending) return;
    await this.opts.onPending(doc).catch((err) => this.opts.log?.(err));
  }

  /** Scope, hash and fingerprint of the payment id a payload carries (null when it carries none). */
  private paymentIdScope(ctx: Context, payload: PaymentPayload, quote: PaidQuote) {
    const id = paymentIdentifierOf(payload);
    if (!id) return null;
    const a = payload.accepted;
    const bodyHash =
      ctx.method === 'GET' || ctx.method === 'HEAD'
        ? ''
        : sha256Hex(JSON.stringify((ctx.request as { body?: unknown }).body ?? null));
    const fingerprint = sha256Hex(
      JSON.stringify([
        a.scheme,
        a.network,
        a.asset.toLowerCase(),
        String(quote.priceMicros),
        this.opts.settings.payTo.toLowerCase(),
        ctx.method,
        ctx.path,
        ctx.querystring,
        bodyHash,
      ]),
    );
    const doc = {
      _id: X402PaymentRepository.paymentIdKey(ctx.path, id),
      payment_id: id,
      resource: ctx.path,
      payload_hash: sha256Hex(JSON.stringify(payload)),
      payer: authorizationOf(payload).payer,
      fingerprint,
    };
    return { id, doc };
  }

  /**
   * A payment id seen before (x402 payment_identifier.md, "Idempotency Behavior"):
   * - same payload: the stored response, without verifying again (a resend may no longer verify once settled);
   * - another payload, same purchase: verified first (it proves the payer), then the stored response, not settled;
   * - another purchase (fingerprint), or another payer: 409; still running: 409 with Retry-After.
   */
  private async answerFromPaymentId(
    ctx: Context,
    resource: PaidResource,
    http: x402HTTPResourceServer,
    context: HTTPRequestContext,
    pid: { id: string; doc: { _id: string; payload_hash: string; payer: string; fingerprint: string } },
    existing: X402PaymentIdDoc,
    quote: PaidQuote,
  ): Promise<void> {
    if (existing.fingerprint !== pid.doc.fingerprint) {
      throw problem('payment_identifier_conflict', `payment-identifier ${pid.id} was used for another purchase`, {
        param: 'payment-identifier',
      });
    }
    if (existing.state === 'in_flight')
      return this.answerInFlightPaymentId(ctx, resource, quote, http, context, pid, existing);
    if (existing.state === 'pending') {
      const payment = existing.payment_ref ? await this.opts.ledger.get(existing.payment_ref) : null;
      if (payment?.status === 'settled') return this.answerSettledResend(ctx, resource, quote, existing._id, payment);
      if (payment?.status === 'failed') {
        await this.opts.ledger.releasePaymentId(existing._id);
        throw problem(
          'payment_in_progress',
          `The earlier payment with payment-identifier ${pid.id} failed (${payment.error_reason}); retry to pay again`,
          {},
          { headers: { 'Retry-After': '0' } },
        );
      }
      if (!payment) throw problem('internal_error', `payment-identifier ${existing._id} points at no ledger entry`);
      ctx.status = 202;
      ctx.set('Retry-After', '5');
      ctx.body = pendingBody(receipt(payment), payment.error_reason ?? PENDING_REASON, null);
      return;
    }
    const stored = existing.response;
    if (!stored) throw problem('internal_error', `payment-identifier ${existing._id} done without a response`);
    if (existing.payload_hash === pid.doc.payload_hash) return this.replay(ctx, stored);
    // A re-signed payload for the same purchase: authenticate it (facilitator verify), then answer without settling.
    const result = await this.process(http, context);
    if (result.type === 'payment-error') return this.writePaymentError(ctx, result.response, quote);
    if (result.type === 'payment-verified') {
      await result.cancellationDispatcher.cancel({ reason: 'after_verify_aborted' }).catch(() => undefined);
      if (authorizationOf(result.paymentPayload).payer !== existing.payer) {
        throw problem('payment_identifier_conflict', `payment-identifier ${pid.id} belongs to another payer`, {
          param: 'payment-identifier',
        });
      }
    }
    this.replay(ctx, stored);
  }

  /**
   * A payment id whose first request has not finished, or died (its process was killed; issue 14). With the same
   * signed payload, the ledger says how far it got: settled with its goods kept → the goods, and the id is done;
   * failed, or never claimed and older than a claim lease → the id is released for a new attempt; otherwise still
   * running → 409 with Retry-After. The payment id is what proves the buyer here: the signed payload alone is
   * public on chain once settled.
   */
  private async answerInFlightPaymentId(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    http: x402HTTPResourceServer,
    context: HTTPRequestContext,
    pid: { id: string; doc: { _id: string; payload_hash: string } },
    existing: X402PaymentIdDoc,
  ): Promise<void> {
    const running = () =>
      problem(
        'payment_in_progress',
        `A purchase with payment-identifier ${pid.id} is still running; retry shortly`,
        {},
        { headers: { 'Retry-After': '2' } },
      );
    if (existing.payload_hash !== pid.doc.payload_hash) throw running();
    const held = await this.heldBy(parsePaymentHeader(ctx.get('payment-signature')));
    if (held && held.resource === existing.resource) {
      // Settled: the goods kept on the entry; an order payment's order is confirmed here if its request died first.
      if (held.status === 'settled' && held.delivery != null) {
        return this.answerSettledResend(ctx, resource, quote, existing._id, held);
      }
      // A claim whose request died before the facilitator answered: this resend carries the same signed payment,
      // so it finishes the purchase instead of waiting minutes for the authorization to expire.
      if (held.status === 'settling' && (held.lease_until?.getTime() ?? 0) < Date.now()) {
        const mine = await this.opts.ledger.takeOverClaim(held._id, held.lease_until ?? null);
        if (mine) return this.settleTakenOver(ctx, resource, quote, http, context, existing._id, mine, running);
      }
      if (held.status !== 'failed') throw running();
    } else if (existing.updated_at.getTime() > Date.now() - CLAIM_LEASE_MS) {
      throw running();
    }
    await this.opts.ledger.releasePaymentId(existing._id);
    throw problem(
      'payment_in_progress',
      `The earlier purchase with payment-identifier ${pid.id} did not complete; retry to pay again`,
      {},
      { headers: { 'Retry-After': '0' } },
    );
  }

  /**
   * Settles a claim taken over from a dead request, with the resent payload: verified again first (an authorization
   * the dead request got settled no longer verifies; reconciliation then finds its transfer on chain). Any settlement
   * failure is recorded as pending and reconciled, never as failed: the dead request's own settlement may still land.
   * @throws ProblemError 409 `payment_in_progress` when the payload no longer verifies (reconciliation started).
   */
  private async settleTakenOver(
    ctx: Context,
    resource: PaidResource,
    quote: PaidQuote,
    http: x402HTTPResourceServer,
    context: HTTPRequestContext,
    paymentIdKey: string,
    claim: X402PaymentDoc,
    running: () => ProblemError,
  ): Promise<void> {
    return this.holdingClaim(claim._id, async () => {
      // Whether the dead request's settlement landed is on chain: the facilitator's verify, never the offline one.
      const onChain = { ...context, adapter: new KoaAdapter(ctx, this.opts.settings.publicBaseUrl, true) };
      const result = await this.process(http, onChain);
      if (result.type !== 'payment-verified') {
        await this.startReconcile(claim._id);
        throw running();
      }
      await this.settleClaimed(
        ctx,
        resource,
        quote,
        http,
        context,
        paymentIdKey,
        claim,
        goodsOf(claim),
        result.paymentPayload,
        result.paymentRequirements,
        result.declaredExtensions,
        true,
      );
    });
  }

  /** The ledger entry holding the payload's signed authorization, if any. */
  private heldBy(payload: PaymentPayload): Promise<X402PaymentDoc | null> {
    const auth = authorizationOf(payload);
    return payload.accepted?.network
      ? this.opts.ledger.getByAuthorization(payload.accepted.network, auth.payer, auth.nonce)
      : Promise.resolve(null);
  }

  private replay(ctx: Context, response: StoredResponse): void {
    writeStored(ctx, response);
    ctx.set('Payment-Identifier-Replayed', 'true');
  }

  /** Renders a 402 (or other) answer of `processHTTPRequest` as problem details, keeping its x402 headers. */
  private writePaymentError(ctx: Context, response: HTTPResponseInstructions, quote: PaidQuote): void {
    let required: PaymentRequired | null = null;
    const encoded = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'payment-required')?.[1];
    if (encoded) {
      try {
        required = decodePaymentRequiredHeader(encoded);
      } catch {
        required = null;
      }
    }
    for (const [k, v] of Object.entries(response.headers)) if (k.toLowerCase() !== 'content-type') ctx.set(k, v);
    const reason = required?.error;
    const refusal = new ProblemError(response.status, 'payment_required', paymentDetail(reason, quote), {
      reason: reason ?? null,
      ...priceFacts(quote, this.opts.settings),
    });
    ctx.status = response.status;
    ctx.type = 'application/problem+json';
    ctx.body = refusal.toProblem(ctx.path);
  }

  /** A 402 with a fresh `PAYMENT-REQUIRED` whose `error` is `reason` (settlement refused or failed). */
  private async writeChallenge(
    ctx: Context,
    requirements: PaymentRequirements,
    resourceInfo: PaymentRequired['resource'],
    reason: string,
    quote: PaidQuote,
    extra: { detail: string; payment?: PaymentReceipt },
  ): Promise<void> {
    const required = await this.server.createPaymentRequiredResponse(
      [requirements],
      resourceInfo,
      reason,
      this.extensionsFor(quote),
    );
    ctx.set('PAYMENT-REQUIRED', encodePaymentRequired(required));
    const refusal = problem('payment_required', extra.detail, {
      reason,
      ...priceFacts(quote, this.opts.settings),
      ...(extra.payment ? { payment: extra.payment } : {}),
    });
    ctx.status = 402;
    ctx.type = 'application/problem+json';
    ctx.body = refusal.toProblem(ctx.path);
  }

  /** 402 `settlement_pending`: recorded, reconciled on chain; the goods wait at the delivery URL. */
  /**
   * 202 `settlement_pending`: the payment is recorded and reconciled on chain; the goods wait at the delivery URL.
   * Not a 402: the buyer has paid, and a fresh PAYMENT-REQUIRED would invite a client to pay a second time.
   */
  private writePending(
    ctx: Context,
    claim: X402PaymentDoc,
    transaction: string | null,
    token: string,
    reason: string,
  ): void {
    const deliveryUrl = `${this.opts.settings.publicBaseUrl}/x402/deliveries/${token}`;
    ctx.status = 202;
    ctx.set('Retry-After', '5');
    ctx.set('Location', deliveryUrl);
    ctx.body = pendingBody(receipt({ ...claim, status: 'pending', transaction }), reason, deliveryUrl);
  }
}

function routeConfigResource(http: x402HTTPResourceServer): PaymentRequired['resource'] {
  const cfg = Object.values(http.routes as Record<string, RouteConfig>)[0] ?? ({} as Partial<RouteConfig>);
  return {
    url: cfg.resource ?? '',
    description: cfg.description ?? '',
    mimeType: cfg.mimeType ?? 'application/json',
    ...(cfg.serviceName ? { serviceName: cfg.serviceName } : {}),
  };
}

function writeStored(ctx: Context, response: StoredResponse): void {
  for (const [k, v] of Object.entries(response.headers)) ctx.set(k, v);
  ctx.status = response.status;
  ctx.body = response.body;
}

/** A ledger entry as a buyer-facing receipt. */
export function receipt(
  p: Pick<
    X402PaymentDoc,
    '_id' | 'status' | 'transaction' | 'network' | 'payer' | 'amount_micros' | 'asset' | 'pay_to'
  >,
): PaymentReceipt {
  return {
    payment_id: p._id,
    status: p.status,
    transaction: p.transaction,
    network: p.network,
    payer: p.payer,
    amount: microsToUsd(p.amount_micros),
    amount_micros: p.amount_micros,
    asset: p.asset,
    pay_to: p.pay_to,
  };
}

/** The quote a settled ledger entry was sold at (for answering a resend once the live quote no longer applies). */
function quoteOfHeld(p: X402PaymentDoc): PaidQuote {
  return {
    priceMicros: p.amount_micros,
    description: p.resource,
    kind: p.resource_kind,
    ref: p.resource_ref,
    ...(p.order_id ? { orderId: p.order_id } : {}),
    bazaar: { info: { input: {}, output: {} }, schema: {} },
  };
}

/** The goods kept on a ledger entry (a JSON object; empty for an order payment). */
function goodsOf(p: X402PaymentDoc): Record<string, unknown> {
  return (p.delivery as Record<string, unknown> | null) ?? {};
}

/** The 200 answer for a settled payment from its ledger entry (goods kept on it), for resends and delivery URLs. */
export function settledResponseOf(p: X402PaymentDoc): {
  status: number;
  headers: Record<string, string>;
  body: unknown;
} {
  const settle: SettleResponse = {
    success: true,
    transaction: p.transaction ?? '',
    network: p.network as Network,
    payer: p.payer,
  };
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'PAYMENT-RESPONSE': encodePaymentResponse(settle),
    },
    body: { ...goodsOf(p), payment: receipt(p) },
  };
}

/** Body of a 202 for a settlement that is not confirmed yet. */
function pendingBody(payment: PaymentReceipt, reason: string, deliveryUrl: string | null) {
  return {
    status: 'settlement_pending',
    reason,
    detail: payment.transaction
      ? `Transaction ${payment.transaction} was sent but is not confirmed yet; nothing more is charged. The goods are kept${deliveryUrl ? ' at delivery_url' : ''} until it settles; retry after Retry-After.`
      : 'The facilitator did not answer; the payment is being reconciled on chain. The goods are kept until it settles; nothing more is charged.',
    payment,
    delivery_url: deliveryUrl,
  };
}

function priceFacts(quote: PaidQuote, s: X402Settings) {
  return {
    price_usd: microsToUsd(quote.priceMicros),
    amount: String(quote.priceMicros),
    currency: 'USDC',
    network: s.network,
    asset: s.asset,
    pay_to: s.payTo,
    scheme: 'exact',
  };
}

function paymentDetail(reason: string | undefined, quote: PaidQuote): string {
  const price = `${microsToUsd(quote.priceMicros)} USDC (${quote.priceMicros} atomic units)`;
  if (!reason || reason === 'Payment required') {
    return `Pay ${price}: sign the PAYMENT-REQUIRED requirements and resend this request with PAYMENT-SIGNATURE`;
  }
  return `Payment refused: ${reason}. Price: ${price}`;
}
