/**
 * Discovery and capability negotiation (seed §2.7, §4; issue 4): pure reads of the catalogue. Schemas and operation
 * definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { ServiceDefinition } from '../../../domain/catalogue';
import { DISCOVERY_FILTERS, DiscoveryQuery, UNAVAILABLE_REASONS } from '../../../domain/discovery';
import { defineOperation } from '../../operation';
import { Usd } from '../fields';

/** Whether this deployment can sell a service now, and why not (issue 24 §5). */
const availability = {
  available: z.boolean().meta({
    description:
      'False when this deployment cannot sell the service now (ordering it answers 422 with `unavailable_reason` as the code)',
  }),
  unavailable_reason: z.enum(UNAVAILABLE_REASONS).nullable().meta({
    description:
      'Why it cannot be sold here, null when it can. `text_generation_unavailable`: the service is written by a language model and none is configured.',
  }),
};

/**
 * One discovery result: the service, the price compared with budget_max, why each filter let it through, and whether
 * this deployment can sell it.
 */
export const DiscoveryResult = ServiceDefinition.extend({
  price: Usd('Price for the buyer kind compared with budget_max'),
  matched_because: z
    .partialRecord(z.enum(DISCOVERY_FILTERS), z.string())
    .meta({ description: 'For every filter given, why this service passed it' }),
  ...availability,
}).meta({ id: 'DiscoveryResult' });

/** Body of `GET /api/v1/discover`. */
export const DiscoveryResponse = z
  .object({
    count: z.number().int().meta({ description: 'Services matching the filters, available here or not' }),
    available_count: z.number().int().meta({ description: 'Of those, the services this deployment can sell now' }),
    filters: z.record(z.string(), z.unknown()).meta({ description: 'The filters as understood (normalised)' }),
    services: z.array(DiscoveryResult),
  })
  .meta({ id: 'DiscoveryResponse' });

/** Body of `POST /api/v1/capabilities/negotiate` (seed §2.7). */
export const NegotiationRequest = z
  .object({
    required_capabilities: z.array(z.string().min(1).max(64)).min(1, 'give at least one capability').max(50).meta({
      description: 'Capability tags the agent needs (free spelling: case, spaces and hyphens are normalised)',
    }),
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
        matched_tags: z
          .record(z.string(), z.array(z.string()))
          .meta({ description: 'Service tags each covered capability matched' }),
        ...availability,
      }),
    ),
    excluded: z.array(
      z.object({ service_id: z.string(), name: z.string(), conflicts: z.array(z.string()), reason: z.string() }),
    ),
    unmatched: z.array(z.string()).meta({ description: 'Services covering none of the required capabilities' }),
  })
  .meta({ id: 'NegotiationResponse' });

const read = { readOnlyHint: true, openWorldHint: false } as const;

/** The discovery operations. */
export const discoveryOperations = {
  discover: defineOperation({
    id: 'discoverServices',
    method: 'get',
    path: '/api/v1/discover',
    summary:
      'Find services by capability, budget, billing, automation, language, region, rail, fulfillment time and SLA',
    description:
      'Every filter is optional; all given filters must match. Each result says why it matched (`matched_because`) and whether this deployment can sell it now (`available`, `unavailable_reason`). See README "Discovery" for the exact meaning of each filter.',
    auth: 'none',
    request: { query: DiscoveryQuery },
    responses: {
      '200': { description: 'Matching services in catalogue order', json: DiscoveryResponse },
      '304': { description: 'Not modified: If-None-Match held the current ETag' },
    },
    errors: { invalid_request: 'Invalid or unknown parameter (named in `param`)' },
    mcp: {
      name: 'discover_services',
      title: 'Discover services',
      description:
        'Services matching filters (GET /api/v1/discover): capability, budget_max, billing, automation, language, region, payment_rail, max_fulfillment, min_sla, buyer. Values are query-string values (strings).',
      annotations: read,
    },
  }),
  negotiate: defineOperation({
    id: 'negotiateCapabilities',
    method: 'post',
    path: '/api/v1/capabilities/negotiate',
    summary: 'Rank services by coverage of the required capabilities',
    auth: 'none',
    request: { body: NegotiationRequest },
    responses: {
      '200': {
        description:
          'Matches by coverage then price; services whose negative constraints conflict are listed in `excluded`',
        json: NegotiationResponse,
      },
    },
    errors: { invalid_request: 'Missing or empty required_capabilities' },
    mcp: {
      name: 'negotiate_capabilities',
      title: 'Negotiate capabilities',
      description:
        'Services covering the required capabilities, sorted by coverage (POST /api/v1/capabilities/negotiate).',
      annotations: read,
    },
  }),
};
