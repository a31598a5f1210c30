/**
 * Hosted booking pages (issue 38 §2) against the real API, worker, Temporal server and database, with a real SMTP
 * server (Mailpit) and a real webhook receiver (verifying with `standardwebhooks`): a website-booking order paid
 * from a wallet gets its page at `/book/{page_id}`, served in the business's time zone with the delivered bytes and
 * config; availability follows the hours, buffers and lead time of that config; a slot is booked once (201), then
 * refused (409), also when many customers book it at the same instant; the owner is e-mailed and sent a signed
 * webhook; the owner lists and cancels with the owner key the buyer issued; strangers are refused.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { chromium, type Page } from 'playwright-core';
import { startMailpit, type Mailpit } from '../helpers/mailpit';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';

let stack: Stack;
let mailpit: Mailpit;
let receiver: Receiver;
let agentKey: string;
let orderId: string;
let pageId: string;
let ownerKey: string;
let config: {
  services: { id: string; name: string; duration_minutes: number; buffer_minutes: number }[];
  availability: { timezone: string; weekly: Record<string, [string, string][]>; min_lead_time_hours: number };
  hosted: { page_id: string; page_url: string; bookings_url: string; availability_url: string };
};

const ZONE = 'Australia/Melbourne';
const OWNER_EMAIL = 'frontdesk@harbourphysio.example';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  mailpit = await startMailpit();
  stack = await startStack({ SMTP_URL: mailpit.smtpUrl });
  receiver = await startReceiver();
  agentKey = await fundedAgent(stack, 'booking-buyer', 500);
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'website-booking' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'booking-buyer',
    webhook_url: receiver.url,
    inputs: {
      business_name: 'Harbour Physio',
      industry: 'Physiotherapy clinic',
      services: 'Initial assessment (60 min), Follow-up treatment (30 min)',
      opening_hours: 'Mon-Sun 7am-9pm',
      timezone: ZONE,
      contact_email: OWNER_EMAIL,
    },
  });
  expect(created.status).toBe(201);
  orderId = created.body.order_id;
  receiver.secrets = [created.body.webhook.secret];
  expect((await stack.call('POST', `/api/v1/orders/${orderId}/confirm_payment`, {}, bearer(agentKey))).status).toBe(
    200,
  );
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
  const file = await stack.call('GET', `/api/v1/orders/${orderId}/deliverables/website-booking-config.json`);
  expect(file.status).toBe(200);
  config = (typeof file.body === 'string' ? JSON.parse(file.body) : file.body) as typeof config;
  pageId = config.hosted.page_id;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  await mailpit?.stop();
});

/** A date `days` after today in the page's zone. */
const dayAhead = (days: number) => DateTime.now().setZone(ZONE).plus({ days }).toISODate() ?? '';

async function slots(service: string, date: string): Promise<{ start: string; end: string; time: string }[]> {
  const res = await stack.call(
    'GET',
    `/api/v1/booking-pages/${pageId}/availability?service=${encodeURIComponent(service)}&date=${date}`,
  );
  expect(res.status).toBe(200);
  expect(res.body.timezone).toBe(ZONE);
  return res.body.slots;
}

const customer = (n: number) => ({
  name: `Customer ${n}`,
  email: `customer${n}@example.com`,
  phone: '+61 400 000 000',
});

