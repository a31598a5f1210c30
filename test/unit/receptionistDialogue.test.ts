/**
 * The hosted receptionist's readers and deterministic dialogue (issue 38 §1; src/domain/receptionist.ts,
 * src/services/receptionist.ts) over in-memory ports: days in a zone, times, choices, names, services and intents are
 * read as a visitor writes them; the subscription's state maps onto the receptionist's; the dialogue books offered
 * free times only, never one slot twice, whatever visitors say and in whatever order (fast-check), and hands urgent
 * cases over once it has a contact.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { BookingDoc, ConversationHandoff } from '../../src/db';
import { BookingRules, availableSlots, cellsOf, slotFor, type Interval } from '../../src/domain/booking';
import {
  choiceIn,
  dayIn,
  emailIn,
  intentOf,
  nameIn,
  phoneIn,
  receptionistStateOf,
  serviceIn,
  timeIn,
} from '../../src/domain/receptionist';
import type { SubscriptionState } from '../../src/domain/subscription';
import { problem } from '../../src/errors';
import { FRESH, dialogueTurn, type Dialogue, type TurnContext } from '../../src/services/receptionist';

const ZONE = 'Europe/London';
// Wednesday 2 December 2026, 10:00 in London.
const NOW = DateTime.fromISO('2026-12-02T10:00', { zone: ZONE }).toMillis();

describe('readers', () => {
  it('reads days in the business zone', () => {
    expect(dayIn('2026-12-14 please', ZONE, NOW)).toBe('2026-12-14');
    expect(dayIn('tomorrow morning', ZONE, NOW)).toBe('2026-12-03');
    expect(dayIn('today', ZONE, NOW)).toBe('2026-12-02');
    expect(dayIn('Friday', ZONE, NOW)).toBe('2026-12-04');
    // The same weekday is the next one, not today.
    expect(dayIn('wednesday', ZONE, NOW)).toBe('2026-12-09');
    expect(dayIn('14 December', ZONE, NOW)).toBe('2026-12-14');
    expect(dayIn('March 3rd', ZONE, NOW)).toBe('2027-03-03');
    expect(dayIn('1 December', ZONE, NOW)).toBe('2027-12-01');
    expect(dayIn('whenever', ZONE, NOW)).toBeNull();
    // Late evening in UTC is already tomorrow in Auckland.
    const late = Date.parse('2026-12-02T20:00:00Z');
    expect(dayIn('today', 'Pacific/Auckland', late)).toBe('2026-12-03');
  });

  it('reads times, choices, names, contacts, services and intents', () => {
    expect(timeIn('2pm')).toBe('14:00');
    expect(timeIn('at 9:30')).toBe('09:30');
    expect(timeIn('14.30 works')).toBe('14:30');
    expect(timeIn('12am')).toBe('00:00');
    expect(timeIn('noon')).toBe('12:00');
    expect(timeIn('2')).toBeNull();
    expect(choiceIn('the second one', 5)).toBe(1);
    expect(choiceIn('3', 5)).toBe(2);
    expect(choiceIn('9', 5)).toBeNull();
    expect(nameIn("Hi, I'm Sam Lee")).toBe('Sam Lee');
    expect(nameIn('Sam Lee, sam@example.com')).toBe('Sam Lee');
    expect(nameIn('what time do you open?')).toBeNull();
    expect(emailIn('mail me at sam.lee@example.co.uk thanks')).toBe('sam.lee@example.co.uk');
    expect(phoneIn('call +44 7700 900123')).toBe('+44 7700 900123');
    const services = [
      { id: 'cleaning', name: 'Cleaning' },
      { id: 'whitening', name: 'Teeth whitening' },
    ];
    // Two services share a word each: a tie is no answer (the dialogue asks which).
    expect(serviceIn('I need my teeth cleaned', services)?.id).toBeUndefined();
    expect(serviceIn('I need them cleaned', services)?.id).toBe('cleaning');
    expect(serviceIn('a cleaning please', services)?.id).toBe('cleaning');
    expect(serviceIn('whitening', services)?.id).toBe('whitening');
    expect(intentOf('This is urgent!')).toBe('urgent');
    expect(intentOf('I want to speak to a person')).toBe('urgent');
    expect(intentOf('Can I book for Friday?')).toBe('book');
    expect(intentOf('When do you open?')).toBe('hours');
    expect(intentOf('How much is it?')).toBe('services');
  });

  it('maps the subscription onto the receptionist', () => {
    const base: SubscriptionState = {
      order_id: 'ord_x',
      status: 'active',
      current_period: { number: 2, start: '2026-12-01T00:00:00Z', end: '2027-01-01T00:00:00Z' },
      next_charge_at: null,
      cancel_at_period_end: false,
      cancel_reason: null,
      ended_at: null,
      dunning: null,
      open_invoice: null,
    };
    expect(receptionistStateOf(base).state).toBe('active');
    expect(receptionistStateOf({ ...base, status: 'past_due' })).toEqual({
      state: 'suspended',
      reason: 'the renewal of period 2 is unpaid',
    });
    const invoice = { invoice_id: 'inv', period: 2, amount_micros: 1, due_at: '2026-12-08T00:00:00Z' };
    expect(receptionistStateOf({ ...base, open_invoice: invoice }).state).toBe('suspended');
    expect(receptionistStateOf({ ...base, status: 'cancelled' }).state).toBe('ended');
    expect(receptionistStateOf({ ...base, status: 'suspended' }).state).toBe('ended');
  });
});

const RULES = BookingRules.parse({
  services: [
    { id: 'cleaning', name: 'Cleaning', duration_minutes: 30, buffer_minutes: 10 },
    { id: 'whitening', name: 'Whitening', duration_minutes: 60, buffer_minutes: 10 },
  ],
  availability: {
    timezone: ZONE,
    weekly: {
      mon: [['09:00', '12:00']],
      tue: [],
      wed: [['09:00', '12:00']],
      thu: [],
      fri: [['09:00', '12:00']],
      sat: [],
      sun: [],
    },
    slot_interval_minutes: 15,
    min_lead_time_hours: 2,
    max_days_ahead: 30,
  },
});

/** An in-memory calendar behind the dialogue's ports: availability and atomic booking by cells, as the service. */
function calendar() {
  const cells = new Set<number>();
  const bookings: BookingDoc[] = [];
  const handoffs: { summary: string; contact: string | null }[] = [];
  const busy = (): Interval[] => [...cells].map((t) => ({ start: t, end: t + 5 * 60_000 }));
  const ctx = (): TurnContext => ({
    facts: {
      business: 'Cedar Dental',
      greeting: 'Hi',
      phone: '+442079460000',
      escalationEmail: null,
      rules: RULES,
      faq: [],
    },
    now: NOW,
    transcript: [],
    slots: (service, date) => Promise.resolve(availableSlots(RULES, service, date, NOW, busy()).map((s) => s.time)),
    book(d) {
      const found = slotFor(RULES, d.service ?? '', d.date ?? '', d.time ?? '', NOW, busy());
      if ('refused' in found)
        return Promise.reject(problem(found.refused === 'taken' ? 'slot_taken' : 'slot_unavailable', found.refused));
      const held = cellsOf(RULES, { start: found.slot.startMs, end: found.slot.heldUntilMs });
      if (held.some((c) => cells.has(c))) return Promise.reject(problem('slot_taken', 'taken'));
      for (const c of held) cells.add(c);
      const b = {
        _id: `bk_${bookings.length + 1}`,
        date: d.date,
        time: d.time,
        service_name: found.service.name,
      } as BookingDoc;
      bookings.push(b);
      return Promise.resolve(b);
    },
    handOver(summary, contact) {
      handoffs.push({ summary, contact });
      return Promise.resolve({ at: new Date(NOW), summary, contact, emailed_to: null } as ConversationHandoff);
    },
  });
  return { ctx, bookings, handoffs, cells };
}

