/**
 * The hosted receptionist (issue 38 §1), the application layer: a visitor's message is answered from the business's
 * facts (the delivered config, the receptionist's own booking page), bookings go through the booking pages' service
 * (src/services/bookings.ts: the same checks and atomic claim), urgent cases are handed to the business by e-mail
 * (SMTP) and a signed webhook (`receptionist.handoff`). With a text model (src/textgen) the model converses and
 * asks for actions the service performs; without one, or when it fails, a deterministic intake and booking dialogue
 * answers (its state kept with the conversation). A suspended receptionist answers 423, an ended one 410
 * (decision 0041).
 */
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { BookingDoc, BookingPageDoc, ConversationDoc, ConversationHandoff, ReceptionistDoc } from '../db';
import { WEEK_DAYS, type BookingRules } from '../domain/booking';
import {
  choiceIn,
  dayIn,
  emailIn,
  intentOf,
  isNo,
  isYes,
  nameIn,
  phoneIn,
  serviceIn,
  timeIn,
} from '../domain/receptionist';
import { ProblemError, problem } from '../errors';
import type { ReceptionistRepository } from '../repos/receptionists';
import type { TextGenerator } from '../textgen/port';
import { createBooking, ownerEmail, pageAvailability, rulesOf, type BookingPorts } from './bookings';
import { sendOwnerWebhook } from './ownerNotices';

/** What the receptionist needs: its store, the booking ports (pages, order, webhooks, mailer), a model or none. */
export interface ReceptionistPorts {
  receptionists: Pick<ReceptionistRepository, 'conversation' | 'createConversation' | 'saveTurn'>;
  booking: BookingPorts;
  /** Absent: no model configured, the deterministic dialogue answers. */
  textgen?: TextGenerator | undefined;
}

/** The state of the deterministic dialogue, kept with the conversation. */
export interface Dialogue {
  step: 'start' | 'name' | 'email' | 'service' | 'day' | 'time' | 'confirm' | 'contact';
  name: string | null;
  email: string | null;
  phone: string | null;
  service: string | null;
  /** `YYYY-MM-DD` in the page's zone. */
  date: string | null;
  /** Free starts (`HH:mm`) of `service` on `date` when last read. */
  offered: string[];
  time: string | null;
  /** An urgent message waiting for the visitor's contact, and the step to go back to then. */
  pending_handoff: string | null;
  resume: Dialogue['step'] | null;
}

export const FRESH: Dialogue = {
  step: 'start',
  name: null,
  email: null,
  phone: null,
  service: null,
  date: null,
  offered: [],
  time: null,
  pending_handoff: null,
  resume: null,
};

/** What one visitor message got. */
export interface ChatTurn {
  conversation: ConversationDoc;
  replies: string[];
  booking: BookingDoc | null;
  handed_over: boolean;
  /** `model` when the text model answered, `dialogue` for the deterministic dialogue. */
  answered_by: 'model' | 'dialogue';
}

