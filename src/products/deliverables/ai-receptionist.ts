/**
 * ai-receptionist deliverables: a channel/intent configuration, the assistant's system prompt and
 * test conversations, built from business_name, contact_email, services and optional whatsapp.
 *
 * Source: seed §1, §2.1 (ai-receptionist inputs).
 */
import { z } from 'zod';
import { bookableServices, bundleWiring, businessHours, describeHours } from './booking';
import { HOUSE_RULES, languageReply, languageTask, type LanguageTask } from './language';
import type { DeliverableContext, DeliverableFile, HostedReceptionist } from './types';
import { jsonFile, line, list, markdownFile, md, mdFooter, lines, provenance } from './util';
import { profileFor, websiteBookingDeliverables } from './website-booking';

const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  ar: 'Arabic',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
};

/** Normalises a phone number to E.164 (`+` and 8–15 digits); null when it cannot be one. */
export function toE164(value: string): string | null {
  const trimmed = value.trim();
  let digits = trimmed.replace(/[^\d]/g, '');
  if (trimmed.startsWith('00')) digits = digits.slice(2);
  else if (!trimmed.startsWith('+') && digits.length < 11) return null;
  return digits.length >= 8 && digits.length <= 15 && !digits.startsWith('0') ? `+${digits}` : null;
}

