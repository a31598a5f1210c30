/**
 * Hosted booking pages (issue 38 §2), registered from their definitions in ./schema.ts:
 * - `GET  /book/{page_id}`: the delivered page (HTML), which reads availability and books through the API below;
 * - `GET  /api/v1/booking-pages/{page_id}` and `.../availability?service=&date=` (public);
 * - `POST /api/v1/booking-pages/{page_id}/bookings` (public, rate-limited): 201, or 409 `slot_taken`;
 * - `GET  .../bookings`, `POST .../bookings/{booking_id}/cancel`: the owner, by the owner key;
 * - `POST /api/v1/orders/{order_id}/booking-page/owner-key`: the buyer issues the owner key.
 */
import { randomBytes } from 'node:crypto';
import { problem } from '../../../errors';
import { sha256Hex } from '../../../hash';
import { createMailer } from '../../../mail/smtp';
import { BookingRepository } from '../../../repos/bookings';
import { cancelBooking, createBooking, pageAvailability, rulesOf, type BookingPorts } from '../../../services/bookings';
import { logger } from '../../../telemetry/logger';
import { DeliveryWorkflows } from '../../../temporal/webhooks';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { ownerGate, ownerKeyGate, pageOfPath } from './policy';
import { bookingOperations as ops } from './schema';
import { bookedView, ownerBookingView, pageView } from './view';

/** The ports of the booking service as the API wires them (also the receptionist's, which books through them). */
export function bookingPortsOf(deps: AppDeps, component = 'bookings'): BookingPorts {
  const log = logger().child({ component });
  const ports: BookingPorts = {
    bookings: new BookingRepository(deps.services.db),
    orders: deps.services.orders,
    webhooks: deps.services.webhooks,
    deliveries: new DeliveryWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE),
    mailer: createMailer(deps.config.SMTP_URL, deps.config.MAIL_FROM),
    publicBaseUrl: deps.config.PUBLIC_BASE_URL,
    log,
  };
  if (!ports.mailer) log.info({}, `SMTP_URL unset: ${component} e-mails are skipped and logged`);
  return ports;
}

/** The booking routes. */
export function bookingRoutes(deps: AppDeps): OperationRouter {
  const ports = bookingPortsOf(deps);
  const pages = ports.bookings;
  const base = deps.config.PUBLIC_BASE_URL;
  const page = { load: pageOfPath(pages) };

  return new OperationRouter(deps)
    .on(ops.page, page, (ctx, _input, doc) => {
      ctx.type = 'text/html; charset=utf-8';
      // The page's own Content-Security-Policy is in its <meta>; these keep it from leaking or being re-typed.
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = doc.html ?? '';
    })
    .on(ops.get, page, (ctx, _input, doc) => {
      ctx.body = pageView(doc, rulesOf(doc), base);
    })
    .on(ops.availability, page, async (ctx, input, doc) => {
      const a = await pageAvailability(ports, doc, input.query.service, input.query.date);
      ctx.body = { ...a, slots: a.slots.map((s) => ({ start: s.start, end: s.end, time: s.time })) };
    })
    .on(ops.book, page, async (ctx, input, doc) => {
      const b = await createBooking(ports, doc, input.body);
      ctx.status = 201;
      ctx.set('Location', `/api/v1/booking-pages/${doc._id}/bookings/${b._id}`);
      ctx.body = bookedView(b);
    })
    .on(ops.list, ownerGate(pages), async (ctx, input, doc) => {
      const list = await pages.list(doc._id, {
        all: input.query.include_cancelled === 'true',
        ...(input.query.from ? { from: new Date(input.query.from) } : {}),
      });
      ctx.body = { bookings: list.map(ownerBookingView) };
    })
    .on(ops.cancel, ownerGate(pages), async (ctx, input, doc) => {
      ctx.body = ownerBookingView(await cancelBooking(ports, doc, input.params.booking_id));
    })
    .on(ops.ownerKey, ownerKeyGate(deps), async (ctx, _input, order) => {
      const doc = await pages.pageOfOrder(order._id);
      if (!doc?.config) throw problem('booking_page_not_found', `Order ${order._id} has no live booking page yet`);
      const key = `bpk_${randomBytes(24).toString('base64url')}`;
      await pages.setOwnerKeyHash(doc._id, sha256Hex(key));
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        page_id: doc._id,
        page_url: `${base}/book/${doc._id}`,
        owner_key: key,
        bookings_url: `${base}/api/v1/booking-pages/${doc._id}/bookings`,
      };
    });
}
