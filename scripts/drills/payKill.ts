/**
 * Drill `pay-kill` (issue 24 §2): the outside tester's second case. N wallet orders (default 30), each paid by its own
 * client with ONE `confirm_payment` that is never retried, all at once; the whole stack (Temporal, PostgreSQL +
 * FerretDB, worker, API) SIGKILLed `--kill-after-ms` later (default 1200), restarted on the same data with a short
 * payment deadline. No client sends anything again. Then every order must end either delivered with exactly one debit,
 * or with no debit left (never charged and still payable, or expired: none taken, or taken and refunded), within
 * `--bound-seconds` (default 90) of the restart, and the service's own reconciliation must find the books `ok`.
 *
 * Options: --orders N, --kill-after-ms N, --deadline-seconds N (payment deadline, default 60), --bound-seconds N,
 * --keep.
 */
import {
  AUTOMATION,
  OPERATOR_KEY,
  call,
  finish,
  fundedAgent,
  logger,
  newStats,
  retrying,
  sleep,
  startDrillStack,
  type Answer,
} from './lib';

const PRICE_MICROS = 69_000_000;

/** One order's end: its read-model status and the wallet movements of its own transaction ids. */
interface Outcome {
  id: string;
  agent: string;
  status: string;
  debits: number;
  refunds: number;
}