test('the page is hosted at a stable URL of this service, in the business time zone, with the delivered bytes and config', async () => {
  expect(pageId).toMatch(/^bp_[A-Za-z0-9_-]{22}$/);
  // Not derived from the order id: neither contains the other.
  expect(pageId).not.toContain(orderId.replace(/^ord_/, '').slice(0, 8));
  expect(config.hosted.page_url).toBe(`${stack.url}/book/${pageId}`);
  const page = await fetch(`${stack.url}/book/${pageId}`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  const html = await page.text();
  const delivered = await fetch(`${stack.url}/api/v1/orders/${orderId}/deliverables/website-booking-index.html`);
  expect(html).toBe(await delivered.text());
  expect(html).toContain(`Time (${ZONE})`);
  expect(html).not.toContain('Time (UTC)');
  // The page is public: it names no order (the order id reads the order and its files, decision 0011).
  expect(html).not.toContain(orderId);
  expect(html).not.toContain(orderId.replace(/^ord_/, ''));
  expect(html).toContain(`data-endpoint="${stack.url}/api/v1/booking-pages/${pageId}/bookings"`);
  expect(html).toContain('Initial assessment');
  expect(html).toContain('1 h');
  expect(html).toContain('30 min');
  // The stored config is the delivered JSON.
  const stored = await stack.services.db.bookingPages.findOne({ _id: pageId });
  expect(stored?.config).toEqual(config);
  const view = await stack.call('GET', `/api/v1/booking-pages/${pageId}`);
  expect(view.status).toBe(200);
  expect(view.body).toMatchObject({ timezone: ZONE, business: { name: 'Harbour Physio' } });
  expect(view.body.services.map((s: { duration_minutes: number }) => s.duration_minutes)).toEqual([60, 30]);
  // The same order delivered again (a retried activity) keeps its page.
  expect(await stack.services.db.bookingPages.countDocuments({ order_id: orderId })).toBe(1);
  expect((await stack.call('GET', '/api/v1/booking-pages/bp_nosuchpage0000000000000')).status).toBe(404);
});

test('availability follows the hours, the lead time and the buffer of the config', async () => {
  const assessment = config.services[0];
  if (!assessment) throw new Error('no service');
  const { buffer_minutes: buffer, duration_minutes: duration } = assessment;
  expect(buffer).toBeGreaterThan(0);
  // Today: nothing sooner than the lead time.
  const now = Date.now();
  for (const s of await slots(assessment.id, dayAhead(0)))
    expect(Date.parse(s.start)).toBeGreaterThanOrEqual(
      now + config.availability.min_lead_time_hours * 3_600_000 - 1000,
    );
  const date = dayAhead(4);
  const free = await slots(assessment.id, date);
  expect(free[0]?.time).toBe('07:00');
  expect(free.at(-1)?.time).toBe('20:00'); // 60 minutes before 21:00
  for (const s of free) expect(DateTime.fromISO(s.start, { setZone: true }).toFormat('ZZ')).toMatch(/^\+1[01]:00$/);
  // Book 10:00; the next start of the same service is 10:00 + duration + buffer, none overlapping before.
  const booked = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
    service: assessment.id,
    date,
    time: '10:00',
    ...customer(1),
  });
  expect(booked.status).toBe(201);
  const after = (await slots(assessment.id, date)).map((s) => s.time);
  const at = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));
  for (const t of after) expect(at(t) + duration + buffer <= 600 || at(t) >= 600 + duration + buffer).toBe(true);
  // The first start on the 15-minute step after 10:00 + duration + buffer is offered; 09:00 (its buffer would run
  // into 10:00) is not.
  const next = Math.ceil((600 + duration + buffer) / 15) * 15;
  expect(after).toContain(`${String(Math.floor(next / 60)).padStart(2, '0')}:${String(next % 60).padStart(2, '0')}`);
  expect(after).not.toContain('09:00');
  expect(after).toContain('08:45');
  // Outside the hours, or not on the slot step: refused.
  const early = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
    service: assessment.id,
    date,
    time: '06:00',
    ...customer(2),
  });
  expect(early.status).toBe(422);
  expect(early.body).toMatchObject({ code: 'slot_unavailable', reason: 'not_a_slot' });
});

test('a slot is booked once: 201, then 409; at the same instant exactly one of many wins', async () => {
  const followUp = config.services[1];
  if (!followUp) throw new Error('no service');
  const date = dayAhead(5);
  const body = { service: followUp.id, date, time: '14:00', ...customer(3) };
  const first = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, body);
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ status: 'confirmed', time: '14:00', date, timezone: ZONE });
  expect(first.body.customer).toBeUndefined();
  const again = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, { ...body, ...customer(4) });
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('slot_taken');

  // Ten customers, the same slot, at once.
  const racers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
        service: followUp.id,
        date,
        time: '16:00',
        ...customer(10 + i),
      }),
    ),
  );
  expect(racers.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
  // Overlapping starts race too: 16:15 overlaps 16:00's appointment or buffer.
  const overlap = await Promise.all(
    ['17:00', '17:15', '17:00', '17:15'].map((time, i) =>
      stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
        service: followUp.id,
        date,
        time,
        ...customer(30 + i),
      }),
    ),
  );
  expect(overlap.filter((r) => r.status === 201)).toHaveLength(1);
  expect(overlap.filter((r) => r.status === 409)).toHaveLength(3);
  const stored = await stack.services.db.bookings.find({ page_id: pageId, date, status: 'confirmed' }).toArray();
  expect(stored.map((b) => b.time).sort()).toEqual(['14:00', '16:00', expect.stringMatching(/^17:(00|15)$/)]);
});

