/**
 * The request id and the one log line of every API request (issue 27 §5).
 *
 * Each request gets an id: its `X-Request-Id` when sane ({@link requestIdOf}), else a new UUID. The id is returned as
 * the `X-Request-Id` response header, every log line written while the request runs carries it as `requestId`
 * (src/telemetry/logger.ts), and the Temporal client interceptor (src/telemetry/temporalClient.ts) carries it into
 * the workflows the request starts (memo `request_id`) and, through a header, into their activities' log lines.
 *
 * The line, once the request is answered: `{"msg":"request","method","route","path","status","ms","requestId"}`,
 * at `info` (`error` for a 5xx; `debug` for an anonymous public GET answered from the response cache, src/app.ts). `route` is the matched pattern (`/api/v1/orders/:order_id`), `path` the path without
 * its query string (order secrets travel in `?secret=`); headers and body are never logged.
 */
import type { Middleware } from 'koa';
import { elapsedMs, logContext, logger, requestIdOf } from '../telemetry/logger';

/** The header that carries the request id, in requests and responses. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The fields of one request's log line. `ms`: milliseconds from arrival to answer, 3 decimals. */
export interface RequestLogLine {
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
}

/**
 * Writes the request line (see the module comment) at `level` (default `info`; always `error` for a 5xx);
 * `requestId` comes from the active context.
 */
export function logRequest(line: RequestLogLine, level: 'info' | 'debug' = 'info'): void {
  const log = logger();
  if (line.status >= 500) log.error(line, 'request');
  else log[level](line, 'request');
}

/**
 * Koa middleware (mount it first): sets the request id, runs the rest of the chain inside its log context, sets the
 * response header and writes the request's line.
 */
export function requestLogMiddleware(): Middleware {
  return (ctx, next) => {
    const startedAt = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.state.requestId = requestId;
    return logContext.run({ requestId }, async () => {
      try {
        await next();
      } finally {
        // An error answer rebuilt by Koa drops the headers set before it: set the id again.
        if (!ctx.headerSent) ctx.set(REQUEST_ID_HEADER, requestId);
        const matched = (ctx as unknown as { _matchedRoute?: unknown })._matchedRoute;
        logRequest({
          method: ctx.method,
          route: typeof matched === 'string' ? matched : '(unmatched)',
          path: ctx.path,
          status: ctx.status,
          ms: elapsedMs(startedAt),
        });
      }
    });
  };
}
