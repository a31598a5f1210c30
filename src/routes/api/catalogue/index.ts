import { JsonMemo, sendCachedJson } from '../../../http/cachedJson';
import { catalogueEnvelope } from '../../../domain/catalogue';
import { pingDatabase } from '../../../db';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { catalogueOperations as ops } from './schema';

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

  router.on(ops.health, async (ctx) => {
    const started = Date.now();
    const [database, temporal] = await Promise.all([
      pingDatabase(deps.services.db),
      deps.temporal.connection
        .withDeadline(
          Date.now() + 800,
          /* within a second, issue 14 */ () => deps.temporal.workflowService.getSystemInfo({}),
        )
        .then(() => true)
        .catch(() => false),
    ]);
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
