/**
 * What the seller reads from a `PAYMENT-SIGNATURE` header: the x402 v2 payment payload, its `payment-identifier` id
 * and the authorization (payer, nonce, expiry) a ledger claim is keyed by. Source: x402 v2 HTTP transport and
 * specs/extensions/payment_identifier.md; issue 3 §2; issue 27 §2.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { z } from 'zod';
import { problem, type ProblemError } from '../errors';
import { sha256Hex } from '../hash';

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

/** A 400 `invalid_payment_header` naming the PAYMENT-SIGNATURE header, with `detail`. */
export const invalidHeader = (detail: string): ProblemError =>
  problem('invalid_payment_header', detail, { param: 'PAYMENT-SIGNATURE' });

/**
 * Decodes and checks a `PAYMENT-SIGNATURE` header.
 * @throws ProblemError 400 `invalid_payment_header` when it is not base64 JSON of an x402 v2 payment payload, or its
 *   payment-identifier id is not 16 to 128 characters of `[A-Za-z0-9_-]`.
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

/**
 * Who signed and which authorization: what (network, payer, nonce) claims identify. `payer` and `nonce` lowercase;
 * `validBefore` in Unix seconds (0 when the payload names none).
 */
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
