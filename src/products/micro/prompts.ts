/**
 * Prompt-pack items: for each sector, seven packs of chat prompts (lead qualification, support
 * replies, review responses, booking follow-ups, payment follow-ups, announcements, meeting
 * summaries). Each prompt has a system and a user template with `{{variable}}` placeholders, the
 * list of variables it uses, the expected output (plain text or JSON with a JSON Schema) and an
 * example: sector-specific values and the templates rendered with them.
 *
 * Source: issue 3 §3 (prompt packs: system/user templates with variables and an example).
 */
import { slug } from '../deliverables/util';
import type { JsonSchema } from './entities';
import type { Sector } from './sectors';

/** Format label carried by every pack. */
export const PROMPT_PACK_FORMAT = 'agent-commerce.prompt-pack/1';

/** Placeholder syntax: `{{name}}` with a snake_case name. */
export const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g;

/** Names used in templates. */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ''))];
}

/**
 * Renders a template by replacing each `{{name}}` with `values[name]` verbatim.
 *
 * @throws Error if the template uses a name `values` lacks.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`template variable ${name} has no value`);
    return v;
  });
}

type Output = { format: 'text'; max_words?: number } | { format: 'json'; schema: JsonSchema };

interface PromptDef {
  id: string;
  title: string;
  purpose: string;
  system: string;
  user: string;
  /** Declared variables: exactly those the two templates use (the tests check it). */
  variables: readonly string[];
  output: Output;
}

/** A use case: a named set of prompts and the n8n nodes that typically feed and consume it. */
export interface UseCase {
  key: string;
  title: string;
  description: string;
  /** n8n trigger node type that supplies the variables. */
  trigger: string;
  /** n8n action node type that sends the generated text. */
  action: string;
  prompts: readonly PromptDef[];
}

/** Variable descriptions and their example values for a sector. */
const VARIABLES: Readonly<Record<string, { description: string; example: (s: Sector) => string }>> = {
  business_name: { description: 'Name of the business the text is written for.', example: (s) => s.business },
  offering: { description: 'What the business offers, in a short phrase.', example: (s) => s.offering },
  guardrail: {
    description: 'A rule every generated text must respect (legal, safety or policy).',
    example: (s) => s.guardrail,
  },
  customer_noun: { description: 'What the business calls its customers (singular).', example: (s) => s.customer },
  customer_name: { description: 'The customer\u2019s full name.', example: (s) => s.sample.person },
  contact_email: {
    description: 'Private contact address offered to the customer.',
    example: (s) => `hello@${slug(s.business)}.example`,
  },
  enquiry: { description: 'The new customer\u2019s enquiry, verbatim.', example: (s) => s.sample.enquiry },
  issue: { description: 'The customer\u2019s problem, verbatim.', example: (s) => s.sample.issue },
  item: { description: 'What was bought or booked.', example: (s) => s.sample.item },
  reference: { description: 'Order, booking or case reference.', example: () => 'REF-20418' },
  booking_link: {
    description: 'Link where the customer books or changes a booking.',
    example: (s) => `https://book.example.com/${slug(s.business)}`,
  },
  agent_name: { description: 'Name to sign with.', example: () => 'Sam' },
  days_since_contact: { description: 'Whole days since the last message to the customer.', example: () => '4' },
  review_positive: {
    description: 'A positive review, verbatim.',
    example: (s) => `Great experience with ${s.sample.item}: quick, friendly and exactly as described.`,
  },
  review_critical: { description: 'A critical review, verbatim.', example: (s) => s.sample.issue },
  appointment_time: {
    description: 'Date and time of the booking, as the customer should read it.',
    example: () => 'Saturday 14 March at 10:30',
  },
  location: { description: 'Where the booking takes place.', example: (s) => `${s.business}, 12 Market Street` },
  invoice_number: { description: 'Invoice number.', example: () => 'INV-2026-041' },
  amount_due: {
    description: 'Amount due with currency.',
    example: (s) => (s.sample.price === 'n/a' ? '450.00 USD' : s.sample.price),
  },
  due_date: { description: 'Due date, as the customer should read it.', example: () => '31 March 2026' },
  payment_link: {
    description: 'Link where the invoice can be paid.',
    example: () => 'https://pay.example.com/inv-2026-041',
  },
  news: {
    description: 'The news to announce, one or two sentences.',
    example: (s) => `From 1 April you can book ${s.sample.item} online in under a minute.`,
  },
  meeting_title: { description: 'Title of the meeting.', example: (s) => `Intro call: ${s.sample.item}` },
  attendees: { description: 'Who attended.', example: (s) => `${s.sample.person}; Sam (account lead)` },
  transcript: {
    description: 'Meeting notes or transcript, verbatim.',
    example: (s) =>
      `${s.sample.person} asked: ${s.sample.enquiry} Sam explained the options for ${s.sample.item}. Decision: Sam sends a written proposal by Friday; ${s.sample.person} replies with dates next week.`,
  },
};