async function talk(cal: ReturnType<typeof calendar>, lines: string[], start: Dialogue = { ...FRESH }) {
  let d = start;
  const said: string[] = [];
  for (const line of lines) {
    const out = await dialogueTurn(cal.ctx(), d, line);
    d = out.dialogue;
    said.push(out.replies.join(' '));
  }
  return { d, said };
}

describe('the deterministic dialogue', () => {
  it('books name → e-mail → service → day → time → confirm, and does not offer that time again', async () => {
    const cal = calendar();
    const { said } = await talk(cal, [
      'Hello, can I book an appointment?',
      'Sam Lee',
      'sam@example.com',
      '1',
      'Friday',
      '9:00',
      'yes',
    ]);
    expect(said[0]).toMatch(/name/);
    expect(said[2]).toMatch(/Which service/);
    expect(said[4]).toContain('Free times for Cleaning on Friday 4 December (Europe/London): 09:00, 09:15');
    expect(said[5]).toMatch(/Shall I book it/);
    expect(said[6]).toMatch(/^Booked: Cleaning on Friday 4 December at 09:00/);
    expect(cal.bookings).toHaveLength(1);
    const second = await talk(cal, ['book a cleaning on friday', 'Alex', 'alex@example.com', '09:00']);
    expect(second.said[2]).not.toMatch(/: 09:00/);
    expect(second.said[3]).toContain('09:00 is not free on Friday 4 December');
  });

  it('moves to the next free day, answers hours, and hands urgent cases over once it has a contact', async () => {
    const cal = calendar();
    const { said, d } = await talk(cal, ['I want to book whitening', 'Sam', 'sam@example.com', 'Thursday']);
    expect(said[3]).toContain(
      'There are no free times on Thursday 3 December; the next free day is Friday 4 December.',
    );
    expect(d.date).toBe('2026-12-04');
    expect((await talk(cal, ['What are your opening hours?'])).said[0]).toContain(
      'Monday 09:00–12:00; Wednesday 09:00–12:00; Friday 09:00–12:00 (Europe/London)',
    );
    const urgent = await talk(cal, ['Urgent: my tooth is bleeding', 'you can call 07700 900123']);
    expect(urgent.said[0]).toContain('call +442079460000');
    expect(cal.handoffs).toEqual([{ summary: 'Urgent: my tooth is bleeding', contact: '07700 900123' }]);
    // Mid-booking, with the e-mail known, it hands over at once and keeps the booking where it was.
    const mid = await talk(cal, ['I need to speak to a person'], d);
    expect(mid.said[0]).toContain('they will contact you at sam@example.com');
    expect(cal.handoffs).toHaveLength(2);
  });

  it('whatever visitors say, in any order and any number of chats, only offered free times are booked, never twice', async () => {
    const words = fc.constantFrom(
      'book',
      'I want to book a cleaning',
      'whitening please',
      'Sam Lee',
      'sam@example.com',
      'Friday',
      'Monday',
      'next Wednesday',
      '2026-12-07',
      '9:00',
      '10:30',
      '11:15am',
      '1',
      '2',
      'the second',
      'yes',
      'no',
      'what are your hours?',
      'how much?',
      'hmm',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(words, { maxLength: 14 }), { minLength: 1, maxLength: 4 }), async (chats) => {
        const cal = calendar();
        const states = chats.map(() => ({ ...FRESH }));
        // Interleave the chats turn by turn.
        for (let turn = 0; turn < 14; turn++)
          for (const [i, lines] of chats.entries()) {
            const line = lines[turn];
            if (line === undefined) continue;
            const offeredBefore = states[i]!.offered;
            const out = await dialogueTurn(cal.ctx(), states[i]!, line);
            if (out.booking) {
              expect(offeredBefore).toContain(out.booking.time);
              expect(out.replies[0]).toMatch(/^Booked: /);
            }
            for (const r of out.replies) expect(r.length).toBeGreaterThan(0);
            states[i] = out.dialogue;
          }
        // No cell held twice: the cells held equal the sum of every booking's cells.
        const total = cal.bookings.reduce((n, b) => {
          const s = slotFor(RULES, b.service_name === 'Cleaning' ? 'cleaning' : 'whitening', b.date, b.time, NOW, []);
          return 'refused' in s ? n : n + cellsOf(RULES, { start: s.slot.startMs, end: s.slot.heldUntilMs }).length;
        }, 0);
        expect(cal.cells.size).toBe(total);
      }),
      { numRuns: 150 },
    );
  });
});
