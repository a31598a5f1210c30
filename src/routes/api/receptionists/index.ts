/**
 * Hosted receptionists (issue 38 §1), registered from their definitions in ./schema.ts: the chat page and the
 * embeddable script, the public view and the chat API (visitors, no credential), and the buyer's view of its state
 * and conversations. The answering is the application layer's (src/services/receptionist.ts).
 */
import type { BookingPageDoc, ReceptionistDoc } from '../../../db';
import { problem } from '../../../errors';
import { ReceptionistRepository } from '../../../repos/receptionists';
import {
  assertAnswering,
  factsOf,
  hoursText,
  receiveMessage,
  type ReceptionistPorts,
} from '../../../services/receptionist';
import { createTextGenerator } from '../../../textgen';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { bookedView } from '../bookings/view';
import { bookingPortsOf } from '../bookings';
import { chatPage, embedScript, embedSnippet } from './page';
import { receptionistOfPath, receptionistOwnerGate } from './policy';
import { receptionistOperations as ops } from './schema';

/** The public links of a receptionist. */
export function receptionistLinks(base: string, rc: Pick<ReceptionistDoc, '_id' | 'page_id'>) {
  return {
    chat: `${base}/chat/${rc._id}`,
    embed: `${base}/chat/${rc._id}/embed.js`,
    messages: `${base}/api/v1/receptionists/${rc._id}/messages`,
    booking_page: `${base}/book/${rc.page_id}`,
  };
}

/** What a visitor is told of a receptionist that takes no messages now; null when it answers. */
function statusMessage(rc: ReceptionistDoc, business: string): string | null {
  try {
    assertAnswering(rc, business);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The receptionist routes. */
export function receptionistRoutes(deps: AppDeps): OperationRouter {
  const repo = new ReceptionistRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;
  const ports: ReceptionistPorts = {
    receptionists: repo,
    booking: bookingPortsOf(deps, 'receptionist'),
    textgen: createTextGenerator(deps.config),
  };
  const live = { load: receptionistOfPath(repo) };
  const pageOf = (rc: ReceptionistDoc): Promise<BookingPageDoc | null> => ports.booking.bookings.page(rc.page_id);
  const ofOrder = async (orderId: string): Promise<ReceptionistDoc> => {
    const rc = await repo.ofOrder(orderId);
    if (!rc?.config) throw problem('receptionist_not_found', `Order ${orderId} has no live receptionist`);
    return rc;
  };

  return new OperationRouter(deps)
    .on(ops.page, live, async (ctx, _input, rc) => {
      const facts = factsOf(rc, await pageOf(rc));
      if (rc.status === 'ended') assertAnswering(rc, facts.business);
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = chatPage({
        id: rc._id,
        business: facts.business,
        greeting: facts.greeting,
        messagesUrl: `/api/v1/receptionists/${rc._id}/messages`,
        statusMessage: statusMessage(rc, facts.business),
      });
    })
    .on(ops.embed, live, async (ctx, _input, rc) => {
      const facts = factsOf(rc, await pageOf(rc));
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = embedScript(`${base}/chat/${rc._id}`, facts.business);
    })
    .on(ops.get, live, async (ctx, _input, rc) => {
      const facts = factsOf(rc, await pageOf(rc));
      ctx.body = {
        receptionist_id: rc._id,
        business: facts.business,
        greeting: facts.greeting,
        status: rc.status,
        status_message: statusMessage(rc, facts.business),
        timezone: facts.rules.availability.timezone,
        hours: hoursText(facts.rules),
        services: facts.rules.services.map((s) => ({ id: s.id, name: s.name, duration_minutes: s.duration_minutes })),
        links: receptionistLinks(base, rc),
      };
    })
    .on(ops.message, live, async (ctx, input, rc) => {
      const turn = await receiveMessage(ports, rc, await pageOf(rc), input.body);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        conversation_id: turn.conversation._id,
        replies: turn.replies,
        booking: turn.booking ? bookedView(turn.booking) : null,
        handed_over: turn.handed_over,
        answered_by: turn.answered_by,
      };
    })
    .on(ops.ofOrder, receptionistOwnerGate(deps, 'read the receptionist of'), async (ctx, _input, order) => {
      const rc = await ofOrder(order._id);
      const links = receptionistLinks(base, rc);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        receptionist_id: rc._id,
        order_id: order._id,
        status: rc.status,
        status_reason: rc.status_reason,
        status_changed_at: rc.status_changed_at.toISOString(),
        booking_page_id: rc.page_id,
        embed_snippet: embedSnippet(links.embed),
        links: {
          ...links,
          conversations: `${base}/api/v1/orders/${order._id}/receptionist/conversations`,
          booking_owner_key: `${base}/api/v1/orders/${order._id}/booking-page/owner-key`,
        },
      };
    })
    .on(
      ops.conversations,
      receptionistOwnerGate(deps, 'read the conversations of the receptionist of'),
      async (ctx, _input, order) => {
        const rc = await ofOrder(order._id);
        const list = await repo.conversations(rc._id);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          conversations: list.map((c) => ({
            conversation_id: c._id,
            created_at: c.created_at.toISOString(),
            updated_at: c.updated_at.toISOString(),
            messages: c.messages.map((m) => ({ role: m.role, text: m.text, at: m.at.toISOString() })),
            booking_ids: c.booking_ids,
            handoffs: c.handoffs.map((h) => ({ ...h, at: h.at.toISOString() })),
          })),
        };
      },
    );
}
