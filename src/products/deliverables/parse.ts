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
  // Thousands groups first: "$1,200" is one thousand two hundred, not "$1,20".
  const amount = String.raw`(?:\d{1,3}(?:[,.]\d{3})+(?![\d])(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)`;
  const priceRe = new RegExp(
    String.raw`(?:[$€£]\s?${amount}|\b${amount}\s?(?:usd|eur|gbp|aed|cad|aud|chf|dollars|euros|pounds)\b)`,
    'i',
  );
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
    // "Nail clip 15min", "Nail clip15min": a duration at the end, spaced or glued to the name.
    .replace(new RegExp(String.raw`(?:\s+|(?<=[a-z]))${unit}\s*$`, 'i'), '')
    .trim();
  const clean = name.replace(/^[-–—:,\s]+|[-–—:,\s]+$/g, '');
  return { name: clean ? clean.charAt(0).toUpperCase() + clean.slice(1) : item.trim(), minutes };
}

/** Common names of time zones (lower case) → IANA zone: time names and abbreviations, read wherever they are. */
const ZONE_NAMES: [RegExp, string][] = [
  // Bare "Eastern" / "Pacific" are common in business names: only "… time" and the abbreviations count.
  [/\b(?:us\s+)?eastern(?:\s+(?:standard|daylight))?\s+time\b|\b(?:est|edt)\b/, 'America/New_York'],
  [/\b(?:us\s+)?central(?:\s+(?:standard|daylight))?\s+time\b|\b(?:cst|cdt)\b/, 'America/Chicago'],
  [/\b(?:us\s+)?mountain(?:\s+(?:standard|daylight))?\s+time\b|\b(?:mst|mdt)\b/, 'America/Denver'],
  [/\b(?:us\s+)?pacific(?:\s+(?:standard|daylight))?\s+time\b|\b(?:pst|pdt)\b/, 'America/Los_Angeles'],
  [/\buk time\b|\bbritish (?:summer )?time\b|\b(?:gmt|bst)\b/, 'Europe/London'],
  [/\b(?:cet|cest)\b|\bcentral european\b/, 'Europe/Berlin'],
  [/\bgulf standard\b|\bgst\b/, 'Asia/Dubai'],
  [/\baest\b|\baedt\b/, 'Australia/Sydney'],
  [/\bacst\b|\bacdt\b/, 'Australia/Adelaide'],
  [/\bawst\b/, 'Australia/Perth'],
  [/\bnzst\b|\bnzdt\b/, 'Pacific/Auckland'],
  [/\bist\b|\bindia(?:n)? standard\b/, 'Asia/Kolkata'],
  [/\bsgt\b/, 'Asia/Singapore'],
  [/\bjst\b/, 'Asia/Tokyo'],
];

/** Places written in any case (lower case too) → zone; like the cities, read only in a place context. */
const PLACE_NAMES: [RegExp, string][] = [
  [/\bnew york\b/gi, 'America/New_York'],
  [/\bchicago\b/gi, 'America/Chicago'],
  [/\bdenver\b/gi, 'America/Denver'],
  [/\barizona\b|\bphoenix\b/gi, 'America/Phoenix'],
  [/\blos angeles\b|\bseattle\b|\bsan francisco\b/gi, 'America/Los_Angeles'],
  [/\blondon\b/gi, 'Europe/London'],
  [/\bberlin\b/gi, 'Europe/Berlin'],
  [/\bdubai\b|\buae\b/gi, 'Asia/Dubai'],
  [/\bsydney\b/gi, 'Australia/Sydney'],
  [/\bnew zealand\b/gi, 'Pacific/Auckland'],
  [/\btoronto\b/gi, 'America/Toronto'],
  [/\bkolkata\b|\bmumbai\b/gi, 'Asia/Kolkata'],
  [/\bsingapore\b/gi, 'Asia/Singapore'],
  [/\btokyo\b/gi, 'Asia/Tokyo'],
];

