/**
 * Hosted booking pages and their bookings (issue 38 §2). A booking claims the cells of time it holds by inserting
 * one document per cell under a unique `_id` (`<page_id>|<cell start>`): of two requests for overlapping times,
 * exactly one inserts every cell, the other meets a duplicate key, removes the cells it did insert and is refused.
 *
 * A process that dies between claiming its cells and writing its booking leaves cells no booking holds. They are
 * given back once older than {@link CLAIM_GRACE_MS}: whoever meets them (an availability read, a claim refused by
 * them) first writes a void booking under the dead claim's booking id (the fence: the claimer, should it be alive
 * after all, then fails to write its booking and is refused), then removes the cells. Cells of a cancelled booking
 * (a cancel that died between its two steps) are given back too.
 */
import { randomBytes } from 'node:crypto';
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { isDuplicateKey, type BookingCellDoc, type BookingDoc, type BookingPageDoc, type Database } from '../db';
import type { Interval } from '../domain/booking';

/** A unique-key refusal as MongoDB (11000) or DocumentDB (InternalError "exclusion constraint") reports it. */
function isKeyConflict(err: unknown): boolean {
  if (err instanceof MongoBulkWriteError) {
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (errors.length > 0)
      return errors.every((e) => e.code === 11000 || (e.code === 1 && /exclusion constraint/.test(e.errmsg ?? '')));
  }
  return (
    isDuplicateKey(err) ||
    (err instanceof MongoServerError && err.code === 1 && /exclusion constraint/.test(err.message))
  );
}

/** PostgreSQL's deadlock between two concurrent claims (DocumentDB): nothing is held, the claim is tried again. */
function isDeadlock(err: unknown): boolean {
  return err instanceof MongoServerError && /deadlock detected|could not serialize/.test(err.message);
}

/**
 * Milliseconds a claimed cell may stand without its booking before it is taken for an orphan: far above the few
 * milliseconds between a live claim and its booking's write.
 */
export const CLAIM_GRACE_MS = 60_000;

/** Pages, bookings and the cells bookings hold. */
export class BookingRepository {
  constructor(private readonly d: Database) {}

