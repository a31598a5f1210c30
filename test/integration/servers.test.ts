/**
 * Smoke tests of the local servers every other integration test relies on:
 * the MongoDB-compatible database at MONGODB_URI (FerretDB v2 on PostgreSQL with DocumentDB, or a MongoDB), the Temporal dev server at TEMPORAL_ADDRESS, and the
 * Java time-skipping test server at TEMPORAL_TEST_SERVER_PATH (all set up by test/globalSetup.ts).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { MongoClient, MongoServerError } from 'mongodb';
import { sleepWorkflow } from '../fixtures/sleepWorkflow';
import { TEST_SEARCH_ATTRIBUTES } from '../globalSetup';
import { startTemporalDevServer } from '../../scripts/lib/servers';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: test/globalSetup.ts should have set it`);
  return value;
}

const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // A runtime already exists in this worker process: keep it.
  }
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../fixtures/sleepWorkflow'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
  });
});

describe('MongoDB semantics at MONGODB_URI', () => {
  let client: MongoClient;

  beforeAll(async () => {
    client = new MongoClient(env('MONGODB_URI'));
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
  });

  it('answers ping', async () => {
    const res = await client.db('admin').command({ ping: 1 });
    expect(res.ok).toBe(1);
  });

  it('supports insert, findOneAndUpdate and unique indexes', async () => {
    const db = client.db(`servers_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
    try {
      const orders = db.collection<{ _id: string; sku: string; qty: number; status: string }>('orders');
      await orders.createIndex({ sku: 1 }, { unique: true });

      await orders.insertOne({ _id: 'o1', sku: 'sku-1', qty: 1, status: 'new' });

      const updated = await orders.findOneAndUpdate(
        { _id: 'o1', status: 'new' },
        { $set: { status: 'paid' }, $inc: { qty: 2 } },
        { returnDocument: 'after' },
      );
      expect(updated).toEqual({ _id: 'o1', sku: 'sku-1', qty: 3, status: 'paid' });

      // The guard no longer matches: no document is updated.
      const noop = await orders.findOneAndUpdate({ _id: 'o1', status: 'new' }, { $set: { status: 'paid' } });
      expect(noop).toBeNull();

      const dup = await orders.insertOne({ _id: 'o2', sku: 'sku-1', qty: 1, status: 'new' }).catch((e: unknown) => e);
      expect(dup).toBeInstanceOf(MongoServerError);
      expect((dup as MongoServerError).code).toBe(11000);

      expect(await orders.countDocuments({})).toBe(1);
    } finally {
      await db.dropDatabase();
    }
  });

  // FerretDB v1 lost updates here (read-then-write without a transaction); MongoDB and DocumentDB do not.
  it('applies concurrent guarded updates of one document atomically', async () => {
    const db = client.db(`servers_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
    try {
      const accounts = db.collection<{ _id: string; balance: number }>('accounts');
      await accounts.insertOne({ _id: 'acc', balance: 50 });
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          i % 2 === 0
            ? accounts
                .findOneAndUpdate({ _id: 'acc', balance: { $gte: 1 } }, { $inc: { balance: -1 } })
                .then((doc) => (doc ? 1 : 0))
            : accounts
                .updateOne({ _id: 'acc', balance: { $gte: 1 } }, { $inc: { balance: -1 } })
                .then((r) => r.modifiedCount),
        ),
      );
      expect(results.reduce((a, b) => a + b, 0)).toBe(50);
      expect(await accounts.findOne({ _id: 'acc' })).toEqual({ _id: 'acc', balance: 0 });
    } finally {
      await db.dropDatabase();
    }
  });

  it('enforces partial unique indexes and stores nested arrays and $-prefixed keys', async () => {
    const db = client.db(`servers_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
    try {
      const claims = db.collection<{ _id: string; key: string | null; body?: unknown }>('claims');
      await claims.createIndex({ key: 1 }, { unique: true, partialFilterExpression: { key: { $type: 'string' } } });
      await claims.insertMany([
        { _id: 'a', key: null },
        { _id: 'b', key: null },
        { _id: 'c', key: 'k' },
      ]);
      const dup = await claims.insertOne({ _id: 'd', key: 'k' }).catch((e: unknown) => e);
      expect((dup as MongoServerError).code).toBe(11000);
      const body = { rows: [[1, 2], [{ $ref: 'x', 'a.b': true }]], empty: [], none: null };
      await claims.insertOne({ _id: 'e', key: null, body });
      expect((await claims.findOne({ _id: 'e' }))?.body).toEqual(body);
    } finally {
      await db.dropDatabase();
    }
  });
});

describe('Temporal dev server at TEMPORAL_ADDRESS', () => {
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect({ address: env('TEMPORAL_ADDRESS') });
  });

  afterAll(async () => {
    await connection?.close();
  });

  it('answers GetSystemInfo', async () => {
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('has the search attributes registered', async () => {
    const res = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    for (const [name, type] of Object.entries(TEST_SEARCH_ATTRIBUTES)) {
      const expected = encodeSearchAttributeIndexedValueType(
        type === 'Int' ? 'INT' : type === 'Datetime' ? 'DATETIME' : 'KEYWORD',
      );
      expect({ name, type: res.customAttributes?.[name] }).toEqual({ name, type: expected });
    }
  });

  it('adds search attributes missing from a database file made by an earlier start (an upgrade of npm start)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-sa-'));
    const dbFile = path.join(dir, 'temporal.db');
    const first = await startTemporalDevServer({
      headless: true,
      dbFile,
      searchAttributes: { OrderStatus: 'Keyword' },
    });
    await first.stop();
    const again = await startTemporalDevServer({
      headless: true,
      dbFile,
      searchAttributes: { OrderStatus: 'Keyword', WaitingOn: 'Keyword', WaitingSince: 'Datetime' },
    });
    const c = await Connection.connect({ address: again.address });
    try {
      const res = await c.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(res.customAttributes ?? {})).toEqual(
        expect.arrayContaining(['OrderStatus', 'WaitingOn', 'WaitingSince']),
      );
    } finally {
      await c.close();
      await again.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('runs a workflow', async () => {
    const client = new Client({ connection });
    const nativeConnection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
    try {
      const taskQueue = `servers-test-${randomUUID()}`;
      const worker = await Worker.create({ connection: nativeConnection, taskQueue, workflowBundle });
      const slept = await worker.runUntil(
        client.workflow.execute(sleepWorkflow, { taskQueue, workflowId: `wf-${randomUUID()}`, args: [10] }),
      );
      expect(slept).toBeGreaterThanOrEqual(10);
    } finally {
      await nativeConnection.close();
    }
  });
});

describe('time-skipping test server at TEMPORAL_TEST_SERVER_PATH', () => {
  let testEnv: TestWorkflowEnvironment;

  beforeAll(async () => {
    testEnv = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: env('TEMPORAL_TEST_SERVER_PATH') } },
    });
  });

  afterAll(async () => {
    await testEnv?.teardown();
  });

  it('skips a 3-day sleep in seconds', async () => {
    const taskQueue = `servers-test-${randomUUID()}`;
    const worker = await Worker.create({ connection: testEnv.nativeConnection, taskQueue, workflowBundle });
    const wallStart = Date.now();
    const slept = await worker.runUntil(
      testEnv.client.workflow.execute(sleepWorkflow, {
        taskQueue,
        workflowId: `wf-${randomUUID()}`,
        args: ['3 days'],
      }),
    );
    expect(slept).toBeGreaterThanOrEqual(THREE_DAYS_MS);
    expect(Date.now() - wallStart).toBeLessThan(30_000);
  });
});
