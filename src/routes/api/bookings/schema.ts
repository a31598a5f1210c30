/**
 * Hosted booking pages (issue 38 §2): each order holding website-booking gets a page at `/book/{page_id}`; customers
 * read its availability and book without a credential (rate-limited like every request); the page's owner reads and
 * cancels bookings with the owner key, which the buyer issues with the buyer's credential. Operation definitions
 * (src/routes/operation.ts); handlers in ./index.ts, gates in ./policy.ts.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';
import { OrderPath } from '../fields';

const PagePath = z.object({
  page_id: z.string().min(1).max(64).meta({ description: 'Booking page id (bp_...), from the page URL' }),
});
const BookingPath = PagePath.extend({
  booking_id: z.string().min(1).max(64).meta({ description: 'Booking id (bk_...)' }),
});
const html = (description: string): ResponseSpec => ({ description, content: { 'text/html': { schema: z.string() } } });

const ServiceView = z.object({
  id: z.string(),
  name: z.string(),
  duration_minutes: z.number().int(),
  buffer_minutes: z.number().int(),
  price: z.string().nullable(),
});

/** The public facts of a page: the business, its services and its hours in its zone. */
export const BookingPageView = z
  .object({
    page_id: z.string(),
    business: z.object({ name: z.string(), industry: z.string() }),
    timezone: z.string(),
    weekly: z.record(z.string(), z.array(z.array(z.string()).length(2))).meta({
      description: 'Opening windows per day (mon..sun): [["09:00", "17:00"], ...] in the page zone',
    }),
    slot_interval_minutes: z.number().int(),
    min_lead_time_hours: z.number(),
    max_days_ahead: z.number().int(),
    services: z.array(ServiceView),
    links: z.object({ page: z.string(), availability: z.string(), bookings: z.string() }),
  })
  .meta({ id: 'BookingPage' });

const SlotView = z.object({
  start: z.string().meta({ description: 'ISO 8601 with the offset of the page zone' }),
  end: z.string(),
  time: z.string().meta({ description: 'Wall-clock start in the page zone, HH:mm' }),
});

/** Free starts of a service on a date. */
export const AvailabilityView = z
  .object({ timezone: z.string(), date: z.string(), service: z.string(), slots: z.array(SlotView) })
  .meta({ id: 'BookingAvailability' });

/** A booking request: the same JSON as the page's form and the receptionist's booking tool send. */
export const BookingBody = z.object({
  service: z.string().min(1).max(120),
  date: z.iso.date().meta({ description: 'YYYY-MM-DD in the page zone' }),
  time: z
    .string()
    .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/)
    .meta({ description: 'HH:mm in the page zone' }),
  name: z.string().trim().min(1).max(120),
  email: z.email().max(254),
  phone: z.string().max(40).optional(),
  notes: z.string().max(1000).optional(),
});

/** What the customer is told of their booking (no other booking's details). */
export const BookedView = z
  .object({
    booking_id: z.string(),
    status: z.enum(['confirmed', 'cancelled']),
    service: z.object({ id: z.string(), name: z.string() }),
    start: z.string(),
    end: z.string(),
    date: z.string(),
    time: z.string(),
    timezone: z.string(),
  })
  .meta({ id: 'Booked' });

/** A booking as its page's owner reads it. */
export const OwnerBookingView = BookedView.extend({
  page_id: z.string(),
  customer: z.object({
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    notes: z.string().nullable(),
  }),
  created_at: z.string(),
  cancelled_at: z.string().nullable(),
}).meta({ id: 'OwnerBooking' });

/** The owner key as issued. */
export const OwnerKeyView = z
  .object({
    page_id: z.string(),
    page_url: z.string(),
    owner_key: z.string().meta({ description: 'bpk_...: shown once; send it as Bearer to read and cancel bookings' }),
    bookings_url: z.string(),
  })
  .meta({ id: 'BookingPageOwnerKey' });

const PAGE_NOT_FOUND = { booking_page_not_found: 'No such page, or not live yet' } as const;