/** The facts the receptionist answers from: the delivered config and its booking page's rules. */
export interface ReceptionistFacts {
  business: string;
  greeting: string;
  /** The number urgent callers are given, when the buyer named one. */
  phone: string | null;
  escalationEmail: string | null;
  rules: BookingRules;
  faq: { question: string; answer: string }[];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * The facts of a live receptionist.
 * @throws ProblemError 404 `receptionist_not_found` while the delivery has not written them.
 */
export function factsOf(rc: ReceptionistDoc, page: BookingPageDoc | null): ReceptionistFacts {
  const config = rc.config as {
    business?: { name?: unknown };
    channels?: { type?: unknown; greeting?: unknown }[];
    escalation?: { email?: unknown; phone?: unknown };
    faq?: { question?: unknown; answer?: unknown }[];
  } | null;
  if (!config || !page) throw problem('receptionist_not_found', 'This receptionist is not live yet');
  const business = str(config.business?.name) ?? 'the business';
  return {
    business,
    greeting:
      str(config.channels?.find((c) => c.type === 'web_chat')?.greeting) ??
      `Hi! You're chatting with the assistant of ${business}. How can I help?`,
    phone: str(config.escalation?.phone),
    escalationEmail: str(config.escalation?.email),
    rules: rulesOf(page),
    faq: (config.faq ?? []).flatMap((f) => {
      const q = str(f.question);
      const a = str(f.answer);
      return q && a ? [{ question: q, answer: a }] : [];
    }),
  };
}

/**
 * Refuses a receptionist that does not answer now.
 * @throws ProblemError 423 `receptionist_suspended` (a renewal is unpaid), 410 `receptionist_ended`.
 */
export function assertAnswering(rc: ReceptionistDoc, business: string): void {
  if (rc.status === 'suspended')
    throw problem(
      'receptionist_suspended',
      `The receptionist of ${business} is suspended: ${rc.status_reason ?? 'its subscription is unpaid'}. It answers again once the business renews it.`,
      { receptionist_status: 'suspended' },
    );
  if (rc.status === 'ended')
    throw problem(
      'receptionist_ended',
      `The receptionist of ${business} has ended: ${rc.status_reason ?? 'its subscription ended'}.`,
      { receptionist_status: 'ended' },
    );
}

/** What a visitor says, and the conversation it continues (none: a new one). */
export interface VisitorMessage {
  conversation_id?: string | undefined;
  text: string;
}

/**
 * Answers one visitor message: continues (or starts) the conversation, through the model when one is configured,
 * else (or when it fails) the deterministic dialogue; books and hands over as the conversation asks.
 * @throws ProblemError 423 / 410 (not answering), 404 `conversation_not_found`, 409 `conversation_busy` (another
 * message of the same conversation was answered meanwhile: send it again).
 */
export async function receiveMessage(
  ports: ReceptionistPorts,
  rc: ReceptionistDoc,
  page: BookingPageDoc | null,
  msg: VisitorMessage,
): Promise<ChatTurn> {
  const facts = factsOf(rc, page);
  assertAnswering(rc, facts.business);
  const now = ports.booking.now?.() ?? Date.now();
  let conv: ConversationDoc;
  let fresh = false;
  if (msg.conversation_id) {
    const found = await ports.receptionists.conversation(rc._id, msg.conversation_id);
    if (!found) throw problem('conversation_not_found', 'No such conversation with this receptionist');
    conv = found;
  } else {
    fresh = true;
    conv = {
      _id: `cv_${randomBytes(16).toString('base64url')}`,
      receptionist_id: rc._id,
      order_id: rc.order_id,
      turn: 0,
      dialogue: { ...FRESH },
      messages: [{ role: 'receptionist', text: facts.greeting, at: new Date(now) }],
      booking_ids: [],
      handoffs: [],
      created_at: new Date(now),
      updated_at: new Date(now),
    };
  }
  const turn = conv.turn;
  const text = msg.text.trim();
  const ctx = turnContext(ports, rc, page as BookingPageDoc, facts, conv, now);
  let outcome: TurnOutcome | null = null;
  let answeredBy: ChatTurn['answered_by'] = 'dialogue';
  if (ports.textgen) {
    try {
      outcome = await modelTurn(ports.textgen, ctx, rc, text);
      answeredBy = 'model';
    } catch (err) {
      ports.booking.log.warn(
        { err: String(err), receptionist_id: rc._id },
        'receptionist model failed: the dialogue answers',
      );
    }
  }
  outcome ??= await dialogueTurn(ctx, { ...FRESH, ...(conv.dialogue as Partial<Dialogue>) }, text);
  const at = new Date(ports.booking.now?.() ?? Date.now());
  const next: ConversationDoc = {
    ...conv,
    dialogue: outcome.dialogue as unknown as Record<string, unknown>,
    messages: [
      ...conv.messages,
      { role: 'visitor' as const, text, at },
      ...outcome.replies.map((r) => ({ role: 'receptionist' as const, text: r, at })),
    ].slice(-200),
    booking_ids: outcome.booking ? [...conv.booking_ids, outcome.booking._id] : conv.booking_ids,
    handoffs: outcome.handoff ? [...conv.handoffs, outcome.handoff] : conv.handoffs,
    updated_at: at,
  };
  if (fresh) {
    next.turn = 1;
    await ports.receptionists.createConversation(next);
  } else if (!(await ports.receptionists.saveTurn(next, turn))) {
    throw problem('conversation_busy', 'Another message of this conversation was answered meanwhile; send yours again');
  } else next.turn = turn + 1;
  return {
    conversation: next,
    replies: outcome.replies,
    booking: outcome.booking,
    handed_over: outcome.handoff !== null,
    answered_by: answeredBy,
  };
}

/** What a turn produced. */
export interface TurnOutcome {
  replies: string[];
  dialogue: Dialogue;
  booking: BookingDoc | null;
  handoff: ConversationHandoff | null;
}

/** The I/O a turn may do, over the ports, for one conversation. */
export interface TurnContext {
  facts: ReceptionistFacts;
  now: number;
  slots(service: string, date: string): Promise<string[]>;
  book(d: Dialogue): Promise<BookingDoc>;
  handOver(summary: string, contact: string | null): Promise<ConversationHandoff>;
  transcript: ConversationDoc['messages'];
}

function turnContext(
  ports: ReceptionistPorts,
  rc: ReceptionistDoc,
  page: BookingPageDoc,
  facts: ReceptionistFacts,
  conv: ConversationDoc,
  now: number,
): TurnContext {
  return {
    facts,
    now,
    transcript: conv.messages,
    async slots(service, date) {
      const a = await pageAvailability(ports.booking, page, service, date);
      return a.slots.map((s) => s.time);
    },
    book(d) {
      return createBooking(ports.booking, page, {
        service: d.service ?? '',
        date: d.date ?? '',
        time: d.time ?? '',
        name: d.name ?? '',
        email: d.email ?? '',
        ...(d.phone ? { phone: d.phone } : {}),
        notes: 'Booked through the receptionist chat',
      });
    },
    handOver: (summary, contact) => handOver(ports, rc, conv, facts, summary, contact),
  };
}

/**
 * Hands a conversation to the business: a signed `receptionist.handoff` webhook to the order's endpoints and an
 * e-mail to the escalation address (the config's, else the order's contact e-mail). Failures are logged; the visitor
 * is still told the team will be in touch (the conversation keeps the hand-over for the owner to read).
 */
async function handOver(
  ports: ReceptionistPorts,
  rc: ReceptionistDoc,
  conv: ConversationDoc,
  facts: ReceptionistFacts,
  summary: string,
  contact: string | null,
): Promise<ConversationHandoff> {
  const p = ports.booking;
  const order = await p.orders.get(rc.order_id);
  const at = new Date(p.now?.() ?? Date.now());
  const to = facts.escalationEmail ?? ownerEmail(order?.inputs ?? {}, order?.email ?? null);
  const recent = conv.messages.slice(-10).map((m) => `${m.role === 'visitor' ? 'Visitor' : 'Receptionist'}: ${m.text}`);
  try {
    await sendOwnerWebhook(p, {
      orderId: rc.order_id,
      agentId: order?.agent_id ?? null,
      eventId: `evt_${conv._id}_handoff_${conv.handoffs.length + 1}`,
      type: 'receptionist.handoff',
      at,
      data: {
        receptionist_id: rc._id,
        conversation_id: conv._id,
        summary,
        contact,
        transcript: [...recent, `Visitor: ${summary}`],
      },
    });
  } catch (err) {
    p.log.warn({ err: String(err), conversation_id: conv._id }, 'receptionist hand-over webhook not started');
  }
  let emailed: string | null = null;
  if (p.mailer && to) {
    try {
      await p.mailer.send({
        to,
        ...(contact && emailIn(contact) ? { replyTo: emailIn(contact) ?? undefined } : {}),
        subject: `Urgent: a visitor of your ${facts.business} receptionist asks for the team`,
        text: [
          'Your receptionist handed this conversation to you.',
          '',
          `Message:  ${summary}`,
          `Contact:  ${contact ?? 'not given'}`,
          `When:     ${at.toISOString()}`,
          '',
          'Recent conversation:',
          ...recent,
          `Visitor: ${summary}`,
          '',
          `Conversation: ${conv._id}`,
        ].join('\n'),
      });
      emailed = to;
    } catch (err) {
      p.log.warn({ err: String(err), conversation_id: conv._id }, 'receptionist hand-over e-mail not sent');
    }
  } else {
    p.log.info(
      { conversation_id: conv._id, reason: p.mailer ? 'no escalation e-mail' : 'SMTP_URL unset' },
      'receptionist hand-over e-mail skipped',
    );
  }
  return { at, summary, contact, emailed_to: emailed };
}

// --- replies -----------------------------------------------------------------------------------------------

const DAY_LABEL: Record<(typeof WEEK_DAYS)[number], string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** "Monday–Friday 09:00–17:00; Saturday 10:00–14:00 (Europe/London)" from the page's weekly windows. */
export function hoursText(rules: BookingRules): string {
  const weekly = rules.availability.weekly as Partial<Record<(typeof WEEK_DAYS)[number], [string, string][]>>;
  const span = (d: (typeof WEEK_DAYS)[number]) => (weekly[d] ?? []).map(([a, b]) => `${a}–${b}`).join(', ');
  const parts: string[] = [];
  for (let i = 0; i < WEEK_DAYS.length;) {
    const d = WEEK_DAYS[i] as (typeof WEEK_DAYS)[number];
    let j = i;
    while (j + 1 < WEEK_DAYS.length && span(WEEK_DAYS[j + 1] as (typeof WEEK_DAYS)[number]) === span(d)) j++;
    if (span(d))
      parts.push(
        `${DAY_LABEL[d]}${j > i ? `–${DAY_LABEL[WEEK_DAYS[j] as (typeof WEEK_DAYS)[number]]}` : ''} ${span(d)}`,
      );
    i = j + 1;
  }
  return `${parts.length ? parts.join('; ') : 'closed every day'} (${rules.availability.timezone})`;
}

function servicesText(rules: BookingRules): string {
  return rules.services
    .map(
      (s, i) =>
        `${i + 1}. ${s.name} (${s.duration_minutes} min${typeof s.price === 'string' && s.price ? `, ${s.price}` : ''})`,
    )
    .join('\n');
}

const dateLabel = (date: string, zone: string): string =>
  DateTime.fromISO(date, { zone }).setLocale('en-GB').toFormat('cccc d LLLL');

const serviceName = (rules: BookingRules, id: string | null): string =>
  rules.services.find((s) => s.id === id)?.name ?? id ?? '';

/** How many free times one reply lists. */
const SHOWN = 8;

// --- the deterministic dialogue ------------------------------------------------------------------------------

/**
 * One turn of the deterministic dialogue: urgent cases first (handed over once a contact is known), questions about
 * hours and services answered from the facts, then the booking intake: name → e-mail → service → day → free times →
 * confirm → booked (a slot taken meanwhile is refused by the booking service and fresh times are offered).
 */
export async function dialogueTurn(ctx: TurnContext, d0: Dialogue, text: string): Promise<TurnOutcome> {
  const d: Dialogue = { ...d0, offered: [...d0.offered] };
  const { facts } = ctx;
  const { rules } = facts;
  const zone = rules.availability.timezone;
  const replies: string[] = [];
  const out = (extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
    replies,
    dialogue: d,
    booking: null,
    handoff: null,
    ...extra,
  });
  const callLine = facts.phone ? ` If it cannot wait, call ${facts.phone}.` : '';
  const email = emailIn(text);
  if (email) d.email = email;
  const phone = phoneIn(text.replace(/\d{4}-\d{2}-\d{2}/g, ' '));

