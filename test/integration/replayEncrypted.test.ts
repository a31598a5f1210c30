/**
 * Issue 26 §1 Payloads encrypted at rest: turning encryption on keeps every stored history replaying.
 *
 * - The stored fixtures (test/fixtures/histories/, written in clear before encryption existed) replay with the data
 *   converter of an encrypting configuration: the codec passes payloads in clear through unchanged.
 * - The same histories with their payloads encrypted (as a worker with PAYLOAD_ENCRYPTION_KEYS writes them: every
 *   payload but search attributes and the SDK's own marker bookkeeping), under two keys of a rotated ring, replay with
 *   that converter too; without it they fail, so the encryption is real and the first check not vacuous.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { loadConfig } from '../../src/config';
import { EncryptionCodec, temporalDataConverter } from '../../src/temporal/codec';
import { loadHistory } from '../helpers/histories';
import { workflowBundle } from '../helpers/workflowBundle';

const dir = path.resolve(__dirname, '..', 'fixtures', 'histories');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
// The ring after a rotation: `new` encrypts, `old` still decrypts.
const config = loadConfig({
  PAYLOAD_ENCRYPTION_KEYS: `new:${newKey.toString('base64')},old:${oldKey.toString('base64')}`,
});
const dataConverter = temporalDataConverter(config);

type History = temporal.api.history.v1.History;

/** Replays `histories`; returns `workflowId: error` for each failure. */
async function replayFailures(
  histories: { workflowId: string; history: History }[],
  withCodec: boolean,
): Promise<string[]> {
  const failures: string[] = [];
  const seen: string[] = [];
  for await (const r of Worker.runReplayHistories(
    { workflowBundle: await workflowBundle(), ...(withCodec ? { dataConverter } : {}) },
    histories,
  )) {
    seen.push(r.workflowId);
    if (r.error) failures.push(`${r.workflowId}: ${String(r.error)}`);
  }
  expect(seen.sort()).toEqual(histories.map((h) => h.workflowId).sort());
  return failures;
}

/**
 * Encrypts in place every payload of `history` that a worker with a payload codec encrypts: all but search attributes
 * and the marker details `data` / `patch-data` that the SDK's core writes itself. Even events under `old`, odd under
 * `new` (a history that spans a key rotation). @returns how many payloads were encrypted.
 */
async function encryptHistory(history: History): Promise<number> {
  const byKey = {
    old: new EncryptionCodec([{ id: 'old', key: oldKey }]),
    new: new EncryptionCodec([{ id: 'new', key: newKey }]),
  };
  let count = 0;
  const walk = async (value: unknown, key: string, codec: EncryptionCodec): Promise<void> => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (key === 'searchAttributes') return;
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.payloads) && key !== 'data' && key !== 'patch-data') {
      const payloads = o.payloads as Payload[];
      const encrypted = await codec.encode(payloads);
      payloads.forEach((p, i) => {
        p.metadata = encrypted[i]!.metadata;
        p.data = encrypted[i]!.data;
      });
      count += payloads.length;
      return;
    }
    if (key === 'summary' || key === 'details') {
      const p = o as Payload;
      if (p.metadata && p.data) {
        const [e] = await codec.encode([{ metadata: p.metadata, data: p.data }]);
        p.metadata = e!.metadata;
        p.data = e!.data;
        count++;
        return;
      }
    }
    for (const [k, v] of Object.entries(o)) await walk(v, k, codec);
  };
  for (const [i, event] of (history.events ?? []).entries()) {
    await walk(event, '', i % 2 === 0 ? byKey.old : byKey.new);
  }
  return count;
}

test('the stored histories (written in clear) replay with the encrypting data converter', async () => {
  expect(files.length).toBeGreaterThanOrEqual(14);
  const histories = files.map((f) => ({
    workflowId: f.replace(/\.json$/, ''),
    history: loadHistory(path.join(dir, f)),
  }));
  expect(await replayFailures(histories, true)).toEqual([]);
}, 120_000);

test('the same histories with their payloads encrypted replay with it, and not without it', async () => {
  const histories: { workflowId: string; history: History }[] = [];
  let encrypted = 0;
  for (const f of files) {
    const history = loadHistory(path.join(dir, f));
    encrypted += await encryptHistory(history);
    histories.push({ workflowId: f.replace(/\.json$/, ''), history });
  }
  expect(encrypted).toBeGreaterThan(files.length * 5);
  expect(await replayFailures(histories, true)).toEqual([]);
  // Two suffice to show that the payloads are really encrypted (each failure logs a workflow task failure).
  const without = await replayFailures(histories.slice(0, 2), false);
  expect(without).toHaveLength(2);
  for (const failure of without) expect(failure).toMatch(/binary\/encrypted|[Ee]ncoding/);
}, 180_000);
