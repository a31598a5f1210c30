/**
 * OpenAPI operations of the agent self-service endpoints (issue 4), from the same zod schemas that validate them.
 * Merged into the document by src/routes/openapi.ts, which passes its response helpers.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { DiscoveryQuery } from '../domain/discovery';
import { CommissionList, DiscoveryResponse, NegotiationRequest, NegotiationResponse, Procurement, ProcurementRequest, TrustStatus } from './agentSchemas';

/** The helpers openapi.ts builds operations with. */
export interface OpenApiHelpers {
  op(o: ZodOpenApiOperationObject & { responses: ZodOpenApiResponsesObject }): ZodOpenApiOperationObject;
  json(schema: z.ZodType): { content: { 'application/json': { schema: z.ZodType } } };
  problem(description: string): ZodOpenApiResponseObject;
}

const bearer = (description: string) => z.object({ Authorization: z.string().optional().meta({ description }) });

/** Paths of discover, negotiate, procure, procurements, partner commissions and trust status. */
export function agentOpenApiPaths({ op, json, problem }: OpenApiHelpers): ZodOpenApiPathsObject {
  return {
    '/api/v1/discover': {
      get: op({
        summary: 'Find services by capability, budget, billing, automation, language, region, rail, fulfillment time and SLA',
        description: 'Every filter is optional; all given filters must match. Each result says why it matched (`matched_because`). See README "Discovery" for the exact meaning of each filter.',
        requestParams: { query: DiscoveryQuery },
        responses: { '200': { description: 'Matching services in catalogue order', ...json(DiscoveryResponse) }, '304': { description: 'Not modified: If-None-Match held the current ETag' }, '400': problem('Invalid or unknown parameter (named in `param`)') },
      }),
    },
    '/api/v1/capabilities/negotiate': {
      post: op({
        summary: 'Rank services by coverage of the required capabilities',
        requestBody: json(NegotiationRequest),
        responses: {
          '200': { description: 'Matches by coverage then price; services whose negative constraints conflict are listed in `excluded`', ...json(NegotiationResponse) },
          '400': problem('Missing or empty required_capabilities'),
        },
      }),
    },
    '/api/v1/procure': {
      post: op({
        summary: 'Goal-based procurement: plan, quote and (auto_purchase) order and pay from the agent wallet',
        requestParams: { header: bearer('Bearer agent key of agent_id\'s wallet (required when auto_purchase is true)') },
        requestBody: json(ProcurementRequest),
        responses: {
          '201': { description: 'Completed (ordered and paid), or planned with a quote when auto_purchase is false', ...json(Procurement) },
          '202': { description: 'Still running; poll the Location', ...json(Procurement) },
          '400': problem('Invalid body, requirement or missing agent_id'),
          '401': problem('Agent key missing'),
          '402': problem('Payment failed (insufficient_funds / payment_failed); the order stays awaiting_payment'),
          '403': problem('Wrong agent key'),
          '422': problem('No service matches (no_matching_service, with `missing`), or the chosen service needs inputs (missing_inputs)'),
        },
      }),
    },
    '/api/v1/procurements/{procurement_id}': {
      get: op({
        summary: 'A procurement and its outcome',
        requestParams: { path: z.object({ procurement_id: z.string().meta({ description: 'Procurement id (prc_...)' }) }) },
        responses: { '200': { description: 'Procurement', ...json(Procurement) }, '404': problem('Unknown procurement') },
      }),
    },
    '/api/v1/partners/{partner_id}/commissions': {
      get: op({
        summary: 'A partner\'s commissions (20% of every payment received on quotes naming it), with totals',
        description:
          'Pending until the order is final (accepted by the buyer or after the review window), then credited; cancelled ' +
          'when the payment is refunded; renewals are credited when paid. Self-referrals are not_eligible (issue 10 §3).',
        requestParams: {
          path: z.object({ partner_id: z.string().meta({ description: 'Partner id = its wallet id' }) }),
          header: bearer('Bearer agent key of the wallet partner_id, or the operator key'),
        },
        responses: { '200': { description: 'Commissions, newest first', ...json(CommissionList) }, '401': problem('Key missing'), '403': problem('Wrong key') },
      }),
    },
    '/api/v1/trust/status': {
      get: op({
        summary: 'Measured uptime, latency, orders and fulfillment beside the declared SLA targets',
        responses: { '200': { description: 'Trust telemetry', ...json(TrustStatus) } },
      }),
    },
  };
}
