/**
 * The hosted receptionist's rules (issue 38 §1), pure and workflow-safe: the state it takes from its subscription
 * (decision 0041) and the reading of a visitor's words for the deterministic dialogue (days, times, e-mail, yes/no,
 * what the visitor wants). Luxon for days in the business's zone.
 */
import { DateTime } from 'luxon';
import type { SubscriptionState } from './subscription';

/** Where a receptionist stands: answering, suspended (a renewal is unpaid: 423), ended (410). */
export type ReceptionistState = 'active' | 'suspended' | 'ended';

/** Argument of the `setReceptionistState` activity: the state as of subscription write `version`. */
export interface ReceptionistStateRequest {
  orderId: string;
  state: ReceptionistState;
  reason: string | null;
  version: number;
}

/**
 * The receptionist's state for a subscription's: live while the current period is paid; suspended while a renewal
 * is unpaid (a refused debit in dunning, or an invoice not yet paid); ended once the subscription ends (cancelled,
 * or suspended for good after the last retry or the invoice's due date: it can no longer be paid).
 */
export function receptionistStateOf(sub: SubscriptionState): { state: ReceptionistState; reason: string | null } {
  if (sub.status === 'cancelled')
    return { state: 'ended', reason: `the subscription was cancelled (${sub.cancel_reason ?? 'by the buyer'})` };
  if (sub.status === 'suspended')
    return { state: 'ended', reason: `the renewal of period ${sub.current_period.number} was never paid` };
  if (sub.status === 'past_due' || sub.open_invoice)
    return { state: 'suspended', reason: `the renewal of period ${sub.current_period.number} is unpaid` };
  return { state: 'active', reason: null };
}

/** What a visitor's message asks for, first match wins (urgent before anything). */
export type VisitorIntent = 'urgent' | 'hours' | 'services' | 'book' | null;

const URGENT =
  /\b(urgent|urgently|emergency|asap|immediately|right away|severe|bleeding|swollen|accident|injur(?:y|ed)|complain(?:t)?|unhappy|not happy|unacceptable|(?:speak|talk) to (?:a |an |the )?(?:real |actual )?(?:person|human|someone|somebody|manager|owner|staff|doctor)|call me|call back)\b/i;
const HOURS = /\b(open|opening|hours|close|closing|closed)\b/i;
const SERVICES = /\b(price|prices|cost|costs|how much|services|what do you (?:do|offer)|offer)\b/i;
const BOOK = /\b(book|booking|appointment|reserve|reservation|schedule|slot|available|availability|come in)\b/i;

/** The intent of a message (null: none recognised). */
export function intentOf(text: string): VisitorIntent {
  if (URGENT.test(text)) return 'urgent';
  if (BOOK.test(text)) return 'book';
  if (HOURS.test(text)) return 'hours';
  if (SERVICES.test(text)) return 'services';
  return null;
}

