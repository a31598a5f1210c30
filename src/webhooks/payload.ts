/**
 * The body of a webhook delivery (Standard Webhooks payload `{type, timestamp, data}`), fixed when an event is fanned
 * out so that every attempt sends the same bytes.
 *
 * Source: ../shared/reference/api-conventions.md (Webhooks), issue 5 §2.
 */
import type { EventDoc, OrderDoc } from '../db';
import { microsToUsd } from '../domain/money';

/** `data` of an order event: ids, the status entered, the per-order sequence number and the order as it then was. */
export interface OrderEventData {
  event_id: string;
  order_id: string;
  /** Per-order sequence number, from 1 (order.created); receivers order events by it. */
  seq: number;
  status: string;
  order: Record<string, unknown> | null;
  /** Facts of events that are not a status change (SLA escalation, subscription renewals, tasks; issue 6). */
  details?: Record<string, unknown>;
}

/** The delivered JSON document. `timestamp` is the event's time (RFC 3339), not the attempt's. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: OrderEventData | Record<string, unknown>;
}

/** A compact public snapshot of an order (the fields `GET /api/v1/orders/{id}` shows that matter to a receiver). */
export function orderSnapshot(doc: OrderDoc, publicBaseUrl: string): Record<string, unknown> {
  const self = `${publicBaseUrl}/api/v1/orders/${doc._id}`;
  return {
    order_id: doc._id,
    service_id: doc.service_id,
    status: doc.status,
    amount: microsToUsd(doc.amount_micros),
    amount_micros: doc.amount_micros,
    currency: doc.currency,
    agent_id: doc.agent_id,
    quote_id: doc.quote_id,
    progress: doc.progress,
    payment: doc.payment
      ? {
          rail: doc.payment.rail,
          transaction_id: doc.payment.transaction_id,
          amount: microsToUsd(doc.payment.amount_micros),
          paid_at: doc.payment.paid_at,
        }
      : null,
    deliverables: doc.deliverables.map((d) => ({
      name: d.name,
      sha256: d.sha256,
      size: d.size,
      media_type: d.media_type,
      url: `${self}/deliverables/${encodeURIComponent(d.name)}`,
    })),
    review: doc.review,
    refund: doc.refund ? { ...doc.refund, amount: microsToUsd(doc.refund.amount_micros) } : null,
    failure: doc.failure,
    links: { self, verification: `${self}/verification` },
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

/**
 * Builds the payload of an event; `order` is the read model right after the event's transition (null if absent).
 * A stream that is not an order (id not `ord_...`, e.g. a procurement) gets the event's own data plus `event_id`,
 * `stream_id` and `seq`.
 */
export function buildPayload(event: EventDoc, order: OrderDoc | null, publicBaseUrl: string): WebhookPayload {
  // Order ids start with ord_; other streams (a procurement) carry their own data.
  if (!order && !event.order_id.startsWith('ord_')) {
    return {
      type: event.type,
      timestamp: event.created_at.toISOString(),
      data: { ...event.data, event_id: event._id, stream_id: event.order_id, seq: event.seq },
    };
  }
  const status = typeof event.data.status === 'string' ? event.data.status : (order?.status ?? '');
  return {
    type: event.type,
    timestamp: event.created_at.toISOString(),
    data: {
      event_id: event._id,
      order_id: event.order_id,
      seq: event.seq,
      status,
      order: order ? orderSnapshot(order, publicBaseUrl) : null,
      ...(isRecord(event.data.details) ? { details: event.data.details } : {}),
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