/** Cities that are not the name of an IANA zone, as written (capitalised) → the zone they are in. */
const CITY_ALIASES: [string, string][] = [
  ['Boston', 'America/New_York'],
  ['Miami', 'America/New_York'],
  ['Atlanta', 'America/New_York'],
  ['Philadelphia', 'America/New_York'],
  ['Orlando', 'America/New_York'],
  ['Washington DC', 'America/New_York'],
  ['Brooklyn', 'America/New_York'],
  ['Dallas', 'America/Chicago'],
  ['Houston', 'America/Chicago'],
  ['Austin, TX', 'America/Chicago'],
  ['San Antonio', 'America/Chicago'],
  ['Minneapolis', 'America/Chicago'],
  ['Nashville', 'America/Chicago'],
  ['New Orleans', 'America/Chicago'],
  ['Kansas City', 'America/Chicago'],
  ['Salt Lake City', 'America/Denver'],
  ['Albuquerque', 'America/Denver'],
  ['Las Vegas', 'America/Los_Angeles'],
  ['San Diego', 'America/Los_Angeles'],
  ['Sacramento', 'America/Los_Angeles'],
  ['Calgary', 'America/Edmonton'],
  ['Montreal', 'America/Toronto'],
  ['Ottawa', 'America/Toronto'],
  ['Canberra', 'Australia/Sydney'],
  ['Gold Coast', 'Australia/Brisbane'],
  ['Christchurch', 'Pacific/Auckland'],
  ['Wellington', 'Pacific/Auckland'],
  ['Munich', 'Europe/Berlin'],
  ['Frankfurt', 'Europe/Berlin'],
  ['Hamburg', 'Europe/Berlin'],
  ['Cologne', 'Europe/Berlin'],
  ['Barcelona', 'Europe/Madrid'],
  ['Milan', 'Europe/Rome'],
  ['Geneva', 'Europe/Zurich'],
  ['Porto', 'Europe/Lisbon'],
  ['Manchester', 'Europe/London'],
  ['Edinburgh', 'Europe/London'],
  ['Glasgow', 'Europe/London'],
  ['Bristol', 'Europe/London'],
  ['Leeds', 'Europe/London'],
  ['Liverpool', 'Europe/London'],
  ['Cardiff', 'Europe/London'],
  ['Belfast', 'Europe/London'],
  ['Cork', 'Europe/Dublin'],
  ['Kyiv', 'Europe/Kyiv'],
  ['Abu Dhabi', 'Asia/Dubai'],
  ['Doha', 'Asia/Qatar'],
  ['Bangalore', 'Asia/Kolkata'],
  ['Bengaluru', 'Asia/Kolkata'],
  ['Delhi', 'Asia/Kolkata'],
  ['Chennai', 'Asia/Kolkata'],
  ['Tel Aviv', 'Asia/Jerusalem'],
  ['Ho Chi Minh City', 'Asia/Ho_Chi_Minh'],
  ['Cape Town', 'Africa/Johannesburg'],
  ['Durban', 'Africa/Johannesburg'],
  ['São Paulo', 'America/Sao_Paulo'],
  ['Rio de Janeiro', 'America/Sao_Paulo'],
  ['Buenos Aires', 'America/Argentina/Buenos_Aires'],
];

/** City parts of IANA names that are also ordinary words, names or other places: never read as a zone. */
const CITY_STOP = new Set([
  'Center',
  'Christmas',
  'Easter',
  'Wake',
  'Midway',
  'Stanley',
  'Davis',
  'Casey',
  'Palmer',
  'Troll',
  'Nome',
  'Cayenne',
  'Regina',
  'Resolute',
  'Creston',
  'Dawson',
  'Thule',
  'Mahe',
  'Reunion',
  'Norfolk',
  'Chatham',
  'Jersey',
  'Guernsey',
  'Marengo',
  'Knox',
  'Vevay',
  'Beulah',
  'Salem',
  'Truk',
  'Yap',
  'Mendoza',
  'Catamarca',
  'Jujuy',
  'Salta',
  'Ushuaia',
  'Cordoba',
  'San Juan',
  'San Luis',
  'La Rioja',
  'Tucuman',
  'Rio Gallegos',
]);

let cityIndex: { re: RegExp; zones: Map<string, string> } | null = null;

/** Words before a place name that make it the business's place ("in", "based in", "near", "serving"). */
const PLACE_BEFORE =
  /(?:^|[^\p{L}])(?:in|near|from|around|serving|out of|based|located|across|at)\s+(?:the\s+)?(?:(?:central|downtown|greater|inner|north(?:ern)?|south(?:ern)?|east(?:ern)?|west(?:ern)?|metro|sunny)\s+)?$/iu;
/** What after a place name makes it the business's place ("Lima time", "Lima, Peru", "Brisbane-based", "(…)"). */
const PLACE_AFTER = /^(?:\s*(?:time|timezone|time zone|hours|area|cbd|metro|based)\b|-based\b|\s*,\s*\p{Lu}|\s*\()/u;

/** The city names the runtime's IANA zones carry ("Melbourne", "Los Angeles") and the aliases, as one pattern. */
function cities(): { re: RegExp; zones: Map<string, string> } {
  if (cityIndex) return cityIndex;
  const zones = new Map<string, string>();
  for (const [city, zone] of CITY_ALIASES) if (isIanaZone(zone)) zones.set(city, zone);
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    const m = /^(America|Europe|Asia|Africa|Australia|Pacific|Atlantic)\/(?:[A-Za-z_]+\/)?([A-Za-z_-]+)$/.exec(zone);
    const city = m?.[2]?.replace(/_/g, ' ');
    if (!city || city.length < 4 || CITY_STOP.has(city) || zones.has(city)) continue;
    zones.set(city, zone);
  }
  const names = [...zones.keys()]
    .sort((a, b) => b.length - a.length)
    .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  cityIndex = { re: new RegExp(String.raw`(?<![\p{L}\d])(${names.join('|')})(?![\p{L}\d])`, 'gu'), zones };
  return cityIndex;
}

