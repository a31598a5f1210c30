/**
 * Who may act on an order (issue 10 §1): reading an order by its 128-bit id is a capability; every action that
 * changes it needs the buyer's credential as `Authorization: Bearer <token>`:
 * - an order with an `agent_id`: that wallet's agent key (`ak_...`);
 * - an order without one: the order secret (`os_...`) returned once when the order was created.
 * None → 401 `unauthorized`; any other credential (another agent's key, the operator key) → 403 `forbidden`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { OrderDoc, WalletDoc } from '../db';
import { forbidden, unauthorized } from '../errors';
import { sha256Hex } from '../hash';
import { WalletRepository } from '../repos/wallets';
import { bearerToken, hasCredential } from './auth';

/** True when `secret` hashes to `hash` (constant-time comparison). */
export function orderSecretMatches(hash: string | null | undefined, secret: string | undefined): boolean {
  if (!hash || !secret) return false;
  const a = Buffer.from(sha256Hex(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Wallet lookup the check needs (narrow port of WalletRepository). */
export interface WalletKeys {
  get(agentId: string): Promise<WalletDoc | null>;
}

/**
 * True when `token` is the buyer's credential for `order` (see the module comment).
 * Orders created before order secrets existed and without an agent have no buyer credential: nobody may act on them
 * through the API (the review window still accepts them).
 */
export async function isBuyer(
  wallets: WalletKeys,
  order: Pick<OrderDoc, 'agent_id' | 'buyer_secret_hash'>,
  token: string | undefined,
): Promise<boolean> {
  if (!token) return false;
  if (order.agent_id) {
    const wallet = await wallets.get(order.agent_id);
    return !!wallet && WalletRepository.keyMatches(wallet, token);
  }
  return orderSecretMatches(order.buyer_secret_hash, token);
}

/**
 * Requires the buyer's credential on a request that changes `order`, to `action` (used in the messages).
 * @throws ProblemError 401 without a Bearer token, 403 with one that is not the buyer's.
 */
export async function requireBuyer(ctx: Context, wallets: WalletKeys, order: OrderDoc, action: string): Promise<void> {
  const token = bearerToken(ctx);
  const credential = order.agent_id
    ? `the agent key of wallet ${order.agent_id}`
    : 'the order secret returned when the order was created';
  // The operator key (X-Operator-Key) is a credential too, just not the buyer's.
  if (!hasCredential(ctx)) throw unauthorized(`To ${action} order ${order._id}, send ${credential} as a Bearer token`);
  if (!(await isBuyer(wallets, order, token)))
    throw forbidden(`Only the buyer may ${action} order ${order._id}; the credential sent is not ${credential}`);
}
