/**
 * Trust telemetry (seed §2.11, §4; issue 4 §5). Schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';

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

/** The trust operations. */
export const trustOperations = {
  status: defineOperation({
    id: 'getTrustStatus',
    method: 'get',
    path: '/api/v1/trust/status',
    summary: 'Measured uptime, latency, orders and fulfillment beside the declared SLA targets',
    auth: 'none',
    responses: { '200': { description: 'Trust telemetry', json: TrustStatus } },
    mcp: {
      name: 'trust_status',
      title: 'Trust status',
      description: 'Live performance and uptime telemetry and the declared SLA targets (GET /api/v1/trust/status).',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  }),
};
