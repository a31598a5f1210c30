import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { x402Facilitator } from '@x402/core/facilitator';
import type {
  Network,
  PaymentPayload as X402PaymentPayload,
  PaymentRequirements as X402PaymentRequirements,
  SettleResponse,
  VerifyResponse,
} from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import Koa from 'koa';
import type { Address, Hex } from 'viem';
import type { z } from 'zod';

import { BASE_NETWORK, type Eip155Network, chainIdOfNetwork } from '../chain';
import { FacilitatorReason } from './reasons';
import { logger } from '../../telemetry/logger';
import {
  type Eip3009Authorization,
  Eip3009AuthorizationSchema,
  type FacilitatorRequest,
  FacilitatorRequestSchema,
  type PaymentPayload,
} from './schemas';
import { createFacilitatorSigner } from './signer';

/** Options of {@link createFacilitatorApp} and {@link createX402Facilitator}. */
export interface FacilitatorAppOptions {
  /** JSON-RPC endpoint of the settlement chain. */
  rpcUrl: string;
  /** Key of the account that submits settlements and pays their gas. */
  privateKey: Hex;
  /**
   * CAIP-2 networks served. One RPC endpoint serves one chain, so exactly one entry; default `['eip155:8453']`.
   * The RPC must answer with that chain id ({@link startFacilitator} checks it).
   */
  networks?: readonly Eip155Network[];
  /** Bound of each receipt wait before a settlement reports `settlement_pending`. Default 60000. */
  confirmationTimeoutMs?: number;
  /** Receipt polling interval. Default 200 ms. */
  pollingIntervalMs?: number;
}

/** An `x402Facilitator` with the exact EVM scheme registered, and what it was built with. */
export interface ConfiguredFacilitator {
  facilitator: x402Facilitator;
  /** Address that submits settlements. */
  address: Address;
  network: Eip155Network;
  chainId: number;
}

/**
 * Builds `@x402/core`'s `x402Facilitator` with `@x402/evm`'s `ExactEvmScheme` on a viem signer whose account has
 * a viem nonce manager (see {@link createFacilitatorSigner}).
 *
 * @throws Error when `networks` does not hold exactly one `eip155:<id>` network.
 */
export function createX402Facilitator(opts: FacilitatorAppOptions): ConfiguredFacilitator {
  const networks = opts.networks ?? [BASE_NETWORK];
  const [network] = networks;
  if (network === undefined || networks.length !== 1) {
    throw new Error(`one RPC endpoint serves one chain: pass exactly one network, got [${networks.join(', ')}]`);
  }
  const chainId = chainIdOfNetwork(network);
  const { signer, address } = createFacilitatorSigner({
    rpcUrl: opts.rpcUrl,
    privateKey: opts.privateKey,
    chainId,
    ...(opts.confirmationTimeoutMs === undefined ? {} : { confirmationTimeoutMs: opts.confirmationTimeoutMs }),
    ...(opts.pollingIntervalMs === undefined ? {} : { pollingIntervalMs: opts.pollingIntervalMs }),
  });
  const facilitator = new x402Facilitator().register(network, new ExactEvmScheme(signer));
  return { facilitator, address, network, chainId };
}

/** A 400 answer: the body is not a facilitator request. */
class MalformedRequestError extends Error {
  readonly status = 400;
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'MalformedRequestError';
  }
}

function parseRequest(body: unknown): FacilitatorRequest {
  const parsed = FacilitatorRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue: z.core.$ZodIssue | undefined = parsed.error.issues[0];
  const param = issue?.path.map(String).join('.') || undefined;
  throw new MalformedRequestError(param ? `${param}: ${issue?.message}` : (issue?.message ?? 'invalid body'), param);
}

/** The EIP-3009 authorization of a payload, routed the way `@x402/evm` routes it (Permit2 when present). */
function eip3009AuthorizationOf(paymentPayload: PaymentPayload): Eip3009Authorization | undefined {
  if ('permit2Authorization' in paymentPayload.payload) return undefined;
  const parsed = Eip3009AuthorizationSchema.safeParse(paymentPayload.payload.authorization);
  return parsed.success ? parsed.data : undefined;
}

function payerOf(paymentPayload: PaymentPayload): string | undefined {
  return eip3009AuthorizationOf(paymentPayload)?.from;
}

