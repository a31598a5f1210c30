/**
 * Hosted booking pages (issue 38 §2), the application layer: a customer books a slot (checked against the page's
 * config: hours, buffers, lead time, horizon, and stored atomically), the owner cancels one, and the owner is told
 * of both by a signed webhook (Standard Webhooks, through the existing delivery workflows) to the order's endpoints
 * and by e-mail over SMTP. Used by the booking routes.
 */
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { BookingCustomer, BookingDoc, BookingPageDoc } from '../db';
import {
  BookingRules,
  availableSlots,
  cellMinutes,
  cellsOf,
  slotFor,
  todayIn,
  type Slot,
  type SlotRefusal,
} from '../domain/booking';
import { ProblemError, problem } from '../errors';
import type { Mailer } from '../mail/smtp';
import type { BookingRepository } from '../repos/bookings';
import type { OrderRepository } from '../repos/orders';
import type { WebhookRepository } from '../repos/webhooks';
import type { DeliveryStarter } from '../webhooks/fanOut';
import { sendOwnerWebhook } from './ownerNotices';

/** What booking needs: the pages, the order (its owner's e-mail and endpoints), webhook deliveries, a mailer. */
export interface BookingPorts {
  bookings: BookingRepository;
  orders: Pick<OrderRepository, 'get'>;
  webhooks: Pick<WebhookRepository, 'forOrder' | 'ensureMessage'>;
  deliveries: Pick<DeliveryStarter, 'start'>;
  /** Null: SMTP_URL unset, the e-mail is skipped and logged. */
  mailer: Mailer | null;
  publicBaseUrl: string;
  log: { info(fields: object, msg: string): void; warn(fields: object, msg: string): void };
  now?: () => number;
}

/** A booking request as the page's form (and the receptionist's tool) sends it: wall-clock date and time. */
export interface BookingRequest {
  service: string;
  /** `YYYY-MM-DD` in the page's zone. */
  date: string;
  /** `HH:mm` in the page's zone. */
  time: string;
  name: string;
  email: string;
  phone?: string | undefined;
  notes?: string | undefined;
}

const REFUSALS: Record<Exclude<SlotRefusal, 'taken'>, string> = {
  unknown_service: 'The page offers no such service',
  invalid_date: 'Not a date (YYYY-MM-DD)',
  not_a_slot: 'Not a start the opening hours and slot step offer on that day',
  lead_time: 'Too soon: the page books at least its lead time ahead',
  too_far_ahead: 'Too far ahead: the page books a limited number of days ahead',
};

/**
 * The page's rules (its stored config), or 404 while the delivery has not written them.
 * @throws ProblemError 404 `booking_page_not_found`.
 */
export function rulesOf(page: BookingPageDoc): BookingRules {
  const parsed = page.config ? BookingRules.safeParse(page.config) : null;
  if (!parsed?.success) throw problem('booking_page_not_found', 'This booking page is not live yet');
  return parsed.data;
}

/** The cells held on a page around a date (the day before to the day after, in UTC spans). */
async function heldAround(ports: BookingPorts, page: BookingPageDoc, rules: BookingRules, date: string) {
  const day = DateTime.fromISO(date, { zone: rules.availability.timezone });
  const from = day.minus({ days: 1 }).toJSDate();
  const to = day.plus({ days: 2 }).toJSDate();
  return ports.bookings.held(page._id, from, to, cellMinutes(rules) * 60_000);
}

/**
 * The free starts of a service on a date, in the page's zone.
 * @throws ProblemError 404 `booking_page_not_found`; 422 `slot_unavailable` for an unknown service.
 */