/** The first e-mail address in `text`, or null. */
export function emailIn(text: string): string | null {
  return /[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[A-Za-z]{2,}/.exec(text)?.[0] ?? null;
}

/** The first phone number in `text` (7 to 15 digits, spaces and dashes allowed), or null. */
export function phoneIn(text: string): string | null {
  const m = /\+?\d[\d\s().-]{6,20}\d/.exec(text)?.[0];
  if (!m) return null;
  const digits = m.replace(/\D/g, '');
  return digits.length >= 7 && digits.length <= 15 ? m.trim() : null;
}

/** True for a yes. */
export const isYes = (text: string): boolean =>
  /^\s*(y|yes|yeah|yep|yup|sure|ok|okay|correct|right|confirm|confirmed|please do|go ahead|book it|that'?s right|sounds good|perfect)\b/i.test(
    text,
  );
/** True for a no. */
export const isNo = (text: string): boolean => /^\s*(n|no|nope|not|wrong|change|cancel|wait)\b/i.test(text);

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * The day a visitor names, as `YYYY-MM-DD` in `zone` (relative to `nowMs`): an ISO date, today, tomorrow, a weekday
 * (the next one, today excluded unless said "today"), "14 December" or "December 14" (this year, or next when past);
 * null when none is named.
 */
export function dayIn(text: string, zone: string, nowMs: number): string | null {
  const now = DateTime.fromMillis(nowMs, { zone }).startOf('day');
  const t = text.toLowerCase();
  const iso = /\b(\d{4}-\d{2}-\d{2})\b/.exec(t)?.[1];
  if (iso && DateTime.fromISO(iso, { zone }).isValid) return iso;
  if (/\bday after tomorrow\b/.test(t)) return now.plus({ days: 2 }).toISODate();
  if (/\btomorrow\b/.test(t)) return now.plus({ days: 1 }).toISODate();
  if (/\btoday\b/.test(t)) return now.toISODate();
  const named = new RegExp(
    `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTHS.map((m) => m.slice(0, 3)).join('|')})[a-z]*\\b|\\b(${MONTHS.map((m) => m.slice(0, 3)).join('|')})[a-z]*\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`,
  ).exec(t);
  if (named) {
    const day = Number(named[1] ?? named[4]);
    const month = MONTHS.findIndex((m) => m.startsWith(named[2] ?? named[3] ?? '')) + 1;
    let d = DateTime.fromObject({ year: now.year, month, day }, { zone });
    if (d.isValid && d < now) d = d.plus({ years: 1 });
    if (d.isValid) return d.toISODate();
  }
  const wd = WEEKDAYS.findIndex((w) => new RegExp(`\\b${w.slice(0, 3)}(?:${w.slice(3)})?\\b`).test(t));
  if (wd >= 0) {
    const ahead = (wd + 1 - now.weekday + 7) % 7 || 7;
    return now.plus({ days: ahead }).toISODate();
  }
  return null;
}

/**
 * A time of day a visitor names, as `HH:mm`: "14:30", "9:00", "9am", "2.30 pm", "noon"; null when none (a bare
 * number is not a time: it may be a choice from a list).
 */
export function timeIn(text: string): string | null {
  const t = text.toLowerCase();
  if (/\bnoon\b|\bmidday\b/.test(t)) return '12:00';
  const ampm = /\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])/.exec(t);
  if (ampm) {
    let h = Number(ampm[1]);
    const m = Number(ampm[2] ?? '0');
    if (h < 1 || h > 12 || m > 59) return null;
    if (ampm[3]?.startsWith('p') && h < 12) h += 12;
    if (ampm[3]?.startsWith('a') && h === 12) h = 0;
    return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
  }
  const hm = /\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b/.exec(t);
  if (hm) return `${String(Number(hm[1])).padStart(2, '0')}:${hm[2]}`;
  return null;
}

/** A choice among `n` listed options ("2", "the second", "first one"), 0-based; null when none. */
export function choiceIn(text: string, n: number): number | null {
  const t = text.toLowerCase().trim();
  const ordinals = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
  const word = ordinals.findIndex((o) => new RegExp(`\\b${o}\\b`).test(t));
  if (word >= 0 && word < n) return word;
  if (/\blast\b/.test(t) && n > 0) return n - 1;
  const num = /^(?:number\s*|no\.?\s*|#)?(\d{1,2})\.?$/.exec(t);
  if (num) {
    const i = Number(num[1]) - 1;
    return i >= 0 && i < n ? i : null;
  }
  return null;
}

/** Lower-case words of 3+ letters, for matching a service by its name. */
const words = (s: string): string[] => s.toLowerCase().match(/[a-z\u00c0-\u024f]{3,}/g) ?? [];

/**
 * The service a visitor names among `services` (by id, by full name, or by the most words of its name; a plural or
 * a stem counts), or null when none or a tie.
 */
export function serviceIn<S extends { id: string; name: string }>(text: string, services: readonly S[]): S | null {
  const t = text.toLowerCase();
  const exact = services.find((s) => t.includes(s.name.toLowerCase()) || new RegExp(`\\b${s.id}\\b`).test(t));
  if (exact) return exact;
  const said = words(t);
  const stem = (w: string) => w.replace(/(ings?|ed|es|s)$/, '');
  let best: S | null = null;
  let bestScore = 0;
  let tie = false;
  for (const s of services) {
    const score = words(s.name).filter((w) => said.some((x) => stem(x) === stem(w))).length;
    if (score > bestScore) {
      best = s;
      bestScore = score;
      tie = false;
    } else if (score === bestScore && score > 0) tie = true;
  }
  return bestScore > 0 && !tie ? best : null;
}

/**
 * A visitor's name from an answer to "what is your name?": "I'm Sam Lee", "my name is Sam", "Sam Lee, sam@x.com";
 * null when the answer does not read as a name (no letters, a question, more than five words).
 */
export function nameIn(text: string): string | null {
  const cleaned = text
    .replace(/[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[A-Za-z]{2,}/g, ' ')
    .replace(/\+?\d[\d\s().-]{6,20}\d/g, ' ')
    .replace(/^\s*(hi|hello|hey)[,!.\s]+/i, '')
    .replace(/^\s*(my name is|my name's|i am|i'm|im|this is|it's|it is|name:?)\s+/i, '')
    .replace(/[,.;!]+\s*$/, '')
    .replace(/[,;]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!cleaned || cleaned.includes('?') || !/\p{L}/u.test(cleaned)) return null;
  const n = cleaned.split(' ').length;
  if (n > 5 || cleaned.length > 80) return null;
  return cleaned;
}