  // The visitor's contact for an urgent message asked for last turn.
  if (d.step === 'contact') {
    const contact = email ?? phone ?? (text || null);
    if (phone) d.phone = phone;
    const handoff = await ctx.handOver(d.pending_handoff ?? text, contact);
    d.pending_handoff = null;
    d.step = d.resume ?? 'start';
    d.resume = null;
    replies.push(
      `Thank you. I've passed your message to the ${facts.business} team; they will contact you at ${contact ?? 'the details you gave'}.${callLine}`,
    );
    if (d.step !== 'start') await advance(ctx, d, '', replies, false);
    return out({ handoff, dialogue: d });
  }

  const intent = intentOf(text);
  if (intent === 'urgent') {
    if (phone) d.phone = phone;
    const contact = d.email ?? d.phone;
    if (contact) {
      const handoff = await ctx.handOver(text, contact);
      replies.push(
        `I've passed this to the ${facts.business} team straight away; they will contact you at ${contact}.${callLine}`,
      );
      return out({ handoff });
    }
    d.pending_handoff = text;
    d.resume = d.step;
    d.step = 'contact';
    replies.push(
      `I'll pass this to the ${facts.business} team straight away. What is the best phone number or e-mail address to reach you?${callLine}`,
    );
    return out();
  }
  const question = d.step === 'start' || text.includes('?');
  if (intent === 'hours' && question) {
    replies.push(`We are open ${hoursText(rules)}.`);
    if (d.step === 'start') replies.push('Would you like to book an appointment?');
    else await advance(ctx, d, '', replies, false);
    return out();
  }
  if (intent === 'services' && question) {
    const faq = facts.faq.find((f) => serviceIn(text, [{ id: '_', name: f.question }]));
    replies.push(faq ? faq.answer : `These are the services you can book:\n${servicesText(rules)}`);
    if (!rules.services.some((s) => typeof s.price === 'string' && s.price) && /price|cost|how much/i.test(text))
      replies.push('Prices are not listed here; the team will tell you when they confirm.');
    if (d.step === 'start') replies.push('Would you like to book one?');
    else await advance(ctx, d, '', replies, false);
    return out();
  }