const scoreSchema: JsonSchema = {
  type: 'object',
  properties: {
    score: { type: 'integer', minimum: 0, maximum: 100 },
    reasons: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 5 },
    next_step: { type: 'string', enum: ['book_call', 'send_info', 'nurture', 'disqualify'] },
  },
  required: ['score', 'reasons', 'next_step'],
  additionalProperties: false,
};
const triageSchema: JsonSchema = {
  type: 'object',
  properties: {
    category: { type: 'string', minLength: 1, maxLength: 40 },
    urgency: { type: 'string', enum: ['low', 'normal', 'high', 'urgent'] },
    sentiment: { type: 'string', enum: ['negative', 'neutral', 'positive'] },
    needs_human: { type: 'boolean' },
  },
  required: ['category', 'urgency', 'sentiment', 'needs_human'],
  additionalProperties: false,
};
const themesSchema: JsonSchema = {
  type: 'object',
  properties: {
    praise: { type: 'array', items: { type: 'string' } },
    complaints: { type: 'array', items: { type: 'string' } },
    actions: { type: 'array', items: { type: 'string' } },
  },
  required: ['praise', 'complaints', 'actions'],
  additionalProperties: false,
};
const actionItemsSchema: JsonSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          owner: { type: ['string', 'null'] },
          task: { type: 'string', minLength: 1 },
          due: { type: ['string', 'null'] },
        },
        required: ['owner', 'task', 'due'],
        additionalProperties: false,
      },
    },
  },
  required: ['items'],
  additionalProperties: false,
};

const Q = '"""';

