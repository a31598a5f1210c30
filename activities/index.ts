/**
 * Activities: all I/O of the order workflows (read model, events, payments, deliverable storage). A factory over
 * narrow ports, wired in worker/ (Temporal sample `activities-dependency-injection`); charging and refunding are the
 * application layer's (src/services/payments.ts).
 *
 * Business refusals throw non-retryable `ApplicationFailure`s whose `type` is the API error code
 * (workflows/shared.ts `FailureType`); everything else is transient and retried by Temporal.
 */
import type { OrderRepository, OrderPatch } from '../src/repos/orders';
import { initialOrderDoc } from '../src/repos/orders';
import type { EventRepository } from '../src/repos/events';
import type { EventDoc, OrderDoc } from '../src/db';
import type { WalletRepository } from '../src/repos/wallets';
import { asCodedFailure, asTextGenerationFailure } from './failures';
import { beat } from './heartbeat';
import type { PaymentLinkProvider } from '../src/payments/linkpay';
import type { DeliverableStore } from '../src/storage/deliverables';
import { bundleManifest, produceDeliverables } from '../src/domain/deliverables';
import type { TextGenerator } from '../src/textgen/port';
import { createX402Activities, type X402ActivityPorts } from './x402';
import {
  chargeOrder,
  refundOrder,
  type ChargeRequest,
  type OrderPaymentPorts,
  type RefundRequest,
} from '../src/services/payments';
import {
  ORDER_EVENT_TYPES,
  type DeliverableRecord,
  type FulfillmentInput,
  type OrderStatus,
  type OrderWorkflowInput,
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

/** Argument of `chargePayment` and of `refundPayment` (src/services/payments.ts). */
export type { ChargeRequest, RefundRequest };

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

/** Builds the activity functions over the given ports. */
export function createActivities(ports: ActivityPorts) {
  const payments: OrderPaymentPorts = {
    wallets: ports.wallets,
    linkpay: ports.linkpay,
    chargeX402: (req) => createX402Activities(ports.x402).chargeX402(req),
  };
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
     * Verifies and captures a payment; never trusts the caller (src/services/payments.ts `chargeOrder`).
     * agent_wallet: debits the agent's wallet under the id `order:<orderId>` (one debit per order, ever).
     * linkpay_ncp: the provider must report a succeeded transaction bound to this order for the exact amount.
     * @throws ApplicationFailure (non-retryable) typed insufficient_funds, transaction_not_found,
     *   transaction_already_used, transaction_amount_mismatch, payment_failed or invalid_request.
     */
    async chargePayment(req: ChargeRequest): Promise<PaymentRecord> {
      try {
        return await chargeOrder(payments, req);
      } catch (err) {
        throw asCodedFailure(err);
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
        {
          orderId: input.orderId,
          serviceId: input.serviceId,
          inputs: input.inputs,
          issuedAt: input.issuedAt,
          ...(bundleId ? { bundleId } : {}),
        },
        ports.textgen,
      ).catch((err: unknown) => {
        throw asTextGenerationFailure(err);
      });
      const records: DeliverableRecord[] = [];
      for (const f of files) {
        const blob = await ports.store.put(f.content);
        beat(); // one heartbeat per stored file (no-op as a local activity)
        records.push({
          name: f.name,
          sha256: blob.sha256,
          size: blob.size,
          media_type: f.media_type,
          service_id: input.serviceId,
        });
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
      return {
        name: file.name,
        sha256: blob.sha256,
        size: blob.size,
        media_type: file.media_type,
        service_id: input.serviceId,
      };
    },

    /**
     * Returns a captured payment (src/services/payments.ts `refundOrder`). agent_wallet: credits the wallet under `refund:<orderId>` (once). linkpay_ncp:
     * refunds at the provider. x402_usdc: recorded as due (an on-chain refund is an operator transfer).
     */
    async refundPayment(req: RefundRequest): Promise<RefundRecord> {
      return refundOrder(payments, req);
    },
  };
}

/** The activity interface the workflows proxy (type only). */
export type Activities = ReturnType<typeof createActivities>;