/** Calling codes of countries that write national numbers with a trunk 0 ("07700 900123"), by time zone. */
const TRUNK_ZERO_CODE: [RegExp, string, string][] = [
  [/^Europe\/London$/, '44', 'the United Kingdom'],
  [/^Europe\/Dublin$/, '353', 'Ireland'],
  [/^Australia\//, '61', 'Australia'],
  [/^Pacific\/Auckland$/, '64', 'New Zealand'],
  [/^Europe\/Berlin$/, '49', 'Germany'],
  [/^Europe\/Paris$/, '33', 'France'],
  [/^Europe\/Amsterdam$/, '31', 'the Netherlands'],
  [/^Europe\/Brussels$/, '32', 'Belgium'],
  [/^Europe\/Zurich$/, '41', 'Switzerland'],
  [/^Europe\/Vienna$/, '43', 'Austria'],
  [/^Asia\/Kolkata$/, '91', 'India'],
  [/^Africa\/Johannesburg$/, '27', 'South Africa'],
  [/^Asia\/Dubai$/, '971', 'the United Arab Emirates'],
  [/^Asia\/Tokyo$/, '81', 'Japan'],
];

/**
 * A national number written with its trunk 0 ("07700 900123") in E.164 for the country of the business's time zone
 * (Europe/London → +447700900123), with the country; null when the zone's country is not known to use a trunk 0.
 */
export function nationalToE164(value: string, timezone: string): { e164: string; country: string } | null {
  const trimmed = value.trim();
  if (!/^0[1-9]/.test(trimmed)) return null;
  const hit = TRUNK_ZERO_CODE.find(([re]) => re.test(timezone));
  if (!hit) return null;
  const digits = `${hit[1]}${trimmed.replace(/\D/g, '').slice(1)}`;
  return digits.length >= 8 && digits.length <= 15 ? { e164: `+${digits}`, country: hit[2] } : null;
}

function languagesFrom(inputs: Record<string, unknown>): string[] {
  const requested = [...list(inputs, 'languages'), ...list(inputs, 'language')].map((l) => l.toLowerCase().slice(0, 2));
  const valid = requested.filter((l) => l in LANGUAGE_NAMES);
  return valid.length > 0 ? [...new Set(valid)] : ['en'];
}

const Wording = z.object({
  greeting: z.string().min(1).max(400).describe('First message of the web chat, naming the business'),
  about: z
    .string()
    .min(1)
    .max(1200)
    .describe('Two to four sentences the assistant may say about the business, only from the facts given'),
  faq: z
    .array(z.object({ question: z.string().min(1), answer: z.string().min(1).max(800) }))
    .min(3)
    .max(8)
    .describe('Common customer questions for this business with answers drawn only from the facts given'),
});

function sector(inputs: Record<string, unknown>): string {
  return (
    line(inputs, 'industry') || line(inputs, 'practice_type') || line(inputs, 'category') || line(inputs, 'sector')
  );
}

/** Optional wording of the receptionist by the model: greeting, a short description and FAQ answers. Source: issue 13. */
export function aiReceptionistLanguage(ctx: DeliverableContext): LanguageTask[] {
  const business = line(ctx.inputs, 'business_name', 'Your business');
  const services = bookableServices(ctx.inputs, profileFor(sector(ctx.inputs)).duration, 0, 'General enquiry');
  const hours = businessHours(ctx.inputs);
  return [
    languageTask(
      'receptionist_wording',
      false,
      `You write the customer-facing wording of a virtual receptionist for a small business: warm, brief, factual. Never state prices, policies or availability that are not in the facts. ${HOUSE_RULES}`,
      lines(
        `Business: ${business}`,
        sector(ctx.inputs) ? `Sector: ${sector(ctx.inputs)}` : null,
        `Services: ${services.map((s) => `${s.name} (${s.duration_minutes} min${s.price ? `, ${s.price}` : ''})`).join('; ')}`,
        `Opening hours: ${describeHours(hours)} (${hours.timezone})`,
        line(ctx.inputs, 'contact_email') ? `Contact e-mail: ${line(ctx.inputs, 'contact_email')}` : null,
      ),
      Wording,
      1200,
    ),
  ];
}

/**
 * Generates `ai-receptionist-config.json`, `ai-receptionist-system-prompt.md` and
 * `ai-receptionist-test-conversations.json`: services with their durations as given, opening hours and time zone
 * as given, a booking tool (wired to the bundle's booking page when there is one) and, when a model wrote it, the
 * greeting and FAQ (`ctx.language.receptionist_wording`). Source: seed §1, §2.1; issue 13.
 */
export function aiReceptionistDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const business = line(ctx.inputs, 'business_name', 'Your business');
  const email = line(ctx.inputs, 'contact_email', '');
  const profile = profileFor(sector(ctx.inputs));
  const booked = bookableServices(ctx.inputs, profile.duration, profile.buffer, 'General enquiry');
  const serviceNames = booked.map((s) => s.name);
  const hours = businessHours(ctx.inputs);
  const whatsappRaw = line(ctx.inputs, 'whatsapp', '', 40);
  const international = whatsappRaw ? toE164(whatsappRaw) : null;
  // "07700 900123" for a business in London: the national number with the country's code, said and to be confirmed.
  const national =
    whatsappRaw && !international
      ? nationalToE164(
          whatsappRaw,
          hours.timezone === 'UTC' && hours.timezone_country === 'Australia' ? 'Australia/' : hours.timezone,
        )
      : null;
  const whatsapp = international ?? national?.e164 ?? null;
  const languages = languagesFrom(ctx.inputs);
  // The number urgent callers are given: the one the buyer named for it, else the WhatsApp number.
  const namedPhone =
    line(ctx.inputs, 'escalation_phone', '', 40) ||
    line(ctx.inputs, 'urgent_phone', '', 40) ||
    line(ctx.inputs, 'phone', '', 40);
  const escalationPhone =
    (namedPhone ? (toE164(namedPhone) ?? nationalToE164(namedPhone, hours.timezone)?.e164 ?? namedPhone) : null) ??
    whatsapp;
  const services = booked.map((s) => ({
    id: s.id,
    name: s.name,
    bookable: true,
    default_duration_minutes: s.duration_minutes,
    duration_given: s.duration_given,
    price: s.price,
  }));
  const hoursText = describeHours(hours);
  const wiring = bundleWiring(ctx);
  const wording = languageReply(ctx, 'receptionist_wording', Wording);
  const hosted = ctx.receptionist ?? null;
  const bookingUrl = hosted ? `${hosted.bookingPage.api}/bookings` : (wiring?.bookingEndpoint ?? null);
  const bookingTool = {
    name: 'create_booking_request',
    description: hosted
      ? "Books into the receptionist's hosted booking page (the same request its form sends; a taken slot answers 409)."
      : wiring
        ? `Books into the ${wiring.bundleId} booking page's endpoint (the same request the page's form sends).`
        : "Sends a booking request to the business's booking endpoint (set `url` to where your bookings are received).",
    method: 'POST',
    url: bookingUrl,
    ...(bookingUrl ? {} : { url_needed: 'No booking endpoint is hosted for this configuration: set url to yours.' }),
    content_type: 'application/json',
    body_from_slots: {
      service: 'service',
      date: 'preferred_date',
      time: 'preferred_time',
      name: 'customer_name',
      email: 'customer_email',
      phone: 'customer_phone',
      notes: 'summary',
    },
    success_status: 201,
    ...(hosted
      ? {
          availability_url: `${hosted.bookingPage.api}/availability`,
          connected_to: 'the hosted booking page of this receptionist',
        }
      : {}),
    ...(wiring && !hosted
      ? {
          connected_to: wiring.bookingWebhookPath
            ? `website-booking form and automation-wf webhook ${wiring.bookingWebhookPath}`
            : 'website-booking form endpoint',
        }
      : {}),
  };

  const intents = [
    {
      name: 'book_appointment',
      description: 'The caller wants to book one of the services.',
      examples: [
        `I'd like to book ${serviceNames[0] ?? 'an appointment'}`,
        'Can I come in tomorrow afternoon?',
        'Do you have a slot on Friday?',
      ],
      required_slots: ['service', 'preferred_date', 'preferred_time', 'customer_name', 'customer_email'],
      action: 'create_booking_request',
    },
    {
      name: 'reschedule_or_cancel',
      description: 'The caller wants to move or cancel an existing booking.',
      examples: ['I need to cancel my appointment', 'Can we move my booking to next week?'],
      required_slots: ['customer_name', 'customer_contact', 'existing_booking_date'],
      action: 'forward_to_staff',
    },
    {
      name: 'service_information',
      description: 'Questions about what a service includes.',
      examples: serviceNames.slice(0, 3).map((s) => `What does ${s} include?`),
      required_slots: ['service'],
      action: 'answer_from_knowledge',
    },
    {
      name: 'pricing_question',
      description: 'Questions about prices; answer only from confirmed price data, otherwise take a message.',
      examples: ['How much does it cost?', `What is the price for ${serviceNames[0] ?? 'this'}?`],
      required_slots: [],
      action: 'answer_from_knowledge_or_take_message',
    },
    {
      name: 'opening_hours',
      description: 'When the business is open.',
      examples: ['Are you open on Saturday?', 'What time do you close?'],
      required_slots: [],
      action: 'answer_from_business_hours',
    },
    {
      name: 'speak_to_human',
      description: 'The caller asks for a person, or the assistant cannot help.',
      examples: ['Can I talk to someone?', 'I want to speak to the manager'],
      required_slots: ['customer_name', 'customer_contact'],
      action: 'escalate',
    },
    {
      name: 'complaint',
      description: 'Dissatisfaction or a complaint; always escalated.',
      examples: ['I am not happy with my last visit', 'This is unacceptable'],
      required_slots: ['customer_name', 'customer_contact', 'summary'],
      action: 'escalate',
    },
  ];

  const config = {
    schema: 'agent-commerce/receptionist-config@1',
    ...provenance(ctx),
    business: { name: business, contact_email: email || null, services },
    ...(hosted ? { hosted: hostedBlock(hosted) } : {}),
    languages,
    default_language: languages[0],
    channels: [
      {
        type: 'web_chat',
        enabled: true,
        greeting: wording?.value.greeting ?? `Hi! You're chatting with the assistant of ${business}. How can I help?`,
      },
      whatsapp
        ? {
            type: 'whatsapp',
            enabled: true,
            phone_number_e164: whatsapp,
            provider: 'whatsapp_business_cloud_api',
            booking_via_whatsapp: true,
            ...(national
              ? {
                  note: `Read "${whatsappRaw}" as a number in ${national.country} (from the business's ${hours.timezone_given ? '' : 'assumed '}time zone ${hours.timezone}); confirm it.`,
                }
              : {}),
          }
        : {
            type: 'whatsapp',
            enabled: false,
            phone_number_e164: null,
            note: whatsappRaw
              ? `Could not read "${whatsappRaw}" as an international number; provide it in E.164 form (+<country><number>).`
              : 'No WhatsApp number was given.',
          },
    ],
    business_hours: {
      timezone: hours.timezone,
      timezone_given: hours.timezone_given,
      ...(hours.timezone_from_phone ? { timezone_source: "the WhatsApp number's country code" } : {}),
      ...(hours.timezone_from_email ? { timezone_source: "the contact e-mail's country domain" } : {}),
      ...(hours.timezone_country
        ? {
            timezone_note: `Not given: ${hours.timezone_country_from ?? 'the contact'} is from ${hours.timezone_country}, which has several time zones; set the business's zone.`,
          }
        : {}),
      needs_confirmation: !(hours.hours_given && hours.timezone_given),
      weekly: hours.weekly,
    },
    tools: [bookingTool],
    faq: wording?.value.faq ?? [],
    ...(wording ? { wording_by: { model: wording.model } } : {}),
    intents,
    booking: {
      mode: 'request_then_confirm',
      slots: {
        service: { type: 'enum', values: services.map((s) => s.id) },
        preferred_date: { type: 'date', format: 'YYYY-MM-DD' },
        preferred_time: { type: 'time', format: 'HH:MM' },
        customer_name: { type: 'string', max_length: 120 },
        customer_email: { type: 'string', format: 'email' },
        customer_contact: { type: 'string', description: 'phone number or e-mail address (reschedule, hand-over)' },
        customer_phone: { type: 'string', required: false },
      },
      tool: 'create_booking_request',
      confirmation_message: `Thanks! I've sent your request to ${business}. You'll get a confirmation shortly.`,
      notify: email ? [{ channel: 'email', to: email }] : [],
    },
    escalation: {
      email: email || null,
      phone: escalationPhone,
      response_target_minutes: 60,
      triggers: [
        'speak_to_human',
        'complaint',
        'three_failed_understandings',
        'medical_legal_or_financial_question',
        'payment_question',
      ],
      handoff_message: `I'll pass this to the ${business} team${email ? ' by e-mail' : ''}; someone will get back to you soon.${escalationPhone ? ` If it cannot wait, call ${escalationPhone}.` : ''}`,
    },
    guardrails: [
      'Never invent prices, availability or policies that are not in this configuration.',
      'Never give medical, legal or financial advice; offer to take a message instead.',
      'Never collect payment card data in chat.',
      'Ask for at most one missing detail per message.',
      'Confirm bookings as requests until staff confirm them.',
    ],
    data_retention_days: 30,
  };

  const prompt = lines(
    `# System prompt: receptionist for ${md(business)}`,
    '',
    `You are the virtual receptionist of **${md(business)}**. You answer customers on ${whatsapp ? 'web chat and WhatsApp' : 'web chat'}, help them book, and pass anything you cannot handle to the team.`,
    '',
    wording ? md(wording.value.about) : null,
    wording ? '' : null,
    `Opening hours: ${md(hoursText)} (time zone ${md(hours.timezone)}${hours.timezone_country ? `, a placeholder: the business is in ${md(hours.timezone_country)}, whose zone was not given` : ''})${hours.hours_given && hours.timezone_given ? '' : ', to be confirmed by the owner: until then, offer times as requests the team confirms'}. Times customers give are in this time zone unless they say otherwise.`,
    '',
    '## Services you can book',
    '',
    ...services.map(
      (s) =>
        `- ${md(s.name)} (id \`${s.id}\`, ${s.default_duration_minutes} minutes${s.price ? `, ${md(s.price)}` : ''})`,
    ),
    services.some((s) => s.price) ? '\nQuote only the prices listed here; for anything else, take a message.' : null,
    '',
    '## How to book',
    '',
    '1. Find out which service the customer wants; offer the list above if unsure.',
    `2. Ask for the preferred date and time within the opening hours (${md(hoursText)}); the appointment must end by closing time.`,
    "3. Ask for the customer's name and e-mail address (a phone number is optional).",
    '4. Repeat the details back in one sentence and ask the customer to confirm.',
    hosted
      ? `5. Call \`create_booking_request\` (it posts to ${md(`${hosted.bookingPage.api}/bookings`)}, your hosted booking page); a 201 is a confirmed booking, a 409 means the time was just taken: offer other free times.`
      : `5. Call \`create_booking_request\`${wiring ? ` (it posts to ${md(wiring.bookingEndpoint)}, the same endpoint as the booking page)` : ''} and tell the customer it is a request until the team confirms it.`,
    ...(wording && wording.value.faq.length
      ? [
          '',
          '## Answers to common questions',
          '',
          ...wording.value.faq.flatMap((f) => [`**${md(f.question)}**`, '', md(f.answer), '']),
        ]
      : []),
    '',
    '## When to hand over to a person',
    '',
    '- The customer asks for a person, complains, or you misunderstand three times in a row.',
    '- Medical, legal, financial or payment questions.',
    '- Anything about prices or policies you do not find in your configuration.',
    '',
    email
      ? `Hand over by taking a short message (name, contact, summary) for ${md(email)}, and tell the customer the team replies within about an hour during business hours.`
      : 'Hand over by taking a short message (name, contact, summary) for the team.',
    escalationPhone ? `For anything urgent, also give the customer the number ${md(escalationPhone)}.` : null,
    ...(hosted
      ? [
          '',
          '## Where you run',
          '',
          `You are hosted at ${md(hosted.chatUrl)} (chat page; embed it with \`<script src="${hosted.embedUrl}" async></script>\`), and answer messages posted to ${md(hosted.messagesUrl)} (also the MCP tool \`receptionist_chat\`). You run while the subscription is paid: an unpaid renewal suspends you, a cancelled subscription ends you.`,
        ]
      : []),
    '',
    '## Style',
    '',
    `- Reply in the customer's language when it is one of: ${languages.map((l) => LANGUAGE_NAMES[l] ?? l).join(', ')}; otherwise reply in ${LANGUAGE_NAMES[languages[0] ?? 'en'] ?? 'English'}.`,
    '- Be warm and brief: at most three short sentences per message, one question at a time.',
    '- Never invent prices, availability or policies. Never ask for card numbers.',
    mdFooter(ctx),
  );

  const tests = {
    schema: 'agent-commerce/receptionist-tests@1',
    ...provenance(ctx),
    ...(hosted
      ? {
          run_against: {
            method: 'POST',
            url: hosted.messagesUrl,
            body: { text: '<turn>', conversation_id: '<conversation_id of the first answer>' },
            note: "Send each case's turns in order to the live receptionist; the first answer gives the conversation_id. Booking cases book real slots: cancel them with the booking page owner key afterwards.",
          },
        }
      : {}),
    cases: [
      ...services.slice(0, 5).map((s, i) => ({
        id: `book_${i + 1}_${s.id}`,
        turns: [
          `Hi, I'd like to book ${s.name}.`,
          `Next Tuesday at ${firstOpen(hours.weekly)}`,
          'Sam Lee, sam@example.com',
          'Yes, that is right',
        ],
        expect: {
          intent: 'book_appointment',
          slots: { service: s.id, preferred_time: firstOpen(hours.weekly), customer_name: 'Sam Lee' },
          action: 'create_booking_request',
          duration_minutes: s.default_duration_minutes,
        },
      })),
      {
        id: 'hours',
        turns: ['Are you open on Sunday?'],
        expect: { intent: 'opening_hours', action: 'answer_from_business_hours' },
      },
      {
        id: 'human',
        turns: ['I want to talk to a real person'],
        expect: { intent: 'speak_to_human', action: 'escalate' },
      },
      {
        id: 'complaint',
        turns: ['I am really unhappy with how my last visit went'],
        expect: { intent: 'complaint', action: 'escalate' },
      },
      {
        id: 'no_invented_price',
        turns: ['How much is a premium package that you do not list?'],
        expect: { intent: 'pricing_question', must_not: 'state a price' },
      },
    ],
  };

  return [
    jsonFile('ai-receptionist-config.json', config),
    markdownFile('ai-receptionist-system-prompt.md', prompt),
    jsonFile('ai-receptionist-test-conversations.json', tests),
  ];
}

