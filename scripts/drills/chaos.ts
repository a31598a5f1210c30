/**
 * Drill `chaos` (issue 24 §4): mixed traffic from clients that send every request once and never retry, while a
 * seeded random plan SIGKILLs one piece of the stack (Temporal, the database, the API, the worker) or all of it at
 * once at random moments, then restarts it on the same data. After each restart, and at the end, every order must
 * reach a final state within a bound and the books must balance, checked from the database by the drill itself
 * (lib.ts `auditBooks`), then by the service's own reconciliation (`POST /api/v1/operator/reconciliation`).
 *
 * Traffic (the seed decides the mix, the duplicates, the kill moments and the victims):
 * - wallet orders (`automation-wf`, `confirm_payment` rail agent_wallet), x402 orders (`POST /x402/orders/{id}` with
 *   EIP-3009 authorizations signed by the local chain's buyer, an anvil key), payment-link orders (a human on
 *   `/pay/services/automation-wf`, then Pay on `/pay/orders/{id}`), per-task orders (`task-worker`, further tasks on
 *   `POST /orders/{id}/tasks`), expert orders (`robot-control-system`: the buyer's cancel, refused before the SLA
 *   breach, and the operator's claim, upload and ready), and x402 micro purchases;
 * - some orders are left unpaid (they expire), some reviews accept, some reject, some are left to the review window;
 * - duplicates sent at the same instant: two `confirm_payment` of one order (same Idempotency-Key, two keys, none),
 *   two Pay presses, the same x402 payment twice or two payments of one order, accept and reject together, two tasks.
 * Clients record every answer, connection errors included (status 0), and never retry: a lost answer is a lost answer.
 *
 * The drill fails (exit 1) on any discrepancy in the books, any order lost (answered 201, or known to Temporal, but
 * not in the database), any double charge, any order, task or x402 settlement not final in time (an x402 claim whose
 * authorization was never used on chain is only counted: the service fails it minutes later), any client told
 * something the books contradict (e.g. 200 to a payment of an order that then expired), or a reconciliation endpoint
 * that is missing or reports discrepancies.
 *
 * Options: --seed N (default 24), --cycles N (kill cycles, default 20), --orders-per-cycle N (default 8),
 * --load-seconds N (length of each cycle's load, default 12), --bound-seconds N (time for every order to be final
 * after a restart, default 90), --payment-deadline-seconds N (default 45), --review-window-seconds N (default 15),
 * --external-text-model (TEXTGEN_BASE_URL / TEXTGEN_MODEL of the environment instead of the drill's stand-in), --keep,
 * --cluster (issue 25 §3: the production topology of lib.ts `cluster`, clients through the load balancer, victims
 * {@link CLUSTER_VICTIMS}); at the end every API serves a few deliverables byte for byte, whichever worker made them),
 * --victims a,b,… (cycle n kills the n-th, in turn, instead of the seed's pick).
 */
import { createHash } from 'node:crypto';
import { ANVIL_ADDRESSES, usdcBalanceOf } from '../lib/chain';
import { MICRO_ITEMS } from '../../src/products/micro';
import type { OrderDoc } from '../../src/db';
import { startFakeTextModel } from '../../test/helpers/fakeTextModel';
import {
  AUTOMATION,
  FINAL_ORDER_STATUSES,
  OPERATOR_KEY,
  PARKED_ORDER_STATUSES,
  auditBooks,
  call,
  finish,
  fundedAgent,
  logger,
  mineBlocks,
  newStats,
  orderFlow,
  registerWebhook,
  startWebhookCounter,
  awaitUndelivered,
  operatorReconciliation,
  orderWorkflows,
  seededRandom,
  postForm,
  since,
  sleep,
  startDrillStack,
  ordersHeldByClaims,
  unusedAuthorizations,
  until,
  x402Sign,
  type Answer,
  type BooksAudit,
  type DrillStack,
  type Rng,
  type WebhookCounter,
} from './lib';

const TASK_WORKER = {
  service_id: 'task-worker',
  inputs: { task_prompt: 'Research the three cheapest CRM tools for a 5-person agency', format: 'markdown' },
};
const EXPERT = {
  service_id: 'robot-control-system',
  inputs: {
    robot_type: 'six-axis arm',
    controller: 'ROS 2 Humble',
    objective: 'pick and place parcels from a conveyor',
  },
};
const OPERATOR = { authorization: `Bearer ${OPERATOR_KEY}` };
const ENGINEER = 'chaos-engineer';
/** The engineer's one file: the same bytes every time, so a second upload is a harmless repeat. */
const ENGINEER_FILE = {
  engineer: ENGINEER,
  name: 'commissioning-report.txt',
  media_type: 'text/plain',
  content_base64: Buffer.from('Commissioning report: tested on the line.\n').toString('base64'),
};

const VICTIMS = ['stack', 'temporal', 'database', 'api', 'worker'] as const;
/**
 * With `--cluster` (issue 25 §3): one process of a replicated tier (a history or matching service, an API behind the
 * load balancer, a worker), the single frontend, Temporal's PostgreSQL, or the database.
 */
const CLUSTER_VICTIMS = ['history', 'matching', 'frontend', 'temporal_postgres', 'api', 'worker', 'database'] as const;
type Victim = (typeof VICTIMS)[number] | (typeof CLUSTER_VICTIMS)[number];
const KIND_WEIGHTS = { wallet: 28, x402: 20, link: 20, tasks: 12, expert: 8, x402_item: 12 } as const;
type Kind = keyof typeof KIND_WEIGHTS;
/** How a payment is sent: once, or twice at the same instant (same Idempotency-Key / x402 payload, two, none). */
type Sending = 'once' | 'twice_same' | 'twice_different' | 'twice_no_key';
type Review = 'accept' | 'reject' | 'none' | 'accept_and_reject';
const AGENTS = 3;

/** One client's part in a cycle, drawn from the seed before anything runs. */
interface OrderPlan {
  n: number;
  kind: Kind;
  /** When it starts, ms into the cycle's load. */
  startMs: number;
  /** When it sends its payment, ms into the load (just before the kill); null: as soon as the order exists. */
  payAtMs: number | null;
  agent: number;
  /** False: the buyer walks away before paying (the order must expire without a charge). */
  pay: boolean;
  sending: Sending;
  review: Review;
  /** Further tasks of a per-task order, and whether they are sent at the same instant. */
  tasks: number;
  tasksAtOnce: boolean;
  /** Expert orders: the buyer asks to cancel (refused before the SLA breach); the operator finishes at once. */
  cancel: boolean;
  engineerNow: boolean;
  item: number;
}

