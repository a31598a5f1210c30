/**
 * Hosted receptionists (issue 38 §1): each ai-receptionist order gets a receptionist with a chat page of its own
 * (`/chat/{receptionist_id}`), an embeddable snippet (`/chat/{receptionist_id}/embed.js`), and a chat API (also the
 * MCP tool `receptionist_chat`) that visitors use without a credential (rate-limited like every request). Its buyer
 * reads its state, snippet and conversations with the buyer's credential. Suspended: 423; ended: 410 (decision 0041).
 * Operation definitions (src/routes/operation.ts); handlers in ./index.ts.
 */
import { z } from 'zod';
import { defineOperation, type ResponseSpec } from '../../operation';
import { BookedView } from '../bookings/schema';
import { OrderPath } from '../fields';

const ReceptionistPath = z.object({
  receptionist_id: z.string().min(1).max(64).meta({ description: 'Receptionist id (rc_...), from the chat URL' }),
});
const text = (description: string, type: string): ResponseSpec => ({
  description,
  content: { [type]: { schema: z.string() } },
});

const Status = z.enum(['active', 'suspended', 'ended']);

/** The links of a receptionist. */
const Links = z.object({
  chat: z.string().meta({ description: 'The chat page' }),
  embed: z.string().meta({ description: 'The embeddable script' }),
  messages: z.string().meta({ description: 'POST a visitor message here' }),
  booking_page: z.string().meta({ description: "The receptionist's own hosted booking page" }),
});

/** What anyone may read of a receptionist: the business, the greeting, the state, the links. */
export const ReceptionistView = z
  .object({
    receptionist_id: z.string(),
    business: z.string(),
    greeting: z.string(),
    status: Status,
    status_message: z.string().nullable().meta({ description: 'Why it does not answer now (suspended, ended)' }),
    timezone: z.string(),
    hours: z.string(),
    services: z.array(z.object({ id: z.string(), name: z.string(), duration_minutes: z.number().int() })),
    links: Links,
  })
  .meta({ id: 'Receptionist' });

/** A visitor's message. */
export const MessageBody = z.object({
  conversation_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'The conversation to continue (cv_...); absent: a new one starts' }),
  text: z.string().trim().min(1).max(2000).meta({ description: "The visitor's message" }),
});

/** The receptionist's answer to one message. */
export const ReplyView = z
  .object({
    conversation_id: z.string(),
    replies: z.array(z.string()).meta({ description: 'What the receptionist says, in order' }),
    booking: BookedView.nullable().meta({ description: 'The booking this message made, if any' }),
    handed_over: z.boolean().meta({ description: 'The conversation was handed to the business (e-mail, webhook)' }),
    answered_by: z.enum(['model', 'dialogue']),
  })
  .meta({ id: 'ReceptionistReply' });

/** The receptionist as its buyer reads it. */
export const OwnerReceptionistView = z
  .object({
    receptionist_id: z.string(),
    order_id: z.string(),
    status: Status,
    status_reason: z.string().nullable(),
    status_changed_at: z.string(),
    booking_page_id: z.string(),
    embed_snippet: z.string().meta({ description: 'HTML to paste into the website' }),
    links: Links.extend({
      conversations: z.string(),
      booking_owner_key: z.string().meta({ description: "POST here to issue the booking page's owner key" }),
    }),
  })
  .meta({ id: 'OwnerReceptionist' });

const ConversationView = z.object({
  conversation_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  messages: z.array(z.object({ role: z.enum(['visitor', 'receptionist']), text: z.string(), at: z.string() })),
  booking_ids: z.array(z.string()),
  handoffs: z.array(
    z.object({
      at: z.string(),
      summary: z.string(),
      contact: z.string().nullable(),
      emailed_to: z.string().nullable(),
    }),
  ),
});

const NOT_FOUND = { receptionist_not_found: 'No such receptionist, or not live yet' } as const;

/** The receptionist operations. */
export const receptionistOperations = {
  page: defineOperation({
    id: 'receptionistChatPage',
    method: 'get',
    path: '/chat/{receptionist_id}',
    summary: "The receptionist's chat page (HTML); suspended, it says so and takes no messages",
    auth: 'none',
    request: { params: ReceptionistPath },
    responses: { '200': text('The page', 'text/html') },
    errors: { ...NOT_FOUND, receptionist_ended: 'The receptionist has ended (its subscription ended)' },
  }),
  embed: defineOperation({
    id: 'receptionistEmbedScript',
    method: 'get',
    path: '/chat/{receptionist_id}/embed.js',
    summary: 'The embeddable snippet: a chat button that opens the chat page in a frame on the buyer’s website',
    auth: 'none',
    request: { params: ReceptionistPath },
    responses: { '200': text('The script', 'text/javascript') },
    errors: NOT_FOUND,
  }),
  get: defineOperation({
    id: 'getReceptionist',
    method: 'get',
    path: '/api/v1/receptionists/{receptionist_id}',
    summary: 'A receptionist: business, greeting, state (active, suspended, ended), hours, services, links',
    auth: 'none',
    request: { params: ReceptionistPath },
    responses: { '200': { description: 'The receptionist', json: ReceptionistView } },
    errors: NOT_FOUND,
  }),
  message: defineOperation({
    id: 'sendReceptionistMessage',
    method: 'post',
    path: '/api/v1/receptionists/{receptionist_id}/messages',
    summary: 'Send a visitor message (public; rate-limited): the receptionist answers, books, or hands over',
    description:
      "Without `conversation_id` a new conversation starts. Bookings go to the receptionist's hosted booking page (atomic: a slot taken is refused and other times offered); urgent cases are e-mailed to the business and sent as a signed `receptionist.handoff` webhook.",
    auth: 'none',
    request: { params: ReceptionistPath, body: MessageBody },
    responses: { '200': { description: 'The answer', json: ReplyView } },
    errors: {
      ...NOT_FOUND,
      receptionist_suspended: 'Suspended: its subscription has an unpaid renewal',
      receptionist_ended: 'Ended: its subscription ended',
      conversation_not_found: 'No such conversation with this receptionist',
      conversation_busy: 'Another message of the conversation was answered meanwhile; send again',
    },
    mcp: {
      name: 'receptionist_chat',
      title: 'Talk to a hosted receptionist',
      description:
        "Send a message to a business's hosted receptionist (its id is in its chat URL, /chat/rc_...) and get its replies; pass the conversation_id it returns to continue. It answers from the business's facts, books into its calendar, and hands urgent cases to the business.",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
  }),
  ofOrder: defineOperation({
    id: 'getOrderReceptionist',
    method: 'get',
    path: '/api/v1/orders/{order_id}/receptionist',
    summary: "The order's receptionist (the buyer): state and why, links, the snippet to embed",
    auth: 'buyer',
    request: { params: OrderPath },
    responses: { '200': { description: 'The receptionist', json: OwnerReceptionistView } },
    errors: { order_not_found: 'Unknown order', ...NOT_FOUND },
  }),
  conversations: defineOperation({
    id: 'listReceptionistConversations',
    method: 'get',
    path: '/api/v1/orders/{order_id}/receptionist/conversations',
    summary: "The receptionist's conversations, latest first (the buyer): transcripts, bookings, hand-overs",
    auth: 'buyer',
    request: { params: OrderPath },
    responses: {
      '200': { description: 'The conversations', json: z.object({ conversations: z.array(ConversationView) }) },
    },
    errors: { order_not_found: 'Unknown order', ...NOT_FOUND },
  }),
};
