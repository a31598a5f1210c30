/**
 * Drill `deploy` (issue 26 §2): new workflow code ships while long-running orders run, blue-green under Temporal's
 * Worker Versioning (workflows/versioning.ts, src/temporal/deployments.ts), then is rolled back.
 *
 * 1. Build A (the workflow bundle of workflows/) runs alone in the Worker Deployment {@link DEPLOYMENT} and makes
 *    itself current (worker/index.ts `adoptFirstBuild`). On A: expert orders (`robot-control-system`, 168 h,
 *    `custom_7_days`) in engineering inside their SLA, monthly subscriptions (`ai-receptionist`) between renewals with
 *    their order awaiting review, per-task orders (`task-worker`) with a further task done and more to come, ordinary
 *    orders (`automation-wf`) awaiting the buyer's review, a webhook endpoint receiving every event.
 * 2. Deploy: build B, a bundle with a changed workflow (scripts/drills/variant/details.ts: a `patched()` change to the
 *    order's review window), starts beside A; B is made current (`setCurrentBuild`, as `npm run deploy -- promote`);
 *    A is drained (no open PINNED run on it: webhook deliveries, books reconciliation runs) and its workers stopped.
 * 3. On B: the engineer finishes the expert orders, the buyers accept or reject, one subscription is cancelled at the
 *    end of its period, further tasks run, new orders start. Every workflow from step 1 runs its last task on B
 *    (`describe` → `versioningInfo`), the orders complete there, and orders that entered review on B record B's
 *    patch marker (the changed code ran).
 * 4. Rollback: A's workers start again; the open runs that recorded B's patch marker (which A's code cannot replay)
 *    are found by the visibility query `TemporalChangeVersion = '<id>'` and pinned to B with a versioning override
 *    (`UpdateWorkflowExecutionOptions`); A is made current; the orders that moved back progress on A, new orders run
 *    on A, the pinned ones finish on B; once B is drained its workers stop.
 * 5. No workflow task failed in any history (a nondeterminism error fails every task of its run), no order charged
 *    twice, every webhook event received, and the books audited from the database (lib.ts `auditBooks`).
 *
 * Options: --cluster (issue 25: the production topology, two APIs behind HAProxy, two workers per build), --orders N
 * (ordinary orders of each phase, default 4), --keep. Exits 1 with the problems found.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client as TemporalClient, Connection as TemporalConnection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { startFakeTextModel } from '../../test/helpers/fakeTextModel';
import { describeDeployment, setCurrentBuild } from '../../src/temporal/deployments';
import { loadConfig } from '../../src/config';
import { temporalDataConverter } from '../../src/temporal/codec';
import { workflowBundleOptions } from '../../worker/bundle';
import {
  FINAL_ORDER_STATUSES,
  OPERATOR_KEY,
  auditBooks,
  awaitUndelivered,
  call,
  debitsByTx,
  finish,
  fundedAgent,
  logger,
  newStats,
  orderFlow,
  registerWebhook,
  since,
  startDrillStack,
  startWebhookCounter,
  until,
  type NodeProc,
} from './lib';
import { DEPLOY_DRILL_PATCH } from './variant/details';

/** The drill's Worker Deployment (WORKER_DEPLOYMENT_NAME of its workers). */
export const DEPLOYMENT = 'agent-commerce-deploy-drill';
/** The two builds: A (workflows/ as they are) and B (with the drill's changed workflow). */
export const BUILD_A = 'build-a';
export const BUILD_B = 'build-b';

const EXPERT = {
  service_id: 'robot-control-system',
  inputs: { robot_type: 'six-axis arm', controller: 'ROS 2 Humble', objective: 'pick and place parcels' },
};
const MONTHLY = {
  service_id: 'ai-receptionist',
  inputs: { business_name: 'Cedar Dental', contact_email: 'front@cedar.example', services: 'cleaning, whitening' },
};
const TASK_WORKER = {
  service_id: 'task-worker',
  inputs: { task_prompt: 'Research the three cheapest CRM tools for a 5-person agency', format: 'markdown' },
};
const OPERATOR = { authorization: `Bearer ${OPERATOR_KEY}` };
const ENGINEER = 'deploy-drill-engineer';
const ENGINEER_FILE = {
  engineer: ENGINEER,
  name: 'commissioning-report.txt',
  media_type: 'text/plain',
  content_base64: Buffer.from('Commissioning report: tested on the line.\n').toString('base64'),
};

