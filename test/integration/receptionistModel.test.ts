/**
 * The hosted receptionist with a text model configured (issue 38 §1): each turn goes through the model (a local
 * chat-completions server, scripted), with the delivered system prompt and the transcript; the actions it asks for are
 * performed by the service with the booking pages' checks: free times read from the page, a booking made atomically
 * (the same slot refused to a second conversation), a hand-over sent. A model that fails leaves the turn to the
 * deterministic dialogue.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { chromium } from 'playwright-core';
import { schemaReply, startFakeTextModel, type FakeReply, type FakeTextModel } from '../helpers/fakeTextModel';
import { fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';

let stack: Stack;
let model: FakeTextModel;
let receptionist = '';
let bookingPage = '';
/** What the model answers to the next receptionist turn (a JSON value, or a whole reply such as a 500). */
let script: Record<string, unknown> | FakeReply = {};

const ZONE = 'America/New_York';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  model = await startFakeTextModel((req) => {
    if (req.body.response_format?.json_schema?.name !== 'receptionist_turn') return schemaReply(req);
    if ('status' in script && typeof script.status === 'number') return script as FakeReply;
    return {
      status: 200,
      json: {
        id: 'chatcmpl-script',
        object: 'chat.completion',
        created: 0,
        model: 'scripted',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(script) }, finish_reason: 'stop' }],
      },
    };
  });
  stack = await startStack({ TEXTGEN_BASE_URL: model.baseUrl, TEXTGEN_MODEL: 'scripted' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await model?.stop();
});

const turn = (o: Record<string, unknown>) => ({
  reply: 'OK',
  action: 'none',
  service: null,
  date: null,
  time: null,
  name: null,
  email: null,
  phone: null,
  summary: null,
  ...o,
});

