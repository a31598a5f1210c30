/**
 * Drill `stack-kill` (issue 14): the whole stack (Temporal dev server on its SQLite file, PostgreSQL + FerretDB with
 * fsync on, worker, API) SIGKILLed at once with orders in every state, then started again on the same data folder.
 * Before the kill: orders awaiting payment, orders delivered and awaiting review, an expert-delivery order in
 * engineering, a monthly subscription active, and a load of buyers creating and paying orders and a batch paid at once
 * (the kill comes as soon as the first of the batch is paid: the rest are paying or fulfilling; the clients retry as the API asks, with their Idempotency-Keys). After the
 * restart: every paid order delivered, the unpaid ones still awaiting payment and payable, the expert order still in
 * engineering, the subscription still active, one wallet debit per paid order (ledger) and every webhook event of
 * these orders received at least once (duplicates allowed).
 *
 * x402 settlement in flight: with the wallet batch, x402 payments of orders and of micro items are sent by buyers that
 * resend the same signed payment with its payment-identifier until they get an answer (lib.ts `x402Purchase`). After
 * the restart each of those orders is delivered with exactly one settled x402 payment, each item purchase got its
 * goods, and the buyer's on-chain spending equals what the ledger says settled.
 *
 * Options: --load-seconds N (seconds of load before the kill, default 8), --batch N (orders paid at once just before
 * the kill, default 12), --keep.
 */
import {
  AUTOMATION,
  call,
  debitsByTx,
  finish,
  fundedAgent,
  logger,
  newStats,
  orderFlow,
  registerWebhook,
  retrying,
  since,
  sleep,
  startDrillStack,
  startWebhookCounter,
  statusCounts,
  x402Purchase,
  awaitUndelivered,
  until,
  waitDelivered,
  type OrderFlow,
  type X402Purchase,
} from './lib';
import { ANVIL_ADDRESSES, usdcBalanceOf } from '../lib/chain';
import { MICRO_ITEMS } from '../../src/products/micro';

const EXPERT = {
  service_id: 'robot-control-system',
  inputs: {
    robot_type: 'six-axis arm',
    controller: 'ROS 2 Humble',
    objective: 'pick and place parcels from a conveyor',
  },
};
const MONTHLY = {
  service_id: 'ai-receptionist',
  inputs: { business_name: 'Cedar Dental', contact_email: 'front@cedar.example', services: 'cleaning, whitening' },
};

