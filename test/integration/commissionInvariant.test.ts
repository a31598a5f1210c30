/**
 * Money integrity (issue 10 §3) as a property: any sequence of operator credits, order payments (wallet debits or
 * external), acceptances, refunds, commission records / releases / cancellations / reversals (orders paid before
 * issue 10 credit at payment: `legacy`), subscription renewals, spending and retries of any earlier call, executed
 * against the real WalletRepository and CommissionRepository on the test database, keeps:
 * - every wallet balance equal to a model of the rules, to the micro-unit;
 * - Σ balances + refunds due = operator credits − what left through payments (payments kept by the seller, net of
 *   commissions paid out), with the commissions paid out read from the wallet ledgers;
 * - commission money in wallets = commissions earned on kept payments + what partners still owe back: no balance holds
 *   a commission on a refunded order beyond a recorded debt, and a debt only arises from legacy credits;
 * - a refunded order's commission is cancelled / not_eligible / reversed, never credited; for a non-legacy order no
 *   commission ever reached the wallet.
 * Bounded: 50 runs of 20-60 operations, a few seconds. Source: issue 10 §3.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { connectDatabase, type Database } from '../../src/db';
import { PARTNER_COMMISSION_PERCENT } from '../../src/domain/catalogue';
import { percentOf } from '../../src/domain/money';
import { CommissionRepository, commissionTxId } from '../../src/repos/commissions';
import { InsufficientFundsError, WalletRepository } from '../../src/repos/wallets';

let d: Database;
let wallets: WalletRepository;
let commissions: CommissionRepository;
beforeAll(async () => {
  d = await connectDatabase(process.env.MONGODB_URI as string, `money_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
  wallets = new WalletRepository(d);
  commissions = new CommissionRepository(d, wallets);
}, 60_000);
afterAll(async () => {
  await d?.db.dropDatabase().catch(() => undefined);
  await d?.close();
});

/** Buyers (b0, b1; the partners pA, pB buy too) and partners: pU never claimed, pS holds b0's key. */
const BUYERS = ['b0', 'b1', 'pA', 'pB'] as const;
const PARTNERS = ['pA', 'pB', 'pU', 'pS', 'b0'] as const;
const ALL = ['b0', 'b1', 'pA', 'pB', 'pU', 'pS'] as const;
type Name = (typeof ALL)[number];

type Cmd =
  | { t: 'credit'; w: Name; amount: number }
  | {
      t: 'pay';
      buyer: (typeof BUYERS)[number];
      partner: (typeof PARTNERS)[number] | null;
      amount: number;
      legacy: boolean;
      external: boolean;
    }
  | { t: 'accept'; k: number }
  | { t: 'refund'; k: number }
  | { t: 'stray'; k: number }
  | { t: 'spend'; w: Name; amount: number; all: boolean }
  | { t: 'renew'; buyer: (typeof BUYERS)[number]; partner: (typeof PARTNERS)[number]; k: number }
  | { t: 'retry'; k: number };

const money = fc.oneof(
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 30_000_000 }) },
);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({
    t: fc.constant('credit' as const),
    w: fc.constantFrom(...ALL),
    amount: fc.integer({ min: 1, max: 150_000_000 }),
  }),
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('pay' as const),
      buyer: fc.constantFrom(...BUYERS),
      partner: fc.option(fc.constantFrom('pA', 'pB', ...PARTNERS), { nil: null, freq: 8 }),
      amount: money,
      legacy: fc.boolean(),
      external: fc.constantFrom(false, false, false, true),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('accept' as const), k: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('refund' as const), k: fc.nat() }) },
  fc.record({ t: fc.constant('stray' as const), k: fc.nat() }),
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('spend' as const),
      w: fc.constantFrom('pA', 'pB', ...ALL),
      amount: money,
      all: fc.boolean(),
    }),
  },
  fc.record({
    t: fc.constant('renew' as const),
    buyer: fc.constantFrom(...BUYERS),
    partner: fc.constantFrom(...PARTNERS),
    k: fc.nat({ max: 2 }),
  }),
  fc.record({ t: fc.constant('retry' as const), k: fc.nat() }),
);

