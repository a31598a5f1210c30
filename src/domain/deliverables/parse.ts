/**
 * Reading the buyer's free text as a person would: numbers with their scale and unit ("5,000 orders per day",
 * "5k/day", "2.5M a month"), durations ("60-minute", "1.5 hours", "90 min") and time zones (IANA names as given,
 * common names such as "Eastern time", "CET", "UK time"). Pure and deterministic.
 *
 * Source: issue 13 ("numbers with their units and scale, durations and time zones as given").
 */

/** Number words a buyer writes for a count ("five e-mails", "a dozen"), lower case. */
export const WORD_NUMBERS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  hundred: 100,
  a: 1,
  an: 1,
  single: 1,
  dozen: 12,
};

const SCALE: Record<string, number> = {
  k: 1_000,
  thousand: 1_000,
  m: 1_000_000,
  mm: 1_000_000,
  million: 1_000_000,
  b: 1_000_000_000,
  billion: 1_000_000_000,
};

/** Per-day factor of a rate unit. */
const PER_DAY: Record<string, number> = {
  second: 86_400,
  sec: 86_400,
  s: 86_400,
  minute: 1_440,
  min: 1_440,
  hour: 24,
  hr: 24,
  h: 24,
  day: 1,
  d: 1,
  daily: 1,
  week: 1 / 7,
  wk: 1 / 7,
  weekly: 1 / 7,
  month: 1 / 30,
  mo: 1 / 30,
  monthly: 1 / 30,
  year: 1 / 365,
  yr: 1 / 365,
  annually: 1 / 365,
  yearly: 1 / 365,
};

/** A number as written: digits with thousands separators ("5,000", "5 000", "1.234.567"), decimals, or a word. */
function readNumber(raw: string): number | null {
  const t = raw.trim().toLowerCase();
  if (t in WORD_NUMBERS) return WORD_NUMBERS[t] ?? null;
  // "5,000" / "5 000" / "1.234.567": groups of three after a separator are thousands, not decimals.
  if (/^\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?$/.test(t)) return Number(t.replace(/[, \u00a0\u202f]/g, ''));
  if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(t)) return Number(t.replace(/\./g, ''));
  if (/^\d+(?:[.,]\d+)?$/.test(t)) return Number(t.replace(',', '.'));
  return null;
}

const NUMBER = String.raw`(\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)`;

/** A rate read from text: how many per day, and what was counted. */
export interface Rate {
  /** Items per day (rounded to an integer, at least 1 when the text says a positive amount). */
  perDay: number;
  /** The amount as written, with its scale applied (5k → 5,000). */
  amount: number;
  /** Unit the amount was given per ("day", "hour", "month", …). */
  per: string;
  /** What is counted ("orders", "records"), when named. */
  noun: string | null;
}

/**
 * Reads a rate such as "5,000 orders per day", "5k/day", "about 2.5M records a month", "200 tickets an hour",
 * "1,200 orders daily". Returns null when the text names no rate.
 */
