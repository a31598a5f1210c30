import type { RequestLatency } from '../../../telemetry/latency';
import { trustStatus } from '../../../telemetry/trust';
import type { AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { trustOperations as ops } from './schema';

/**
 * `GET /api/v1/trust/status` (seed §2.11, §4): uptime, request latency per route group, orders by status,
 * fulfillment per service and the share of orders that met their SLA, beside the declared targets. Computed on each
 * request from the service's own records (src/telemetry/trust.ts); nothing is cached or invented.
 */
export function trustRoutes(deps: AppDeps, latency: RequestLatency): OperationRouter {
  return new OperationRouter(deps).on(ops.status, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await trustStatus(deps.services.db, latency);
  });
}
