/**
 * The shapes the x402 seller (src/x402/gateway.ts and its pieces) exchanges with the routes that sell through it.
 * Amounts are integer micro-units: USDC atomic units, which are micro-USD (6 decimals). Source: seed §2.12, §4;
 * x402 v2 specification (../shared/reference/x402-v2.md); issue 3 §1, §2, §8; issue 27 §2.
 */
import type { Context } from 'koa';
import type { OfferReceiptIssuer } from '@x402/extensions/offer-receipt';
import type { X402PaymentDoc, X402PaymentIdDoc } from '../db';
import type { X402PaymentRepository } from '../repos/x402Payments';

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

/**
 * A settled (or pending, or failed) payment as shown to the buyer and on the ledger: `amount` in USD (a decimal
 * number), `amount_micros` the same in integer micro-units; `transaction` is the settlement's hash when known.
 */
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
   * Prices the request. Throws a ProblemError (src/errors.ts: 404 unknown id, 400 bad input, 409 wrong state) to
   * refuse before any payment is asked.
   */
  quote(ctx: Context): Promise<PaidQuote> | PaidQuote;
  /** Builds the goods (a JSON object). Must not write anything: it runs before settlement. */
  produce(ctx: Context, quote: PaidQuote): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Runs after the payment is verified and claimed, just before settlement moves the money: reserves what is sold
   * (an order is held against payments on other rails, issue 36 §1). Throwing a ProblemError refuses the payment
   * before anything moves (the claim is withdrawn). Returns the release, called when the settlement did not go
   * through (nothing to release: a no-op).
   */
  reserve?(ctx: Context, quote: PaidQuote, claim: X402PaymentDoc): Promise<() => Promise<void>>;
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

/** Options of the X402Gateway (src/x402/gateway.ts). */
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

/** A response as sent and as stored under its payment id: status, headers, JSON body. */
export type StoredResponse = NonNullable<X402PaymentIdDoc['response']>;

/** The purchase a request makes: its Koa context, the resource it buys and the quote it pays. */
export interface Sale {
  ctx: Context;
  resource: PaidResource;
  quote: PaidQuote;
}