  /**
   * The page of an order, made on first call (`bp_` + 128 random bits); idempotent, so a retried delivery and every
   * part of a bundle find the same page.
   */
  async ensurePage(orderId: string, serviceId: string): Promise<BookingPageDoc> {
    const existing = await this.d.bookingPages.findOne({ order_id: orderId });
    if (existing) return existing;
    const now = new Date();
    const doc: BookingPageDoc = {
      _id: `bp_${randomBytes(16).toString('base64url')}`,
      order_id: orderId,
      service_id: serviceId,
      config: null,
      html: null,
      owner_key_hash: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.d.bookingPages.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isKeyConflict(err)) throw err;
      const won = await this.d.bookingPages.findOne({ order_id: orderId });
      if (!won) throw err;
      return won;
    }
  }

  /** Stores the delivered config and page (the same JSON and bytes the buyer downloads). */
  async setContent(pageId: string, config: Record<string, unknown>, html: string): Promise<void> {
    await this.d.bookingPages.updateOne({ _id: pageId }, { $set: { config, html, updated_at: new Date() } });
  }

  /** The page or null. */
  page(pageId: string): Promise<BookingPageDoc | null> {
    return this.d.bookingPages.findOne({ _id: pageId });
  }

  /** The page of an order or null. */
  pageOfOrder(orderId: string): Promise<BookingPageDoc | null> {
    return this.d.bookingPages.findOne({ order_id: orderId });
  }

  /** Replaces the owner key (sha256 hex of the new one): the previous key stops opening the page. */
  async setOwnerKeyHash(pageId: string, hash: string): Promise<void> {
    await this.d.bookingPages.updateOne({ _id: pageId }, { $set: { owner_key_hash: hash, updated_at: new Date() } });
  }

  /**
   * The cells held on a page between two instants, as spans of `cellMs` each. Cells left by a dead claim or a
   * cancelled booking are given back on the way ({@link heal}) and not counted.
   */
  async held(pageId: string, from: Date, to: Date, cellMs: number): Promise<Interval[]> {
    const cells = await this.d.bookingCells.find({ page_id: pageId, start: { $gte: from, $lt: to } }).toArray();
    const freed = await this.heal(cells);
    return cells
      .filter((c) => !freed.has(c._id))
      .map((c) => ({ start: c.start.getTime(), end: c.start.getTime() + cellMs }));
  }

  /**
   * Books atomically: claims every cell (epoch ms) of the booking, then stores it. `taken` when another booking holds
   * any of them (the cells this call claimed are given back), or when this claim outlived {@link CLAIM_GRACE_MS}
   * before its booking was written and was given back meanwhile. A claim refused only by orphaned cells gives those
   * back and tries once more.
   */
  async book(doc: BookingDoc, cells: readonly number[]): Promise<'booked' | 'taken'> {
    const claimedAt = new Date();
    const claims: BookingCellDoc[] = cells.map((t) => ({
      _id: `${doc.page_id}|${new Date(t).toISOString()}`,
      page_id: doc.page_id,
      booking_id: doc._id,
      start: new Date(t),
      claimed_at: claimedAt,
    }));
    let healed = false;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.d.bookingCells.insertMany(claims, { ordered: true });
        break;
      } catch (err) {
        await this.d.bookingCells.deleteMany({ booking_id: doc._id });
        if (isKeyConflict(err)) {
          if (healed) return 'taken';
          healed = true;
          const standing = await this.d.bookingCells
            .find({ _id: { $in: claims.map((c) => c._id) }, booking_id: { $ne: doc._id } })
            .toArray();
          const freed = await this.heal(standing);
          // Held by a live booking (or a claim in progress): refused. All given back (or gone meanwhile): once more.
          if (standing.some((c) => !freed.has(c._id))) return 'taken';
          continue;
        }
        if (!isDeadlock(err) || attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 50));
      }
    }
    try {
      await this.d.bookings.insertOne(doc);
    } catch (err) {
      await this.d.bookingCells.deleteMany({ booking_id: doc._id });
      // A void booking under this id: the claim was taken for a dead one and its cells given back meanwhile.
      if (isKeyConflict(err)) return 'taken';
      throw err;
    }
    return 'booked';
  }

  /**
   * Gives back the cells among `cells` that no live booking holds: those of a cancelled booking, and those of a claim
   * older than {@link CLAIM_GRACE_MS} whose booking was never written (fenced first by a void booking under its id).
   * @returns the ids of the cells given back.
   */
  private async heal(cells: readonly BookingCellDoc[]): Promise<Set<string>> {
    const freed = new Set<string>();
    if (cells.length === 0) return freed;
    const ids = [...new Set(cells.map((c) => c.booking_id))];
    const bookings = await this.d.bookings.find({ _id: { $in: ids } }, { projection: { status: 1 } }).toArray();
    const status = new Map(bookings.map((b) => [b._id, b.status]));
    const cutoff = Date.now() - CLAIM_GRACE_MS;
    for (const id of ids) {
      if (status.get(id) === 'confirmed') continue;
      const mine = cells.filter((c) => c.booking_id === id);
      if (!status.has(id)) {
        // Claimed moments ago: its booking is probably being written now.
        if (mine.some((c) => (c.claimed_at?.getTime() ?? 0) > cutoff)) continue;
        if (!(await this.fence(mine))) continue;
      }
      await this.d.bookingCells.deleteMany({ booking_id: id });
      for (const c of mine) freed.add(c._id);
    }
    return freed;
  }

  /**
   * Writes a void booking under the booking id of orphaned cells, so their claimer can never write its booking.
   * @returns false when the booking was written first after all (the cells are held).
   */
  private async fence(cells: readonly BookingCellDoc[]): Promise<boolean> {
    const first = cells.reduce((a, b) => (a.start <= b.start ? a : b));
    const now = new Date();
    try {
      await this.d.bookings.insertOne({
        _id: first.booking_id,
        page_id: first.page_id,
        order_id: '',
        service_id: '',
        service_name: '',
        start: first.start,
        end: first.start,
        held_until: first.start,
        date: '',
        time: '',
        timezone: 'UTC',
        customer: { name: '', email: '', phone: null, notes: null },
        status: 'void',
        created_at: now,
        cancelled_at: now,
      });
      return true;
    } catch (err) {
      if (!isKeyConflict(err)) throw err;
      const written = await this.d.bookings.findOne({ _id: first.booking_id }, { projection: { status: 1 } });
      return written?.status !== 'confirmed';
    }
  }

  /** A page's bookings by start, the cancelled ones with `all`. */
  list(pageId: string, opts: { from?: Date; all?: boolean; limit?: number } = {}): Promise<BookingDoc[]> {
    return this.d.bookings
      .find({
        page_id: pageId,
        ...(opts.from ? { start: { $gte: opts.from } } : {}),
        status: opts.all ? { $in: ['confirmed', 'cancelled'] } : 'confirmed',
      })
      .sort({ start: 1 })
      .limit(opts.limit ?? 500)
      .toArray();
  }

  /** One booking of a page or null. */
  get(pageId: string, bookingId: string): Promise<BookingDoc | null> {
    return this.d.bookings.findOne({ _id: bookingId, page_id: pageId, status: { $in: ['confirmed', 'cancelled'] } });
  }

  /**
   * Cancels a confirmed booking and frees its time; returns it as it now is, and whether this call cancelled it
   * (false: it already was). Null when the page has no such booking.
   */
  async cancel(pageId: string, bookingId: string): Promise<{ booking: BookingDoc; changed: boolean } | null> {
    const changed = await this.d.bookings.findOneAndUpdate(
      { _id: bookingId, page_id: pageId, status: 'confirmed' },
      { $set: { status: 'cancelled', cancelled_at: new Date() } },
      { returnDocument: 'after' },
    );
    // Freed also when an earlier cancel stopped between its two steps.
    await this.d.bookingCells.deleteMany({ booking_id: bookingId });
    if (changed) return { booking: changed, changed: true };
    const booking = await this.get(pageId, bookingId);
    return booking ? { booking, changed: false } : null;
  }
}