/**
 * The zone of a place named in the text: a city capitalised as a place name is ("Melbourne", "Los Angeles") or a
 * common place in any case ("london"). Only in a place context ("in Lima", "Lima time", "based in Lima",
 * "Lima, Peru", "Brisbane-based", "…, Toronto" closing a statement, or the text being the place alone) unless `anywhere` (a location field): "Lima
 * beans catering" names no zone.
 */
function placeZone(text: string, anywhere: boolean): string | null {
  const { re, zones } = cities();
  const hits: { at: number; end: number; zone: string }[] = [];
  for (const [pre, zone] of PLACE_NAMES)
    for (const m of text.matchAll(pre)) hits.push({ at: m.index, end: m.index + m[0].length, zone });
  for (const m of text.matchAll(re)) {
    const zone = zones.get(m[1] ?? '');
    if (zone) hits.push({ at: m.index, end: m.index + m[0].length, zone });
  }
  hits.sort((a, b) => a.at - b.at || b.end - a.end);
  const alone = (h: { at: number; end: number }): boolean =>
    !/[\p{L}\d]/u.test(text.slice(0, h.at)) && !/[\p{L}\d]/u.test(text.slice(h.end));
  const inContext = (h: { at: number; end: number }): boolean =>
    alone(h) ||
    text.slice(h.at, h.end).includes(', ') ||
    // "Open weekdays 9-7, Toronto": the place closing a statement after a comma or dash.
    (/[,;–—]\s*$/.test(text.slice(0, h.at)) && !/[\p{L}\d]/u.test(text.slice(h.end))) ||
    PLACE_BEFORE.test(text.slice(Math.max(0, h.at - 40), h.at)) ||
    PLACE_AFTER.test(text.slice(h.end, h.end + 40));
  return hits.find((h) => anywhere || inContext(h))?.zone ?? null;
}

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
 * ("Eastern time" → America/New_York, "CET" → Europe/Berlin) or a city in a place context ("Melbourne time" →
 * Australia/Melbourne, "We're in Denver", "Lima, Peru"; not "Lima beans catering"). With `place` (the text is a
 * location, city or address field) a city anywhere in it counts. Null when the text names none.
 */