interface Order {
  id: string;
  buyer: string;
  partner: string | null;
  amount: number;
  legacy: boolean;
  external: boolean;
  state: 'paid' | 'accepted' | 'refunded';
  commission: number; // what the rules pay (0: none or not eligible)
}

let runNo = 0;

/** Runs one sequence against the repositories and a model of the rules, then checks the invariants. */
async function run(cmds: Cmd[]): Promise<void> {
  const r = `r${++runNo}-${randomUUID().slice(0, 6)}`;
  const id = (n: Name | string) => `${r}-${n}`;
  const bal = new Map<string, number>(ALL.map((n) => [id(n), 0]));
  const debt = new Map<string, number>();
  let credits = 0;
  let refundsDue = 0;
  let external = 0;
  let kept = 0; // payments the seller holds (wallet and external, open or final, not refunded), before commissions
  let earned = 0; // commissions paid out by the rules on payments not refunded
  const orders: Order[] = [];
  const subs = new Map<string, number>(); // subscription id -> last paid period
  const replays: Array<() => Promise<unknown>> = [];
  const add = (w: string, delta: number) => bal.set(w, (bal.get(w) ?? 0) + delta);

  // Claimed wallets; pS is claimed with b0's credential (same key hash); pU is never claimed. b0 and b1 start funded.
  for (const n of ['b0', 'b1', 'pA', 'pB', 'pS'] as const) await wallets.open(id(n));
  for (const n of ['b0', 'b1'] as const) {
    await wallets.credit(id(n), 100_000_000, `op:${r}:start:${n}`, 'operator credit', 'operator');
    bal.set(id(n), 100_000_000);
    credits += 100_000_000;
  }
  const b0 = await wallets.get(id('b0'));
  await d.wallets.updateOne({ _id: id('pS') }, { $set: { key_hash: b0?.key_hash ?? null } });

  const eligible = (buyer: string | undefined, partner: string, amount: number): number => {
    if (buyer === partner) return 0;
    if (partner === id('pU')) return 0;
    if (partner === id('pS') && buyer === id('b0')) return 0;
    return percentOf(amount, PARTNER_COMMISSION_PERCENT);
  };
  /** The rules' credit of a commission: what is owed back is paid off first. */
  const payOut = (partner: string, c: number) => {
    const offset = Math.min(debt.get(partner) ?? 0, c);
    debt.set(partner, (debt.get(partner) ?? 0) - offset);
    add(partner, c - offset);
    earned += c;
  };
  const open = () => orders.filter((o) => o.state === 'paid');

  for (const [i, c] of cmds.entries()) {
    switch (c.t) {
      case 'credit': {
        const call = () => wallets.credit(id(c.w), c.amount, `op:${r}:${i}`, 'operator credit', 'operator');
        await call();
        replays.push(call);
        add(id(c.w), c.amount);
        credits += c.amount;
        break;
      }
      case 'spend': {
        const amount = c.all ? Math.max(1, bal.get(id(c.w)) ?? 0) : c.amount;
        const call = () => wallets.debit(id(c.w), amount, `spend:${r}:${i}`, 'bought elsewhere', 'test');
        if ((bal.get(id(c.w)) ?? 0) < amount) {
          await expect(call()).rejects.toBeInstanceOf(InsufficientFundsError);
          break;
        }
        await call();
        replays.push(call);
        add(id(c.w), -amount);
        kept += amount;
        break;
      }
      case 'pay': {
        const o: Order = {
          id: `ord_${r}_${i}`,
          buyer: id(c.buyer),
          partner: c.partner ? id(c.partner) : null,
          amount: c.amount,
          legacy: c.legacy,
          external: c.external,
          state: 'paid',
          commission: 0,
        };
        if (!c.external) {
          const debit = () => wallets.debit(o.buyer, o.amount, `order:${o.id}`, 'order', `order:${o.id}`);
          if ((bal.get(o.buyer) ?? 0) < o.amount) {
            await expect(debit()).rejects.toBeInstanceOf(InsufficientFundsError);
            break;
          }
          await debit();
          replays.push(debit);
          add(o.buyer, -o.amount);
        } else {
          external += o.amount;
        }
        kept += o.amount;
        orders.push(o);
        if (o.partner) {
          const req = {
            orderId: o.id,
            partnerId: o.partner,
            amountMicros: o.amount,
            ...(c.external ? {} : { agentId: o.buyer }),
          };
          o.commission = eligible(c.external ? undefined : o.buyer, o.partner, o.amount);
          const call = () => (o.legacy ? commissions.credit(req) : commissions.record(req));
          const doc = await call();
          replays.push(call);
          expect(doc.status).toBe(o.commission > 0 ? (o.legacy ? 'credited' : 'pending') : 'not_eligible');
          if (o.legacy && o.commission > 0) payOut(o.partner, o.commission);
        }
        break;
      }
      case 'accept': {
        const o = open()[c.k % Math.max(1, open().length)];
        if (!o) break;
        o.state = 'accepted';
        if (o.partner && !o.legacy) {
          const call = () => commissions.release(o.id);
          await call();
          replays.push(call);
          if (o.commission > 0) payOut(o.partner, o.commission);
        }
        break;
      }
      case 'refund': {
        const o = open()[c.k % Math.max(1, open().length)];
        if (!o) break;
        o.state = 'refunded';
        kept -= o.amount;
        if (o.external) {
          refundsDue += o.amount;
        } else {
          const call = () => wallets.credit(o.buyer, o.amount, `refund:${o.id}`, 'refund', `refund:${o.id}`);
          await call();
          replays.push(call);
          add(o.buyer, o.amount);
        }
        if (o.partner) {
          const call = () => commissions.reverse(o.id);
          await call();
          replays.push(call);
          if (o.legacy && o.commission > 0) {
            // Take back what the wallet holds; the rest is owed.
            const taken = Math.min(bal.get(o.partner) ?? 0, o.commission);
            add(o.partner, -taken);
            earned -= o.commission;
            debt.set(o.partner, (debt.get(o.partner) ?? 0) + o.commission - taken);
          }
        }
        break;
      }
      case 'stray': {
        // A release arriving for a refunded order changes nothing.
        const refunded = orders.filter((o) => o.state === 'refunded' && o.partner);
        const o = refunded[c.k % Math.max(1, refunded.length)];
        if (o) await commissions.release(o.id);
        break;
      }
      case 'renew': {
        const sid = `sub_${r}_${c.buyer}_${c.partner}_${c.k}`;
        const period = (subs.get(sid) ?? 1) + 1;
        const buyer = id(c.buyer);
        const partner = id(c.partner);
        const debit = () => wallets.debit(buyer, 1_000_003, `subscription:${sid}:${period}`, 'renewal', 'subscription');
        if ((bal.get(buyer) ?? 0) < 1_000_003) {
          await expect(debit()).rejects.toBeInstanceOf(InsufficientFundsError);
          break;
        }
        await debit();
        replays.push(debit);
        add(buyer, -1_000_003);
        subs.set(sid, period);
        kept += 1_000_003;
        const req = {
          orderId: sid,
          period: String(period),
          partnerId: partner,
          amountMicros: 1_000_003,
          agentId: buyer,
        };
        const call = () => commissions.credit(req);
        await call();
        replays.push(call);
        const cm = eligible(buyer, partner, 1_000_003);
        if (cm > 0) payOut(partner, cm);
        break;
      }
      case 'retry': {
        const again = replays[c.k % Math.max(1, replays.length)];
        if (again)
          await again().catch((err: unknown) => {
            if (!(err instanceof InsufficientFundsError)) throw err;
          });
        break;
      }
    }
  }

  // 1. Every wallet as the rules say.
  const actual = new Map<string, number>();
  for (const n of ALL) actual.set(id(n), await wallets.balance(id(n)));
  expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(bal));
  const owed = new Map<string, number>();
  for (const n of ALL) owed.set(id(n), await commissions.owed(id(n)));
  for (const n of ALL) expect(owed.get(id(n))).toBe(debt.get(id(n)) ?? 0);

  // 2. Σ balances + refunds due = operator credits − what left through payments (kept net of commissions paid out).
  const entries = await d.walletEntries.find({ agent_id: { $in: ALL.map(id) } }).toArray();
  const commissionOut =
    entries.filter((e) => e.source.startsWith('commission:order:')).reduce((s, e) => s + e.amount_micros, 0) -
    entries.filter((e) => e.source.startsWith('commission-reversal:order:')).reduce((s, e) => s + e.amount_micros, 0);
  const sumBalances = [...actual.values()].reduce((s, b) => s + b, 0);
  // External payments never were in a wallet: what left the wallets through payments excludes them.
  const leftThroughPayments = kept - commissionOut - external;
  expect(sumBalances + refundsDue).toBe(credits - leftThroughPayments);

  // 3. Commission money in wallets = paid on payments not refunded + what partners still owe back (legacy only).
  const owedTotal = [...owed.values()].reduce((s, v) => s + v, 0);
  expect(commissionOut).toBe(earned + owedTotal);
  const legacyRefunds = orders.some((o) => o.legacy && o.state === 'refunded' && o.commission > 0);
  if (!legacyRefunds) expect(owedTotal).toBe(0);

  // 4. A refunded order's commission is never credited; a non-legacy one never touched the wallet.
  for (const o of orders.filter((x) => x.partner)) {
    const doc = await d.commissions.findOne({ _id: commissionTxId(o.id) });
    if (o.state === 'refunded') {
      expect(['cancelled', 'not_eligible', 'reversed', 'reversal_owed']).toContain(doc?.status);
      if (!o.legacy) expect(entries.some((e) => e.tx_id === commissionTxId(o.id))).toBe(false);
    } else if (o.state === 'paid') {
      expect(doc?.status).toBe(o.commission > 0 ? (o.legacy ? 'credited' : 'pending') : 'not_eligible');
    } else {
      expect(doc?.status).toBe(o.commission > 0 ? 'credited' : 'not_eligible');
    }
  }
}

