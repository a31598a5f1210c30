/**
 * Drill `pay-kill` (issue 24 §2): the outside tester's second case, on each rail. N orders (default 30), each paid by
 * its own client with ONE payment that is never retried, all at once; the whole stack (Temporal, PostgreSQL +
 * FerretDB, worker, API; the chain and the facilitator are not ours and stay up) SIGKILLed `--kill-after-ms` later
 * (default 1200), restarted on the same data with a short payment deadline. No client sends anything again.
 *
 * Rails (`--rail`, default `wallet`): `wallet` (`confirm_payment` from the agent's wallet), `x402` (`POST
 * /x402/orders/{id}` with an EIP-3009 authorization signed beforehand), `link` (a human's Pay on the payment-link
 * page, `POST /pay/orders/{id}`), or `mixed` (the three in turn).
 *
 * Then every order must end either delivered with exactly one charge kept, or with no charge kept (never charged and
 * still payable, or expired: none taken, or taken and given back), within `--bound-seconds` (default 90) of the
 * restart; an order whose client was told 200 must be delivered; the drill's own audit of the database
 * (`auditBooks`: wallets = ledgers, link transactions, x402 settlements = the buyer's spend on chain) must find
 * nothing, and so must the service's reconciliation.
 *
 * Options: --rail R, --orders N, --kill-after-ms N, --deadline-seconds N (payment deadline, default 60),
 * --bound-seconds N, --keep.
 */
import { ANVIL_ADDRESSES, usdcBalanceOf } from '../lib/chain';
import {
  AUTOMATION,
  auditBooks,
  call,
  finish,
  fundedAgent,
  logger,
  mineBlocks,
  newStats,
  operatorReconciliation,
  postForm,
  retrying,
  sleep,
  startDrillStack,
  unusedAuthorizations,
  x402Sign,
  type Answer,
  type BooksAudit,
  type DrillStack,
} from './lib';

const PRICE_MICROS = 69_000_000;
const WALLET_MICROS = 100_000_000;
const RAILS = ['wallet', 'x402', 'link'] as const;
type Rail = (typeof RAILS)[number];

/** One client: its order, its rail and its one payment, sent when called. */
interface Buyer {
  id: string;
  rail: Rail;
  agent?: string;
  pay: () => Promise<Answer>;
}

/** One order's end: its read-model status and the charges it keeps (not given back) or gave back. */
interface Outcome {
  id: string;
  rail: Rail;
  status: string;
  kept: number;
  returned: number;
}

const DELIVERED = ['delivered', 'accepted'];

/** Final for money: delivered with one charge kept, or nothing kept (expired, or never charged and still payable). */
const settled = (o: Outcome): boolean =>
  (DELIVERED.includes(o.status) && o.kept === 1) ||
  ((o.status === 'expired' || o.status === 'awaiting_payment') && o.kept === 0);

/** Parses `--rail`: one rail, or `mixed` for the three in turn. */
function railsOf(arg: string | undefined): Rail[] {
  if (arg === undefined) return ['wallet'];
  if (arg === 'mixed') return [...RAILS];
  if ((RAILS as readonly string[]).includes(arg)) return [arg as Rail];
  throw new Error(`--rail must be one of ${RAILS.join(', ')} or mixed, got ${arg}`);
}