  const service = d.step === 'name' ? null : serviceIn(text, rules.services);
  const day = d.step === 'name' ? null : dayIn(text, zone, ctx.now);
  if (d.step === 'start') {
    if (intent !== 'book' && !service && !day && !isYes(text)) {
      replies.push(
        `I can book an appointment with ${facts.business}, tell you our opening hours and services, or pass an urgent message to the team. What would you like to do?`,
      );
      return out();
    }
    d.step = 'name';
    if (!d.name) {
      if (service) d.service = service.id;
      if (day) d.date = day;
      replies.push(
        `Happy to help you book${service ? ` ${service.name}` : ''}. What name should I put the booking under?`,
      );
      return out();
    }
  }
  let changed = false;
  if (service && service.id !== d.service) {
    d.service = service.id;
    d.offered = [];
    d.time = null;
    changed = true;
  }
  if (day && day !== d.date) {
    d.date = day;
    d.offered = [];
    d.time = null;
    changed = true;
  }
  const time = timeIn(text);
  if (time && time !== d.time) {
    d.time = time;
    changed = true;
  }
  if (d.step === 'name') {
    const name = nameIn(text);
    if (!name) {
      replies.push('Sorry, what name should I put the booking under?');
      return out();
    }
    d.name = name;
  }
  if (d.step === 'email' && !email) {
    replies.push("That doesn't look like an e-mail address; could you type it again (name@example.com)?");
    return out();
  }
  if (d.step === 'service' && !d.service) {
    const i = choiceIn(text, rules.services.length);
    if (i !== null) d.service = rules.services[i]?.id ?? null;
  }
  if (d.step === 'time' && !time) {
    const i = choiceIn(text, Math.min(SHOWN, d.offered.length));
    if (i !== null) {
      d.time = d.offered[i] ?? null;
      changed = true;
    }
  }
  if (d.step === 'confirm' && !changed) {
    if (isYes(text)) return book(ctx, d, replies);
    if (isNo(text)) {
      d.date = null;
      d.time = null;
      d.offered = [];
      d.step = 'day';
      replies.push('No problem. Which day would suit you instead?');
      return out();
    }
    replies.push('Shall I book it? Please answer yes or no.');
    return out();
  }
  await advance(ctx, d, text, replies, true);
  return out();
}

