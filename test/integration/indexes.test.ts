/**
 * Every query on a request or workflow hot path is served by an index (issue 9 §2): each is `explain`ed against
 * collections holding a few thousand documents, and a full collection scan fails the test. Works on both plan
 * formats: DocumentDB's (PostgreSQL plan: `Seq Scan`, or the `_id_` index read without an `object_id` condition,
 * which walks the whole collection) and MongoDB's (`COLLSCAN` stage).
 */
import { randomUUID } from 'node:crypto';
import type { Document, FindCursor } from 'mongodb';
import { connectDatabase, type Database } from '../../src/db';
import { X402PaymentRepository } from '../../src/repos/x402Payments';

const N = 3_000;
let d: Database;

/** Plan nodes that read a whole collection, as readable lines; empty when every read goes through an index. */
export function fullScans(explain: Document): string[] {
  const found: string[] = [];
  const visitPg = (node: Document): void => {
    const type = String(node['Node Type'] ?? '');
    const index = String(node['Index Name'] ?? '');
    const cond = String(node['Index Cond'] ?? '');
    if (type === 'Seq Scan') found.push(`Seq Scan on ${String(node['Relation Name'])}`);
    if (type === 'Function Scan') found.push('Function Scan (collection missing?)');
    if (/Index/.test(type) && index === '_id_' && !cond.includes('object_id'))
      found.push(`${type} of _id_ without an _id condition`);
    for (const child of (node.Plans as Document[] | undefined) ?? []) visitPg(child);
  };
  const visitMongo = (stage: Document): void => {
    if (stage.stage === 'COLLSCAN') found.push('COLLSCAN');
    for (const key of ['inputStage', 'queryPlan']) if (stage[key]) visitMongo(stage[key] as Document);
    for (const child of (stage.inputStages as Document[] | undefined) ?? []) visitMongo(child);
  };
  const planner = explain.queryPlanner as Document | undefined;
  if (planner?.Plan) visitPg(planner.Plan as Document);
  else if (planner?.winningPlan) visitMongo(planner.winningPlan as Document);
  else throw new Error(`unrecognised explain output: ${JSON.stringify(explain).slice(0, 300)}`);
  return found;
}

const at = new Date('2026-01-01T00:00:00Z');

beforeAll(async () => {
  d = await connectDatabase(
    process.env.MONGODB_URI as string,
    `indexes_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
  );
  const range = (f: (i: number) => Document) => Array.from({ length: N }, (_, i) => f(i));
  await Promise.all([
    d.db.collection('orders').insertMany(
      range((i) => ({
        _id: `ord_${i}`,
        agent_id: `agent-${i % 100}`,
        status: i % 50 ? 'delivered' : 'in_engineering',
        ...(i % 50 ? {} : { engineering: { engineer: null } }),
        created_at: at,
        updated_at: at,
      })),
    ),
    d.db
      .collection('wallets')
      .insertMany(range((i) => ({ _id: `agent-${i}`, balance_micros: i, seq: 1, recent: [{ tx_id: `t${i}` }] }))),
    d.db
      .collection('wallet_entries')
      .insertMany(
        range((i) => ({ _id: `agent-${i % 100}#${i}`, agent_id: `agent-${i % 100}`, seq: i, tx_id: `tx-${i}` })),
      ),
    d.db.collection('idempotency_keys').insertMany(range((i) => ({ _id: `idem-${i}`, created_at: at }))),
    d.db
      .collection('events')
      .insertMany(range((i) => ({ _id: `ord_${i % 300}:${i}`, order_id: `ord_${i % 300}`, seq: i }))),
    d.db.collection('webhook_endpoints').insertMany(
      range((i) => ({
        _id: `whe_${i}`,
        status: 'enabled',
        agent_id: i % 2 ? `agent-${i}` : null,
        order_id: i % 2 ? null : `ord_${i}`,
        owner: i % 2 ? 'agent' : 'order',
        token_hash: `h${i}`,
      })),
    ),
    d.db.collection('x402_payments').insertMany(
      range((i) => ({
        _id: `x4p_${i}`,
        network: 'eip155:8453',
        payer: `0x${(i % 40).toString(16)}`,
        nonce: `0xn${i}`,
        auth_key: `eip155:8453|0x${(i % 40).toString(16)}|0xn${i}`,
        tx_key: i % 3 ? `0xtx${i}` : null,
        order_key: i % 5 ? null : `order:ord_${i}`,
        status: i % 30 ? 'settled' : 'settling',
        created_at: at,
        delivery_token_hash: i % 7 ? null : `dlv${i}`,
        ...(i % 5 === 0 && i % 30 ? { confirmation_due: true, lease_until: at } : {}),
      })),
    ),
    d.db.collection('x402_payment_ids').insertMany(range((i) => ({ _id: `pid-${i}` }))),
    d.db.collection('subscriptions').insertMany(range((i) => ({ _id: `ord_${i}`, status: 'active' }))),
    d.db.collection('order_tasks').insertMany(
      range((i) => ({
        _id: `ord_${i % 100}#${i}`,
        order_id: `ord_${i % 100}`,
        number: i,
        ...(i % 2 ? { idempotency_token: `t${i}` } : {}),
      })),
    ),
    d.db.collection('webhook_messages').insertMany(
      range((i) => ({
        _id: `m${i}`,
        endpoint_id: `whe_${i % 50}`,
        order_id: `ord_${i % 200}`,
        seq: i,
        status: 'pending',
      })),
    ),
  ]);
});

