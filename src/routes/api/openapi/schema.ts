/**
 * The OpenAPI document itself (issue 10 §5), built from every operation's definition (src/routes/openapi.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';

/** The document operation. */
export const openApiOperations = {
  document: defineOperation({
    id: 'getOpenApiDocument',
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document (OpenAPI 3.1)',
    auth: 'none',
    responses: { '200': { description: 'The OpenAPI document', json: z.record(z.string(), z.unknown()) } },
  }),
};
