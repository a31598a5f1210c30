/**
 * The gateway's x402 header encoders (src/x402/headers.ts) give byte for byte what `@x402/core`'s encoders give, and
 * what its decoders (the ones the stock `@x402/fetch` client uses) read back.
 */
import { x402ResourceServer } from '@x402/core/server';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';

import { X402HTTPServer, encodePaymentRequired, encodePaymentResponse } from '../../src/x402/headers';

const settle = {
  success: true,
  transaction: '0x453b69bf1dfaa508de31540102857cba7852c20c0c55cbbb85477d52fd9d8bc5',
  network: 'eip155:8453',
  payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  extensions: { 'offer-receipt': { info: { receipt: { format: 'jws', signature: 'eyJhbGciOiJFZERTQSJ9.e30.sig' } } } },
  extensionResponses: { bazaar: { note: 'facilitator only' } },
} as unknown as SettleResponse;

const required: PaymentRequired = {
  x402Version: 2,
  error: 'Zahlung erforderlich: “Rezept” für 0,99 € — ✓ 支払い 🚀',
  resource: { url: 'http://localhost/x402/item/recipe-ü', description: 'naïve café', mimeType: 'application/json' },
  accepts: [
    {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '990000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    },
  ],
};

describe('x402 header encoders', () => {
  it('PAYMENT-RESPONSE: the same string as @x402/core, without extensionResponses', () => {
    expect(encodePaymentResponse(settle)).toBe(encodePaymentResponseHeader(settle));
    const decoded = decodePaymentResponseHeader(encodePaymentResponse(settle)) as unknown as Record<string, unknown>;
    expect(decoded.transaction).toBe(settle.transaction);
    expect(decoded.extensions).toEqual((settle as unknown as Record<string, unknown>).extensions);
    expect(decoded).not.toHaveProperty('extensionResponses');
  });

  it('PAYMENT-REQUIRED: the same string as @x402/core for text outside ASCII', () => {
    expect(encodePaymentRequired(required)).toBe(encodePaymentRequiredHeader(required));
    expect(decodePaymentRequiredHeader(encodePaymentRequired(required))).toEqual(required);
  });

  it('X402HTTPServer settlement headers equal those of the stock server', () => {
    const ours = new X402HTTPServer(new x402ResourceServer(), {});
    expect(ours.createSettlementHeaders(settle)).toEqual({ 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settle) });
  });
});
