/**
 * Who may act on an order (issue 10 §1): reading an order by its 128-bit id is a capability; every action that
 * changes it needs the buyer's credential as `Authorization: Bearer <token>`:
 * - an order with an `agent_id`: that wallet's agent key (`ak_...`);
 * - an order without one: the order secret (`os_...`) returned once when the order was created.
 * None → 401 `unauthorized`; any other credential (another agent's key, the operator key) → 403 `forbidden`: the
 * gate of each operation says so (src/routes/api/orders/policy.ts `buyerOf`, issue 27 §1).
 */
import { timingSafeEqual } from 'node:crypto';
import type { OrderDoc, WalletDoc } from '../db';
import { sha256Hex } from '../hash';
import { WalletRepository } from '../repos/wallets';

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