test('converses through the model; its actions are performed with the booking checks; a failing model leaves the turn to the dialogue', async () => {
  const key = await fundedAgent(stack, 'rc-model-buyer', 100);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'ai-receptionist',
    agent_id: 'rc-model-buyer',
    inputs: {
      business_name: 'Maple Physio',
      contact_email: 'desk@maple.example',
      services: 'Assessment (45 min), Massage (30 min)',
      opening_hours: 'Mon-Sun 9am-5pm',
      timezone: ZONE,
    },
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  expect((await stack.call('POST', `/api/v1/orders/${orderId}/confirm_payment`, {}, bearer(key))).status).toBe(200);
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered', 60_000);
  const mine = await stack.call('GET', `/api/v1/orders/${orderId}/receptionist`, undefined, bearer(key));
  const rc = mine.body.receptionist_id as string;
  const pageId = mine.body.booking_page_id as string;
  receptionist = rc;
  bookingPage = pageId;
  const send = (text: string, conversation_id?: string) =>
    stack.call('POST', `/api/v1/receptionists/${rc}/messages`, {
      text,
      ...(conversation_id ? { conversation_id } : {}),
    });

  const date = DateTime.now().setZone(ZONE).plus({ days: 5 }).toISODate()!;
  const free = (await stack.call('GET', `/api/v1/booking-pages/${pageId}/availability?service=massage&date=${date}`))
    .body.slots as { time: string }[];
  const time = free[0]!.time;

  // Free times: the model's words, then the page's real times.
  script = turn({ reply: 'Happy to help with a massage.', action: 'offer_times', service: 'massage', date });
  const one = await send(`Do you have a massage on ${date}?`);
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({ answered_by: 'model', booking: null });
  expect(one.body.replies[0]).toBe('Happy to help with a massage.');
  expect(one.body.replies[1]).toContain(`Free times for Massage on`);
  expect(one.body.replies[1]).toContain(time);
  const asked = model.requests.at(-1)!;
  expect(asked.body.messages?.find((m) => m.role === 'system')?.content).toContain(
    '# System prompt: receptionist for Maple Physio',
  );
  expect(asked.body.messages?.find((m) => m.role === 'user')?.content).toContain(
    `Visitor: Do you have a massage on ${date}?`,
  );

  // Book: through the booking service.
  script = turn({ action: 'book', service: 'massage', date, time, name: 'Pat Doe', email: 'pat@example.com' });
  const two = await send('Yes please, I am Pat Doe, pat@example.com', one.body.conversation_id);
  expect(two.body.booking).toMatchObject({ status: 'confirmed', date, time, service: { id: 'massage' } });
  expect(two.body.replies[0]).toMatch(/^Booked: Massage/);

  // The same slot, asked by another conversation: refused by the claim, other times offered.
  const three = await send('Book me the same massage');
  expect(three.body.booking).toBeNull();
  expect(three.body.replies.join(' ')).toMatch(/just been taken/);
  expect(three.body.replies.join(' ')).not.toMatch(new RegExp(`: ${time}\\b`));

  // Hand-over.
  script = turn({
    reply: 'I will pass this on now.',
    action: 'handoff',
    summary: 'Severe back pain',
    phone: '+1 212 555 0100',
  });
  const four = await send('It is urgent, severe back pain');
  expect(four.body).toMatchObject({ handed_over: true, replies: ['I will pass this on now.'] });
  const convs = await stack.call('GET', `/api/v1/orders/${orderId}/receptionist/conversations`, undefined, bearer(key));
  expect(convs.body.conversations[0].handoffs[0]).toMatchObject({
    summary: 'Severe back pain',
    contact: '+1 212 555 0100',
  });

  // A failing model: the dialogue answers.
  script = { status: 500, json: { error: { message: 'overloaded' } } };
  const five = await send('What are your opening hours?');
  expect(five.status).toBe(200);
  expect(five.body.answered_by).toBe('dialogue');
  expect(five.body.replies[0]).toContain('09:00–17:00');
}, 120_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('in Chromium: a visitor opens the chat from the snippet on a website and books through the chat page', async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: run scripts/setup.sh as root, or set CHROMIUM_PATH (never skipped)`);
  expect(receptionist).toMatch(/^rc_/);
  // The model is down: the dialogue answers, so the steps are known.
  script = { status: 500, json: { error: { message: 'overloaded' } } };
  const profile = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const errors: string[] = [];
  const closers: (() => Promise<void>)[] = [];
  context.on('page', (p) => p.on('console', (m) => m.type() === 'error' && errors.push(m.text())));
  try {
    // The buyer's website, with the snippet pasted in, on another origin (of the same loopback address space).
    const snippet = `<script src="${stack.url}/chat/${receptionist}/embed.js" async></script>`;
    const website = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!DOCTYPE html><title>Maple</title><h1>Maple Physio</h1>${snippet}`);
    });
    await new Promise<void>((resolve) => website.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => website.close(() => resolve())));
    const site = await context.newPage();
    await site.goto(`http://127.0.0.1:${(website.address() as AddressInfo).port}/`);
    await site.getByRole('button', { name: 'Chat with Maple Physio' }).click();
    const chat = site.frameLocator('iframe[title="Chat with Maple Physio"]');
    // The greeting (the model wrote it at delivery), then the visitor's turns.
    await chat.locator('header', { hasText: 'Maple Physio' }).waitFor();
    await chat.locator('p.receptionist').first().waitFor();
    const date = DateTime.now().setZone(ZONE).plus({ days: 6 }).toISODate()!;
    const free = (
      await stack.call('GET', `/api/v1/booking-pages/${bookingPage}/availability?service=assessment&date=${date}`)
    ).body.slots as { time: string }[];
    const time = free[1]!.time;
    const say = async (text: string, expected: RegExp | string) => {
      await chat.getByLabel('Your message').fill(text);
      await chat.getByRole('button', { name: 'Send' }).click();
      await chat.locator('p.receptionist', { hasText: expected }).last().waitFor();
    };
    await say("I'd like to book an assessment", 'What name should I put the booking under?');
    await say('Robin Ng', 'What e-mail address');
    await say('robin@example.com', 'Which day would suit you?');
    await say(date, `Free times for Assessment`);
    await say(time, 'Shall I book it?');
    await say('yes', 'Booked: Assessment');
    const stored = await stack.services.db.bookings.find({ page_id: bookingPage, date, time }).toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.customer).toMatchObject({ name: 'Robin Ng', email: 'robin@example.com' });
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    for (const close of closers) await close();
    rmSync(profile, { recursive: true, force: true });
  }
}, 90_000);
