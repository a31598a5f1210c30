/**
 * `npm start`: the whole service on embedded defaults.
 *
 * Starts, unless TEMPORAL_ADDRESS / MONGODB_URI point at external servers: the Temporal dev server (Web UI on,
 * SQLite file in .data/temporal.db with WAL, the project's search attributes registered) and the embedded database
 * (a PostgreSQL cluster with DocumentDB in .data/database/postgres, FerretDB v2 on it); and, unless
 * X402_FACILITATOR_URL is set, the local x402 settlement stack (anvil with chain id 8453
 * and its state in .data/anvil-state.json, the USDC look-alike, the facilitator on :4020, a funded test buyer whose
 * key is printed). Then runs the worker and the API as separate processes under a supervisor
 * (scripts/lib/supervisor.ts): one that dies is restarted after a second while the rest keep running, in this profile
 * as in the cluster's.
 * Everything persists in .data, so a restart keeps every order and balance. Ctrl-C stops it all.
 *
 * `npm run start:cluster` (`--cluster`, issue 25): the production topology on this machine, data in .data-cluster.
 * A Temporal cluster (scripts/lib/temporalCluster.ts: frontend, 2 history, 2 matching and worker services as separate
 * processes on a PostgreSQL of their own, Web UI from ui-server) instead of the dev server; API_REPLICAS (default 2)
 * APIs behind HAProxy (deploy/haproxy.cfg) on PORT, and WORKER_REPLICAS (default 2) workers, each process with an
 * empty DATA_DIR of its own (deliverables and signing keys live in the database). A process that dies is restarted
 * after a second, as a supervisor would; the others keep serving.
 */
import { spawn } from 'node:child_process';
import { compileServers, compiledCommand } from './lib/compile';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { startLoadBalancer } from './lib/loadBalancer';
import { startPrometheus } from './lib/prometheus';
import { startWebUi } from './lib/webUi';
import { findFerretDbV1Data, startEmbeddedDatabase, startTemporalDevServer } from './lib/servers';
import { clusterBinaries, startTemporalCluster } from './lib/temporalCluster';
import { startLocalX402, type LocalX402 } from './lib/x402Local';
import { ANVIL_KEYS } from './lib/chain';
import { Supervisor } from './lib/supervisor';
import { SEARCH_ATTRIBUTES } from '../workflows/shared';
import { logger } from '../src/telemetry/logger';

const root = path.resolve(__dirname, '..');
/** This supervisor's own events (issue 27 §5: JSON lines, as the API's and the worker's); the banner stays text. */
const log = logger();
const cluster = process.argv.includes('--cluster');
const dataDir = path.resolve(process.env.DATA_DIR ?? path.join(root, cluster ? '.data-cluster' : '.data'));
const replicas = (name: string): number => Math.min(2, Math.max(1, Number(process.env[name] ?? 2)));

/**
 * The keys that encrypt workflow payloads at rest (issue 26 §1): PAYLOAD_ENCRYPTION_KEYS (empty: no encryption), or
 * one AES-256 key generated once into .data/payload-encryption-keys (back it up with .data: histories need it).
 */
