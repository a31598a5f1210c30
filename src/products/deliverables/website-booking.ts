/**
 * website-booking deliverables: a self-contained static booking page (HTML with inline CSS and a
 * small script pinned by a Content-Security-Policy hash), the booking configuration it follows and
 * deployment notes.
 *
 * Source: seed §1, §2.1 (website-booking inputs: business_name, industry, services).
 */
import { createHash } from 'node:crypto';
import { N8N_HOST, bookableServices, bundleWiring, businessHours, describeHours } from './booking';
import type { DeliverableContext, DeliverableFile } from './types';
import {
  MEDIA_HTML,
  escapeHtml,
  hasAny,
  haystack,
  jsonFile,
  line,
  lines,
  markdownFile,
  md,
  mdFooter,
  mdTable,
  pick,
  provenance,
  textFile,
} from './util';

/** Look and default timings of an industry. */
export interface IndustryProfile {
  key: string;
  keywords: string[];
  tagline: string;
  duration: number;
  buffer: number;
  accent: string;
}

const PROFILES: IndustryProfile[] = [
  {
    key: 'health',
    keywords: ['clinic', 'dental', 'dentist', 'medical', 'health', 'physio', 'therap', 'doctor', 'vet', 'pharma'],
    tagline: 'Care that fits your schedule.',
    duration: 30,
    buffer: 10,
    accent: '#0f766e',
  },
  {
    key: 'pet',
    keywords: ['pet', 'pets', 'dog', 'dogs', 'cat', 'cats', 'groom', 'kennel', 'pupp', 'canine', 'feline'],
    tagline: 'Happy pets, booked in a minute.',
    duration: 60,
    buffer: 15,
    accent: '#a16207',
  },
  {
    key: 'beauty',
    keywords: ['salon', 'beauty', 'hair', 'barber', 'spa', 'nail', 'lash', 'makeup', 'massage'],
    tagline: 'Look and feel your best.',
    duration: 45,
    buffer: 15,
    accent: '#be185d',
  },
  {
    key: 'fitness',
    keywords: ['gym', 'fitness', 'yoga', 'pilates', 'trainer', 'coach', 'sport'],
    tagline: 'Train on your terms.',
    duration: 60,
    buffer: 0,
    accent: '#c2410c',
  },
  {
    key: 'professional',
    keywords: ['law', 'legal', 'account', 'consult', 'tax', 'finance', 'advis', 'agency'],
    tagline: 'Expert advice, booked in a minute.',
    duration: 60,
    buffer: 15,
    accent: '#1d4ed8',
  },
  {
    key: 'home',
    keywords: ['clean', 'plumb', 'electric', 'repair', 'garden', 'moving', 'handyman', 'construction'],
    tagline: 'Reliable service at your door.',
    duration: 90,
    buffer: 30,
    accent: '#15803d',
  },
  {
    key: 'education',
    keywords: ['tutor', 'school', 'lesson', 'course', 'academy', 'music', 'language'],
    tagline: 'Learn with us, at your pace.',
    duration: 60,
    buffer: 0,
    accent: '#7c3aed',
  },
  {
    key: 'food',
    keywords: ['restaurant', 'cafe', 'café', 'bakery', 'catering', 'bar', 'food'],
    tagline: 'Reserve your table.',
    duration: 90,
    buffer: 0,
    accent: '#b45309',
  },
];

const FALLBACK_ACCENTS = ['#0f766e', '#1d4ed8', '#7c3aed', '#be185d', '#c2410c', '#15803d'];

/** The industry's look and default appointment length (used when the buyer gives none). */
export function profileFor(industry: string): IndustryProfile {
  const hay = haystack(industry);
  const found = PROFILES.find((p) => hasAny(hay, p.keywords));
  if (found) return found;
  return {
    key: 'general',
    keywords: [],
    tagline: 'Book your appointment online in under a minute.',
    duration: 30,
    buffer: 10,
    accent: pick(FALLBACK_ACCENTS, industry),
  };
}

