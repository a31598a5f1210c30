/**
 * Drill `model` (issue 36 §2): a model-based checker of the books and of who sees what. fast-check generates command
 * sequences (`fc.commands`, run by `fc.asyncModelRun`) against a stack of separate processes (API, worker, Temporal,
 * FerretDB, the local chain and facilitator), through the public interfaces only: REST, x402 through `@x402/fetch`,
 * the hosted payment page. Commands: buyers create orders; pay them on each rail (wallet, x402, payment link), twice
 * at once on one rail or on two rails at once; review them as the buyer, a stranger or nobody; strangers read the
 * public x402 ledger; partner quotes; the MCP tools (the owner pays, a stranger reviews); malformed input; an operator
 * terminates an order's workflow; ACP checkout sessions paid by a delegated wallet token; per-task orders take further tasks under Idempotency-Keys, retried by their client; the API, the worker, Temporal or the database is SIGKILLed and restarted at random
 * points, alone or during a payment.
 *
 * Invariants, checked after every run once the stack is quiet:
 * - each order's net charge (chain + wallet + link − refunds) is its price when it holds goods and 0 otherwise;
 * - the books audit of scripts/drills/lib.ts finds nothing (wallets = their movements, every charge that is not an
 *   order's payment given back, the buyer's on-chain spend = the x402 ledger net of refunds);
 * - no answer to anyone but the owner carries another buyer's order id or agent key (strangers and the public ledger);
 * - no 5xx but the documented retryable 503 (answers cut by a kill count as none);
 * - a task order holds no more task debits than distinct Idempotency-Keys its tasks were sent with;
 * - every closed order history of the run replays against the workflow code;
 * - the service's own reconciliation reports 0 discrepancies, but one the model expects: an order whose workflow an
 *   operator terminated after payment is held for that operator (`workflow_missing`).
 * A failing run prints the seed, its path and the shortest command sequence fast-check shrank it to.
 *
 * Options: --runs N (default 5), --seed S (default: time), --commands M (max per run, default 12), --path P (replay).
 */
