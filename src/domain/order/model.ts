/**
 * The order model (issue 27 §3): what an order is, what it records, and the requests that change it. Types and pure
 * data only, shared by the workflows that enforce the state machine (workflows/order.ts, workflows/expert.ts), the
 * API that reads and requests changes, and the activities that record them. The state machine itself is
 * ./status.ts.
 *
 * Source: seed §2.3 (order record), §2.4 (payment), §2.5 (review); issue 6 (expert delivery, subscriptions).
 */
import type { OrderStatus } from './status';

/**
 * The `data` of an order transition's event: order and service ids, the status entered, and the fields the transition
 * set (payment, deliverables, review, refund, failure). Built by the workflow and by activities that record a
 * transition themselves.
 */
export function transitionEventData(
  orderId: string,
  serviceId: string,
  status: OrderStatus,
  patch: object = {},
): Record<string, unknown> {
  return { order_id: orderId, service_id: serviceId, status, ...patch };
}

/** Payment rails named by the seed §1. */
export type PaymentRail = 'linkpay_ncp' | 'x402_usdc' | 'agent_wallet';
export const PAYMENT_RAILS: readonly PaymentRail[] = ['linkpay_ncp', 'x402_usdc', 'agent_wallet'];

/** One produced file, as recorded on the order. `size` in bytes; `sha256` lowercase hex of the stored bytes. */
export interface DeliverableRecord {
  name: string;
  sha256: string;
  size: number;
  media_type: string;
  /** Service that produced it (differs from the order's for bundle parts). */
  service_id: string;
}

/** Input values of an order (seed §2.1 `inputs`). */
export type OrderInputs = Record<string, string | number | boolean | string[]>;

/** Arguments of `orderWorkflow`; amounts in integer micro-units (1 USD = 1,000,000). */
export interface OrderWorkflowInput {
  orderId: string;
  /**
   * Initial read-model record: written by the creator when `recordedAtCreation`, otherwise idempotently by the
   * workflow's first activity.
   */
  record: OrderRecordInit;
  serviceId: string;
  /** Ids of the included services when the service is a bundle (seed §2.1 `includes`). */
  includes: string[];
  rails: PaymentRail[];
  amountMicros: number;
  currency: string;
  agentId?: string;
  partnerId?: string;
  inputs: OrderInputs;
  paymentDeadlineSeconds: number;
  reviewWindowSeconds: number;
  /** Expert delivery (issue 6 §1): set for `expert_delivery` services. Absent on orders started before it existed. */
  expert?: ExpertTerms;
  /** Monthly billing (issue 6 §2): set for `monthly` services; a subscription workflow starts at delivery. */
  subscription?: SubscriptionTerms;
  /** Set by `npm run orders:repair` only: where a run that replaced a broken one takes over (issue 24 §1). */
  resume?: OrderResume;
  /**
   * True when the creator (src/services/orders.ts `createOrder`) writes the read model, event 1 (`order.created`) and
   * its webhooks itself once the workflow has started (issue 25 §4): the workflow then records nothing at its start,
   * and its first transition writes them when the creator died before it did. Absent on orders created before.
   */
  recordedAtCreation?: boolean;
}

/**
 * Where a repaired order's new run starts (scripts/repair-orders.ts): the read model's status, version and progress,
 * and the payment and deliverables it holds. Supported: `awaiting_payment`, `paid`, `fulfilling`, `delivered`.
 */
export interface OrderResume {
  status: 'awaiting_payment' | 'paid' | 'fulfilling' | 'delivered';
  version: number;
  progress: OrderState['progress'];
  payment?: PaymentRecord;
  deliverables: DeliverableRecord[];
  /** ISO 8601 time of `delivered`: the review window runs from it. */
  delivered_at?: string;
}

/**
 * Billing terms of a monthly order, fixed at order creation (from configuration). Here rather than in
 * workflows/subscriptionShared.ts, which depends on this module, so the two do not import each other.
 */
export interface SubscriptionTerms {
  interval: 'month';
  /**
   * Dunning: seconds after a failed renewal charge at which it is retried (issue 6: three retries over a week,
   * default 1, 3 and 7 days). After the last retry fails the subscription is suspended.
   */
  retryAfterSeconds: number[];
  /** Rails that cannot be debited (linkpay_ncp, x402_usdc) get an invoice due this many seconds after renewal. */
  invoiceDueSeconds: number;
  /**
   * `invoice`: every renewal is an invoice, whatever the rail of period 1. Set for orders bought through an ACP or UCP
   * checkout session, whose one payment (a delegated token's allowance, a card token) covers period 1 only and
   * gives no authority to debit the wallet again (issue 37). Absent: renewals follow the rail.
   */
  renewal?: 'invoice';
}

/** SLA terms of an expert-delivery order: the clock runs from payment (seed §2.1 `max_fulfillment_hours`). */
export interface ExpertTerms {
  /** The service's `max_fulfillment_hours`: the deadline is payment + this many hours. */
  maxFulfillmentHours: number;
  /** Share of the SLA after which the order is escalated (issue 6: 80). */
  escalateAtPercent: number;
}

/**
 * The engineer queue part of an expert-delivery order (issue 6 §1), as the workflow keeps it and the read model
 * stores it (`orders.engineering`). ISO times; null until it happened.
 */
