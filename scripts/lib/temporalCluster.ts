/**
 * A real Temporal cluster on this machine (issue 25 §1): the Temporal server built from `go.temporal.io/server`
 * v1.32.1 (scripts/setup.sh), its frontend, history, matching and worker services as separate processes, on a
 * PostgreSQL cluster of its own (`postgres12` plugin, SQL visibility), schema created and upgraded with
 * `temporal-sql-tool` from the module's own `schema/` folder, the namespace and search attributes registered through
 * the operator API, and the Web UI from `github.com/temporalio/ui-server/v2` v2.55.0 pointed at the frontend.
 *
 * Sizing, written down because both are fixed or hard to change later:
 * - History shards ({@link DEFAULT_HISTORY_SHARDS}): a shard is the unit of history ownership and parallelism, and
 *   its count is fixed for the life of the cluster's database. Each shard polls its own queues, so on 2 cores a
 *   small count keeps idle load low; 16 still spreads over up to 16 history hosts. A production cluster on its own
 *   hardware should pick 512 or more at creation (Temporal's guidance), since this number cannot grow.
 * - PostgreSQL `max_connections` ({@link maxConnections}): every service process keeps a pool of
 *   {@link POOL.default} connections to the default store and {@link POOL.visibility} to visibility; the sum over the
 *   processes plus 20 for the schema tool and an operator's psql.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startWebUi } from './webUi';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import {
  assertPortFree,
  cacheDir,
  freePort,
  requireExecutable,
  runTool,
  spawnTracked,
  startPostgres,
  waitUntilReady,
  binaries,
  ensureSearchAttributes,
  type SearchAttributeType,
  type TrackedChild,
} from './servers';

/** The four services of a Temporal server, each run as processes of its own. */
export type TemporalService = 'frontend' | 'history' | 'matching' | 'worker';

/** History shards of a new cluster: see the module comment. Override: TEMPORAL_HISTORY_SHARDS. */
export const DEFAULT_HISTORY_SHARDS = 16;

/** Connections each service process may hold, per store. */
export const POOL = { default: 20, visibility: 5 } as const;

/** `max_connections` for `processes` service processes: their pools plus 20 for tools and operators. */
export const maxConnections = (processes: number): number => processes * (POOL.default + POOL.visibility) + 20;

/** Where the cluster's binaries are: TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH, TEMPORAL_UI_SERVER_PATH or the cache. */
export function clusterBinaries(): { server: string; sqlTool: string; uiServer: string; schemaDir: string } {
  const dir = path.join(cacheDir(), 'temporal-cluster');
  const env = (name: string): string | undefined => process.env[name] || undefined;
  return {
    server: env('TEMPORAL_SERVER_PATH') ?? path.join(dir, 'bin', 'temporal-server'),
    sqlTool: env('TEMPORAL_SQL_TOOL_PATH') ?? path.join(dir, 'bin', 'temporal-sql-tool'),
    uiServer: env('TEMPORAL_UI_SERVER_PATH') ?? path.join(dir, 'bin', 'temporal-ui-server'),
    schemaDir: env('TEMPORAL_SCHEMA_DIR') ?? path.join(dir, 'schema', 'postgresql', 'v12'),
  };
}

/** What {@link startTemporalCluster} runs. */
export interface TemporalClusterOptions {
  /** Holds `postgres/` (Temporal's own PostgreSQL), `config/` (one file per process) and `logs/`. */
  dataDir: string;
  /** Frontend gRPC port (default: a free one; `npm run start:cluster` uses 7233). */
  frontendPort?: number;
  pgPort?: number;
  /** Web UI port; `false`: no Web UI. Default: a free port. */
  uiPort?: number | false;
  /** Processes per service (default: 2 history, 2 matching, 1 frontend, 1 worker). */
  processes?: Partial<Record<TemporalService, number>>;
  historyShards?: number;
  namespace?: string;
  /** Custom search attributes registered through the operator API (existing ones are kept). */
  searchAttributes?: Record<string, SearchAttributeType>;
  /** The Web UI's codec server (with credentials: the operator's /codec/login session), to read encrypted payloads. */
  codecEndpoint?: string;
  /** PostgreSQL fsync (default true: the cluster is the durable store of every workflow). */
  durable?: boolean;
  startTimeoutMs?: number;
}

/** One service process of the cluster; `kill` and `start` are what the drills use. */
export interface ClusterProcess {
  /** `history-1`, `matching-2`, … */
  name: string;
  service: TemporalService;
  grpcPort: number;
  /** Its Prometheus `/metrics` port (the server's own series, for Temporal's server dashboard). */
  metricsPort: number;
  pid(): number;
  isRunning(): boolean;
  /** SIGKILL (default) or another signal; resolves when the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same configuration (after `kill`). */
  start(): void;
  stop(): Promise<void>;
}