import { Client, Connection } from '@temporalio/client';
import {
  DefaultLogger,
  Runtime,
  Worker,
  bundleWorkflowCode,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import fc from 'fast-check';
import { startFakeTextModel } from '../../test/helpers/fakeTextModel';
import { ANVIL_ADDRESSES, usdcBalanceOf } from '../lib/chain';
import {
  AUTOMATION,
  OPERATOR_KEY,
  KEEPS_PAYMENT,
  auditBooks,
  call,
  finish,
  fundedAgent,
  logger,
  operatorReconciliation,
  payingFetch,
  postForm,
  sleep,
  startDrillStack,
  type Answer,
  type DrillStack,
} from './lib';

/** One order as the model knows it: whose it is and what the model expects of it. */
interface ModelOrder {
  id: string;
  buyer: number;
  /** Its workflow was terminated by an operator: every action must answer 4xx from now on. */
  terminated: boolean;
  /** A task-worker order (per-task billing): the `Idempotency-Key`s its further tasks were sent with. */
  taskKeys?: Set<string>;
}

/** The model: the run's buyers (agent ids and keys) and their orders. */
interface Model {
  buyers: { id: string; key: string }[];
  orders: ModelOrder[];
}

/** The real system: the stack, a Temporal client for operator actions, and what the run observed. */
interface Real {
  stack: DrillStack;
  temporal: Client;
  pay: typeof fetch;
  /** Violations seen while commands ran (5xx, a stranger shown another buyer's order). */
  violations: string[];
  /** Every order id created in this run and its owner's key: what strangers must never be shown. */
  secrets: Map<string, string>;
  /** The workflow bundle closed histories are replayed against (built once). */
  bundle?: WorkflowBundleWithSourceMap;
  /** Histories replayed so far. */
  replayed: number;
  /** The ACP platform key the operator issued for the drill. */
  platformKey: string;
  /**
   * Orders whose workflow an operator terminated, over the whole drill: one past awaiting payment is held for an
   * operator (`workflow_missing`), which is that action's expected outcome, not a broken book.
   */
  terminated: Set<string>;
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** The reconciliation's grace period on the drill's stack, seconds. */
const GRACE_SECONDS = 5;

const base = (r: Real): string => r.stack.url;

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

/** Records a 5xx other than the retryable 503 (status 0: the answer was cut by a kill, allowed). */
function expectNo5xx(r: Real, what: string, a: { status: number; body?: unknown }): void {
  if (a.status >= 500 && a.status !== 503) {
    r.violations.push(`${what}: ${a.status} ${JSON.stringify(a.body ?? {}).slice(0, 300)}`);
  }
}

/** Records any order id or agent key of this run in an answer given to someone who does not own it. */
function expectNothingOf(r: Real, what: string, text: string, owner?: string): void {
  for (const [orderId, key] of r.secrets) {
    if (orderId === owner) continue;
    if (text.includes(orderId)) r.violations.push(`${what}: shows order ${orderId} to a stranger`);
    if (text.includes(key) && key !== owner) r.violations.push(`${what}: shows another buyer's key`);
  }
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** Pays order `o` on `rail` as its buyer would; answers the status (0: no answer). */
async function payOn(m: Model, r: Real, o: ModelOrder, rail: Rail): Promise<Answer> {
  const key = m.buyers[o.buyer]!.key;
  if (rail === 'wallet') {
    return call(base(r), 'POST', `/api/v1/orders/${o.id}/confirm_payment`, {}, auth(key), 30_000);
  }
  if (rail === 'link') return postForm(`${base(r)}/pay/orders/${o.id}`, { email: 'buyer@example.com' }, 30_000);
  const t0 = Date.now();
  try {
    const res = await r.pay(`${base(r)}/x402/orders/${o.id}`, {
      method: 'POST',
      headers: auth(key),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body, ms: Date.now() - t0 };
  } catch (err) {
    return { status: 0, headers: new Headers(), body: {}, ms: Date.now() - t0, error: String(err) };
  }
}

type Rail = 'wallet' | 'x402' | 'link';
const RAILS: Rail[] = ['wallet', 'x402', 'link'];

/** Checks a payment's answer: never 5xx; on a terminated order never 2xx. */
function checkPay(r: Real, o: ModelOrder, rail: Rail, a: Answer): void {
  expectNo5xx(r, `pay ${o.id} on ${rail}`, a);
  if (o.terminated && a.status >= 200 && a.status < 300 && rail !== 'link') {
    r.violations.push(`pay ${o.id} on ${rail}: ${a.status} after its workflow was terminated`);
  }
}

/**
 * Creates an order of automation-wf for buyer `buyer` (through partner `partner`'s quote when given) and adds it to
 * the model; records a 5xx.
 */
async function createOrder(m: Model, r: Real, buyer: number, partner?: string, tasks = false): Promise<void> {
  const i = buyer % m.buyers.length;
  const b = m.buyers[i]!;
  let quote: { quote_id?: unknown } = {};
  if (partner) {
    const q = await call(base(r), 'POST', '/api/v1/quote', { service_id: AUTOMATION.service_id, partner_id: partner });
    expectNo5xx(r, 'partner quote', q);
    if (q.status !== 201 && q.status !== 200) return;
    quote = { quote_id: q.body.quote_id };
  }
  const a = await call(
    base(r),
    'POST',
    '/api/v1/orders',
    tasks
      ? { service_id: 'task-worker', agent_id: b.id, inputs: TASK_INPUTS }
      : { ...(partner ? quote : { service_id: AUTOMATION.service_id }), agent_id: b.id, inputs: AUTOMATION.inputs },
    auth(b.key),
    30_000,
  );
  expectNo5xx(r, partner ? 'create partner order' : 'create order', a);
  if (a.status !== 201) return;
  const id = a.body.order_id as string;
  m.orders.push({ id, buyer: i, terminated: false, ...(tasks ? { taskKeys: new Set<string>() } : {}) });
  r.secrets.set(id, b.key);
}

class CreateOrder implements Cmd {
  constructor(readonly buyer: number) {}
  check = () => true;
  run = (m: Model, r: Real) => createOrder(m, r, this.buyer);
  toString = () => `CreateOrder(buyer ${this.buyer})`;
}

const TASK_INPUTS = { task_prompt: 'Compare three CRM tools for a 5-person agency', format: 'markdown' };

/** A task-worker order: its first task is the order; further tasks are charged one by one from the wallet. */
class CreateTaskOrder implements Cmd {
  constructor(readonly buyer: number) {}
  check = () => true;
  run = (m: Model, r: Real) => createOrder(m, r, this.buyer, undefined, true);
  toString = () => `CreateTaskOrder(buyer ${this.buyer})`;
}

/**
 * A further task under an `Idempotency-Key`, sent by a client that retries with the same key when its answer was cut
 * or 5xx (a kill of the API may fall in the middle, `kill`): whatever happens, one key is at most one charge.
 */
class Task implements Cmd {
  constructor(
    readonly order: number,
    readonly key: number,
    readonly kill?: Kill,
  ) {}
  check = (m: Readonly<Model>) => m.orders.some((o) => o.taskKeys);
  async run(m: Model, r: Real) {
    const mine = m.orders.filter((o) => o.taskKeys);
    const o = mine[this.order % mine.length]!;
    const key = `task-${this.key}`;
    o.taskKeys!.add(key);
    const send = () =>
      call(
        base(r),
        'POST',
        `/api/v1/orders/${o.id}/tasks`,
        { task_prompt: `Task ${this.key}: summarise a lead list`, format: 'markdown' },
        { ...auth(m.buyers[o.buyer]!.key), 'idempotency-key': key },
        60_000,
      );
    let [a] = await Promise.all([send(), this.kill?.run(m, r)]);
    for (let retry = 0; retry < 3 && (a.status === 0 || a.status >= 500 || a.status === 409); retry++) {
      // 409: the first request still holds the key (its lease runs), or the order is not ready: asked again later.
      await sleep(a.status === 409 ? 2_000 : 500);
      a = await send();
    }
    expectNo5xx(r, `task ${key} of ${o.id}`, a);
  }
  toString = () => `Task(order ${this.order}, key ${this.key}${this.kill ? `, ${this.kill.toString()}` : ''})`;
}

/**
 * Whether a valid creation answered 201. Anything else is recorded as a violation, except an answer cut by a kill
 * of another command (status 0).
 */
function created201(r: Real, what: string, a: Answer): boolean {
  expectNo5xx(r, what, a);
  if (a.status === 201) return true;
  if (a.status !== 0 && a.status < 500)
    r.violations.push(`${what}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
  return false;
}

/**
 * An ACP 2026-04-17 checkout (issue 37) by a platform for buyer `buyer`: a session, a delegated token of the buyer's
 * wallet, then complete, sent `completes` times at once (a platform retrying), a kill possibly in the middle; a cut
 * answer is retried with the same Idempotency-Key. The session's order joins the model: one charge, like any other.
 */
class AcpCheckout implements Cmd {
  constructor(
    readonly buyer: number,
    readonly completes: 1 | 2,
    readonly kill?: Kill,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const i = this.buyer % m.buyers.length;
    const b = m.buyers[i]!;
    const headers = (idem: string) => ({
      authorization: `Bearer ${r.platformKey}`,
      'api-version': '2026-04-17',
      'idempotency-key': idem,
    });
    const tag = `${b.id}-${m.orders.length}-${Date.now()}`;
    const created = await call(
      base(r),
      'POST',
      '/checkout_sessions',
      {
        line_items: [{ id: AUTOMATION.service_id }],
        currency: 'usd',
        capabilities: {},
        metadata: { inputs: AUTOMATION.inputs },
      },
      headers(`acp-create-${tag}`),
      30_000,
    );
    if (!created201(r, 'ACP create', created)) return;
    const session = created.body.id as string;
    const token = await call(
      base(r),
      'POST',
      '/agentic_commerce/delegate_payment',
      {
        allowance: {
          reason: 'one_time',
          max_amount: 10_000,
          currency: 'usd',
          checkout_session_id: session,
          merchant_id: 'agent-commerce',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
        risk_signals: [],
        metadata: { source: 'model' },
      },
      { authorization: `Bearer ${b.key}`, 'api-version': '2026-04-17', 'idempotency-key': `acp-token-${tag}` },
      30_000,
    );
    if (!created201(r, 'ACP delegate_payment', token)) return;
    const body = {
      payment_data: {
        handler_id: 'agent_wallet',
        instrument: { type: 'wallet_token', credential: { type: 'spt', token: token.body.id } },
      },
    };
    const complete = (n: number) => async () => {
      let a = await call(
        base(r),
        'POST',
        `/checkout_sessions/${session}/complete`,
        body,
        headers(`acp-complete-${tag}-${n}`),
        60_000,
      );
      // A platform retries a cut complete with the same key until the API is back (it restarts in seconds).
      for (let retry = 0; retry < 12 && (a.status === 0 || a.status >= 500 || a.status === 409); retry++) {
        await sleep(1_500);
        a = await call(
          base(r),
          'POST',
          `/checkout_sessions/${session}/complete`,
          body,
          headers(`acp-complete-${tag}-${n}`),
          60_000,
        );
      }
      expectNo5xx(r, `ACP complete ${session}`, a);
    };
    await Promise.all([...Array.from({ length: this.completes }, (_, n) => complete(n)()), this.kill?.run(m, r)]);
    const got = await call(
      base(r),
      'GET',
      `/checkout_sessions/${session}`,
      undefined,
      headers(`acp-get-${tag}`),
      30_000,
    );
    const orderId = (got.body.order as { id?: string } | undefined)?.id;
    if (got.status === 200 && got.body.status !== 'completed')
      r.violations.push(`ACP session ${session} is ${String(got.body.status)} after complete`);
    if (typeof orderId === 'string') {
      m.orders.push({ id: orderId, buyer: i, terminated: false });
      r.secrets.set(orderId, b.key);
    }
  }
  toString = () =>
    `AcpCheckout(buyer ${this.buyer}, ${this.completes} complete${this.kill ? `, ${this.kill.toString()}` : ''})`;
}

/** An order through a partner's quote (20 % commission, credited only once the order is accepted). */
class PartnerOrder implements Cmd {
  constructor(readonly buyer: number) {}
  check = () => true;
  run = (m: Model, r: Real) => createOrder(m, r, this.buyer, m.buyers[(this.buyer + 1) % m.buyers.length]!.id);
  toString = () => `PartnerOrder(buyer ${this.buyer})`;
}

/** Order `index` of the model (modulo), its buyer, and another buyer acting as a stranger to it. */
function partiesOf(m: Model, index: number) {
  const o = m.orders[index % m.orders.length]!;
  return { o, owner: m.buyers[o.buyer]!, stranger: m.buyers[(o.buyer + 1) % m.buyers.length]! };
}

/** The MCP tools of the same operations (2026-07-28): the owner pays, a stranger tries to review. */
class Mcp implements Cmd {
  constructor(
    readonly order: number,
    readonly as: 'owner' | 'stranger',
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const { o, owner, stranger } = partiesOf(m, this.order);
    const [name, args] =
      this.as === 'owner'
        ? ['confirm_payment', { order_id: o.id, agent_key: owner.key }]
        : ['review_order', { order_id: o.id, action: 'reject', agent_key: stranger.key }];
    const a = await call(
      base(r),
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      30_000,
    );
    expectNo5xx(r, `MCP ${name} as ${this.as}`, a);
    const result = a.body.result as { isError?: boolean; structuredContent?: { status?: number } } | undefined;
    if (this.as === 'stranger') {
      if (result && !result.isError) r.violations.push(`MCP review_order by a stranger succeeded on ${o.id}`);
      expectNothingOf(r, 'MCP as a stranger', JSON.stringify(a.body), o.id);
    }
  }
  toString = () => `Mcp(order ${this.order}, as ${this.as})`;
}

class Pay implements Cmd {
  constructor(
    readonly order: number,
    readonly rails: Rail[],
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = m.orders[this.order % m.orders.length]!;
    // Sent at the same instant: duplicates on one rail, or a race of two rails.
    const answers = await Promise.all(this.rails.map((rail) => payOn(m, r, o, rail)));
    answers.forEach((a, i) => checkPay(r, o, this.rails[i]!, a));
  }
  toString = () => `Pay(order ${this.order}, ${this.rails.join(' ∥ ')})`;
}

class Review implements Cmd {
  constructor(
    readonly order: number,
    readonly as: 'owner' | 'stranger' | 'nobody',
    readonly action: 'accept' | 'reject',
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const { o, owner, stranger } = partiesOf(m, this.order);
    const headers = this.as === 'owner' ? auth(owner.key) : this.as === 'stranger' ? auth(stranger.key) : {};
    const a = await call(base(r), 'POST', `/api/v1/orders/${o.id}/review`, { action: this.action }, headers, 30_000);
    expectNo5xx(r, `review ${o.id} as ${this.as}`, a);
    if (this.as === 'nobody' && a.status !== 0 && a.status !== 401)
      r.violations.push(`review ${o.id} without a credential: ${a.status}, not 401`);
    if (this.as === 'stranger' && stranger.key !== owner.key && a.status !== 0 && a.status !== 403)
      r.violations.push(`review ${o.id} with a stranger's key: ${a.status}, not 403`);
    if (this.as !== 'owner') expectNothingOf(r, `review as ${this.as}`, JSON.stringify(a.body), o.id);
  }
  toString = () => `Review(order ${this.order}, as ${this.as}, ${this.action})`;
}

class StrangerLooks implements Cmd {
  constructor(readonly order: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    // The public ledger, and a lookup by each settlement hash a chain watcher can see.
    const list = await call(base(r), 'GET', '/api/v1/x402/payments', undefined, {}, 15_000);
    expectNo5xx(r, 'public ledger', list);
    expectNothingOf(r, 'GET /api/v1/x402/payments', JSON.stringify(list.body));
    const o = m.orders.length > 0 ? m.orders[this.order % m.orders.length] : undefined;
    if (!o) return;
    const mine = await call(base(r), 'GET', `/api/v1/orders/${o.id}`, undefined, auth(m.buyers[o.buyer]!.key));
    const tx = (mine.body.payment as { transaction_id?: string } | undefined)?.transaction_id;
    if (!tx?.startsWith('0x')) return;
    for (const path of [`/api/v1/x402/payments?transaction=${tx}`]) {
      const a = await call(base(r), 'GET', path, undefined, {}, 15_000);
      expectNo5xx(r, path, a);
      expectNothingOf(r, `GET ${path}`, JSON.stringify(a.body));
      const pid = (a.body.payments as { payment_id?: string }[] | undefined)?.[0]?.payment_id ?? a.body.payment_id;
      if (typeof pid === 'string') {
        const one = await call(base(r), 'GET', `/api/v1/x402/payments/${pid}`, undefined, {}, 15_000);
        expectNo5xx(r, 'GET /api/v1/x402/payments/{id}', one);
        expectNothingOf(r, 'GET /api/v1/x402/payments/{id}', JSON.stringify(one.body));
      }
    }
  }
  toString = () => `StrangerLooks(order ${this.order})`;
}

const MALFORMED: { method: string; path: (o?: string) => string; body: unknown }[] = [
  { method: 'POST', path: () => '/api/v1/orders', body: { service_id: 42, inputs: 'x' } },
  { method: 'POST', path: () => '/api/v1/orders', body: { service_id: 'automation-wf', agent_id: { $gt: '' } } },
  { method: 'POST', path: (o) => `/api/v1/orders/${o ?? 'ord_x'}/confirm_payment`, body: { rail: 'bitcoin' } },
  { method: 'POST', path: (o) => `/api/v1/orders/${o ?? 'ord_x'}/review`, body: { action: 'maybe' } },
  { method: 'GET', path: () => '/api/v1/x402/payments?transaction=0xzz&limit=-3', body: undefined },
  { method: 'GET', path: () => '/api/v1/orders/%E0%A4%A', body: undefined },
];

class Malformed implements Cmd {
  constructor(
    readonly kind: number,
    readonly order: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const k = MALFORMED[this.kind % MALFORMED.length]!;
    const o = m.orders.length > 0 ? m.orders[this.order % m.orders.length] : undefined;
    const headers = o ? auth(m.buyers[o.buyer]!.key) : {};
    const a = await call(base(r), k.method, k.path(o?.id), k.body, headers, 15_000);
    expectNo5xx(r, `malformed ${k.method} ${k.path(o?.id)}`, a);
    if (a.status >= 200 && a.status < 300 && k.method === 'POST')
      r.violations.push(`malformed ${k.method} ${k.path(o?.id)} accepted: ${a.status}`);
  }
  toString = () => `Malformed(${this.kind}, order ${this.order})`;
}

class Terminate implements Cmd {
  constructor(readonly order: number) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = m.orders[this.order % m.orders.length]!;
    // An operator's `temporal workflow terminate`: the order's later actions must answer 4xx, never 5xx.
    await r.temporal.workflow
      .getHandle(`order-${o.id}`)
      .terminate('model checker: operator terminates')
      .catch(() => undefined);
    o.terminated = true;
    r.terminated.add(o.id);
  }
  toString = () => `Terminate(order ${this.order})`;
}

/** A process the model SIGKILLs (the chain and facilitator are not ours: they stay). */
type Victim = 'api' | 'worker' | 'temporal' | 'database';

class Kill implements Cmd {
  constructor(
    readonly which: Victim,
    readonly afterMs: number,
  ) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    await sleep(this.afterMs);
    if (this.which === 'api') {
      await r.stack.apis[0]!.kill();
      r.stack.apis[0] = await r.stack.startApi(0);
    } else if (this.which === 'worker') {
      await r.stack.workers[0]!.kill();
      r.stack.workers[0] = await r.stack.startWorker(0);
    } else if (this.which === 'temporal') {
      await r.stack.killTemporal();
      await r.stack.startTemporal();
    } else {
      await r.stack.killDatabase();
      await r.stack.startDatabase();
    }
  }
  toString = () => `Kill(${this.which} after ${this.afterMs} ms)`;
}

/** A payment and a kill at once: the kill falls at a random point of the payment. */
class PayDuringKill implements Cmd {
  constructor(
    readonly pay: Pay,
    readonly kill: Kill,
  ) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    await Promise.all([this.pay.run(m, r), this.kill.run(m, r)]);
  }
  toString = () => `${this.pay.toString()} ∥ ${this.kill.toString()}`;
}

const railArb = fc.constantFrom<Rail>(...RAILS);
const payArb = fc
  .tuple(fc.nat(20), fc.oneof(fc.tuple(railArb), fc.tuple(railArb, railArb)))
  .map(([o, rails]) => new Pay(o, [...rails]));
const killArb = fc
  .tuple(
    fc.constantFrom<Victim>('api', 'api', 'worker', 'worker', 'temporal', 'database'),
    fc.integer({ min: 0, max: 800 }),
  )
  .map(([w, ms]) => new Kill(w, ms));

/** Every command the model generates, weighted toward money. */
export const commandArbs: fc.Arbitrary<Cmd>[] = [
  fc.nat(3).map((b) => new CreateOrder(b)),
  fc.nat(3).map((b) => new CreateOrder(b)),
  payArb,
  payArb,
  payArb,
  fc
    .tuple(fc.nat(20), fc.constantFrom('owner', 'stranger', 'nobody'), fc.constantFrom('accept', 'reject'))
    .map(([o, as, action]) => new Review(o, as as 'owner', action as 'accept')),
  // The owner's acceptance closes an order's workflow: its history is then replayed.
  fc.nat(20).map((o) => new Review(o, 'owner', 'accept')),
  fc.nat(20).map((o) => new StrangerLooks(o)),
  fc.tuple(fc.nat(10), fc.nat(20)).map(([k, o]) => new Malformed(k, o)),
  fc.nat(20).map((o) => new Terminate(o)),
  fc.nat(3).map((b) => new PartnerOrder(b)),
  fc.nat(3).map((b) => new CreateTaskOrder(b)),
  fc
    .tuple(fc.nat(3), fc.constantFrom<1 | 2>(1, 2), fc.option(killArb, { nil: undefined }))
    .map(([b, n, kill]) => new AcpCheckout(b, n, kill)),
  fc.tuple(fc.nat(5), fc.nat(3), fc.option(killArb, { nil: undefined })).map(([o, k, kill]) => new Task(o, k, kill)),
  fc.tuple(fc.nat(20), fc.constantFrom<'owner' | 'stranger'>('owner', 'stranger')).map(([o, as]) => new Mcp(o, as)),
  killArb,
  fc.tuple(payArb, killArb).map(([p, k]) => new PayDuringKill(p, k)),
];

/**
 * Sequences the checker found (shrunk), run before the random ones on every invocation: each is a regression test.
 * - 2026-12-02, on b3c8b48 (seed 7): an order paid over x402, then two Pay presses on its hosted page at once: a link
 *   payment refused by the paid order was kept (net charge twice the price).
 * - 2026-12-02, on 25dcb59 (seed 7): an order's workflow terminated, then wallet, x402 and link payments: 500s, and
 *   the x402 settlement kept for an order that would never deliver.
 * - the outside tester's hole 3, as a sequence: tasks under Idempotency-Keys with the API and the worker killed.
 */
export const REGRESSIONS: (() => Cmd[])[] = [
  () => [new CreateOrder(0), new Pay(0, ['x402']), new Pay(0, ['link', 'link'])],
  () => [new CreateOrder(1), new Terminate(0), new Pay(0, ['wallet']), new Pay(0, ['x402', 'link'])],
  // The tester's hole 3 (25dcb59): a task under an Idempotency-Key, the API killed while it ran, the same key again.
  () => [
    new CreateTaskOrder(2),
    new Pay(0, ['wallet']),
    new Task(0, 1, new Kill('api', 150)),
    new Task(0, 1),
    new Task(0, 2, new Kill('worker', 300)),
  ],
  // Issue 37: an ACP complete sent twice at once with the API killed under it: one order, one charge.
  () => [new AcpCheckout(0, 2, new Kill('api', 200)), new AcpCheckout(1, 1)],
];

/** Waits until no x402 payment is settling and no order is between paid and delivered, at most `ms`. */
async function quiet(stack: DrillStack, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const audit = await auditBooks(stack);
    const moving = audit.orders.filter((o) => o.status === 'paid' || o.status === 'fulfilling');
    if (audit.unsettled.size === 0 && moving.length === 0) return;
    await sleep(1000);
  }
}

