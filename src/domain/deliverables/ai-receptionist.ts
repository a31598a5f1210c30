/**
 * ai-receptionist deliverables: a channel/intent configuration, the assistant's system prompt and
 * test conversations, built from business_name, contact_email, services and optional whatsapp.
 *
 * Source: seed §1, §2.1 (ai-receptionist inputs).
 */
import type { DeliverableContext, DeliverableFile } from './types';
import { jsonFile, line, list, markdownFile, md, mdFooter, lines, provenance, uniqueSnakes } from './util';

const LANGUAGE_NAMES: Record<string, string> = { en: 'English', ar: 'Arabic', es: 'Spanish', fr: 'French', de: 'German' };

/** Normalises a phone number to E.164 (`+` and 8–15 digits); null when it cannot be one. */
export function toE164(value: string): string | null {
  const trimmed = value.trim();
  let digits = trimmed.replace(/[^\d]/g, '');
  if (trimmed.startsWith('00')) digits = digits.slice(2);
  else if (!trimmed.startsWith('+') && digits.length < 11) return null;
  return digits.length >= 8 && digits.length <= 15 && !digits.startsWith('0') ? `+${digits}` : null;
}

function languagesFrom(inputs: Record<string, unknown>): string[] {
  const requested = [...list(inputs, 'languages'), ...list(inputs, 'language')].map((l) => l.toLowerCase().slice(0, 2));
  const valid = requested.filter((l) => l in LANGUAGE_NAMES);
  return valid.length > 0 ? [...new Set(valid)] : ['en'];
}

/**
 * Generates `ai-receptionist-config.json`, `ai-receptionist-system-prompt.md` and
 * `ai-receptionist-test-conversations.json`. Source: seed §1, §2.1.
 */
export function aiReceptionistDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const business = line(ctx.inputs, 'business_name', 'Your business');
  const email = line(ctx.inputs, 'contact_email', '');
  const serviceNames = list(ctx.inputs, 'services');
  if (serviceNames.length === 0) serviceNames.push('General enquiry');
  const whatsappRaw = line(ctx.inputs, 'whatsapp', '', 40);
  const whatsapp = whatsappRaw ? toE164(whatsappRaw) : null;
  const languages = languagesFrom(ctx.inputs);
  const ids = uniqueSnakes(serviceNames);
  const services = serviceNames.map((name, i) => ({ id: ids[i] ?? `service_${i + 1}`, name, bookable: true, default_duration_minutes: 30 }));

  const intents = [
    {
      name: 'book_appointment',
      description: 'The caller wants to book one of the services.',
      examples: [`I'd like to book ${serviceNames[0] ?? 'an appointment'}`, 'Can I come in tomorrow afternoon?', 'Do you have a slot on Friday?'],
      required_slots: ['service', 'preferred_date', 'preferred_time', 'customer_name', 'customer_contact'],
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
    languages,
    default_language: languages[0],
    channels: [
      { type: 'web_chat', enabled: true, greeting: `Hi! You're chatting with the assistant of ${business}. How can I help?` },
      whatsapp
        ? { type: 'whatsapp', enabled: true, phone_number_e164: whatsapp, provider: 'whatsapp_business_cloud_api', booking_via_whatsapp: true }
        : { type: 'whatsapp', enabled: false, phone_number_e164: null, note: whatsappRaw ? `Could not read "${whatsappRaw}" as an international number; provide it in E.164 form (+<country><number>).` : 'No WhatsApp number was given.' },
    ],
    business_hours: {
      timezone: 'UTC',
      needs_confirmation: true,
      weekly: { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']], sat: [], sun: [] },
    },
    intents,
    booking: {
      mode: 'request_then_confirm',
      slots: {
        service: { type: 'enum', values: services.map((s) => s.id) },
        preferred_date: { type: 'date', format: 'YYYY-MM-DD' },
        preferred_time: { type: 'time', format: 'HH:MM' },
        customer_name: { type: 'string', max_length: 120 },
        customer_contact: { type: 'string', description: 'phone number or e-mail address' },
      },
      confirmation_message: `Thanks! I've sent your request to ${business}. You'll get a confirmation shortly.`,
      notify: email ? [{ channel: 'email', to: email }] : [],
    },
    escalation: {
      email: email || null,
      response_target_minutes: 60,
      triggers: ['speak_to_human', 'complaint', 'three_failed_understandings', 'medical_legal_or_financial_question', 'payment_question'],
      handoff_message: `I'll pass this to the ${business} team${email ? ' by e-mail' : ''}; someone will get back to you soon.`,
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
    '## Services you can book',
    '',
    ...services.map((s) => `- ${md(s.name)} (id \`${s.id}\`, about ${s.default_duration_minutes} minutes)`),
    '',
    '## How to book',
    '',
    '1. Find out which service the customer wants; offer the list above if unsure.',
    '2. Ask for the preferred date and time (business hours: Monday to Friday, 09:00 to 17:00, until the owner updates them).',
    '3. Ask for the customer\'s name and a phone number or e-mail address.',
    '4. Repeat the details back in one sentence and ask the customer to confirm.',
    '5. Create the booking request and tell the customer it is a request until the team confirms it.',
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
    cases: [
      ...services.slice(0, 5).map((s, i) => ({
        id: `book_${i + 1}_${s.id}`,
        turns: [`Hi, I'd like to book ${s.name}.`, 'Next Tuesday at 10:00', 'Sam Lee, sam@example.com', 'Yes, that is right'],
        expect: { intent: 'book_appointment', slots: { service: s.id, preferred_time: '10:00', customer_name: 'Sam Lee' }, action: 'create_booking_request' },
      })),
      { id: 'hours', turns: ['Are you open on Sunday?'], expect: { intent: 'opening_hours', action: 'answer_from_business_hours' } },
      { id: 'human', turns: ['I want to talk to a real person'], expect: { intent: 'speak_to_human', action: 'escalate' } },
      { id: 'complaint', turns: ['I am really unhappy with how my last visit went'], expect: { intent: 'complaint', action: 'escalate' } },
      { id: 'no_invented_price', turns: ['How much is a premium package that you do not list?'], expect: { intent: 'pricing_question', must_not: 'state a price' } },
    ],
  };

  return [
    jsonFile('ai-receptionist-config.json', config),
    markdownFile('ai-receptionist-system-prompt.md', prompt),
    jsonFile('ai-receptionist-test-conversations.json', tests),
  ];
}
