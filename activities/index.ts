/**
 * Activities: the only code that touches MongoDB, payment providers and deliverable storage. A factory over
 * narrow ports, wired in worker/ (Temporal sample `activities-dependency-injection`).
 *
 * Business refusals throw non-retryable `ApplicationFailure`s whose `type` is the API error code
 * (workflows/shared.ts `FailureType`); everything else is transient and retried by Temporal.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { OrderRepository, OrderPatch } from '../src/repos/orders';
import { initialOrderDoc } from '../src/repos/orders';
import type { EventRepository } from '../src/repos/events';
import type { EventDoc, OrderDoc } from '../src/db';
import type { WalletRepository } from '../src/repos/wallets';
import { asBusinessFailure, asTextGenerationFailure } from './failures';
import { beat } from './heartbeat';
import type { PaymentLinkProvider } from '../src/payments/linkpay';
import type { DeliverableStore } from '../src/storage/deliverables';
import { bundleManifest, produceDeliverables } from '../src/domain/deliverables';
import type { TextGenerator } from '../src/textgen/port';
import { createX402Activities, type X402ActivityPorts } from './x402';
import {
  FailureType,
  ORDER_EVENT_TYPES,
  type DeliverableRecord,
  type FulfillmentInput,
  type OrderStatus,
  type OrderWorkflowInput,
  type PaymentRail,
  type PaymentRecord,
  type RefundRecord,
} from '../workflows/shared';

/** What the activities need from the outside world. */
export interface ActivityPorts {
  orders: OrderRepository;
  events: EventRepository;
  wallets: WalletRepository;
  linkpay: PaymentLinkProvider;
  store: DeliverableStore;
  /** x402 ledger and chain (activities/x402.ts); absent: the x402_usdc rail is refused. */
  x402?: X402ActivityPorts;
  /** Webhook fan-out after each appended event (activities/webhooks.ts); absent: no webhooks are sent. */
  /** `order`: the order as just written, when the caller has it (saves a read). */
  webhooks?: { fanOut(event: EventDoc, order?: OrderDoc): Promise<void> };
  /** The language model of the services that need one (src/textgen); absent: none is configured. */
  textgen?: TextGenerator;
}

/** Argument of `chargePayment`; amount in integer micro-units. */
export interface ChargeRequest {
  orderId: string;
  rail: PaymentRail;
  transactionId?: string;
  amountMicros: number;
  agentId?: string;
  paidAt: string;
}

/** Argument of `recordTransition`. */
export interface TransitionRecord {
  orderId: string;
  version: number;
  status: OrderStatus;
  at: string;
  patch?: OrderPatch;
  /** Event sequence number (order events are numbered from 1). */
  eventSeq: number;
  eventData: Record<string, unknown>;
}

/** Argument of `refundPayment`. */
export interface RefundRequest {
  orderId: string;
  payment: PaymentRecord;
  agentId?: string;
  reason: string;
  at: string;
}