/** The seven use cases, in catalogue order. */
export const USE_CASES: readonly UseCase[] = [
  {
    key: 'lead_qualification',
    title: 'Lead qualification',
    description: 'Score a new enquiry, answer it, log it in the CRM and follow up.',
    trigger: 'n8n-nodes-base.formTrigger',
    action: 'n8n-nodes-base.hubspot',
    prompts: [
      {
        id: 'qualify',
        title: 'Qualify the enquiry',
        purpose: 'Score fit 0-100 with reasons and a next step.',
        system:
          'You qualify inbound enquiries for {{business_name}}, which offers {{offering}}. Judge fit only from facts in the enquiry; never invent budget or intent. {{guardrail}} Answer with JSON only.',
        user: `Enquiry from {{customer_name}}:\n${Q}{{enquiry}}${Q}\n\nReturn {"score": 0-100, "reasons": [short strings], "next_step": "book_call" | "send_info" | "nurture" | "disqualify"}.`,
        variables: ['business_name', 'offering', 'guardrail', 'customer_name', 'enquiry'],
        output: { format: 'json', schema: scoreSchema },
      },
      {
        id: 'first_reply',
        title: 'First reply',
        purpose: 'Answer the enquiry and offer one next step.',
        system:
          'You write first replies to new {{customer_noun}} enquiries for {{business_name}}: warm, under 120 words, answer what the enquiry asks when you can, and offer one clear next step. {{guardrail}} If something cannot be answered, say who will follow up.',
        user: `Reply to {{customer_name}}, who wrote:\n${Q}{{enquiry}}${Q}\nOffer this booking link: {{booking_link}}\nSign as {{agent_name}}.`,
        variables: [
          'customer_noun',
          'business_name',
          'guardrail',
          'customer_name',
          'enquiry',
          'booking_link',
          'agent_name',
        ],
        output: { format: 'text', max_words: 120 },
      },
      {
        id: 'crm_note',
        title: 'CRM note',
        purpose: 'Three factual bullet points for the CRM.',
        system:
          'You write CRM notes for {{business_name}}: three bullet points, facts only, no adjectives, no guesses.',
        user: `Write the CRM note for this enquiry from {{customer_name}}:\n${Q}{{enquiry}}${Q}`,
        variables: ['business_name', 'customer_name', 'enquiry'],
        output: { format: 'text', max_words: 60 },
      },
      {
        id: 'follow_up',
        title: 'Follow-up after silence',
        purpose: 'A short, no-pressure follow-up.',
        system:
          'You write polite follow-ups for {{business_name}} to enquiries that got no answer: under 80 words, no pressure, one link. {{guardrail}}',
        user: `{{days_since_contact}} days ago {{customer_name}} asked:\n${Q}{{enquiry}}${Q}\nWe replied and heard nothing back. Write the follow-up with {{booking_link}}, signed {{agent_name}}.`,
        variables: [
          'business_name',
          'guardrail',
          'days_since_contact',
          'customer_name',
          'enquiry',
          'booking_link',
          'agent_name',
        ],
        output: { format: 'text', max_words: 80 },
      },
    ],
  },
  {
    key: 'support_reply',
    title: 'Customer support replies',
    description: 'Triage a message, draft the reply, escalate, apologise and grow the macro library.',
    trigger: 'n8n-nodes-base.gmailTrigger',
    action: 'n8n-nodes-base.gmail',
    prompts: [
      {
        id: 'triage',
        title: 'Triage',
        purpose: 'Classify category, urgency and sentiment.',
        system:
          'You triage messages from {{customer_noun}}s of {{business_name}}. Classify only; never reply. Answer with JSON only.',
        user: `Message:\n${Q}{{issue}}${Q}\n\nReturn {"category": short label, "urgency": "low" | "normal" | "high" | "urgent", "sentiment": "negative" | "neutral" | "positive", "needs_human": true | false}.`,
        variables: ['customer_noun', 'business_name', 'issue'],
        output: { format: 'json', schema: triageSchema },
      },
      {
        id: 'draft_reply',
        title: 'Draft reply',
        purpose: 'Acknowledge, say what happens next and when.',
        system:
          'You draft support replies for {{business_name}}: acknowledge the problem in one sentence, say exactly what happens next and when, and avoid blame. {{guardrail}}',
        user: `{{customer_name}} wrote about {{reference}}:\n${Q}{{issue}}${Q}\nDraft the reply, signed {{agent_name}}.`,
        variables: ['business_name', 'guardrail', 'customer_name', 'reference', 'issue', 'agent_name'],
        output: { format: 'text', max_words: 150 },
      },
      {
        id: 'escalation_summary',
        title: 'Escalation summary',
        purpose: 'Five-line hand-over to a senior colleague.',
        system:
          'You hand over support cases at {{business_name}} to a senior colleague. Write five lines: who, what, since when, what was tried, what is needed.',
        user: `Case {{reference}} from {{customer_name}}:\n${Q}{{issue}}${Q}`,
        variables: ['business_name', 'reference', 'customer_name', 'issue'],
        output: { format: 'text', max_words: 90 },
      },
      {
        id: 'apology',
        title: 'Apology',
        purpose: 'A specific apology after a service failure.',
        system:
          'You write sincere, specific apologies for {{business_name}} after a service failure: name the failure, take responsibility, state the fix. No excuses, under 100 words. {{guardrail}}',
        user: `Apologise to {{customer_name}} for this:\n${Q}{{issue}}${Q}\nSign as {{agent_name}}.`,
        variables: ['business_name', 'guardrail', 'customer_name', 'issue', 'agent_name'],
        output: { format: 'text', max_words: 100 },
      },
      {
        id: 'macro_suggestion',
        title: 'Macro suggestion',
        purpose: 'Turn a recurring problem into a saved reply.',
        system: 'You maintain the saved replies (macros) of the support team of {{business_name}}.',
        user: `This {{customer_noun}} problem keeps coming up:\n${Q}{{issue}}${Q}\nPropose a reusable macro: a title, the reply text with [placeholders], and when not to use it.`,
        variables: ['business_name', 'customer_noun', 'issue'],
        output: { format: 'text', max_words: 200 },
      },
    ],
  },
  {
    key: 'review_response',
    title: 'Review responses',
    description: 'Reply to positive and critical public reviews and extract themes for the owner.',
    trigger: 'n8n-nodes-base.googleBusinessProfileTrigger',
    action: 'n8n-nodes-base.googleBusinessProfile',
    prompts: [
      {
        id: 'reply_positive',
        title: 'Reply to a positive review',
        purpose: 'Short, specific thanks.',
        system:
          'You reply to public reviews for {{business_name}}: thank the reviewer by first name, mention one specific thing they praised, under 60 words, no marketing.',
        user: `Review by {{customer_name}} (5 stars):\n${Q}{{review_positive}}${Q}\nSign as {{agent_name}}.`,
        variables: ['business_name', 'customer_name', 'review_positive', 'agent_name'],
        output: { format: 'text', max_words: 60 },
      },
      {
        id: 'reply_critical',
        title: 'Reply to a critical review',
        purpose: 'Acknowledge, apologise, move the conversation private.',
        system:
          'You reply to critical public reviews for {{business_name}}: acknowledge, apologise for the experience, say what changes, and invite the reviewer to continue privately. Never argue and never disclose private details. {{guardrail}}',
        user: `Review by {{customer_name}} (2 stars):\n${Q}{{review_critical}}${Q}\nPrivate contact: {{contact_email}}. Sign as {{agent_name}}.`,
        variables: ['business_name', 'guardrail', 'customer_name', 'review_critical', 'contact_email', 'agent_name'],
        output: { format: 'text', max_words: 90 },
      },
      {
        id: 'extract_themes',
        title: 'Review themes',
        purpose: 'Praise, complaints and actions as JSON.',
        system: 'You analyse reviews of {{business_name}} for the owner. Answer with JSON only.',
        user: `Reviews:\n1. ${Q}{{review_positive}}${Q}\n2. ${Q}{{review_critical}}${Q}\n\nReturn {"praise": [themes], "complaints": [themes], "actions": [concrete next steps]}.`,
        variables: ['business_name', 'review_positive', 'review_critical'],
        output: { format: 'json', schema: themesSchema },
      },
    ],
  },
  {
    key: 'booking_followup',
    title: 'Booking confirmations and reminders',
    description: 'Confirm, remind, reschedule and recover no-shows.',
    trigger: 'n8n-nodes-base.calendlyTrigger',
    action: 'n8n-nodes-base.twilio',
    prompts: [
      {
        id: 'confirmation',
        title: 'Confirmation',
        purpose: 'What, when, where and how to change it.',
        system:
          'You write booking confirmations for {{business_name}}: what, when, where and how to change it, under 80 words. {{guardrail}}',
        user: 'Confirm {{item}} for {{customer_name}} on {{appointment_time}} at {{location}}.',
        variables: ['business_name', 'guardrail', 'item', 'customer_name', 'appointment_time', 'location'],
        output: { format: 'text', max_words: 80 },
      },
      {
        id: 'reminder',
        title: 'Reminder',
        purpose: 'An SMS-length reminder with the change link.',
        system: 'You write short reminders for {{business_name}}: under 300 characters, plain text, no emojis.',
        user: 'Remind {{customer_name}} of {{item}} on {{appointment_time}}. To change it: {{booking_link}}',
        variables: ['business_name', 'customer_name', 'item', 'appointment_time', 'booking_link'],
        output: { format: 'text', max_words: 50 },
      },
      {
        id: 'reschedule',
        title: 'Reschedule request',
        purpose: 'Ask the customer to pick a new time.',
        system:
          'You handle rescheduling for {{business_name}}: apologise once for the change, offer the booking link, under 90 words. {{guardrail}}',
        user: 'We must move the booking of {{customer_name}} ({{item}}, planned for {{appointment_time}}). Ask them to pick a new time at {{booking_link}}. Sign as {{agent_name}}.',
        variables: [
          'business_name',
          'guardrail',
          'customer_name',
          'item',
          'appointment_time',
          'booking_link',
          'agent_name',
        ],
        output: { format: 'text', max_words: 90 },
      },
      {
        id: 'no_show',
        title: 'No-show follow-up',
        purpose: 'Offer to rebook without blame.',
        system:
          'You write friendly no-show follow-ups for {{business_name}}: assume good faith, no fees or blame, offer to rebook, under 70 words. Address the {{customer_noun}} by first name.',
        user: '{{customer_name}} missed {{item}}. Offer to rebook at {{booking_link}}.',
        variables: ['business_name', 'customer_noun', 'customer_name', 'item', 'booking_link'],
        output: { format: 'text', max_words: 70 },
      },
    ],
  },
  {
    key: 'payment_followup',
    title: 'Payment follow-ups',
    description: 'Friendly, second and final payment reminders, and the thank-you note.',
    trigger: 'n8n-nodes-base.scheduleTrigger',
    action: 'n8n-nodes-base.gmail',
    prompts: [
      {
        id: 'friendly_reminder',
        title: 'Friendly reminder',
        purpose: 'Amount, due date and how to pay.',
        system:
          'You write payment reminders for {{business_name}}: friendly and factual, with amount, due date and how to pay, under 90 words.',
        user: 'Invoice {{invoice_number}} for {{amount_due}} to {{customer_name}} is due {{due_date}}. Pay link: {{payment_link}}.',
        variables: ['business_name', 'invoice_number', 'amount_due', 'customer_name', 'due_date', 'payment_link'],
        output: { format: 'text', max_words: 90 },
      },
      {
        id: 'second_reminder',
        title: 'Second reminder',
        purpose: 'Firmer, asks what blocks payment.',
        system:
          'You write second payment reminders for {{business_name}}: still polite, firmer, and ask whether something is blocking payment, under 100 words.',
        user: 'Invoice {{invoice_number}} ({{amount_due}}) to {{customer_name}} was due {{due_date}} and is unpaid. Pay link: {{payment_link}}. Sign as {{agent_name}}.',
        variables: [
          'business_name',
          'invoice_number',
          'amount_due',
          'customer_name',
          'due_date',
          'payment_link',
          'agent_name',
        ],
        output: { format: 'text', max_words: 100 },
      },
      {
        id: 'final_notice',
        title: 'Final notice',
        purpose: 'Clear and respectful, states the next step given.',
        system:
          'You write final payment notices for {{business_name}}: clear and respectful; mention a consequence only if the user message states it, and never threaten. {{guardrail}}',
        user: 'Final notice to {{customer_name}}: invoice {{invoice_number}}, {{amount_due}}, overdue since {{due_date}}. Pay at {{payment_link}}. If unpaid within 7 days the account is paused.',
        variables: [
          'business_name',
          'guardrail',
          'customer_name',
          'invoice_number',
          'amount_due',
          'due_date',
          'payment_link',
        ],
        output: { format: 'text', max_words: 100 },
      },
      {
        id: 'thanks',
        title: 'Payment received',
        purpose: 'Short thanks, no upsell.',
        system:
          'You write the covering note of payment receipts for {{business_name}}: one or two sentences of thanks, no upsell.',
        user: '{{customer_name}} paid invoice {{invoice_number}} ({{amount_due}}). Write the thank-you note.',
        variables: ['business_name', 'customer_name', 'invoice_number', 'amount_due'],
        output: { format: 'text', max_words: 40 },
      },
    ],
  },
  {
    key: 'announcement',
    title: 'Announcements',
    description: 'One piece of news as a social post, a newsletter section and an opt-in SMS.',
    trigger: 'n8n-nodes-base.rssFeedReadTrigger',
    action: 'n8n-nodes-base.linkedIn',
    prompts: [
      {
        id: 'social_post',
        title: 'Social post',
        purpose: 'Hook, two lines, call to action.',
        system:
          'You write social media posts for {{business_name}} ({{offering}}): one hook line, two short lines of detail, one call to action, at most two hashtags.',
        user: 'Announce: {{news}}\nLink: {{booking_link}}',
        variables: ['business_name', 'offering', 'news', 'booking_link'],
        output: { format: 'text', max_words: 70 },
      },
      {
        id: 'newsletter_blurb',
        title: 'Newsletter section',
        purpose: 'Headline and a short body.',
        system:
          'You write newsletter sections for the {{customer_noun}}s of {{business_name}}: a headline and under 80 words of body. {{guardrail}}',
        user: 'Write the section about: {{news}} (link: {{booking_link}})',
        variables: ['customer_noun', 'business_name', 'guardrail', 'news', 'booking_link'],
        output: { format: 'text', max_words: 90 },
      },
      {
        id: 'sms_short',
        title: 'Opt-in SMS',
        purpose: 'Under 160 characters with opt-out.',
        system:
          'You write SMS announcements for {{business_name}} to people who opted in: under 160 characters including the link, ending with "Reply STOP to opt out".',
        user: 'News: {{news}} Link: {{booking_link}}',
        variables: ['business_name', 'news', 'booking_link'],
        output: { format: 'text', max_words: 30 },
      },
    ],
  },
  {
    key: 'meeting_summary',
    title: 'Meeting summaries',
    description: 'Summarise a meeting, extract action items and write the follow-up e-mail.',
    trigger: 'n8n-nodes-base.googleCalendarTrigger',
    action: 'n8n-nodes-base.slack',
    prompts: [
      {
        id: 'summary',
        title: 'Summary',
        purpose: 'Decisions first, then open questions.',
        system:
          'You summarise meetings for {{business_name}}: decisions first, then open questions; only facts from the notes.',
        user: `Meeting: {{meeting_title}}\nAttendees: {{attendees}}\nNotes:\n${Q}{{transcript}}${Q}`,
        variables: ['business_name', 'meeting_title', 'attendees', 'transcript'],
        output: { format: 'text', max_words: 150 },
      },
      {
        id: 'action_items',
        title: 'Action items',
        purpose: 'Owner, task and due date as JSON.',
        system:
          'You extract action items from meeting notes. Answer with JSON only; use null when the notes give no owner or due date.',
        user: `Meeting: {{meeting_title}}\nNotes:\n${Q}{{transcript}}${Q}\n\nReturn {"items": [{"owner": string | null, "task": string, "due": string | null}]}.`,
        variables: ['meeting_title', 'transcript'],
        output: { format: 'json', schema: actionItemsSchema },
      },
      {
        id: 'follow_up_email',
        title: 'Follow-up e-mail',
        purpose: 'Thanks, decisions and next steps.',
        system:
          'You write post-meeting follow-up e-mails for {{business_name}}: thank, recap decisions and next steps, under 150 words. {{guardrail}}',
        user: `Write the follow-up to {{customer_name}} after "{{meeting_title}}". Notes:\n${Q}{{transcript}}${Q}\nSign as {{agent_name}}.`,
        variables: ['business_name', 'guardrail', 'customer_name', 'meeting_title', 'transcript', 'agent_name'],
        output: { format: 'text', max_words: 150 },
      },
    ],
  },
];