function payloadEncryptionKeys(): string {
  if (process.env.PAYLOAD_ENCRYPTION_KEYS !== undefined) return process.env.PAYLOAD_ENCRYPTION_KEYS;
  const file = path.join(dataDir, 'payload-encryption-keys');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const keys = `k${new Date().toISOString().slice(0, 10).replace(/-/g, '')}:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, keys + '\n', { mode: 0o600 });
  return keys;
}

/** The operator key: OPERATOR_KEY, or one generated once and kept in .data/operator-key. */
function operatorKey(): string {
  if (process.env.OPERATOR_KEY) return process.env.OPERATOR_KEY;
  const file = path.join(dataDir, 'operator-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = `op_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  // The APIs and workers: one that dies is restarted after a second, the others keep serving (both profiles).
  const supervisor = new Supervisor({
    onRestart: ({ name, code, signal }) =>
      log.error({ process: name, code, signal }, `start: ${name} exited; restarting it in 1 s`),
  });
  let stopping = false;

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log.info({ code }, 'start: stopping');
    await supervisor.stop();
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    OPERATOR_KEY: operatorKey(),
    PAYLOAD_ENCRYPTION_KEYS: payloadEncryptionKeys(),
  };
  const temporalPort = Number(process.env.TEMPORAL_PORT ?? 7233);
  const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? temporalPort + 1000);
  // The Web UI decodes payloads through the API's codec server (docs/operators-encryption.md; sign in at /codec/login).
  const codecEndpoint = `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '3000'}/codec`;
  env.CODEC_CORS_ORIGINS ??= `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`;
  let uiUrl: string | undefined;
  let temporalMetrics: string[] = [];

  const starting: Promise<void>[] = [];
  if (!process.env.TEMPORAL_ADDRESS && cluster) {
    starting.push(
      startTemporalCluster({
        dataDir: path.join(dataDir, 'temporal-cluster'),
        frontendPort: temporalPort,
        uiPort,
        codecEndpoint,
        searchAttributes: { ...SEARCH_ATTRIBUTES },
      }).then((c) => {
        stops.push(c.stop);
        env.TEMPORAL_ADDRESS = c.address;
        uiUrl = c.uiUrl;
        temporalMetrics = c.processes.map((p) => `127.0.0.1:${p.metricsPort}`);
      }),
    );
  } else if (!process.env.TEMPORAL_ADDRESS) {
    starting.push(
      startTemporalDevServer({
        port: temporalPort,
        // Issue 39 §1: the dev server's own Web UI cannot send the operator's credentials to the codec server; the
        // ui-server (as in the cluster profile) can, so signing in at /codec/login is the only step.
        headless: true,
        dbFile: path.join(dataDir, 'temporal.db'),
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logFile: path.join(dataDir, 'temporal.log'),
      }).then(async (s) => {
        stops.push(s.stop);
        env.TEMPORAL_ADDRESS = s.address;
        const ui = await startWebUi({
          temporalAddress: s.address,
          namespace: s.namespace,
          port: uiPort,
          codecEndpoint,
          dir: path.join(dataDir, 'web-ui'),
          logFile: path.join(dataDir, 'web-ui.log'),
          binary: clusterBinaries().uiServer,
        });
        stops.push(ui.stop);
        uiUrl = ui.url;
      }),
    );
  }
  if (!process.env.MONGODB_URI) {
    const v1 = findFerretDbV1Data(path.join(dataDir, 'ferretdb'));
    if (v1) {
      console.warn(
        [
          `Found FerretDB v1 data (SQLite) in ${v1}. The embedded database is now FerretDB v2 on PostgreSQL`,
          `(${path.join(dataDir, 'database')}), which cannot read it, so this start uses the new database and leaves that`,
          'folder untouched. To carry its orders over, serve it with FerretDB v1 on another port and run',
          '  npm run db:copy -- --from mongodb://127.0.0.1:<v1 port>/ --to <the MongoDB wire URI printed below>',
          `or delete ${path.join(dataDir, 'ferretdb')} to silence this warning.`,
        ].join('\n'),
      );
    }
    starting.push(
      startEmbeddedDatabase({
        port: Number(process.env.FERRETDB_PORT ?? 27117),
        pgPort: Number(process.env.POSTGRES_PORT ?? 54329),
        dataDir: path.join(dataDir, 'database'),
        logDir: dataDir,
      }).then((s) => {
        stops.push(s.stop);
        env.MONGODB_URI = s.uri;
      }),
    );
  }
  // x402 (issue 3 §9): anvil + local USDC + facilitator + funded buyer, unless a facilitator is configured.
  let x402: LocalX402 | undefined;
  if (!process.env.X402_FACILITATOR_URL) {
    starting.push(
      startLocalX402({
        dataDir,
        ...(process.env.X402_NETWORK ? { network: process.env.X402_NETWORK } : {}),
        anvilPort: Number(process.env.ANVIL_PORT ?? 8545),
        facilitatorPort: Number(process.env.FACILITATOR_PORT ?? 4020),
      }).then((local) => {
        x402 = local;
        stops.push(local.stop);
        env.X402_FACILITATOR_URL = local.facilitatorUrl;
        env.X402_RPC_URL = local.rpcUrl;
        // The local chain's pay-to key: x402 payments no order kept are refunded on chain (issue 36 §1).
        if (!process.env.X402_PAY_TO) env.X402_REFUND_PRIVATE_KEY = ANVIL_KEYS.payTo;
      }),
    );
  }
  try {
    await Promise.all(starting);
  } catch (err) {
    log.fatal({ err }, 'start: a server did not start');
    return shutdown(1);
  }

  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  // The API and the worker run as JavaScript (scripts/lib/compile.ts: less memory than under tsx).
  const outDir = await compileServers(root);
  const run = (name: string, script: string, extra: Record<string, string> = {}) => {
    const { command, args, env: compiled } = compiledCommand(outDir, script);
    supervisor.run(name, () => spawn(command, args, { env: { ...env, ...compiled, ...extra }, stdio: 'inherit' }));
  };
  // The workflow bundle is built by a short-lived process, so the worker never loads webpack.
  // Deliverables of earlier versions (files in .data/deliverables) are copied into the shared store once (issue 25 §2),
  // each verified by sha256; the files stay, and a marker says it is done.
  const oldStore = path.join(dataDir, 'deliverables');
  const marker = path.join(oldStore, '.migrated');
  if (existsSync(oldStore) && !existsSync(marker) && (env.DELIVERABLE_STORE ?? 'gridfs') !== 'file') {
    const migrated = await new Promise<number | null>((resolve) => {
      const m = spawn(tsx, [path.join(root, 'scripts', 'migrate-deliverables.ts'), '--from', oldStore], {
        env,
        stdio: 'inherit',
      });
      m.on('exit', (code) => resolve(code));
    });
    if (migrated !== 0) {
      log.fatal({ folder: oldStore }, 'start: copying the deliverables failed; nothing was changed there');
      return shutdown(1);
    }
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  }
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  const bundled = await new Promise<number | null>((resolve) => {
    const b = spawn(tsx, [path.join(root, 'scripts', 'bundle-workflows.ts'), bundlePath], { env, stdio: 'inherit' });
    b.on('exit', (code) => resolve(code));
  });
  if (bundled !== 0) {
    log.fatal('start: building the workflow bundle failed');
    return shutdown(1);
  }
  env.WORKFLOW_BUNDLE_PATH = bundlePath;
  const port = process.env.PORT ?? '3000';
  const host = process.env.HOST ?? '127.0.0.1';
  let topology = '';
  if (!cluster) {
    run('worker', 'worker/index.ts');
    run('api', 'src/server.ts');
  } else {
    // Each replica gets an empty data folder of its own: nothing a process keeps on disk is shared.
    const own = (name: string): string => {
      const dir = path.join(dataDir, 'processes', name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    const apis: string[] = [];
    for (let i = 1; i <= replicas('WORKER_REPLICAS'); i++) {
      // Issue 39 §1: each replica's /metrics on a port of its own (workers 9480 + i, APIs 9470 + i).
      run(`worker-${i}`, 'worker/index.ts', {
        DATA_DIR: own(`worker-${i}`),
        WORKER_METRICS_PORT: String(9480 + i),
      });
    }
    for (let i = 1; i <= replicas('API_REPLICAS'); i++) {
      const apiPort = String(Number(port) + i);
      apis.push(`${host}:${apiPort}`);
      run(`api-${i}`, 'src/server.ts', {
        DATA_DIR: own(`api-${i}`),
        PORT: apiPort,
        API_METRICS_PORT: String(9470 + i),
        PUBLIC_BASE_URL: `http://${host}:${port}`,
      });
    }
    try {
      const lb = await startLoadBalancer({ bind: `${host}:${port}`, apis, logFile: path.join(dataDir, 'haproxy.log') });
      stops.unshift(lb.stop);
    } catch (err) {
      log.fatal({ err }, 'start: the load balancer did not start');
      return shutdown(1);
    }
    // Issue 39 §1: a real Prometheus scrapes every process, with the alert rules of deploy/prometheus/alerts.yml.
    const promListen = `${host}:${process.env.PROMETHEUS_PORT ?? '9090'}`;
    try {
      const workerCount = replicas('WORKER_REPLICAS');
      const apiCount = replicas('API_REPLICAS');
      const range = (n: number, from: number) => Array.from({ length: n }, (_, i) => `127.0.0.1:${from + i + 1}`);
      const prometheus = await startPrometheus({
        dataDir: path.join(dataDir, 'prometheus'),
        listen: promListen,
        jobs: [
          { job: 'agent-commerce-api', targets: range(apiCount, 9470) },
          { job: 'agent-commerce-worker', targets: range(workerCount, 9480) },
          ...(temporalMetrics.length ? [{ job: 'temporal-server', targets: temporalMetrics }] : []),
        ],
        logFile: path.join(dataDir, 'prometheus.log'),
      });
      stops.unshift(prometheus.stop);
    } catch (err) {
      log.fatal({ err }, 'start: Prometheus did not start');
      return shutdown(1);
    }
    topology = `  Processes      HAProxy on :${port} → APIs ${apis.join(', ')}; ${replicas('WORKER_REPLICAS')} workers; Temporal services (ps -ef | grep temporal-server)
  Prometheus     http://${promListen}   (alerts: /alerts; every process scraped; rules in deploy/prometheus/alerts.yml)
`;
  }
  console.log(
    [
      '',
      'Agent commerce is starting:',
      `  API            http://${host}:${port}   (health: /health, OpenAPI: /api/v1/openapi.json)`,
      `  Temporal       ${env.TEMPORAL_ADDRESS}${uiUrl ? `   Web UI: ${uiUrl}` : ''}`,
      `  MongoDB wire   ${env.MONGODB_URI}`,
      `  Data folder    ${dataDir}`,
      ...(topology ? [topology.trimEnd()] : []),
      `  Operator key   ${env.OPERATOR_KEY}`,
      ...(cluster
        ? []
        : [
            `  Metrics        http://${env.METRICS_HOST ?? '127.0.0.1'}:${env.API_METRICS_PORT ?? '9464'}/metrics (API), http://${env.METRICS_HOST ?? '127.0.0.1'}:${env.WORKER_METRICS_PORT ?? '9465'}/metrics (worker)`,
          ]),
      `  Codec server   ${codecEndpoint}   (payloads ${env.PAYLOAD_ENCRYPTION_KEYS ? 'encrypted' : 'in clear'}; sign in at /codec/login to read them in the Web UI)`,
      ...(x402
        ? [
            `  x402 chain     ${x402.rpcUrl} (anvil, ${x402.network}, USDC look-alike at ${x402.asset}; state in ${dataDir}/anvil-state.json)`,
            `  Facilitator    ${x402.facilitatorUrl}   (GET /supported)`,
            `  Test buyer     ${x402.buyer.address} holds ${Number(x402.buyer.balance) / 1e6} USDC`,
            `  Buyer key      ${x402.buyer.privateKey}   (anvil account #1: a public test key, local chain only)`,
            '  x402 demo      npm run demo:x402',
          ]
        : [`  Facilitator    ${env.X402_FACILITATOR_URL} (configured)`]),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

void main();