/** The booking operations. */
export const bookingOperations = {
  page: defineOperation({
    id: 'bookingPage',
    method: 'get',
    path: '/book/{page_id}',
    summary: "The hosted booking page (HTML): the order's delivered website-booking page, in the business's time zone",
    description:
      'The same bytes as website-booking-index.html in the order; its form reads the availability and posts bookings to this service.',
    auth: 'none',
    request: { params: PagePath },
    responses: { '200': html('The page') },
    errors: PAGE_NOT_FOUND,
  }),
  get: defineOperation({
    id: 'getBookingPage',
    method: 'get',
    path: '/api/v1/booking-pages/{page_id}',
    summary: 'A booking page: business, services with durations and buffers, opening hours and time zone',
    auth: 'none',
    request: { params: PagePath },
    responses: { '200': { description: 'The page', json: BookingPageView } },
    errors: PAGE_NOT_FOUND,
  }),
  availability: defineOperation({
    id: 'getBookingAvailability',
    method: 'get',
    path: '/api/v1/booking-pages/{page_id}/availability',
    summary: "Free starts of a service on a date, in the page's time zone",
    description:
      'From the opening hours, the service duration and buffer, the lead time and the horizon in the config.',
    auth: 'none',
    request: {
      params: PagePath,
      query: z.object({
        service: z.string().min(1).max(120).meta({ description: 'Service id' }),
        date: z.iso.date().optional().meta({ description: 'YYYY-MM-DD in the page zone (default: today there)' }),
      }),
    },
    responses: { '200': { description: 'The free starts', json: AvailabilityView } },
    errors: { ...PAGE_NOT_FOUND, slot_unavailable: 'Unknown service' },
  }),
  book: defineOperation({
    id: 'createBooking',
    method: 'post',
    path: '/api/v1/booking-pages/{page_id}/bookings',
    summary: 'Book a slot (public; rate-limited): stored atomically, the owner notified by signed webhook and e-mail',
    auth: 'none',
    request: { params: PagePath, body: BookingBody },
    responses: { '201': { description: 'Booked', json: BookedView } },
    errors: {
      ...PAGE_NOT_FOUND,
      slot_taken: 'Another booking holds that time',
      slot_unavailable: 'Not a start the page offers: unknown service, outside the hours, too soon or too far ahead',
    },
  }),
  list: defineOperation({
    id: 'listBookings',
    method: 'get',
    path: '/api/v1/booking-pages/{page_id}/bookings',
    summary: "The page's bookings, by start (the owner's, with the owner key)",
    auth: 'booking_owner',
    request: {
      params: PagePath,
      query: z.object({
        include_cancelled: z.enum(['true', 'false']).optional(),
        from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Only bookings starting at or after' }),
      }),
    },
    responses: { '200': { description: 'The bookings', json: z.object({ bookings: z.array(OwnerBookingView) }) } },
    errors: PAGE_NOT_FOUND,
  }),
  cancel: defineOperation({
    id: 'cancelBooking',
    method: 'post',
    path: '/api/v1/booking-pages/{page_id}/bookings/{booking_id}/cancel',
    summary: 'Cancel a booking (the owner, with the owner key): the slot is free again, the owner notified',
    auth: 'booking_owner',
    request: { params: BookingPath },
    responses: { '200': { description: 'Cancelled (also when it already was)', json: OwnerBookingView } },
    errors: { ...PAGE_NOT_FOUND, booking_not_found: 'The page has no such booking' },
  }),
  ownerKey: defineOperation({
    id: 'issueBookingOwnerKey',
    method: 'post',
    path: '/api/v1/orders/{order_id}/booking-page/owner-key',
    summary: "Issue the owner key of the order's booking page (the buyer); a new key replaces the previous one",
    auth: 'buyer',
    request: { params: OrderPath },
    responses: { '201': { description: 'The new key, shown once', json: OwnerKeyView } },
    errors: {
      order_not_found: 'Unknown order',
      booking_page_not_found: 'The order has no booking page (not website-booking, or not delivered yet)',
    },
  }),
};
