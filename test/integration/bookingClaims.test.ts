/**
 * Booking claims against the real database (src/repos/bookings.ts): a process that died between claiming a booking's
 * cells and writing the booking must not block the slot for ever (money-integrity.md, 2026-12-02 afternoon, #6). Its
 * cells are given back once older than the claim's grace, fenced so the dead claimer can never write its booking
 * late; a claim in progress (younger than the grace) and a live booking still hold their time.
 */
import { randomBytes } from 'node:crypto';
import type { BookingCellDoc, BookingDoc } from '../../src/db';
import { BookingRepository, CLAIM_GRACE_MS } from '../../src/repos/bookings';
import type { Services } from '../../src/ports';
import { isolatedServices } from '../helpers/services';

let services: Services;
let dispose: (() => Promise<void>) | undefined;
let repo: BookingRepository;

beforeAll(async () => {
  ({ services, dispose } = await isolatedServices('bookingclaims'));
  repo = new BookingRepository(services.db);
}, 120_000);
afterAll(async () => {
  await dispose?.();
});

const CELL_MS = 15 * 60_000;
const DAY = Date.parse('2027-03-01T09:00:00Z');

/** A fresh page id and the four cells of an hour at 09:00 on it. */
function hour(offsetHours = 0): { pageId: string; cells: number[] } {
  const start = DAY + offsetHours * 3_600_000;
  return { pageId: `bp_${randomBytes(8).toString('hex')}`, cells: [0, 1, 2, 3].map((i) => start + i * CELL_MS) };
}

function booking(pageId: string, cells: number[], id = `bk_${randomBytes(8).toString('hex')}`): BookingDoc {
  return {
    _id: id,
    page_id: pageId,
    order_id: 'ord_claims',
    service_id: 'consult',
    service_name: 'Consultation',
    start: new Date(cells[0]!),
    end: new Date(cells.at(-1)! + CELL_MS),
    held_until: new Date(cells.at(-1)! + CELL_MS),
    date: '2027-03-01',
    time: '09:00',
    timezone: 'UTC',
    customer: { name: 'Ada', email: 'ada@example.com', phone: null, notes: null },
    status: 'confirmed',
    created_at: new Date(),
    cancelled_at: null,
  };
}

/** What a process that died after claiming, before writing its booking, leaves: the cells alone. */
async function deadClaim(pageId: string, cells: number[], claimedAt: Date | undefined): Promise<string> {
  const bookingId = `bk_dead_${randomBytes(6).toString('hex')}`;
  const docs: BookingCellDoc[] = cells.map((t) => ({
    _id: `${pageId}|${new Date(t).toISOString()}`,
    page_id: pageId,
    booking_id: bookingId,
    start: new Date(t),
    ...(claimedAt ? { claimed_at: claimedAt } : {}),
  }));
  await services.db.bookingCells.insertMany(docs);
  return bookingId;
}

const heldOn = (pageId: string) => repo.held(pageId, new Date(DAY - 86_400_000), new Date(DAY + 86_400_000), CELL_MS);

test('cells a dead process claimed are given back after the grace; its late booking write is fenced off', async () => {
  const { pageId, cells } = hour();
  const dead = await deadClaim(pageId, cells, new Date(Date.now() - CLAIM_GRACE_MS - 5_000));
  // The slot reads free, and a customer books it.
  expect(await heldOn(pageId)).toEqual([]);
  expect(await repo.book(booking(pageId, cells), cells)).toBe('booked');
  expect(await heldOn(pageId)).toHaveLength(4);
  // The dead claimer, alive after all, cannot write its booking over the new one.
  await expect(services.db.bookings.insertOne(booking(pageId, cells, dead))).rejects.toThrow();
  // The fence is no booking anyone sees.
  expect((await repo.list(pageId, { all: true })).map((b) => b.status)).toEqual(['confirmed']);
  expect(await repo.get(pageId, dead)).toBeNull();
});

test('a claim found at booking time (not first read) is given back too; cells claimed before claimed_at existed as well', async () => {
  const { pageId, cells } = hour(2);
  await deadClaim(pageId, cells.slice(1, 3), undefined);
  expect(await repo.book(booking(pageId, cells), cells)).toBe('booked');
  expect(await heldOn(pageId)).toHaveLength(4);
});

test('a claim in progress (younger than the grace) and a live booking still hold their time', async () => {
  const young = hour(4);
  await deadClaim(young.pageId, young.cells, new Date());
  expect(await repo.book(booking(young.pageId, young.cells), young.cells)).toBe('taken');
  expect(await heldOn(young.pageId)).toHaveLength(4);

  const live = hour(6);
  expect(await repo.book(booking(live.pageId, live.cells), live.cells)).toBe('booked');
  // Even once the live booking's claim is old: its booking is confirmed, so it holds.
  await services.db.bookingCells.updateMany(
    { page_id: live.pageId },
    { $set: { claimed_at: new Date(Date.now() - 10 * CLAIM_GRACE_MS) } },
  );
  expect(await repo.book(booking(live.pageId, live.cells), live.cells)).toBe('taken');
  expect(await heldOn(live.pageId)).toHaveLength(4);
});

test('cells a cancel left behind (it died between its two steps) are given back', async () => {
  const { pageId, cells } = hour(8);
  const first = booking(pageId, cells);
  expect(await repo.book(first, cells)).toBe('booked');
  await services.db.bookings.updateOne({ _id: first._id }, { $set: { status: 'cancelled', cancelled_at: new Date() } });
  expect(await heldOn(pageId)).toEqual([]);
  expect(await repo.book(booking(pageId, cells), cells)).toBe('booked');
});
