/**
 * x402 version 2 on Koa, as one import: the gateway (./gateway.ts, where the flow of a paid request is described)
 * and the types, parsers and answers other modules use. The seller is in pieces the size of `@x402/hono`'s
 * (issue 27 §2): ./adapter.ts, ./server.ts, ./middleware.ts, ./session.ts, ./replay.ts, ./sweeper.ts,
 * ./responses.ts, ./paymentHeader.ts, ./types.ts.
 */
export { KoaAdapter } from './adapter';
export { X402Gateway } from './gateway';
export {
  PAYMENT_IDENTIFIER_EXTENSION,
  authorizationOf,
  parsePaymentHeader,
  paymentIdentifierOf,
  type AuthorizationFacts,
} from './paymentHeader';
export { receipt, settledResponseOf } from './responses';
export { ORPHAN_CLAIM_MS } from './sweeper';
export type {
  BazaarDeclaration,
  PaidQuote,
  PaidResource,
  PaymentReceipt,
  X402GatewayOptions,
  X402Settings,
} from './types';