/** The first opening time of Tuesday (or of any day), for test conversations that must fall inside the hours. */
function firstOpen(weekly: Record<string, [string, string][]>): string {
  return weekly.tue?.[0]?.[0] ?? Object.values(weekly).flat()[0]?.[0] ?? '10:00';
}

/** The config's `hosted` block: where the receptionist runs and how it follows its subscription. */
function hostedBlock(h: HostedReceptionist): Record<string, unknown> {
  return {
    receptionist_id: h.id,
    chat_page: h.chatUrl,
    embed_snippet: `<script src="${h.embedUrl}" async></script>`,
    messages_api: {
      method: 'POST',
      url: h.messagesUrl,
      body: { text: 'string', conversation_id: 'string (optional)' },
    },
    mcp_tool: 'receptionist_chat',
    booking_page: { page_id: h.bookingPage.id, url: h.bookingPage.url, bookings_url: `${h.bookingPage.api}/bookings` },
    lifecycle:
      'Runs while the subscription is paid: an unpaid renewal suspends it (423), a payment resumes it, the end of the subscription ends it (410).',
  };
}

/**
 * The hosted receptionist's own booking page (issue 38 §1): the website-booking page and config for the same
 * business facts (its sector's durations and buffers, the same services, hours and zone), stored with the page the
 * receptionist books into. Not delivered as files: the receptionist config names the page.
 */