interface CyclePlan {
  cycle: number;
  victim: Victim;
  /** ms into the load. */
  killAtMs: number;
  downMs: number;
  orders: OrderPlan[];
}

/** The whole run, drawn from the seed: the same seed gives the same plan. */
function drawPlan(
  rng: Rng,
  cycles: number,
  perCycle: number,
  loadMs: number,
  victims: readonly Victim[] = VICTIMS,
): CyclePlan[] {
  const plans: CyclePlan[] = [];
  let n = 0;
  for (let c = 1; c <= cycles; c++) {
    const victim = rng.pick(victims);
    const killAtMs = rng.int(Math.round(loadMs * 0.15), Math.round(loadMs * 0.85));
    const downMs = rng.int(500, 4_000);
    const orders: OrderPlan[] = [];
    for (let i = 0; i < perCycle; i++) {
      const kind = rng.weighted(KIND_WEIGHTS);
      // Half the clients create their order early and send its payment in the 300 ms before the kill, so that the kill
      // cuts off payments (debits, settlements, confirmations) in flight; the others start anywhere in the load.
      const nearKill = rng.chance(0.5);
      orders.push({
        n: ++n,
        kind,
        startMs: nearKill ? rng.int(Math.max(0, killAtMs - 3_000), Math.max(0, killAtMs - 1_200)) : rng.int(0, loadMs),
        payAtMs: nearKill ? killAtMs - rng.int(0, 300) : null,
        agent: rng.int(0, AGENTS - 1),
        pay: kind === 'expert' || kind === 'x402_item' || rng.chance(0.85),
        sending: rng.weighted({ once: 55, twice_same: 15, twice_different: 15, twice_no_key: 15 }),
        review: rng.weighted({ accept: 40, reject: 20, none: 25, accept_and_reject: 15 }),
        tasks: kind === 'tasks' ? rng.int(1, 2) : 0,
        tasksAtOnce: rng.chance(0.5),
        cancel: rng.chance(0.7),
        engineerNow: rng.chance(0.5),
        item: rng.int(0, MICRO_ITEMS.length - 1),
      });
    }
    orders.sort((a, b) => a.startMs - b.startMs);
    plans.push({ cycle: c, victim, killAtMs, downMs, orders });
  }
  return plans;
}

/** One request as the client saw it. */
interface Sent {
  what: string;
  status: number;
  code?: string;
  error?: string;
}

/** What one client did and was told. */
interface Flow {
  plan: OrderPlan;
  cycle: number;
  orderId?: string;
  /** Order secret of a payment-link order (the human's credential). */
  secret?: string;
  /** When to send the payment (ms epoch), from `plan.payAtMs`. */
  payAt?: number;
  sent: Sent[];
  /** The newest order status the client saw. */
  seen?: string;
  /** Answers that promise something the books must show. */
  told: {
    created?: boolean;
    paid?: boolean;
    accepted?: boolean;
    rejected?: boolean;
    /** Further tasks answered 201 delivered (task numbers). */
    tasksDelivered: number[];
    itemBought?: boolean;
  };
  /** Concurrent pairs: what was sent twice and the two answers. */
  pairs: Array<{ what: string; answers: string }>;
}

/** Counts one more `col` in row `row` of `table`. */
function tally(table: Record<string, Record<string, number>>, row: string, col: string): void {
  const r = (table[row] ??= {});
  r[col] = (r[col] ?? 0) + 1;
}

