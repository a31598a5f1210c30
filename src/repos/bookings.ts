/**
 * Hosted booking pages and their bookings (issue 38 §2). A booking claims the cells of time it holds by inserting
 * one document per cell under a unique `_id` (`<page_id>|<cell start>`): of two requests for overlapping times,
 * exactly one inserts every cell, the other meets a duplicate key, removes the cells it did insert and is refused.
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

  /** The cells held on a page between two instants, as spans of `cellMs` each. */
  async held(pageId: string, from: Date, to: Date, cellMs: number): Promise<Interval[]> {
    const cells = await this.d.bookingCells
      .find({ page_id: pageId, start: { $gte: from, $lt: to } }, { projection: { start: 1 } })
      .toArray();
    return cells.map((c) => ({ start: c.start.getTime(), end: c.start.getTime() + cellMs }));
  }

  /**
   * Books atomically: claims every cell (epoch ms) of the booking, then stores it. `taken` when another booking holds
   * any of them (the cells this call claimed are given back).
   */
  async book(doc: BookingDoc, cells: readonly number[]): Promise<'booked' | 'taken'> {
    const claims: BookingCellDoc[] = cells.map((t) => ({
      _id: `${doc.page_id}|${new Date(t).toISOString()}`,
      page_id: doc.page_id,
      booking_id: doc._id,
      start: new Date(t),
    }));
    for (let attempt = 1; ; attempt++) {
      try {
        await this.d.bookingCells.insertMany(claims, { ordered: true });
        break;
      } catch (err) {
        await this.d.bookingCells.deleteMany({ booking_id: doc._id });
        if (isKeyConflict(err)) return 'taken';
        if (!isDeadlock(err) || attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 50));
      }
    }
    try {
      await this.d.bookings.insertOne(doc);
    } catch (err) {
      await this.d.bookingCells.deleteMany({ booking_id: doc._id });
      throw err;
    }
    return 'booked';
  }

  /** A page's bookings by start, the cancelled ones with `all`. */
  list(pageId: string, opts: { from?: Date; all?: boolean; limit?: number } = {}): Promise<BookingDoc[]> {
    return this.d.bookings
      .find({
        page_id: pageId,
        ...(opts.from ? { start: { $gte: opts.from } } : {}),
        ...(opts.all ? {} : { status: 'confirmed' as const }),
      })
      .sort({ start: 1 })
      .limit(opts.limit ?? 500)
      .toArray();
  }

  /** One booking of a page or null. */
  get(pageId: string, bookingId: string): Promise<BookingDoc | null> {
    return this.d.bookings.findOne({ _id: bookingId, page_id: pageId });
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