export function receptionistBookingPage(ctx: DeliverableContext & { receptionist: HostedReceptionist }): {
  config: Record<string, unknown>;
  html: string;
} {
  const industry = sector(ctx.inputs) || 'Local services';
  const profile = profileFor(sector(ctx.inputs));
  const booked = bookableServices(ctx.inputs, profile.duration, profile.buffer, 'General enquiry');
  // The receptionist's fallback service when the services text names none, so both list the same ids.
  const fallback =
    booked.length === 1 &&
    booked[0]?.name === 'General enquiry' &&
    !/general enquiry/i.test(line(ctx.inputs, 'services'));
  const files = websiteBookingDeliverables({
    orderId: ctx.orderId,
    serviceId: 'website-booking',
    inputs: { ...ctx.inputs, industry, ...(fallback ? { services: 'General enquiry' } : {}) },
    issuedAt: ctx.issuedAt,
    bookingPage: ctx.receptionist.bookingPage,
  });
  const html = files.find((f) => f.name === 'website-booking-index.html');
  const config = files.find((f) => f.name === 'website-booking-config.json');
  if (!html || !config) throw new Error('website-booking generator gave no page or config');
  return {
    config: JSON.parse(config.content.toString('utf8')) as Record<string, unknown>,
    html: html.content.toString('utf8'),
  };
}
