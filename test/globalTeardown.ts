/** Jest global teardown: stops the servers test/globalSetup.ts started and removes their temp dirs. */
import * as fs from 'node:fs';
import type { TestServersState } from './globalSetup';

export default async function globalTeardown(): Promise<void> {
  const state: TestServersState | undefined = globalThis.__agentCommerceTestServers;
  if (!state) return;
  globalThis.__agentCommerceTestServers = undefined;
  await Promise.allSettled(state.stops.map((stop) => stop()));
  for (const dir of state.tempDirs) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