/** Price in micro-units by the number of prompts: 3 → 0.99, 4 → 1.49, 5 or more → 1.99 USD. */
export function promptPackPriceMicros(useCase: UseCase): number {
  const n = useCase.prompts.length;
  return n <= 3 ? 990_000 : n === 4 ? 1_490_000 : 1_990_000;
}

/** Item id: `prompt_pack-<sector>-<use case>` in kebab-case after the kind word. */
export function promptPackItemId(sector: Sector, useCase: UseCase): string {
  return `prompt_pack-${sector.key.replace(/_/g, '-')}-${useCase.key.replace(/_/g, '-')}`;
}

/**
 * Builds the pack document: variables (description and this sector's example value), prompts with
 * templates, declared variables, output format and a rendered example.
 *
 * @throws Error if a prompt's declared variables differ from those its templates use, or a
 *   variable has no definition (a bug in the pack data).
 */
export function promptPackDocument(sector: Sector, useCase: UseCase, itemId: string): Record<string, unknown> {
  const used = new Set<string>();
  const prompts = useCase.prompts.map((p) => {
    const inTemplates = new Set([...templateVariables(p.system), ...templateVariables(p.user)]);
    const declared = new Set(p.variables);
    if (inTemplates.size !== declared.size || [...inTemplates].some((v) => !declared.has(v))) {
      throw new Error(
        `prompt ${useCase.key}/${p.id}: declared variables ${[...declared].join(',')} differ from used ${[...inTemplates].join(',')}`,
      );
    }
    const values: Record<string, string> = {};
    for (const name of p.variables) {
      const def = VARIABLES[name];
      if (!def) throw new Error(`prompt ${useCase.key}/${p.id}: unknown variable ${name}`);
      values[name] = def.example(sector);
      used.add(name);
    }
    return {
      id: p.id,
      title: p.title,
      purpose: p.purpose,
      system: p.system,
      user: p.user,
      variables: [...p.variables],
      output: p.output,
      example: { variables: values, system: renderTemplate(p.system, values), user: renderTemplate(p.user, values) },
    };
  });
  const variables: Record<string, { description: string; required: true; example: string }> = {};
  for (const name of [...used].sort()) {
    const def = VARIABLES[name];
    if (def) variables[name] = { description: def.description, required: true, example: def.example(sector) };
  }
  return {
    format: PROMPT_PACK_FORMAT,
    id: itemId,
    title: promptPackTitle(sector, useCase),
    sector: sector.key,
    use_case: useCase.key,
    description: `${useCase.description} Written for ${sector.audience}.`,
    template_syntax:
      '{{name}} placeholders, replaced verbatim by the value of the variable; no logic or escaping. Each prompt lists the variables its templates use.',
    usage:
      'Send "system" as the system message and "user" as the user message to any chat model. For outputs of format "json", ask for JSON mode and validate the reply against output.schema (JSON Schema 2020-12).',
    variables,
    prompts,
  };
}

/** Title of a prompt pack. */
export function promptPackTitle(sector: Sector, useCase: UseCase): string {
  return `${useCase.title} prompt pack — ${sector.label}`;
}
