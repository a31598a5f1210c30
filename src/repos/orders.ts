import { isDuplicateKey, type Database, type OrderDoc } from '../db';
import { orderWorkflowId, type OrderStatus, type OrderWorkflowInput } from '../../workflows/shared';

/** Fields a transition may set besides the status. */
export type OrderPatch = Partial<Pick<OrderDoc, 'payment' | 'deliverables' | 'review' | 'refund' | 'failure' | 'engineering'>>;

/**
 * The order read model. The API inserts it when it starts the workflow and the workflow's activities insert it
 * again (idempotently) and apply each transition, so no order exists without its workflow's record.
 */
export class OrderRepository {
  constructor(private readonly d: Database) {}

  /** Inserts the order if absent; a second call with the same id changes nothing. */
  async ensure(doc: OrderDoc): Promise<void> {
    try {
      await this.d.orders.insertOne(doc);
    } catch (err) {
      if (!(isDuplicateKey(err))) throw err;
    }
  }

  /** The order or null. */
  get(orderId: string): Promise<OrderDoc | null> {
    return this.d.orders.findOne({ _id: orderId });
  }

  /**
   * Applies transition number `version` (1-based, in workflow order). A retried write of an applied version is a
   * no-op, and an old write never overwrites a newer state. Returns true when it changed the document.
   */
  async applyTransition(orderId: string, version: number, status: OrderStatus, at: string, patch: OrderPatch = {}): Promise<boolean> {
    const res = await this.d.orders.updateOne(
      { _id: orderId, version: { $lt: version } },
      {
        $set: { ...patch, status, version, updated_at: new Date(at) },
        $push: { progress: { status, at } },
      },
    );
    return res.modifiedCount === 1;
  }

  /** Sets fields without a transition (e.g. a refund recorded while the status stays). */
  async patch(orderId: string, patch: OrderPatch): Promise<void> {
    await this.d.orders.updateOne({ _id: orderId }, { $set: { ...patch, updated_at: new Date() } });
  }
}

/**
 * The initial read-model document of an order: status awaiting_payment, version 1. Built the same way by the API
 * and by the workflow's first activity, so whichever writes first, the record is identical.
 */
export function initialOrderDoc(input: OrderWorkflowInput): OrderDoc {
  const r = input.record;
  return {
    _id: input.orderId,
    workflow_id: orderWorkflowId(input.orderId),
    service_id: input.serviceId,
    quote_id: r.quote_id,
    agent_id: r.agent_id,
    email: r.email,
    webhook_url: r.webhook_url,
    partner_id: r.partner_id,
    inputs: input.inputs,
    amount_micros: input.amountMicros,
    currency: input.currency,
    billing: r.billing,
    is_agent: r.is_agent,
    rails: input.rails,
    status: 'awaiting_payment',
    version: 1,
    progress: [{ status: 'awaiting_payment', at: r.created_at }],
    payment: null,
    deliverables: [],
    review: null,
    refund: null,
    failure: null,
    payment_deadline: new Date(r.payment_deadline),
    created_at: new Date(r.created_at),
    updated_at: new Date(r.created_at),
  };
}
