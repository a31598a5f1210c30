/**
 * Drill `duplicate-updates` (issue 24 §1): what an outside tester did to find the bug, as a drill. Hundreds of wallet
 * orders, each paid with two `confirm_payment` calls sent at the same instant (a client retry racing its first call),
 * on a worker whose workflow cache is far smaller than the orders in flight (`WORKER_MAX_CACHED_WORKFLOWS`, default 4
 * here), so histories are replayed all the time while the drill runs. Then one more `confirm_payment` and a review per
 * order (every one must answer 200: a broken workflow answers 503 for good), then every order history is fetched and
 * replayed with `Worker.runReplayHistories` against the workflow code, and the books are checked: one debit per order,
 * and the service's own reconciliation finds nothing.
 *
 * Options: --orders N (default 200), --cache N (default 4), --parallel N (orders paid at once, default 20), --keep.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import {
  AUTOMATION,
  OPERATOR_KEY,
  call,
  debitsByTx,
  finish,
  fundedAgent,
  logger,
  newStats,
  retrying,
  startDrillStack,
  type Answer,
} from './lib';
import { orderWorkflowId } from '../../workflows/shared';

const PRICE_USD = 69;

/** Counts answers by status code. */
function tally(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) out[String(a.status)] = (out[String(a.status)] ?? 0) + 1;
  return out;
}

/** Runs `fn` over `items`, `parallel` at a time; answers in item order. */
async function pool<T, R>(items: T[], parallel: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, lane));
  return out;
}

/** Runs the drill with `--orders`, `--cache`, `--parallel` and `--keep` (see the module comment). */
export async function run(args: Map<string, string>): Promise<void> {
  const orders = Number(args.get('orders') ?? 200);
  const cache = Number(args.get('cache') ?? 4);
  const parallel = Number(args.get('parallel') ?? 20);
  const keep = args.has('keep');
  const t0 = Date.now();
  const log = logger(t0);
  const problems: string[] = [];
  const stack = await startDrillStack({ env: { WORKER_MAX_CACHED_WORKFLOWS: String(cache) } });
  let ok = false;
  let figures: Record<string, unknown> | undefined;
  try {
    const base = stack.apis[0]?.url ?? '';
    const agents = Array.from({ length: 10 }, (_, i) => `dup-agent-${i}`);
    const keys = new Map<string, string>();
    const perAgent = Math.ceil(orders / agents.length);
    for (const a of agents) keys.set(a, await fundedAgent(base, a, perAgent * PRICE_USD));
    log(`stack up; ${agents.length} wallets funded; worker cache ${cache}`);

    const created = await pool(
      Array.from({ length: orders }, (_, i) => agents[i % agents.length] as string),
      parallel,
      // Creation is not under test: it waits out the rate limit (429 Retry-After) as a client would.
      async (agent) => ({
        agent,
        res: await retrying([base], 'POST', '/api/v1/orders', { ...AUTOMATION, agent_id: agent }, {}, newStats()),
      }),
    );
    const ids = created
      .filter((c) => c.res.status === 201)
      .map((c) => ({ id: c.res.body.order_id as string, agent: c.agent }));
    if (ids.length !== orders)
      problems.push(`created ${ids.length} of ${orders} orders: ${JSON.stringify(tally(created.map((c) => c.res)))}`);
    log(`${ids.length} orders created`);

    const auth = (agent: string) => ({ authorization: `Bearer ${keys.get(agent)}` });
    const pay = (o: { id: string; agent: string }) =>
      call(base, 'POST', `/api/v1/orders/${o.id}/confirm_payment`, {}, auth(o.agent), 60_000);
    const twice = (await pool(ids, parallel, (o) => Promise.all([pay(o), pay(o)]))).flat();
    log(`two concurrent confirm_payment per order: ${JSON.stringify(tally(twice))}`);
    const third = await pool(ids, parallel, pay);
    log(`one more confirm_payment per order: ${JSON.stringify(tally(third))}`);
    if (third.some((a) => a.status !== 200)) problems.push(`third confirm_payment: ${JSON.stringify(tally(third))}`);
    const reviews = await pool(ids, parallel, (o) =>
      call(base, 'POST', `/api/v1/orders/${o.id}/review`, { action: 'accept' }, auth(o.agent), 60_000),
    );
    log(`review accept per order: ${JSON.stringify(tally(reviews))}`);
    if (reviews.some((a) => a.status !== 200)) problems.push(`review accept: ${JSON.stringify(tally(reviews))}`);

    // Every history, replayed against the workflow code.
    const connection = await Connection.connect({ address: stack.temporalAddress });
    const client = new Client({ connection });
    const histories = await pool(ids, 8, async (o) => ({
      workflowId: orderWorkflowId(o.id),
      history: await client.workflow.getHandle(orderWorkflowId(o.id)).fetchHistory(),
    }));
    await connection.close();
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
    });
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const failed: string[] = [];
    let replayed = 0;
    for await (const r of Worker.runReplayHistories({ workflowBundle }, histories)) {
      replayed += 1;
      if (r.error) failed.push(`${r.workflowId}: ${String(r.error).slice(0, 200)}`);
    }
    log(`replayed ${replayed} histories: ${failed.length} failed`);
    if (failed.length > 0)
      problems.push(`${failed.length} histories do not replay, e.g. ${failed.slice(0, 3).join('; ')}`);

    const debits = await debitsByTx(
      stack,
      ids.map((o) => `order:${o.id}`),
    );
    const wrong = [...debits].filter(([, n]) => n !== 1);
    if (wrong.length > 0)
      problems.push(`${wrong.length} orders not debited exactly once, e.g. ${JSON.stringify(wrong.slice(0, 3))}`);
    const books = await call(
      base,
      'POST',
      '/api/v1/operator/reconciliation',
      { repair: false, grace_seconds: 0 },
      {
        authorization: `Bearer ${OPERATOR_KEY}`,
      },
      120_000,
    );
    if (books.status !== 200 || books.body.ok !== true)
      problems.push(
        `reconciliation: ${books.status} ${JSON.stringify(books.body.discrepancies ?? books.body).slice(0, 600)}`,
      );
    log(`books: ${books.status} ok=${String(books.body.ok)}; debits ${debits.size}, each once: ${wrong.length === 0}`);

    ok = problems.length === 0;
    figures = {
      orders: ids.length,
      worker_cache: cache,
      concurrent_pairs: tally(twice),
      third_confirm: tally(third),
      review_accept: tally(reviews),
      histories_replayed: replayed,
      histories_failing_replay: failed.length,
      debits_exactly_once: debits.size - wrong.length,
      reconciliation_ok: books.body.ok === true,
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  } finally {
    await stack.stop({ keepData: keep || !ok });
  }
  finish('duplicate-updates', figures ?? {}, problems);
}