type Kind = 'expert' | 'subscription' | 'per_task' | 'ordinary';

/** One order the drill follows: its kind, the build it started on, the workflows behind it. */
interface Tracked {
  orderId: string;
  kind: Kind;
  /** The build current when it was created. */
  startedOn: string;
  /** Workflow ids behind it: the order's, its subscription's, its tasks'. */
  workflows: string[];
}

/**
 * The workflow bundle of build B: workflows/index.ts with every `./details` import inside workflows/ replaced by
 * scripts/drills/variant/details.ts (a webpack NormalModuleReplacementPlugin in `webpackConfigHook`). Written to
 * `outFile` for the worker's `WORKFLOW_BUNDLE_PATH`.
 */
export async function deployDrillBundle(outFile: string): Promise<void> {
  const workflowsDir = path.resolve(__dirname, '..', '..', 'workflows');
  const variant = path.resolve(__dirname, 'variant', 'details.ts');
  type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
  type Compiler = {
    webpack: {
      NormalModuleReplacementPlugin: new (
        re: RegExp,
        fn: (r: { request: string; context?: string }) => void,
      ) => { apply(c: Compiler): void };
    };
  };
  const hook = (config: WebpackConfig): WebpackConfig => ({
    ...config,
    plugins: [
      ...(config.plugins ?? []),
      {
        apply(compiler: Compiler) {
          new compiler.webpack.NormalModuleReplacementPlugin(/^\.\/details$/, (r) => {
            if (r.context === workflowsDir) r.request = variant;
          }).apply(compiler);
        },
      } as unknown as NonNullable<WebpackConfig['plugins']>[number],
    ],
  });
  const { code } = await bundleWorkflowCode({
    // As scripts/bundle-workflows.ts builds build A's (the stack's workers share this process's environment).
    ...workflowBundleOptions(temporalDataConverter(loadConfig())),
    webpackConfigHook: hook,
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  if (!code.includes(DEPLOY_DRILL_PATCH)) throw new Error('build B: the variant module is not in the bundle');
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, code);
}

/** Runs the drill; exits the process with its verdict. */
export async function run(args: Map<string, string>): Promise<void> {
  const t0 = Date.now();
  const log = logger(t0);
  const cluster = args.has('cluster');
  const perPhase = Number(args.get('orders') ?? 4);
  const workersPerBuild = cluster ? 2 : 1;
  const textModel = await startFakeTextModel();
  log(`starting the ${cluster ? 'cluster' : 'dev server'} stack without workers; Worker Deployment ${DEPLOYMENT}`);
  const stack = await startDrillStack({
    workers: 0,
    ...(cluster ? { cluster: true, apis: 2 } : {}),
    env: {
      TEXTGEN_BASE_URL: textModel.baseUrl,
      TEXTGEN_MODEL: 'fake-model',
      WORKER_DEPLOYMENT_NAME: DEPLOYMENT,
      // Orders wait for their buyer's review for the whole drill.
      REVIEW_WINDOW_SECONDS: '86400',
      RATE_LIMIT_BURST_PER_SECOND: '0',
    },
  });
  const api = stack.url;
  const problems: string[] = [];
  const figures: Record<string, unknown> = { stack: cluster ? 'cluster' : 'dev server', data_dir: stack.dataDir };
  const hooks = await startWebhookCounter();
  const connection = await TemporalConnection.connect({ address: stack.temporalAddress });
  const client = new TemporalClient({ connection, namespace: 'default' });
  const tracked: Tracked[] = [];
  try {
    const bundleB = path.join(stack.dataDir, 'workflow-bundle-b.js');
    const bundledAt = Date.now();
    await deployDrillBundle(bundleB);
    figures.bundle_b_ms = since(bundledAt);

    // ---- Workers of a build, the deployment's state, each workflow's build. ----
    const startBuild = async (buildId: string, first: number): Promise<NodeProc[]> =>
      Promise.all(
        Array.from({ length: workersPerBuild }, (_, i) =>
          stack.startWorker(first + i, {
            WORKER_BUILD_ID: buildId,
            ...(buildId === BUILD_B ? { WORKFLOW_BUNDLE_PATH: bundleB } : {}),
          }),
        ),
      );
    const promote = async (buildId: string): Promise<number> => {
      const at = Date.now();
      const ok = await until(
        () =>
          setCurrentBuild(connection, 'default', DEPLOYMENT, buildId).then(
            () => true,
            () => undefined,
          ),
        60_000,
        500,
      );
      const current = (await describeDeployment(connection, 'default', DEPLOYMENT))?.currentBuildId;
      if (!ok || current !== buildId) throw new Error(`could not make ${buildId} current (current: ${current})`);
      return since(at);
    };
    const versionOf = async (workflowId: string) => {
      const d = await client.workflow.getHandle(workflowId).describe();
      const info = d.raw.workflowExecutionInfo?.versioningInfo;
      return {
        status: d.status.name,
        buildId: info?.deploymentVersion?.buildId ?? '',
        behavior: temporal.api.enums.v1.VersioningBehavior[info?.behavior ?? 0] ?? '',
        pinnedOverride: info?.versioningOverride?.pinned?.version?.buildId ?? undefined,
      };
    };
    /** Open runs that stay on `buildId` until they end: PINNED ones, and those pinned there by an override. */
    const pinnedOn = async (buildId: string): Promise<string[]> => {
      const out: string[] = [];
      for await (const wf of client.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
        const v = await versionOf(wf.workflowId).catch(() => undefined);
        if (!v) continue;
        const pinned = v.behavior === 'VERSIONING_BEHAVIOR_PINNED' ? v.buildId : v.pinnedOverride;
        if (pinned === buildId) out.push(`${wf.type} ${wf.workflowId}`);
      }
      return out;
    };
    /** Waits until no open run is pinned to `buildId` (drained); returns the time it took and the server's view. */
    const drain = async (buildId: string): Promise<Record<string, unknown>> => {
      const at = Date.now();
      // What an operator's visibility query says at the start (docs/deploys.md), beside the drill's own count. The
      // server's DrainageStatus is not the signal: it is refreshed periodically, after the visibility grace period
      // (`matching.wv.VersionDrainageStatusVisibilityGracePeriod`; temporalio/api#525: "may have delays up to few
      // minutes"), so it still said DRAINING when no pinned run was left.
      const query = `TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:${buildId}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`;
      const pinnedAtStart = (await pinnedOn(buildId)).length;
      const byQuery = await client.workflow
        .count(query)
        .then((c) => c.count)
        .catch((err: unknown) => `query refused: ${String(err).slice(0, 200)}`);
      const left = await until(async () => ((await pinnedOn(buildId)).length === 0 ? [] : undefined), 180_000, 1_000);
      const state = await describeDeployment(connection, 'default', DEPLOYMENT);
      const server = state?.versions.find((v) => v.buildId === buildId);
      if (!left) problems.push(`${buildId} not drained after 180 s: ${(await pinnedOn(buildId)).join(', ')}`);
      // The server's own view lags: it counts pinned runs through visibility after a grace period (minutes).
      const enums = temporal.api.enums.v1;
      return {
        pinned_open_at_start: pinnedAtStart,
        pinned_open_at_start_by_visibility_query: byQuery,
        drained_ms: since(at),
        server_status: enums.WorkerDeploymentVersionStatus[Number(server?.status)] ?? server?.status,
        server_drainage: enums.VersionDrainageStatus[Number(server?.drainage)] ?? server?.drainage,
      };
    };
    const stopWorkers = async (ws: NodeProc[]): Promise<number> => {
      const at = Date.now();
      await Promise.all(ws.map((w) => w.stop()));
      return since(at);
    };
    /** Whether the history of `workflowId` holds build B's patch marker. */
    const hasPatchMarker = async (workflowId: string): Promise<boolean> => {
      const h = await client.workflow.getHandle(workflowId).fetchHistory();
      const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');
      return (h.events ?? []).some(
        (e) =>
          Object.values(e.markerRecordedEventAttributes?.details ?? {}).some((p) =>
            (p.payloads ?? []).some((x) => text(x.data).includes(DEPLOY_DRILL_PATCH)),
          ) ||
          Object.values(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}).some(
            (x) => text(x.data).includes(DEPLOY_DRILL_PATCH),
          ),
      );
    };

    // ---- The buyer, its API calls. ----
    const agent = 'drill-deploy';
    const key = await fundedAgent(api, agent, 1_000_000);
    const auth = { authorization: `Bearer ${key}` };
    await registerWebhook(api, agent, key, hooks.url);
    const must = async (what: string, status: number, p: ReturnType<typeof call>) => {
      const a = await p;
      if (a.status !== status) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
      return a;
    };
    const orderOf = async (id: string) => (await call(api, 'GET', `/api/v1/orders/${id}`)).body;
    const waitStatus = async (id: string, ok: (o: Record<string, any>) => boolean, what: string) => {
      const o = await until(async () => {
        const x = await orderOf(id);
        return ok(x) ? x : undefined;
      }, 120_000);
      if (!o) throw new Error(`order ${id}: not ${what} after 120 s (status ${(await orderOf(id)).status})`);
      return o;
    };
    const createPaid = async (what: { service_id: string; inputs: Record<string, string> }): Promise<string> => {
      const c = await must('create', 201, call(api, 'POST', '/api/v1/orders', { ...what, agent_id: agent }, auth));
      const id = c.body.order_id as string;
      await must(
        `pay ${id}`,
        200,
        call(api, 'POST', `/api/v1/orders/${id}/confirm_payment`, { rail: 'agent_wallet' }, auth, 60_000),
      );
      return id;
    };
    const review = (id: string, action: 'accept' | 'reject') =>
      must(
        `${action} ${id}`,
        200,
        call(api, 'POST', `/api/v1/orders/${id}/review`, { action, reason: 'deploy drill' }, auth, 60_000),
      );
    const task = async (t: Tracked, n: number) => {
      const a = await must(
        `task ${t.orderId}`,
        201,
        call(
          api,
          'POST',
          `/api/v1/orders/${t.orderId}/tasks`,
          { task_prompt: `Compare two CRM tools, round ${n}`, format: 'json' },
          auth,
          60_000,
        ),
      );
      if (a.body.status !== 'delivered') throw new Error(`task of ${t.orderId}: ${JSON.stringify(a.body)}`);
      t.workflows.push(`task-${t.orderId}-${String(a.body.task)}`);
    };
    const engineerFinishes = async (id: string) => {
      const base = `/api/v1/engineering/${id}`;
      await must(`claim ${id}`, 200, call(api, 'POST', `${base}/claim`, { engineer: ENGINEER }, OPERATOR));
      await must(`upload ${id}`, 201, call(api, 'POST', `${base}/deliverables`, ENGINEER_FILE, OPERATOR));
      await must(`ready ${id}`, 200, call(api, 'POST', `${base}/ready`, { engineer: ENGINEER }, OPERATOR, 60_000));
      await waitStatus(id, (o) => o.status === 'delivered', 'delivered');
    };
    /** Orders of every kind, created and brought to where they wait, on the current build. */
    const createAll = async (buildId: string, n: { expert: number; sub: number; tasks: number; ordinary: number }) => {
      const made: Tracked[] = [];
      const add = (orderId: string, kind: Kind, more: string[] = []) => {
        const t = { orderId, kind, startedOn: buildId, workflows: [`order-${orderId}`, ...more] };
        made.push(t);
        tracked.push(t);
        return t;
      };
      await Promise.all([
        ...Array.from({ length: n.expert }, async () => {
          const id = await createPaid(EXPERT);
          await waitStatus(id, (o) => o.status === 'in_engineering', 'in engineering');
          add(id, 'expert');
        }),
        ...Array.from({ length: n.sub }, async () => {
          const id = await createPaid(MONTHLY);
          await waitStatus(id, (o) => o.status === 'delivered' && o.subscription?.status === 'active', 'active');
          add(id, 'subscription', [`subscription-${id}`]);
        }),
        ...Array.from({ length: n.tasks }, async () => {
          const id = await createPaid(TASK_WORKER);
          await waitStatus(id, (o) => o.status === 'delivered', 'delivered');
          await task(add(id, 'per_task'), 1);
        }),
        ...Array.from({ length: n.ordinary }, async () => {
          const f = await orderFlow([api], agent, key, newStats(), 120_000);
          if (f.outcome !== 'delivered') throw new Error(`ordinary order ${f.orderId}: ${f.outcome} ${f.detail}`);
          add(f.orderId!, 'ordinary');
        }),
      ]);
      return made;
    };
    /** Each workflow's last build and status at the previous {@link buildsOf}. */
    const seen = new Map<string, { buildId: string; status: string }>();
    /**
     * Each workflow's last build (and its status), counted by kind; `expect` names the build each must be on, given
     * what the previous look saw of it (`undefined`: not seen yet).
     */
    const buildsOf = async (
      orders: Tracked[],
      expect: (wf: string, prev: { buildId: string; status: string } | undefined) => string | undefined,
      when: string,
    ) => {
      const counts: Record<string, Record<string, number>> = {};
      for (const t of orders) {
        for (const wf of t.workflows) {
          const v = await versionOf(wf);
          const want = expect(wf, seen.get(wf));
          seen.set(wf, { buildId: v.buildId, status: v.status });
          const key = `${t.kind}${wf.startsWith('order-') ? '' : wf.startsWith('task-') ? ' task' : ' subscription'}`;
          counts[key] ??= {};
          counts[key][`${v.buildId || 'unversioned'} ${v.status.toLowerCase()}`] =
            (counts[key][`${v.buildId || 'unversioned'} ${v.status.toLowerCase()}`] ?? 0) + 1;
          if (want && v.buildId !== want)
            problems.push(`${when}: ${wf} (${t.kind}) last ran on ${v.buildId}, not ${want}`);
        }
      }
      return counts;
    };

    // ---- 1. Build A alone; orders of every kind waiting. ----
    let workersA = await startBuild(BUILD_A, 0);
    const adopted = await until(async () => {
      const s = await describeDeployment(connection, 'default', DEPLOYMENT);
      return s?.currentBuildId === BUILD_A ? true : undefined;
    }, 60_000);
    if (!adopted) throw new Error(`${BUILD_A} did not make itself current`);
    log(`${BUILD_A} current (${workersPerBuild} worker(s)); creating orders of every kind on it`);
    const phaseA = Date.now();
    const onA = await createAll(BUILD_A, { expert: 2, sub: 2, tasks: 2, ordinary: perPhase });
    figures.created_on_a = { orders: onA.length, ms: since(phaseA) };
    figures.builds_before_deploy = await buildsOf(onA, () => BUILD_A, 'before the deploy');
    log(`on ${BUILD_A}: ${JSON.stringify(figures.builds_before_deploy)}`);

    // ---- 2. Deploy B beside A, promote it, drain A, stop A. ----
    const deployAt = Date.now();
    const workersB = await startBuild(BUILD_B, workersPerBuild);
    const bStartedMs = since(deployAt);
    const promoteMs = await promote(BUILD_B);
    log(`${BUILD_B} (changed workflow) started in ${bStartedMs} ms and made current in ${promoteMs} ms`);
    const drainA = await drain(BUILD_A);
    const stopAMs = await stopWorkers(workersA);
    figures.deploy = {
      b_workers_started_ms: bStartedMs,
      promote_ms: promoteMs,
      a: drainA,
      a_workers_stopped_ms: stopAMs,
      total_ms: since(deployAt),
    };
    log(`deploy: ${JSON.stringify(figures.deploy)}`);

    // ---- 3. On B: everything from A continues and completes; new orders start on B. ----
    const phaseB = Date.now();
    const experts = onA.filter((t) => t.kind === 'expert');
    const subs = onA.filter((t) => t.kind === 'subscription');
    const perTask = onA.filter((t) => t.kind === 'per_task');
    const ordinary = onA.filter((t) => t.kind === 'ordinary');
    await Promise.all(experts.map((t) => engineerFinishes(t.orderId)));
    for (const t of perTask) await task(t, 2);
    await review(subs[0]!.orderId, 'reject');
    await review(subs[1]!.orderId, 'accept');
    await must(
      `cancel subscription ${subs[1]!.orderId}`,
      200,
      call(api, 'POST', `/api/v1/orders/${subs[1]!.orderId}/subscription/cancel`, { reason: 'deploy drill' }, auth),
    );
    for (const [i, t] of [...experts, ...perTask, ...ordinary].entries())
      await review(t.orderId, t.kind === 'ordinary' && i % 4 === 3 ? 'reject' : 'accept');
    const onB = await createAll(BUILD_B, { expert: 1, sub: 0, tasks: 1, ordinary: perPhase });
    figures.on_b = { ms: since(phaseB), orders_created: onB.length };
    // Open at the promotion, or started since: on B; closed before it: where it closed.
    figures.builds_after_deploy = await buildsOf(
      [...onA, ...onB],
      (_wf, prev) => (prev && prev.status !== 'RUNNING' ? prev.buildId : BUILD_B),
      'after the deploy',
    );
    for (const t of onA) {
      const o = await orderOf(t.orderId);
      if (!FINAL_ORDER_STATUSES.includes(String(o.status)))
        problems.push(`after the deploy: ${t.kind} order ${t.orderId} from ${BUILD_A} is ${o.status}, not final`);
    }
    const subEnded = (await orderOf(subs[0]!.orderId)).subscription?.status;
    const subCancelling = (await orderOf(subs[1]!.orderId)).subscription;
    if (subEnded !== 'cancelled') problems.push(`subscription of rejected order ${subs[0]!.orderId} is ${subEnded}`);
    if (subCancelling?.status !== 'active' || subCancelling.cancel_at_period_end !== true)
      problems.push(`subscription ${subs[1]!.orderId}: ${JSON.stringify(subCancelling).slice(0, 200)}`);
    // Orders that entered their review window on B ran the changed code (the expert orders from A among them: the
    // engineer delivered them on B); those that entered it on A replayed that step on B without it.
    const enteredReviewOnB = new Set([...experts, ...onB.filter((t) => t.kind !== 'expert')].map((t) => t.orderId));
    const marked = new Set<string>();
    for (const t of [...onA, ...onB]) if (await hasPatchMarker(`order-${t.orderId}`)) marked.add(t.orderId);
    figures.changed_code = {
      patch_id: DEPLOY_DRILL_PATCH,
      orders_with_marker_started_on_a: onA.filter((t) => marked.has(t.orderId)).length,
      orders_with_marker_started_on_b: onB.filter((t) => marked.has(t.orderId)).length,
      orders_that_entered_review_on_b: enteredReviewOnB.size,
    };
    for (const t of [...onA, ...onB])
      if (marked.has(t.orderId) !== enteredReviewOnB.has(t.orderId))
        problems.push(
          `${t.kind} order ${t.orderId} (from ${t.startedOn}): ${marked.has(t.orderId) ? 'records' : 'lacks'} B's patch marker`,
        );
    log(`on ${BUILD_B}: ${JSON.stringify(figures.builds_after_deploy)}; ${JSON.stringify(figures.changed_code)}`);

    // ---- 4. Rollback to A: runs with B's marker pinned to B, A current, B drained and stopped. ----
    const rollbackAt = Date.now();
    workersA = await startBuild(BUILD_A, 0);
    const aStartedMs = since(rollbackAt);
    const query = `TemporalChangeVersion = '${DEPLOY_DRILL_PATCH}' AND ExecutionStatus = 'Running'`;
    const needB: string[] = [];
    for await (const wf of client.workflow.list({ query })) needB.push(wf.workflowId);
    // The visibility query must find exactly the open runs whose history holds the marker.
    const withMarker: string[] = [];
    for (const t of onB)
      if ((await versionOf(`order-${t.orderId}`)).status === 'RUNNING' && (await hasPatchMarker(`order-${t.orderId}`)))
        withMarker.push(`order-${t.orderId}`);
    if ([...needB].sort().join() !== [...withMarker].sort().join())
      problems.push(`visibility query found ${needB.join(', ')}; histories with the marker: ${withMarker.join(', ')}`);
    for (const workflowId of needB)
      await connection.workflowService.updateWorkflowExecutionOptions({
        namespace: 'default',
        workflowExecution: { workflowId },
        workflowExecutionOptions: {
          versioningOverride: {
            pinned: {
              behavior:
                temporal.api.workflow.v1.VersioningOverride.PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED,
              version: { deploymentName: DEPLOYMENT, buildId: BUILD_B },
            },
          },
        },
        updateMask: { paths: ['versioning_override'] },
      });
    const rollbackPromoteMs = await promote(BUILD_A);
    // The overrides as the drain check and an operator's visibility query see them (visibility may lag a moment).
    const pinnedToB = (await pinnedOn(BUILD_B)).length;
    const pinnedQuery = `TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:${BUILD_B}' AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'`;
    const pinnedToBByQuery =
      (await until(
        async () => {
          const n = (await client.workflow.count(pinnedQuery)).count;
          return n === pinnedToB ? n : undefined;
        },
        15_000,
        500,
      ).catch(() => undefined)) ?? (await client.workflow.count(pinnedQuery).then((c) => c.count, String));
    if (pinnedToB !== needB.length) problems.push(`${pinnedToB} runs pinned to B, ${needB.length} overrides set`);
    log(
      `rollback: ${BUILD_A} started in ${aStartedMs} ms, ${needB.length} runs with B's marker pinned to B, A current`,
    );
    const phaseR = Date.now();
    // Moved back to A: the expert order started on B (no marker: it never entered review on B) and the second
    // subscription; pinned to B: the orders awaiting review that entered it on B.
    const expertB = onB.filter((t) => t.kind === 'expert');
    await Promise.all(expertB.map((t) => engineerFinishes(t.orderId)));
    const onR = await createAll(BUILD_A, { expert: 0, sub: 0, tasks: 1, ordinary: perPhase });
    for (const t of onB.filter((x) => x.kind === 'per_task')) await task(t, 2);
    for (const t of [...onB, ...onR]) await review(t.orderId, 'accept');
    // The subscription between renewals moves back at its next task: the buyer's cancel, sent again (no change).
    await must(
      `cancel subscription ${subs[1]!.orderId} again`,
      200,
      call(api, 'POST', `/api/v1/orders/${subs[1]!.orderId}/subscription/cancel`, { reason: 'deploy drill' }, auth),
    );
    figures.on_a_after_rollback = { ms: since(phaseR), orders_created: onR.length };
    figures.builds_after_rollback = await buildsOf(
      [...onB, ...onR, subs[1]!],
      // Pinned to B: there; closed before the rollback: where it closed; the rest (open, or started since): on A.
      (wf, prev) => (needB.includes(wf) ? BUILD_B : prev && prev.status !== 'RUNNING' ? prev.buildId : BUILD_A),
      'after the rollback',
    );
    const drainB = await drain(BUILD_B);
    const stopBMs = await stopWorkers(workersB);
    figures.rollback = {
      a_workers_started_ms: aStartedMs,
      runs_pinned_to_b: needB.length,
      pinned_to_b_after_promote: pinnedToB,
      pinned_to_b_by_visibility_query: pinnedToBByQuery,
      promote_ms: rollbackPromoteMs,
      b: drainB,
      b_workers_stopped_ms: stopBMs,
      total_ms: since(rollbackAt),
    };
    log(`rollback: ${JSON.stringify(figures.rollback)}; builds ${JSON.stringify(figures.builds_after_rollback)}`);

    // ---- 5. Histories, charges, webhooks, books. ----
    const all = [...onA, ...onB, ...onR];
    figures.orders_by_kind = all.reduce<Record<string, number>>(
      (m, t) => ({ ...m, [t.kind]: (m[t.kind] ?? 0) + 1 }),
      {},
    );
    let histories = 0;
    let taskFailures = 0;
    for await (const wf of client.workflow.list()) {
      histories++;
      const h = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      for (const e of h.events ?? []) {
        const f = e.workflowTaskFailedEventAttributes;
        if (!f) continue;
        taskFailures++;
        problems.push(
          `${wf.type} ${wf.workflowId}: workflow task failed (${String(f.cause)}): ${(f.failure?.message ?? '').slice(0, 200)}`,
        );
      }
    }
    const debits = await debitsByTx(
      stack,
      all.map((t) => `order:${t.orderId}`),
    );
    const doubles = [...debits].filter(([, n]) => n !== 1);
    for (const [tx, n] of doubles) problems.push(`${tx}: ${n} debits`);
    const missing = await awaitUndelivered(
      stack,
      all.map((t) => t.orderId),
      hooks,
      90_000,
    );
    for (const m of missing.slice(0, 5)) problems.push(`webhook event never received: ${m}`);
    const books = await auditBooks(stack);
    problems.push(...books.problems);
    figures.checks = {
      histories_scanned: histories,
      workflow_tasks_failed: taskFailures,
      orders_debited_other_than_once: doubles.length,
      webhook_events: hooks.byId.size,
      webhook_events_missing: missing.length,
      orders_final: all.length - books.notFinal.size,
      orders_not_final: Object.fromEntries(books.notFinal),
    };
    figures.books = books.figures;
    for (const [id, st] of books.notFinal) problems.push(`order ${id} not final at the end: ${st}`);
  } catch (err) {
    problems.push(`drill error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    await connection.close().catch(() => undefined);
    await hooks.close();
    await textModel.stop().catch(() => undefined);
    const keep = args.has('keep') || problems.length > 0;
    await stack.stop({ keepData: keep });
    if (keep) log(`data and logs kept in ${stack.dataDir}`);
  }
  figures.total_s = Math.round(since(t0) / 1000);
  finish('deploy', figures, problems);
}
