/**
 * The application's services (src/ports.ts) on a database and a data folder of their own, for tests that call
 * repositories or activities directly, without the API (the run's database server: test/globalSetup.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/ports';

/** Services over database `<name>_<random hex>` and a fresh temporary data folder; `dispose` drops the database. */
export async function isolatedServices(name: string): Promise<{ services: Services; dispose(): Promise<void> }> {
  const config = loadConfig({
    MONGODB_URI: process.env.MONGODB_URI,
    MONGODB_DB: `${name}_${randomBytes(4).toString('hex')}`,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), `agent-commerce-${name}-`)),
  });
  const services = await createServices(config);
  return {
    services,
    async dispose() {
      await services.db.db.dropDatabase().catch(() => undefined);
      await services.db.close();
    },
  };
}
