/**
 * The hosted receptionist (issue 38 §1) through the real API and worker on Temporal's time-skipping test server, with
 * a real SMTP server (Mailpit) and a real webhook receiver: an ai-receptionist order paid from a wallet is provisioned
 * live (chat page, snippet, chat API, its own booking page; the delivered files point at them and are what is
 * hosted); without a model, a visitor books through the deterministic dialogue (the booking is on the hosted
 * calendar; the same slot is not offered to a second chat, and a slot taken meanwhile is refused at confirmation);
 * an urgent message is e-mailed to the business and sent as a signed webhook; then an unpaid renewal suspends it
 * (423), a paid retry resumes it, and the cancelled subscription ends it (410).
 */
import { DateTime } from 'luxon';
import { startMailpit, type Mailpit } from '../helpers/mailpit';
import { startReceiver, type Receiver } from '../helpers/receiver';
import {
  fundAgent,
  startTimeSkippingStack,
  topUp,
  waitForOrderTs,
  type TimeSkippingStack,
} from '../helpers/timeSkippingStack';
import { subscriptionWorkflowId } from '../../workflows/subscriptionShared';

let stack: TimeSkippingStack;
let mailpit: Mailpit;
let receiver: Receiver;

const ZONE = 'Europe/London';
const OWNER = 'front@cedar-dental.example';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  mailpit = await startMailpit();
  receiver = await startReceiver();
  // No model: the deterministic dialogue answers (the embedded defaults).
  stack = await startTimeSkippingStack({ SMTP_URL: mailpit.smtpUrl, TEXTGEN_BASE_URL: '', TEXTGEN_MODEL: '' });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await mailpit?.stop();
});

type Reply = { status: number; body: { conversation_id: string; replies: string[]; booking: unknown; code?: string } };

async function say(rc: string, text: string, conversation?: string): Promise<Reply> {
  const res = await stack.call('POST', `/api/v1/receptionists/${rc}/messages`, {
    text,
    ...(conversation ? { conversation_id: conversation } : {}),
  });
  return res as unknown as Reply;
}

/** Says each line in one conversation, each answered 200; returns the last answer. */
async function conversation(rc: string, lines: string[], start?: string): Promise<Reply['body']> {
  let id = start;
  let last: Reply['body'] | undefined;
  for (const line of lines) {
    const r = await say(rc, line, id);
    expect(r.status).toBe(200);
    id = r.body.conversation_id;
    last = r.body;
  }
  return last!;
}

