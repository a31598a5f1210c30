/**
 * zod schemas of the agent self-service endpoints (discover, negotiate, procure, partner commissions, trust status):
 * they validate requests and generate their part of the OpenAPI document. Amounts are USD numbers with integer
 * `*_micros` twins.
 *
 * Source: seed §2.7, §2.8, §2.11, §4, §8; issue 4.
 */
import { z } from 'zod';
import { isUsdAmount } from '../domain/money';
import { ServiceDefinition } from '../domain/catalogue';
import { DISCOVERY_FILTERS } from '../domain/discovery';

const Id = (description: string) =>
  z.string().min(1).max(128).regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only').meta({ description });
const Usd = (description: string) => z.number().meta({ description: `${description} (USD)` });
const Micros = (description: string) => z.number().int().meta({ description: `${description} (integer micro-units, 1 USD = 1,000,000)` });

/** One discovery result: the service, the price compared with budget_max and why each filter let it through. */
export const DiscoveryResult = ServiceDefinition.extend({
  price: Usd('Price for the buyer kind compared with budget_max'),
  matched_because: z
    .partialRecord(z.enum(DISCOVERY_FILTERS), z.string())
    .meta({ description: 'For every filter given, why this service passed it' }),
}).meta({ id: 'DiscoveryResult' });

/** Body of `GET /api/v1/discover`. */
export const DiscoveryResponse = z
  .object({
    count: z.number().int(),
    filters: z.record(z.string(), z.unknown()).meta({ description: 'The filters as understood (normalised)' }),
    services: z.array(DiscoveryResult),
  })
  .meta({ id: 'DiscoveryResponse' });

/** Body of `POST /api/v1/capabilities/negotiate` (seed §2.7). */
export const NegotiationRequest = z
  .object({
    required_capabilities: z
      .array(z.string().min(1).max(64))
      .min(1, 'give at least one capability')
      .max(50)
      .meta({ description: 'Capability tags the agent needs (free spelling: case, spaces and hyphens are normalised)' }),
  })
  .strict()
  .meta({ id: 'NegotiationRequest' });

/** Answer of the negotiation. */
export const NegotiationResponse = z
  .object({
    required_capabilities: z.array(z.string()).meta({ description: 'Normalised and de-duplicated' }),
    matches: z.array(
      z.object({
        service_id: z.string(),
        name: z.string(),
        agent_price: Usd('Agent price'),
        coverage: z.number().meta({ description: 'Share of the required capabilities covered, 0 to 1' }),
        fully_covered: z.boolean(),
        covered: z.array(z.string()),
        missing: z.array(z.string()),
        matched_tags: z.record(z.string(), z.array(z.string())).meta({ description: 'Service tags each covered capability matched' }),
      }),
    ),
    excluded: z.array(z.object({ service_id: z.string(), name: z.string(), conflicts: z.array(z.string()), reason: z.string() })),
    unmatched: z.array(z.string()).meta({ description: 'Services covering none of the required capabilities' }),
  })
  .meta({ id: 'NegotiationResponse' });

const InputValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)]);

/** Body of `POST /api/v1/procure` (seed §2.8 with its defaults, §8; plus `inputs` for the chosen service). */
export const ProcurementRequest = z
  .object({
    objective: z.string().max(2000).optional().meta({ description: 'What the agent wants, in words; see README "Procurement" for how it is read' }),
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
    requirements: z
      .array(z.string().min(1).max(200))
      .max(50)
      .default([])
      .meta({ description: 'Hard requirements: capability tags or words, or `filter:value` (language, region, billing, automation, payment_rail, max_fulfillment, min_sla)' }),
    auto_purchase: z.boolean().default(true).meta({ description: 'Order and pay from the agent wallet (default true); false returns the plan and a quote' }),
    agent_id: Id('Buying agent; its wallet pays (required when auto_purchase is true, with its key as Bearer token)').optional(),
    email: z.email().max(254).optional().meta({ description: 'Buyer contact; fills a contact_email input' }),
    inputs: z
      .record(z.string().max(64), InputValue)
      .default({})
      .meta({ description: 'Inputs for the chosen service (catalogue `inputs`); text inputs such as description default to the objective' }),
  })
  .strict()
  .meta({ id: 'ProcurementRequest' });
export type ProcurementRequest = z.infer<typeof ProcurementRequest>;

/** A procurement outcome as `POST /api/v1/procure` and `GET /api/v1/procurements/{id}` show it. */
export const Procurement = z
  .object({
    procurement_id: z.string(),
    status: z.enum(['running', 'completed', 'planned', 'no_match', 'needs_inputs', 'payment_failed']),
    plan: z.record(z.string(), z.unknown()).nullable().meta({ description: 'What was understood, every candidate, the choice and the reasons' }),
    service: ServiceDefinition.nullable(),
    quote: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The binding quote (see Quote)' }),
    order: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The order (see Order); paid when status is completed' }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Procurement' });

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
      owed_micros: Micros('Still owed back: reversals the balance could not cover, less what later commissions paid off'),
      net: Usd('credited - reversed'),
      net_micros: Micros('credited - reversed'),
    }),
    commissions: z.array(
      z.object({
        id: z.string(),
        order_id: z.string(),
        period: z.string().nullable(),
        status: z.enum(['pending', 'credited', 'cancelled', 'reversed', 'reversal_owed', 'not_eligible']).meta({
          description: 'pending until the order is final; credited; cancelled (refunded while pending); reversed / reversal_owed (credited, then refunded); not_eligible (never paid: reason)',
        }),
        reason: z.string().nullable(),
        payment: Usd('Payment received'),
        payment_micros: Micros('Payment received'),
        percent: z.number(),
        commission: Usd('Commission'),
        commission_micros: Micros('Commission'),
        debt_offset_micros: Micros('Part of the commission that paid off what the partner owed instead of reaching its wallet'),
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

/** Trust telemetry (seed §2.11): only measured values and declared targets, never invented ones. */
export const TrustStatus = z
  .object({
    generated_at: z.string(),
    uptime: z.record(z.string(), z.unknown()),
    latency: z.record(z.string(), z.unknown()),
    orders: z.record(z.string(), z.unknown()),
    fulfillment: z.record(z.string(), z.unknown()),
    sla: z.record(z.string(), z.unknown()),
  })
  .catchall(z.unknown())
  .meta({ id: 'TrustStatus' });
