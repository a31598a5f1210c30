/**
 * What the booking page, the receptionist and the booking workflow share, so that in a bundle they describe the
 * same business and connect to each other: the bookable services with their durations as given, the opening hours
 * and time zone as given, and the bundle wiring (where the booking page posts, which the receptionist's booking
 * tool calls and the workflow listens to).
 *
 * Source: seed §2.1 (bundles and their parts); issue 13 ("durations and time zones as given", "Bundles wire their
 * parts").
 */
import { getService } from '../../domain/catalogue';
import {
  isOnlyDaysAndTimes,
  parseTimeRange,
  parseTimeZone,
  parseWeeklyHours,
  splitServiceDuration,
  type Day,
} from './parse';
import type { DeliverableContext, HostedBookingPage } from './types';
import { line, list, splitList, stableUuid, text, uniqueSnakes } from './util';

/** One bookable service. Minutes are whole minutes. */
export interface BookableService {
  id: string;
  name: string;
  duration_minutes: number;
  /** Whether the duration was given by the buyer (false: the industry default). */
  duration_given: boolean;
  buffer_minutes: number;
  /** Price as the buyer wrote it ("$80"), or null when none was given. */
  price: string | null;
}

/** Free text as items: {@link splitList} with sentence ends ("… $15. Open Tue-Sat 9am to 5pm" is two items). */
export function textItems(raw: string): string[] {
  return splitList(raw, { sentences: true })
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** The items of a list input (strings are split by {@link textItems}; arrays item by item, each split too). */
function serviceItems(inputs: Record<string, unknown>): string[] {
  const raw = Object.hasOwn(inputs, 'services') ? inputs.services : undefined;
  if (typeof raw !== 'string') return list(inputs, 'services').flatMap(textItems);
  return list({ services: textItems(raw) }, 'services');
}

/** Words that open a statement of hours or place rather than a service ("Open …", "Hours: …", "We're in …"). */
const SCHEDULE_LEAD =
  /^(?:(?:we(?:'|’)?re|we are|we're)\s+(?:open|closed|in|based|located)\b|(?:open(?:ing)?(?:\s+hours)?|hours|business hours|office hours|trading hours|closed|time\s?zone|all times|times|based in|located in)\b)/i;
const DAY_OR_TIME =
  /\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|\bweek\s?(?:days|ends?)\b|\bdaily\b|\bevery\s?day\b|\b7 days\b|\d\s*(?:am|pm)\b|\d[:.]\d{2}\b|24\/7/i;

/** Words that say a statement is about opening hours or the business's time ("open", "hours", "closed", "… time"). */
const HOURS_CUE =
  /\b(?:open(?:ing)?|hours|closed|time\s?zone|time)\b|\bwe(?:'|’)?re\s+(?:in|based)\b|\bwe are\s+(?:in|based)\b|\b(?:based|located) in\b/i;

/**
 * Whether a free-text item states opening hours or the business's time zone instead of naming a service:
 * "Open Tue-Sat 9am to 5pm", "Hours: Mon-Fri 8-6", "Melbourne time", "We're in Denver", "Mon-Fri 9-5".
 * An item with a price or a duration is a service, and so is a class at a day and time ("Saturday yoga 9-10am",
 * "Tuesday spin class 6:30-7:15pm"): days with hours are hours only with an hours cue or when nothing but days and
 * times is written.
 */
export function isScheduleStatement(item: string): boolean {
  const t = item.trim();
  if (!t) return false;
  const { minutes, price } = splitServiceDuration(t);
  if (price !== null) return false;
  if (SCHEDULE_LEAD.test(t) && (DAY_OR_TIME.test(t) || parseTimeZone(t) !== null)) return true;
  if (minutes !== null) return false;
  if (parseWeeklyHours(t)) return HOURS_CUE.test(t) || isOnlyDaysAndTimes(t);
  // "Melbourne time", "AEST", "Australia/Melbourne", "UTC+10": a zone and nothing else of substance.
  return (
    parseTimeZone(t) !== null && (/\btime\s?(?:zone)?\b|\bzone\b|\/|\butc|\bgmt/i.test(t) || t.split(/\s+/).length <= 2)
  );
}

/** A class or session written with its time ("Saturday yoga 9-10am"): its length, and the name with the time. */
function timedClass(name: string): { name: string; minutes: number } | null {
  const range = parseTimeRange(name);
  if (!range) return null;
  const before = name
    .slice(0, range.index)
    .replace(/\s*(?:[-–—:,@]|\bat|\bfrom)\s*$/i, '')
    .trim();
  const after = name
    .slice(range.index + range.length)
    .replace(/^\s*[-–—:,]\s*/, '')
    .trim();
  const label = [before, after].filter(Boolean).join(' ');
  if (!/\p{L}/u.test(label)) return null;
  return { name: `${label} (${range.from}–${range.to})`, minutes: range.minutes };
}

/** An item that is only a duration or a number ("20 min", "1.5 hours", "90"): it belongs to the service before it. */
const BARE_DURATION =
  /^\s*(?:(?:\d+(?:[.,]\d+)?|an?|half an?)\s*[- ]?(?:minutes?|mins?|m|hours?|hrs?|h|′|')?\s*(?:and\s*)?)*\s*$/i;

/**
 * The services of the `services` input with their durations as written ("Initial assessment (60 min)",
 * "90-minute massage"); a service without one gets `defaultMinutes`. An input `duration` / `appointment_length`
 * ("45 minutes") sets the default for all. Items stating hours or a zone ("Open Tue-Sat 9am to 5pm", "Melbourne
 * time") are not services: {@link businessHours} reads them.
 */
export function bookableServices(
  inputs: Record<string, unknown>,
  defaultMinutes: number,
  bufferMinutes: number,
  fallback = 'Consultation',
): BookableService[] {
  const items = serviceItems(inputs).filter((item) => !isScheduleStatement(item));
  if (items.length === 0) items.push(fallback);
  const general = splitServiceDuration(
    `x ${line(inputs, 'duration') || line(inputs, 'appointment_length') || line(inputs, 'default_duration')}`,
  ).minutes;
  const parsed: ReturnType<typeof splitServiceDuration>[] = [];
  for (const item of items.map(splitServiceDuration)) {
    const prev = parsed.at(-1);
    // "Hot stone, 90 min": a bare duration or price after a comma belongs to the service before it.
    if (prev && BARE_DURATION.test(item.name) && (item.minutes !== null || item.price !== null)) {
      prev.minutes ??= item.minutes;
      prev.price ??= item.price;
      continue;
    }
    parsed.push(item);
  }
  // "Saturday yoga 9-10am": a class's time range gives its length.
  for (const p of parsed) {
    if (p.minutes !== null) continue;
    const timed = timedClass(p.name);
    if (timed) Object.assign(p, timed);
  }
  const ids = uniqueSnakes(parsed.map((p) => p.name.replace(/\s*\(\d{2}:\d{2}–\d{2}:\d{2}\)$/, '')));
  return parsed.map((p, i) => ({
    id: ids[i] ?? `service_${i + 1}`,
    name: p.name,
    duration_minutes: p.minutes ?? general ?? defaultMinutes,
    duration_given: p.minutes !== null || general !== null,
    buffer_minutes: bufferMinutes,
    price: p.price,
  }));
}

/** Opening hours and time zone of the business. */
export interface BusinessHours {
  /** IANA zone as given, or `UTC` with `timezone_given: false`. */
  timezone: string;
  timezone_given: boolean;
  weekly: Record<Day, [string, string][]>;
  /** Whether the hours came from the inputs (false: Monday to Friday 09:00–17:00, to be confirmed). */
  hours_given: boolean;
}

const DEFAULT_WEEK: Record<Day, [string, string][]> = {
  mon: [['09:00', '17:00']],
  tue: [['09:00', '17:00']],
  wed: [['09:00', '17:00']],
  thu: [['09:00', '17:00']],
  fri: [['09:00', '17:00']],
  sat: [],
  sun: [],
};

/** Inputs that may state hours or a time zone, most specific first. */
const HOURS_KEYS = ['opening_hours', 'business_hours', 'hours', 'availability', 'schedule'];
const ZONE_KEYS = [
  'timezone',
  'time_zone',
  'tz',
  'location',
  'city',
  'address',
  ...HOURS_KEYS,
  'description',
  'business_description',
  'industry',
  'practice_type',
  'category',
];

/** Inputs that are a place: a city anywhere in them is where the business is. */
const PLACE_KEYS = new Set(['timezone', 'time_zone', 'tz', 'location', 'city', 'address']);

/** Country calling codes whose country has one time zone (a phone number then says where the business is). */
const ZONE_OF_CALLING_CODE: [string, string][] = [
  ['44', 'Europe/London'],
  ['49', 'Europe/Berlin'],
  ['33', 'Europe/Paris'],
  ['34', 'Europe/Madrid'],
  ['39', 'Europe/Rome'],
  ['31', 'Europe/Amsterdam'],
  ['32', 'Europe/Brussels'],
  ['41', 'Europe/Zurich'],
  ['43', 'Europe/Vienna'],
  ['353', 'Europe/Dublin'],
  ['351', 'Europe/Lisbon'],
  ['46', 'Europe/Stockholm'],
  ['47', 'Europe/Oslo'],
  ['45', 'Europe/Copenhagen'],
  ['48', 'Europe/Warsaw'],
  ['971', 'Asia/Dubai'],
  ['966', 'Asia/Riyadh'],
  ['974', 'Asia/Qatar'],
  ['20', 'Africa/Cairo'],
  ['27', 'Africa/Johannesburg'],
  ['91', 'Asia/Kolkata'],
  ['65', 'Asia/Singapore'],
  ['81', 'Asia/Tokyo'],
  ['64', 'Pacific/Auckland'],
];

/** Calling codes of countries with several time zones: the number says the country, not the zone. */
const COUNTRY_OF_CALLING_CODE: [string, string][] = [
  ['61', 'Australia'],
  ['1', 'the United States or Canada'],
  ['7', 'Russia or Kazakhstan'],
  ['52', 'Mexico'],
  ['55', 'Brazil'],
  ['62', 'Indonesia'],
];

/** Country domains of single-zone countries: a contact e-mail "@…co.nz" says where the business is. */
const ZONE_OF_DOMAIN: [string, string][] = [
  ['nz', 'Pacific/Auckland'],
  ['uk', 'Europe/London'],
  ['ie', 'Europe/Dublin'],
  ['de', 'Europe/Berlin'],
  ['fr', 'Europe/Paris'],
  ['es', 'Europe/Madrid'],
  ['it', 'Europe/Rome'],
  ['nl', 'Europe/Amsterdam'],
  ['be', 'Europe/Brussels'],
  ['ch', 'Europe/Zurich'],
  ['at', 'Europe/Vienna'],
  ['pt', 'Europe/Lisbon'],
  ['se', 'Europe/Stockholm'],
  ['no', 'Europe/Oslo'],
  ['dk', 'Europe/Copenhagen'],
  ['pl', 'Europe/Warsaw'],
  ['ae', 'Asia/Dubai'],
  ['sg', 'Asia/Singapore'],
  ['jp', 'Asia/Tokyo'],
  ['in', 'Asia/Kolkata'],
  ['za', 'Africa/Johannesburg'],
];
/** Country domains of countries with several zones. */
const COUNTRY_OF_DOMAIN: [string, string][] = [
  ['au', 'Australia'],
  ['ca', 'Canada'],
  ['us', 'the United States'],
  ['br', 'Brazil'],
  ['mx', 'Mexico'],
  ['ru', 'Russia'],
];

function emailCountryCode(value: string): string {
  return /@[\w.-]+\.([a-z]{2})\s*$/i.exec(value.trim())?.[1]?.toLowerCase() ?? '';
}

function phoneDigits(value: string): string {
  return value.trim().startsWith('+') || value.trim().startsWith('00')
    ? value.replace(/\D/g, '').replace(/^00/, '')
    : '';
}

function zoneOfPhone(value: string): string | null {
  const digits =
    value.trim().startsWith('+') || value.trim().startsWith('00') ? value.replace(/\D/g, '').replace(/^00/, '') : '';
  return digits ? (ZONE_OF_CALLING_CODE.find(([code]) => digits.startsWith(code))?.[1] ?? null) : null;
}

/** Inputs that never state hours or a zone (a business called "Phoenix Fitness" may be in Leeds). */
const NOT_SCHEDULE_KEYS = new Set(['business_name', 'contact_email', 'email', 'whatsapp', 'phone', 'website', 'url']);

/**
 * The statements of hours or place in every other free-text input ("services", "notes", "description", …): buyers
 * put "Open Tue-Sat 9am to 5pm, Melbourne time" into whatever field they have.
 */
function scheduleStatements(inputs: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(inputs)) {
    if (NOT_SCHEDULE_KEYS.has(key) || HOURS_KEYS.includes(key) || key === 'timezone' || key === 'time_zone') continue;
    const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value.map(String) : [];
    for (const t of texts) out.push(...textItems(t.slice(0, 2000)).filter(isScheduleStatement));
  }
  return out;
}

/**
 * Hours and zone from the inputs (`timezone`, `opening_hours`, … or a statement of hours or place in any free-text
 * input, such as "Open Tue-Sat 9am to 5pm, Melbourne time" at the end of the services). Without a named zone, a
 * phone number's country code gives one (flagged as not given, so it is confirmed).
 */
export function businessHours(inputs: Record<string, unknown>): BusinessHours & {
  timezone_from_phone?: true;
  timezone_from_email?: true;
  timezone_country?: string;
  /** What said the country: "the WhatsApp number" or "the contact e-mail's domain". */
  timezone_country_from?: string;
} {
  const statements = scheduleStatements(inputs);
  let timezone: string | null = null;
  for (const key of ZONE_KEYS) {
    const value = text(inputs, key, '', 1000);
    // A place field names the place wherever the city is in it ("12 Queen St, Brisbane QLD").
    if (value && (timezone = parseTimeZone(value, { place: PLACE_KEYS.has(key) }))) break;
  }
  for (const st of statements) timezone ??= parseTimeZone(st);
  const fromPhone =
    timezone === null ? zoneOfPhone(text(inputs, 'whatsapp', '', 40) || text(inputs, 'phone', '', 40)) : null;
  // "+61 …": Australian, but Australia has several zones; said so instead of a silent UTC.
  const phoneNumber = phoneDigits(text(inputs, 'whatsapp', '', 40) || text(inputs, 'phone', '', 40));
  const countryOfPhone = phoneNumber
    ? (COUNTRY_OF_CALLING_CODE.find(([code]) => phoneNumber.startsWith(code))?.[1] ?? null)
    : null;
  // Without a number, the contact e-mail's country domain ("@kowhaicandles.co.nz"), flagged likewise.
  const tld = emailCountryCode(text(inputs, 'contact_email', '', 200) || text(inputs, 'email', '', 200));
  const fromEmail =
    timezone === null && fromPhone === null && !countryOfPhone
      ? (ZONE_OF_DOMAIN.find(([code]) => code === tld)?.[1] ?? null)
      : null;
  const countryOfEmail =
    timezone === null && fromPhone === null && !countryOfPhone && !fromEmail
      ? (COUNTRY_OF_DOMAIN.find(([code]) => code === tld)?.[1] ?? null)
      : null;
  const country = countryOfPhone ?? countryOfEmail;
  let weekly: BusinessHours['weekly'] | null = null;
  for (const key of HOURS_KEYS) {
    const value = text(inputs, key, '', 1000);
    if (value && (weekly = parseWeeklyHours(value))) break;
  }
  weekly ??= statements.length > 0 ? parseWeeklyHours(statements.join('; ')) : null;
  return {
    timezone: timezone ?? fromPhone ?? fromEmail ?? 'UTC',
    timezone_given: timezone !== null,
    weekly: weekly ?? DEFAULT_WEEK,
    hours_given: weekly !== null,
    ...(fromPhone ? { timezone_from_phone: true as const } : {}),
    ...(fromEmail ? { timezone_from_email: true as const } : {}),
    ...(timezone === null && !fromPhone && !fromEmail && country
      ? {
          timezone_country: country,
          timezone_country_from: countryOfPhone ? 'the WhatsApp number' : "the contact e-mail's domain",
        }
      : {}),
  };
}

const DAY_NAMES: Record<Day, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** "Monday–Friday 08:00–18:00; Saturday 09:00–13:00" for prompts and READMEs. */
export function describeHours(h: BusinessHours): string {
  const days = Object.keys(h.weekly) as Day[];
  const parts: string[] = [];
  let i = 0;
  while (i < days.length) {
    const d = days[i] as Day;
    const slots = h.weekly[d].map(([a, b]) => `${a}–${b}`).join(', ');
    let j = i;
    while (j + 1 < days.length && h.weekly[days[j + 1] as Day].map(([a, b]) => `${a}–${b}`).join(', ') === slots)
      j += 1;
    if (slots) parts.push(`${DAY_NAMES[d]}${j > i ? `–${DAY_NAMES[days[j] as Day]}` : ''} ${slots}`);
    i = j + 1;
  }
  return parts.length ? parts.join('; ') : 'closed every day';
}

/** How a bundle's parts connect. */
export interface BundleWiring {
  bundleId: string;
  /**
   * Where the booking page posts requests; the receptionist's booking tool posts there too: the hosted booking
   * service when the order has a hosted page (issue 38 §2), else the workflow's webhook or the site's own endpoint.
   */
  bookingEndpoint: string;
  /** The hosted page, when the order has one. */
  hosted: HostedBookingPage | null;
  /** The n8n webhook URL of the workflow's bookings flow, when the bundle has one. */
  workflowWebhookUrl: string | null;
  /** n8n webhook path of the booking workflow, when the bundle has one (the endpoint is its production URL). */
  bookingWebhookPath: string | null;
  /** store-pack: the workflow also logs the store's orders. */
  orderFlow: boolean;
}

/** The host placeholder of the buyer's n8n instance in wired URLs. */
export const N8N_HOST = 'REPLACE_WITH_YOUR_N8N_HOST';

/**
 * The wiring of a bundle that holds the booking page with the receptionist or the workflow; null otherwise (a part
 * ordered alone, or a bundle without a booking page). Deterministic: every part computes the same from the order id.
 */
export function bundleWiring(
  ctx: Pick<DeliverableContext, 'orderId' | 'bundleId' | 'bookingPage'>,
): BundleWiring | null {
  const bundle = ctx.bundleId ? getService(ctx.bundleId) : undefined;
  const parts = bundle?.includes ?? [];
  if (
    !bundle ||
    !parts.includes('website-booking') ||
    !(parts.includes('ai-receptionist') || parts.includes('automation-wf'))
  )
    return null;
  const withWorkflow = parts.includes('automation-wf');
  const path = withWorkflow
    ? `bookings-${stableUuid(ctx.orderId, 'bundle-booking-webhook').replace(/-/g, '').slice(0, 12)}`
    : null;
  const workflowWebhookUrl = path ? `https://${N8N_HOST}/webhook/${path}` : null;
  return {
    bundleId: bundle.id,
    bookingEndpoint: ctx.bookingPage ? `${ctx.bookingPage.api}/bookings` : (workflowWebhookUrl ?? '/api/bookings'),
    hosted: ctx.bookingPage ?? null,
    workflowWebhookUrl,
    bookingWebhookPath: path,
    orderFlow: bundle.id === 'store-pack' && withWorkflow,
  };
}