export function parseRate(text: string): Rate | null {
  const re = new RegExp(
    String.raw`${NUMBER}\s*(k|m|mm|b|thousand|million|billion)?\b\s*([a-z][a-z -]{0,30}?)?\s*(?:\/|\bper\b|\ba\b|\ban\b|\beach\b|\bevery\b|\bin a\b)?\s*\b(second|sec|s|minute|min|hour|hr|h|day|d|daily|week|wk|weekly|month|mo|monthly|year|yr|yearly|annually)\b`,
    'i',
  );
  const m = re.exec(text);
  if (!m) return null;
  const base = readNumber(m[1] ?? '');
  if (base === null) return null;
  const scale = m[2] ? (SCALE[m[2].toLowerCase()] ?? 1) : 1;
  const per = (m[4] ?? 'day').toLowerCase();
  const amount = base * scale;
  const noun =
    (m[3] ?? '')
      .trim()
      .replace(/\s+(per|a|an|each|every)$/i, '')
      .trim() || null;
  const perDay = Math.max(amount > 0 ? 1 : 0, Math.round(amount * (PER_DAY[per] ?? 1)));
  return {
    perDay,
    amount,
    per: per.replace(
      /^(daily|weekly|monthly|yearly|annually)$/,
      (w) => ({ daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year', annually: 'year' })[w] ?? w,
    ),
    noun,
  };
}

/** A count with its scale ("5k", "5,000", "2.5 million"); null without a number. */
export function parseCount(text: string): number | null {
  const m = new RegExp(String.raw`${NUMBER}\s*(k|m|mm|b|thousand|million|billion)?\b`, 'i').exec(text);
  if (!m) return null;
  const base = readNumber(m[1] ?? '');
  return base === null ? null : base * (m[2] ? (SCALE[m[2].toLowerCase()] ?? 1) : 1);
}

/**
 * A duration in minutes: "60-minute", "60 min", "45mins", "1.5 hours", "1 hr 30 min", "90'", "an hour",
 * "half an hour", "1h30". Null when the text gives none.
 */
export function parseDurationMinutes(text: string): number | null {
  const t = text.toLowerCase();
  if (/\bhalf[- ]an?[- ]hour\b/.test(t)) return 30;
  if (/\b(?:quarter[- ]of[- ]an?[- ]hour)\b/.test(t)) return 15;
  const hm = /\b(\d+(?:[.,]\d+)?)\s*(?:hours?|hrs?|h)\s*(?:and\s*)?(\d{1,2})\s*(?:minutes?|mins?|m)?\b/.exec(t);
  if (hm && hm[2]) return Math.round(Number((hm[1] ?? '0').replace(',', '.')) * 60 + Number(hm[2]));
  const h = /(?:^|[^\d.,])(\d+(?:[.,]\d+)?|an?|one|two|three)\s*[- ]?(?:hours?|hrs?|h)\b/.exec(t);
  if (h) {
    const n = readNumber(h[1] ?? '') ?? WORD_NUMBERS[h[1] ?? ''] ?? null;
    if (n !== null) return Math.round(n * 60);
  }
  const m = /(?:^|[^\d.,])(\d+)\s*[- ]?(?:minutes?|mins?|m|′|')(?![a-z])/.exec(t);
  if (m) return Number(m[1]);
  return null;
}

/**
 * Splits a service item such as "Initial assessment (60 min)", "60-minute initial assessment" or
 * "Deep tissue massage – 1.5 hours" into its name and duration in minutes (null when none is given).
 */
export function splitServiceDuration(item: string): { name: string; minutes: number | null; price: string | null } {
  // A price as written ("$80", "£15", "45 EUR") is kept apart from the name.
  const priceRe =
    /(?:[$€£]\s?\d+(?:[.,]\d{1,2})?|\b\d+(?:[.,]\d{1,2})?\s?(?:usd|eur|gbp|aed|cad|aud|chf|dollars|euros|pounds)\b)/i;
  const price = priceRe.exec(item)?.[0]?.trim() ?? null;
  const withoutPrice = price
    ? item
        .replace(priceRe, ' ')
        .replace(/\(\s*[,;]?\s*\)|\(\s*([^()]*?)\s*[,;]\s*\)/g, (m, inner: string | undefined) =>
          inner ? `(${inner})` : '',
        )
        .replace(/\s*[-–—:,;]\s*$/, '')
        .replace(/\s+/g, ' ')
        .trim()
    : item;
  const split = splitName(withoutPrice);
  return { ...split, price };
}

function splitName(item: string): { name: string; minutes: number | null } {
  const minutes = parseDurationMinutes(item);
  if (minutes === null) return { name: item.trim(), minutes: null };
  const unit = String.raw`(?:\d+(?:[.,]\d+)?\s*[- ]?(?:hours?|hrs?|h)(?:\s*(?:and\s*)?\d{1,2}\s*(?:minutes?|mins?|m)?)?|\d+\s*[- ]?(?:minutes?|mins?|m|′|')|half[- ]an?[- ]hour|an?\s+hour)`;
  const name = item
    .replace(new RegExp(String.raw`\s*[([]\s*${unit}\s*(?:long|session|slot)?\s*[)\]]`, 'i'), '')
    .replace(new RegExp(String.raw`\s*[-–—:,@]\s*${unit}\s*(?:long|session|slot)?\s*$`, 'i'), '')
    .replace(new RegExp(String.raw`^\s*${unit}\s*(?:long\s*)?`, 'i'), '')
    .replace(new RegExp(String.raw`\s+${unit}\s*$`, 'i'), '')
    .trim();
  const clean = name.replace(/^[-–—:,\s]+|[-–—:,\s]+$/g, '');
  return { name: clean ? clean.charAt(0).toUpperCase() + clean.slice(1) : item.trim(), minutes };
}

/** Common names of time zones (lower case) → IANA zone. */
const ZONE_NAMES: [RegExp, string][] = [
  // Bare "Eastern" / "Pacific" are common in business names: only "… time" and the abbreviations count.
  [/\b(?:us\s+)?eastern(?:\s+(?:standard|daylight))?\s+time\b|\b(?:est|edt)\b|\bnew york\b/, 'America/New_York'],
  [/\b(?:us\s+)?central(?:\s+(?:standard|daylight))?\s+time\b|\b(?:cst|cdt)\b|\bchicago\b/, 'America/Chicago'],
  [/\b(?:us\s+)?mountain(?:\s+(?:standard|daylight))?\s+time\b|\b(?:mst|mdt)\b|\bdenver\b/, 'America/Denver'],
  [/\barizona\b|\bphoenix\b/, 'America/Phoenix'],
  [
    /\b(?:us\s+)?pacific(?:\s+(?:standard|daylight))?\s+time\b|\b(?:pst|pdt)\b|\blos angeles\b|\bseattle\b|\bsan francisco\b/,
    'America/Los_Angeles',
  ],
  [/\buk time\b|\bbritish\b|\b(?:gmt|bst)\b|\blondon\b/, 'Europe/London'],
  [/\b(?:cet|cest)\b|\bcentral european\b|\bberlin\b|\bparis\b|\bmadrid\b|\bamsterdam\b/, 'Europe/Berlin'],
  [/\bdubai\b|\bgulf standard\b|\bgst\b|\buae\b/, 'Asia/Dubai'],
  [/\bsydney\b|\baest\b|\baedt\b/, 'Australia/Sydney'],
  [/\btoronto\b/, 'America/Toronto'],
  [/\bist\b|\bindia(?:n)? standard\b|\bkolkata\b|\bmumbai\b/, 'Asia/Kolkata'],
  [/\bsingapore\b|\bsgt\b/, 'Asia/Singapore'],
  [/\btokyo\b|\bjst\b/, 'Asia/Tokyo'],
];

/** Whether `zone` is an IANA zone this runtime knows (e.g. `America/New_York`, `UTC`). */
export function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The IANA time zone a text names: an IANA name as given ("America/Denver", "Europe/Lisbon"), or a common name
 * ("Eastern time" → America/New_York, "CET" → Europe/Berlin). Null when the text names none.
 */
export function parseTimeZone(text: string): string | null {
  const iana =
    /\b((?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)\b/.exec(
      text,
    );
  if (iana?.[1] && isIanaZone(iana[1])) return iana[1];
  // "UTC+4" / "GMT-5": a fixed offset; IANA's Etc zones count the other way (Etc/GMT-4 is UTC+4).
  const offset = /\b(?:utc|gmt)\s?([+-])\s?(\d{1,2})(?::00)?\b/i.exec(text);
  if (offset && Number(offset[2]) <= 14 && Number(offset[2]) > 0)
    return `Etc/GMT${offset[1] === '+' ? '-' : '+'}${Number(offset[2])}`;
  // ET / CT / MT / PT only in capitals: in lower case they are ordinary words ("et", "pt").
  const us = /\b(ET|CT|MT|PT)\b/.exec(text)?.[1];
  if (us)
    return (
      (
        { ET: 'America/New_York', CT: 'America/Chicago', MT: 'America/Denver', PT: 'America/Los_Angeles' } as Record<
          string,
          string
        >
      )[us] ?? null
    );
  const t = text.toLowerCase();
  if (/\butc\b/.test(t)) return 'UTC';
  return ZONE_NAMES.find(([re]) => re.test(t))?.[1] ?? null;
}

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
/** Weekday key. */
export type Day = (typeof DAYS)[number];

function dayIndex(word: string): number {
  return DAYS.indexOf(word.toLowerCase().slice(0, 3) as Day);
}

function clock(h: string, m: string | undefined, ampm: string | undefined): string | null {
  let hour = Number(h);
  if (ampm) {
    const pm = ampm.toLowerCase().startsWith('p');
    if (hour === 12) hour = pm ? 12 : 0;
    else if (pm) hour += 12;
  }
  if (hour > 24 || Number(m ?? 0) > 59) return null;
  return `${String(hour).padStart(2, '0')}:${(m ?? '00').padStart(2, '0')}`;
}

/**
 * Weekly opening hours from text such as "Mon-Fri 8am-6pm, Sat 9:00-13:00" or "Monday to Friday 08:00–18:00".
 * Days not named are closed. Null when no day range with hours is found.
 */
export function parseWeeklyHours(text: string): Record<Day, [string, string][]> | null {
  const out: Record<Day, [string, string][]> = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
  const day = String.raw`(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)`;
  const time = String.raw`(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?`;
  const re = new RegExp(
    String.raw`${day}(?:\s*(?:-|–|to|through|thru)\s*${day})?\s*:?\s*${time}\s*(?:-|–|to|until)\s*${time}`,
    'gi',
  );
  let found = false;
  for (const m of text.matchAll(re)) {
    const from = dayIndex(m[1] ?? '');
    const to = m[2] ? dayIndex(m[2]) : from;
    const open = clock(
      m[3] ?? '',
      m[4],
      m[5] ?? (m[8] && !m[5] && Number(m[3]) < 12 && Number(m[6]) <= 12 ? 'am' : undefined),
    );
    // "9-5": a closing hour before the opening hour is in the afternoon.
    const close = clock(
      m[6] ?? '',
      m[7],
      m[8] ?? ((m[5] || Number(m[6]) < Number(m[3])) && Number(m[6]) < 12 ? 'pm' : undefined),
    );
    if (from < 0 || to < 0 || !open || !close) continue;
    for (let i = from; ; i = (i + 1) % 7) {
      const key = DAYS[i];
      if (key) out[key].push([open, close]);
      if (i === to) break;
    }
    found = true;
  }
  return found ? out : null;
}
