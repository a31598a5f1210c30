/**
 * Loading a booking page and who may act on it (issue 38 §2): anyone reads a page and books on it; its owner, by the
 * owner key the buyer issued (`bpk_...`, kept as its sha256), reads and cancels its bookings; the buyer of the order
 * (its agent key or order secret) issues that key.
 */
import { timingSafeEqual } from 'node:crypto';
import type { BookingPageDoc, OrderDoc } from '../../../db';
import { problem } from '../../../errors';
import { sha256Hex } from '../../../hash';
import type { BookingRepository } from '../../../repos/bookings';
import { refuse, type Actor, type Verdict } from '../../gate';
import type { AppDeps } from '../../context';
import type { RawRequest } from '../../operation';
import { buyerOf, orderOfPath } from '../orders/policy';

/** Loader of the page of the path. @throws ProblemError 404 `booking_page_not_found` (also while not live). */
export function pageOfPath(pages: BookingRepository) {
  return async (_input: unknown, raw: RawRequest): Promise<BookingPageDoc> => {
    const id = raw.params.page_id;
    const page = id ? await pages.page(id) : null;
    if (!page?.config || !page.html) throw problem('booking_page_not_found', `No booking page ${id ?? ''}`);
    return page;
  };
}

/** True when `token` is the page's current owner key. */
export function ownsPage(page: BookingPageDoc, token: string | undefined): boolean {
  if (!token || !page.owner_key_hash) return false;
  const a = Buffer.from(sha256Hex(token), 'hex');
  const b = Buffer.from(page.owner_key_hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The gate of the owner's operations (`auth: 'booking_owner'`): the page (404), then its owner key (401 / 403). */
export function ownerGate(pages: BookingRepository) {
  return {
    load: pageOfPath(pages),
    authorize: (actor: Actor, page: BookingPageDoc): Verdict<'booking_owner'> =>
      ownsPage(page, actor.token)
        ? 'booking_owner'
        : refuse(
            actor,
            `Send the owner key of booking page ${page._id} as a Bearer token (the buyer issues it: POST /api/v1/orders/{order_id}/booking-page/owner-key)`,
            `The credential sent is not the owner key of booking page ${page._id}`,
          ),
  };
}

/** The gate of issuing the owner key (`auth: 'buyer'`): the order (404), then the buyer's credential (401 / 403). */
export function ownerKeyGate(deps: Pick<AppDeps, 'services'>) {
  return {
    load: orderOfPath(deps),
    authorize: (actor: Actor, order: OrderDoc) =>
      buyerOf(deps.services.wallets, actor, order, 'issue the booking page owner key of'),
  };
}
