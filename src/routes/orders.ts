/**
 * The HTTP side of orders: rail inference, `Prefer: wait`. Creating an order is the application layer's
 * (src/services/orders.ts); {@link orderCreationPorts} wires it to the API's dependencies. The public view is
 * src/routes/api/orders/view.ts; loading and who may act, src/routes/api/orders/policy.ts.
 */
import { ProblemError, problem } from '../errors';
import type { NewOrder, OrderCreationPorts } from '../services/orders';
import { refundStrandedLinkPayment } from '../services/payments';
import { isClosedWorkflowProblem } from '../temporal/closed';
import type { IdempotentCreation } from '../http/idempotency';
import type { PaymentRail } from '../domain/order';
import { DeliveryWorkflows } from '../temporal/webhooks';
import { createWebhookFanOut } from '../webhooks/fanOut';
import type { AppDeps } from './context';

/** Default rail when the caller names none: by the shape of the transaction id (documented on the schema). */
export function inferRail(transactionId: string | undefined): PaymentRail {
  if (!transactionId) return 'agent_wallet';
  if (transactionId.startsWith('lp_')) return 'linkpay_ncp';
  if (/^0x[0-9a-fA-F]{64}$/.test(transactionId)) return 'x402_usdc';
  return 'linkpay_ncp';
}

/** Seconds of an RFC 7240 `Prefer: wait=N` header, capped at 60; 0 when absent or malformed. */
export function preferWaitSeconds(prefer: string): number {
  const m = /(?:^|[,;\s])wait=(\d{1,5})(?:$|[,;\s])/i.exec(prefer);
  return m ? Math.min(60, Number(m[1])) : 0;
}

/**
 * The fixed parts of an order created under an Idempotency-Key (issue 36): its id, time and secrets come from the
 * key's claim, so a retry after a crash or a 5xx finds the order the first request made. Nothing without a key.
 */
export function idempotentOrder(c: IdempotentCreation | undefined): Pick<NewOrder, 'order_id' | 'retry'> {
  return c ? { order_id: `ord_${c.name('order')}`, retry: { at: c.at, bytes: c.bytes } } : {};
}

/** The ports of order creation (src/services/orders.ts) from the API's dependencies. */
export function orderCreationPorts(deps: AppDeps): OrderCreationPorts {
  // `order.created` is fanned out here, as the worker fans out later events: delivery workflows on its task queue.
  const fanOut = createWebhookFanOut({
    webhooks: deps.services.webhooks,
    orders: deps.services.orders,
    deliveries: new DeliveryWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE),
    publicBaseUrl: deps.config.PUBLIC_BASE_URL,
  });
  return {
    quotes: deps.services.quotes,
    orders: deps.services.orders,
    events: deps.services.events,
    fanOut: fanOut.fanOut,
    webhooks: deps.services.webhooks,
    startOrderWorkflow: (input, serviceName) => deps.orderWorkflows.start(input, serviceName),
    config: deps.config,
  };
}

/**
 * Runs `confirm` (the `confirmPayment` Update of order `orderId` with payment-link transaction `transactionId`).
 * When it meets the order's workflow closed or gone (src/temporal/closed.ts), the transaction (bound to this order, never
 * captured by it) is refunded at the provider (issue 36: the hosted form takes the money before the Update) and the
 * problem rethrown carries it as `refund` (a RefundRecord). Any other outcome is `confirm`'s own.
 * @throws ProblemError 409 `invalid_state_transition` / `order_closed`, 410 `order_gone`, with `refund` when one was
 *   made.
 */
/** Refusals of a running order after which a link payment it did not take is given back (issue 36 §1). */
const REFUSALS_TO_REFUND = new Set(['invalid_state_transition', 'payment_in_progress']);

export async function confirmLinkPayment<T>(
  deps: Pick<AppDeps, 'services' | 'orderWorkflows'>,
  orderId: string,
  transactionId: string,
  confirm: () => Promise<T>,
): Promise<T> {
  try {
    return await confirm();
  } catch (err) {
    const closed = isClosedWorkflowProblem(err);
    // A running order that refused this payment (paid on another rail, or an x402 settlement holding it) did not
    // take it either: given back at once (issue 36 §1), not left for the reconciliation.
    const refused = err instanceof ProblemError && REFUSALS_TO_REFUND.has(err.code);
    if (!closed && !refused) throw err;
    // The read model of a closed order is final; a running order's own state names the payment it holds.
    const order = await deps.services.orders.get(orderId);
    const held = closed ? order?.payment : (await deps.orderWorkflows.state(orderId).catch(() => undefined))?.payment;
    // A running order that holds no payment may still take this one (its lookup at the deadline adopts link payments):
    // left to it, or to the reconciliation, which refunds it once the order is paid otherwise or has ended.
    if (!closed && !held) throw err;
    const refund = await refundStrandedLinkPayment(deps.services.linkProvider, {
      orderId,
      transactionId,
      ...(held ? { capturedTransactionId: held.transaction_id } : {}),
      reason: closed
        ? `order ${orderId} has ended (${String(err.extra.workflow_status)}) without taking this payment`
        : `order ${orderId} refused this payment: ${(err as ProblemError).code}`,
      at: new Date().toISOString(),
    });
    if (!refund) throw err;
    throw problem(
      err.code,
      `${err.detail ?? err.message}; payment ${transactionId} was refunded`,
      { ...err.extra, refund },
      {
        status: err.status,
        headers: err.headers,
      },
    );
  }
}
