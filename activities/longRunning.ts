/**
 * Activities of the long-running orders (issue 6): progress entries of expert delivery, the subscription read model
 * and its renewal charges, and per-task charges and production. A factory over narrow ports, merged into the worker's
 * activities next to `createActivities` (worker/index.ts).
 *
 * Business refusals are non-retryable `ApplicationFailure`s typed with the API error code (workflows/shared.ts
 * `FailureType`); everything else is transient and retried by Temporal.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EventDoc } from '../src/db';
import type { Services } from '../src/ports';
import { produceAndStore } from './produce';
import type { TextGenerator } from '../src/textgen/port';
import type { PaymentLinkProvider } from '../src/payments/linkpay';
import { EngineeringRepository } from '../src/repos/engineering';
import type { EventRepository } from '../src/repos/events';
import type { OrderPatch } from '../src/repos/orders';
import { SubscriptionRepository } from '../src/repos/subscriptions';
import { TaskRepository } from '../src/repos/tasks';
import type { WalletRepository } from '../src/repos/wallets';
import { asCodedFailure } from './failures';
import { chargeWallet, refundToWallet, verifyLinkPayment } from '../src/services/payments';
import type { DeliverableStore } from '../src/storage/deliverables';
import {
  FailureType,
  type DeliverableRecord,
  type OrderInputs,
  type OrderProgressEvent,
  type OrderStatus,
  type RefundRecord,
} from '../src/domain/order';
import {
  SUBSCRIPTION_EVENT_SEQ_BASE,
  TASK_EVENT_SEQ_BASE,
  subscriptionTxId,
  taskTxId,
  type SubscriptionCharge,
  type SubscriptionInput,
  type SubscriptionState,
  type TaskResult,
} from '../src/domain/subscription';
import { subscriptionWorkflowId } from '../workflows/subscriptionShared';

/** What the long-running activities need. */
export interface LongRunningPorts {
  engineering: EngineeringRepository;
  subscriptions: SubscriptionRepository;
  tasks: TaskRepository;
  events: EventRepository;
  wallets: WalletRepository;
  linkpay: PaymentLinkProvider;
  store: DeliverableStore;
  /** Webhook fan-out after each appended event (activities/webhooks.ts); absent: no webhooks are sent. */
  webhooks?: { fanOut(event: EventDoc): Promise<void> };
  /** The language model (task-worker does its tasks with it); absent: none is configured. */
  textgen?: TextGenerator;
}

/** Argument of `recordProgress`: progress entry `version` of an order (numbered with its transitions). */
export interface ProgressRecord {
  orderId: string;
  version: number;
  status: OrderStatus;
  event: OrderProgressEvent;
  at: string;
  patch: OrderPatch;
  eventType: string;
  eventData: Record<string, unknown>;
}

/** Argument of `recordSubscription`: write `version` of a subscription, with an optional charge and event. */
export interface SubscriptionWrite {
  orderId: string;
  version: number;
  state: SubscriptionState;
  charge?: SubscriptionCharge;
  event?: { type: string; details: Record<string, unknown> };
  at: string;
}

