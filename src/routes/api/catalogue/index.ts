import { JsonMemo, sendCachedJson } from '../../../http/cachedJson';
import { catalogueEnvelope } from '../../../domain/catalogue';
import { pingDatabase } from '../../../db';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { catalogueOperations as ops } from './schema';

/** `promise`'s value, or `fallback` once `ms` milliseconds have passed first. */
function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `GET /api/v1/services` (seed §2.1) and `GET /health` (seed §4), registered from the definitions in ./schema.ts. */
export function catalogueRoutes(deps: AppDeps): OperationRouter {
  const router = new OperationRouter(deps);

  // The catalogue is fixed for the life of the process: serialized once, answered with its ETag (304 when held).
  const memo = new JsonMemo(4);
  router.on(ops.services, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=60');
    sendCachedJson(
      ctx,
      memo.get('services', () => catalogueEnvelope(deps.config.PUBLIC_BASE_URL)),
    );
  });

  // One probe of Temporal at a time, shared by concurrent /health requests, answered within a second (issue 14). Not
  // Connection.withDeadline: its AsyncLocalStorage would turn on Node's promise hooks for the whole process, which
  // slows every request after the first /health (issue 9 §3).
  let probe: Promise<boolean> | undefined;
  const temporalProbe = (): Promise<boolean> => {
    probe ??= withTimeout(
      deps.temporal.workflowService.getSystemInfo({}).then(() => true),
      800,
      false,
    )
      .catch(() => false)
      .finally(() => (probe = undefined));
    return probe;
  };

  router.on(ops.health, async (ctx) => {
    const started = Date.now();
    const [database, temporal] = await Promise.all([pingDatabase(deps.services.db), temporalProbe()]);
    const up = database && temporal;
    ctx.status = up ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    if (!up) ctx.set('Retry-After', '2');
    ctx.body = {
      status: up ? 'ok' : 'degraded',
      dependencies: {
        database: { status: database ? 'up' : 'down' },
        temporal: { status: temporal ? 'up' : 'down', namespace: deps.config.TEMPORAL_NAMESPACE },
      },
      checked_in_ms: Date.now() - started,
      time: new Date().toISOString(),
    };
  });

  return router;
}