afterAll(async () => {
  await d?.db.dropDatabase();
  await d?.close();
});

const hotQueries: Array<[string, () => FindCursor<Document>]> = [
  ['order by id', () => d.orders.find({ _id: 'ord_17' }) as FindCursor<Document>],
  [
    'orders of an agent, newest first',
    () => d.orders.find({ agent_id: 'agent-3' }).sort({ created_at: -1 }) as FindCursor<Document>,
  ],
  ['wallet balance', () => d.wallets.find({ _id: 'agent-9' }) as FindCursor<Document>],
  [
    "wallet debit (the conditional update's filter)",
    () =>
      d.wallets.find({
        _id: 'agent-9',
        balance_micros: { $gte: 5 },
        'recent.tx_id': { $ne: 'tx' },
      }) as FindCursor<Document>,
  ],
  [
    'wallet movement applied once (ledger entry by transaction id)',
    () => d.walletEntries.find({ _id: 'agent-9#tx-9' }) as FindCursor<Document>,
  ],
  [
    'wallet ledger in order',
    () => d.walletEntries.find({ agent_id: 'agent-9' }).sort({ seq: 1 }) as FindCursor<Document>,
  ],
  ['idempotency record', () => d.idempotencyKeys.find({ _id: 'idem-5' }) as FindCursor<Document>],
  ['events of an order', () => d.events.find({ order_id: 'ord_5' }).sort({ seq: 1 }) as FindCursor<Document>],
  [
    'webhook endpoints of an order and its agent',
    () =>
      d.webhookEndpoints.find({
        status: 'enabled',
        $or: [{ order_id: 'ord_4' }, { agent_id: 'agent-5', owner: 'agent' }],
      }) as FindCursor<Document>,
  ],
  [
    'webhook endpoints managed by a token',
    () =>
      d.webhookEndpoints.find({
        $or: [{ token_hash: 'h5' }, { agent_id: { $in: ['agent-5'] }, owner: 'agent' }],
      }) as FindCursor<Document>,
  ],
  [
    'earlier pending webhook message of the order',
    () =>
      d.webhookMessages
        .find({ endpoint_id: 'whe_1', order_id: 'ord_1', seq: { $lt: 500 }, status: 'pending' })
        .sort({ seq: 1 })
        .limit(1) as FindCursor<Document>,
  ],
  [
    'x402 claim (authorization)',
    () => d.x402Payments.find({ auth_key: 'eip155:8453|0x1|0xn41' }) as FindCursor<Document>,
  ],
  ['x402 claim (order)', () => d.x402Payments.find({ order_key: 'order:ord_10' }) as FindCursor<Document>],
  ['x402 payment by transaction hash', () => d.x402Payments.find({ tx_key: '0xtx10' }) as FindCursor<Document>],
  [
    'x402 pending goods by delivery token',
    () => d.x402Payments.find({ delivery_token_hash: 'dlv14' }) as FindCursor<Document>,
  ],
  [
    'x402 payment-identifier',
    () =>
      d.x402PaymentIds.find({
        _id: X402PaymentRepository.paymentIdKey('/x402/item/a', 'pid-1'),
      }) as FindCursor<Document>,
  ],
  ['subscription of an order', () => d.subscriptions.find({ _id: 'ord_3' }) as FindCursor<Document>],
  [
    'newest task of an order',
    () => d.tasks.find({ order_id: 'ord_3' }).sort({ number: -1 }).limit(1) as FindCursor<Document>,
  ],
  [
    'the task of an Idempotency-Key',
    () => d.tasks.find({ order_id: 'ord_3', idempotency_token: 't103' }) as FindCursor<Document>,
  ],
  [
    'the engineer queue',
    () =>
      d.orders
        .find({ status: { $in: ['in_engineering', 'sla_breached'] }, engineering: { $type: 'object' } })
        .sort({ updated_at: -1 }) as FindCursor<Document>,
  ],
  [
    'stale x402 claims',
    () =>
      d.x402Payments
        .find({ status: 'settling', created_at: { $lt: at } })
        .sort({ created_at: 1 })
        .limit(50) as FindCursor<Document>,
  ],
  [
    'settled x402 order payments whose order is unconfirmed',
    () =>
      d.x402Payments
        .find({ confirmation_due: true, lease_until: { $lt: at } })
        .sort({ lease_until: 1 })
        .limit(50) as FindCursor<Document>,
  ],
];

describe(`hot queries on ${N} documents per collection`, () => {
  it.each(hotQueries)('%s is served by an index', async (_name, query) => {
    const explain = await query().explain('queryPlanner');
    expect(fullScans(explain)).toEqual([]);
  });

  it('the scan detector sees a full scan (an unindexed field)', async () => {
    const explain = await d.orders.find({ service_id: 'none' }).explain('queryPlanner');
    expect(fullScans(explain).length).toBeGreaterThan(0);
  });
});
