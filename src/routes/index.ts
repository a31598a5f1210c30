/**
 * The API's one router: every resource's routes, merged so that a request is matched once. Resources live one folder
 * each under src/routes/api/ (schema.ts: the operation definitions; index.ts: their handlers).
 */
import Router from '@koa/router';
import type { RequestTelemetry } from '../http/telemetry';
import type { RequestLatency } from '../telemetry/latency';
import type { AppDeps } from './context';
import type { OperationRouter } from './operation';
import { catalogueRoutes } from './api/catalogue';
import { quoteRoutes } from './api/quotes';
import { orderRoutes } from './api/orders';
import { walletRoutes } from './api/wallets';
import { payRoutes } from './api/pay';
import { openApiRoutes } from './api/openapi';
import { webhookRoutes } from './api/webhooks';
import { mcpRoutes } from './api/mcp';
import { discoveryRoutes } from './api/discovery';
import { procurementRoutes } from './api/procurements';
import { partnerRoutes } from './api/partners';
import { trustRoutes } from './api/trust';
import { x402Routes } from './api/x402';
import { engineeringRoutes } from './api/engineering';
import { subscriptionRoutes } from './api/subscriptions';
import { taskRoutes } from './api/tasks';
import { signingRoutes } from './api/signing';
import { reconciliationRoutes } from './api/reconciliation';
import { checkoutRoutes } from './api/checkout';
import { ucpRoutes } from './api/ucp';
import { bookingRoutes } from './api/bookings';
import { receptionistRoutes } from './api/receptionists';

/** What some routes need beside the dependencies: the request recorders `createApp` builds. */
export interface RouteExtras {
  latency: RequestLatency;
  telemetry: RequestTelemetry;
}

/** Builds the router of every route. */
export function apiRouter(deps: AppDeps, extras: RouteExtras): Router {
  const root = new Router();
  const routers: (Router | OperationRouter)[] = [
    ...[
      catalogueRoutes,
      quoteRoutes,
      orderRoutes,
      walletRoutes,
      payRoutes,
      openApiRoutes,
      webhookRoutes,
      mcpRoutes,
    ].map((f) => f(deps)),
    // Agent self-service: discovery, negotiation, procurement, partner commissions, trust telemetry (issue 4).
    discoveryRoutes(deps),
    procurementRoutes(deps),
    partnerRoutes(deps),
    trustRoutes(deps, extras.latency),
    // x402: micro catalogue, paid resources, discovery document, ledger, order rail (issue 3).
    x402Routes(deps, { telemetry: extras.telemetry }),
    // Long-running orders: engineer queue, buyer cancel, subscriptions, per-task billing (issue 6).
    engineeringRoutes(deps),
    subscriptionRoutes(deps),
    taskRoutes(deps),
    // Signed quotes and receipts: the public keys (issue 12 §3).
    signingRoutes(deps),
    // Books reconciliation: run now, the last report (issue 24 §3).
    reconciliationRoutes(deps),
    // Agent platforms' checkouts: ACP 2026-04-17 sessions on the same orders (issue 37 §1).
    checkoutRoutes(deps),
    // UCP checkout (REST) and profile on the same sessions and orders (issue 37 §2).
    ucpRoutes(deps),
    // Hosted booking pages of website-booking orders (issue 38 §2).
    bookingRoutes(deps),
    // Hosted receptionists of ai-receptionist subscriptions (issue 38 §1).
    receptionistRoutes(deps),
  ];
  for (const r of routers) root.use((r instanceof Router ? r : r.router).routes());
  return root;
}