test('the owner is told by e-mail (SMTP) and by a signed webhook', async () => {
  const date = dayAhead(6);
  const res = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
    service: config.services[0]?.id,
    date,
    time: '09:00',
    name: 'Dana Whitfield',
    email: 'dana@example.com',
    notes: 'Left knee',
  });
  expect(res.status).toBe(201);
  const id = res.body.booking_id as string;
  const mail = await mailpit.waitFor((m) => m.text.includes(id));
  expect(mail.to).toEqual([OWNER_EMAIL]);
  expect(mail.replyTo).toEqual(['dana@example.com']);
  expect(mail.subject).toContain('New booking: Initial assessment');
  expect(mail.subject).toContain(ZONE);
  expect(mail.text).toContain('Dana Whitfield');
  expect(mail.text).toContain('Left knee');
  await receiver.waitFor((r) => r.events().some((e) => e.type === 'booking.created' && e.data.event_id.includes(id)));
  const event = receiver.events().find((e) => e.data.event_id.includes(id)) as unknown as {
    type: string;
    data: { booking_id: string; page_id: string; order_id: string; customer: { name: string }; time: string };
  };
  expect(event.data).toMatchObject({ booking_id: id, page_id: pageId, order_id: orderId, time: '09:00' });
  expect(event.data.customer.name).toBe('Dana Whitfield');
  // Every accepted request verified against the order endpoint's secret (standardwebhooks).
  expect(receiver.accepted.every((r) => r.verified)).toBe(true);
});

test('the owner reads and cancels with the owner key the buyer issued; strangers are refused', async () => {
  const issue = `/api/v1/orders/${orderId}/booking-page/owner-key`;
  expect((await stack.call('POST', issue)).status).toBe(401);
  const stranger = await fundedAgent(stack, 'booking-stranger', 0);
  expect((await stack.call('POST', issue, {}, bearer(stranger))).status).toBe(403);
  const issued = await stack.call('POST', issue, {}, bearer(agentKey));
  expect(issued.status).toBe(201);
  expect(issued.body).toMatchObject({ page_id: pageId, page_url: `${stack.url}/book/${pageId}` });
  ownerKey = issued.body.owner_key;
  expect(ownerKey).toMatch(/^bpk_/);

  const list = `/api/v1/booking-pages/${pageId}/bookings`;
  expect((await stack.call('GET', list)).status).toBe(401);
  expect((await stack.call('GET', list, undefined, bearer(agentKey))).status).toBe(403);
  expect((await stack.call('GET', list, undefined, bearer('bpk_not-the-key'))).status).toBe(403);
  const mine = await stack.call('GET', list, undefined, bearer(ownerKey));
  expect(mine.status).toBe(200);
  const dana = mine.body.bookings.find((b: { customer: { name: string } }) => b.customer.name === 'Dana Whitfield');
  expect(dana).toMatchObject({ status: 'confirmed', customer: { email: 'dana@example.com', notes: 'Left knee' } });

  const cancel = `/api/v1/booking-pages/${pageId}/bookings/${dana.booking_id}/cancel`;
  expect((await stack.call('POST', cancel)).status).toBe(401);
  expect((await stack.call('POST', cancel, {}, bearer(agentKey))).status).toBe(403);
  const cancelled = await stack.call('POST', cancel, {}, bearer(ownerKey));
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: 'cancelled', booking_id: dana.booking_id });
  expect((await stack.call('POST', cancel, {}, bearer(ownerKey))).body.status).toBe('cancelled');
  // The slot is free again, and can be booked.
  expect((await slots(dana.service.id, dana.date)).map((s) => s.time)).toContain('09:00');
  const rebook = await stack.call('POST', list, {
    service: dana.service.id,
    date: dana.date,
    time: '09:00',
    ...customer(50),
  });
  expect(rebook.status).toBe(201);
  await receiver.waitFor((r) =>
    r.events().some((e) => e.type === 'booking.cancelled' && e.data.event_id.includes(dana.booking_id)),
  );
  await mailpit.waitFor((m) => m.subject.startsWith('Booking cancelled') && m.text.includes(dana.booking_id));
  // A new key replaces the old one.
  const second = await stack.call('POST', issue, {}, bearer(agentKey));
  expect((await stack.call('GET', list, undefined, bearer(ownerKey))).status).toBe(403);
  expect((await stack.call('GET', list, undefined, bearer(second.body.owner_key))).status).toBe(200);
  ownerKey = second.body.owner_key;
  expect((await stack.call('GET', list, undefined, bearer(ownerKey))).body.bookings).not.toContainEqual(
    expect.objectContaining({ booking_id: dana.booking_id }),
  );
});

