/**
 * Drill `acp-kill` (issue 37, "a kill during complete"): several ACP platforms complete checkout sessions paid by
 * delegated wallet tokens while the API and/or the worker are SIGKILLed at seeded random moments and restarted.
 *
 * Each session has its own buyer (an agent wallet holding $100) and one of three clients, in turn:
 * - `once`: sends one complete and never retries, whatever it hears (a cut connection included);
 * - `twice`: sends two completes at the same moment (two Idempotency-Keys: a platform whose retry raced its first
 *   call), never retried;
 * - `retry`: retries a cut or 5xx / 409 answer with the same Idempotency-Key until it gets a final one.
 *
 * Then, once quiet (within `--bound-seconds` of the last restart), for every session:
 * - charged at most once (wallet debits of its order not given back);
 * - a charge kept ⇒ its order delivered; a charge given back ⇒ nothing kept; no charge ⇒ its order (if any) unpaid
 *   or expired;
 * - the session reads `completed` exactly when its order holds the payment; a client told 200 `completed` has its
 *   order delivered;
 * - the wallets hold $100 less what their orders kept; the drill's audit of the books (`auditBooks`: wallets =
 *   ledgers, every debit an order's payment or given back) and the service's reconciliation find nothing.
 *
 * The sessions leave in waves, one per kill; each wave's kill falls a seeded 20–1500 ms after its completes left.
 *
 * Options: --sessions N (default 24), --platforms N (3), --kills N (3), --seed S (37), --deadline-seconds N (payment
 * deadline of the orders, 60), --bound-seconds N (120), --keep.
 */
import {
  AUTOMATION,
  OPERATOR_KEY,
  auditBooks,
  call,
  finish,
  fundedAgent,
  logger,
  operatorReconciliation,
  seededRandom,
  sleep,
  startDrillStack,
  type Answer,
  type BooksAudit,
  type DrillStack,
} from './lib';

const WALLET_MICROS = 100_000_000;
const CLIENTS = ['once', 'twice', 'retry'] as const;
type Client = (typeof CLIENTS)[number];
const DELIVERED = ['delivered', 'accepted'];
const ACP = { 'api-version': '2026-04-17' };

/** One session: its platform, buyer, client kind and the complete requests it sends. */
interface Buyer {
  i: number;
  agent: string;
  platformKey: string;
  session: string;
  token: string;
  client: Client;
  answers: Answer[];
}

/** A session's end as the books show it. */
interface Outcome {
  session: string;
  client: Client;
  sessionStatus: string;
  order: string;
  orderStatus: string;
  kept: number;
  returned: number;
  orderPaid: boolean;
}

/** Final for money: delivered with one charge kept, or nothing kept and the order not taking one any more or unpaid. */
const settled = (o: Outcome): boolean =>
  (DELIVERED.includes(o.orderStatus) && o.kept === 1) ||
  (!DELIVERED.includes(o.orderStatus) && o.kept === 0 && o.sessionStatus !== 'complete_in_progress');