/** Asks for the next missing detail (or the confirmation), offering free times once service and day are known. */
async function advance(
  ctx: TurnContext,
  d: Dialogue,
  text: string,
  replies: string[],
  answered: boolean,
): Promise<void> {
  const { rules } = ctx.facts;
  const asked = answered && text ? d.step : null;
  const zone = rules.availability.timezone;
  if (!d.name) {
    d.step = 'name';
    replies.push('What name should I put the booking under?');
    return;
  }
  if (!d.email) {
    d.step = 'email';
    replies.push(`Thanks, ${d.name}. What e-mail address should the confirmation go to?`);
    return;
  }
  if (!d.service) {
    if (rules.services.length === 1) d.service = rules.services[0]?.id ?? null;
    else {
      d.step = 'service';
      replies.push(
        `${asked === 'service' ? "Sorry, I didn't catch the service. " : ''}Which service would you like?\n${servicesText(rules)}`,
      );
      return;
    }
  }
  if (!d.date) {
    d.step = 'day';
    replies.push(
      `${asked === 'day' ? "Sorry, I didn't catch the day. " : ''}Which day would suit you? (for example tomorrow, Friday or ${DateTime.fromMillis(ctx.now, { zone }).plus({ days: 3 }).toISODate()})`,
    );
    return;
  }
  if (d.offered.length === 0) {
    const wanted = d.date;
    let free = await ctx.slots(d.service ?? '', wanted).catch(() => [] as string[]);
    let date = wanted;
    for (let i = 1; free.length === 0 && i <= 14; i++) {
      date = DateTime.fromISO(wanted, { zone }).plus({ days: i }).toISODate() ?? wanted;
      free = await ctx.slots(d.service ?? '', date).catch(() => [] as string[]);
    }
    if (free.length === 0) {
      d.date = null;
      d.step = 'day';
      replies.push(
        `I can't find a free time for ${serviceName(rules, d.service)} in the two weeks from ${dateLabel(wanted, zone)}. Which other day would suit you? Or say "urgent" and I'll pass a message to the team.`,
      );
      return;
    }
    if (date !== wanted) {
      replies.push(
        `There are no free times on ${dateLabel(wanted, zone)}; the next free day is ${dateLabel(date, zone)}.`,
      );
      d.date = date;
      if (d.time && !free.includes(d.time)) d.time = null;
    }
    d.offered = free;
  }
  if (!d.time || !d.offered.includes(d.time)) {
    if (d.time) replies.push(`${d.time} is not free on ${dateLabel(d.date, zone)}.`);
    d.time = null;
    d.step = 'time';
    const shown = d.offered.slice(0, SHOWN);
    const more = d.offered.length - shown.length;
    replies.push(
      `Free times for ${serviceName(rules, d.service)} on ${dateLabel(d.date, zone)} (${zone}): ${shown.join(', ')}${more > 0 ? `, and ${more} later` : ''}. Which time would you like?`,
    );
    return;
  }
  d.step = 'confirm';
  replies.push(
    `To confirm: ${serviceName(rules, d.service)} on ${dateLabel(d.date, zone)} at ${d.time} (${zone}), for ${d.name} (${d.email}). Shall I book it?`,
  );
}

