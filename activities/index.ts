/**
 * Activities: all I/O of the order workflows (read model, events, payments, deliverable storage). A factory over
 * narrow ports, wired in worker/ (Temporal sample `activities-dependency-injection`); charging and refunding are the
 * application layer's (src/services/payments.ts).
 *
 * Business refusals throw non-retryable `ApplicationFailure`s whose `type` is the API error code
 * (workflows/shared.ts `FailureType`); everything else is transient and retried by Temporal.
 */
import type { OrderRepository, OrderPatch } from '../src/repos/orders';
import { recordCreatedOrder } from '../src/services/orders';
import type { EventRepository } from '../src/repos/events';
import type { EventDoc, OrderDoc } from '../src/db';
import type { WalletRepository } from '../src/repos/wallets';
import { CancelledFailure } from '@temporalio/activity';
import { asCodedFailure } from './failures';
import { currentContext } from './heartbeat';
import { produceAndStore } from './produce';
import type { PaymentLinkProvider } from '../src/payments/linkpay';
import type { DeliverableStore } from '../src/storage/deliverables';
import { bundleManifest, languageTasks } from '../src/products/deliverables';
import type { DeliverableContext, HostedBookingPage, HostedReceptionist } from '../src/products/deliverables/types';
import type { BookingRepository } from '../src/repos/bookings';
import type { ReceptionistRepository } from '../src/repos/receptionists';
import { getService } from '../src/domain/catalogue';
import type { TextGenerator } from '../src/textgen/port';
import type { X402ActivityPorts } from './x402';
import {
  chargeOrder,
  findOrderPayment,
  refundOrder,
  type PaymentLookup,
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
  transitionEventData,
} from '../src/domain/order';

/** What the activities need from the outside world. */
export interface ActivityPorts {
  orders: OrderRepository;
  events: EventRepository;
  wallets: WalletRepository;
  linkpay: PaymentLinkProvider;
  store: DeliverableStore;
  /** x402 ledger and chain (activities/x402.ts); absent: the x402_usdc rail is refused. */
  x402?: X402ActivityPorts;
  /**
   * Webhook fan-out after each appended event (activities/webhooks.ts); absent: no webhooks are sent. `order`: the
   * order as just written, when the caller has it (saves a read).
   */
  webhooks?: {
    fanOut(event: EventDoc, order?: OrderDoc): Promise<void>;
    /** Consecutive events of one order, in order, with the order as it was after each (endpoints looked up once). */
    fanOutAll(items: readonly { event: EventDoc; order?: OrderDoc }[]): Promise<void>;
  };
  /** The language model of the services that need one (src/textgen); absent: none is configured. */
  textgen?: TextGenerator;
  /**
   * Hosted booking pages (issue 38 §2) and this service's public address: an order holding website-booking gets its
   * page at delivery. Absent: pages are not hosted (the files still are delivered).
   */
  bookingPages?: { repo: Pick<BookingRepository, 'ensurePage' | 'setContent'>; publicBaseUrl: string };
  /**
   * Hosted receptionists (issue 38 §1): an ai-receptionist order gets one at delivery, with a booking page of its own
   * (so `bookingPages` too). Absent: not hosted (the files are still delivered).
   */
  receptionists?: Pick<ReceptionistRepository, 'ensure' | 'setContent'>;
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
  /**
   * The order's workflow input, on the first transition of an order its creator records (`recordedAtCreation`): when
   * the read model does not hold the order (the creator died after starting the workflow), it is written first.
   */
  create?: OrderWorkflowInput;
}

/**
 * Argument of `chargeAndRecordPaid`: the charge, then the `paid` transition to record with the payment as transition
 * `paid.version`, followed by `fulfilling` as `paid.version + 1` when `paid.thenFulfilling` (an order without a
 * partner, whose commission is booked between the two).
 */
