/**
 * The public form of an expert order's engineering state (issue 6 §1), part of the order's view
 * (src/routes/api/orders/view.ts).
 */
import type { z } from 'zod';
import type { OrderDoc } from '../../../db';
import type { EngineeringView } from './schema';

/** The buyer's view of an expert order's engineering state. */
export function engineeringView(doc: OrderDoc, baseUrl: string): z.infer<typeof EngineeringView> | null {
  const e = doc.engineering;
  if (!e) return null;
  return {
    queue: e.queue,
    assigned_at: e.assigned_at,
    engineer: e.engineer,
    claimed_at: e.claimed_at,
    sla_deadline: e.sla_deadline,
    escalate_at: e.escalate_at,
    escalated_at: e.escalated_at,
    breached_at: e.breached_at,
    uploads: e.uploads.length,
    ready_at: e.ready_at,
    note: e.note,
    can_cancel: doc.status === 'sla_breached',
    links: { cancel: `${baseUrl}/api/v1/orders/${doc._id}/cancel` },
  };
}