/** Each task order: no more `task:<order>:<n>` debits than distinct keys its further tasks were sent with. */
async function taskCharges(r: Real, m: Model): Promise<string[]> {
  const db = (await r.stack.mongo()).db(r.stack.dbName);
  const broken: string[] = [];
  for (const o of m.orders) {
    if (!o.taskKeys) continue;
    const debits = await db
      .collection('wallet_entries')
      .countDocuments({ type: 'debit', tx_id: { $regex: `^task:${o.id}:` } });
    if (debits > o.taskKeys.size)
      broken.push(`task order ${o.id}: ${debits} task debits for ${o.taskKeys.size} Idempotency-Keys`);
  }
  return broken;
}

/** Replays the closed order workflows of this run against the workflow code; returns those that do not replay. */
async function replayClosed(r: Real): Promise<string[]> {
  const histories = [];
  for (const id of r.secrets.keys()) {
    const handle = r.temporal.workflow.getHandle(`order-${id}`);
    const d = await handle.describe().catch(() => undefined);
    if (!d || d.status.name === 'RUNNING') continue;
    histories.push({ workflowId: `order-${id}`, history: await handle.fetchHistory() });
  }
  if (histories.length === 0) return [];
  r.bundle ??= await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  const failed: string[] = [];
  for await (const res of Worker.runReplayHistories({ workflowBundle: r.bundle }, histories)) {
    if (res.error) failed.push(`history ${res.workflowId} does not replay: ${String(res.error).slice(0, 300)}`);
  }
  r.replayed += histories.length;
  return failed;
}

