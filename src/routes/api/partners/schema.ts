/**
 * Partner commissions (issue 4 §4, issue 10 §3). Schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';
import { Id, Micros, Usd } from '../fields';

/** Partner commission listing (`GET /api/v1/partners/{partner_id}/commissions`, issue 4 §4, issue 10 §3). */
export const CommissionList = z
  .object({
    partner_id: z.string(),
    percent: z.number(),
    totals: z.object({
      pending: Usd('Recorded on orders not yet final (not spendable)'),
      pending_micros: Micros('Recorded on orders not yet final (not spendable)'),
      credited: Usd('Ever credited'),
      credited_micros: Micros('Ever credited'),
      cancelled: Usd('Pending when the payment was refunded: never paid'),
      cancelled_micros: Micros('Pending when the payment was refunded: never paid'),
      reversed: Usd('Credited, then taken back after refunds (debited or owed)'),
      reversed_micros: Micros('Credited, then taken back after refunds (debited or owed)'),
      owed: Usd('Still owed back: reversals the balance could not cover, less what later commissions paid off'),
      owed_micros: Micros(
        'Still owed back: reversals the balance could not cover, less what later commissions paid off',
      ),
      net: Usd('credited - reversed'),
      net_micros: Micros('credited - reversed'),
    }),
    commissions: z.array(
      z.object({
        id: z.string(),
        order_id: z.string(),
        period: z.string().nullable(),
        status: z.enum(['pending', 'credited', 'cancelled', 'reversed', 'reversal_owed', 'not_eligible']).meta({
          description:
            'pending until the order is final; credited; cancelled (refunded while pending); reversed / reversal_owed (credited, then refunded); not_eligible (never paid: reason)',
        }),
        reason: z.string().nullable(),
        payment: Usd('Payment received'),
        payment_micros: Micros('Payment received'),
        percent: z.number(),
        commission: Usd('Commission'),
        commission_micros: Micros('Commission'),
        debt_offset_micros: Micros(
          'Part of the commission that paid off what the partner owed instead of reaching its wallet',
        ),
        reversal_debited_micros: Micros('Taken back from the wallet by the reversal'),
        owed_micros: Micros('What the reversal could not take back (owed)'),
        credit_tx_id: z.string().nullable(),
        reversal_tx_id: z.string().nullable(),
        created_at: z.string(),
        credited_at: z.string().nullable(),
        cancelled_at: z.string().nullable(),
        reversed_at: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'CommissionList' });

/** The partner operations. */
export const partnerOperations = {
  commissions: defineOperation({
    id: 'listPartnerCommissions',
    method: 'get',
    path: '/api/v1/partners/{partner_id}/commissions',
    summary: "A partner's commissions (20% of every payment received on quotes naming it), with totals",
    description:
      'Pending until the order is final (accepted by the buyer or after the review window), then credited; cancelled ' +
      'when the payment is refunded; renewals are credited when paid. Self-referrals are not_eligible (issue 10 §3).',
    auth: ['agent_key', 'operator'],
    request: { params: z.object({ partner_id: Id('Partner id = its wallet id') }) },
    responses: { '200': { description: 'Commissions, newest first', json: CommissionList } },
    errors: { invalid_request: 'Malformed partner_id' },
  }),
};