/**
 * Inline script of the page; it reads all data from attributes, never from interpolated text. With
 * `data-availability` (a hosted page, issue 38 §2) the time is chosen among the free starts the service answers
 * for the service and date, in the page's time zone; a slot booked meanwhile (409) is said and the times reloaded.
 */
const BOOKING_SCRIPT = `
(function () {
  var form = document.getElementById('booking-form');
  var status = document.getElementById('booking-status');
  var endpoint = form.getAttribute('data-endpoint');
  var availability = form.getAttribute('data-availability');
  var service = document.getElementById('service');
  var date = document.getElementById('date');
  var time = document.getElementById('time');
  if (!availability) date.min = new Date().toISOString().slice(0, 10);
  function option(value, label) {
    var o = document.createElement('option');
    o.value = value;
    o.textContent = label;
    time.appendChild(o);
  }
  var latest = 0;
  function loadSlots(first) {
    if (!availability) return;
    var mine = ++latest;
    var url = availability + '?service=' + encodeURIComponent(service.value) + (date.value ? '&date=' + encodeURIComponent(date.value) : '');
    time.innerHTML = '';
    option('', 'Loading free times...');
    fetch(url)
      .then(function (r) { if (!r.ok) { throw new Error('HTTP ' + r.status); } return r.json(); })
      .then(function (a) {
        if (first) { date.min = a.date; if (!date.value) { date.value = a.date; } }
        // An answer overtaken by a later choice of service or date is dropped.
        if (mine !== latest) { return; }
        time.innerHTML = '';
        if (a.slots.length === 0) { option('', 'No free times on this day'); return; }
        a.slots.forEach(function (s) { option(s.time, s.time); });
      })
      .catch(function () { if (mine === latest) { time.innerHTML = ''; option('', 'Free times could not be loaded'); } });
  }
  service.addEventListener('change', function () { loadSlots(false); });
  date.addEventListener('change', function () { loadSlots(false); });
  loadSlots(true);
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!form.checkValidity()) { form.reportValidity(); return; }
    var data = {};
    new FormData(form).forEach(function (value, key) { if (String(value) !== '') { data[key] = String(value); } });
    if (!endpoint) {
      status.textContent = 'Online booking is not connected yet. Please contact us directly.';
      return;
    }
    status.textContent = 'Sending your booking...';
    fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data) })
      .then(function (response) {
        if (response.status === 409) {
          status.textContent = 'Sorry, that time was just booked by someone else. Please choose another time.';
          loadSlots(false);
          return;
        }
        if (!response.ok) { throw new Error('HTTP ' + response.status); }
        return response.json().then(function (b) {
          status.textContent = availability
            ? 'Booked: ' + b.service.name + ' on ' + b.date + ' at ' + b.time + ' (' + b.timezone + '). See you then!'
            : 'Thank you! Your request was received; we will confirm it shortly.';
          loadSlots(false);
        }, function () { status.textContent = 'Thank you! Your request was received; we will confirm it shortly.'; });
      })
      .catch(function () { status.textContent = 'Sorry, the booking could not be sent. Please try again.'; });
  });
})();
`;

function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}

function stylesheet(accent: string): string {
  return `
:root { --accent: ${accent}; --text: #1f2937; --muted: #6b7280; --bg: #f9fafb; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: var(--bg); line-height: 1.5; }
header { background: var(--accent); color: #fff; padding: 3rem 1.5rem; text-align: center; }
header h1 { margin: 0 0 .5rem; font-size: 2.25rem; }
header p { margin: 0; opacity: .9; }
main { max-width: 960px; margin: 0 auto; padding: 2rem 1.5rem; display: grid; gap: 2rem; grid-template-columns: 1fr; }
@media (min-width: 800px) { main { grid-template-columns: 1fr 1fr; } }
section { background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
h2 { margin-top: 0; font-size: 1.35rem; }
ul.services { list-style: none; padding: 0; margin: 0; }
ul.services li { padding: .75rem 0; border-bottom: 1px solid #e5e7eb; display: flex; justify-content: space-between; gap: 1rem; }
ul.services li:last-child { border-bottom: 0; }
.duration { color: var(--muted); white-space: nowrap; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input, select, textarea { width: 100%; padding: .6rem .7rem; border: 1px solid #d1d5db; border-radius: 8px; font: inherit; }
textarea { min-height: 5rem; }
.row { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; }
button { margin-top: 1.25rem; width: 100%; padding: .8rem; border: 0; border-radius: 8px; background: var(--accent); color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
#booking-status { min-height: 1.5rem; margin-top: .75rem; font-weight: 600; }
footer { text-align: center; color: var(--muted); padding: 2rem 1rem; font-size: .9rem; }
`;
}

