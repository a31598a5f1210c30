/**
 * The service catalogue (seed §2.1) and the service's health (seed §4, issue 14). Operation definitions
 * (src/routes/operation.ts).
 */
import { z } from 'zod';
import { CatalogueEnvelope } from '../../../domain/catalogue';
import { defineOperation } from '../../operation';

const DependencyStatus = z.object({ status: z.enum(['up', 'down']) });
/** `GET /health`: each dependency's state. */
const Health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    dependencies: z.object({
      database: DependencyStatus,
      temporal: DependencyStatus.extend({ namespace: z.string() }),
    }),
    checked_in_ms: z.number().int(),
    time: z.string(),
  })
  .meta({ id: 'Health' });

/** The catalogue and health operations. */
export const catalogueOperations = {
  services: defineOperation({
    id: 'listServices',
    method: 'get',
    path: '/api/v1/services',
    summary: 'Service catalogue',
    auth: 'none',
    responses: {
      '200': { description: 'Catalogue', json: CatalogueEnvelope },
      '304': { description: 'Not modified: If-None-Match held the current ETag' },
    },
    mcp: {
      name: 'list_services',
      title: 'List services',
      description:
        'The service catalogue (GET /api/v1/services): agent prices, capabilities, negative constraints, payment rails, required inputs.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  }),
  health: defineOperation({
    id: 'getHealth',
    method: 'get',
    path: '/health',
    summary: 'Service health',
    auth: 'none',
    responses: {
      '200': { description: 'All dependencies up', json: Health },
      '503': { description: 'A dependency is down (Retry-After)', json: Health },
    },
  }),
};