/** A running cluster: the frontend address clients use, its Web UI, and every process. */
export interface TemporalCluster {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  postgresUrl: string;
  processes: ClusterProcess[];
  /** Temporal's PostgreSQL: SIGKILLed and started again by the crash-recovery drill. */
  postgres: { pid(): number; kill(): Promise<void>; start(): Promise<void> };
  stop(): Promise<void>;
}

/**
 * Dynamic config of the cluster: what the dev server turns on for this project's features (Updates,
 * update-with-start, Worker Deployments) and search attributes visible at once after registration.
 */
const DYNAMIC_CONFIG: Record<string, unknown> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': true,
  'frontend.enableExecuteMultiOperation': true,
  'frontend.workerVersioningWorkflowAPIs': true,
  'frontend.workerVersioningDataAPIs': true,
  'system.enableDeploymentVersions': true,
  'system.forceSearchAttributesCacheRefreshOnRead': true,
};

/** psql -c `sql` against `db`; returns its unaligned output. */
function psql(pgPort: number, db: string, sql: string): string {
  const { pgBinDir } = binaries();
  return runTool(
    path.join(pgBinDir, 'psql'),
    ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql],
    undefined,
  ).trim();
}

/**
 * Creates Temporal's two databases when missing and brings their schemas to the module's newest version
 * (`create`, `setup-schema -v 0.0` once, then `update-schema -d <versioned>` at every start: a no-op when current).
 */
function prepareSchemas(pgPort: number): void {
  const { sqlTool, schemaDir } = clusterBinaries();
  requireExecutable(sqlTool, 'temporal-sql-tool', 'TEMPORAL_SQL_TOOL_PATH');
  for (const [db, folder] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', 'postgres', '--db', db];
    if (psql(pgPort, 'postgres', `SELECT 1 FROM pg_database WHERE datname = '${db}'`) !== '1') {
      runTool(sqlTool, [...base, 'create'], undefined);
    }
    if (psql(pgPort, db, "SELECT to_regclass('public.schema_version') IS NOT NULL") !== 't') {
      runTool(sqlTool, [...base, 'setup-schema', '-v', '0.0'], undefined);
    }
    runTool(sqlTool, [...base, 'update-schema', '-d', path.join(schemaDir, folder, 'versioned')], undefined);
  }
}

/** One process's ports. */
export interface ProcessPorts {
  grpc: number;
  membership: number;
  metrics: number;
  http?: number;
}

/** Where a process runs and what it reaches: this machine (127.0.0.1) or a container network (docker-compose.yml). */
export interface ServerPlacement {
  /** `127.0.0.1` here; `0.0.0.0` in a container (membership then advertises the container's own address). */
  bind: '127.0.0.1' | '0.0.0.0';
  /** host:port of the frontend, for the worker service's client and the cluster metadata. */
  frontend: string;
  /** host:port of Temporal's PostgreSQL. */
  postgres: string;
  user: string;
  password: string;
  shards: number;
  dynamicConfigFile: string;
}

/**
 * One process's server config (JSON, which YAML readers accept): its own ports, the shared stores. The same function
 * writes the configs of `npm run start:cluster` and those docker-compose.yml mounts (`npm run compose:config`).
 */
export function serverConfig(
  service: TemporalService,
  ports: ProcessPorts,
  at: ServerPlacement,
  others: Record<TemporalService, ProcessPorts>,
): unknown {
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: at.postgres,
      connectProtocol: 'tcp',
      user: at.user,
      password: at.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const local = at.bind === '127.0.0.1';
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: at.shards,
      datastores: {
        default: store('temporal', POOL.default),
        visibility: store('temporal_visibility', POOL.visibility),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', ...(local ? { broadcastAddress: '127.0.0.1' } : {}) },
      metrics: {
        prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `${at.bind}:${ports.metrics}` },
      },
    },
    // Every service is listed (the membership monitor tracks only those); the process serves its own, and a peer's
    // port here is only a fallback for the port each host advertises in its membership labels.
    services: Object.fromEntries(
      (Object.keys(others) as TemporalService[]).map((svc) => {
        const p = svc === service ? ports : others[svc];
        return [
          svc,
          {
            rpc: {
              grpcPort: p.grpc,
              membershipPort: p.membership,
              ...(local ? { bindOnLocalHost: true } : { bindOnIP: '0.0.0.0' }),
              ...(p.http ? { httpPort: p.http } : {}),
            },
          },
        ];
      }),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: at.frontend },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    publicClient: { hostPort: at.frontend },
    dynamicConfigClient: { filepath: at.dynamicConfigFile, pollInterval: '10s' },
  };
}