test('money is conserved and no partner keeps a commission on a refunded payment, over any sequence', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(cmd, { minLength: 20, maxLength: 60 }), (cmds) => run(cmds)),
    { numRuns: 50, endOnFailure: true },
  );
}, 240_000);

test('a reversal the partner cannot cover is owed, and the next commission pays it off before reaching the wallet', async () => {
  const p = `owing-${randomUUID().slice(0, 6)}`;
  const b = `buyer-${randomUUID().slice(0, 6)}`;
  await wallets.open(p);
  await wallets.open(b);
  await wallets.credit(b, 200_000_000, `fund-${b}`, 'fund', 'operator');
  await wallets.debit(b, 50_000_000, `order:o1-${p}`, 'order', 'order');
  // An order paid before issue 10: credited at payment; the partner spends it, then the buyer gets a refund.
  expect(
    (await commissions.credit({ orderId: `o1-${p}`, partnerId: p, amountMicros: 50_000_000, agentId: b })).status,
  ).toBe('credited');
  await wallets.debit(p, 6_000_000, `spent-${p}`, 'spent', 'test');
  const reversed = await commissions.reverse(`o1-${p}`);
  expect(reversed).toMatchObject({
    status: 'reversal_owed',
    reversal_debited_micros: 4_000_000,
    owed_micros: 6_000_000,
  });
  expect(await wallets.balance(p)).toBe(0);
  expect(await commissions.owed(p)).toBe(6_000_000);
  // A new order's commission: pending (nothing spendable), then on acceptance 6 of its 8 USD pay off the debt.
  await commissions.record({ orderId: `o2-${p}`, partnerId: p, amountMicros: 40_000_000, agentId: b });
  expect(await wallets.balance(p)).toBe(0);
  const released = await commissions.release(`o2-${p}`);
  expect(released).toMatchObject({
    status: 'credited',
    debt_offset_micros: 6_000_000,
    credit_tx_id: `commission:o2-${p}`,
  });
  expect(await commissions.release(`o2-${p}`)).toMatchObject({ status: 'credited', debt_offset_micros: 6_000_000 });
  expect(await wallets.balance(p)).toBe(2_000_000);
  expect(await commissions.owed(p)).toBe(0);
  // A pending commission whose payment is refunded is cancelled: no movement, and a late release pays nothing.
  await commissions.record({ orderId: `o3-${p}`, partnerId: p, amountMicros: 40_000_000, agentId: b });
  expect(await commissions.reverse(`o3-${p}`)).toMatchObject({ status: 'cancelled', credit_tx_id: null });
  expect(await commissions.release(`o3-${p}`)).toMatchObject({ status: 'cancelled' });
  expect(await wallets.balance(p)).toBe(2_000_000);
});
