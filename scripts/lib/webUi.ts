/**
 * The Temporal Web UI as operators get it (issue 39 §1, "the operator's first look"): the ui-server
 * (`github.com/temporalio/ui-server/v2`, built by scripts/setup.sh) pointed at a frontend, with the API's codec
 * server and `codec.includeCredentials`, so that signing in at `/codec/login` is the only step before encrypted payloads
 * read in clear. Both profiles run it: `npm start` over the dev server (started headless), `npm run start:cluster`
 * over the cluster's frontend.
 */
import fs from 'node:fs';
import path from 'node:path';
import { requireExecutable, spawnTracked, waitUntilReady, type TrackedChild } from './servers';

/** What {@link startWebUi} runs. */
export interface WebUiOptions {
  /** host:port of the Temporal frontend. */
  temporalAddress: string;
  namespace: string;
  port: number;
  /** The API's codec server (`…/codec`); called with the browser's credentials (the operator's session cookie). */
  codecEndpoint?: string;
  /** Folder for its configuration (created). */
  dir: string;
  logFile?: string;
  /** The ui-server binary. */
  binary: string;
  timeoutMs?: number;
}

/** The ui-server's configuration for {@link WebUiOptions} (JSON is YAML). */
export function webUiConfig(
  opts: Pick<WebUiOptions, 'temporalAddress' | 'namespace' | 'port' | 'codecEndpoint'>,
): string {
  return JSON.stringify(
    {
      temporalGrpcAddress: opts.temporalAddress,
      host: '127.0.0.1',
      port: opts.port,
      enableUi: true,
      defaultNamespace: opts.namespace,
      cors: { allowOrigins: [`http://127.0.0.1:${opts.port}`, `http://localhost:${opts.port}`] },
      auth: { enabled: false },
      ...(opts.codecEndpoint ? { codec: { endpoint: opts.codecEndpoint, includeCredentials: true } } : {}),
    },
    null,
    2,
  );
}

/**
 * Writes the configuration and starts the ui-server; resolves once `/api/v1/settings` answers.
 * @throws Error if the binary is missing or it is not ready in `timeoutMs` (60 s).
 */
export async function startWebUi(opts: WebUiOptions): Promise<TrackedChild & { url: string }> {
  requireExecutable(opts.binary, 'temporal-ui-server', 'TEMPORAL_UI_SERVER_PATH');
  fs.mkdirSync(path.join(opts.dir, 'config'), { recursive: true });
  fs.writeFileSync(path.join(opts.dir, 'config', 'web.yaml'), webUiConfig(opts));
  const ui = spawnTracked(
    'temporal-ui-server',
    opts.binary,
    ['--root', opts.dir, '--config', 'config', '--env', 'web', 'start'],
    opts.logFile,
  );
  const url = `http://127.0.0.1:${opts.port}`;
  await waitUntilReady(ui, opts.timeoutMs ?? 60_000, async () => {
    const res = await fetch(`${url}/api/v1/settings`);
    if (!res.ok) throw new Error(`UI answered ${res.status}`);
  });
  return Object.assign(ui, { url });
}
