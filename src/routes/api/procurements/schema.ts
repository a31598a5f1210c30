/**
 * Goal-based procurement (seed §2.8, §4, §7, §8; issue 4 §3). Schemas and operation definitions
 * (src/routes/operation.ts).
 */
import { z } from 'zod';
import { isUsdAmount } from '../../../domain/money';
import { ServiceDefinition } from '../../../domain/catalogue';
import { defineOperation } from '../../operation';
import { Id } from '../fields';

const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/** Body of `POST /api/v1/procure` (seed §2.8 with its defaults, §8; plus `inputs` for the chosen service). */
export const ProcurementRequest = z
  .object({
    objective: z
      .string()
      .max(2000)
      .optional()
      .meta({ description: 'What the agent wants, in words; see docs/agent-self-service.md for how it is read' }),
    budget: z
      .number()
      .positive()
      .max(1_000_000)
      .refine(isUsdAmount, 'has more than 6 decimals (the smallest amount is 0.000001 USD)')
      .default(100)
      .meta({ description: 'Highest agent price to pay (USD, at most 6 decimals); default 100' }),
    currency: z
      .string()
      .default('USD')
      .refine((c) => c.toUpperCase() === 'USD', 'only USD is supported')
      .meta({ description: 'Currency of the budget; default and only value USD' }),
    requirements: z.array(z.string().min(1).max(200)).max(50).default([]).meta({
      description:
        'Hard requirements: capability tags or words, or `filter:value` (language, region, billing, automation, payment_rail, max_fulfillment, min_sla)',
    }),
    auto_purchase: z
      .boolean()
      .default(true)
      .meta({ description: 'Order and pay from the agent wallet (default true); false returns the plan and a quote' }),
    agent_id: Id(
      'Buying agent; its wallet pays (required when auto_purchase is true, with its key as Bearer token)',
    ).optional(),
    email: z.email().max(254).optional().meta({ description: 'Buyer contact; fills a contact_email input' }),
    inputs: z.record(z.string().max(64), InputValue).default({}).meta({
      description:
        'Inputs for the chosen service (catalogue `inputs`); text inputs such as description default to the objective',
    }),
  })
  .strict()
  .meta({ id: 'ProcurementRequest' });
export type ProcurementRequest = z.infer<typeof ProcurementRequest>;

/** A procurement outcome as `POST /api/v1/procure` and `GET /api/v1/procurements/{id}` show it. */
export const Procurement = z
  .object({
    procurement_id: z.string(),
    status: z.enum(['running', 'completed', 'planned', 'no_match', 'needs_inputs', 'payment_failed']),
    plan: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'What was understood, every candidate, the choice and the reasons' }),
    service: ServiceDefinition.nullable(),
    quote: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The binding quote (see Quote)' }),
    order: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'The order (see Order); paid when status is completed' }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Procurement' });

/** The procurement operations. */
export const procurementOperations = {
  procure: defineOperation({
    id: 'procure',
    method: 'post',
    path: '/api/v1/procure',
    summary: 'Goal-based procurement: plan, quote and (auto_purchase) order and pay from the agent wallet',
    description: "Buying (auto_purchase true) needs agent_id and that wallet's agent key.",
    auth: ['none', 'agent_key'],
    request: { body: ProcurementRequest },
    responses: {
      '201': {
        description: 'Completed (ordered and paid), or planned with a quote when auto_purchase is false',
        json: Procurement,
      },
      '202': { description: 'Still running; poll the Location', json: Procurement },
    },
    errors: {
      invalid_request: 'Invalid body, requirement or missing agent_id',
      insufficient_funds: 'The wallet is short; the order stays awaiting_payment',
      payment_failed: 'Payment failed; the order stays awaiting_payment',
      no_matching_service: 'No service matches (with `missing`)',
      no_service_available:
        'Only services this deployment cannot sell match (with `unavailable`: each service_id, its reason code and the missing settings)',
      missing_inputs: 'The chosen service needs inputs',
    },
    mcp: {
      name: 'procure',
      title: 'Procure for a goal',
      description:
        'Finds the service that meets an objective within a budget and, by default, buys it (POST /api/v1/procure).',
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      credential: 'agent_key',
    },
  }),
  get: defineOperation({
    id: 'getProcurement',
    method: 'get',
    path: '/api/v1/procurements/{procurement_id}',
    summary: 'A procurement and its outcome',
    auth: 'none',
    request: { params: z.object({ procurement_id: z.string().meta({ description: 'Procurement id (prc_...)' }) }) },
    responses: { '200': { description: 'Procurement', json: Procurement } },
    errors: { not_found: 'Unknown procurement' },
  }),
};
