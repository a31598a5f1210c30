/**
 * Books reconciliation (issue 24 §3): the operator runs it now or reads the last report. Schemas and operation
 * definitions (src/routes/operation.ts); the report's shape is src/domain/reconciliation.ts.
 */
import { z } from 'zod';
import { DISCREPANCY_KINDS, RECONCILIATION_SCOPES, REPAIR_KINDS } from '../../../domain/reconciliation';
import { IdempotencyKeyHeader, defineOperation } from '../../operation';
import { Micros, Time } from '../fields';

const Repair = z.object({
  kind: z.enum(REPAIR_KINDS),
  order_id: z.string().optional(),
  agent_id: z.string().optional(),
  amount_micros: Micros('Money moved or concerned').optional(),
  action: z.string().meta({ description: 'What was done, in words' }),
});

const DiscrepancySchema = z.object({
  kind: z.enum(DISCREPANCY_KINDS),
  order_id: z.string().optional(),
  agent_id: z.string().optional(),
  amount_micros: Micros('The amount at stake (a difference, an unreturned debit)').optional(),
  detail: z.string(),
});

/** The report of one reconciliation (src/domain/reconciliation.ts `ReconciliationReport`). */
export const ReconciliationReportSchema = z
  .object({
    ok: z.boolean().meta({ description: 'No discrepancy left (repairs made do not count against it)' }),
    discrepancy_count: z.number().int().meta({ description: 'All discrepancies; at most 200 are listed' }),
    started_at: Time('Started'),
    finished_at: Time('Finished'),
    repair: z.boolean().meta({ description: 'Whether repairs were allowed' }),
    scope: z.enum(RECONCILIATION_SCOPES).meta({
      description:
        "full: every open order's workflow was asked (an operator's run; a scheduled one at least hourly). recent: only orders whose workflow closed since orders_closed_since and those with a payment in flight",
    }),
    orders_closed_since: Time('With scope recent: closed order workflows were listed from this moment').optional(),
    grace_seconds: z.number().int().meta({ description: 'Seconds a movement may be in flight before it counts' }),
    checked: z.object({
      wallets: z.number().int(),
      debits: z.number().int().meta({ description: 'order:<id> wallet debits' }),
      x402_settlements: z.number().int(),
      commissions: z.number().int(),
      orders: z.number().int().meta({ description: 'Open orders whose workflow was asked' }),
    }),
    repaired: z.array(Repair),
    discrepancies: z.array(DiscrepancySchema),
    totals: z.object({
      balances_micros: Micros('Σ wallet balances'),
      credits_micros: Micros('Σ ledger credits'),
      debits_micros: Micros('Σ ledger debits'),
      refunds_due_micros: Micros('Σ refunds owed'),
    }),
    refunds_due: z.array(
      z.object({
        order_id: z.string(),
        rail: z.string(),
        amount_micros: Micros('Owed'),
        reason: z.string(),
        at: Time('Recorded'),
      }),
    ),
  })
  .meta({ id: 'ReconciliationReport' });

/** Body of `POST /api/v1/operator/reconciliation` (every field optional). */
export const ReconcileRequest = z.object({
  repair: z.boolean().default(true).meta({ description: 'Make repairs (default); false only reports' }),
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .optional()
    .meta({ description: 'Seconds a movement may be in flight before it counts; default RECONCILE_GRACE_SECONDS' }),
});

/** The reconciliation operations. */
export const reconciliationOperations = {
  run: defineOperation({
    id: 'runReconciliation',
    method: 'post',
    path: '/api/v1/operator/reconciliation',
    summary: 'Reconcile the books now (operator): check every money invariant, repair what is safe, answer the report',
    description:
      'Runs booksReconciliationWorkflow and waits for it. Repairs: an orphan order debit of a running order is ' +
      'signalled recoverPayment, one of an order that ended unpaid is refunded once; a read model whose status ' +
      "differs from its closed workflow's is rewritten. `ok` is false while any discrepancy is left.",
    auth: 'operator',
    request: { body: ReconcileRequest, headers: IdempotencyKeyHeader },
    responses: { '200': { description: 'The report', json: ReconciliationReportSchema } },
    errors: { invalid_request: 'Bad body', dependency_unavailable: 'Temporal or the database is unavailable' },
  }),
  last: defineOperation({
    id: 'getReconciliation',
    method: 'get',
    path: '/api/v1/operator/reconciliation',
    summary: 'The last books reconciliation report, scheduled or requested (operator)',
    auth: 'operator',
    responses: { '200': { description: 'The last report', json: ReconciliationReportSchema } },
    errors: { not_found: 'No reconciliation has run yet' },
  }),
};
