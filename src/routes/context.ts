import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Services } from '../ports';
import type { OrderWorkflows } from '../temporal/orders';

/** What the route modules need; built once by `createApp`. */
export interface AppDeps {
  config: Config;
  services: Services;
  temporal: Client;
  orderWorkflows: OrderWorkflows;
  /** Called with unexpected (5xx) errors. */
  log?: (err: unknown) => void;
}

/** The parsed JSON body (set by @koa/bodyparser); `{}` when the request had none. */
export function requestBody(ctx: { request: unknown }): unknown {
  return (ctx.request as { body?: unknown }).body ?? {};
}
