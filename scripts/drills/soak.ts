/**
 * Drill `soak` (issue 14): mixed traffic at a steady moderate rate for a long time against a stack of separate
 * processes with the local x402 chain, then the books are checked. One operation starts every `1 / rate` seconds, in
 * turn: an order paid from the wallet, an order paid with x402 (`POST /x402/orders/{id}` through `@x402/fetch`), an
 * order paid by a human on the payment link, an x402 micro purchase, an MCP session (official client: list tools,
 * read the order just made), and catalogue reads; every order is followed to `delivered` and accepted. Webhooks go to
 * a receiver counting by `webhook-id`.
 *
 * Fails on: any operation that did not end as it should (no error is allowed), an order not delivered, a webhook
 * event never received, a wallet order debited other than once, on-chain spending of the buyer that differs from
 * what the purchases that succeeded cost, or an API or worker process whose RSS grew by 10 % or more from the
 * start to the end of the measured part (the first `warmup` minutes are not measured). The RSS of the servers
 * (Temporal, PostgreSQL, FerretDB) is printed beside them, not judged: their caches fill with the data by design.
 *
 * Options: --minutes N (default 30), --rate N (operations per second, default 2), --warmup-minutes N (default 5, at
 * most a third of the run), --apis N, --workers N (default 1 each; operations spread over the APIs), --keep.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ANVIL_ADDRESSES, usdcBalanceOf } from '../lib/chain';
import { MICRO_ITEMS } from '../../src/products/micro';
import {
  AUTOMATION,
  call,
  debitsByTx,
  finish,
  fundedAgent,
  rssMb,
  logger,
  newStats,
  payingFetch,
  registerWebhook,
  retrying,
  since,
  sleep,
  startDrillStack,
  startWebhookCounter,
  treeRssMb,
  undeliveredEvents,
  waitDelivered,
  type DrillStack,
} from './lib';

const OPS = ['wallet_order', 'x402_order', 'link_order', 'x402_micro', 'mcp', 'reads'] as const;
type Op = (typeof OPS)[number];

/** One operation's end: ok, or what went wrong; an order it made; micro-USD it spent on chain when it succeeded. */
interface OpResult {
  op: Op;
  ok: boolean;
  ms: number;
  detail?: string;
  orderId?: string;
  walletOrder?: boolean;
  /** Orders of the agent, whose events go to its webhook endpoint (link orders have no agent). */
  agentOrder?: boolean;
  spentMicros?: number;
}

