/**
 * The order workflow's messages: the Update, Signal and Query definitions shared by the workflows (which implement
 * them) and the API (which calls them), the search attributes operators filter on, and the workflow id. The order
 * model itself (types, states, transitions) is the domain's: src/domain/order/. Workflow-safe: imports only
 * `@temporalio/workflow`'s definition helpers and the domain's types.
 *
 * Source: seed §4 (order operations); issue 2 §4, issue 27 §3.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  CancelOrderRequest,
  ClaimRequest,
  ConfirmPaymentRequest,
  DeliverableUpload,
  HoldPaymentRequest,
  OrderState,
  ReadyRequest,
  RecoverPaymentRequest,
  ReviewRequest,
} from '../src/domain/order';

/** Update: verify a payment on the given rail and mark the order paid. Returns the new state. */
export const confirmPaymentUpdate = defineUpdate<OrderState, [ConfirmPaymentRequest]>('confirmPayment');
/**
 * Update (API, x402 rail): hold the order for an x402 settlement about to move money, for `seconds` (0 releases).
 * While held, payments on other rails are refused before they move money (409 `payment_in_progress`). Issue 36 §1.
 */
export const holdPaymentUpdate = defineUpdate<OrderState, [HoldPaymentRequest]>('holdPayment');
/** Update: record the buyer's accept / reject decision. Returns the final state. */
export const reviewUpdate = defineUpdate<OrderState, [ReviewRequest]>('review');
/** Update (operator): an engineer claims an expert-delivery order from the queue. */
export const claimEngineeringUpdate = defineUpdate<OrderState, [ClaimRequest]>('claimEngineering');
/** Update (operator): records one stored deliverable of the claiming engineer. */
export const addDeliverableUpdate = defineUpdate<OrderState, [DeliverableUpload]>('addDeliverable');
/** Update (operator): the engineer's work is complete; the order is delivered. Answers once it is. */
export const markReadyUpdate = defineUpdate<OrderState, [ReadyRequest]>('markReady');
/** Update (buyer): cancel an order whose SLA was breached, for a full refund. Answers once refunded. */
export const cancelOrderUpdate = defineUpdate<OrderState, [CancelOrderRequest]>('cancelOrder');
/**
 * Signal (reconciliation, operator): look for money already taken for this order whose `confirmPayment` Update was
 * lost (a crash between the debit and the Update's acceptance) and adopt it as the order's payment. An order still
 * awaiting payment runs the `findOrderPayment` activity from its main coroutine; any other order ignores it. Issue 24 §2.
 */
export const recoverPaymentSignal = defineSignal<[RecoverPaymentRequest]>('recoverPayment');
/** Query: the current order state. */
export const getStateQuery = defineQuery<OrderState>('getState');

/** Typed search attribute keys the order workflow keeps current, for operators in the Temporal Web UI. */
export const SA = {
  orderStatus: defineSearchAttributeKey('OrderStatus', SearchAttributeType.KEYWORD),
  serviceId: defineSearchAttributeKey('ServiceId', SearchAttributeType.KEYWORD),
  agentId: defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD),
  paymentRail: defineSearchAttributeKey('PaymentRail', SearchAttributeType.KEYWORD),
  procurementStatus: defineSearchAttributeKey('ProcurementStatus', SearchAttributeType.KEYWORD),
  /** Discrepancies the last books reconciliation found and could not repair (issue 24 §3). */
  reconcileDiscrepancies: defineSearchAttributeKey('ReconcileDiscrepancies', SearchAttributeType.INT),
  /**
   * Whom the workflow waits on (workflows/details.ts `WaitingOn`: payment, fulfillment, engineer, buyer_review, refund,
   * renewal, receiver, settlement, nothing), kept by the main coroutine of orders, subscriptions, webhook deliveries
   * being retried and x402 reconciliations (issue 26 §1).
   */
  waitingOn: defineSearchAttributeKey('WaitingOn', SearchAttributeType.KEYWORD),
  /** Since when it waits on `WaitingOn` (`WaitingOn = 'engineer' AND WaitingSince < '<iso>'`: stuck for long). */
  waitingSince: defineSearchAttributeKey('WaitingSince', SearchAttributeType.DATETIME),
};

/** The same attributes as `Name -> type` for registering them on a server (`temporal server start-dev --search-attribute`). */
export const SEARCH_ATTRIBUTES = {
  OrderStatus: 'Keyword',
  ServiceId: 'Keyword',
  AgentId: 'Keyword',
  PaymentRail: 'Keyword',
  ProcurementStatus: 'Keyword',
  ReconcileDiscrepancies: 'Int',
  WaitingOn: 'Keyword',
  WaitingSince: 'Datetime',
} as const;

/** Workflow id of an order (issue 2: one workflow per order, id `order-<order_id>`). */
export const orderWorkflowId = (orderId: string): string => `order-${orderId}`;