export interface PaidChargeRequest extends ChargeRequest {
  serviceId: string;
  paid: { version: number; thenFulfilling: boolean };
  /** As {@link TransitionRecord.create}: the order to write first when the read model does not hold it. */
  create?: OrderWorkflowInput;
}

/**
 * Result of `chargeAndRecordPaid`: the payment taken, the `paid` transition's time (ISO 8601) and whether it is in the
 * read model (false: the workflow records it with `recordTransitions`, retried until done).
 */
export interface PaidChargeResult {
  payment: PaymentRecord;
  at: string;
  recorded: boolean;
}

/**
 * Argument of `chargeAndDeliver`: `chargeAndRecordPaid`'s, for an order without a partner (`paid.thenFulfilling`), and
 * the single automated service to produce once the charge is taken (`deliver`: its inputs and issue time).
 */
export interface ChargeAndDeliverRequest extends PaidChargeRequest {
  deliver: Pick<FulfillmentInput, 'inputs' | 'issuedAt'>;
}

/**
 * Result of `chargeAndDeliver`: `chargeAndRecordPaid`'s, and `delivery` when the goods were produced and `delivered`
 * was recorded with `paid` and `fulfilling` (versions `paid.version` to `paid.version + 2`). Without `delivery` the
 * workflow delivers as before (`deliverService`): production failed or needs a model, or the record was not written.
 */
export interface ChargeAndDeliverResult extends PaidChargeResult {
  delivery?: DeliveryResult;
}

/**
 * Argument of `deliverService`: a single (non-bundle) service to produce, and the number of the `delivered`
 * transition to record with its deliverables.
 */
export interface DeliveryRequest extends FulfillmentInput {
  delivered: { version: number };
}

/**
 * Result of `deliverService`: the stored deliverables, the `delivered` transition's time (ISO 8601, once they were
 * stored), and whether it was recorded (false: the workflow records it with `recordTransition`, retried until done).
 */
export interface DeliveryResult {
  deliverables: DeliverableRecord[];
  at: string;
  recorded: boolean;
}

/**
 * The order as it was right after transition `i` of `ts`, from the order as written after all of them: status,
 * version, progress and time rewound (fields patched by later transitions are kept; merged transitions carry their
 * patch on the first, workflows/order.ts).
 */
function orderAsOf(order: OrderDoc, ts: readonly TransitionRecord[], i: number): OrderDoc {
  const t = ts[i];
  const later = ts.length - 1 - i;
  if (!t || later === 0) return order;
  // Goods recorded by a later transition of the same write (`chargeAndDeliver`) were not there yet.
  const deliveredLater = ts.slice(i + 1).some((x) => x.patch?.deliverables !== undefined);
  return {
    ...order,
    status: t.status,
    version: t.version,
    progress: order.progress.slice(0, order.progress.length - later),
    updated_at: new Date(t.at),
    ...(deliveredLater ? { deliverables: [] } : {}),
  };
}

/**
 * A transition an activity records itself (`chargeAndRecordPaid`, `deliverService`): its event is numbered by its
 * version, as the workflow numbers the ones it asks for (workflows/order.ts `transitions`).
 */
function transitionRecord(
  orderId: string,
  serviceId: string,
  status: OrderStatus,
  version: number,
  at: string,
  patch: OrderPatch = {},
): TransitionRecord {
  return {
    orderId,
    version,
    status,
    at,
    patch,
    eventSeq: version,
    eventData: transitionEventData(orderId, serviceId, status, patch),
  };
}

/**
 * How long `chargeAndDeliver` may spend producing and storing the goods (ms): a third of the payment's 10 s
 * start-to-close timeout (workflows/policies.ts LOCAL_CAPTURE_OPTIONS). Past it the goods are left to `deliverService`,
 * with its own timeout and retries, and the payment is recorded at once.
 */
export const PRODUCE_WITH_CHARGE_MS = 3_000;