export async function pageAvailability(
  ports: BookingPorts,
  page: BookingPageDoc,
  serviceId: string,
  date: string | undefined,
): Promise<{ timezone: string; date: string; service: string; slots: Slot[] }> {
  const rules = rulesOf(page);
  if (!rules.services.some((s) => s.id === serviceId))
    throw problem('slot_unavailable', REFUSALS.unknown_service, { param: 'service', reason: 'unknown_service' });
  const now = ports.now?.() ?? Date.now();
  const day = date ?? todayIn(rules, now);
  const busy = await heldAround(ports, page, rules, day);
  return {
    timezone: rules.availability.timezone,
    date: day,
    service: serviceId,
    slots: availableSlots(rules, serviceId, day, now, busy),
  };
}

/**
 * Books a slot: checks it against the page's rules and what is held, then claims its time atomically.
 * @throws ProblemError 404 `booking_page_not_found`; 422 `slot_unavailable` (with `reason`); 409 `slot_taken`.
 */
export async function createBooking(
  ports: BookingPorts,
  page: BookingPageDoc,
  req: BookingRequest,
): Promise<BookingDoc> {
  const rules = rulesOf(page);
  const now = ports.now?.() ?? Date.now();
  const busy = await heldAround(ports, page, rules, req.date);
  const found = slotFor(rules, req.service, req.date, req.time, now, busy);
  if ('refused' in found) {
    if (found.refused === 'taken') throw problem('slot_taken', 'That time is already booked; choose another slot');
    throw problem('slot_unavailable', REFUSALS[found.refused], { reason: found.refused });
  }
  const { slot, service } = found;
  const customer: BookingCustomer = {
    name: req.name,
    email: req.email,
    phone: req.phone || null,
    notes: req.notes || null,
  };
  const doc: BookingDoc = {
    _id: `bk_${randomBytes(12).toString('base64url')}`,
    page_id: page._id,
    order_id: page.order_id,
    service_id: service.id,
    service_name: service.name,
    start: new Date(slot.startMs),
    end: new Date(slot.endMs),
    held_until: new Date(slot.heldUntilMs),
    date: req.date,
    time: slot.time,
    timezone: rules.availability.timezone,
    customer,
    status: 'confirmed',
    created_at: new Date(now),
    cancelled_at: null,
  };
  const outcome = await ports.bookings.book(doc, cellsOf(rules, { start: slot.startMs, end: slot.heldUntilMs }));
  if (outcome === 'taken') throw problem('slot_taken', 'That time is already booked; choose another slot');
  await notifyOwner(ports, page, doc, 'booking.created');
  return doc;
}

/**
 * Cancels a booking (the owner's), freeing its slot; the owner is notified once, on the call that cancelled it.
 * @throws ProblemError 404 `booking_not_found`.
 */
export async function cancelBooking(ports: BookingPorts, page: BookingPageDoc, bookingId: string): Promise<BookingDoc> {
  const result = await ports.bookings.cancel(page._id, bookingId);
  if (!result) throw problem('booking_not_found', `The page has no booking ${bookingId}`);
  if (result.changed) await notifyOwner(ports, page, result.booking, 'booking.cancelled');
  return result.booking;
}

/** The public form of a booking in webhooks and e-mail (the customer's details are the owner's to read). */
export function bookingData(b: BookingDoc, publicBaseUrl: string): Record<string, unknown> {
  return {
    booking_id: b._id,
    page_id: b.page_id,
    order_id: b.order_id,
    status: b.status,
    service: { id: b.service_id, name: b.service_name },
    start: DateTime.fromJSDate(b.start, { zone: b.timezone }).toISO(),
    end: DateTime.fromJSDate(b.end, { zone: b.timezone }).toISO(),
    date: b.date,
    time: b.time,
    timezone: b.timezone,
    customer: b.customer,
    created_at: b.created_at.toISOString(),
    cancelled_at: b.cancelled_at?.toISOString() ?? null,
    links: { page: `${publicBaseUrl}/book/${b.page_id}` },
  };
}

/**
 * The event a booking webhook carries and its exact body: `{ type, timestamp, data: { event_id, ...bookingData } }`,
 * with `evt_<booking id>_created|cancelled` as event id (the `webhook-id` it is signed with). The delivered n8n
 * bookings flow reads this shape (src/products/deliverables/automation-wf.ts).
 */