/** Runs the drill (see the module comment). */
export async function run(args: Map<string, string>): Promise<void> {
  const rails = railsOf(args.get('rail'));
  const orders = Number(args.get('orders') ?? 30);
  const killAfterMs = Number(args.get('kill-after-ms') ?? 1200);
  const deadlineSeconds = Number(args.get('deadline-seconds') ?? 60);
  const boundSeconds = Number(args.get('bound-seconds') ?? 90);
  const keep = args.has('keep');
  const t0 = Date.now();
  const log = logger(t0);
  const problems: string[] = [];
  let figures: Record<string, unknown> | undefined;
  const x402 = rails.includes('x402');
  const stack = await startDrillStack({
    x402,
    env: {
      PAYMENT_DEADLINE_SECONDS: String(deadlineSeconds),
      RATE_LIMIT_BURST_PER_SECOND: '0',
      RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0',
    },
  });
  const chain = stack.x402;
  const ticker = chain ? mineBlocks(chain.rpcUrl) : undefined;
  const spend = async (): Promise<bigint> =>
    chain ? usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer) : 0n;
  let ok = false;
  try {
    const base = stack.apis[0]?.url ?? '';
    const spendBefore = await spend();
    const buyers: Buyer[] = [];
    for (let i = 0; i < orders; i++) {
      const rail = rails[i % rails.length]!;
      if (rail === 'link') {
        const email = `paykill-${i}@example.com`;
        const c = await postForm(`${base}/pay/services/${AUTOMATION.service_id}`, { ...AUTOMATION.inputs, email });
        const location = c.headers.get('location');
        if (c.status !== 302 || !location) throw new Error(`link order ${i}: ${c.status} ${c.error ?? ''}`);
        const url = new URL(location, base);
        const id = url.pathname.split('/').pop()!;
        const secret = url.searchParams.get('secret') ?? '';
        buyers.push({ id, rail, pay: () => postForm(`${base}/pay/orders/${id}`, { secret, email }, 30_000) });
        continue;
      }
      const agent = `paykill-${i}`;
      const key = await fundedAgent(base, agent, WALLET_MICROS / 1e6);
      const auth = { authorization: `Bearer ${key}` };
      const created = await retrying(
        [base],
        'POST',
        '/api/v1/orders',
        { ...AUTOMATION, agent_id: agent },
        {},
        newStats(),
      );
      if (created.status !== 201) throw new Error(`order ${i}: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.order_id as string;
      if (rail === 'wallet') {
        buyers.push({
          id,
          rail,
          agent,
          pay: () => call(base, 'POST', `/api/v1/orders/${id}/confirm_payment`, {}, auth, 30_000),
        });
      } else {
        // Signed before the moment of payment, so that every client's one request leaves at once.
        const signed = await x402Sign(base, 'POST', `/x402/orders/${id}`, auth);
        const signature = signed.signatures[0];
        if (!signature) throw new Error(`x402 order ${i}: challenge ${signed.challenge.status}`);
        buyers.push({
          id,
          rail,
          agent,
          pay: () => call(base, 'POST', `/x402/orders/${id}`, undefined, { ...auth, ...signature }, 30_000),
        });
      }
    }
    const perRail = Object.fromEntries(rails.map((r) => [r, buyers.filter((b) => b.rail === r).length]));
    log(`${orders} orders created (${JSON.stringify(perRail)}); agents' wallets hold $100 each`);

    // Every client sends its one payment now and never again.
    const answers = buyers.map((b) => b.pay());
    await sleep(killAfterMs);
    const killedAt = Date.now();
    await stack.killAll();
    const got = await Promise.all(answers);
    const tally: Record<string, number> = {};
    got.forEach((a, i) => {
      const k = `${buyers[i]!.rail} ${a.status}`;
      tally[k] = (tally[k] ?? 0) + 1;
    });
    log(
      `SIGKILL of the whole stack ${killAfterMs} ms after the payments were sent; clients got ${JSON.stringify(tally)}`,
    );
    await stack.startAll();
    const restartedAt = Date.now();
    log(`restarted in ${restartedAt - killedAt} ms; no client retries`);

    // Until every order is final for money and no x402 claim whose authorization was used is still open.
    const judge = async (final: boolean) => {
      const spent = final ? spendBefore - (await spend()) : undefined;
      const audit = await auditBooks(
        stack,
        spent !== undefined && chain ? { buyer: ANVIL_ADDRESSES.buyer, buyerSpentMicros: spent } : {},
      );
      const unused = chain ? await unusedAuthorizations(chain.rpcUrl, audit.unsettledX402) : new Set<string>();
      const status = new Map(audit.orders.map((o) => [o._id, o.status]));
      const outcomes: Outcome[] = buyers.map((b) => {
        const charges = audit.charges.get(b.id) ?? [];
        return {
          id: b.id,
          rail: b.rail,
          status: status.get(b.id) ?? 'missing',
          kept: charges.filter((c) => !c.returned).length,
          returned: charges.filter((c) => c.returned).length,
        };
      });
      const open = [...audit.unsettled.keys()].filter((k) => !unused.has(k));
      return { audit, outcomes, open, unused };
    };
    const deliveredAfter = new Map<string, number>();
    let last = await judge(false);
    while (Date.now() - restartedAt < boundSeconds * 1000) {
      for (const o of last.outcomes)
        if (DELIVERED.includes(o.status) && !deliveredAfter.has(o.id))
          deliveredAfter.set(o.id, Date.now() - restartedAt);
      if (last.outcomes.every(settled) && last.open.length === 0) break;
      await sleep(1_000);
      last = await judge(false);
    }
    const finalMs = Date.now() - restartedAt;
    const unsettled = last.outcomes.filter((o) => !settled(o));
    if (unsettled.length > 0)
      problems.push(
        `${unsettled.length} orders not settled ${boundSeconds} s after the restart: ${JSON.stringify(unsettled.slice(0, 5))}`,
      );
    if (last.open.length > 0)
      problems.push(
        `${last.open.length} x402 entries still open with their authorization used: ${last.open.join(', ')}`,
      );
    const end = await judge(true);
    problems.push(...end.audit.problems);
    const doubles = end.outcomes.filter((o) => o.kept > 1);
    if (doubles.length > 0) problems.push(`${doubles.length} orders charged more than once and kept`);
    got.forEach((a, i) => {
      const o = end.outcomes[i]!;
      if (a.status === 200 && !DELIVERED.includes(o.status))
        problems.push(`${o.rail} order ${o.id}: its client was told 200, the order is ${o.status}`);
    });
    problems.push(...(await walletsAgree(stack, buyers, end.audit)));
    const books = await operatorReconciliation(base);
    if (books.status !== 200 || books.body.ok !== true)
      problems.push(
        `reconciliation: ${books.status} ${JSON.stringify(books.body.discrepancies ?? books.body).slice(0, 600)}`,
      );
    const times = [...deliveredAfter.values()].sort((a, b) => a - b);
    const byRail = (p: (o: Outcome) => boolean) =>
      Object.fromEntries(rails.map((r) => [r, end.outcomes.filter((o) => o.rail === r && p(o)).length]));
    figures = {
      rails,
      orders,
      kill_after_ms: killAfterMs,
      answers_before_kill: tally,
      charged: byRail((o) => o.kept + o.returned > 0),
      delivered_with_one_charge: byRail((o) => DELIVERED.includes(o.status) && o.kept === 1),
      expired_without_charge: byRail((o) => o.status === 'expired' && o.kept + o.returned === 0),
      unpaid_nothing_taken: byRail((o) => o.status === 'awaiting_payment' && o.kept + o.returned === 0),
      charge_given_back: byRail((o) => o.returned > 0 && o.kept === 0),
      charged_twice: doubles.length,
      x402_claims_open_nothing_moved: end.unused.size,
      delivered_after_restart_ms: times.length ? { first: times[0], last: times[times.length - 1] } : null,
      all_settled_after_restart_ms: unsettled.length === 0 ? finalMs : null,
      books: end.audit.figures,
      reconciliation_ok: books.body.ok === true,
    };
    log(`outcomes: ${JSON.stringify(figures)}`);
    ok = problems.length === 0;
  } finally {
    if (ticker) clearInterval(ticker);
    await stack.stop({ keepData: keep || !ok });
  }
  finish('pay-kill', figures ?? {}, problems);
}

/**
 * No money created or lost in the agents' wallets: each holds its $100 less $69 for each charge of its order it kept
 * from the wallet (a wallet-rail order's kept debit). Other rails leave the wallet alone.
 */
async function walletsAgree(stack: DrillStack, buyers: Buyer[], audit: BooksAudit): Promise<string[]> {
  const agents = buyers.filter((b) => b.agent).map((b) => b.agent!);
  const wallets = await (
    await stack.mongo()
  )
    .db(stack.dbName)
    .collection<{ _id: string; balance_micros: number }>('wallets')
    .find({ _id: { $in: agents } })
    .toArray();
  const total = wallets.reduce((sum, w) => sum + w.balance_micros, 0);
  const expected = buyers.reduce((sum, b) => {
    if (!b.agent) return sum;
    const walletKept = (audit.charges.get(b.id) ?? []).filter((c) => c.rail === 'agent_wallet' && !c.returned).length;
    return sum + WALLET_MICROS - walletKept * PRICE_MICROS;
  }, 0);
  return total === expected ? [] : [`wallets hold ${total} micro-USD, the orders' outcomes say ${expected}`];
}
