/**
 * The scripts' operator key (scripts/lib/operatorKey.ts): with `.data` and `.data-cluster` both holding a key, the
 * one the running API accepts is used, so `npm run demo` after `npm run start:cluster` does not send `npm start`'s key.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { localOperatorKey, operatorKeyFiles } from '../../scripts/lib/operatorKey';

/** A stand-in API that accepts one operator key on the probe path: 200 for it, 403 for another, 401 for none. */
async function apiAccepting(key: string): Promise<{ url: string; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    const auth = req.headers.authorization;
    res.statusCode = !auth ? 401 : auth === `Bearer ${key}` ? 200 : 403;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, paths, close: () => new Promise((r) => server.close(() => r())) };
}

describe('localOperatorKey', () => {
  let root: string;
  const writeKey = (dir: string, key: string) => {
    mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, dir, 'operator-key'), `${key}\n`);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'operator-key-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('uses OPERATOR_KEY when set, without reading files or asking the API', async () => {
    writeKey('.data', 'op_file');
    await expect(localOperatorKey('http://127.0.0.1:1', root, { OPERATOR_KEY: 'op_env' })).resolves.toBe('op_env');
  });

  it('returns the only key file found, or an empty string when there is none', async () => {
    await expect(localOperatorKey('http://127.0.0.1:1', root, {})).resolves.toBe('');
    writeKey('.data-cluster', 'op_cluster');
    await expect(localOperatorKey('http://127.0.0.1:1', root, {})).resolves.toBe('op_cluster');
  });

  it.each([
    ["the cluster's key when the running API accepts that one", 'op_cluster', 2],
    ["the dev server's key when that is the one accepted, asking once", 'op_dev', 1],
  ])('picks %s', async (_case, accepted, probes) => {
    writeKey('.data', 'op_dev');
    writeKey('.data-cluster', 'op_cluster');
    const api = await apiAccepting(accepted);
    try {
      await expect(localOperatorKey(api.url, root, {})).resolves.toBe(accepted);
      expect(api.paths).toEqual(Array(probes).fill('/api/v1/operator/reconciliation'));
    } finally {
      await api.close();
    }
  });

  it('falls back to the first key file when the API cannot be reached', async () => {
    writeKey('.data', 'op_dev');
    writeKey('.data-cluster', 'op_cluster');
    await expect(localOperatorKey('http://127.0.0.1:1', root, {})).resolves.toBe('op_dev');
  });

  it('lists DATA_DIR first and each file once', () => {
    writeKey('.data', 'op_dev');
    writeKey('.data-cluster', 'op_cluster');
    expect(operatorKeyFiles(root, { DATA_DIR: path.join(root, '.data-cluster') })).toEqual(['op_cluster', 'op_dev']);
  });
});
