/**
 * Jest global setup: one Temporal dev server (in memory, headless) and one embedded database (PostgreSQL with
 * DocumentDB and FerretDB v2, in a fresh temp dir, fsync off)
 * for the whole run, shared by all test files and workers.
 *
 * - TEMPORAL_ADDRESS already set: no Temporal dev server is started; otherwise it is set to the new one.
 * - MONGODB_URI already set: no database is started; otherwise it is set to the new one.
 * - TEMPORAL_TEST_SERVER_PATH: set to the time-skipping test server wrapper (see scripts/setup.sh) unless set,
 *   for `TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } })`.
 * - TEXTGEN_BASE_URL already set: that model is used; otherwise a local fake chat-completions server
 *   (helpers/fakeTextModel.ts) is started and TEXTGEN_BASE_URL / TEXTGEN_MODEL point at it.
 *
 * Environment variables set here reach the test workers, which Jest starts after global setup.
 * The stop handles are kept on globalThis for test/globalTeardown.ts (same process).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { binaries, startEmbeddedDatabase, startTemporalDevServer } from '../scripts/lib/servers';
import { SEARCH_ATTRIBUTES } from '../workflows/shared';
import { startFakeTextModel } from './helpers/fakeTextModel';

/** Search attributes registered on the test Temporal server: the ones the workflows keep current. */
export const TEST_SEARCH_ATTRIBUTES = SEARCH_ATTRIBUTES;

/** What globalSetup leaves for globalTeardown. */
export interface TestServersState {
  stops: Array<() => Promise<void>>;
  tempDirs: string[];
}

declare global {
  var __agentCommerceTestServers: TestServersState | undefined;
}

export default async function globalSetup(): Promise<void> {
  const state: TestServersState = { stops: [], tempDirs: [] };
  globalThis.__agentCommerceTestServers = state;

  const tasks: Array<Promise<void>> = [];
  if (!process.env.TEMPORAL_ADDRESS) {
    tasks.push(
      startTemporalDevServer({ headless: true, searchAttributes: { ...TEST_SEARCH_ATTRIBUTES } }).then((server) => {
        state.stops.push(server.stop);
        process.env.TEMPORAL_ADDRESS = server.address;
        process.env.TEMPORAL_NAMESPACE ??= server.namespace;
      }),
    );
  }
  if (!process.env.MONGODB_URI) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-db-'));
    state.tempDirs.push(dataDir);
    tasks.push(
      startEmbeddedDatabase({ dataDir, durable: false }).then((server) => {
        state.stops.push(server.stop);
        process.env.MONGODB_URI = server.uri;
      }),
    );
  }
  process.env.TEMPORAL_TEST_SERVER_PATH = binaries().temporalTestServer;
  // Issue 27 §5: the JSON log lines of the API and the worker (stdout) at WARN and above, unless LOG_LEVEL says more.
  process.env.LOG_LEVEL ??= 'warn';
  // A local chat-completions server stands in for the language model of the services that need one (issue 13).
  if (!process.env.TEXTGEN_BASE_URL) {
    tasks.push(
      startFakeTextModel().then((model) => {
        state.stops.push(model.stop);
        process.env.TEXTGEN_BASE_URL = model.baseUrl;
        process.env.TEXTGEN_MODEL ??= 'fake-model';
      }),
    );
  }

  const results = await Promise.allSettled(tasks);
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) {
    await Promise.allSettled(state.stops.map((stop) => stop()));
    state.stops = [];
    throw failures[0];
  }
}
