/**
 * The rules of a hosted booking page (issue 38 §2): which starts a service can be booked at, from the opening hours,
 * the service's duration and buffer, the lead time and how far ahead the page books, all read from the page's config
 * (the `website-booking-config.json` the buyer downloads, stored with the page). Wall-clock times are the business's
 * time zone; every instant is computed by Luxon in that zone, so a day that changes to or from summer time has the
 * right starts (a start in the skipped hour does not exist; the repeated hour is the first one).
 *
 * Pure: no clock (the caller passes `now`), no I/O. A booking holds [start, start + duration + buffer): the buffer
 * follows each appointment, so no two appointments come closer than it. Storage holds that span as cells of
 * {@link cellMinutes} minutes, one document each under a unique key, which is what makes a booking atomic
 * (src/repos/bookings.ts).
 */
import { DateTime } from 'luxon';
import { z } from 'zod';

/** Day keys of the weekly hours, Monday first (Luxon's weekday 1..7). */
export const WEEK_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

const HHMM = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'HH:mm');

/** One bookable service as the config lists it (minutes are whole minutes). */
export const BookingServiceRules = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  // Any whole minutes a buyer wrote: a page whose config would not parse would not book at all.
  duration_minutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
  buffer_minutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60),
});
export type BookingServiceRules = z.infer<typeof BookingServiceRules>;

/**
 * The part of `website-booking-config.json` the booking engine reads: services, and `availability` (IANA zone,
 * weekly windows `[["09:00","17:00"], ...]` per day, slot step in minutes, lead time in hours, days ahead).
 * Other members are kept as they are.
 */
export const BookingRules = z.looseObject({
  services: z.array(BookingServiceRules).min(1),
  availability: z.looseObject({
    timezone: z.string().refine((zone) => DateTime.local().setZone(zone).isValid, 'an IANA time zone'),
    weekly: z.record(z.enum(WEEK_DAYS), z.array(z.tuple([HHMM, HHMM]))),
    slot_interval_minutes: z.number().int().min(5).max(240),
    min_lead_time_hours: z
      .number()
      .min(0)
      .max(24 * 90),
    max_days_ahead: z.number().int().min(0).max(730),
  }),
});
export type BookingRules = z.infer<typeof BookingRules>;

/** A span of time in epoch milliseconds, end excluded. */
export interface Interval {
  start: number;
  end: number;
}

/** One start a service can be booked at. */
export interface Slot {
  /** ISO 8601 with the zone's offset, e.g. `2026-12-07T09:30:00.000+11:00`. */
  start: string;
  end: string;
  /** Wall-clock start in the page's zone, `HH:mm`. */
  time: string;
  startMs: number;
  /** End of the appointment, epoch ms. */
  endMs: number;
  /** End of what the booking holds (appointment and buffer), epoch ms. */
  heldUntilMs: number;
}

/** Why a start cannot be booked. */
export type SlotRefusal = 'unknown_service' | 'invalid_date' | 'not_a_slot' | 'lead_time' | 'too_far_ahead' | 'taken';

const MINUTE = 60_000;

