/**
 * Drill `server-kill` (issue 14): under a steady load of wallet orders, the Temporal server alone is SIGKILLed and
 * restarted, then the database alone (FerretDB and PostgreSQL with every backend). While one is down, probes check
 * that the API answers within a second, 503 `dependency_unavailable` with Retry-After where the request needs the
 * missing server, and that /health names it. Afterwards every order the clients placed (retrying as the API asks)
 * must be delivered and charged exactly once, and every webhook event received.
 *
 * Options: --down-seconds N (how long each server stays down, default 6), --keep.
 */
import {
  call,
  debitsByTx,
  finish,
  fundedAgent,
  logger,
  newStats,
  orderFlow,
  registerWebhook,
  since,
  sleep,
  startDrillStack,
  startWebhookCounter,
  statusCounts,
  awaitUndelivered,
  until,
  type Answer,
  type OrderFlow,
} from './lib';

/** One probe while a server is down. */
interface Probe {
  what: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  health?: unknown;
}

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const downMs = Number(args.get('down-seconds') ?? 6) * 1000;
  log('starting Temporal, database, worker and API (separate processes, free ports)');
  const stack = await startDrillStack();
  const api = stack.apis[0]!.url!;
  const problems: string[] = [];
  const figures: Record<string, unknown> = {};
  const hooks = await startWebhookCounter();
  try {
    const agent = 'drill-server-kill';
    const key = await fundedAgent(api, agent, 1_000_000);
    await registerWebhook(api, agent, key, hooks.url);
    // A known order for the read probes, and one left unpaid for the payment probe.
    const known = await orderFlow([api], agent, key, newStats());
    const unpaid = await call(
      api,
      'POST',
      '/api/v1/orders',
      {
        service_id: 'automation-wf',
        agent_id: agent,
        inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
      },
      { authorization: `Bearer ${key}` },
    );
    if (!known.orderId || unpaid.status !== 201)
      throw new Error(`setup orders failed: ${JSON.stringify(known)} ${unpaid.status}`);

    // Steady load: a new buyer flow every 400 ms until the end of the second outage.
    const stats = newStats();
    const flows: Promise<OrderFlow>[] = [];
    let loading = true;
    const load = (async () => {
      while (loading) {
        flows.push(orderFlow([api], agent, key, stats));
        await sleep(400);
      }
    })();
    await sleep(3_000);

    const outage = async (which: 'temporal' | 'database') => {
      log(`SIGKILL ${which}`);
      await (which === 'temporal' ? stack.killTemporal() : stack.killDatabase());
      const killedAt = Date.now();
      const probes: Probe[] = [];
      const probe = async (what: string, a: Promise<Answer>) => {
        const r = await a;
        probes.push({
          what,
          status: r.status,
          ms: r.ms,
          retryAfter: r.headers.get('retry-after'),
          ...(what === 'health' ? { health: r.body.dependencies } : {}),
        });
      };
      while (Date.now() - killedAt < downMs) {
        await Promise.all([
          probe('health', call(api, 'GET', '/health')),
          probe(
            'create order',
            call(
              api,
              'POST',
              '/api/v1/orders',
              {
                service_id: 'automation-wf',
                agent_id: agent,
                inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
              },
              { authorization: `Bearer ${key}` },
            ),
          ),
          probe('read order', call(api, 'GET', `/api/v1/orders/${known.orderId}`)),
          probe(
            'confirm payment',
            call(api, 'POST', `/api/v1/orders/${unpaid.body.order_id}/confirm_payment`, {
              rail: 'linkpay_ncp',
              transaction_id: 'lp_unknown',
            }),
          ),
        ]);
        await sleep(250);
      }
      log(`restarting ${which}`);
      const restartAt = Date.now();
      await (which === 'temporal' ? stack.startTemporal() : stack.startDatabase());
      const serverUpMs = since(restartAt);
      const healthy = await until(
        async () => ((await call(api, 'GET', '/health')).status === 200 ? true : undefined),
        60_000,
        100,
      );
      const apiHealthyMs = since(restartAt);
      // First order placed end to end after the restart.
      const first = await orderFlow([api], agent, key, newStats(), 60_000);
      const slowest = Math.max(...probes.map((p) => p.ms));
      const byWhat: Record<string, Record<string, number>> = {};
      for (const p of probes) {
        byWhat[p.what] ??= {};
        byWhat[p.what]![String(p.status)] = (byWhat[p.what]![String(p.status)] ?? 0) + 1;
      }
      const healthDown = probes.filter((p) => p.what === 'health' && p.status === 503);
      figures[which] = {
        down_ms: restartAt - killedAt,
        probes: probes.length,
        slowest_probe_ms: slowest,
        answers: byWhat,
        server_restart_ms: serverUpMs,
        api_healthy_after_restart_ms: apiHealthyMs,
        first_order_delivered_after_restart_ms: first.deliveredAt ? first.deliveredAt - restartAt : null,
      };
      log(`${which}: ${JSON.stringify(figures[which])}`);
      if (slowest > 1000) problems.push(`${which} down: a probe took ${slowest} ms (limit 1000)`);
      for (const p of probes) {
        if (p.status === 0 || (p.status >= 500 && p.status !== 503))
          problems.push(`${which} down: ${p.what} answered ${p.status || 'nothing'}`);
        if (p.status === 503 && !p.retryAfter) problems.push(`${which} down: ${p.what} 503 without Retry-After`);
      }
      const needs =
        which === 'temporal' ? ['create order', 'confirm payment'] : ['create order', 'read order', 'confirm payment'];
      for (const w of needs)
        if (!probes.some((p) => p.what === w && p.status === 503))
          problems.push(`${which} down: ${w} never answered 503`);
      const namesIt =
        healthDown.length > 0 &&
        healthDown.every((p) => (p.health as Record<string, { status: string }>)?.[which]?.status === 'down');
      if (!namesIt) problems.push(`${which} down: /health did not say so`);
      if (!healthy) problems.push(`${which}: /health not 200 within 60 s of the restart`);
      if (first.outcome !== 'delivered')
        problems.push(
          `${which}: no order delivered within 60 s of the restart (${first.outcome} ${first.detail ?? ''})`,
        );
    };

    await outage('temporal');
    await sleep(3_000);
    await outage('database');
    await sleep(2_000);
    loading = false;
    await load;
    log(`waiting for the ${flows.length} orders of the load`);
    const results = await Promise.all(flows);
    const orderIds = results.flatMap((r) => (r.orderId ? [r.orderId] : []));
    const notDelivered = results.filter((r) => r.outcome !== 'delivered');
    const debits = await debitsByTx(
      stack,
      orderIds.map((id) => `order:${id}`),
    );
    const doubles = [...debits].filter(([, n]) => n > 1).map(([tx]) => tx);
    const deliveredIds = new Set(results.filter((r) => r.outcome === 'delivered').map((r) => `order:${r.orderId}`));
    const unpaidButDelivered = [...debits].filter(([tx, n]) => n === 0 && deliveredIds.has(tx)).map(([tx]) => tx);
    // Webhooks: every event of these orders received at least once (deliveries retry on their schedule).
    const missing = await awaitUndelivered(stack, orderIds, hooks, 60_000);
    figures.load = {
      orders: results.length,
      delivered: results.length - notDelivered.length,
      lost_or_stuck: notDelivered.length,
      double_charged: doubles.length,
      answers_seen_by_clients: statusCounts(stats),
      slowest_client_answer_ms: stats.slowestMs,
      webhook_events_missing: missing.length,
      webhook_duplicates: [...hooks.byId.values()].filter((n) => n > 1).length,
    };
    for (const r of notDelivered)
      problems.push(`order ${r.orderId ?? '(not created)'}: ${r.outcome} ${r.detail ?? ''}`);
    for (const tx of doubles) problems.push(`${tx} debited more than once`);
    for (const tx of unpaidButDelivered) problems.push(`${tx}: delivered without a debit`);
    if (missing.length > 0)
      problems.push(
        `webhook events never received: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ' …' : ''}`,
      );
    if (stats.unavailableWithoutRetryAfter > 0)
      problems.push(`${stats.unavailableWithoutRetryAfter} answers 503 without Retry-After`);
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
  finish('server-kill', figures, problems);
}
