/**
 * Public forms of booking pages and bookings (./schema.ts): the customer sees their own booking's time and service,
 * the owner also who booked.
 */
import { DateTime } from 'luxon';
import type { z } from 'zod';
import type { BookingDoc, BookingPageDoc } from '../../../db';
import type { BookingRules } from '../../../domain/booking';
import type { BookedView, BookingPageView, OwnerBookingView } from './schema';

/** The page's public facts from its stored config. */
export function pageView(page: BookingPageDoc, rules: BookingRules, base: string): z.infer<typeof BookingPageView> {
  const business = (rules.business ?? {}) as { name?: unknown; industry?: unknown };
  const api = `${base}/api/v1/booking-pages/${page._id}`;
  return {
    page_id: page._id,
    business: { name: String(business.name ?? ''), industry: String(business.industry ?? '') },
    timezone: rules.availability.timezone,
    weekly: rules.availability.weekly,
    slot_interval_minutes: rules.availability.slot_interval_minutes,
    min_lead_time_hours: rules.availability.min_lead_time_hours,
    max_days_ahead: rules.availability.max_days_ahead,
    services: rules.services.map((s) => ({
      id: s.id,
      name: s.name,
      duration_minutes: s.duration_minutes,
      buffer_minutes: s.buffer_minutes,
      price: typeof s.price === 'string' ? s.price : null,
    })),
    links: { page: `${base}/book/${page._id}`, availability: `${api}/availability`, bookings: `${api}/bookings` },
  };
}

/** A booking as its customer is told it. */
export function bookedView(b: BookingDoc): z.infer<typeof BookedView> {
  return {
    booking_id: b._id,
    // A void booking is never read out of the repository (it only fences a dead claim): shown, it would be cancelled.
    status: b.status === 'void' ? 'cancelled' : b.status,
    service: { id: b.service_id, name: b.service_name },
    start: DateTime.fromJSDate(b.start, { zone: b.timezone }).toISO() ?? b.start.toISOString(),
    end: DateTime.fromJSDate(b.end, { zone: b.timezone }).toISO() ?? b.end.toISOString(),
    date: b.date,
    time: b.time,
    timezone: b.timezone,
  };
}

/** A booking as the page's owner reads it. */
export function ownerBookingView(b: BookingDoc): z.infer<typeof OwnerBookingView> {
  return {
    ...bookedView(b),
    page_id: b.page_id,
    customer: b.customer,
    created_at: b.created_at.toISOString(),
    cancelled_at: b.cancelled_at?.toISOString() ?? null,
  };
}