/** Books the confirmed slot through the booking service; a slot taken meanwhile is refused and fresh times offered. */
async function book(ctx: TurnContext, d: Dialogue, replies: string[]): Promise<TurnOutcome> {
  const zone = ctx.facts.rules.availability.timezone;
  try {
    const b = await ctx.book(d);
    replies.push(
      `Booked: ${b.service_name} on ${dateLabel(b.date, zone)} at ${b.time} (${zone}). Your booking reference is ${b._id}. ${ctx.facts.business} has been told; you can write here if anything changes.`,
    );
    Object.assign(d, { ...FRESH, name: d.name, email: d.email, phone: d.phone });
    return { replies, dialogue: d, booking: b, handoff: null };
  } catch (err) {
    if (!(err instanceof ProblemError) || (err.code !== 'slot_taken' && err.code !== 'slot_unavailable')) throw err;
    replies.push(`Sorry, ${d.time} on ${dateLabel(d.date ?? '', zone)} has just been taken.`);
    d.offered = [];
    d.time = null;
    await advance(ctx, d, '', replies, false);
    return { replies, dialogue: d, booking: null, handoff: null };
  }
}

// --- the model -----------------------------------------------------------------------------------------------

/** What the model answers each turn: its words and, optionally, an action the service performs. */
const ModelReply = z.object({
  reply: z.string().min(1).max(1200).describe('What to say to the visitor'),
  action: z
    .enum(['none', 'offer_times', 'book', 'handoff'])
    .describe('none: just reply; offer_times: list free times of service on date; book: book it; handoff: urgent'),
  service: z.string().nullable().describe('Service id'),
  date: z.string().nullable().describe('YYYY-MM-DD in the business time zone'),
  time: z.string().nullable().describe('HH:mm in the business time zone'),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  summary: z.string().nullable().describe('For handoff: what the visitor needs'),
});
const MODEL_SCHEMA = z.toJSONSchema(ModelReply, { target: 'draft-2020-12' }) as Record<string, unknown>;

