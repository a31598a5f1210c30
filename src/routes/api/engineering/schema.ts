/**
 * Expert delivery (issue 6 §1): operators (operator key) work the engineer queue: list, claim, upload deliverables,
 * mark ready. Schemas and operation definitions (src/routes/operation.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../operation';
import { CLOSED_ORDER_ERRORS, OrderPath, Time } from '../fields';

const Engineer = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .meta({ description: 'Engineer name or id, as the operator team uses it' });
const anyObject = z.record(z.string(), z.unknown());

/** Body of `POST /api/v1/engineering/{order_id}/claim`. */
export const ClaimBody = z.object({
  engineer: Engineer,
  reassign: z.boolean().optional().meta({ description: 'Take over an order another engineer claimed' }),
});

/** JSON body of `POST /api/v1/engineering/{order_id}/deliverables` (the raw-body form carries these in the query). */
export const UploadJsonBody = z.object({
  engineer: Engineer,
  name: z
    .string()
    .min(1)
    .max(120)
    .meta({ description: 'File name: lowercase letters, digits, . _ - ; unique within the order' }),
  media_type: z.string().min(1).max(200).default('application/octet-stream'),
  content_base64: z.string().min(1).meta({
    description: 'The file, base64 (standard alphabet); the JSON body is limited to 256 kB, send larger files raw',
  }),
});

/** Query of the raw-body upload: `?engineer=...&name=...`; the media type is the request's Content-Type. */
export const UploadRawQuery = z.object({ engineer: Engineer, name: z.string().min(1).max(120) });

/** Body of `POST /api/v1/engineering/{order_id}/ready`. */
export const ReadyBody = z.object({ engineer: Engineer, note: z.string().max(4000).optional() });

/** The engineering part of an expert-delivery order as the buyer sees it. */
export const EngineeringView = z
  .object({
    queue: z.literal('expert'),
    assigned_at: Time('Put in the engineer queue'),
    engineer: z.string().nullable(),
    claimed_at: z.string().nullable(),
    sla_deadline: Time('Payment + max_fulfillment_hours'),
    escalate_at: Time('80% of the SLA'),
    escalated_at: z.string().nullable(),
    breached_at: z.string().nullable(),
    uploads: z.number().int().meta({ description: 'Files the engineer uploaded so far' }),
    ready_at: z.string().nullable(),
    note: z.string().nullable(),
    can_cancel: z.boolean().meta({ description: 'True past the SLA: POST links.cancel for a full refund' }),
    links: z.object({ cancel: z.string() }),
  })
  .meta({ id: 'Engineering' });

const conflict = {
  invalid_state_transition: 'Wrong state',
  already_claimed: 'Claimed by another engineer',
  engineering_not_claimed: 'Not the claimer',
  deliverable_conflict: 'Name taken',
  no_deliverables: 'Nothing uploaded',
  ...CLOSED_ORDER_ERRORS,
} as const;

/** The engineer queue operations. */
export const engineeringOperations = {
  queue: defineOperation({
    id: 'listEngineeringQueue',
    method: 'get',
    path: '/api/v1/engineering/queue',
    summary: 'Expert-delivery orders waiting for an engineer, most urgent SLA first (operator)',
    auth: 'operator',
    request: { query: z.object({ engineer: z.string().optional(), unclaimed: z.enum(['true', 'false']).optional() }) },
    responses: {
      '200': { description: 'Queue', json: z.object({ count: z.number().int(), items: z.array(anyObject) }) },
    },
  }),
  claim: defineOperation({
    id: 'claimEngineering',
    method: 'post',
    path: '/api/v1/engineering/{order_id}/claim',
    summary: 'An engineer claims the order (operator; claimEngineering Update)',
    auth: 'operator',
    request: { params: OrderPath, body: ClaimBody },
    responses: { '200': { description: 'The order', json: anyObject } },
    errors: { order_not_found: 'Unknown order', ...conflict },
  }),
  upload: defineOperation({
    id: 'uploadEngineeringDeliverable',
    method: 'post',
    path: '/api/v1/engineering/{order_id}/deliverables',
    summary: 'Upload one deliverable (operator): JSON with base64 content, or the raw file with ?engineer=&name=',
    auth: 'operator',
    request: {
      params: OrderPath,
      query: UploadRawQuery.partial(),
      body: UploadJsonBody,
      content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
    },
    responses: {
      '201': {
        description: 'Stored and recorded',
        json: z.object({ order_id: z.string(), deliverable: anyObject, uploads: z.array(anyObject) }),
      },
    },
    errors: {
      invalid_request: 'Bad name or content',
      order_not_found: 'Unknown order',
      payload_too_large: 'Larger than 25 MB',
      ...conflict,
    },
  }),
  ready: defineOperation({
    id: 'markEngineeringReady',
    method: 'post',
    path: '/api/v1/engineering/{order_id}/ready',
    summary: 'The engineer marks the order ready: delivered, review window opens (operator; markReady Update)',
    auth: 'operator',
    request: { params: OrderPath, body: ReadyBody },
    responses: { '200': { description: 'The delivered order', json: anyObject } },
    errors: { order_not_found: 'Unknown order', ...conflict },
  }),
};