function minutesOf(hhmm: string): number {
  const [h = '0', m = '0'] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The cell size in minutes of a page's stored bookings: the largest step every start and every held span is a
 * multiple of (slot step, each duration plus buffer, each window's opening minute), and a divisor of 15 so that
 * cells align with every zone's UTC offset (all are multiples of 15 minutes).
 */
export function cellMinutes(rules: BookingRules): number {
  let g = 15;
  g = gcd(g, rules.availability.slot_interval_minutes);
  for (const s of rules.services) g = gcd(g, s.duration_minutes + s.buffer_minutes);
  for (const windows of Object.values(rules.availability.weekly))
    for (const [from] of windows ?? []) g = gcd(g, minutesOf(from));
  return Math.max(1, g);
}

/** The cells (epoch ms of each cell's start) a held span covers. */
export function cellsOf(rules: BookingRules, held: Interval): number[] {
  const step = cellMinutes(rules) * MINUTE;
  const out: number[] = [];
  for (let t = Math.floor(held.start / step) * step; t < held.end; t += step) out.push(t);
  return out;
}

/** Today's date in the page's zone (`YYYY-MM-DD`). */
export function todayIn(rules: BookingRules, nowMs: number): string {
  return DateTime.fromMillis(nowMs, { zone: rules.availability.timezone }).toISODate() ?? '';
}

/** The starts of `service` on `date` by the opening hours alone (no lead time, horizon or bookings). */
function candidates(rules: BookingRules, service: BookingServiceRules, date: string): Slot[] {
  const zone = rules.availability.timezone;
  const day = DateTime.fromISO(date, { zone });
  if (!day.isValid || day.toISODate() !== date) return [];
  const key = WEEK_DAYS[day.weekday - 1] as WeekDay;
  const out: Slot[] = [];
  for (const [from, to] of rules.availability.weekly[key] ?? []) {
    const close = minutesOf(to);
    for (
      let m = minutesOf(from);
      m + service.duration_minutes <= close;
      m += rules.availability.slot_interval_minutes
    ) {
      const local = day.set({ hour: Math.floor(m / 60), minute: m % 60, second: 0, millisecond: 0 });
      // A wall-clock time skipped by a change to summer time is moved by Luxon: it is not a start.
      if (!local.isValid || local.hour * 60 + local.minute !== m || local.toISODate() !== date) continue;
      const startMs = local.toMillis();
      const endMs = startMs + service.duration_minutes * MINUTE;
      out.push({
        start: local.toISO() ?? '',
        end: DateTime.fromMillis(endMs, { zone }).toISO() ?? '',
        time: local.toFormat('HH:mm'),
        startMs,
        endMs,
        heldUntilMs: endMs + service.buffer_minutes * MINUTE,
      });
    }
  }
  return out.sort((a, b) => a.startMs - b.startMs);
}

function overlaps(a: Interval, busy: readonly Interval[]): boolean {
  return busy.some((b) => a.start < b.end && b.start < a.end);
}

/** Why `slot` (a candidate of `date`) cannot be booked now, or null when it can. */
function refusalOf(rules: BookingRules, slot: Slot, date: string, nowMs: number, busy: readonly Interval[]) {
  if (slot.startMs < nowMs + rules.availability.min_lead_time_hours * 3_600_000) return 'lead_time' as const;
  const last = DateTime.fromMillis(nowMs, { zone: rules.availability.timezone })
    .plus({ days: rules.availability.max_days_ahead })
    .toISODate();
  if (last !== null && date > last) return 'too_far_ahead' as const;
  if (overlaps({ start: slot.startMs, end: slot.heldUntilMs }, busy)) return 'taken' as const;
  return null;
}

/**
 * The free starts of a service on a date (`YYYY-MM-DD` in the page's zone): inside the day's opening windows (the
 * appointment ends by closing; its buffer may run past it), at least the lead time after `nowMs`, no later than
 * `max_days_ahead` days after today, and holding nothing `busy` holds (busy: the spans or cells already taken).
 * Empty for an unknown service or an invalid date.
 */
export function availableSlots(
  rules: BookingRules,
  serviceId: string,
  date: string,
  nowMs: number,
  busy: readonly Interval[],
): Slot[] {
  const service = rules.services.find((s) => s.id === serviceId);
  if (!service) return [];
  return candidates(rules, service, date).filter((s) => refusalOf(rules, s, date, nowMs, busy) === null);
}

/**
 * The slot a request names (a service, a date and a wall-clock `HH:mm` in the page's zone), or why it cannot be
 * booked: `not_a_slot` when the hours and slot step have no such start, then lead time, horizon, and `taken`.
 */
export function slotFor(
  rules: BookingRules,
  serviceId: string,
  date: string,
  time: string,
  nowMs: number,
  busy: readonly Interval[],
): { slot: Slot; service: BookingServiceRules } | { refused: SlotRefusal } {
  const service = rules.services.find((s) => s.id === serviceId);
  if (!service) return { refused: 'unknown_service' };
  const day = DateTime.fromISO(date, { zone: rules.availability.timezone });
  if (!day.isValid || day.toISODate() !== date) return { refused: 'invalid_date' };
  const slot = candidates(rules, service, date).find((s) => s.time === time);
  if (!slot) return { refused: 'not_a_slot' };
  const refused = refusalOf(rules, slot, date, nowMs, busy);
  return refused ? { refused } : { slot, service };
}