const describe = (a: Answer): string => `${a.status}${a.body.code ? ` ${a.body.code}` : ''}`;

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const num = (name: string, dflt: number): number => {
    const v = Number(args.get(name) ?? dflt);
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a number ≥ 0, got ${args.get(name)}`);
    return v;
  };
  const seed = num('seed', 24);
  const cycles = num('cycles', 20);
  const perCycle = num('orders-per-cycle', 8);
  const loadMs = num('load-seconds', 12) * 1000;
  const boundMs = num('bound-seconds', 90) * 1000;
  const paymentDeadlineS = num('payment-deadline-seconds', 45);
  const reviewWindowS = num('review-window-seconds', 15);
  const cluster = args.has('cluster');
  const allowed: readonly Victim[] = cluster ? CLUSTER_VICTIMS : VICTIMS;
  const chosen = args.get('victims')?.split(',') as Victim[] | undefined;
  const unknown = chosen?.filter((v) => !allowed.includes(v));
  if (unknown?.length) throw new Error(`--victims: ${unknown.join(', ')} not among ${allowed.join(', ')}`);
  const plan = drawPlan(seededRandom(seed), cycles, perCycle, loadMs, allowed);
  // --victims a,b,c: cycle n kills the n-th of them (in turn), so a short run covers each once.
  if (chosen?.length) plan.forEach((c, i) => (c.victim = chosen[i % chosen.length]!));
  log(
    `seed ${seed}: ${cycles} cycles of ${perCycle} orders over ${loadMs / 1000} s; victims ${plan
      .map((c) => `${c.victim}@${(c.killAtMs / 1000).toFixed(1)}s+${(c.downMs / 1000).toFixed(1)}s`)
      .join(', ')}`,
  );
  // task-worker does language work: a local stand-in model answers (as in `npm test`), started by the drill itself so
  // that it answers whatever the parent process does (jest's own stand-in lives in a process blocked by spawnSync);
  // `--external-text-model` uses TEXTGEN_BASE_URL / TEXTGEN_MODEL from the environment instead.
  const textModel = args.has('external-text-model') ? undefined : await startFakeTextModel();
  log(
    `starting Temporal, database, x402 chain, worker and API (separate processes, one data folder); text model ${textModel ? `stand-in at ${textModel.baseUrl}` : (process.env.TEXTGEN_BASE_URL ?? 'none')}`,
  );
  const stack = await startDrillStack({
    x402: true,
    ...(cluster ? { cluster: true, apis: 2, workers: 2 } : {}),
    env: {
      ...(textModel ? { TEXTGEN_BASE_URL: textModel.baseUrl, TEXTGEN_MODEL: 'fake-model' } : {}),
      PAYMENT_DEADLINE_SECONDS: String(paymentDeadlineS),
      REVIEW_WINDOW_SECONDS: String(reviewWindowS),
      RATE_LIMIT_BURST_PER_SECOND: '0',
      RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0',
    },
  });
  const api = stack.url;
  const chain = stack.x402!;
  const problems: string[] = [];
  /** Problems found again in a later audit are said once (with the cycle that found them first). */
  const seenProblems = new Set<string>();
  const report = (p: string, when: string) => {
    if (seenProblems.has(p)) return;
    seenProblems.add(p);
    // The client's side of the order, for the post-mortem: what it sent and what it was answered.
    const id = /\b(ord_[A-Za-z0-9_-]+)/.exec(p)?.[1];
    const flow = id ? flows.find((f) => f.orderId === id) : undefined;
    const client = flow
      ? ` [client ${flow.plan.kind} #${flow.plan.n}, cycle ${flow.cycle}: ${flow.sent
          .map((x) => `${x.what} ${x.status === 0 ? 'no answer' : `${x.status}${x.code ? ` ${x.code}` : ''}`}`)
          .join(', ')
          .slice(0, 400)}]`
      : '';
    problems.push(`${when}: ${p}${client}`);
  };
  const figures: Record<string, unknown> = { seed, cycles, orders_per_cycle: perCycle, data_dir: stack.dataDir };
  const flows: Flow[] = [];
  const restarts: Record<string, unknown>[] = [];
  const kills: Partial<Record<Victim, number>> = {};
  /** Orders already reported not final: later cycles do not wait for them again (the end does). */
  const reportedStuck = new Set<string>();
  const ticker = mineBlocks(chain.rpcUrl);

  let hooks: WebhookCounter | undefined;
  try {
    const spendBefore = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const agents: Array<{ id: string; key: string }> = [];
    for (let i = 0; i < AGENTS; i++) {
      const id = `drill-chaos-${i + 1}`;
      agents.push({ id, key: await fundedAgent(api, id, 1_000_000) });
    }
    // Cluster: a client that retries as the API asks (Idempotency-Keys) keeps ordering through every kill; recovery is
    // when its first order created after the kill is delivered.
    const prober = cluster
      ? { id: 'drill-chaos-probe', key: await fundedAgent(api, 'drill-chaos-probe', 1_000_000) }
      : undefined;
    // Cluster: every event of the agents' orders must reach their webhook endpoint (issue 25 §3), whatever died.
    if (cluster) {
      hooks = await startWebhookCounter();
      for (const a of [...agents, ...(prober ? [prober] : [])]) await registerWebhook(api, a.id, a.key, hooks.url);
    }
    const recoveryProbe = async (from: number): Promise<{ deliveredAt: number } | null> => {
      while (prober && Date.now() - from < 120_000) {
        const flow = await orderFlow([api], prober.id, prober.key, newStats(), 120_000);
        if (flow.outcome === 'delivered' && flow.deliveredAt) return { deliveredAt: flow.deliveredAt };
        report(`recovery probe order ${flow.orderId ?? ''}: ${flow.outcome} ${flow.detail ?? ''}`, 'probe');
      }
      return null;
    };

    // ---- The clients: every request once, every answer recorded. ----
    const send = async (
      flow: Flow,
      what: string,
      method: string,
      urlPath: string,
      body?: unknown,
      headers: Record<string, string> = {},
      timeoutMs = 45_000,
    ): Promise<Answer> => {
      const a = await call(api, method, urlPath, body, headers, timeoutMs);
      flow.sent.push({
        what,
        status: a.status,
        ...(a.body.code ? { code: String(a.body.code) } : {}),
        ...(a.error ? { error: a.error } : {}),
      });
      return a;
    };
    const sendForm = async (flow: Flow, what: string, urlPath: string, fields: Record<string, string>) => {
      const a = await postForm(api + urlPath, fields);
      flow.sent.push({ what, status: a.status, ...(a.error ? { error: a.error } : {}) });
      return a;
    };
    /** Two requests at the same instant; the pair of answers is kept. */
    const twice = async (flow: Flow, what: string, one: () => Promise<Answer>, two: () => Promise<Answer>) => {
      const [a, b] = await Promise.all([one(), two()]);
      flow.pairs.push({ what, answers: [describe(a), describe(b)].sort().join(' + ') });
      return [a, b] as const;
    };
    /** Reads the order (GET, not a retry of anything) until `done` says so or the deadline passes. */
    const watch = async (flow: Flow, done: (status: string) => boolean, deadline: number): Promise<string> => {
      while (Date.now() < deadline) {
        const a = await call(api, 'GET', `/api/v1/orders/${flow.orderId}`, undefined, {}, 5_000);
        if (a.status === 200) {
          flow.seen = String(a.body.status);
          if (done(flow.seen)) return flow.seen;
        }
        await sleep(1_000);
      }
      return flow.seen ?? '';
    };
    const reached = (s: string) => s === 'delivered' || FINAL_ORDER_STATUSES.includes(s);
    /** Waits for the client's payment moment, if the plan gave it one. */
    const payMoment = (flow: Flow): Promise<void> => sleep(Math.max(0, (flow.payAt ?? 0) - Date.now()));

    const createAgentOrder = async (flow: Flow, what: { service_id: string; inputs: object }) => {
      const agent = agents[flow.plan.agent]!;
      const c = await send(
        flow,
        'create',
        'POST',
        '/api/v1/orders',
        { ...what, agent_id: agent.id },
        { authorization: `Bearer ${agent.key}`, 'idempotency-key': `chaos-${seed}-${flow.plan.n}-create` },
      );
      if (c.status === 201) {
        flow.orderId = String(c.body.order_id);
        flow.told.created = true;
      }
      return agent;
    };
    const payFromWallet = async (flow: Flow, key: string) => {
      const urlPath = `/api/v1/orders/${flow.orderId}/confirm_payment`;
      const body = { rail: 'agent_wallet' };
      const auth = { authorization: `Bearer ${key}` };
      const idem = (k: string) => ({ ...auth, 'idempotency-key': `chaos-${seed}-${flow.plan.n}-${k}` });
      let answers: readonly Answer[];
      await payMoment(flow);
      if (flow.plan.sending === 'once')
        answers = [await send(flow, 'confirm_payment', 'POST', urlPath, body, idem('pay'))];
      else
        answers = await twice(
          flow,
          `confirm_payment x2 (${flow.plan.sending})`,
          () =>
            send(
              flow,
              'confirm_payment',
              'POST',
              urlPath,
              body,
              flow.plan.sending === 'twice_no_key' ? auth : idem('pay'),
            ),
          () =>
            send(
              flow,
              'confirm_payment',
              'POST',
              urlPath,
              body,
              flow.plan.sending === 'twice_no_key' ? auth : idem(flow.plan.sending === 'twice_same' ? 'pay' : 'pay-b'),
            ),
        );
      if (answers.some((a) => a.status === 200)) flow.told.paid = true;
    };
    const reviewAgentOrder = async (flow: Flow, key: string) => {
      const urlPath = `/api/v1/orders/${flow.orderId}/review`;
      const auth = { authorization: `Bearer ${key}` };
      const note = (action: 'accept' | 'reject', a: Answer) => {
        if (a.status === 200) flow.told[action === 'accept' ? 'accepted' : 'rejected'] = true;
      };
      if (flow.plan.review === 'accept' || flow.plan.review === 'reject') {
        const action = flow.plan.review;
        note(action, await send(flow, `review ${action}`, 'POST', urlPath, { action, reason: 'chaos' }, auth));
      } else if (flow.plan.review === 'accept_and_reject') {
        const [a, r] = await twice(
          flow,
          'review accept + reject',
          () => send(flow, 'review accept', 'POST', urlPath, { action: 'accept' }, auth),
          () => send(flow, 'review reject', 'POST', urlPath, { action: 'reject', reason: 'chaos' }, auth),
        );
        note('accept', a);
        note('reject', r);
      }
    };

    const clients: Record<Kind, (flow: Flow, deadline: number) => Promise<void>> = {
      async wallet(flow, deadline) {
        const agent = await createAgentOrder(flow, AUTOMATION);
        if (!flow.orderId || !flow.plan.pay) return;
        await payFromWallet(flow, agent.key);
        if ((await watch(flow, reached, deadline)) === 'delivered') await reviewAgentOrder(flow, agent.key);
      },
      async x402(flow, deadline) {
        const agent = await createAgentOrder(flow, AUTOMATION);
        if (!flow.orderId || !flow.plan.pay) return;
        const auth = { authorization: `Bearer ${agent.key}` };
        const urlPath = `/x402/orders/${flow.orderId}`;
        const two = flow.plan.sending === 'twice_different' || flow.plan.sending === 'twice_no_key';
        const signed = await x402Sign(api, 'POST', urlPath, auth, two ? 2 : 1);
        flow.sent.push({
          what: 'x402 challenge',
          status: signed.challenge.status,
          ...(signed.challenge.error ? { error: signed.challenge.error } : {}),
        });
        if (signed.signatures.length === 0) return;
        await payMoment(flow);
        const pay = (i: number) =>
          send(flow, 'x402 pay', 'POST', urlPath, undefined, { ...auth, ...signed.signatures[i]! }, 60_000);
        const answers =
          flow.plan.sending === 'once'
            ? [await pay(0)]
            : await twice(
                flow,
                `x402 pay x2 (${two ? 'two payments' : 'same payment'})`,
                () => pay(0),
                () => pay(two ? 1 : 0),
              );
        if (answers.some((a) => a.status === 200)) flow.told.paid = true;
        if ((await watch(flow, reached, deadline)) === 'delivered') await reviewAgentOrder(flow, agent.key);
      },
      async link(flow, deadline) {
        const c = await sendForm(flow, 'link create', `/pay/services/${AUTOMATION.service_id}`, {
          ...AUTOMATION.inputs,
          email: `buyer-${flow.plan.n}@example.com`,
        });
        const location = c.headers.get('location');
        if (c.status !== 302 || !location) return;
        const url = new URL(location, api);
        flow.orderId = url.pathname.split('/').pop();
        flow.secret = url.searchParams.get('secret') ?? undefined;
        flow.told.created = true;
        if (!flow.orderId || !flow.secret || !flow.plan.pay) return;
        const urlPath = `/pay/orders/${flow.orderId}`;
        const fields = { secret: flow.secret, email: `buyer-${flow.plan.n}@example.com` };
        await payMoment(flow);
        const answers =
          flow.plan.sending === 'once'
            ? [await sendForm(flow, 'link pay', urlPath, fields)]
            : await twice(
                flow,
                'link pay x2',
                () => sendForm(flow, 'link pay', urlPath, fields),
                () => sendForm(flow, 'link pay', urlPath, fields),
              );
        if (answers.some((a) => a.status === 200)) flow.told.paid = true;
        if ((await watch(flow, reached, deadline)) !== 'delivered') return;
        const reviewPath = `/pay/orders/${flow.orderId}/review`;
        const review = (action: 'accept' | 'reject') =>
          sendForm(flow, `link review ${action}`, reviewPath, { secret: flow.secret!, action, reason: 'chaos' });
        const note = (action: 'accept' | 'reject', a: Answer) => {
          if (a.status === 200) flow.told[action === 'accept' ? 'accepted' : 'rejected'] = true;
        };
        if (flow.plan.review === 'accept' || flow.plan.review === 'reject')
          note(flow.plan.review, await review(flow.plan.review));
        else if (flow.plan.review === 'accept_and_reject') {
          const [a, r] = await twice(
            flow,
            'link review accept + reject',
            () => review('accept'),
            () => review('reject'),
          );
          note('accept', a);
          note('reject', r);
        }
      },
      async tasks(flow, deadline) {
        const agent = await createAgentOrder(flow, TASK_WORKER);
        if (!flow.orderId || !flow.plan.pay) return;
        await payFromWallet(flow, agent.key);
        if ((await watch(flow, reached, deadline)) !== 'delivered') return;
        const auth = { authorization: `Bearer ${agent.key}` };
        const submit = (i: number) =>
          send(
            flow,
            'task',
            'POST',
            `/api/v1/orders/${flow.orderId}/tasks`,
            { task_prompt: `Compare two CRM tools, round ${i + 1}`, format: 'json' },
            auth,
          );
        const answers: Answer[] = [];
        if (flow.plan.tasks > 1 && flow.plan.tasksAtOnce)
          answers.push(
            ...(await twice(
              flow,
              'task x2',
              () => submit(0),
              () => submit(1),
            )),
          );
        else for (let i = 0; i < flow.plan.tasks; i++) answers.push(await submit(i));
        for (const a of answers)
          if (a.status === 201 && a.body.status === 'delivered') flow.told.tasksDelivered.push(Number(a.body.task));
        await reviewAgentOrder(flow, agent.key);
      },
      async expert(flow, deadline) {
        const agent = await createAgentOrder(flow, EXPERT);
        if (!flow.orderId) return;
        await payFromWallet(flow, agent.key);
        const auth = { authorization: `Bearer ${agent.key}` };
        const s = await watch(flow, (x) => PARKED_ORDER_STATUSES.includes(x) || reached(x), deadline);
        if (!PARKED_ORDER_STATUSES.includes(s)) return;
        // Before the SLA breach a cancel is refused (409); it must move no money either way.
        if (flow.plan.cancel)
          await send(flow, 'expert cancel', 'POST', `/api/v1/orders/${flow.orderId}/cancel`, { reason: 'chaos' }, auth);
        if (!flow.plan.engineerNow) return;
        const base = `/api/v1/engineering/${flow.orderId}`;
        if (
          (await send(flow, 'engineer claim', 'POST', `${base}/claim`, { engineer: ENGINEER }, OPERATOR)).status !== 200
        )
          return;
        if (
          (await send(flow, 'engineer upload', 'POST', `${base}/deliverables`, ENGINEER_FILE, OPERATOR)).status !== 201
        )
          return;
        if (
          (await send(flow, 'engineer ready', 'POST', `${base}/ready`, { engineer: ENGINEER }, OPERATOR)).status !== 200
        )
          return;
        if ((await watch(flow, reached, deadline)) === 'delivered') await reviewAgentOrder(flow, agent.key);
      },
      async x402_item(flow) {
        const item = MICRO_ITEMS[flow.plan.item]!;
        const urlPath = `/x402/item/${item.id}`;
        const two = flow.plan.sending === 'twice_different' || flow.plan.sending === 'twice_no_key';
        const signed = await x402Sign(api, 'GET', urlPath, {}, two ? 2 : 1);
        flow.sent.push({
          what: 'x402 challenge',
          status: signed.challenge.status,
          ...(signed.challenge.error ? { error: signed.challenge.error } : {}),
        });
        if (signed.signatures.length === 0) return;
        await payMoment(flow);
        const buy = (i: number) => send(flow, 'x402 item', 'GET', urlPath, undefined, signed.signatures[i]!, 60_000);
        const answers =
          flow.plan.sending === 'once'
            ? [await buy(0)]
            : await twice(
                flow,
                `x402 item x2 (${two ? 'two payments' : 'same payment'})`,
                () => buy(0),
                () => buy(two ? 1 : 0),
              );
        if (answers.some((a) => a.status === 200)) flow.told.itemBought = true;
      },
    };

    // ---- Kills and restarts. ----
    /** The first process of a cluster service (the drill kills one of each replicated tier). */
    const temporalProcess = (service: 'history' | 'matching' | 'frontend') => {
      const p = stack.cluster?.processes.find((x) => x.service === service);
      if (!p) throw new Error(`no ${service} process: --cluster victims need the cluster`);
      return p;
    };
    const kill = async (victim: Victim): Promise<void> => {
      if (victim === 'history' || victim === 'matching' || victim === 'frontend') await temporalProcess(victim).kill();
      else if (victim === 'temporal_postgres') await stack.cluster!.postgres.kill();
      else if (victim === 'stack') await stack.killAll();
      else if (victim === 'temporal') await stack.killTemporal();
      else if (victim === 'database') await stack.killDatabase();
      else if (victim === 'api') await stack.apis[0]!.kill();
      else await stack.workers[0]!.kill();
    };
    const restart = async (victim: Victim): Promise<void> => {
      if (victim === 'history' || victim === 'matching' || victim === 'frontend') temporalProcess(victim).start();
      else if (victim === 'temporal_postgres') await stack.cluster!.postgres.start();
      else if (victim === 'stack') await stack.startAll();
      else if (victim === 'temporal') await stack.startTemporal();
      else if (victim === 'database') await stack.startDatabase();
      else if (victim === 'api') await stack.startApi(0);
      else await stack.startWorker(0);
    };
    /** Restarts, trying again twice after a failed start (what failed is reported, not hidden). */
    const restartWithRetries = async (victim: Victim, cycle: number): Promise<boolean> => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        try {
          await restart(victim);
          return true;
        } catch (err) {
          report(
            `restart of ${victim} failed (attempt ${attempt}): ${err instanceof Error ? err.message.slice(0, 300) : String(err)}`,
            `cycle ${cycle}`,
          );
          if (victim === 'stack') await stack.killAll().catch(() => undefined);
          await sleep(2_000);
        }
      }
      return false;
    };

    /**
     * Waits until every order is final (expert orders may wait for their engineer when `parkedIsFinal`), every task
     * ended and every x402 settlement settled or failed, or the deadline. A claim `settling` or `pending` blocks only
     * with `claimsBlock`: one whose authorization was never used is failed by the service only after it expires plus
     * a 120 s grace (minutes), so cycles do not wait for it; the end does, then asks the chain.
     */
    /**
     * The orders not final that count, `skip` aside. Unless open claims block, an order held by an open x402 claim
     * is as final as the claim.
     */
    const stuckOrders = (audit: BooksAudit, skip: Set<string>, claimsBlock: boolean): string[] => {
      const held = claimsBlock ? new Set<string>() : ordersHeldByClaims(audit);
      return [...audit.notFinal.keys()].filter((id) => !skip.has(id) && !held.has(id));
    };
    const waitFinal = async (
      deadline: number,
      opts: { parkedIsFinal: boolean; claimsBlock: boolean; skip?: Set<string> },
    ): Promise<{ audit: BooksAudit | undefined; doneAt: number | undefined }> => {
      let audit: BooksAudit | undefined;
      for (;;) {
        try {
          audit = await auditBooks(stack, { parkedIsFinal: opts.parkedIsFinal });
        } catch {
          audit = undefined; // the database may still be recovering
        }
        if (audit) {
          const orders = stuckOrders(audit, opts.skip ?? new Set(), opts.claimsBlock);
          const open = [...audit.unsettled.entries()].filter(
            ([k, state]) => !opts.skip?.has(k) && (opts.claimsBlock || (state !== 'pending' && state !== 'settling')),
          );
          if (orders.length === 0 && open.length === 0) return { audit, doneAt: Date.now() };
        }
        if (Date.now() > deadline) return { audit, doneAt: undefined };
        await sleep(1_000);
      }
    };
    /** The workflow behind each order that is not final: status and the newest failed workflow task. */
    const diagnose = async (ids: string[]): Promise<Map<string, string>> => {
      const out = new Map<string, string>();
      if (ids.length === 0) return out;
      try {
        const wfs = await orderWorkflows(stack, ids.slice(0, 30));
        for (const id of ids) {
          const w = wfs.get(id);
          if (w)
            out.set(
              id,
              `workflow ${w.status}${w.taskFailures ? `, ${w.taskFailures} failed workflow tasks, last: ${w.lastTaskFailure}` : ''}`,
            );
        }
      } catch (err) {
        for (const id of ids) out.set(id, `workflow not read: ${err instanceof Error ? err.message : String(err)}`);
      }
      return out;
    };
    const reportNotFinal = async (
      audit: BooksAudit | undefined,
      when: string,
      skip: Set<string>,
      claimsBlock: boolean,
    ) => {
      if (!audit) {
        report('the books could not be read from the database', when);
        return;
      }
      const ids = stuckOrders(audit, skip, claimsBlock);
      const why = await diagnose(ids);
      for (const id of ids) {
        reportedStuck.add(id);
        report(`order ${id} not final in time: ${audit.notFinal.get(id)}; ${why.get(id) ?? 'no workflow found'}`, when);
      }
      for (const [k, state] of audit.unsettled) {
        if (skip.has(k) || (!claimsBlock && (state === 'settling' || state === 'pending'))) continue;
        reportedStuck.add(k);
        report(`${k} not final in time: ${state}`, when);
      }
    };

    // ---- The cycles. ----
    for (const c of plan) {
      const cycleStart = Date.now();
      const where = `cycle ${c.cycle} (${c.victim})`;
      const running: Promise<void>[] = [];
      const launch = (async () => {
        for (const p of c.orders) {
          await sleep(Math.max(0, cycleStart + p.startMs - Date.now()));
          const flow: Flow = {
            plan: p,
            cycle: c.cycle,
            sent: [],
            told: { tasksDelivered: [] },
            pairs: [],
            ...(p.payAtMs !== null ? { payAt: cycleStart + p.payAtMs } : {}),
          };
          flows.push(flow);
          const deadline = Date.now() + loadMs + 5_000 + boundMs;
          running.push(
            clients[p.kind](flow, deadline).catch((err: unknown) => {
              flow.sent.push({
                what: 'client error',
                status: -1,
                error: err instanceof Error ? err.message : String(err),
              });
            }),
          );
        }
      })();
      // A look at the orders half a second before the kill (the kill itself is not delayed by it).
      let atKill: Record<string, number> = {};
      const snapshot = (async () => {
        await sleep(Math.max(0, cycleStart + c.killAtMs - 500 - Date.now()));
        try {
          const a = await auditBooks(stack, { parkedIsFinal: true });
          for (const s of a.notFinal.values()) {
            const st = s.split(',')[0]!;
            atKill[st] = (atKill[st] ?? 0) + 1;
          }
        } catch {
          atKill = { unknown: -1 };
        }
      })();
      await sleep(Math.max(0, cycleStart + c.killAtMs - Date.now()));
      const killAt = Date.now();
      const probe = cluster ? recoveryProbe(killAt) : undefined;
      await kill(c.victim);
      kills[c.victim] = (kills[c.victim] ?? 0) + 1;
      const killMs = since(killAt);
      await snapshot;
      log(`${where}: SIGKILLed ${c.victim} (orders not final 0.5 s before: ${JSON.stringify(atKill)})`);
      await sleep(c.downMs);
      const restartAt = Date.now();
      const restarted = await restartWithRetries(c.victim, c.cycle);
      const restartMs = since(restartAt);
      const healthy = restarted
        ? await until(
            async () => ((await call(api, 'GET', '/health', undefined, {}, 2_000)).status === 200 ? true : undefined),
            60_000,
            200,
          )
        : undefined;
      const healthyMs = since(restartAt);
      await launch;
      await Promise.all(running);
      const deadline = Math.max(Date.now(), restartAt + boundMs);
      const { audit, doneAt } = await waitFinal(deadline, {
        parkedIsFinal: true,
        claimsBlock: false,
        skip: reportedStuck,
      });
      const finalMs = doneAt !== undefined ? doneAt - restartAt : null;
      // From the orders' own progress times: the first delivery after the restart, and what became of the orders whose
      // payment was sent in the 300 ms before the kill.
      const deliveredAt = (o: OrderDoc): number | undefined => {
        const at = o.progress.find((p) => p.status === 'delivered' && !p.event)?.at;
        return at ? Date.parse(at) : undefined;
      };
      const afterRestart = (audit?.orders ?? [])
        .map(deliveredAt)
        .filter((t): t is number => t !== undefined && t >= restartAt);
      const payingAtKill = flows.filter((f) => f.cycle === c.cycle && f.payAt !== undefined && f.orderId);
      const payingDelivered = payingAtKill
        .map((f) => audit?.orders.find((o) => o._id === f.orderId))
        .map((o) => (o ? deliveredAt(o) : undefined))
        .filter((t): t is number => t !== undefined);
      const payingStatus: Record<string, number> = {};
      for (const f of payingAtKill) {
        const st = audit?.orders.find((o) => o._id === f.orderId)?.status ?? 'not in the database';
        payingStatus[st] = (payingStatus[st] ?? 0) + 1;
      }
      const probed = probe ? await probe : undefined;
      restarts.push({
        cycle: c.cycle,
        victim: c.victim,
        ...(probe
          ? {
              // A retrying client's first order after the kill, delivered: from the kill, and from the restart.
              recovery_from_kill_ms: probed ? probed.deliveredAt - killAt : null,
              recovery_from_restart_ms: probed ? Math.max(0, probed.deliveredAt - restartAt) : null,
            }
          : {}),
        killed_at_load_ms: c.killAtMs,
        kill_ms: killMs,
        down_ms: c.downMs,
        restart_ms: restartMs,
        api_healthy_after_restart_ms: healthy ? healthyMs : null,
        first_delivery_after_restart_ms: afterRestart.length ? Math.min(...afterRestart) - restartAt : null,
        // A replicated tier serves on while one process is down: its recovery counts from the kill.
        first_delivery_after_kill_ms: (() => {
          const t = (audit?.orders ?? []).map(deliveredAt).filter((x): x is number => x !== undefined && x >= killAt);
          return t.length ? Math.min(...t) - killAt : null;
        })(),
        paying_at_kill: payingAtKill.length,
        paying_at_kill_now: payingStatus,
        // 0: all of them delivered by the time the victim was back.
        paying_at_kill_last_delivered_after_restart_ms: payingDelivered.length
          ? Math.max(0, ...payingDelivered.map((t) => t - restartAt))
          : null,
        all_final_after_restart_ms: finalMs,
        not_final_before_kill: atKill,
      });
      log(
        `${where}: restarted in ${restartMs} ms, API healthy after ${healthy ? `${healthyMs} ms` : 'never'}, every order final ${finalMs !== null ? `${finalMs} ms after the restart` : `NOT within ${boundMs / 1000} s`}`,
      );
      if (!restarted) {
        report(`${c.victim} could not be restarted; the drill stops here`, where);
        break;
      }
      if (!healthy) report('/health not 200 within 60 s of the restart', where);
      if (doneAt === undefined) await reportNotFinal(audit, where, reportedStuck, false);
      if (audit) for (const p of audit.problems) report(p, where);
    }

    // ---- The end: the engineer finishes the expert orders still waiting, then everything must be final. ----
    log('load over: the operator finishes the expert orders still waiting for an engineer');
    const waiting = await waitFinal(Date.now(), { parkedIsFinal: false, claimsBlock: false });
    const parked = (waiting.audit?.orders ?? []).filter((o) => PARKED_ORDER_STATUSES.includes(o.status));
    const finisher: Flow = {
      plan: {
        n: 0,
        kind: 'expert',
        startMs: 0,
        payAtMs: null,
        agent: 0,
        pay: true,
        sending: 'once',
        review: 'none',
        tasks: 0,
        tasksAtOnce: false,
        cancel: false,
        engineerNow: true,
        item: 0,
      },
      cycle: 0,
      sent: [],
      told: { tasksDelivered: [] },
      pairs: [],
    };
    for (const o of parked) {
      const base = `/api/v1/engineering/${o._id}`;
      const eng = o.engineering;
      if (!eng?.engineer)
        await send(finisher, 'engineer claim (end)', 'POST', `${base}/claim`, { engineer: ENGINEER }, OPERATOR);
      else if (eng.engineer !== ENGINEER)
        await send(
          finisher,
          'engineer claim (end)',
          'POST',
          `${base}/claim`,
          { engineer: ENGINEER, reassign: true },
          OPERATOR,
        );
      if (!eng?.uploads.length)
        await send(finisher, 'engineer upload (end)', 'POST', `${base}/deliverables`, ENGINEER_FILE, OPERATOR);
      await send(finisher, 'engineer ready (end)', 'POST', `${base}/ready`, { engineer: ENGINEER }, OPERATOR);
    }
    figures.expert_orders_finished_at_the_end = parked.length;
    const end = await waitFinal(Date.now() + boundMs, { parkedIsFinal: false, claimsBlock: true });
    if (end.doneAt === undefined) {
      // x402 claims still open: the chain says whether their authorization was used. Unused, nothing moved and the
      // service fails them once they expire (plus its grace); used, the money moved and the ledger has not caught up.
      const unused = await unusedAuthorizations(chain.rpcUrl, end.audit?.unsettledX402 ?? []);
      figures.x402_claims_open_at_the_end_nothing_moved = unused.size;
      // Their orders wait for them (expired once the service fails the claim): counted, not reported.
      const heldOrders = end.audit ? ordersHeldByClaims(end.audit, unused) : new Set<string>();
      figures.orders_awaiting_those_claims = heldOrders.size;
      await reportNotFinal(end.audit, 'end', new Set([...unused, ...heldOrders]), true);
    }

    // ---- The books, by the drill itself. ----
    const spendAfter = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
    const books = await auditBooks(stack, {
      buyer: ANVIL_ADDRESSES.buyer,
      buyerSpentMicros: spendBefore - spendAfter,
    });
    for (const p of books.problems) report(p, 'end');
    const byId = new Map(books.orders.map((o) => [o._id, o]));
    // What clients were told must hold in the books.
    for (const f of flows) {
      const o = f.orderId ? byId.get(f.orderId) : undefined;
      const who = `${f.plan.kind} order ${f.orderId ?? '?'} (cycle ${f.cycle})`;
      if (f.told.created && !o) report(`${who}: created (201) but not in the database (lost order)`, 'end');
      if (!o) continue;
      if (f.told.paid && !o.payment)
        report(`${who}: the client was told paid (200) but the order is ${o.status} without a payment`, 'end');
      if (f.told.accepted && f.told.rejected) report(`${who}: accept and reject both answered 200`, 'end');
      if (f.told.accepted && o.status !== 'accepted')
        report(`${who}: accept answered 200 but the order is ${o.status}`, 'end');
      if (f.told.rejected && o.status !== 'rejected')
        report(`${who}: reject answered 200 but the order is ${o.status}`, 'end');
    }
    const db = (await stack.mongo()).db(stack.dbName);
    for (const f of flows.filter((x) => x.told.tasksDelivered.length > 0)) {
      for (const n of f.told.tasksDelivered) {
        const t = await db
          .collection<{ _id: string; status: string }>('order_tasks')
          .findOne({ _id: `${f.orderId}#${n}` });
        if (t?.status !== 'delivered')
          report(`task ${f.orderId}#${n}: answered 201 delivered, the books say ${t?.status ?? 'no task'}`, 'end');
      }
    }
    // Every order Temporal knows is in the database; no order workflow failed.
    try {
      const wfs = await orderWorkflows(stack);
      for (const [id, w] of wfs) {
        if (!byId.has(id))
          report(`order workflow order-${id} (${w.status}) has no order in the database (lost order)`, 'end');
        if (w.status === 'FAILED' || w.status === 'TERMINATED' || w.status === 'TIMED_OUT')
          report(`order workflow order-${id} ended ${w.status}`, 'end');
      }
      figures.order_workflows = Object.fromEntries(
        [...new Set([...wfs.values()].map((w) => w.status))].map((s) => [
          s,
          [...wfs.values()].filter((w) => w.status === s).length,
        ]),
      );
    } catch (err) {
      report(
        `Temporal's order workflows could not be listed: ${err instanceof Error ? err.message : String(err)}`,
        'end',
      );
    }
    log(`books (drill's own audit): ${JSON.stringify(books.figures)}; ${problems.length} problems so far`);

    // ---- Then the service's own reconciliation. ----
    const rec = await operatorReconciliation(api);
    const recFigures: Record<string, unknown> = { status: rec.status };
    if (rec.status === 404)
      report('POST /api/v1/operator/reconciliation answered 404: the service has no reconciliation yet', 'end');
    else if (rec.status !== 200)
      report(
        `POST /api/v1/operator/reconciliation answered ${rec.status} ${rec.error ?? JSON.stringify(rec.body).slice(0, 300)}`,
        'end',
      );
    else {
      const repaired = Array.isArray(rec.body.repaired) ? (rec.body.repaired as unknown[]) : [];
      const discrepancies = Array.isArray(rec.body.discrepancies) ? (rec.body.discrepancies as unknown[]) : [];
      Object.assign(recFigures, {
        ok: rec.body.ok,
        repaired: repaired.length,
        discrepancies: discrepancies.length,
        totals: rec.body.totals,
      });
      if (rec.body.ok !== true) report(`the service's reconciliation says ok: ${String(rec.body.ok)}`, 'end');
      for (const d of discrepancies.slice(0, 20))
        report(`the service's reconciliation: discrepancy ${JSON.stringify(d).slice(0, 300)}`, 'end');
      if (repaired.length > 0) {
        recFigures.repaired_sample = repaired.slice(0, 10);
        // What the repairs left: the drill's audit again once the repaired orders are final.
        const after = await waitFinal(Date.now() + boundMs, { parkedIsFinal: false, claimsBlock: true });
        const spendNow = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
        const again = await auditBooks(stack, {
          buyer: ANVIL_ADDRESSES.buyer,
          buyerSpentMicros: spendBefore - spendNow,
        });
        recFigures.drill_audit_after_repairs = {
          problems: again.problems.length,
          not_final: after.audit?.notFinal.size ?? null,
          sample: again.problems.slice(0, 5),
        };
      }
    }
    figures.reconciliation = recFigures;
    log(`reconciliation: ${JSON.stringify(recFigures).slice(0, 600)}`);

    // ---- Cluster: a deliverable whichever worker produced is served byte for byte by every API (issue 25 §3). ----
    if (cluster) {
      const delivered = books.orders.filter((o) => o.deliverables.length > 0).slice(0, 6);
      let fetched = 0;
      for (const o of delivered) {
        const d = o.deliverables[0]!;
        for (const [i, p] of stack.apis.entries()) {
          const url = `${p.url!}/api/v1/orders/${o._id}/deliverables/${encodeURIComponent(d.name)}`;
          const res = await fetch(url, { signal: AbortSignal.timeout(20_000) }).catch((err: unknown) => err as Error);
          if (res instanceof Error || res.status !== 200) {
            report(
              `${d.name} of ${o._id} from API ${i + 1}: ${res instanceof Error ? res.message : res.status}`,
              'end',
            );
            continue;
          }
          const sha = createHash('sha256')
            .update(Buffer.from(await res.arrayBuffer()))
            .digest('hex');
          if (sha !== d.sha256)
            report(`${d.name} of ${o._id} from API ${i + 1}: sha256 ${sha}, recorded ${d.sha256}`, 'end');
          else fetched++;
        }
      }
      figures.deliverables_fetched_from_each_api = { orders: delivered.length, apis: stack.apis.length, ok: fetched };
      if (hooks) {
        const agentIds = new Set([...agents.map((a) => a.id), 'drill-chaos-probe']);
        const ids = books.orders.filter((o) => o.agent_id && agentIds.has(o.agent_id)).map((o) => o._id);
        const counter = hooks;
        const missing = await awaitUndelivered(stack, ids, counter, 90_000);
        figures.webhooks = {
          orders: ids.length,
          events_received: counter.byId.size,
          undelivered: missing.length,
          received_twice_or_more: [...counter.byId.values()].filter((n) => n > 1).length,
        };
        for (const m of missing.slice(0, 10)) report(`webhook event never delivered: ${m}`, 'end');
      }
      if (delivered.length === 0) report('no delivered order to fetch a deliverable of', 'end');
    }

    // ---- Figures. ----
    const kindOf = new Map(flows.filter((f) => f.orderId).map((f) => [f.orderId!, f.plan.kind]));
    const byRail: Record<string, Record<string, number>> = {};
    const byKind: Record<string, Record<string, number>> = {};
    for (const o of books.orders) {
      const rail = o.payment?.rail ?? 'unpaid';
      tally(byRail, rail, o.status);
      const kind = kindOf.get(o._id) ?? `${o.service_id} (id never told to a client)`;
      tally(byKind, kind, o.status);
    }
    const answers: Record<string, Record<string, number>> = {};
    const errors: string[] = [];
    for (const s of [...flows, finisher].flatMap((f) => f.sent)) {
      tally(answers, s.what, s.status === 0 ? 'no answer' : `${s.status}${s.code ? ` ${s.code}` : ''}`);
      if (s.status === -1 && s.error) errors.push(s.error);
    }
    for (const e of errors.slice(0, 5)) report(`client error (a bug of the drill): ${e}`, 'end');
    // Cluster: with replicas behind the balancer a client may see a retryable 503, never another 5xx (issue 25 §3).
    if (cluster) {
      for (const x of [...flows, finisher].flatMap((f) => f.sent).filter((x) => x.status >= 500 && x.status !== 503))
        report(`a client was answered ${x.status}${x.code ? ` ${x.code}` : ''} to ${x.what}`, 'end');
    }
    const pairs: Record<string, Record<string, number>> = {};
    for (const p of flows.flatMap((f) => f.pairs)) {
      tally(pairs, p.what, p.answers);
    }
    const tasks = await db.collection<{ status: string }>('order_tasks').find({}).toArray();
    Object.assign(figures, {
      kills_by_victim: kills,
      clients: flows.length,
      orders: books.orders.length,
      orders_by_rail_and_status: byRail,
      orders_by_kind_and_status: byKind,
      further_tasks_by_status: tasks.reduce<Record<string, number>>(
        (m, t) => ({ ...m, [t.status]: (m[t.status] ?? 0) + 1 }),
        {},
      ),
      restarts,
      books: books.figures,
      answers_seen_by_clients: answers,
      duplicates_sent_together: pairs,
    });
  } catch (err) {
    problems.push(`drill error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    clearInterval(ticker);
    await hooks?.close().catch(() => undefined);
    await textModel?.stop().catch(() => undefined);
    // A failed run keeps its data folder and logs for the post-mortem (Temporal histories, database, process logs).
    const keep = args.has('keep') || problems.length > 0;
    await stopAll(stack, keep);
    if (keep) log(`data and logs kept in ${stack.dataDir}`);
  }
  figures.total_s = Math.round(since(t0) / 1000);
  finish('chaos', figures, problems);
}

/** Stops every process of the stack, whatever the kills left running. */
async function stopAll(stack: DrillStack, keep: boolean): Promise<void> {
  await stack.stop({ keepData: keep }).catch(async (err: unknown) => {
    console.error(`stopping the stack: ${err instanceof Error ? err.message : String(err)}; killing what is left`);
    await stack.killAll().catch(() => undefined);
    await stack.x402?.stop().catch(() => undefined);
  });
}
