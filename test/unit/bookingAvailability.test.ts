/**
 * The booking engine's availability (src/domain/booking.ts, issue 38 §2) over generated configs: zones with and
 * without summer time, weekly windows, slot steps, durations, buffers, lead times, horizons and existing bookings.
 * Each slot offered lies in the day's opening hours in the page's zone, respects the lead time and the horizon,
 * and holds nothing already held; booking the offered slots one after another never double-books; every start the
 * hours allow that is not refused for one of those reasons is offered.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  BookingRules,
  WEEK_DAYS,
  availableSlots,
  cellsOf,
  slotFor,
  type Interval,
  type WeekDay,
} from '../../src/domain/booking';

const ZONES = [
  'UTC',
  'Europe/London',
  'America/New_York',
  'Australia/Melbourne',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/Sao_Paulo',
];

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** One day's windows: up to two, in 5-minute steps, non-overlapping. */
const windows = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 1, max: 120 })), { maxLength: 2 })
  .map((ws) => {
    const out: [string, string][] = [];
    let after = 0;
    for (const [a, len] of ws.sort((x, y) => x[0] - y[0])) {
      const from = Math.max(a * 5, after);
      const to = Math.min(from + len * 5, 1440);
      if (to <= from) continue;
      out.push([hhmm(from), to === 1440 ? '24:00' : hhmm(to)]);
      after = to;
    }
    return out;
  });