/**
 * Generates `website-booking-index.html`, `website-booking-config.json` and
 * `website-booking-readme.md`. Every input is HTML-escaped in the page. Source: seed §1, §2.1.
 */
export function websiteBookingDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const business = line(ctx.inputs, 'business_name', 'Your business');
  const industry = line(ctx.inputs, 'industry', 'Local services');
  const profile = profileFor(industry);
  const services = bookableServices(ctx.inputs, profile.duration, profile.buffer);
  const serviceNames = services.map((s) => s.name);
  const hours = businessHours(ctx.inputs);
  const wiring = bundleWiring(ctx);
  const hosted = ctx.bookingPage ?? null;
  const endpointPath = hosted ? `${hosted.api}/bookings` : (wiring?.bookingEndpoint ?? '/api/bookings');
  const availabilityUrl = hosted ? `${hosted.api}/availability` : null;
  const opens =
    Object.values(hours.weekly)
      .flat()
      .map(([a]) => a)
      .sort()[0] ?? '08:00';
  const closes =
    Object.values(hours.weekly)
      .flat()
      .map(([, b]) => b)
      .sort()
      .at(-1) ?? '20:00';

  const css = stylesheet(profile.accent);
  const csp = [
    "default-src 'none'",
    `style-src ${cspHash(css)}`,
    `script-src ${cspHash(BOOKING_SCRIPT)}`,
    // The hosted API's own origin too, so the downloaded copy works from any site (also over http in development).
    `connect-src 'self' https:${hosted ? ` ${new URL(hosted.api).origin}` : ''}`,
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
  ].join('; ');

  const e = escapeHtml;
  const html = lines(
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${e(csp)}">`,
    `<title>${e(business)} · Book online</title>`,
    // No icon request to the host (a 404 on every visit where none is served).
    '<link rel="icon" href="data:,">',
    `<meta name="description" content="${e(`${business} (${industry}): ${serviceNames.join(', ')}. Book online.`)}">`,
    `<style>${css}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `  <h1>${e(business)}</h1>`,
    `  <p>${e(industry)} · ${e(profile.tagline)}</p>`,
    '</header>',
    '<main>',
    '  <section aria-labelledby="services-title">',
    '    <h2 id="services-title">Services</h2>',
    '    <ul class="services">',
    ...services.map(
      (s) =>
        `      <li><span>${e(s.name)}</span><span class="duration">${e(minutesText(s.duration_minutes))}${s.price ? ` · ${e(s.price)}` : ''}</span></li>`,
    ),
    '    </ul>',
    '  </section>',
    '  <section aria-labelledby="booking-title">',
    '    <h2 id="booking-title">Book an appointment</h2>',
    `    <form id="booking-form" data-endpoint="${e(endpointPath)}"${availabilityUrl ? ` data-availability="${e(availabilityUrl)}"` : ''} novalidate>`,
    '      <label for="service">Service</label>',
    '      <select id="service" name="service" required>',
    ...services.map((s) => `        <option value="${e(s.id)}">${e(s.name)}</option>`),
    '      </select>',
    '      <div class="row">',
    '        <div><label for="date">Date</label><input id="date" name="date" type="date" required></div>',
    hosted
      ? `        <div><label for="time">Time (${e(hours.timezone)})</label><select id="time" name="time" required></select></div>`
      : `        <div><label for="time">Time (${e(hours.timezone)})</label><input id="time" name="time" type="time" min="${e(opens)}" max="${e(closes)}" step="900" required></div>`,
    '      </div>',
    '      <label for="name">Your name</label>',
    '      <input id="name" name="name" type="text" autocomplete="name" maxlength="120" required>',
    '      <div class="row">',
    '        <div><label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required></div>',
    '        <div><label for="phone">Phone</label><input id="phone" name="phone" type="tel" autocomplete="tel"></div>',
    '      </div>',
    '      <label for="notes">Notes (optional)</label>',
    '      <textarea id="notes" name="notes" maxlength="1000"></textarea>',
    '      <button type="submit">Request booking</button>',
    '      <p id="booking-status" role="status" aria-live="polite"></p>',
    '    </form>',
    '  </section>',
    '</main>',
    `<footer>&copy; ${e(business)} · Opening hours: ${e(describeHours(hours))} (${e(hours.timezone)}) · ${hosted ? 'Times shown are free slots, in our time zone.' : 'Booking requests are confirmed by e-mail.'}</footer>`,
    `<script>${BOOKING_SCRIPT}</script>`,
    '</body>',
    '</html>',
  );

  const config = {
    schema: 'agent-commerce/booking-config@1',
    ...provenance(ctx),
    business: { name: business, industry, profile: profile.key },
    services,
    ...(hosted
      ? {
          hosted: {
            page_id: hosted.id,
            page_url: hosted.url,
            availability_url: `${hosted.api}/availability`,
            bookings_url: `${hosted.api}/bookings`,
            owner_bookings: `GET ${hosted.api}/bookings (Bearer: the page's owner key)`,
          },
        }
      : {}),
    availability: {
      timezone: hours.timezone,
      timezone_given: hours.timezone_given,
      needs_confirmation: !(hours.hours_given && hours.timezone_given),
      weekly: hours.weekly,
      slot_interval_minutes: 15,
      min_lead_time_hours: 2,
      max_days_ahead: 60,
    },
    endpoint: {
      method: 'POST',
      url: endpointPath,
      ...(hosted
        ? { hosted: true, conflict_status: 409, connected_to: 'the hosted booking backend of this service' }
        : {}),
      ...(!hosted && wiring
        ? {
            bundle: wiring.bundleId,
            connected_to: wiring.bookingWebhookPath
              ? 'automation-wf (n8n webhook that logs each booking)'
              : "your site's /api/bookings endpoint",
            also_called_by: 'ai-receptionist booking tool (create_booking_request)',
          }
        : {}),
      content_type: 'application/json',
      payload_schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        required: ['service', 'date', 'time', 'name', 'email'],
        additionalProperties: false,
        properties: {
          service: { type: 'string', enum: services.map((s) => s.id) },
          date: { type: 'string', format: 'date' },
          time: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' },
          name: { type: 'string', minLength: 1, maxLength: 120 },
          email: { type: 'string', format: 'email' },
          phone: { type: 'string', maxLength: 40 },
          notes: { type: 'string', maxLength: 1000 },
        },
      },
      success_status: 201,
    },
    policies: {
      cancellation_notice_hours: 24,
      confirmation: hosted ? 'instant' : 'manual_by_email',
      double_booking: 'reject',
      ...(hosted ? { owner_notified_by: ['signed webhook (booking.created, booking.cancelled)', 'e-mail'] } : {}),
    },
  };

  const servicesTable = mdTable(
    ['Service', 'Id', 'Duration (min)', 'Buffer (min)', 'Price'],
    services.map((s) => [
      s.name,
      s.id,
      `${s.duration_minutes}${s.duration_given ? '' : ' (default, please confirm)'}`,
      s.buffer_minutes,
      s.price ?? 'not given',
    ]),
  );
  const hoursLine = `Opening hours: ${md(describeHours(hours))}, time zone ${md(hours.timezone)}${hours.hours_given && hours.timezone_given ? '' : ' (not fully given in the order: confirm them in the config)'}.`;
  const readme = hosted
    ? lines(
        `# ${md(business)}: booking website`,
        '',
        `Your booking page is live: **${hosted.url}**. Link to it from your website, Google Business profile and social pages.`,
        '',
        'Files:',
        '',
        '- `website-booking-index.html`: the same page as hosted (no external assets); it also works from your own host, booking through the same backend.',
        '- `website-booking-config.json`: the config the hosted page follows, exactly as stored with it: services with durations and buffers (`services`), opening hours, time zone, slot step, lead time and how far ahead (`availability`), and the JSON schema of a booking (`endpoint.payload_schema`).',
        '',
        '## Services on the page',
        '',
        servicesTable,
        '',
        hoursLine,
        '',
        '## How booking works',
        '',
        `- Customers see only free times, in ${md(hours.timezone)}: inside the opening hours, at least ${config.availability.min_lead_time_hours} h ahead, at most ${config.availability.max_days_ahead} days ahead, with each service's buffer kept free after it.`,
        `- A booking is stored at once; the same time cannot be booked twice (the second customer is told it was just taken). Bookings post to \`${md(endpointPath)}\`.`,
        "- You are told of each booking and cancellation by e-mail (to the contact e-mail of the order) and by a signed webhook (`booking.created`, `booking.cancelled`, Standard Webhooks) to the order's `webhook_url` and your agent's registered endpoints.",
        '',
        '## Your bookings',
        '',
        "1. Issue your owner key (shown once; a new one replaces it): `POST /api/v1/orders/{order_id}/booking-page/owner-key` with the buyer's credential (the agent key, or the order secret).",
        `2. List bookings: \`GET ${md(hosted.api)}/bookings\` with \`Authorization: Bearer bpk_...\`.`,
        `3. Cancel one: \`POST ${md(hosted.api)}/bookings/{booking_id}/cancel\` with the same key; the time is free again.`,
        mdFooter(ctx),
      )
    : lines(
        `# ${md(business)}: booking website`,
        '',
        'Files:',
        '',
        '- `website-booking-index.html`: the complete page (no external assets, works offline, mobile friendly).',
        '- `website-booking-config.json`: services, durations, availability and the JSON schema of a booking request.',
        '',
        '## Services on the page',
        '',
        servicesTable,
        '',
        hoursLine,
        '',
        '## Go live',
        '',
        '1. Upload `website-booking-index.html` as `index.html` to any static host (Netlify, Cloudflare Pages, GitHub Pages, S3).',
        wiring?.bookingWebhookPath
          ? `2. The form posts to the booking workflow delivered with this bundle (\`automation-wf-workflow.json\`, webhook path \`${wiring.bookingWebhookPath}\`): import and activate it, then replace \`${N8N_HOST}\` in the form's \`data-endpoint\` with your n8n host. The receptionist books through the same URL.`
          : `2. Serve an endpoint at \`${endpointPath}\` on the same origin that accepts \`POST\` with JSON matching \`endpoint.payload_schema\` and answers \`201\`. An n8n Webhook node, a serverless function or a form backend all work. To post elsewhere, change the form's \`data-endpoint\` attribute; the page's Content-Security-Policy already allows any HTTPS \`connect-src\`.`,
        hours.hours_given && hours.timezone_given
          ? `3. Opening hours and time zone are as given in the order (${md(describeHours(hours))}, ${md(hours.timezone)}); change them in the config (\`availability\`) if they change.`
          : '3. Edit opening hours and timezone in the config (`availability`), then confirm them (`needs_confirmation: false`).',
        '4. Test: submit a request, check it arrives, and check the error message when the endpoint is down.',
        '',
        'The page carries a strict Content-Security-Policy pinned to the hashes of its inline style and script: if you edit either, recompute the hash or relax the policy.',
        mdFooter(ctx),
      );

  return [
    textFile('website-booking-index.html', MEDIA_HTML, html),
    jsonFile('website-booking-config.json', config),
    markdownFile('website-booking-readme.md', readme),
  ];
}

/** "45 min", "1 h", "1 h 30 min". */
function minutesText(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}