export interface EngineeringRecord {
  queue: 'expert';
  assigned_at: string;
  /** Payment time + max_fulfillment_hours. */
  sla_deadline: string;
  /** Payment time + escalateAtPercent of max_fulfillment_hours. */
  escalate_at: string;
  escalated_at: string | null;
  breached_at: string | null;
  engineer: string | null;
  claimed_at: string | null;
  /** The engineer's files so far; they join the order's deliverables when it is marked ready. */
  uploads: DeliverableRecord[];
  ready_at: string | null;
  note: string | null;
}

/** Progress entries that are not a change of status (issue 6 §1): the order stays in its status. */
export type OrderProgressEvent = 'sla_escalated' | 'engineer_claimed' | 'deliverable_uploaded';

/** Webhook event type of each progress entry. */
export const ORDER_PROGRESS_EVENT_TYPES: Readonly<Record<OrderProgressEvent, string>> = {
  sla_escalated: 'order.sla_escalated',
  engineer_claimed: 'order.engineer_claimed',
  deliverable_uploaded: 'order.deliverable_uploaded',
};

/** Argument of the `claimEngineering` Update. `reassign` takes over an order another engineer claimed. */
export interface ClaimRequest {
  engineer: string;
  reassign?: boolean;
}

/** Argument of the `addDeliverable` Update: the record of bytes the API already stored (never the bytes). */
export interface DeliverableUpload {
  engineer: string;
  name: string;
  sha256: string;
  size: number;
  media_type: string;
}

/** Argument of the `markReady` Update. */
export interface ReadyRequest {
  engineer: string;
  note?: string;
}

/** Argument of the `cancelOrder` Update (buyer, after an SLA breach). */
export interface CancelOrderRequest {
  reason?: string;
}

/** The order's descriptive fields as created by the API (ISO times), seed §2.3. */
export interface OrderRecordInit {
  quote_id: string | null;
  agent_id: string | null;
  email: string | null;
  webhook_url: string | null;
  partner_id: string | null;
  billing: string;
  is_agent: boolean;
  created_at: string;
  payment_deadline: string;
  /** sha256 hex of the order secret of an order without `agent_id` (issue 10 §1); absent on older orders. */
  buyer_secret_hash?: string | null;
}

/** Payment facts recorded by a successful `confirmPayment`. */
export interface PaymentRecord {
  rail: PaymentRail;
  transaction_id: string;
  amount_micros: number;
  paid_at: string;
}

/** Refund facts: `completed` when money went back (wallet credit, provider refund), `due` when it is owed. */
export interface RefundRecord {
  status: 'completed' | 'due';
  rail: PaymentRail;
  amount_micros: number;
  transaction_id?: string;
  reason: string;
  at: string;
}

/** Review decision (seed §2.5). `automatic` is true when the review window lapsed. */
export interface ReviewRecord {
  action: 'accept' | 'reject';
  reason?: string;
  automatic: boolean;
  at: string;
}

/** What `getState` answers and what Updates return. */
export interface OrderState {
  status: OrderStatus;
  /** Status changes in order; entries with `event` are progress within a status (issue 6). */
  progress: { status: OrderStatus; at: string; event?: OrderProgressEvent }[];
  payment?: PaymentRecord;
  deliverables: DeliverableRecord[];
  review?: ReviewRecord;
  refund?: RefundRecord;
  failure?: string;
  /** Expert-delivery orders only. */
  engineering?: EngineeringRecord;
}

/** Argument of the `confirmPayment` Update (seed §2.4 plus the rail chosen). */
export interface ConfirmPaymentRequest {
  rail: PaymentRail;
  /** Rail-specific transaction id; for agent_wallet the workflow derives its own. */
  transaction_id?: string;
}

/** Argument of the `holdPayment` Update (issue 36 §1): how long an x402 settlement holds the order, 0 to release. */
export interface HoldPaymentRequest {
  /** Seconds, at most 600. */
  seconds: number;
  /** The rail about to take money outside the workflow; default `x402_usdc` (a wallet is charged inside it). */
  rail?: 'x402_usdc' | 'linkpay_ncp';
}

/** Argument of the `review` Update (seed §2.5). */
export interface ReviewRequest {
  action: 'accept' | 'reject';
  reason?: string;
}

/**
 * `ApplicationFailure` types the workflow raises; each equals the API error code it maps to,
 * so a failed Update becomes the right problem detail without a lookup table.
 */
export const FailureType = {
  invalidTransition: 'invalid_state_transition',
  railNotOffered: 'rail_not_offered',
  insufficientFunds: 'insufficient_funds',
  paymentFailed: 'payment_failed',
  transactionNotFound: 'transaction_not_found',
  transactionAlreadyUsed: 'transaction_already_used',
  transactionAmountMismatch: 'transaction_amount_mismatch',
  invalidRequest: 'invalid_request',
  paymentInProgress: 'payment_in_progress',
  alreadyClaimed: 'already_claimed',
  notClaimed: 'engineering_not_claimed',
  deliverableConflict: 'deliverable_conflict',
  noDeliverables: 'no_deliverables',
} as const;

/** Argument of the `recoverPayment` Signal: why it was sent (logged in the order's history). */
export interface RecoverPaymentRequest {
  reason: string;
}
/** Arguments of the `fulfillmentWorkflow` child: one included service of a bundle. */
export interface FulfillmentInput {
  orderId: string;
  serviceId: string;
  inputs: OrderInputs;
  /** Time stamped into the documents; fixed by the parent so retries produce identical bytes. */
  issuedAt: string;
}
