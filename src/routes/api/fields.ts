/**
 * Field builders the resource schemas share: ids, USD amounts with their integer micro-unit twins, RFC 3339 times.
 * Source: ../shared/reference/api-conventions.md (amounts, times).
 */
import { z } from 'zod';

/** An id chosen by a caller (service, agent, partner): letters, digits and `. _ : -`, at most 128. */
export const Id = (description: string) =>
  z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
    .meta({ description });
/** A USD amount as a number. */
export const Usd = (description: string) => z.number().meta({ description: `${description} (USD)` });
/** An amount in integer micro-units (1 USD = 1,000,000). */
export const Micros = (description: string) =>
  z
    .number()
    .int()
    .meta({ description: `${description} (integer micro-units, 1 USD = 1,000,000)` });
/** An RFC 3339 time. */
export const Time = (description: string) => z.string().meta({ description: `${description} (RFC 3339 time)` });

/** The path parameter `order_id` (an unknown or malformed id is a 404 `order_not_found` of the lookup). */
export const OrderPath = z.object({ order_id: z.string().min(1).max(128).meta({ description: 'Order id (ord_...)' }) });

/**
 * The refusals of an operation that sends the order's workflow a message, once that workflow has closed (issue 36,
 * src/temporal/closed.ts): `workflow_status` says how it ended, `current_status` the last order status known. A
 * completed workflow is `invalid_state_transition` with its final status.
 */
export const CLOSED_ORDER_ERRORS = {
  order_closed: "The order's workflow was terminated, failed, timed out or cancelled (workflow_status, current_status)",
  order_gone: "The order's workflow history is gone (deleted after its retention period)",
} as const;

/**
 * The answers of a deliverable download (an order's or a task's), streamed in the deliverable's own media type:
 * whole, one range (RFC 9110 §14), or not modified (issue 25 §2).
 */
export const DELIVERABLE_DOWNLOAD_RESPONSES = {
  '200': { description: 'The bytes' },
  '206': {
    description: 'The bytes of the one range asked for (`Range: bytes=…`, `If-Range`), with `Content-Range`',
  },
  '304': { description: '`If-None-Match` holds the ETag' },
} as const;