/** The dynamic config file's content (see {@link DYNAMIC_CONFIG}). */
export const dynamicConfigYaml = (): string =>
  JSON.stringify(
    Object.fromEntries(Object.entries(DYNAMIC_CONFIG).map(([k, value]) => [k, [{ value, constraints: {} }]])),
    null,
    2,
  ) + '\n';

/** Registers the namespace (3 days' retention) and the search attributes it lacks, through the operator API. */
async function registerNamespace(
  address: string,
  namespace: string,
  searchAttributes: Record<string, SearchAttributeType>,
): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } catch {
      await connection.workflowService
        .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('3 days') })
        .catch((err: { code?: number }) => {
          if (err.code !== 6) throw err; // ALREADY_EXISTS: another starter won
        });
    }
    await ensureSearchAttributes(connection, namespace, searchAttributes);
  } finally {
    await connection.close();
  }
}

/**
 * Starts the cluster and resolves once the frontend answers, the namespace exists with its search attributes, and a
 * workflow can be started (history shards owned). Restarting on the same `dataDir` reuses the databases.
 * @throws Error naming a missing binary (`bash scripts/setup.sh` builds them) or with the tail of a process's output.
 */
export async function startTemporalCluster(opts: TemporalClusterOptions): Promise<TemporalCluster> {
  const { server, uiServer } = clusterBinaries();
  requireExecutable(server, 'temporal-server', 'TEMPORAL_SERVER_PATH');
  const dataDir = path.resolve(opts.dataDir);
  const namespace = opts.namespace ?? 'default';
  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  const shards = opts.historyShards ?? Number(process.env.TEMPORAL_HISTORY_SHARDS ?? DEFAULT_HISTORY_SHARDS);
  const counts: Record<TemporalService, number> = { history: 2, matching: 2, frontend: 1, worker: 1 };
  Object.assign(counts, opts.processes ?? {});
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  for (const p of [opts.frontendPort, opts.pgPort, opts.uiPort]) {
    if (typeof p === 'number') await assertPortFree(p, 'Temporal cluster');
  }
  const frontendPort = opts.frontendPort ?? (await freePort());
  const pgPort = opts.pgPort ?? (await freePort());
  const logs = path.join(dataDir, 'logs');
  const configDir = path.join(dataDir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });

  const pgSettings = {
    listen_addresses: "'127.0.0.1'",
    port: String(pgPort),
    unix_socket_directories: "''",
    max_connections: String(maxConnections(total)),
    max_wal_size: "'256MB'",
    ...(opts.durable === false ? { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } : {}),
  };
  const pgDir = path.join(dataDir, 'postgres');
  let postgres: TrackedChild = await startPostgres({
    pgDir,
    settings: pgSettings,
    timeoutMs,
    logFile: path.join(logs, 'postgres.log'),
  });
  const stops: Array<() => Promise<void>> = [() => postgres.stop()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    prepareSchemas(pgPort);
    const dynamicConfigFile = path.join(configDir, 'dynamicconfig.yaml');
    fs.writeFileSync(dynamicConfigFile, dynamicConfigYaml());

    const plan: { name: string; service: TemporalService; ports: ProcessPorts }[] = [];
    for (const service of ['history', 'matching', 'frontend', 'worker'] as const) {
      for (let i = 1; i <= counts[service]; i++) {
        plan.push({
          name: `${service}-${i}`,
          service,
          ports: {
            grpc: service === 'frontend' && i === 1 ? frontendPort : await freePort(),
            membership: await membershipPort(),
            metrics: await freePort(),
            ...(service === 'frontend' ? { http: await freePort() } : {}),
          },
        });
      }
    }
    const firstOf = Object.fromEntries(
      (['history', 'matching', 'frontend', 'worker'] as const).map((svc) => [
        svc,
        plan.find((p) => p.service === svc)?.ports ?? { grpc: 0, membership: 0, metrics: 0 },
      ]),
    ) as Record<TemporalService, ProcessPorts>;
    const processes: ClusterProcess[] = [];
    for (const { name, service, ports } of plan) {
      const file = path.join(configDir, `${name}.yaml`);
      const placement: ServerPlacement = {
        bind: '127.0.0.1',
        frontend: `127.0.0.1:${frontendPort}`,
        postgres: `127.0.0.1:${pgPort}`,
        user: 'postgres',
        password: '',
        shards,
        dynamicConfigFile,
      };
      fs.writeFileSync(file, JSON.stringify(serverConfig(service, ports, placement, firstOf), null, 2));
      const args = ['--config-file', file, '--allow-no-auth', 'start', '--service', service];
      let child = spawnTracked(name, server, args, path.join(logs, `${name}.log`));
      if (processes.length === 0) await clusterMetadataWritten(child, pgPort, timeoutMs);
      processes.push({
        name,
        service,
        grpcPort: ports.grpc,
        metricsPort: ports.metrics,
        pid: () => child.pid,
        isRunning: () => child.isRunning(),
        kill: async (signal = 'SIGKILL') => {
          child.process.kill(signal);
          await child.exited;
          await child.stop();
        },
        start: () => {
          if (!child.isRunning()) child = spawnTracked(name, server, args, path.join(logs, `${name}.log`));
        },
        stop: () => child.stop(),
      });
    }
    stops.push(() => Promise.all(processes.map((p) => p.stop())).then(() => undefined));
    const address = `127.0.0.1:${frontendPort}`;
    const down = () => processes.filter((p) => !p.isRunning()).map((p) => p.name);
    await waitUntilReady(
      {
        name: 'Temporal cluster',
        pid: processes[0]?.pid() ?? -1,
        isRunning: () => down().length === 0,
        exited: Promise.resolve('exited'),
        tail: () =>
          `${down().join(', ') || 'frontend-1'}: ${tailOf(path.join(logs, `${down()[0] ?? 'frontend-1'}.log`))}`,
      },
      timeoutMs,
      async () => {
        await registerNamespace(address, namespace, opts.searchAttributes ?? {});
        await probeShardsOwned(address, namespace);
      },
    );

    let uiUrl: string | undefined;
    if (opts.uiPort !== false) {
      const ui = await startWebUi({
        temporalAddress: address,
        namespace,
        port: opts.uiPort ?? (await freePort()),
        ...(opts.codecEndpoint ? { codecEndpoint: opts.codecEndpoint } : {}),
        dir: path.join(dataDir, 'ui'),
        logFile: path.join(logs, 'ui-server.log'),
        binary: uiServer,
        timeoutMs,
      });
      stops.push(() => ui.stop());
      uiUrl = ui.url;
    }

    return {
      address,
      namespace,
      uiUrl,
      postgresUrl: `postgres://postgres@127.0.0.1:${pgPort}/temporal`,
      processes,
      postgres: {
        pid: () => postgres.pid,
        kill: async () => {
          postgres.process.kill('SIGKILL');
          await postgres.exited;
          await postgres.stop();
        },
        start: async () => {
          postgres = await startPostgres({
            pgDir,
            settings: pgSettings,
            timeoutMs,
            logFile: path.join(logs, 'postgres.log'),
          });
        },
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * A free port for a membership listener: Temporal stores it in a PostgreSQL `smallint` (cluster_membership), so it
 * must be below 32768, where the OS's ephemeral ports ({@link freePort}) never are. (Server v1.32.1 behaviour; no
 * upstream issue found in temporalio/temporal, searched 2026-11-27: to report.)
 */
async function membershipPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      await assertPortFree(port, 'membership');
      return port;
    } catch {
      // taken: draw again
    }
  }
  throw new Error('no free port between 20000 and 32000 for a Temporal membership listener');
}