/** Runs the drill (see the module comment). */
export async function run(args: Map<string, string>): Promise<void> {
  const orders = Number(args.get('orders') ?? 30);
  const killAfterMs = Number(args.get('kill-after-ms') ?? 1200);
  const deadlineSeconds = Number(args.get('deadline-seconds') ?? 60);
  const boundSeconds = Number(args.get('bound-seconds') ?? 90);
  const keep = args.has('keep');
  const t0 = Date.now();
  const log = logger(t0);
  const problems: string[] = [];
  let figures: Record<string, unknown> | undefined;
  const stack = await startDrillStack({ env: { PAYMENT_DEADLINE_SECONDS: String(deadlineSeconds) } });
  let ok = false;
  try {
    const base = stack.apis[0]?.url ?? '';
    const buyers: { id: string; agent: string; key: string }[] = [];
    for (let i = 0; i < orders; i++) {
      const agent = `paykill-${i}`;
      const key = await fundedAgent(base, agent, 100);
      const created = await retrying(
        [base],
        'POST',
        '/api/v1/orders',
        { ...AUTOMATION, agent_id: agent },
        {},
        newStats(),
      );
      if (created.status !== 201) throw new Error(`order ${i}: ${created.status} ${JSON.stringify(created.body)}`);
      buyers.push({ id: created.body.order_id as string, agent, key });
    }
    log(`${orders} orders created, one funded wallet each ($100)`);

    // Every client sends its one confirm_payment now and never again.
    const answers: Promise<Answer>[] = buyers.map((b) =>
      call(base, 'POST', `/api/v1/orders/${b.id}/confirm_payment`, {}, { authorization: `Bearer ${b.key}` }, 30_000),
    );
    await sleep(killAfterMs);
    const killedAt = Date.now();
    await stack.killAll();
    const got = await Promise.all(answers);
    const tally: Record<string, number> = {};
    for (const a of got) tally[String(a.status)] = (tally[String(a.status)] ?? 0) + 1;
    log(
      `SIGKILL of the whole stack ${killAfterMs} ms after the payments were sent; clients got ${JSON.stringify(tally)}`,
    );
    await stack.startAll();
    const restartedAt = Date.now();
    log(`restarted in ${restartedAt - killedAt} ms; no client retries`);

    // Until every order is final for money: delivered (or later) with its debit, or expired with none kept.
    const db = (await stack.mongo()).db(stack.dbName);
    const outcomes = async (): Promise<Outcome[]> => {
      const docs = await db
        .collection<{ _id: string; status: string }>('orders')
        .find({ _id: { $in: buyers.map((b) => b.id) } })
        .project<{ _id: string; status: string }>({ status: 1 })
        .toArray();
      const status = new Map(docs.map((d) => [d._id, d.status]));
      const entries = await db
        .collection<{ tx_id: string; type: string }>('wallet_entries')
        .find({ agent_id: { $in: buyers.map((b) => b.agent) } })
        .project<{ tx_id: string; type: string }>({ tx_id: 1, type: 1 })
        .toArray();
      // A kill between a wallet's update and its ledger entry's write leaves the movement only in the wallet's
      // `recent` list (the entry is written on the next read): it is a movement all the same.
      const wallets = await db
        .collection<{ _id: string; recent: { tx_id: string; type: string }[] }>('wallets')
        .find({ _id: { $in: buyers.map((b) => b.agent) } })
        .project<{ recent: { tx_id: string; type: string }[] }>({ recent: 1 })
        .toArray();
      const seen = new Set<string>();
      const moves = [...entries, ...wallets.flatMap((w) => w.recent)].filter((m) => {
        const key = `${m.type} ${m.tx_id}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return buyers.map((b) => ({
        id: b.id,
        agent: b.agent,
        status: status.get(b.id) ?? 'missing',
        debits: moves.filter((m) => m.tx_id === `order:${b.id}` && m.type === 'debit').length,
        refunds: moves.filter((m) => m.tx_id === `refund:${b.id}` && m.type === 'credit').length,
      }));
    };
    const settled = (o: Outcome): boolean =>
      (['delivered', 'accepted'].includes(o.status) && o.debits === 1 && o.refunds === 0) ||
      (o.status === 'expired' && (o.debits === 0 || o.refunds === 1)) ||
      // Never charged (its Update died before the debit): nothing taken, payable until its deadline.
      (o.status === 'awaiting_payment' && o.debits === 0);
    const deliveredAfter = new Map<string, number>();
    let last: Outcome[] = [];
    while (Date.now() - restartedAt < boundSeconds * 1000) {
      last = await outcomes();
      for (const o of last) {
        if (['delivered', 'accepted'].includes(o.status) && !deliveredAfter.has(o.id))
          deliveredAfter.set(o.id, Date.now() - restartedAt);
      }
      if (last.every(settled)) break;
      await sleep(1_000);
    }
    const finalMs = Date.now() - restartedAt;
    const unsettled = last.filter((o) => !settled(o));
    if (unsettled.length > 0)
      problems.push(
        `${unsettled.length} orders not settled ${boundSeconds} s after the restart: ${JSON.stringify(unsettled.slice(0, 5))}`,
      );
    const doubles = last.filter((o) => o.debits > 1);
    if (doubles.length > 0) problems.push(`${doubles.length} orders debited more than once`);
    const balances = await db
      .collection<{ _id: string; balance_micros: number }>('wallets')
      .find({ _id: { $in: buyers.map((b) => b.agent) } })
      .toArray();
    const expectedTotal = last.reduce((sum, o) => sum + 100_000_000 - (o.debits - o.refunds) * PRICE_MICROS, 0);
    const total = balances.reduce((sum, w) => sum + w.balance_micros, 0);
    if (total !== expectedTotal)
      problems.push(`wallets hold ${total} micro-USD, the orders' outcomes say ${expectedTotal}`);
    const books = await call(
      base,
      'POST',
      '/api/v1/operator/reconciliation',
      { repair: false, grace_seconds: 0 },
      { authorization: `Bearer ${OPERATOR_KEY}` },
      120_000,
    );
    if (books.status !== 200 || books.body.ok !== true)
      problems.push(
        `reconciliation: ${books.status} ${JSON.stringify(books.body.discrepancies ?? books.body).slice(0, 600)}`,
      );
    const count = (p: (o: Outcome) => boolean) => last.filter(p).length;
    const times = [...deliveredAfter.values()].sort((a, b) => a - b);
    figures = {
      orders: orders,
      kill_after_ms: killAfterMs,
      answers_before_kill: tally,
      debited: count((o) => o.debits === 1),
      delivered_with_one_debit: count((o) => ['delivered', 'accepted'].includes(o.status) && o.debits === 1),
      expired_without_charge: count((o) => o.status === 'expired' && o.debits === 0),
      unpaid_nothing_taken: count((o) => o.status === 'awaiting_payment' && o.debits === 0),
      expired_refunded: count((o) => o.status === 'expired' && o.debits === 1 && o.refunds === 1),
      debited_twice: doubles.length,
      delivered_after_restart_ms: times.length ? { first: times[0], last: times[times.length - 1] } : null,
      all_settled_after_restart_ms: unsettled.length === 0 ? finalMs : null,
      reconciliation_ok: books.body.ok === true,
    };
    log(`outcomes: ${JSON.stringify(figures)}`);
    ok = problems.length === 0;
  } finally {
    await stack.stop({ keepData: keep || !ok });
  }
  finish('pay-kill', figures ?? {}, problems);
}