async function waitForStatus(rc: string, status: string): Promise<{ status: string; status_message: string | null }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await stack.call('GET', `/api/v1/receptionists/${rc}`);
    if (res.body.status === status) return res.body;
    if (Date.now() > deadline) throw new Error(`receptionist not ${status}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function skipTo(iso: string, extraMs = 60_000): Promise<void> {
  const now = await stack.env.currentTimeMs();
  const ms = Date.parse(iso) + extraMs - now;
  if (ms > 0) await stack.env.sleep(ms);
}

test('provisioned live, books through the chat, hands over urgent cases, and follows its subscription', async () => {
  const agentKey = await fundAgent(stack, 'rc-buyer', 39);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'ai-receptionist',
    agent_id: 'rc-buyer',
    webhook_url: receiver.url,
    inputs: {
      business_name: 'Cedar Dental',
      contact_email: OWNER,
      services: 'Cleaning (30 min), Whitening (60 min)',
      opening_hours: 'Mon-Sun 8am-8pm',
      timezone: ZONE,
      escalation_phone: '+44 20 7946 0000',
    },
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  receiver.secrets = [created.body.webhook.secret as string];
  expect((await stack.call('POST', `/api/v1/orders/${orderId}/confirm_payment`, {}, bearer(agentKey))).status).toBe(
    200,
  );
  const delivered = await waitForOrderTs(
    stack,
    orderId,
    (o) => o.status === 'delivered' && o.subscription?.status === 'active',
    60_000,
  );

  // Provisioned: the buyer reads it with the buyer's credential only.
  const path = `/api/v1/orders/${orderId}/receptionist`;
  expect((await stack.call('GET', path)).status).toBe(401);
  const mine = await stack.call('GET', path, undefined, bearer(agentKey));
  expect(mine.status).toBe(200);
  const rc = mine.body.receptionist_id as string;
  const pageId = mine.body.booking_page_id as string;
  expect(rc).toMatch(/^rc_[A-Za-z0-9_-]{22}$/);
  expect(mine.body).toMatchObject({
    status: 'active',
    embed_snippet: `<script src="${stack.url}/chat/${rc}/embed.js" async></script>`,
  });

  // The delivered files point at the live endpoints and are what is hosted.
  const files: Record<string, string> = {};
  for (const name of [
    'ai-receptionist-config.json',
    'ai-receptionist-system-prompt.md',
    'ai-receptionist-test-conversations.json',
  ]) {
    const res = await fetch(`${stack.url}/api/v1/orders/${orderId}/deliverables/${name}`);
    expect(res.status).toBe(200);
    files[name] = await res.text();
    expect(files[name]).not.toContain('REPLACE_WITH');
  }
  const config = JSON.parse(files['ai-receptionist-config.json']!) as {
    tools: { name: string; url: string }[];
    hosted: { chat_page: string; messages_api: { url: string }; booking_page: { page_id: string } };
    business: { services: { id: string }[] };
  };
  expect(config.tools[0]).toMatchObject({
    name: 'create_booking_request',
    url: `${stack.url}/api/v1/booking-pages/${pageId}/bookings`,
  });
  expect(config.hosted).toMatchObject({
    chat_page: `${stack.url}/chat/${rc}`,
    messages_api: { url: `${stack.url}/api/v1/receptionists/${rc}/messages` },
    booking_page: { page_id: pageId },
  });
  expect(files['ai-receptionist-system-prompt.md']).toContain(`${stack.url}/chat/${rc}`);
  expect(JSON.parse(files['ai-receptionist-test-conversations.json']!).run_against.url).toBe(
    `${stack.url}/api/v1/receptionists/${rc}/messages`,
  );
  // Its booking page offers the services the config lists.
  const page = await stack.call('GET', `/api/v1/booking-pages/${pageId}`);
  expect(page.status).toBe(200);
  expect(page.body.timezone).toBe(ZONE);
  expect(page.body.services.map((s: { id: string }) => s.id)).toEqual(config.business.services.map((s) => s.id));

  // The chat page, the snippet and the public view; the page names no order.
  const html = await (await fetch(`${stack.url}/chat/${rc}`)).text();
  expect(html).toContain('Cedar Dental');
  expect(html).not.toContain(orderId);
  const embed = await fetch(`${stack.url}/chat/${rc}/embed.js`);
  expect(embed.headers.get('content-type')).toMatch(/javascript/);
  expect(await embed.text()).toContain(`${stack.url}/chat/${rc}`);
  const view = await stack.call('GET', `/api/v1/receptionists/${rc}`);
  expect(view.body).toMatchObject({ status: 'active', status_message: null, business: 'Cedar Dental', timezone: ZONE });
  expect(JSON.stringify(view.body)).not.toContain(orderId);
  // It runs from the delivered config and prompt.
  const stored = await stack.services.db.receptionists.findOne({ _id: rc });
  expect(stored?.config).toEqual(config);
  expect(stored?.prompt).toBe(files['ai-receptionist-system-prompt.md']);

  // A visitor books through the deterministic dialogue.
  const date = DateTime.now().setZone(ZONE).plus({ days: 3 }).toISODate()!;
  const free = async () =>
    (await stack.call('GET', `/api/v1/booking-pages/${pageId}/availability?service=cleaning&date=${date}`)).body
      .slots as { time: string }[];
  const before = await free();
  const first = before[0]!.time;
  const a1 = await say(rc, "Hi, I'd like to book a cleaning");
  expect(a1.status).toBe(200);
  expect(a1.body.replies.join(' ')).toMatch(/name/i);
  const a = a1.body.conversation_id;
  expect((await conversation(rc, ['Sam Lee'], a)).replies.join(' ')).toMatch(/e-mail/i);
  expect((await conversation(rc, ['sam@example.com'], a)).replies.join(' ')).toMatch(/day/i);
  const offered = await conversation(rc, [date], a);
  expect(offered.replies.join(' ')).toContain(first);
  expect((await conversation(rc, [first], a)).replies.join(' ')).toMatch(/Shall I book it/);
  const booked = await conversation(rc, ['yes'], a);
  expect(booked.booking).toMatchObject({ status: 'confirmed', date, time: first, service: { id: 'cleaning' } });
  const bookingId = (booked.booking as { booking_id: string }).booking_id;

  // On the hosted calendar: the owner lists it with the page's owner key.
  const key = await stack.call('POST', `/api/v1/orders/${orderId}/booking-page/owner-key`, {}, bearer(agentKey));
  expect(key.status).toBe(201);
  const list = await stack.call(
    'GET',
    `/api/v1/booking-pages/${pageId}/bookings`,
    undefined,
    bearer(key.body.owner_key as string),
  );
  expect(list.body.bookings).toContainEqual(
    expect.objectContaining({ booking_id: bookingId, customer: expect.objectContaining({ name: 'Sam Lee' }) }),
  );
  await mailpit.waitFor((m) => m.to.includes(OWNER) && /New booking/.test(m.subject));

  // A second chat is not offered the same slot, and is refused it when asked.
  const b = await conversation(rc, ['I want to book cleaning', 'Alex Kim', 'alex@example.com', date]);
  expect(b.replies.join(' ')).not.toMatch(new RegExp(`: ${first}\\b`));
  expect((await conversation(rc, [first], b.conversation_id)).replies.join(' ')).toContain(`${first} is not free`);
  // A slot taken between the offer and the yes is refused by the booking service; other times are offered.
  const second = (await free())[0]!.time;
  expect((await conversation(rc, [second], b.conversation_id)).replies.join(' ')).toMatch(/Shall I book it/);
  const direct = await stack.call('POST', `/api/v1/booking-pages/${pageId}/bookings`, {
    service: 'cleaning',
    date,
    time: second,
    name: 'Walk In',
    email: 'walkin@example.com',
  });
  expect(direct.status).toBe(201);
  const refused = await conversation(rc, ['yes'], b.conversation_id);
  expect(refused.booking).toBeNull();
  expect(refused.replies.join(' ')).toContain(`${second} on`);
  expect(refused.replies.join(' ')).toMatch(/just been taken/);
  expect(refused.replies.join(' ')).toMatch(/Free times/);

  // An urgent case reaches the business by e-mail (Mailpit) and signed webhook, with the number to call.
  const u1 = await say(rc, 'This is urgent, I have severe tooth pain and my face is swollen');
  expect(u1.status).toBe(200);
  expect(u1.body.replies.join(' ')).toContain('+442079460000');
  const u2 = await say(rc, 'Call me on +44 7700 900123', u1.body.conversation_id);
  expect(u2.body).toMatchObject({ handed_over: true });
  const mail = await mailpit.waitFor((m) => m.to.includes(OWNER) && /^Urgent/.test(m.subject));
  expect(mail.text).toContain('severe tooth pain');
  expect(mail.text).toContain('+44 7700 900123');
  await receiver.waitFor((r) => r.events().some((e: { type: string }) => e.type === 'receptionist.handoff'));
  const hook = receiver.events().find((e: { type: string }) => e.type === 'receptionist.handoff') as unknown as {
    data: { summary: string; receptionist_id: string };
  };
  expect(hook.data).toMatchObject({ receptionist_id: rc });
  expect(hook.data.summary).toContain('severe tooth pain');
  const convs = await stack.call('GET', `${path}/conversations`, undefined, bearer(agentKey));
  expect(convs.status).toBe(200);
  expect(convs.body.conversations).toHaveLength(3);
  expect(convs.body.conversations[0].handoffs[0]).toMatchObject({ emailed_to: OWNER });

  // The renewal is unpaid (the wallet is empty): suspended, with a clear message.
  const sub = delivered.subscription as { current_period: { end: string } };
  await skipTo(sub.current_period.end);
  const suspended = await waitForStatus(rc, 'suspended');
  expect(suspended.status_message).toMatch(/suspended.*renewal of period 2 is unpaid/);
  const refusedChat = await say(rc, 'Hello?', a);
  expect(refusedChat.status).toBe(423);
  expect(refusedChat.body.code).toBe('receptionist_suspended');
  const pageWhileSuspended = await fetch(`${stack.url}/chat/${rc}`);
  expect(pageWhileSuspended.status).toBe(200);
  expect(await pageWhileSuspended.text()).toMatch(/data-status-message="[^"]*suspended/);
  expect((await stack.call('GET', path, undefined, bearer(agentKey))).body).toMatchObject({ status: 'suspended' });

  // Paid (the buyer tops up, the dunning retry a day later succeeds): resumed.
  await topUp(stack, 'rc-buyer', 39, 'rc-topup');
  const pastDue = await waitForOrderTs(stack, orderId, (o) => o.subscription?.status === 'past_due');
  await skipTo((pastDue.subscription as { dunning: { next_retry_at: string } }).dunning.next_retry_at);
  await waitForStatus(rc, 'active');
  expect((await say(rc, 'What are your opening hours?')).body.replies.join(' ')).toContain('08:00–20:00');

  // Cancelled: it ends with the period.
  const cancel = await stack.call('POST', `/api/v1/orders/${orderId}/subscription/cancel`, {}, bearer(agentKey));
  expect(cancel.status).toBe(200);
  await stack.env.client.workflow.getHandle(subscriptionWorkflowId(orderId)).result();
  await waitForStatus(rc, 'ended');
  const gone = await say(rc, 'Hello?');
  expect(gone.status).toBe(410);
  expect(gone.body.code).toBe('receptionist_ended');
  expect((await fetch(`${stack.url}/chat/${rc}`)).status).toBe(410);
}, 240_000);
