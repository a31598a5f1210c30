/**
 * `npm run bench -- --seed N`: N completed (accepted) orders with what a real one leaves in the database: the order
 * read model, five order events, one wallet debit (and the wallets' credits), spread over 1,000 seeded agents.
 * Written straight to MongoDB (MONGODB_URI, MONGODB_DB) in batches; ids start with `seed`, so a second run adds only
 * what is missing. Amounts in integer micro-units.
 */
import {
  connectDatabase,
  isDuplicateKey,
  type EventDoc,
  type OrderDoc,
  type WalletDoc,
  type WalletEntryDoc,
} from '../../src/db';
import { entryId } from '../../src/repos/wallets';

const AGENTS = 1_000;
const PRICE_MICROS = 69_000_000;
const BATCH = 2_000;

/** Inserts seeded orders up to `n`; returns how many were already there and how many were added. */
export async function seedCompletedOrders(n: number): Promise<{ existing: number; inserted: number }> {
  const d = await connectDatabase(
    process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27117/',
    process.env.MONGODB_DB ?? 'agent_commerce',
  );
  try {
    const existing = await d.orders.countDocuments({ _id: { $regex: /^seed_/ } });
    const perAgent = Math.ceil(n / AGENTS);
    const t0 = new Date('2026-01-01T00:00:00Z').getTime();
    const seededWallets = await d.wallets.countDocuments({ _id: { $regex: /^seed-agent-/ } });
    if (existing < n && seededWallets === 0) {
      // Wallets: credited once, then one debit per seeded order; the wallet document holds the resulting balance.
      const wallets: WalletDoc[] = [];
      const entries: WalletEntryDoc[] = [];
      for (let a = 0; a < AGENTS; a++) {
        const agent = `seed-agent-${a}`;
        const orders = Math.max(0, Math.min(perAgent, n - a * perAgent));
        const credit = PRICE_MICROS * orders || 1;
        let balance = credit;
        entries.push({
          _id: entryId(agent, `credit:seed-${a}`),
          agent_id: agent,
          seq: 1,
          tx_id: `credit:seed-${a}`,
          type: 'credit',
          amount_micros: credit,
          balance_after_micros: credit,
          memo: 'seed',
          source: 'operator',
          at: new Date(t0),
        });
        for (let k = 0; k < orders; k++) {
          balance -= PRICE_MICROS;
          const id = seedOrderId(a * perAgent + k);
          entries.push({
            _id: entryId(agent, `order:${id}`),
            agent_id: agent,
            seq: k + 2,
            tx_id: `order:${id}`,
            type: 'debit',
            amount_micros: PRICE_MICROS,
            balance_after_micros: balance,
            memo: `Order ${id}`,
            source: `order:${id}`,
            at: new Date(t0 + k),
          });
        }
        wallets.push({
          _id: agent,
          currency: 'USD',
          key_hash: null,
          balance_micros: balance,
          seq: orders + 1,
          recent: [],
          created_at: new Date(t0),
        });
      }
      await d.wallets.insertMany(wallets, { ordered: false });
      await inParallel(Math.ceil(entries.length / BATCH), (b) =>
        d.walletEntries.insertMany(entries.slice(b * BATCH, (b + 1) * BATCH), { ordered: false }).then(() => undefined),
      );
    }
    let inserted = 0;
    const batches = Math.ceil(Math.max(0, n - existing) / BATCH);
    await inParallel(batches, async (b) => {
      const start = existing + b * BATCH;
      const orders: OrderDoc[] = [];
      const events: EventDoc[] = [];
      for (let i = start; i < Math.min(n, start + BATCH); i++) {
        const id = seedOrderId(i);
        const agent = `seed-agent-${Math.floor(i / perAgent)}`;
        const at = new Date(t0 + i * 1000);
        const iso = at.toISOString();
        orders.push({
          _id: id,
          workflow_id: `order-${id}`,
          service_id: 'automation-wf',
          quote_id: null,
          agent_id: agent,
          email: null,
          webhook_url: null,
          partner_id: null,
          inputs: { workflow_type: 'sync', source_app: 'Typeform', target_app: 'HubSpot' },
          amount_micros: PRICE_MICROS,
          currency: 'USD',
          billing: 'one_time',
          is_agent: true,
          rails: ['agent_wallet'],
          status: 'accepted',
          version: 5,
          progress: ['awaiting_payment', 'paid', 'fulfilling', 'delivered', 'accepted'].map((status) => ({
            status: status as OrderDoc['status'],
            at: iso,
          })),
          payment: { rail: 'agent_wallet', transaction_id: `order:${id}`, amount_micros: PRICE_MICROS, paid_at: iso },
          deliverables: [
            {
              name: 'workflow.json',
              sha256: '0'.repeat(64),
              size: 4096,
              media_type: 'application/json',
              service_id: 'automation-wf',
            },
          ],
          review: null,
          refund: null,
          failure: null,
          payment_deadline: at,
          created_at: at,
          updated_at: at,
        });
        ['order.created', 'order.paid', 'order.fulfilling', 'order.delivered', 'order.accepted'].forEach((type, seq) =>
          events.push({
            _id: `msg_${id}_${seq + 1}`,
            order_id: id,
            seq: seq + 1,
            type,
            data: { order_id: id, status: type.slice(6) },
            created_at: at,
          }),
        );
      }
      await d.orders.insertMany(orders, { ordered: false }).catch(ignoreDuplicates);
      await d.events.insertMany(events, { ordered: false }).catch(ignoreDuplicates);
      inserted += orders.length;
      if (b % 10 === 9) process.stdout.write(`seed: ${inserted} of ${n - existing} orders\n`);
    });
    return { existing, inserted };
  } finally {
    await d.close();
  }
}

const seedOrderId = (i: number): string => `seed_${String(i).padStart(8, '0')}`;

/** A re-run after an interrupted seed meets documents it wrote before: those duplicates are fine. */
function ignoreDuplicates(err: unknown): void {
  const writeErrors = (err as { writeErrors?: { code?: number }[] }).writeErrors;
  if (isDuplicateKey(err) || (Array.isArray(writeErrors) && writeErrors.every((e) => e.code === 11000))) return;
  throw err;
}

/** Runs `count` jobs, two at a time (one per core of the database side). */
async function inParallel(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (next < count) await job(next++);
    }),
  );
}
