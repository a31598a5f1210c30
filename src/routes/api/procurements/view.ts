/**
 * The public form of a procurement (seed §2.8; issue 4 §3): its outcome, from the workflow's result or the stored
 * record, with its service, quote and order rendered as their own endpoints show them.
 */
import { getService, serviceView } from '../../../domain/catalogue';
import type { ProcurementDoc } from '../../../db';
import type { ProcurementResult } from '../../../domain/procurement';
import type { AppDeps } from '../../context';
import { orderView } from '../orders/view';
import { signedQuoteView } from '../quotes/view';

/** The parts of a procurement the API shows, from the workflow's result or the stored record. */
export interface Outcome {
  procurementId: string;
  status: ProcurementDoc['status'];
  plan: Record<string, unknown> | null;
  serviceId: string | null;
  quoteId: string | null;
  orderId: string | null;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
}

/** The outcome of a finished procurement workflow. */
export const fromResult = (r: ProcurementResult): Outcome => ({
  procurementId: r.procurementId,
  status: r.status,
  plan: r.plan as unknown as Record<string, unknown>,
  serviceId: r.serviceId,
  quoteId: r.quoteId,
  orderId: r.orderId,
  failure: r.failure ?? null,
});

/** The outcome of a stored procurement. */
export const fromDoc = (d: ProcurementDoc): Outcome => ({
  procurementId: d._id,
  status: d.status,
  plan: d.plan,
  serviceId: d.service_id,
  quoteId: d.quote_id,
  orderId: d.order_id,
  failure: d.failure,
});

/** Public form of a procurement with its service, quote and order rendered as their own endpoints show them. */
export async function procurementView(deps: AppDeps, o: Outcome) {
  const base = deps.config.PUBLIC_BASE_URL;
  const service = o.serviceId ? getService(o.serviceId) : undefined;
  const quote = o.quoteId ? await deps.services.quotes.get(o.quoteId) : null;
  const order = o.orderId ? await deps.services.orders.get(o.orderId) : null;
  return {
    procurement_id: o.procurementId,
    status: o.status,
    plan: o.plan,
    service: service ? serviceView(service, base) : null,
    quote: quote ? await signedQuoteView(deps, quote) : null,
    order: order ? orderView(order, deps) : null,
    failure: o.failure ? { code: o.failure.code, message: o.failure.message } : null,
    links: {
      self: `${base}/api/v1/procurements/${o.procurementId}`,
      ...(order ? { order: `${base}/api/v1/orders/${order._id}` } : {}),
    },
  };
}