/** Identifies one authorization: what two concurrent settlements of the same payload share. */
function authorizationKey({ paymentPayload, paymentRequirements }: FacilitatorRequest): string {
  const authorization = eip3009AuthorizationOf(paymentPayload);
  const id = authorization ? `${authorization.from}:${authorization.nonce}` : paymentPayload.payload.signature;
  return `${paymentRequirements.network}:${id}`.toLowerCase();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The x402 v2 facilitator HTTP API on Koa, backed by {@link createX402Facilitator}:
 * - `GET /supported` → `{kinds, extensions, signers}`;
 * - `POST /verify` → `VerifyResponse`, `POST /settle` → `SettleResponse`, both with body
 *   `{x402Version: 2, paymentPayload, paymentRequirements}`.
 *
 * Verify and settle answer 200 also when the payment is invalid or settlement failed (read `isValid` /
 * `success`); a body that is not a facilitator request gets 400 `{error: 'invalid_request', message, param}`.
 * Concurrent settlements of the same authorization are refused after the first, without spending gas.
 * The app does not listen: see {@link startFacilitator}.
 *
 * @example
 * const app = createFacilitatorApp({ rpcUrl, privateKey: ANVIL_KEYS.facilitator, networks: ['eip155:8453'] });
 * app.listen(4020);
 */
export function createFacilitatorApp(opts: FacilitatorAppOptions): Koa {
  const { facilitator, network } = createX402Facilitator(opts);
  const settling = new Set<string>();

  /** Why these requirements are not for this facilitator, or undefined when they are. */
  const refusal = (request: FacilitatorRequest): { reason: FacilitatorReason; message: string } | undefined => {
    const { scheme, network: wanted } = request.paymentRequirements;
    if (wanted !== network) {
      return {
        reason: FacilitatorReason.invalidNetwork,
        message: `this facilitator settles on ${network}, not ${wanted}`,
      };
    }
    if (scheme !== 'exact') {
      return {
        reason: FacilitatorReason.unsupportedScheme,
        message: `this facilitator implements the exact scheme, not ${scheme}`,
      };
    }
    return undefined;
  };

  const verify = async (request: FacilitatorRequest): Promise<VerifyResponse> => {
    const payer = payerOf(request.paymentPayload);
    const refused = refusal(request);
    if (refused)
      return {
        isValid: false,
        invalidReason: refused.reason,
        invalidMessage: refused.message,
        ...(payer ? { payer } : {}),
      };
    try {
      return await facilitator.verify(
        request.paymentPayload as X402PaymentPayload,
        request.paymentRequirements as X402PaymentRequirements,
      );
    } catch (error) {
      return {
        isValid: false,
        invalidReason: FacilitatorReason.unexpectedVerifyError,
        invalidMessage: errorMessage(error),
        ...(payer ? { payer } : {}),
      };
    }
  };

  const settle = async (request: FacilitatorRequest): Promise<SettleResponse> => {
    const payer = payerOf(request.paymentPayload);
    const failure = (errorReason: string, message: string): SettleResponse => ({
      success: false,
      errorReason,
      errorMessage: message,
      transaction: '',
      network: request.paymentRequirements.network as Network,
      ...(payer ? { payer } : {}),
    });
    const refused = refusal(request);
    if (refused) return failure(refused.reason, refused.message);
    const key = authorizationKey(request);
    if (settling.has(key)) {
      return failure(FacilitatorReason.nonceAlreadyUsed, 'a settlement of this authorization is already in progress');
    }
    settling.add(key);
    try {
      return await facilitator.settle(
        request.paymentPayload as X402PaymentPayload,
        request.paymentRequirements as X402PaymentRequirements,
      );
    } catch (error) {
      return failure(FacilitatorReason.unexpectedSettleError, errorMessage(error));
    } finally {
      settling.delete(key);
    }
  };

  const router = new Router();
  router.get('/supported', (ctx) => {
    ctx.body = facilitator.getSupported();
  });
  router.post('/verify', async (ctx) => {
    ctx.body = await verify(parseRequest(ctx.request.body));
  });
  router.post('/settle', async (ctx) => {
    ctx.body = await settle(parseRequest(ctx.request.body));
  });

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof MalformedRequestError) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_request', message: error.message, ...(error.param ? { param: error.param } : {}) };
        return;
      }
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        // Body parser errors: malformed JSON (400), body too large (413), unsupported encoding (415).
        ctx.status = status;
        ctx.body = { error: status === 413 ? 'payload_too_large' : 'invalid_request', message: errorMessage(error) };
        return;
      }
      logger().error({ err: error }, 'facilitator: unexpected error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error' };
    }
  });
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '256kb' }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
