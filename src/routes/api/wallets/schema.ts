/**
 * Agent wallets (seed §2.9; issue 2 §5, issue 10 §2): schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { isUsdAmount } from '../../../domain/money';
import { defineOperation } from '../../operation';
import { Id, Micros, Usd } from '../fields';

/** Wallet (seed §2.9). */
export const Wallet = z
  .object({
    agent_id: z.string(),
    balance: Usd('Balance'),
    balance_micros: Micros('Balance'),
    currency: z.string(),
    agent_key: z.string().optional().meta({
      description:
        'Shown once, when this request created the wallet. Send as `Authorization: Bearer` to read or spend it',
    }),
    transactions: z.array(
      z.object({
        id: z.string(),
        type: z.enum(['credit', 'debit']),
        amount: Usd('Amount'),
        amount_micros: Micros('Amount'),
        balance_after_micros: Micros('Balance after'),
        memo: z.string(),
        source: z.string(),
        at: z.string(),
      }),
    ),
    created_at: z.string(),
  })
  .meta({ id: 'Wallet' });

/** Answer of `POST /api/v1/wallets/{agent_id}/credits` (amounts in USD and integer micro-units). */
export const WalletCredit = z
  .object({
    agent_key: z
      .string()
      .optional()
      .meta({ description: 'Issued when the wallet had no key: hand it to its owner out of band (shown once)' }),
    transaction: z.object({
      id: z.string(),
      type: z.string(),
      amount: z.number(),
      amount_micros: z.number().int(),
      memo: z.string().optional(),
      at: z.string(),
    }),
    balance: z.number(),
    balance_micros: z.number().int(),
  })
  .meta({ id: 'WalletCredit' });

/** Answer of `POST /api/v1/wallets/{agent_id}/key`: the new agent key, shown once. */
export const WalletKey = z.object({ agent_id: z.string(), agent_key: z.string() }).meta({ id: 'WalletKey' });

export const WalletCreditRequest = z
  .object({
    amount: z
      .number()
      .positive()
      .max(1_000_000)
      .refine(isUsdAmount, 'has more than 6 decimals (the smallest amount is 0.000001 USD)')
      .meta({ description: 'USD, at most 6 decimals (more are refused, not rounded)' }),
    transaction_id: Id('Idempotency of the credit: a second credit with this id is not applied'),
    memo: z.string().max(200).default('Operator credit'),
  })
  .strict()
  .meta({ id: 'WalletCreditRequest' });

/** Path parameter `agent_id`. */
export const AgentIdParam = Id('Agent id');

const AgentPath = z.object({ agent_id: AgentIdParam });

/** The wallet operations. */
export const walletOperations = {
  get: defineOperation({
    id: 'getWallet',
    method: 'get',
    path: '/api/v1/wallets/{agent_id}',
    summary: 'Agent wallet (created if absent; the agent key is shown once)',
    description: 'Reading an existing wallet needs its agent key or the operator key.',
    // `none`: a wallet this request creates shows its new key to whoever created it.
    auth: ['none', 'agent_key', 'operator'],
    request: { params: AgentPath },
    responses: { '200': { description: 'Wallet', json: Wallet } },
    errors: { invalid_request: 'Malformed agent_id' },
    mcp: {
      name: 'get_wallet',
      title: 'Get the agent wallet',
      description:
        "The agent's wallet with balance and transactions (GET /api/v1/wallets/{agent_id}); created if absent, and then its agent_key is shown once. Reading an existing wallet needs that key.",
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, idempotentHint: true },
      credential: 'agent_key',
    },
  }),
  credit: defineOperation({
    id: 'creditWallet',
    method: 'post',
    path: '/api/v1/wallets/{agent_id}/credits',
    summary: 'Credit a wallet (operator key); a wallet without a key gets one, shown once in agent_key',
    auth: 'operator',
    request: { params: AgentPath, body: WalletCreditRequest },
    responses: { '201': { description: 'Credited', json: WalletCredit } },
    errors: { invalid_request: 'Invalid amount or agent_id' },
  }),
  rotateKey: defineOperation({
    id: 'issueWalletKey',
    method: 'post',
    path: '/api/v1/wallets/{agent_id}/key',
    summary:
      'Rotate the agent key (the owner, with the current key) or issue one for a wallet without a key (operator)',
    auth: ['agent_key', 'operator'],
    request: { params: AgentPath },
    responses: { '201': { description: 'The new key, shown once', json: WalletKey } },
    errors: {
      wallet_not_found: 'No such wallet (operator)',
      wallet_claimed: 'The wallet has a key; only its owner rotates it',
    },
  }),
};