/**
 * Waits until the first process has written the cluster's metadata row. On a new database every process tries to
 * create it, and those that lose the race exit ("failed to initialize current cluster metadata"), so the others
 * start only once it exists. (Server v1.32.1 behaviour, seen by `npm run bench:topologies`; the nearest upstream
 * report is temporalio/helm-charts#204, the same race on the system namespace; none found for the metadata row.)
 */
async function clusterMetadataWritten(first: TrackedChild, pgPort: number, timeoutMs: number): Promise<void> {
  await waitUntilReady(first, timeoutMs, async () => {
    if (psql(pgPort, 'temporal', 'SELECT count(*) FROM cluster_metadata_info') === '0') {
      throw new Error('no cluster metadata yet');
    }
  });
}

/** The last 8 KB of a log file ('' if unreadable). */
function tailOf(file: string): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.slice(-8192);
  } catch {
    return '';
  }
}

/**
 * Ready means the history shards are owned: a lookup of a workflow that does not exist answers NOT_FOUND from its
 * shard's owner (UNAVAILABLE while no history host owns it yet). 32 ids reach most of the shards; nothing is written,
 * so no probe workflow shows up in the Web UI.
 */
async function probeShardsOwned(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    for (let i = 0; i < 32; i++) {
      const err = await connection.workflowService
        .describeWorkflowExecution({ namespace, execution: { workflowId: `cluster-readiness-${i}` } })
        .then(
          () => undefined,
          (e: { code?: number }) => e,
        );
      if (err?.code !== 5) throw new Error(`shard lookup ${i}: ${String((err as Error | undefined)?.message)}`);
    }
  } finally {
    await connection.close();
  }
}
