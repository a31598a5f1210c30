/**
 * The messages of the long-running billing workflows (issue 6 §2, §3): the monthly subscription workflow
 * (`subscription-<order_id>`, workflows/subscription.ts) and the per-task workflow (`task-<order_id>-<n>`,
 * workflows/tasks.ts): Updates, Query, Signal and workflow ids, shared by the workflows and the API. The billing
 * model itself is the domain's: src/domain/subscription.ts. Workflow-safe.
 *
 * Source: issue 6; issue 27 §3.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  CancelSubscriptionRequest,
  EndSubscriptionRequest,
  PayInvoiceRequest,
  SubscriptionState,
} from '../src/domain/subscription';

/** Update: cancel at period end. Returns the new state; refused once cancelled or suspended. */
export const cancelSubscriptionUpdate = defineUpdate<SubscriptionState, [CancelSubscriptionRequest]>(
  'cancelSubscription',
);
/** Update: pay the open invoice (linkpay_ncp transaction). Returns the state after renewal. */
export const payInvoiceUpdate = defineUpdate<SubscriptionState, [PayInvoiceRequest]>('payInvoice');
/** Signal: end the subscription at once (no refund here: the order refunds what it was paid). */
export const endSubscriptionSignal = defineSignal<[EndSubscriptionRequest]>('endSubscription');
/** Query: the subscription as the workflow sees it. */
export const getSubscriptionQuery = defineQuery<SubscriptionState>('getSubscription');

/** Workflow id of an order's subscription. */
export const subscriptionWorkflowId = (orderId: string): string => `subscription-${orderId}`;

/** Workflow id of task `n` of an order. */
export const taskWorkflowId = (orderId: string, n: number): string => `task-${orderId}-${n}`;
