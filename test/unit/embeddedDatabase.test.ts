/** Detection and copying of FerretDB v1 data (issue 9 §1) and the long-poll header parser (issue 9 §3). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findFerretDbV1Data } from '../../scripts/lib/servers';
import { preferWaitSeconds } from '../../src/routes/orders';
import { upgradeDocument, walletBalanceFields } from '../../scripts/copy-database';

describe('findFerretDbV1Data', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'v1-detect-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds the SQLite files of a FerretDB v1 folder', () => {
    const dir = path.join(root, 'ferretdb');
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'agent_commerce.sqlite'), '');
    expect(findFerretDbV1Data(dir)).toBe(path.join(dir, 'data'));
  });

  it('ignores a missing folder and one without SQLite files', () => {
    expect(findFerretDbV1Data(path.join(root, 'absent'))).toBeUndefined();
    fs.mkdirSync(path.join(root, 'empty', 'data'), { recursive: true });
    expect(findFerretDbV1Data(path.join(root, 'empty'))).toBeUndefined();
  });
});

describe('preferWaitSeconds (RFC 7240 Prefer: wait)', () => {
  it.each([
    ['wait=10', 10],
    ['respond-async, wait=5', 5],
    ['wait=600', 60],
    ['WAIT=3', 3],
    ['', 0],
    ['wait=', 0],
    ['wait=abc', 0],
    ['nowait=5', 0],
  ])('%s → %d', (header, seconds) => {
    expect(preferWaitSeconds(header)).toBe(seconds);
  });
});

describe('npm run db:copy: FerretDB v1 documents in the current layout', () => {
  it('turns JSON text into nested documents and placeholder keys into null', () => {
    const goods = { item: { id: 'recipe-a' }, content: { nodes: [[1, 2]], connections: {} } };
    expect(
      upgradeDocument('x402_payments', {
        _id: 'x4p_1',
        delivery_json: JSON.stringify(goods),
        tx_key: 'none:x4p_1',
        order_key: 'released:x4p_1',
      }),
    ).toEqual({ _id: 'x4p_1', delivery: goods, tx_key: null, order_key: null });
    expect(
      upgradeDocument('x402_payments', {
        _id: 'x4p_2',
        delivery_json: null,
        tx_key: '0xabc',
        order_key: 'order:ord_1',
        network: 'eip155:8453',
        payer: '0xAB',
        nonce: '0xCD',
      }),
    ).toEqual({
      _id: 'x4p_2',
      delivery: null,
      tx_key: '0xabc',
      order_key: 'order:ord_1',
      network: 'eip155:8453',
      payer: '0xAB',
      nonce: '0xCD',
      auth_key: 'eip155:8453|0xab|0xcd',
    });
    expect(
      upgradeDocument('wallet_entries', {
        _id: 'agent-1#000000000003',
        agent_id: 'agent-1',
        tx_id: 'order:ord_9',
        seq: 3,
      }),
    ).toMatchObject({
      _id: 'agent-1#order:ord_9',
      seq: 3,
    });
    expect(
      upgradeDocument('x402_payment_ids', {
        _id: 'k',
        response: { status: 200, headers: { a: 'b' }, body_json: '{"ok":[1]}' },
      }),
    ).toEqual({ _id: 'k', response: { status: 200, headers: { a: 'b' }, body: { ok: [1] } } });
    const order = { _id: 'ord_1', status: 'accepted' };
    expect(upgradeDocument('orders', order)).toEqual(order);
  });

  it('gives a v1 wallet the balance of its newest ledger entry', () => {
    expect(walletBalanceFields({ seq: 7, balance_after_micros: 12_500_000 })).toEqual({
      balance_micros: 12_500_000,
      seq: 7,
      recent: [],
    });
    expect(walletBalanceFields(null)).toEqual({ balance_micros: 0, seq: 0, recent: [] });
  });
});