const percentile = (xs: number[], p: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const median = (xs: number[]): number => percentile(xs, 50) ?? 0;

/** RSS samples (MB) of every process of the stack, by name. */
function sampleRss(stack: DrillStack): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of [...stack.apis, ...stack.workers]) out[p.name] = p.rss();
  if (stack.temporal) out.temporal = rssMb(stack.temporal.pid);
  if (stack.database) {
    out.ferretdb = rssMb(stack.database.pids.ferretdb);
    out.postgres_all_backends = treeRssMb(stack.database.pids.postgres);
  }
  return out;
}

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const minutes = Number(args.get('minutes') ?? 30);
  const rate = Number(args.get('rate') ?? 2);
  const warmupMs = Math.min(Number(args.get('warmup-minutes') ?? 5), minutes / 3) * 60_000;
  const apis = Number(args.get('apis') ?? 1);
  const workers = Number(args.get('workers') ?? 1);
  log(
    `starting Temporal, database, x402 chain, ${workers} worker(s) and ${apis} API(s); then ${minutes} min at ${rate} operations/s`,
  );
  const stack = await startDrillStack({
    apis,
    workers,
    x402: true,
    env: { RATE_LIMIT_BURST_PER_SECOND: '0', RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0' },
  });
  const bases = stack.apis.map((a) => a.url!);
  const problems: string[] = [];
  const figures: Record<string, unknown> = { minutes, rate_per_s: rate, apis, workers };
  const hooks = await startWebhookCounter();
  const results: OpResult[] = [];
  const rss: Array<{ at: number; mb: Record<string, number> }> = [];
  try {
    const agent = 'drill-soak';
    const key = await fundedAgent(bases[0]!, agent, 1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    await registerWebhook(bases[0]!, agent, key, hooks.url);
    const paying = payingFetch();
    const chain = stack.x402!;
    const balanceBefore = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const stats = newStats();
    let n = 0;
    const base = (): string => bases[n % bases.length]!;

    const accept = async (
      api: string,
      orderId: string,
      headers: Record<string, string>,
    ): Promise<string | undefined> => {
      const r = await retrying(
        [api],
        'POST',
        `/api/v1/orders/${orderId}/review`,
        { action: 'accept' },
        { ...headers, 'idempotency-key': `accept-${orderId}` },
        stats,
        60_000,
      );
      return r.status === 200 && r.body.status === 'accepted'
        ? undefined
        : `accept ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
    };
    const createOrder = async (
      api: string,
      tag: string,
      extra: Record<string, unknown> = {},
    ): Promise<{ id?: string; secret?: string; amount?: number; error?: string }> => {
      const c = await retrying(
        [api],
        'POST',
        '/api/v1/orders',
        { ...AUTOMATION, agent_id: agent, ...extra },
        { ...auth, 'idempotency-key': `soak-${tag}` },
        stats,
        60_000,
      );
      if (c.status !== 201) return { error: `create ${c.status} ${JSON.stringify(c.body).slice(0, 200)}` };
      return { id: c.body.order_id as string, amount: Number(c.body.amount_micros) };
    };
    const deliveredThenAccepted = async (
      api: string,
      orderId: string,
      headers: Record<string, string>,
    ): Promise<string | undefined> => {
      const d = await waitDelivered([api], orderId, stats, 120_000);
      if (d.outcome !== 'delivered') return `${d.outcome} ${d.detail ?? ''}`;
      return accept(api, orderId, headers);
    };

    const operations: Record<Op, (api: string, tag: string) => Promise<Omit<OpResult, 'op' | 'ms'>>> = {
      async wallet_order(api, tag) {
        const o = await createOrder(api, tag);
        if (!o.id) return { ok: false, detail: o.error };
        const p = await retrying(
          [api],
          'POST',
          `/api/v1/orders/${o.id}/confirm_payment`,
          { rail: 'agent_wallet' },
          { ...auth, 'idempotency-key': `soak-pay-${tag}` },
          stats,
          60_000,
        );
        if (p.status !== 200)
          return {
            ok: false,
            orderId: o.id,
            walletOrder: true,
            detail: `pay ${p.status} ${JSON.stringify(p.body).slice(0, 200)}`,
          };
        const err = await deliveredThenAccepted(api, o.id, auth);
        return { ok: !err, orderId: o.id, walletOrder: true, agentOrder: true, ...(err ? { detail: err } : {}) };
      },
      async x402_order(api, tag) {
        const o = await createOrder(api, tag);
        if (!o.id) return { ok: false, detail: o.error };
        const res = await paying(`${api}/x402/orders/${o.id}`, { method: 'POST', headers: auth });
        const body = await res.text();
        if (res.status !== 200)
          return { ok: false, orderId: o.id, detail: `x402 pay ${res.status} ${body.slice(0, 200)}` };
        const err = await deliveredThenAccepted(api, o.id, auth);
        return { ok: !err, orderId: o.id, agentOrder: true, spentMicros: o.amount, ...(err ? { detail: err } : {}) };
      },
      async link_order(api) {
        const form = new URLSearchParams({ ...AUTOMATION.inputs, email: 'soak@example.com' });
        const created = await fetch(`${api}/pay/services/${AUTOMATION.service_id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
          redirect: 'manual',
        });
        const location = new URL(created.headers.get('location') ?? '/', api);
        const secret = location.searchParams.get('secret') ?? '';
        const id = location.pathname.split('/').pop() ?? '';
        if (created.status !== 302 || !secret) return { ok: false, detail: `link create ${created.status}` };
        const paid = await fetch(`${api}/pay/orders/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret }),
        });
        await paid.arrayBuffer();
        if (paid.status !== 200) return { ok: false, orderId: id, detail: `link pay ${paid.status}` };
        const err = await deliveredThenAccepted(api, id, { authorization: `Bearer ${secret}` });
        return { ok: !err, orderId: id, ...(err ? { detail: err } : {}) };
      },
      async x402_micro(api) {
        const item = MICRO_ITEMS[n % MICRO_ITEMS.length]!;
        const res = await paying(`${api}/x402/item/${item.id}`);
        const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
        if (res.status !== 200)
          return { ok: false, detail: `micro ${item.id} ${res.status} ${JSON.stringify(body).slice(0, 200)}` };
        return { ok: true, spentMicros: item.price_micros };
      },
      async mcp(api) {
        const client = new Client({ name: 'soak-drill', version: '1.0.0' });
        try {
          await client.connect(
            new StreamableHTTPClientTransport(new URL(`${api}/mcp`), { requestInit: { headers: auth } }),
          );
          const tools = await client.listTools();
          if (!tools.tools.some((t) => t.name === 'get_order'))
            return { ok: false, detail: 'tools/list without get_order' };
          const services = await client.callTool({ name: 'list_services', arguments: {} });
          if (services.isError)
            return { ok: false, detail: `list_services: ${JSON.stringify(services.content).slice(0, 200)}` };
          const last = results.findLast((r) => r.orderId);
          if (last?.orderId) {
            const o = await client.callTool({ name: 'get_order', arguments: { order_id: last.orderId } });
            if (o.isError) return { ok: false, detail: `get_order: ${JSON.stringify(o.content).slice(0, 200)}` };
          }
          return { ok: true };
        } finally {
          await client.close().catch(() => undefined);
        }
      },
      async reads(api) {
        for (const p of ['/api/v1/services', '/api/v1/x402/micro', '/health']) {
          const r = await call(api, 'GET', p);
          if (r.status !== 200) return { ok: false, detail: `GET ${p} ${r.status}` };
        }
        return { ok: true };
      },
    };

    // The load: one operation every 1/rate s, in turn, for `minutes`; RSS every 10 s.
    const endAt = Date.now() + minutes * 60_000;
    const running: Array<Promise<void>> = [];
    const sampler = setInterval(() => rss.push({ at: since(t0), mb: sampleRss(stack) }), 10_000);
    let lastReport = Date.now();
    while (Date.now() < endAt) {
      const op = OPS[n % OPS.length]!;
      const api = base();
      const tag = `${op}-${n}`;
      n++;
      const started = Date.now();
      running.push(
        operations[op](api, tag)
          .catch((err: unknown) => ({ ok: false, detail: err instanceof Error ? err.message : String(err) }))
          .then((r) => void results.push({ op, ms: since(started), ...r })),
      );
      if (Date.now() - lastReport > 60_000) {
        lastReport = Date.now();
        const failed = results.filter((r) => !r.ok).length;
        log(
          `${n} operations started, ${results.length} done, ${failed} failed; RSS ${JSON.stringify(rss.at(-1)?.mb ?? {})}`,
        );
      }
      await sleep(Math.max(0, started + 1000 / rate - Date.now()));
    }
    log(`load over: waiting for the ${running.length - results.length} operations still running`);
    await Promise.all(running);
    clearInterval(sampler);
    rss.push({ at: since(t0), mb: sampleRss(stack) });

    // Operations: none may fail.
    const byOp: Record<string, unknown> = {};
    for (const op of OPS) {
      const mine = results.filter((r) => r.op === op);
      const ms = mine.map((r) => r.ms);
      byOp[op] = {
        done: mine.length,
        failed: mine.filter((r) => !r.ok).length,
        p50_ms: percentile(ms, 50),
        p99_ms: percentile(ms, 99),
      };
    }
    figures.operations = byOp;
    for (const r of results.filter((x) => !x.ok).slice(0, 20))
      problems.push(`${r.op}${r.orderId ? ` ${r.orderId}` : ''}: ${r.detail ?? 'failed'}`);
    const failedCount = results.filter((r) => !r.ok).length;
    if (failedCount > 20) problems.push(`… ${failedCount - 20} more failed operations`);

    // Books: one debit per wallet order, on-chain spending equal to what succeeded, every webhook event received.
    const walletOrders = results.filter((r) => r.walletOrder && r.orderId).map((r) => `order:${r.orderId}`);
    const debits = await debitsByTx(stack, walletOrders);
    const notOnce = [...debits].filter(([, c]) => c !== 1);
    for (const [tx, c] of notOnce.slice(0, 10)) problems.push(`${tx}: ${c} debits`);
    const balanceAfter = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const spentOnChain = Number(balanceBefore - balanceAfter);
    const spentBySuccesses = results.reduce((s, r) => s + (r.ok && r.spentMicros ? r.spentMicros : 0), 0);
    if (spentOnChain !== spentBySuccesses)
      problems.push(
        `the buyer spent ${spentOnChain} micro-USDC on chain; the purchases that succeeded cost ${spentBySuccesses}`,
      );
    const orderIds = results.filter((r) => r.orderId).map((r) => r.orderId!);
    const agentOrderIds = results.filter((r) => r.orderId && r.agentOrder).map((r) => r.orderId!);
    let missing = await undeliveredEvents(stack, agentOrderIds, hooks);
    for (let i = 0; i < 60 && missing.length > 0; i++) {
      await sleep(1_000);
      missing = await undeliveredEvents(stack, agentOrderIds, hooks);
    }
    if (missing.length > 0)
      problems.push(`${missing.length} webhook events never received, e.g. ${missing.slice(0, 3).join(', ')}`);
    figures.books = {
      orders: orderIds.length,
      agent_orders_followed_by_webhook: agentOrderIds.length,
      wallet_orders_debited_once: walletOrders.length - notOnce.length,
      wallet_orders: walletOrders.length,
      x402_spent_on_chain_micros: spentOnChain,
      x402_cost_of_successes_micros: spentBySuccesses,
      webhook_events: hooks.byId.size,
      webhook_events_missing: missing.length,
      answers_seen_by_retrying_clients: Object.fromEntries(stats.statuses),
    };

    // RSS: median of the first and of the last fifth of the measured samples, per process.
    const measured = rss.filter((s) => s.at >= warmupMs + (rss[0]?.at ?? 0) - 10_000);
    const fifth = Math.max(1, Math.floor(measured.length / 5));
    const rssFigures: Record<string, unknown> = {};
    for (const name of Object.keys(rss.at(-1)?.mb ?? {})) {
      const first = median(measured.slice(0, fifth).map((s) => s.mb[name] ?? 0));
      const last = median(measured.slice(-fifth).map((s) => s.mb[name] ?? 0));
      const growth = first > 0 ? Math.round(((last - first) / first) * 1000) / 10 : null;
      const judged = /^(api|worker)\d+$/.test(name);
      rssFigures[name] = {
        after_warmup_mb: first,
        at_end_mb: last,
        growth_percent: growth,
        peak_mb: Math.max(...rss.map((s) => s.mb[name] ?? 0)),
        judged,
      };
      if (judged && growth !== null && growth >= 10)
        problems.push(`${name} RSS grew ${growth} % after warm-up (${first} → ${last} MB)`);
    }
    figures.rss = {
      samples: rss.length,
      measured_samples: measured.length,
      warmup_minutes: warmupMs / 60_000,
      processes: rssFigures,
    };
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
  finish('soak', figures, problems);
}