const median = (xs: number[]): number | null =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : null;

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const loadMs = Number(args.get('load-seconds') ?? 8) * 1000;
  const batch = Number(args.get('batch') ?? 12);
  log('starting Temporal, database, worker and API (separate processes, one data folder)');
  const stack = await startDrillStack({ x402: true });
  const api = stack.apis[0]!.url!;
  const problems: string[] = [];
  const figures: Record<string, unknown> = { data_dir: stack.dataDir };
  const hooks = await startWebhookCounter();
  try {
    const agent = 'drill-stack-kill';
    const key = await fundedAgent(api, agent, 1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    await registerWebhook(api, agent, key, hooks.url);
    const create = async (what: { service_id: string; inputs: Record<string, string> }): Promise<string> => {
      const c = await call(api, 'POST', '/api/v1/orders', { ...what, agent_id: agent }, auth);
      if (c.status !== 201) throw new Error(`create ${what.service_id}: ${c.status} ${JSON.stringify(c.body)}`);
      return c.body.order_id as string;
    };
    const pay = async (orderId: string): Promise<void> => {
      const p = await call(
        api,
        'POST',
        `/api/v1/orders/${orderId}/confirm_payment`,
        { rail: 'agent_wallet' },
        auth,
        60_000,
      );
      if (p.status !== 200) throw new Error(`pay ${orderId}: ${p.status} ${JSON.stringify(p.body)}`);
    };
    const order = async (orderId: string): Promise<Record<string, any> | undefined> => {
      const a = await call(api, 'GET', `/api/v1/orders/${orderId}`);
      return a.status === 200 ? a.body : undefined;
    };

    // 1. Orders at rest: awaiting payment, delivered awaiting review, expert in engineering, subscription active.
    const unpaid = [await create(AUTOMATION), await create(AUTOMATION), await create(AUTOMATION)];
    const reviewFlows = await Promise.all([
      orderFlow([api], agent, key, newStats()),
      orderFlow([api], agent, key, newStats()),
    ]);
    if (reviewFlows.some((f) => f.outcome !== 'delivered'))
      throw new Error(`setup: delivered orders ${JSON.stringify(reviewFlows)}`);
    const awaitingReview = reviewFlows.map((f) => f.orderId!);
    const expert = await create(EXPERT);
    await pay(expert);
    const subscription = await create(MONTHLY);
    await pay(subscription);
    const inEngineering = await until(
      async () => ((await order(expert))?.status === 'in_engineering' ? true : undefined),
      120_000,
    );
    const subActive = await until(
      async () => ((await order(subscription))?.subscription?.status === 'active' ? true : undefined),
      120_000,
    );
    if (!inEngineering || !subActive)
      throw new Error(`setup: expert in engineering ${!!inEngineering}, subscription active ${!!subActive}`);
    log(
      `at rest: ${unpaid.length} awaiting payment, ${awaitingReview.length} delivered awaiting review, expert ${expert} in engineering, subscription ${subscription} active`,
    );

    // 2. Load: a buyer flow every 300 ms, then a batch paid at once; the kill lands while they are paying or fulfilling.
    const stats = newStats();
    const flows: Promise<OrderFlow>[] = [];
    let loading = true;
    const load = (async () => {
      while (loading) {
        flows.push(orderFlow([api], agent, key, stats, 240_000));
        await sleep(300);
      }
    })();
    await sleep(loadMs);
    // The batch: created, then paid all at once (retrying as the API asks, one Idempotency-Key per order); the kill
    // comes as soon as the first of them is paid, so the others are paying or fulfilling.
    const batchIds: string[] = [];
    for (let i = 0; i < batch; i++) batchIds.push(await create(AUTOMATION));
    const x402Ids: string[] = [];
    for (let i = 0; i < Math.max(2, Math.floor(batch / 3)); i++) x402Ids.push(await create(AUTOMATION));
    const chain = stack.x402!;
    const spendBefore = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const batchPays = batchIds.map((id) =>
      retrying(
        [api],
        'POST',
        `/api/v1/orders/${id}/confirm_payment`,
        { rail: 'agent_wallet' },
        { ...auth, 'idempotency-key': `stack-kill-pay-${id}` },
        stats,
        240_000,
      ),
    );
    const x402Stats = newStats();
    const x402Orders = x402Ids.map((id) => x402Purchase([api], 'POST', `/x402/orders/${id}`, auth, x402Stats, 240_000));
    const x402Items = MICRO_ITEMS.slice(0, x402Ids.length).map((item) =>
      x402Purchase([api], 'GET', `/x402/item/${item.id}`, {}, x402Stats, 240_000),
    );
    loading = false;
    await load;
    const statusesNow = async (): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {};
      for (const o of await Promise.all(
        batchIds.map((id) => call(api, 'GET', `/api/v1/orders/${id}`, undefined, {}, 2_000)),
      )) {
        const st = o.status === 200 ? String(o.body.status) : `http_${o.status}`;
        counts[st] = (counts[st] ?? 0) + 1;
      }
      return counts;
    };
    const atKill =
      (await until(
        async () => {
          const c = await statusesNow();
          return (c.paid ?? 0) + (c.fulfilling ?? 0) + (c.delivered ?? 0) > 0 ? c : undefined;
        },
        20_000,
        100,
      )) ?? (await statusesNow());
    figures.batch_status_at_kill = atKill;

    // 3. SIGKILL everything at once, then start it all again on the same data folder.
    log(`SIGKILL every process of the stack (${flows.length} load flows and ${batch} batch orders in flight)`);
    const killAt = Date.now();
    await stack.killAll();
    figures.kill_ms = since(killAt);
    const restartAt = Date.now();
    await stack.startAll();
    figures.restart_ms = since(restartAt);
    const healthy = await until(
      async () => ((await call(api, 'GET', '/health')).status === 200 ? true : undefined),
      60_000,
      100,
    );
    figures.api_healthy_after_restart_ms = since(restartAt);
    log(`restarted in ${figures.restart_ms} ms (API healthy after ${figures.api_healthy_after_restart_ms} ms)`);
    if (!healthy) problems.push('/health not 200 within 60 s of the restart');

    // 4. Every paid or paying order delivered.
    const batchResults = batchIds.map(async (id, i): Promise<OrderFlow> => {
      const paid = await batchPays[i]!;
      if (paid.status !== 200)
        return {
          orderId: id,
          outcome: 'pay_failed',
          detail: `${paid.status} ${paid.error ?? JSON.stringify(paid.body).slice(0, 300)}`,
        };
      return waitDelivered([api], id, stats, 240_000);
    });
    const results = await Promise.all([...flows, ...batchResults]);
    const inFlight = results.filter((r) => r.orderId);
    const notDelivered = results.filter((r) => r.outcome !== 'delivered');
    const lastDelivered = Math.max(...results.map((r) => r.deliveredAt ?? 0));
    figures.in_flight = {
      orders: results.length,
      delivered: results.length - notDelivered.length,
      lost_or_stuck: notDelivered.length,
      all_delivered_after_restart_ms: notDelivered.length === 0 ? Math.max(0, lastDelivered - restartAt) : null,
      // Orders delivered before the kill count as 0; the rest wait for the restart, then for their step to rerun.
      median_delivered_after_restart_ms: median(
        results.filter((r) => r.deliveredAt).map((r) => Math.max(0, r.deliveredAt! - restartAt)),
      ),
      idempotency_in_flight_answers: stats.statuses.get(409) ?? 0,
      answers_seen_by_clients: statusCounts(stats),
    };
    log(`in flight: ${JSON.stringify(figures.in_flight)}`);
    for (const r of notDelivered)
      problems.push(`order ${r.orderId ?? '(not created)'}: ${r.outcome} ${r.detail ?? ''}`);

    // 5. Orders at rest are where they were.
    const states: Record<string, string> = {};
    for (const id of unpaid) {
      states[id] = String((await order(id))?.status);
      if (states[id] !== 'awaiting_payment') problems.push(`unpaid order ${id} is ${states[id]} after the restart`);
    }
    for (const id of awaitingReview) {
      states[id] = String((await order(id))?.status);
      if (states[id] !== 'delivered') problems.push(`delivered order ${id} is ${states[id]} after the restart`);
    }
    const e = await order(expert);
    states[expert] = String(e?.status);
    if (e?.status !== 'in_engineering') problems.push(`expert order ${expert} is ${e?.status} after the restart`);
    const s = await order(subscription);
    states[subscription] = `${s?.status} / subscription ${s?.subscription?.status}`;
    if (s?.subscription?.status !== 'active')
      problems.push(`subscription ${subscription} is ${s?.subscription?.status} after the restart`);
    // An unpaid order is payable afterwards and delivered; a delivered one can be accepted.
    const payAfter = await call(
      api,
      'POST',
      `/api/v1/orders/${unpaid[0]}/confirm_payment`,
      { rail: 'agent_wallet' },
      auth,
      60_000,
    );
    const payAfterDone =
      payAfter.status === 200 ? await waitDelivered([api], unpaid[0]!, newStats(), 120_000) : undefined;
    if (payAfterDone?.outcome !== 'delivered')
      problems.push(
        `unpaid order ${unpaid[0]} paid after the restart: ${payAfter.status} ${payAfterDone?.outcome ?? JSON.stringify(payAfter.body)}`,
      );
    const review = await call(api, 'POST', `/api/v1/orders/${awaitingReview[0]}/review`, { action: 'accept' }, auth);
    if (review.status !== 200 || review.body.status !== 'accepted')
      problems.push(
        `review of ${awaitingReview[0]} after the restart: ${review.status} ${JSON.stringify(review.body).slice(0, 200)}`,
      );
    figures.at_rest = {
      states,
      unpaid_paid_after_restart: payAfterDone?.outcome ?? payAfter.status,
      review_after_restart: review.body.status ?? review.status,
    };
    log(`at rest after the restart: ${JSON.stringify(figures.at_rest)}`);

    // 6. Ledger: exactly one debit per paid order, none for the unpaid ones still unpaid.
    const paidIds = [
      ...inFlight.filter((r) => r.outcome === 'delivered').map((r) => r.orderId!),
      ...awaitingReview,
      expert,
      subscription,
      unpaid[0]!,
    ];
    const stillUnpaid = unpaid.slice(1);
    const debits = await debitsByTx(
      stack,
      [...paidIds, ...stillUnpaid].map((id) => `order:${id}`),
    );
    const doubles = [...debits].filter(([, n]) => n > 1).map(([tx]) => tx);
    const missingDebit = paidIds.filter((id) => debits.get(`order:${id}`) === 0);
    const unpaidDebited = stillUnpaid.filter((id) => (debits.get(`order:${id}`) ?? 0) > 0);
    for (const tx of doubles) problems.push(`${tx} debited more than once`);
    for (const id of missingDebit) problems.push(`order ${id}: paid or delivered without a debit`);
    for (const id of unpaidDebited) problems.push(`unpaid order ${id} debited`);

    // 7. Webhooks: every event of these orders received at least once (deliveries retry on their schedule).
    const allIds = [
      ...new Set([...inFlight.map((r) => r.orderId!), ...unpaid, ...awaitingReview, expert, subscription]),
    ];
    const missing = await awaitUndelivered(stack, allIds, hooks, 90_000);
    figures.ledger_and_webhooks = {
      orders_checked: allIds.length,
      debits_checked: debits.size,
      double_charged: doubles.length,
      paid_without_debit: missingDebit.length,
      unpaid_debited: unpaidDebited.length,
      webhook_events: hooks.byId.size,
      webhook_events_missing: missing.length,
      webhook_duplicates: [...hooks.byId.values()].filter((n) => n > 1).length,
    };
    log(`ledger and webhooks: ${JSON.stringify(figures.ledger_and_webhooks)}`);
    if (missing.length > 0)
      problems.push(
        `webhook events never received: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ' …' : ''}`,
      );
    if (stats.unavailableWithoutRetryAfter > 0)
      problems.push(`${stats.unavailableWithoutRetryAfter} answers 503 without Retry-After`);

    // 8. x402 in flight: orders delivered with one settled payment each, items served, spending = settled payments.
    const orderBuys: X402Purchase[] = await Promise.all(x402Orders);
    const itemBuys: X402Purchase[] = await Promise.all(x402Items);
    const x402Delivered = await Promise.all(x402Ids.map((id) => waitDelivered([api], id, newStats(), 120_000)));
    const ledger = (await stack.mongo())
      .db(stack.dbName)
      .collection<{ order_id: string | null; status: string; amount_micros: number; created_at: Date }>(
        'x402_payments',
      );
    const settled = await ledger.find({ status: 'settled' }).toArray();
    const settledPerOrder = x402Ids.map((id) => settled.filter((p) => p.order_id === id).length);
    const spendAfter = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const spent = Number(spendBefore - spendAfter);
    const settledSum = settled.reduce((sum, p) => sum + p.amount_micros, 0);
    figures.x402_in_flight = {
      orders: x402Ids.length,
      order_answers: orderBuys.map((b) => `${b.status}${b.signed > 1 ? ` (${b.signed} signed)` : ''}`),
      orders_delivered: x402Delivered.filter((d) => d.outcome === 'delivered').length,
      settled_payments_per_order: settledPerOrder,
      items: itemBuys.length,
      item_answers: itemBuys.map((b) => `${b.status}${b.signed > 1 ? ` (${b.signed} signed)` : ''}`),
      spent_on_chain_micros: spent,
      settled_in_ledger_micros: settledSum,
      answers_seen_by_buyers: statusCounts(x402Stats),
    };
    log(`x402 in flight: ${JSON.stringify(figures.x402_in_flight)}`);
    x402Delivered.forEach((d, i) => {
      if (d.outcome !== 'delivered')
        problems.push(
          `x402 order ${x402Ids[i]}: ${d.outcome} ${d.detail ?? ''} (buyer's last answer ${orderBuys[i]!.status})`,
        );
      if (settledPerOrder[i] !== 1) problems.push(`x402 order ${x402Ids[i]}: ${settledPerOrder[i]} settled payments`);
    });
    itemBuys.forEach((b) => {
      if (b.status !== 200)
        problems.push(`x402 purchase ${b.path}: ${b.status} ${JSON.stringify(b.body).slice(0, 200)}`);
    });
    if (spent !== settledSum)
      problems.push(`the buyer spent ${spent} micro-USDC on chain; the ledger holds ${settledSum} settled`);
  } catch (err) {
    problems.push(`drill error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    await hooks.close();
    // A failed run keeps its data folder and logs for the post-mortem (Temporal histories, database, process logs).
    const keep = args.has('keep') || problems.length > 0;
    await stack.stop({ keepData: keep });
    if (keep) log(`data and logs kept in ${stack.dataDir}`);
  }
  figures.total_s = Math.round(since(t0) / 1000);
  finish('stack-kill', figures, problems);
}
