/**
 * zod schemas of the long-running order endpoints (issue 6): engineer queue, buyer cancel, subscriptions, tasks.
 * They validate requests and describe the views in the OpenAPI document.
 */
import { z } from 'zod';

const Engineer = z.string().trim().min(1).max(100).meta({ description: 'Engineer name or id, as the operator team uses it' });
const Time = (description: string) => z.string().meta({ description: `${description} (RFC 3339 time)` });
const Reason = z.string().max(1000);

/** Body of `POST /api/v1/engineering/{order_id}/claim`. */
export const ClaimBody = z.object({
  engineer: Engineer,
  reassign: z.boolean().optional().meta({ description: 'Take over an order another engineer claimed' }),
});

/** JSON body of `POST /api/v1/engineering/{order_id}/deliverables` (the raw-body form carries these in the query). */
export const UploadJsonBody = z.object({
  engineer: Engineer,
  name: z.string().min(1).max(120).meta({ description: 'File name: lowercase letters, digits, . _ - ; unique within the order' }),
  media_type: z.string().min(1).max(200).default('application/octet-stream'),
  content_base64: z.string().min(1).meta({ description: 'The file, base64 (standard alphabet); the JSON body is limited to 256 kB, send larger files raw' }),
});

/** Query of the raw-body upload: `?engineer=...&name=...`; the media type is the request's Content-Type. */
export const UploadRawQuery = z.object({ engineer: Engineer, name: z.string().min(1).max(120) });

/** Body of `POST /api/v1/engineering/{order_id}/ready`. */
export const ReadyBody = z.object({ engineer: Engineer, note: z.string().max(4000).optional() });

/** Body of `POST /api/v1/orders/{order_id}/cancel` and `.../subscription/cancel`. */
export const CancelBody = z.object({ reason: Reason.optional() });

/** Body of `POST /api/v1/orders/{order_id}/subscription/invoices/{invoice_id}/pay`. */
export const PayInvoiceBody = z.object({
  transaction_id: z.string().min(1).max(200).meta({ description: 'Hosted-link (linkpay_ncp) transaction bound to the invoice id, for its exact amount' }),
});

/** Body of `POST /api/v1/orders/{order_id}/tasks` (task-worker inputs, seed §2.1). */
export const TaskBody = z.object({
  task_prompt: z.string().trim().min(1).max(20_000),
  format: z.enum(['json', 'markdown', 'text']).optional(),
});

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

const Charge = z.object({
  period: z.number().int(),
  attempt: z.number().int(),
  status: z.enum(['paid', 'failed', 'invoiced']),
  amount: z.number(),
  amount_micros: z.number().int(),
  rail: z.string(),
  transaction_id: z.string().nullable(),
  failure: z.string().nullable(),
  invoice_id: z.string().nullable(),
  due_at: z.string().nullable(),
  at: z.string(),
});

/** A subscription as `GET /api/v1/orders/{order_id}` (field `subscription`) shows it. */
export const SubscriptionView = z
  .object({
    status: z.enum(['active', 'past_due', 'cancelled', 'suspended']),
    rail: z.string(),
    amount: z.number().meta({ description: 'Price per month (USD)' }),
    amount_micros: z.number().int(),
    current_period: z.object({ number: z.number().int(), start: z.string(), end: z.string() }),
    next_charge_at: z.string().nullable(),
    cancel_at_period_end: z.boolean(),
    cancel_reason: z.string().nullable(),
    ended_at: z.string().nullable(),
    dunning: z.object({ retries_done: z.number().int(), next_retry_at: z.string().nullable() }).nullable(),
    open_invoice: z
      .object({ invoice_id: z.string(), period: z.number().int(), amount: z.number(), amount_micros: z.number().int(), due_at: z.string(), pay_url: z.string() })
      .nullable(),
    past_charges: z.array(Charge),
    links: z.object({ cancel: z.string() }),
  })
  .meta({ id: 'Subscription' });

/** One further task of a per-task order. */
export const TaskView = z
  .object({
    order_id: z.string(),
    task: z.number().int(),
    status: z.enum(['running', 'delivered', 'payment_failed', 'failed']),
    inputs: z.record(z.string(), z.unknown()),
    amount: z.number(),
    amount_micros: z.number().int(),
    charge: z.object({ transaction_id: z.string(), amount: z.number(), at: z.string() }).nullable(),
    deliverables: z.array(z.object({ name: z.string(), url: z.string(), sha256: z.string(), size: z.number().int(), media_type: z.string() })),
    refund: z.record(z.string(), z.unknown()).nullable(),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    requested_at: z.string(),
    completed_at: z.string().nullable(),
    links: z.object({ self: z.string() }),
  })
  .meta({ id: 'Task' });