/** Runs the drill (see the module comment). */
export async function run(args: Map<string, string>): Promise<void> {
  const sessions = Number(args.get('sessions') ?? 24);
  const platforms = Number(args.get('platforms') ?? 3);
  const kills = Number(args.get('kills') ?? 3);
  const seed = Number(args.get('seed') ?? 37);
  const deadlineSeconds = Number(args.get('deadline-seconds') ?? 60);
  const boundSeconds = Number(args.get('bound-seconds') ?? 120);
  const keep = args.has('keep');
  const rng = seededRandom(seed);
  const t0 = Date.now();
  const log = logger(t0);
  const problems: string[] = [];
  let figures: Record<string, unknown> | undefined;
  const stack = await startDrillStack({
    env: {
      PAYMENT_DEADLINE_SECONDS: String(deadlineSeconds),
      RATE_LIMIT_BURST_PER_SECOND: '0',
      RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0',
    },
  });
  let ok = false;
  try {
    const base = stack.apis[0]?.url ?? '';
    const keys: string[] = [];
    for (let p = 0; p < platforms; p++) {
      const issued = await call(
        base,
        'POST',
        '/api/v1/acp/platforms',
        { name: `acp-kill-${p}` },
        { authorization: `Bearer ${OPERATOR_KEY}` },
      );
      if (issued.status !== 201) throw new Error(`platform ${p}: ${issued.status} ${JSON.stringify(issued.body)}`);
      keys.push(issued.body.api_key as string);
    }
    const buyers: Buyer[] = [];
    for (let i = 0; i < sessions; i++) {
      const agent = `acpkill-${i}`;
      const agentKey = await fundedAgent(base, agent, WALLET_MICROS / 1e6);
      const platformKey = keys[i % keys.length]!;
      const created = await call(
        base,
        'POST',
        '/checkout_sessions',
        {
          line_items: [{ id: AUTOMATION.service_id }],
          currency: 'usd',
          capabilities: {},
          metadata: { inputs: AUTOMATION.inputs },
        },
        { authorization: `Bearer ${platformKey}`, ...ACP, 'idempotency-key': `acpkill-create-${seed}-${i}` },
      );
      if (created.status !== 201) throw new Error(`session ${i}: ${created.status} ${JSON.stringify(created.body)}`);
      const session = created.body.id as string;
      const token = await call(
        base,
        'POST',
        '/agentic_commerce/delegate_payment',
        {
          allowance: {
            reason: 'one_time',
            max_amount: 100_00,
            currency: 'usd',
            checkout_session_id: session,
            merchant_id: 'agent-commerce',
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          },
          risk_signals: [],
          metadata: { source: 'acp-kill' },
        },
        { authorization: `Bearer ${agentKey}`, ...ACP, 'idempotency-key': `acpkill-token-${seed}-${i}` },
      );
      if (token.status !== 201) throw new Error(`token ${i}: ${token.status} ${JSON.stringify(token.body)}`);
      buyers.push({
        i,
        agent,
        platformKey,
        session,
        token: token.body.id as string,
        client: CLIENTS[i % CLIENTS.length]!,
        answers: [],
      });
    }
    log(
      `${platforms} platforms, ${sessions} sessions ready (clients: once, twice at once, retrying), wallets $100 each`,
    );

    const complete = (b: Buyer, n: number): Promise<Answer> =>
      call(
        base,
        'POST',
        `/checkout_sessions/${b.session}/complete`,
        {
          payment_data: {
            handler_id: 'agent_wallet',
            instrument: { type: 'wallet_token', credential: { type: 'spt', token: b.token } },
          },
        },
        { authorization: `Bearer ${b.platformKey}`, ...ACP, 'idempotency-key': `acpkill-complete-${seed}-${b.i}-${n}` },
        30_000,
      );
    const send = async (b: Buyer): Promise<void> => {
      if (b.client === 'twice') {
        b.answers.push(...(await Promise.all([complete(b, 0), complete(b, 1)])));
        return;
      }
      let a = await complete(b, 0);
      // The retrying platform retries a cut, 5xx or in-flight answer with the same key (the API restarts in seconds).
      for (let r = 0; b.client === 'retry' && r < 160 && (a.status === 0 || a.status >= 500 || a.status === 409); r++) {
        await sleep(750);
        a = await complete(b, 0);
      }
      b.answers.push(a);
    };

    // The kill plan: the sessions leave in waves, one per kill; each wave's kill falls a seeded moment after its
    // completes left (before, during or after the commitment, the order's start and the charge), on the API, the
    // worker or both, restarted at once. No wave is sent while a process is down.
    const waves = Math.max(1, kills);
    const killed: string[] = [];
    const sent: Promise<void>[] = [];
    const start = Date.now();
    for (let w = 0; w < waves; w++) {
      const wave = buyers.filter((b) => b.i % waves === w);
      sent.push(...wave.map(send));
      if (w >= kills) continue;
      const afterMs = rng.int(20, 1_500);
      const victim = rng.pick(['api', 'worker', 'both'] as const);
      await sleep(afterMs);
      const at = Date.now() - start;
      if (victim !== 'worker') await stack.apis[0]!.kill();
      if (victim !== 'api') await stack.workers[0]!.kill();
      if (victim !== 'worker') await stack.startApi(0);
      if (victim !== 'api') await stack.startWorker(0);
      killed.push(
        `${victim} ${afterMs} ms after wave ${w + 1} (${wave.length} sessions), back in ${Date.now() - start - at} ms`,
      );
    }
    await Promise.all(sent);
    const restartedAt = Date.now();
    const tally: Record<string, number> = {};
    for (const b of buyers)
      for (const a of b.answers) {
        const k = `${b.client} ${a.status}${a.status === 200 ? ` ${String(a.body.status)}` : ''}`;
        tally[k] = (tally[k] ?? 0) + 1;
      }
    log(`kills: ${killed.join('; ')}; clients heard ${JSON.stringify(tally)}`);

    const judge = async (): Promise<{ audit: BooksAudit; outcomes: Outcome[] }> => {
      const audit = await auditBooks(stack);
      const db = (await stack.mongo()).db(stack.dbName);
      const docs = await db
        .collection<{ _id: string; status: string; order_id: string }>('checkout_sessions')
        .find({ _id: { $in: buyers.map((b) => b.session) } })
        .toArray();
      const byId = new Map(docs.map((d) => [d._id, d]));
      const orders = new Map(audit.orders.map((o) => [o._id, o]));
      const outcomes = buyers.map((b): Outcome => {
        const doc = byId.get(b.session);
        const orderId = doc?.order_id ?? '';
        const order = orders.get(orderId);
        const charges = audit.charges.get(orderId) ?? [];
        return {
          session: b.session,
          client: b.client,
          sessionStatus: doc?.status ?? 'missing',
          order: orderId,
          orderStatus: order?.status ?? 'none',
          kept: charges.filter((c) => !c.returned).length,
          returned: charges.filter((c) => c.returned).length,
          orderPaid: Boolean(order?.payment),
        };
      });
      return { audit, outcomes };
    };
    let last = await judge();
    while (Date.now() - restartedAt < boundSeconds * 1000) {
      if (last.outcomes.every(settled)) break;
      await sleep(1_000);
      last = await judge();
    }
    const settledMs = Date.now() - restartedAt;
    const unsettled = last.outcomes.filter((o) => !settled(o));
    if (unsettled.length > 0)
      problems.push(
        `${unsettled.length} sessions not settled ${boundSeconds} s after the last restart: ${JSON.stringify(unsettled.slice(0, 5))}`,
      );
    // The session finisher marks a paid session completed a moment after its order took the payment.
    await sleep(2_000);
    const end = await judge();
    problems.push(...end.audit.problems);
    for (const o of end.outcomes) {
      if (o.kept > 1) problems.push(`session ${o.session}: its order ${o.order} kept ${o.kept} charges`);
      if (o.kept === 1 && !DELIVERED.includes(o.orderStatus))
        problems.push(`session ${o.session}: charged, its order ${o.order} is ${o.orderStatus}`);
      if ((o.sessionStatus === 'completed') !== o.orderPaid)
        problems.push(
          `session ${o.session} is ${o.sessionStatus}, its order ${o.order || '(none)'} ${o.orderPaid ? 'holds' : 'holds no'} payment`,
        );
    }
    buyers.forEach((b, i) => {
      const o = end.outcomes[i]!;
      if (
        b.answers.some((a) => a.status === 200 && a.body.status === 'completed') &&
        !DELIVERED.includes(o.orderStatus)
      )
        problems.push(`session ${b.session}: its client was told completed, the order is ${o.orderStatus}`);
      if (b.answers.some((a) => a.status >= 500 && a.status !== 503))
        problems.push(`session ${b.session}: answered ${b.answers.map((a) => a.status).join(', ')}`);
    });
    problems.push(...(await walletsAgree(stack, buyers, end.outcomes)));
    const books = await operatorReconciliation(base);
    if (books.status !== 200 || books.body.ok !== true)
      problems.push(
        `reconciliation: ${books.status} ${JSON.stringify(books.body.discrepancies ?? books.body).slice(0, 600)}`,
      );
    const count = (p: (o: Outcome) => boolean) =>
      Object.fromEntries(CLIENTS.map((c) => [c, end.outcomes.filter((o) => o.client === c && p(o)).length]));
    figures = {
      seed,
      sessions,
      platforms,
      kills: killed,
      answers: tally,
      delivered_with_one_charge: count((o) => DELIVERED.includes(o.orderStatus) && o.kept === 1),
      charge_given_back: count((o) => o.returned > 0 && o.kept === 0),
      never_charged: count((o) => o.kept + o.returned === 0),
      charged_twice: end.outcomes.filter((o) => o.kept > 1).length,
      sessions_by_status: end.outcomes.reduce<Record<string, number>>((m, o) => {
        m[o.sessionStatus] = (m[o.sessionStatus] ?? 0) + 1;
        return m;
      }, {}),
      all_settled_after_restart_ms: unsettled.length === 0 ? settledMs : null,
      books: end.audit.figures,
      reconciliation_ok: books.body.ok === true,
    };
    log(`outcomes: ${JSON.stringify(figures)}`);
    ok = problems.length === 0;
  } finally {
    await stack.stop({ keepData: keep || !ok });
  }
  finish('acp-kill', figures ?? {}, problems);
}

/** No money created or lost: each buyer's wallet holds $100 less what its session's order kept from it. */
async function walletsAgree(stack: DrillStack, buyers: Buyer[], outcomes: Outcome[]): Promise<string[]> {
  const db = (await stack.mongo()).db(stack.dbName);
  const wallets = await db
    .collection<{ _id: string; balance_micros: number }>('wallets')
    .find({ _id: { $in: buyers.map((b) => b.agent) } })
    .toArray();
  const orders = await db
    .collection<{ _id: string; amount_micros: number }>('orders')
    .find({ _id: { $in: outcomes.map((o) => o.order) } })
    .toArray();
  const price = new Map(orders.map((o) => [o._id, o.amount_micros]));
  const out: string[] = [];
  buyers.forEach((b, i) => {
    const o = outcomes[i]!;
    const expected = WALLET_MICROS - o.kept * (price.get(o.order) ?? 0);
    const held = wallets.find((w) => w._id === b.agent)?.balance_micros;
    if (held !== expected)
      out.push(`wallet ${b.agent} holds ${held} micro-USD, its session's outcome says ${expected}`);
  });
  return out;
}
