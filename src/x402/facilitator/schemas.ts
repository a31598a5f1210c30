/**
 * Request bodies of the x402 v2 facilitator HTTP API (`POST /verify`, `POST /settle`), parsed with zod.
 * Objects are loose: members this facilitator does not know pass through to `@x402/core` untouched.
 */
import { z } from 'zod';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address');
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex');
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x-prefixed 32-byte hex');
const uintString = z.string().regex(/^\d{1,78}$/, 'expected a non-negative integer as a decimal string');
const network = z
  .string()
  .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'expected a CAIP-2 network id such as eip155:8453')
  .transform((value) => value as `${string}:${string}`);

/** PaymentRequirements of x402 v2 (for this EVM-only facilitator: `asset` and `payTo` are addresses). */
export const PaymentRequirementsSchema = z.looseObject({
  scheme: z.string().min(1),
  network,
  asset: address,
  amount: uintString,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive(),
  extra: z.record(z.string(), z.unknown()).default({}),
});
export type PaymentRequirements = z.infer<typeof PaymentRequirementsSchema>;

/** EIP-3009 authorization inside an exact EVM payload. */
export const Eip3009AuthorizationSchema = z.looseObject({
  from: address,
  to: address,
  value: uintString,
  validAfter: uintString,
  validBefore: uintString,
  nonce: bytes32,
});
export type Eip3009Authorization = z.infer<typeof Eip3009AuthorizationSchema>;

/** Exact EVM payload signed with EIP-3009 (`transferWithAuthorization`). */
export const ExactEvmEip3009PayloadSchema = z.looseObject({
  signature: hex,
  authorization: Eip3009AuthorizationSchema,
});
export type ExactEvmEip3009Payload = z.infer<typeof ExactEvmEip3009PayloadSchema>;

/** Exact EVM payload signed for Permit2; checked in depth by `@x402/evm`. */
export const ExactEvmPermit2PayloadSchema = z.looseObject({
  signature: hex,
  permit2Authorization: z.looseObject({}),
});
export type ExactEvmPermit2Payload = z.infer<typeof ExactEvmPermit2PayloadSchema>;

/** PaymentPayload of x402 v2. */
export const PaymentPayloadSchema = z.looseObject({
  x402Version: z.literal(2, 'only x402 version 2 is supported'),
  resource: z.looseObject({ url: z.string() }).optional(),
  accepted: PaymentRequirementsSchema,
  payload: z.union(
    [ExactEvmEip3009PayloadSchema, ExactEvmPermit2PayloadSchema],
    'expected an exact EVM payload (EIP-3009 or Permit2)',
  ),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentPayload = z.infer<typeof PaymentPayloadSchema>;

/** Body of `POST /verify` and `POST /settle`. */
export const FacilitatorRequestSchema = z.object({
  x402Version: z.literal(2, 'only x402 version 2 is supported'),
  paymentPayload: PaymentPayloadSchema,
  paymentRequirements: PaymentRequirementsSchema,
});
export type FacilitatorRequest = z.infer<typeof FacilitatorRequestSchema>;