test('in a bundle (clinic-pack) the page is hosted too, and the receptionist books through the same endpoint', async () => {
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'clinic-pack' });
  const created = await stack.call('POST', '/api/v1/orders', {
    quote_id: quote.body.quote_id,
    agent_id: 'booking-buyer',
    inputs: {
      business_name: 'Cedar Vet Clinic',
      practice_type: 'Veterinary clinic',
      contact_email: 'front@cedarvet.example',
      services: 'Vaccination (20 min), Dental cleaning 1.5 hours',
      timezone: 'America/Los_Angeles',
      opening_hours: 'Mon-Sat 8:00-17:30',
    },
  });
  expect(created.status).toBe(201);
  const id = created.body.order_id as string;
  expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(agentKey))).status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered', 60_000);
  const page = await stack.services.db.bookingPages.findOne({ order_id: id });
  expect(page?._id).toMatch(/^bp_/);
  expect(await stack.services.db.bookingPages.countDocuments({ order_id: id })).toBe(1);
  const bookings = `${stack.url}/api/v1/booking-pages/${page?._id}/bookings`;
  const receptionist = await stack.call('GET', `/api/v1/orders/${id}/deliverables/ai-receptionist-config.json`);
  const tool = (receptionist.body as { tools: { name: string; url: string }[] }).tools[0];
  expect(tool).toMatchObject({ name: 'create_booking_request', url: bookings });
  const html = await (await fetch(`${stack.url}/book/${page?._id}`)).text();
  expect(html).toContain(`data-endpoint="${bookings}"`);
  expect(html).toContain('Time (America/Los_Angeles)');
  const slots = await stack.call(
    'GET',
    `/api/v1/booking-pages/${page?._id}/availability?service=vaccination&date=${DateTime.now().setZone('America/Los_Angeles').plus({ days: 9 }).toISODate()}`,
  );
  expect(slots.status).toBe(200);
  expect(slots.body.slots.length).toBeGreaterThan(0);
}, 90_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('in Chromium: a customer books through the hosted page; a second customer on the same slot is told it was taken', async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: run scripts/setup.sh as root, or set CHROMIUM_PATH (this test never skips)`,
    );
  const profile = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const errors: string[] = [];
  // The 409 the second customer gets on purpose is not an error of the page.
  context.on('page', (p) =>
    p.on('console', (m) => m.type() === 'error' && !/status of 409/.test(m.text()) && errors.push(m.text())),
  );
  try {
    const date = dayAhead(8);
    const open = async (): Promise<Page> => {
      const page = await context.newPage();
      await page.goto(`${stack.url}/book/${pageId}`);
      // The page asks for today's free times first and fills in today's date (in the page's zone).
      for (let i = 0; (await page.locator('#date').inputValue()) === ''; i++) {
        if (i > 100) throw new Error("the page never filled in today's date");
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.getByLabel('Service', { exact: true }).selectOption(config.services[1]?.id ?? '');
      await page.getByLabel('Date').fill(date);
      await page.getByLabel('Date').dispatchEvent('change');
      await page.locator('#time option[value="11:00"]').waitFor({ state: 'attached' });
      await page.getByLabel(`Time (${ZONE})`).selectOption('11:00');
      await page.getByLabel('Your name').fill('Robin Ng');
      await page.getByLabel('E-mail', { exact: true }).fill('robin@example.com');
      return page;
    };
    const [first, second] = [await open(), await open()];
    await first.getByRole('button', { name: 'Request booking' }).click();
    await first.getByText(`Booked: ${config.services[1]?.name} on ${date} at 11:00 (${ZONE})`).waitFor();
    // The slot is gone from the first page's list once booked.
    await first.locator('#time option[value="11:00"]').waitFor({ state: 'detached' });
    await second.getByRole('button', { name: 'Request booking' }).click();
    await second.getByText('that time was just booked').waitFor();
    const stored = await stack.services.db.bookings.find({ page_id: pageId, date, time: '11:00' }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.customer.email).toBe('robin@example.com');
    await mailpit.waitFor((m) => m.text.includes(stored[0]?._id ?? '?'));
    await receiver.waitFor((r) => r.events().some((e) => e.data.event_id.includes(stored[0]?._id ?? '?')));
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}, 90_000);