/** `work`'s result, or a rejection once `ms` have passed (the work itself runs on; its writes are idempotent). */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Throws the cancellation of the current activity (a local activity past its timeout is cancelled); no-op outside one. */
function throwIfCancelled(): void {
  if (currentContext()?.cancellationSignal.aborted) {
    throw new CancelledFailure('attempt cancelled before recording');
  }
}

/** Builds the activity functions over the given ports. */
export function createActivities(ports: ActivityPorts) {
  const payments: OrderPaymentPorts = {
    wallets: ports.wallets,
    linkpay: ports.linkpay,
    ...(ports.x402 ? { x402: ports.x402.payments } : {}),
  };

  /** Writing a new order's record (src/services/orders.ts), as its creator does. */
  const creation = {
    orders: ports.orders,
    events: ports.events,
    ...(ports.webhooks ? { fanOut: ports.webhooks.fanOut } : {}),
  };

  /**
   * Applies consecutive transitions to the read model in one update. When that applied nothing (a retry, or an earlier
   * worker's code wrote the first of them one by one), each is applied on its own, so the ones not yet written are.
   * Returns the order after the last one written, or null when none was.
   */
  async function applyAll(ts: readonly TransitionRecord[], patch: OrderPatch): Promise<OrderDoc | null> {
    const last = ts[ts.length - 1];
    if (!last) return null;
    let merged = await ports.orders.applyTransitions(last.orderId, ts, patch);
    const create = ts[0]?.create;
    if (!merged && create && !(await ports.orders.get(create.orderId))) {
      // The creator died between starting the workflow and writing the order: write it (its event and webhooks
      // first), then the transitions.
      await recordCreatedOrder(creation, create);
      merged = await ports.orders.applyTransitions(last.orderId, ts, patch);
    }
    if (merged || ts.length === 1) return merged;
    let written: OrderDoc | null = null;
    for (const t of ts) {
      written = (await ports.orders.applyTransition(t.orderId, t.version, t.status, t.at, t.patch)) ?? written;
    }
    return written;
  }

  /**
   * Applies consecutive transitions to the read model in one update and appends their events in one insert (both
   * idempotent), then fans each event out with the order as it was after its transition.
   */
  async function record(ts: readonly TransitionRecord[]): Promise<OrderDoc | null> {
    if (ts.length === 0) return null;
    const patch: OrderPatch = Object.assign({}, ...ts.map((t) => t.patch ?? {}));
    const [order, events] = await Promise.all([
      applyAll(ts, patch),
      ports.events.appendMany(
        ts.map((t) => ({
          orderId: t.orderId,
          seq: t.eventSeq,
          type: ORDER_EVENT_TYPES[t.status],
          data: t.eventData,
          at: t.at,
        })),
      ),
    ]);
    // Idempotent (one delivery workflow per event and endpoint), so a retry of this activity is safe.
    await ports.webhooks?.fanOutAll(
      events.map((event, i) => ({ event, ...(order ? { order: orderAsOf(order, ts, i) } : {}) })),
    );
    return order;
  }

  /**
   * The delivery already recorded as transition `version` (an earlier attempt of `deliverService` wrote it), or
   * null: what a retry answers, so the first recorded deliverables are the order's, even when producing again would
   * give other bytes (language work).
   */
  async function recordedDelivery(orderId: string, version: number): Promise<DeliveryResult | null> {
    const order = await ports.orders.get(orderId);
    if (!order || order.version !== version || order.status !== 'delivered') return null;
    const entry = order.progress.findLast((p) => p.status === 'delivered');
    return { deliverables: order.deliverables, at: entry?.at ?? order.updated_at.toISOString(), recorded: true };
  }

  /**
   * The hosted booking page of an order whose service (`orderServiceId`: website-booking or a bundle holding it) has
   * one: made on first call, the same on every retry and for every part of the bundle. Undefined otherwise.
   */
  async function bookingPageOf(orderId: string, orderServiceId: string): Promise<HostedBookingPage | undefined> {
    const hosting = ports.bookingPages;
    if (!hosting) return undefined;
    const service = getService(orderServiceId);
    if (orderServiceId !== 'website-booking' && !service?.includes?.includes('website-booking')) return undefined;
    const page = await hosting.repo.ensurePage(orderId, orderServiceId);
    return {
      id: page._id,
      url: `${hosting.publicBaseUrl}/book/${page._id}`,
      api: `${hosting.publicBaseUrl}/api/v1/booking-pages/${page._id}`,
    };
  }
  /**
   * The hosted receptionist of an ai-receptionist order (ordered alone: the monthly service), with its own booking
   * page: made on first call, the same on every retry. Undefined otherwise.
   */
  async function receptionistOf(orderId: string, orderServiceId: string): Promise<HostedReceptionist | undefined> {
    const hosting = ports.bookingPages;
    if (!hosting || !ports.receptionists || orderServiceId !== 'ai-receptionist') return undefined;
    const page = await hosting.repo.ensurePage(orderId, orderServiceId);
    const rc = await ports.receptionists.ensure(orderId, page._id);
    const base = hosting.publicBaseUrl;
    return {
      id: rc._id,
      chatUrl: `${base}/chat/${rc._id}`,
      embedUrl: `${base}/chat/${rc._id}/embed.js`,
      messagesUrl: `${base}/api/v1/receptionists/${rc._id}/messages`,
      api: `${base}/api/v1/receptionists/${rc._id}`,
      bookingPage: { id: page._id, url: `${base}/book/${page._id}`, api: `${base}/api/v1/booking-pages/${page._id}` },
    };
  }
  const producing = {
    ...(ports.receptionists ? { receptionists: ports.receptionists } : {}),
    store: ports.store,
    ...(ports.textgen ? { textgen: ports.textgen } : {}),
    ...(ports.bookingPages ? { bookingPages: ports.bookingPages.repo } : {}),
  };
  /**
   * The producing ports for an order: once its delivery holds the receptionist's files, a later production (an
   * attempt rescheduled after the delivery was recorded) leaves the hosted receptionist as delivered.
   */
  async function producingFor(orderId: string, serviceId: string, order?: OrderDoc | null): Promise<typeof producing> {
    // Only a receptionist's production reads the order (one database command fewer for every other, issue 39 §2).
    if (!ports.receptionists || serviceId !== 'ai-receptionist') return producing;
    const current = order === undefined ? await ports.orders.get(orderId) : order;
    if (!current?.deliverables.some((f) => f.name === 'ai-receptionist-config.json')) return producing;
    const { receptionists: _held, ...rest } = producing;
    return rest;
  }

  /**
   * What producing a single (non-bundle) service needs besides its inputs: its hosted booking page and receptionist,
   * made on first call (`deliverService`, `chargeAndDeliver`).
   */
  async function singleServiceContext(input: FulfillmentInput): Promise<DeliverableContext> {
    const bookingPage = await bookingPageOf(input.orderId, input.serviceId);
    const receptionist = await receptionistOf(input.orderId, input.serviceId);
    return {
      orderId: input.orderId,
      serviceId: input.serviceId,
      inputs: input.inputs,
      issuedAt: input.issuedAt,
      ...(bookingPage ? { bookingPage } : {}),
      ...(receptionist ? { receptionist } : {}),
    };
  }

  /** Produces one (non-bundle) service's deliverables and stores them content-addressed. */
  async function produce(input: FulfillmentInput): Promise<DeliverableRecord[]> {
    // A bundle's parts are wired to each other (booking page, receptionist, workflow): they need the bundle's id.
    const order = await ports.orders.get(input.orderId);
    const bundleId = order && order.service_id !== input.serviceId ? order.service_id : undefined;
    const bookingPage = await bookingPageOf(input.orderId, order?.service_id ?? input.serviceId);
    const receptionist = await receptionistOf(input.orderId, order?.service_id ?? input.serviceId);
    return produceAndStore(
      {
        orderId: input.orderId,
        serviceId: input.serviceId,
        inputs: input.inputs,
        issuedAt: input.issuedAt,
        ...(bundleId ? { bundleId } : {}),
        ...(bookingPage ? { bookingPage } : {}),
        ...(receptionist ? { receptionist } : {}),
      },
      await producingFor(input.orderId, order?.service_id ?? input.serviceId, order),
    );
  }

  /** The charge of `chargePayment`. @throws ApplicationFailure as `chargePayment`. */
  async function charge(req: ChargeRequest): Promise<PaymentRecord> {
    try {
      return await chargeOrder(payments, req);
    } catch (err) {
      throw asCodedFailure(err);
    }
  }

  /**
   * Records `paid` (and `fulfilling`) with the payment taken at `at`, as `chargeAndRecordPaid` answers: a failed or
   * earlier-written record does not fail the charge.
   */
  async function recordPaid(req: PaidChargeRequest, payment: PaymentRecord, at: string): Promise<PaidChargeResult> {
    const { version, thenFulfilling } = req.paid;
    const paid = transitionRecord(req.orderId, req.serviceId, 'paid', version, at, { payment });
    const steps = [req.create ? { ...paid, create: req.create } : paid];
    if (thenFulfilling) steps.push(transitionRecord(req.orderId, req.serviceId, 'fulfilling', version + 1, at));
    try {
      if (await record(steps)) return { payment, at, recorded: true };
      // Not written now: an earlier attempt (lost with its worker) wrote it; its time is the order's.
      const order = await ports.orders.get(req.orderId);
      const earlier = order && order.version >= version ? order.progress.findLast((p) => p.status === 'paid') : null;
      return earlier ? { payment, at: earlier.at, recorded: true } : { payment, at, recorded: false };
    } catch (err) {
      currentContext()?.log.warn('paid not recorded; the workflow records it', {
        orderId: req.orderId,
        error: String(err),
      });
      return { payment, at, recorded: false };
    }
  }

  return {
    /**
     * Writes the order's record: its order.created event, their webhooks and the initial read model (idempotent).
     * Orders created before `recordedAtCreation` run it at their start; newer ones have it written by their creator.
     */
    async recordOrder(input: OrderWorkflowInput): Promise<void> {
      await recordCreatedOrder(creation, input);
    },

    /** Applies one transition to the read model and appends its event; both idempotent. */
    async recordTransition(t: TransitionRecord): Promise<void> {
      await record([t]);
    },

    /**
     * Applies consecutive transitions (versions ascending by one) in one read-model update and one event insert, and
     * sends each event's webhooks in order; idempotent. Only the first may carry a patch (workflows/order.ts).
     */
    async recordTransitions(ts: TransitionRecord[]): Promise<void> {
      await record(ts);
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
     * `chargePayment`, then the `paid` (and `fulfilling`) transition recorded with the payment, in one local activity:
     * one workflow activation fewer per order (issue 25 §4). Both steps are idempotent, so a retry after a lost attempt
     * charges nothing twice and answers the time the first attempt recorded. A failed recording does not fail the
     * charge: the result says so and the workflow records it itself.
     * @throws ApplicationFailure as `chargePayment` (nothing is recorded then).
     */
    async chargeAndRecordPaid(req: PaidChargeRequest): Promise<PaidChargeResult> {
      return recordPaid(req, await charge(req), new Date().toISOString());
    },

    /**
     * `chargeAndRecordPaid` and `deliverService` in one local activity, for a single automated service of an order
     * without a partner (issue 39 §2: one workflow activation, one local activity and three database commands fewer
     * per order): the charge; then the goods produced and stored; then `paid`, `fulfilling` and `delivered` in one
     * read-model update and one event insert. Each step is idempotent, so a retry charges nothing twice and answers
     * what an earlier attempt recorded. When the goods cannot be produced here (a model's work, a failure) or the
     * record is not written, it records `paid` → `fulfilling` alone (or nothing, as `chargeAndRecordPaid`) and
     * answers without `delivery`: the workflow delivers as before. Never fails after the charge.
     * @throws ApplicationFailure as `chargePayment` (nothing is recorded then).
     */
    async chargeAndDeliver(req: ChargeAndDeliverRequest): Promise<ChargeAndDeliverResult> {
      const payment = await charge(req);
      const at = new Date().toISOString();
      const { version } = req.paid;
      const deliveredVersion = version + 2;
      /** What an earlier attempt recorded, as this one answers it: null when nothing (or the database is away). */
      const earlierRecord = async (): Promise<ChargeAndDeliverResult | null> => {
        try {
          const order = await ports.orders.get(req.orderId);
          const paid = order && order.version >= version ? order.progress.findLast((p) => p.status === 'paid') : null;
          if (!order || !paid) return null;
          const delivered =
            order.version === deliveredVersion && order.status === 'delivered'
              ? order.progress.findLast((p) => p.status === 'delivered')
              : undefined;
          const delivery = delivered ? { deliverables: order.deliverables, at: delivered.at, recorded: true } : null;
          return { payment, at: paid.at, recorded: true, ...(delivery ? { delivery } : {}) };
        } catch {
          return null;
        }
      };
      if ((currentContext()?.info.attempt ?? 1) > 1) {
        const earlier = await earlierRecord();
        if (earlier?.delivery) return earlier;
      }
      // An attempt the workflow gave up on (timed out) writes nothing more; its retry charges nothing twice.
      throwIfCancelled();
      const ctx = await singleServiceContext({ orderId: req.orderId, serviceId: req.serviceId, ...req.deliver }).catch(
        () => null,
      );
      let deliverables: DeliverableRecord[] | undefined;
      if (req.paid.thenFulfilling && ctx && languageTasks(ctx).length === 0) {
        // Production gets a budget well inside the payment's timeout: slow storage must not fail a payment taken.
        deliverables = await withinMs(
          producingFor(req.orderId, req.serviceId).then((producers) => produceAndStore(ctx, producers)),
          PRODUCE_WITH_CHARGE_MS,
        ).catch((err: unknown) => {
          currentContext()?.log.warn('goods not produced with the charge; the workflow delivers them', {
            orderId: req.orderId,
            error: String(err),
          });
          return undefined;
        });
      }
      throwIfCancelled();
      if (!deliverables) return recordPaid(req, payment, at);
      const deliveredAt = new Date().toISOString();
      const paid = transitionRecord(req.orderId, req.serviceId, 'paid', version, at, { payment });
      const steps = [
        req.create ? { ...paid, create: req.create } : paid,
        transitionRecord(req.orderId, req.serviceId, 'fulfilling', version + 1, at),
        transitionRecord(req.orderId, req.serviceId, 'delivered', deliveredVersion, deliveredAt, { deliverables }),
      ];
      try {
        const written = await record(steps);
        if (written) {
          // After an earlier attempt's paid → fulfilling only `delivered` was written now: its paid time stands.
          const paidAt = written.progress.findLast((p) => p.status === 'paid')?.at ?? at;
          return { payment, at: paidAt, recorded: true, delivery: { deliverables, at: deliveredAt, recorded: true } };
        }
      } catch (err) {
        currentContext()?.log.warn('paid and delivered not recorded; the workflow records them', {
          orderId: req.orderId,
          error: String(err),
        });
        return { payment, at, recorded: false };
      }
      // Not written now: an attempt lost with its worker wrote them (or `paid` alone) first; its record stands.
      return (await earlierRecord()) ?? { payment, at, recorded: false };
    },

    /**
     * Produces one (non-bundle) service's deliverables (language work through the text-generation port), stores them
     * content-addressed and returns the manifest.
     * @throws ApplicationFailure text_generation_* (retryable or not, as the model's error) for language work.
     */
    async fulfilService(input: FulfillmentInput): Promise<DeliverableRecord[]> {
      return produce(input);
    },

    /**
     * Produces a single service's deliverables like `fulfilService`, then records the `delivered` transition with
     * them (`recordTransition`), in one activity. Only for services whose production is a pure function of the order
     * (no language work): the same files on every attempt. Language work is produced here and recorded by the
     * workflow (`recorded: false`), as before: an attempt the workflow gave up on never writes the order.
     * A delivery an earlier attempt recorded stands: a retry answers it, also when its own production fails. A failed
     * recording does not fail the activity (its retries are the producer's, limited): the result says so and the
     * workflow records it with `recordTransition`, retried until done.
     * @throws ApplicationFailure text_generation_* as `fulfilService`; CancelledFailure when the attempt was
     *   cancelled (timed out) before it recorded.
     */
    async deliverService(input: DeliveryRequest): Promise<DeliveryResult> {
      const { version } = input.delivered;
      // A single service, not a bundle's part: no bundle id to read.
      const ctx = await singleServiceContext(input);
      let deliverables: DeliverableRecord[];
      try {
        if ((currentContext()?.info.attempt ?? 1) > 1) {
          const earlier = await recordedDelivery(input.orderId, version).catch(() => null);
          if (earlier) return earlier;
        }
        deliverables = await produceAndStore(ctx, await producingFor(input.orderId, input.serviceId));
      } catch (err) {
        // An attempt lost with its worker may have recorded the delivery before this one failed: the goods stand.
        const earlier = await recordedDelivery(input.orderId, version).catch(() => null);
        if (earlier) return earlier;
        throw err;
      }
      const at = new Date().toISOString();
      if (languageTasks(ctx).length > 0) return { deliverables, at, recorded: false };
      throwIfCancelled();
      try {
        const written = await record([
          transitionRecord(input.orderId, input.serviceId, 'delivered', version, at, { deliverables }),
        ]);
        // Not written now: an attempt the workflow never heard of (a worker lost with its task) wrote it first.
        if (!written) return (await recordedDelivery(input.orderId, version)) ?? { deliverables, at, recorded: false };
        return { deliverables, at, recorded: true };
      } catch (err) {
        currentContext()?.log.warn('delivered not recorded; the workflow records it', {
          orderId: input.orderId,
          error: String(err),
        });
        return { deliverables, at, recorded: false };
      }
    },

    /** Stores a bundle's own manifest, listing every part's files with their checksums. */
    async writeBundleManifest(input: FulfillmentInput & { parts: DeliverableRecord[] }): Promise<DeliverableRecord> {
      const byService = new Map<string, { name: string; sha256: string; size: number }[]>();
      for (const p of input.parts) {
        const list = byService.get(p.service_id) ?? [];
        list.push({ name: p.name, sha256: p.sha256, size: p.size });
        byService.set(p.service_id, list);
      }
      const bookingPage = await bookingPageOf(input.orderId, input.serviceId);
      const file = bundleManifest(
        {
          orderId: input.orderId,
          serviceId: input.serviceId,
          inputs: input.inputs,
          issuedAt: input.issuedAt,
          ...(bookingPage ? { bookingPage } : {}),
        },
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
    /**
     * Money already taken for the order whose confirmation never reached the workflow (src/services/payments.ts
     * `findOrderPayment`): the workflow adopts it at its payment deadline or when reconciliation signals it. Read-only.
     */
    async findOrderPayment(req: PaymentLookup): Promise<PaymentRecord | null> {
      const x402 = ports.x402?.payments;
      const found = await findOrderPayment(
        { wallets: ports.wallets, linkpay: ports.linkpay, ...(x402 ? { x402 } : {}) },
        req,
      );
      return found ?? null;
    },

    async refundPayment(req: RefundRequest): Promise<RefundRecord> {
      return refundOrder(payments, req);
    },
  };
}

/** The activity interface the workflows proxy (type only). */
export type Activities = ReturnType<typeof createActivities>;