/** The invariants of the module comment over the books as they stand; returns what is broken. */
async function checkInvariants(r: Real, m: Model, spentBefore: bigint): Promise<string[]> {
  const chain = r.stack.x402!;
  await quiet(r.stack, 90_000);
  // The reconciliation counts only what is older than its grace period (RECONCILE_GRACE_SECONDS below): wait it out,
  // as its schedule would. It repairs (refunds, adoptions) first; the audit then reads the books it left.
  await sleep((GRACE_SECONDS + 1) * 1000);
  const rec = await operatorReconciliation(base(r));
  await quiet(r.stack, 60_000);
  const spentNow = await usdcBalanceOf(chain.rpcUrl, chain.asset as `0x${string}`, ANVIL_ADDRESSES.buyer);
  const audit = await auditBooks(r.stack, { buyer: ANVIL_ADDRESSES.buyer, buyerSpentMicros: spentBefore - spentNow });
  const broken = [...r.violations, ...audit.problems];
  for (const o of audit.orders) {
    if (!r.secrets.has(o._id)) continue;
    const kept = (audit.charges.get(o._id) ?? []).filter((c) => !c.returned).reduce((s, c) => s + c.amount, 0);
    const holdsGoods = KEEPS_PAYMENT.includes(o.status);
    const due = holdsGoods ? o.amount_micros : 0;
    if (kept !== due) broken.push(`order ${o._id} (${o.status}): net charge ${kept} micro-USD, expected ${due}`);
  }
  broken.push(...(await taskCharges(r, m)));
  broken.push(...(await replayClosed(r)));
  if (rec.status !== 200) broken.push(`reconciliation answered ${rec.status}`);
  else {
    const again = await operatorReconciliation(base(r));
    const d = Array.isArray(again.body.discrepancies) ? (again.body.discrepancies as unknown[]) : [];
    const unexpected = d.filter(
      (x) => !(isRecord(x) && x.kind === 'workflow_missing' && r.terminated.has(String(x.order_id))),
    );
    for (const x of unexpected.slice(0, 10))
      broken.push(`reconciliation discrepancy: ${JSON.stringify(x).slice(0, 300)}`);
  }
  return broken;
}

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const runs = Number(args.get('runs') ?? 5);
  const seed = Number(args.get('seed') ?? Date.now() % 2 ** 31);
  const maxCommands = Number(args.get('commands') ?? 12);
  const replayPath = args.get('path');
  log(`model: seed ${seed}, ${runs} runs of at most ${maxCommands} commands`);
  // The stand-in text model of the tests: task-worker orders need one.
  const textModel = await startFakeTextModel();
  const stack = await startDrillStack({
    x402: true,
    env: {
      TEXTGEN_BASE_URL: textModel.baseUrl,
      TEXTGEN_MODEL: 'fake-model',
      RATE_LIMIT_BURST_PER_SECOND: '0',
      RECONCILE_GRACE_SECONDS: String(GRACE_SECONDS),
      PAYMENT_DEADLINE_SECONDS: '30',
    },
  });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const temporal = new Client({ connection });
  // The audit reads the whole ledger, so the buyer's spend is counted from the drill's start, not the run's.
  const spentBefore = await usdcBalanceOf(
    stack.x402!.rpcUrl,
    stack.x402!.asset as `0x${string}`,
    ANVIL_ADDRESSES.buyer,
  );
  Runtime.install({ logger: new DefaultLogger('WARN') });
  let bundle: WorkflowBundleWithSourceMap | undefined;
  let replayed = 0;
  const terminated = new Set<string>();
  const platform = await call(
    stack.url,
    'POST',
    '/api/v1/acp/platforms',
    { name: 'model-platform' },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  if (platform.status !== 201) throw new Error(`ACP platform key: ${platform.status} ${JSON.stringify(platform.body)}`);
  const platformKey = platform.body.api_key as string;
  let runIndex = 0;
  let commandsRun = 0;
  const figures: Record<string, unknown> = { seed, runs, max_commands: maxCommands };
  const problems: string[] = [];
  try {
    const sequence = async (cmds: Iterable<Cmd>): Promise<void> => {
      runIndex++;
      const buyers: Model['buyers'] = [];
      for (let b = 0; b < 3; b++) {
        const id = `model-${seed}-${runIndex}-${b}`;
        buyers.push({ id, key: await fundedAgent(stack.url, id, 1000) });
      }
      const model: Model = { buyers, orders: [] };
      const real: Real = {
        stack,
        temporal,
        pay: payingFetch(),
        violations: [],
        secrets: new Map(),
        terminated,
        platformKey,
        replayed: 0,
        ...(bundle ? { bundle } : {}),
      };
      const runT0 = Date.now();
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      commandsRun += [...cmds].length;
      log(`run ${runIndex}: ${String(cmds)} (${Date.now() - runT0} ms)`);
      const broken = await checkInvariants(real, model, spentBefore);
      bundle = real.bundle;
      replayed += real.replayed;
      if (broken.length > 0) log(`run ${runIndex} (${String(cmds)}): ${broken.length} broken: ${broken[0]}`);
      if (broken.length > 0) throw new Error(broken.join('\n'));
    };
    for (const [i, regression] of REGRESSIONS.entries()) {
      try {
        await sequence(regression());
      } catch (err) {
        problems.push(`regression ${i + 1} fails: ${String(err).slice(0, 4000)}`);
      }
    }
    figures.regressions = REGRESSIONS.length;
    const property = fc.asyncProperty(fc.commands(commandArbs, { maxCommands, size: 'max' }), sequence);
    const out = await fc.check(property, {
      seed,
      numRuns: runs,
      ...(replayPath ? { path: replayPath } : {}),
      endOnFailure: args.has('no-shrink'),
      interruptAfterTimeLimit: Number(args.get('time-limit-ms') ?? 30 * 60_000),
    });
    figures.sequences = runIndex;
    figures.commands = commandsRun;
    figures.histories_replayed = replayed;
    const db = (await stack.mongo()).db(stack.dbName);
    figures.task_debits = await db.collection('wallet_entries').countDocuments({ type: 'debit', tx_id: /^task:/ });
    figures.x402_refunds_sent = await db.collection('x402_payments').countDocuments({ 'refund.status': 'sent' });
    if (out.failed) {
      problems.push(
        `counterexample (seed ${seed}, path ${out.counterexamplePath ?? '?'}): ${String(out.counterexample?.[0] ?? '')}`,
      );
      problems.push(String(out.errorInstance ?? '').slice(0, 4000));
    }
  } finally {
    await connection.close().catch(() => undefined);
    await stack.stop();
    await textModel.stop().catch(() => undefined);
  }
  finish('model', figures, problems);
}
