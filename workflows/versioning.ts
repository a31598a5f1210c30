/**
 * Worker Versioning (issue 26 §2): how each workflow type moves when a new worker build becomes the deployment's
 * current version. Workflow-safe (the worker's bundle applies it in workflows/index.ts).
 *
 * - `AUTO_UPGRADE`: a running workflow moves to the new build at its next workflow task, so its code changes must
 *   replay old histories: every change behind `patched()` (docs/patches.md), proven by the stored replay fixtures.
 *   For workflows that wait days: a pinned 7-day expert order, an order days in review or a subscription between
 *   monthly renewals would keep its old build running for weeks, and a fix would never reach it.
 * - `PINNED`: a running workflow stays on the build that started it until it ends; no `patched()` needed. For
 *   workflows that end within minutes to hours, so an old build drains quickly after a deploy.
 */
import type { VersioningBehavior } from '@temporalio/common';

/** Each workflow type's versioning behavior, by the workflow function's name. */
export const VERSIONING_BEHAVIOR = {
  /** Days: payment deadline, fulfilment, review window; expert orders a 7-day SLA. */
  orderWorkflow: 'AUTO_UPGRADE',
  /** A bundle part's fulfilment: minutes. */
  fulfillmentWorkflow: 'PINNED',
  /** Monthly periods; continues as new each period (the new run starts on the current build anyway). */
  subscriptionWorkflow: 'AUTO_UPGRADE',
  /** A per-task order: open while tasks keep coming. */
  taskWorkflow: 'AUTO_UPGRADE',
  /** A procurement run waits for its orders and the buyer's review: days. */
  procurementWorkflow: 'AUTO_UPGRADE',
  /** One webhook delivery with its retries: hours at most. */
  webhookDeliveryWorkflow: 'PINNED',
  /** One x402 settlement's confirmation: minutes. */
  x402ReconcileWorkflow: 'PINNED',
  x402RefundWorkflow: 'PINNED',
  /** One run of the books reconciliation Schedule: seconds. */
  booksReconciliationWorkflow: 'PINNED',
  /** An ACP checkout session: until its quote expires (a day), or seconds after complete starts. */
  checkoutSessionWorkflow: 'AUTO_UPGRADE',
} as const satisfies Record<string, VersioningBehavior>;
