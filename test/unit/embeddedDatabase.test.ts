/** Detection of a FerretDB v1 data folder (issue 9 §1) and the long-poll header parser (issue 9 §3). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findFerretDbV1Data } from '../../scripts/lib/servers';
import { preferWaitSeconds } from '../../src/routes/orders';

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
