/** The public form of one further task of a per-task order (issue 6 §3), shown by its routes. */
import type { z } from 'zod';
import type { TaskDoc } from '../../../db';
import { microsToUsd } from '../../../domain/money';
import type { TaskView } from './schema';

/** One task of a per-task order. */
export function taskView(t: TaskDoc, baseUrl: string): z.infer<typeof TaskView> {
  const self = `${baseUrl}/api/v1/orders/${t.order_id}/tasks/${t.number}`;
  return {
    order_id: t.order_id,
    task: t.number,
    status: t.status,
    inputs: t.inputs,
    amount: microsToUsd(t.amount_micros),
    amount_micros: t.amount_micros,
    charge: t.charge
      ? { transaction_id: t.charge.transaction_id, amount: microsToUsd(t.charge.amount_micros), at: t.charge.at }
      : null,
    deliverables: t.deliverables.map((d) => ({
      name: d.name,
      url: `${self}/deliverables/${encodeURIComponent(d.name)}`,
      sha256: d.sha256,
      size: d.size,
      media_type: d.media_type,
    })),
    refund: t.refund ? { ...t.refund, amount: microsToUsd(t.refund.amount_micros) } : null,
    failure: t.failure,
    requested_at: t.requested_at.toISOString(),
    completed_at: t.completed_at ? t.completed_at.toISOString() : null,
    links: { self },
  };
}
