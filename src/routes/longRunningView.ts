/**
 * Public views of the long-running parts of an order (issue 6): `engineering` (expert delivery), `subscription`
 * (monthly billing) and `tasks` (per-task billing), added to `GET /api/v1/orders/{order_id}` where they apply.
 */
import type { z } from 'zod';
import { getService } from '../domain/catalogue';
import { isPerTaskService } from '../domain/longRunning';
import { microsToUsd } from '../domain/money';
import type { OrderDoc, SubscriptionDoc, TaskDoc } from '../db';
import { SubscriptionRepository } from '../repos/subscriptions';
import { TaskRepository } from '../repos/tasks';
import type { AppDeps } from './context';
import type { OrderState } from '../../workflows/shared';
import type { EngineeringView } from './api/engineering/schema';
import type { SubscriptionView } from './api/subscriptions/schema';
import type { TaskView } from './api/tasks/schema';
import { orderView } from './orders';

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

/** A subscription with its charge log (`past_charges`, oldest first). */
export function subscriptionView(s: SubscriptionDoc, baseUrl: string): z.infer<typeof SubscriptionView> {
  const self = `${baseUrl}/api/v1/orders/${s.order_id}/subscription`;
  return {
    status: s.status,
    rail: s.rail,
    amount: microsToUsd(s.amount_micros),
    amount_micros: s.amount_micros,
    current_period: s.current_period,
    next_charge_at: s.next_charge_at,
    cancel_at_period_end: s.cancel_at_period_end,
    cancel_reason: s.cancel_reason,
    ended_at: s.ended_at,
    dunning: s.dunning,
    open_invoice: s.open_invoice
      ? {
          ...s.open_invoice,
          amount: microsToUsd(s.open_invoice.amount_micros),
          pay_url: `${self}/invoices/${s.open_invoice.invoice_id}/pay`,
        }
      : null,
    past_charges: s.charges.map((c) => ({ ...c, amount: microsToUsd(c.amount_micros) })),
    links: { cancel: `${self}/cancel` },
  };
}

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

/**
 * The long-running members of an order's view: `engineering` for expert orders that reached the queue,
 * `subscription` (null until it starts at delivery) for monthly services, `tasks` for per-task services.
 */
export async function longRunningView(deps: AppDeps, doc: OrderDoc): Promise<Record<string, unknown>> {
  const base = deps.config.PUBLIC_BASE_URL;
  const out: Record<string, unknown> = {};
  const engineering = engineeringView(doc, base);
  if (engineering) out.engineering = engineering;
  if (doc.billing === 'monthly') {
    const s = await new SubscriptionRepository(deps.services.db).get(doc._id);
    out.subscription = s ? subscriptionView(s, base) : null;
  }
  const service = getService(doc.service_id);
  if (service && isPerTaskService(service)) {
    const tasks = await new TaskRepository(deps.services.db).list(doc._id);
    out.tasks = {
      submit_url: `${base}/api/v1/orders/${doc._id}/tasks`,
      price: microsToUsd(doc.amount_micros),
      items: tasks.map((t) => ({
        task: t.number,
        status: t.status,
        url: `${base}/api/v1/orders/${doc._id}/tasks/${t.number}`,
      })),
    };
  }
  return out;
}

/** An order answered after an Update (`state`, fresher than the read model for a moment) with its long-running members. */
export async function orderWithLongRunning(
  deps: AppDeps,
  doc: OrderDoc,
  state: OrderState,
): Promise<Record<string, unknown>> {
  const fresh = (await deps.services.orders.get(doc._id)) ?? doc;
  return { ...orderView(fresh, deps, state), ...(await longRunningView(deps, fresh)) };
}