/** Builds the activity functions over the given ports. */
export function createActivities(ports: ActivityPorts) {
  return {
    /** Writes the order's initial read model and its order.created event (idempotent). */
    async recordOrder(input: OrderWorkflowInput): Promise<void> {
      await ports.orders.ensure(initialOrderDoc(input));
      // Event 1 (order.created); later transitions are numbered by their version, from 2.
      const event = await ports.events.append(
        input.orderId,
        1,
        ORDER_EVENT_TYPES.awaiting_payment,
        { order_id: input.orderId, service_id: input.serviceId, status: 'awaiting_payment' },
        input.record.created_at,
      );
      await ports.webhooks?.fanOut(event);
    },

    /** Applies one transition to the read model and appends its event; both idempotent. */
    async recordTransition(t: TransitionRecord): Promise<void> {
      const [order, event] = await Promise.all([
        ports.orders.applyTransition(t.orderId, t.version, t.status, t.at, t.patch),
        ports.events.append(t.orderId, t.eventSeq, ORDER_EVENT_TYPES[t.status], t.eventData, t.at),
      ]);
      // Idempotent (one delivery workflow per event and endpoint), so a retry of this activity is safe.
      await ports.webhooks?.fanOut(event, order ?? undefined);
    },

    /**
     * Verifies and captures a payment; never trusts the caller.
     * agent_wallet: debits the agent's wallet under the id `order:<orderId>` (one debit per order, ever).
     * linkpay_ncp: the provider must report a succeeded transaction bound to this order for the exact amount.
     * @throws ApplicationFailure (non-retryable) typed insufficient_funds, transaction_not_found,
     *   transaction_already_used, transaction_amount_mismatch, payment_failed or invalid_request.
     */
    async chargePayment(req: ChargeRequest): Promise<PaymentRecord> {
      switch (req.rail) {
        case 'agent_wallet': {
          if (!req.agentId) {
            throw ApplicationFailure.nonRetryable('The order has no agent_id, so no wallet can pay it', FailureType.paymentFailed);
          }
          try {
            const tx = await ports.wallets.debit(req.agentId, req.amountMicros, `order:${req.orderId}`, `Order ${req.orderId}`, `order:${req.orderId}`);
            return { rail: 'agent_wallet', transaction_id: tx.tx_id, amount_micros: tx.amount_micros, paid_at: req.paidAt };
          } catch (err) {
            throw asBusinessFailure(err);
          }
        }
        case 'linkpay_ncp': {
          if (!req.transactionId) {
            throw ApplicationFailure.nonRetryable('transaction_id is required for linkpay_ncp', FailureType.invalidRequest);
          }
          const tx = await ports.linkpay.getTransaction(req.transactionId);
          if (!tx) throw ApplicationFailure.nonRetryable(`Unknown transaction ${req.transactionId}`, FailureType.transactionNotFound);
          if (tx.order_id !== req.orderId) {
            throw ApplicationFailure.nonRetryable(`Transaction ${tx.id} belongs to another order`, FailureType.transactionAlreadyUsed);
          }
          if (tx.amount_micros !== req.amountMicros) {
            throw ApplicationFailure.nonRetryable(
              `Transaction ${tx.id} is for ${tx.amount_micros} micro-USD, the order costs ${req.amountMicros}`,
              FailureType.transactionAmountMismatch,
            );
          }
          if (tx.status !== 'succeeded') {
            throw ApplicationFailure.nonRetryable(`Transaction ${tx.id} is ${tx.status}`, FailureType.paymentFailed);
          }
          return { rail: 'linkpay_ncp', transaction_id: tx.id, amount_micros: tx.amount_micros, paid_at: req.paidAt };
        }
        case 'x402_usdc':
          // Settled over x402 at POST /x402/orders/{id}; verified against the x402_payments ledger (issue 3 §8).
          return createX402Activities(ports.x402).chargeX402(req);
      }
    },

    /**
     * Produces one (non-bundle) service's deliverables (language work through the text-generation port), stores them
     * content-addressed and returns the manifest.
     * @throws ApplicationFailure text_generation_* (retryable or not, as the model's error) for language work.
     */
    async fulfilService(input: FulfillmentInput): Promise<DeliverableRecord[]> {
      // A bundle's parts are wired to each other (booking page, receptionist, workflow): they need the bundle's id.
      const order = await ports.orders.get(input.orderId);
      const bundleId = order && order.service_id !== input.serviceId ? order.service_id : undefined;
      const files = await produceDeliverables(
        { orderId: input.orderId, serviceId: input.serviceId, inputs: input.inputs, issuedAt: input.issuedAt, ...(bundleId ? { bundleId } : {}) },
        ports.textgen,
      ).catch((err: unknown) => {
        throw asTextGenerationFailure(err);
      });
      const records: DeliverableRecord[] = [];
      for (const f of files) {
        const blob = await ports.store.put(f.content);
        beat(); // one heartbeat per stored file (no-op as a local activity)
        records.push({ name: f.name, sha256: blob.sha256, size: blob.size, media_type: f.media_type, service_id: input.serviceId });
      }
      return records;
    },

    /** Stores a bundle's own manifest, listing every part's files with their checksums. */
    async writeBundleManifest(input: FulfillmentInput & { parts: DeliverableRecord[] }): Promise<DeliverableRecord> {
      const byService = new Map<string, { name: string; sha256: string; size: number }[]>();
      for (const p of input.parts) {
        const list = byService.get(p.service_id) ?? [];
        list.push({ name: p.name, sha256: p.sha256, size: p.size });
        byService.set(p.service_id, list);
      }
      const file = bundleManifest(
        { orderId: input.orderId, serviceId: input.serviceId, inputs: input.inputs, issuedAt: input.issuedAt },
        [...byService].map(([serviceId, files]) => ({ serviceId, files })),
      );
      const blob = await ports.store.put(file.content);
      return { name: file.name, sha256: blob.sha256, size: blob.size, media_type: file.media_type, service_id: input.serviceId };
    },

    /**
     * Returns a captured payment. agent_wallet: credits the wallet under `refund:<orderId>` (once). linkpay_ncp:
     * refunds at the provider. x402_usdc: recorded as due (an on-chain refund is an operator transfer).
     */
    async refundPayment(req: RefundRequest): Promise<RefundRecord> {
      const base = { rail: req.payment.rail, amount_micros: req.payment.amount_micros, reason: req.reason, at: req.at };
      if (req.payment.rail === 'agent_wallet' && req.agentId) {
        const tx = await ports.wallets.credit(req.agentId, req.payment.amount_micros, `refund:${req.orderId}`, `Refund of order ${req.orderId}`, `refund:${req.orderId}`);
        return { ...base, status: 'completed', transaction_id: tx.tx_id };
      }
      if (req.payment.rail === 'linkpay_ncp' && (await ports.linkpay.refund(req.payment.transaction_id))) {
        return { ...base, status: 'completed', transaction_id: req.payment.transaction_id };
      }
      return { ...base, status: 'due' };
    },
  };
}

/** The activity interface the workflows proxy (type only). */
export type Activities = ReturnType<typeof createActivities>;