/**
 * One turn through the model: the delivered system prompt and the facts (today in the zone, bookable services with
 * ids, hours), the transcript, and a structured reply whose action the service performs with the same checks as the
 * dialogue (free times read from the page, bookings through the booking service, hand-overs by e-mail and webhook).
 * @throws TextGenerationError, or a reply that fails its schema (the dialogue answers instead).
 */
async function modelTurn(
  model: TextGenerator,
  ctx: TurnContext,
  rc: ReceptionistDoc,
  text: string,
): Promise<TurnOutcome> {
  const { rules } = ctx.facts;
  const zone = rules.availability.timezone;
  const today = DateTime.fromMillis(ctx.now, { zone });
  const res = await model.generate({
    system: [
      rc.prompt ?? `You are the receptionist of ${ctx.facts.business}.`,
      '',
      `Today is ${today.toFormat('cccc yyyy-MM-dd')} in ${zone}. Opening hours: ${hoursText(rules)}.`,
      `Bookable services (id: name, minutes): ${rules.services.map((s) => `${s.id}: ${s.name}, ${s.duration_minutes}`).join('; ')}.`,
      'Answer in JSON. To list free times set action offer_times with service and date; to book, once the visitor confirmed service, date, time, name and e-mail, set action book with them; for urgent cases, complaints or a person asked for, set action handoff with a summary and the contact. The service performs the action and tells the visitor its outcome; never claim a booking yourself.',
    ].join('\n'),
    prompt: [...ctx.transcript.slice(-20), { role: 'visitor', text }]
      .map((m) => `${m.role === 'visitor' ? 'Visitor' : 'Receptionist'}: ${m.text}`)
      .join('\n'),
    schema: MODEL_SCHEMA,
    schemaName: 'receptionist_turn',
    maxTokens: 600,
  });
  const r = ModelReply.parse(res.value);
  const d: Dialogue = { ...FRESH, name: r.name, email: r.email && emailIn(r.email), phone: r.phone };
  const replies: string[] = [];
  const service = r.service
    ? (rules.services.find((s) => s.id === r.service) ?? serviceIn(r.service, rules.services))
    : null;
  if ((r.action === 'offer_times' || r.action === 'book') && service && r.date && dayIn(r.date, zone, ctx.now)) {
    d.service = service.id;
    d.date = r.date;
    if (r.action === 'book' && r.time && d.name && d.email) {
      d.time = r.time;
      return book(ctx, d, replies);
    }
    // The free times as the page has them, not as the model imagines them.
    const free = await ctx.slots(service.id, r.date).catch(() => [] as string[]);
    replies.push(r.reply);
    replies.push(
      free.length
        ? `Free times for ${service.name} on ${dateLabel(r.date, zone)} (${zone}): ${free.slice(0, SHOWN).join(', ')}${free.length > SHOWN ? `, and ${free.length - SHOWN} later` : ''}.`
        : `There are no free times for ${service.name} on ${dateLabel(r.date, zone)}.`,
    );
    return { replies, dialogue: { ...FRESH }, booking: null, handoff: null };
  }
  if (r.action === 'handoff') {
    const handoff = await ctx.handOver(r.summary ?? text, r.email ?? r.phone ?? emailIn(text) ?? phoneIn(text));
    return { replies: [r.reply], dialogue: { ...FRESH }, booking: null, handoff };
  }
  return { replies: [r.reply], dialogue: { ...FRESH }, booking: null, handoff: null };
}