export function bookingEventBody(
  type: 'booking.created' | 'booking.cancelled',
  b: BookingDoc,
  publicBaseUrl: string,
): { eventId: string; payload: string } {
  const eventId = `evt_${b._id}_${type === 'booking.created' ? 'created' : 'cancelled'}`;
  const at = type === 'booking.created' ? b.created_at : (b.cancelled_at ?? new Date());
  const data = bookingData(b, publicBaseUrl);
  return {
    eventId,
    payload: JSON.stringify({ type, timestamp: at.toISOString(), data: { event_id: eventId, ...data } }),
  };
}

/** Where the owner's e-mail goes: the order's booking or contact e-mail input, else the buyer's e-mail. */
export function ownerEmail(inputs: Record<string, unknown>, orderEmail: string | null): string | null {
  for (const key of ['booking_email', 'notification_email', 'contact_email', 'email']) {
    const v = inputs[key];
    if (typeof v === 'string' && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim())) return v.trim();
  }
  return orderEmail;
}

/**
 * Tells the page's owner: one signed webhook message per endpoint of the order (its own `webhook_url`, and the
 * endpoints of its agent) that subscribed to the event, delivered by the webhook delivery workflow; and one e-mail.
 * A failure to reach either is logged, never undoes the booking.
 */
async function notifyOwner(
  ports: BookingPorts,
  page: BookingPageDoc,
  b: BookingDoc,
  type: 'booking.created' | 'booking.cancelled',
): Promise<void> {
  const order = await ports.orders.get(page.order_id);
  const { eventId } = bookingEventBody(type, b, ports.publicBaseUrl);
  try {
    const at = type === 'booking.created' ? b.created_at : (b.cancelled_at ?? new Date());
    await sendOwnerWebhook(ports, {
      orderId: page.order_id,
      agentId: order?.agent_id ?? null,
      eventId,
      type,
      at,
      data: bookingData(b, ports.publicBaseUrl),
    });
  } catch (err) {
    ports.log.warn({ err: String(err), booking_id: b._id, type }, 'booking webhook not started');
  }
  const to = ownerEmail(order?.inputs ?? {}, order?.email ?? null);
  if (!ports.mailer || !to) {
    ports.log.info(
      { booking_id: b._id, type, reason: ports.mailer ? 'no owner e-mail on the order' : 'SMTP_URL unset' },
      'booking e-mail skipped',
    );
    return;
  }
  const when = DateTime.fromJSDate(b.start, { zone: b.timezone }).toFormat("cccc d LLLL yyyy 'at' HH:mm");
  const created = type === 'booking.created';
  try {
    await ports.mailer.send({
      to,
      replyTo: b.customer.email,
      subject: `${created ? 'New booking' : 'Booking cancelled'}: ${b.service_name}, ${when} (${b.timezone})`,
      text: [
        created
          ? 'A customer booked through your booking page.'
          : 'This booking was cancelled; the slot is free again.',
        '',
        `Service:  ${b.service_name}`,
        `When:     ${when} (${b.timezone})`,
        `Name:     ${b.customer.name}`,
        `E-mail:   ${b.customer.email}`,
        ...(b.customer.phone ? [`Phone:    ${b.customer.phone}`] : []),
        ...(b.customer.notes ? ['', 'Notes:', b.customer.notes] : []),
        '',
        `Booking:  ${b._id}`,
        `Page:     ${ports.publicBaseUrl}/book/${b.page_id}`,
        `Manage:   GET ${ports.publicBaseUrl}/api/v1/booking-pages/${b.page_id}/bookings (Bearer: your owner key)`,
      ].join('\n'),
    });
  } catch (err) {
    ports.log.warn({ err: String(err), booking_id: b._id, type }, 'booking e-mail not sent');
  }
}

/** True for the problem a slot conflict answers (tests, callers that retry another slot). */
export const isSlotTaken = (err: unknown): boolean => err instanceof ProblemError && err.code === 'slot_taken';
