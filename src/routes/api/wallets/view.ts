/** The public form of an agent wallet (seed §2.9): balance and transactions, USD numbers with micro-unit twins. */
import type { WalletDoc, WalletEntryDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';

/** Public form of a wallet; `agentKey` only when this request issued it. */
export function walletView(w: WalletDoc, balanceMicros: number, entries: WalletEntryDoc[], agentKey?: string) {
  return {
    agent_id: w._id,
    balance: microsToUsd(balanceMicros),
    balance_micros: balanceMicros,
    currency: w.currency,
    ...(agentKey ? { agent_key: agentKey } : {}),
    transactions: entries.map((t) => ({
      id: t.tx_id,
      type: t.type,
      amount: microsToUsd(t.amount_micros),
      amount_micros: t.amount_micros,
      balance_after_micros: t.balance_after_micros,
      memo: t.memo,
      source: t.source,
      at: t.at.toISOString(),
    })),
    created_at: w.created_at.toISOString(),
  };
}