const rulesArb = fc
  .record({
    timezone: fc.constantFrom(...ZONES),
    weekly: fc.tuple(windows, windows, windows, windows, windows, windows, windows),
    slot: fc.constantFrom(5, 10, 15, 20, 30, 45, 60),
    lead: fc.constantFrom(0, 0.5, 2, 24, 48),
    maxDays: fc.integer({ min: 0, max: 60 }),
    services: fc.array(
      fc.record({
        duration: fc.integer({ min: 1, max: 36 }).map((x) => x * 5),
        buffer: fc.constantFrom(0, 5, 10, 15, 30),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map((r) =>
    BookingRules.parse({
      services: r.services.map((s, i) => ({
        id: `s${i}`,
        name: `Service ${i}`,
        duration_minutes: s.duration,
        buffer_minutes: s.buffer,
      })),
      availability: {
        timezone: r.timezone,
        weekly: Object.fromEntries(WEEK_DAYS.map((d, i) => [d, r.weekly[i] ?? []])),
        slot_interval_minutes: r.slot,
        min_lead_time_hours: r.lead,
        max_days_ahead: r.maxDays,
      },
    }),
  );

/** A "now" in 2026-2027 (both summer-time changes of every zone above fall in it). */
const nowArb = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 11, 1) });

const minutes = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

describe('availability (property-based)', () => {
  it('offers only starts inside the hours, after the lead time, within the horizon, and free', () => {
    fc.assert(
      fc.property(
        rulesArb,
        nowArb,
        fc.integer({ min: -1, max: 62 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 48 * 60 }), fc.integer({ min: 5, max: 240 })), { maxLength: 6 }),
        (rules, now, dayOffset, held) => {
          const zone = rules.availability.timezone;
          const date = DateTime.fromMillis(now, { zone }).plus({ days: dayOffset }).toISODate() ?? '';
          const dayStart = DateTime.fromISO(date, { zone }).toMillis();
          const busy: Interval[] = held.map(([off, len]) => ({
            start: dayStart + off * 60_000,
            end: dayStart + (off + len) * 60_000,
          }));
          const last = DateTime.fromMillis(now, { zone }).plus({ days: rules.availability.max_days_ahead }).toISODate();
          for (const service of rules.services) {
            const slots = availableSlots(rules, service.id, date, now, busy);
            const offered = new Set(slots.map((s) => s.startMs));
            for (const s of slots) {
              const local = DateTime.fromMillis(s.startMs, { zone });
              expect(local.toISODate()).toBe(date);
              expect(local.toFormat('HH:mm')).toBe(s.time);
              const day = WEEK_DAYS[local.weekday - 1] as WeekDay;
              const m = local.hour * 60 + local.minute;
              const inside = (rules.availability.weekly[day] ?? []).some(
                ([from, to]) =>
                  m >= minutes(from) &&
                  m + service.duration_minutes <= minutes(to) &&
                  (m - minutes(from)) % rules.availability.slot_interval_minutes === 0,
              );
              expect(inside).toBe(true);
              expect(s.startMs).toBeGreaterThanOrEqual(now + rules.availability.min_lead_time_hours * 3_600_000);
              expect(date <= (last ?? '')).toBe(true);
              expect(s.endMs - s.startMs).toBe(service.duration_minutes * 60_000);
              expect(s.heldUntilMs - s.endMs).toBe(service.buffer_minutes * 60_000);
              expect(busy.some((b) => s.startMs < b.end && b.start < s.heldUntilMs)).toBe(false);
            }
            // Completeness: every start the hours allow is offered, or refused for a reason that holds.
            const day = WEEK_DAYS[DateTime.fromISO(date, { zone }).weekday - 1] as WeekDay;
            for (const [from, to] of rules.availability.weekly[day] ?? []) {
              for (
                let m = minutes(from);
                m + service.duration_minutes <= minutes(to);
                m += rules.availability.slot_interval_minutes
              ) {
                const r = slotFor(rules, service.id, date, hhmm(m), now, busy);
                if ('slot' in r) expect(offered.has(r.slot.startMs)).toBe(true);
                else expect(['not_a_slot', 'lead_time', 'too_far_ahead', 'taken']).toContain(r.refused);
              }
            }
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('booking the offered slots one after another never holds the same time twice (also as stored cells)', () => {
    fc.assert(
      fc.property(
        rulesArb,
        nowArb,
        fc.integer({ min: 0, max: 10 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (rules, now, off, picks) => {
          const zone = rules.availability.timezone;
          const date = DateTime.fromMillis(now, { zone }).plus({ days: off }).toISODate() ?? '';
          const booked: Interval[] = [];
          const cells = new Set<number>();
          for (const [i, pick] of picks.entries()) {
            const service = rules.services[i % rules.services.length];
            if (!service) continue;
            const slots = availableSlots(rules, service.id, date, now, booked);
            const s = slots[pick % Math.max(1, slots.length)];
            if (!s) continue;
            const held = { start: s.startMs, end: s.heldUntilMs };
            expect(booked.some((b) => held.start < b.end && b.start < held.end)).toBe(false);
            const mine = cellsOf(rules, held);
            for (const c of mine) expect(cells.has(c)).toBe(false);
            mine.forEach((c) => cells.add(c));
            booked.push(held);
            // The same start again is refused as taken.
            const again = slotFor(rules, service.id, date, s.time, now, booked);
            expect(again).toEqual({ refused: 'taken' });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('knows summer time: no start in the skipped hour, lengths in real minutes', () => {
    const rules = BookingRules.parse({
      services: [{ id: 'a', name: 'A', duration_minutes: 60, buffer_minutes: 0 }],
      availability: {
        timezone: 'Europe/London',
        weekly: Object.fromEntries(WEEK_DAYS.map((d) => [d, [['00:00', '05:00']]])),
        slot_interval_minutes: 30,
        min_lead_time_hours: 0,
        max_days_ahead: 30,
      },
    });
    const now = Date.UTC(2026, 2, 20);
    const times = availableSlots(rules, 'a', '2026-03-29', now, []).map((s) => s.time);
    expect(times).not.toContain('01:00');
    expect(times).not.toContain('01:30');
    expect(times).toContain('02:00');
    const s = availableSlots(rules, 'a', '2026-03-29', now, []).find((x) => x.time === '00:30');
    expect(s?.start).toBe('2026-03-29T00:30:00.000+00:00');
    expect(s?.end).toBe('2026-03-29T02:30:00.000+01:00');
  });
});