/** Builds the long-running order activities over the given ports. */
export function createLongRunningActivities(ports: LongRunningPorts) {
  async function emit(
    orderId: string,
    seq: number,
    type: string,
    data: Record<string, unknown>,
    at: string,
  ): Promise<void> {
    const event = await ports.events.append(orderId, seq, type, data, at);
    await ports.webhooks?.fanOut(event);
  }

  /** Debits a wallet once under `txId` (src/services/payments.ts); a short balance is a non-retryable `insufficient_funds`. */
  async function debitOnce(
    agentId: string,
    amountMicros: number,
    txId: string,
    memo: string,
    source: string,
  ): Promise<{ transaction_id: string; amount_micros: number }> {
    try {
      return await chargeWallet(ports.wallets, { agentId, amountMicros, txId, memo, source });
    } catch (err) {
      throw asCodedFailure(err);
    }
  }

  return {
    /** Applies an expert-delivery progress entry to the read model and appends its event; both idempotent. */
    async recordProgress(p: ProgressRecord): Promise<void> {
      await ports.engineering.applyProgress(p.orderId, p.version, p.status, p.event, p.at, p.patch);
      await emit(p.orderId, p.version, p.eventType, p.eventData, p.at);
    },

    /**
     * Creates the subscription read model (write 1) with period 1 paid by the order, and emits
     * `subscription.created`. Idempotent.
     */
    async openSubscription(req: {
      input: SubscriptionInput;
      state: SubscriptionState;
      firstCharge: SubscriptionCharge;
      at: string;
    }): Promise<void> {
      const { input, state } = req;
      await ports.subscriptions.ensure({
        _id: input.orderId,
        order_id: input.orderId,
        workflow_id: subscriptionWorkflowId(input.orderId),
        service_id: input.serviceId,
        agent_id: input.agentId ?? null,
        partner_id: input.partnerId ?? null,
        rail: input.rail,
        amount_micros: input.amountMicros,
        currency: input.currency,
        status: state.status,
        current_period: state.current_period,
        next_charge_at: state.next_charge_at,
        cancel_at_period_end: state.cancel_at_period_end,
        cancel_reason: state.cancel_reason,
        ended_at: state.ended_at,
        dunning: state.dunning,
        open_invoice: state.open_invoice,
        charges: [req.firstCharge],
        version: 1,
        created_at: new Date(req.at),
        updated_at: new Date(req.at),
      });
      await emit(
        input.orderId,
        SUBSCRIPTION_EVENT_SEQ_BASE + 1,
        'subscription.created',
        {
          order_id: input.orderId,
          service_id: input.serviceId,
          details: {
            subscription_status: state.status,
            current_period: state.current_period,
            next_charge_at: state.next_charge_at,
          },
        },
        req.at,
      );
    },

    /** Applies subscription write `version` (state, optional charge) and appends its event; idempotent. */
    async recordSubscription(w: SubscriptionWrite): Promise<void> {
      await ports.subscriptions.apply(w.orderId, w.version, w.state, w.charge);
      if (w.event) {
        await emit(
          w.orderId,
          SUBSCRIPTION_EVENT_SEQ_BASE + w.version,
          w.event.type,
          {
            order_id: w.orderId,
            details: { subscription_status: w.state.status, ...w.event.details },
          },
          w.at,
        );
      }
    },

    /**
     * Charges one renewal period on the agent wallet under `subscription:<orderId>:<period>` (once per period, ever,
     * however often dunning retries it).
     * @throws ApplicationFailure insufficient_funds (non-retryable) when the balance is short; payment_failed without agent.
     */
    async chargeRenewal(req: {
      orderId: string;
      agentId?: string;
      period: number;
      amountMicros: number;
    }): Promise<{ transaction_id: string; amount_micros: number }> {
      if (!req.agentId)
        throw ApplicationFailure.nonRetryable('The subscription has no agent wallet', FailureType.paymentFailed);
      const txId = subscriptionTxId(req.orderId, req.period);
      return debitOnce(
        req.agentId,
        req.amountMicros,
        txId,
        `Subscription ${req.orderId}, period ${req.period}`,
        `subscription:${req.orderId}`,
      );
    },

    /**
     * Verifies a hosted-link payment of an invoice: the transaction must exist, be bound to the invoice id, be for the
     * exact amount and have succeeded.
     * @throws ApplicationFailure (non-retryable) transaction_not_found, transaction_already_used,
     *   transaction_amount_mismatch or payment_failed.
     */
    async verifyInvoicePayment(req: {
      invoiceId: string;
      transactionId: string;
      amountMicros: number;
    }): Promise<{ transaction_id: string; amount_micros: number }> {
      try {
        return await verifyLinkPayment(ports.linkpay, {
          transactionId: req.transactionId,
          payeeId: req.invoiceId,
          payee: 'invoice',
          amountMicros: req.amountMicros,
        });
      } catch (err) {
        throw asCodedFailure(err);
      }
    },

    /**
     * Charges task `n` of a per-task order on the agent wallet under `task:<orderId>:<n>`.
     * @throws ApplicationFailure insufficient_funds (non-retryable).
     */
    async chargeTask(req: {
      orderId: string;
      taskNumber: number;
      agentId: string;
      amountMicros: number;
    }): Promise<{ transaction_id: string; amount_micros: number }> {
      return debitOnce(
        req.agentId,
        req.amountMicros,
        taskTxId(req.orderId, req.taskNumber),
        `Task ${req.taskNumber} of order ${req.orderId}`,
        `task:${req.orderId}`,
      );
    },

    /** Produces one task's deliverables (the service's generator over the task inputs), stored content-addressed. */
    async produceTask(req: {
      orderId: string;
      taskNumber: number;
      serviceId: string;
      inputs: OrderInputs;
      issuedAt: string;
    }): Promise<DeliverableRecord[]> {
      return produceAndStore(
        {
          orderId: `${req.orderId}-task-${req.taskNumber}`,
          serviceId: req.serviceId,
          inputs: req.inputs,
          issuedAt: req.issuedAt,
        },
        ports,
      );
    },

    /** Returns a task's charge to the wallet under `task-refund:<orderId>:<n>` (once). */
    async refundTask(req: {
      orderId: string;
      taskNumber: number;
      agentId: string;
      amountMicros: number;
      reason: string;
      at: string;
    }): Promise<RefundRecord> {
      const tx = await refundToWallet(ports.wallets, {
        agentId: req.agentId,
        amountMicros: req.amountMicros,
        txId: `task-refund:${req.orderId}:${req.taskNumber}`,
        memo: `Refund of task ${req.taskNumber} of order ${req.orderId}`,
        source: `task-refund:${req.orderId}`,
      });
      return {
        status: 'completed',
        rail: 'agent_wallet',
        amount_micros: req.amountMicros,
        transaction_id: tx.transaction_id,
        reason: req.reason,
        at: req.at,
      };
    },

    /** Records a task's outcome and appends its event (`order.task_delivered` / `order.task_failed`). */
    async recordTask(req: {
      orderId: string;
      taskNumber: number;
      result: TaskResult;
      eventType: string;
      at: string;
    }): Promise<void> {
      await ports.tasks.complete(req.orderId, req.taskNumber, req.result, req.at);
      await emit(
        req.orderId,
        TASK_EVENT_SEQ_BASE + req.taskNumber,
        req.eventType,
        {
          order_id: req.orderId,
          details: {
            task: req.taskNumber,
            task_status: req.result.status,
            deliverables: req.result.deliverables.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size })),
            ...(req.result.failure ? { failure: req.result.failure } : {}),
          },
        },
        req.at,
      );
    },
  };
}

/** The long-running activity interface the workflows proxy (type only). */
export type LongRunningActivities = ReturnType<typeof createLongRunningActivities>;

/** Builds the ports of {@link createLongRunningActivities} from the shared services (worker and tests). */
export function longRunningPorts(
  services: Services,
  webhooks?: LongRunningPorts['webhooks'],
  textgen?: TextGenerator,
): LongRunningPorts {
  return {
    engineering: new EngineeringRepository(services.db),
    subscriptions: new SubscriptionRepository(services.db),
    tasks: new TaskRepository(services.db),
    events: services.events,
    wallets: services.wallets,
    linkpay: services.linkProvider,
    store: services.store,
    ...(webhooks ? { webhooks } : {}),
    ...(textgen ? { textgen } : {}),
  };
}