export function parseTimeZone(text: string, opts: { place?: boolean } = {}): string | null {
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
  return ZONE_NAMES.find(([re]) => re.test(t))?.[1] ?? placeZone(text, opts.place === true);
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

const DAY_WORD = String.raw`(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?\.?`;
const DAY_RANGE = String.raw`${DAY_WORD}(?:\s*(?:-|–|—|to|through|thru)\s*${DAY_WORD})?`;
/** Days as buyers write them: ranges, lists ("Mon, Wed & Fri"), "weekdays", "daily", "7 days a week". */
const DAYS_EXPR = String.raw`(?:${DAY_RANGE}(?:\s*(?:,|&|\band\b|\/|\+)\s*${DAY_RANGE})*|week\s?days|weekends?|daily|every\s?day|7\s*days(?:\s*a\s*week)?|seven\s+days(?:\s+a\s+week)?)`;
const CLOCK = String.raw`(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?`;
const CLOCK_RANGE = String.raw`${CLOCK}\s*(?:-|–|—|to|until|till|til)\s*${CLOCK}`;

/** The day indices a days expression covers ("Tue-Sat", "Mon, Wed & Fri", "weekdays"). */
function daysOf(expr: string): number[] {
  const t = expr.toLowerCase();
  if (/week\s?days/.test(t)) return [0, 1, 2, 3, 4];
  if (/weekend/.test(t)) return [5, 6];
  if (/daily|every\s?day|7\s*days|seven days/.test(t)) return [0, 1, 2, 3, 4, 5, 6];
  const out: number[] = [];
  const range = new RegExp(String.raw`(${DAY_WORD})(?:\s*(?:-|–|—|to|through|thru)\s*(${DAY_WORD}))?`, 'gi');
  for (const m of t.matchAll(range)) {
    const from = dayIndex(m[1] ?? '');
    const to = m[2] ? dayIndex(m[2]) : from;
    if (from < 0 || to < 0) continue;
    for (let i = from; ; i = (i + 1) % 7) {
      if (!out.includes(i)) out.push(i);
      if (i === to) break;
    }
  }
  return out;
}

/** Opening and closing clock times of a range's captures (h, m, am/pm, h, m, am/pm); "9-5" closes at 17:00. */
function clockRange(c: (string | undefined)[]): [string, string] | null {
  const [h1, m1, ap1, h2, m2, ap2] = c;
  // "9-10am", "6:30-7:15pm": the opening time shares the closing time's half of the day when it comes before it;
  // "9-5pm", "9-12pm" open in the morning.
  const sameHalf = Number(h1) < Number(h2) && Number(h2) < 12;
  const inherit = ap2 && Number(h1) < 12 && Number(h2) <= 12 ? (sameHalf ? ap2 : 'am') : undefined;
  const open = clock(h1 ?? '', m1, ap1 ?? inherit);
  // "9-5": a closing hour before the opening hour is in the afternoon.
  const close = clock(h2 ?? '', m2, ap2 ?? ((ap1 || Number(h2) < Number(h1)) && Number(h2) < 12 ? 'pm' : undefined));
  return open && close ? [open, close] : null;
}

/**
 * Weekly opening hours from text such as "Mon-Fri 8am-6pm, Sat 9:00-13:00", "Monday to Friday 08:00–18:00",
 * "Tue, Thu & Sat 10-4", "weekdays 9-5" or "9am-5pm Tue-Sat". Days not named are closed. Null when no days with
 * hours are found.
 */
export function parseWeeklyHours(text: string): Record<Day, [string, string][]> | null {
  const out: Record<Day, [string, string][]> = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
  const add = (days: number[], range: [string, string] | null): boolean => {
    if (!range || days.length === 0) return false;
    for (const i of days) {
      const key = DAYS[i];
      if (key && !out[key].some(([a, b]) => a === range[0] && b === range[1])) out[key].push(range);
    }
    return true;
  };
  let found = false;
  const daysFirst = new RegExp(String.raw`(?<![a-z])(${DAYS_EXPR})\s*(?:[:,]|from|open)?\s*${CLOCK_RANGE}`, 'gi');
  for (const m of text.matchAll(daysFirst)) if (add(daysOf(m[1] ?? ''), clockRange(m.slice(2, 8)))) found = true;
  if (!found) {
    const timesFirst = new RegExp(String.raw`${CLOCK_RANGE}\s*,?\s*(?:on\s+|every\s+)?(${DAYS_EXPR})(?![a-z])`, 'gi');
    for (const m of text.matchAll(timesFirst)) if (add(daysOf(m[7] ?? ''), clockRange(m.slice(1, 7)))) found = true;
  }
  return found ? out : null;
}

/**
 * The first clock range in the text ("9-10am", "6:30-7:15pm", "18:00–19:00") with its length in minutes and where
 * it was written; null when there is none or it does not run forward within a day.
 */
export function parseTimeRange(
  text: string,
): { from: string; to: string; minutes: number; index: number; length: number } | null {
  const m = new RegExp(String.raw`(?<![\d:.])${CLOCK_RANGE}(?![\d:])`, 'i').exec(text);
  if (!m) return null;
  // A range needs a clock mark: "9-10am", "6:30-7:15", not "2-3" (people) or "1-2" (weeks).
  if (!m[3] && !m[6] && !m[2] && !m[5]) return null;
  const range = clockRange(m.slice(1, 7));
  if (!range) return null;
  const [from, to] = range;
  const toMin = (c: string): number => Number(c.slice(0, 2)) * 60 + Number(c.slice(3, 5));
  const minutes = toMin(to) - toMin(from);
  return minutes > 0 ? { from, to, minutes, index: m.index, length: m[0].length } : null;
}

/**
 * Whether a text states nothing but days and times ("Mon-Fri 9-5", "Sat 9:00-13:00 AEST", "Saturdays 10-4 by
 * appointment"): no activity words, so it reads as opening hours rather than a class or a service.
 */
export function isOnlyDaysAndTimes(text: string): boolean {
  const rest = text
    .replace(new RegExp(String.raw`(?<![a-z])${DAYS_EXPR}(?![a-z])`, 'gi'), ' ')
    .replace(/\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?/gi, ' ')
    .replace(
      /\b(?:to|until|till|til|from|and|through|thru|on|every|a|the|only|except|by|appointments?|noon|midday|midnight|late|nights?|mornings?|afternoons?|evenings?|am|pm)\b/gi,
      ' ',
    )
    .replace(/[^\p{L}]+/gu, ' ')
    .trim();
  return rest === '' || (rest.split(' ').length <= 3 && parseTimeZone(rest, { place: true }) !== null);
}
