/**
 * ACP's error shape on the ACP paths (issue 37 §1): every answer that would be RFC 9457 problem details there is ACP's
 * `Error` instead, `{type, code, message, param}` (openapi.agentic_checkout.yaml), with the same status, code and
 * headers. `param` becomes an RFC 9535 JSONPath (`line_items.0.id` → `$.line_items[0].id`); header names stay as they
 * are. Outer to the rate limits, the body parser and the idempotency middleware, so their refusals are ACP's too, and
 * a replayed refusal is converted as the first one was.
 */
import type { Context, Middleware } from 'koa';
import { renderProblem, toProblem } from './errors';

/** Whether `path` is served with ACP's errors. */
export const isAcpPath = (path: string): boolean => {
  // The router matches paths without regard to case: so does this, or `/Checkout_Sessions` would skip ACP's checks.
  const p = path.toLowerCase();
  return p === '/checkout_sessions' || p.startsWith('/checkout_sessions/') || p.startsWith('/agentic_commerce/');
};

/** RFC 9535 JSONPath of a dotted parameter path; header names (with a '-') and JSONPaths are left as they are. */
export function jsonPathOf(param: string): string {
  if (param.startsWith('$') || param.includes('-')) return param;
  return `$${param
    .split('.')
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
    .join('')}`;
}

/** ACP's `Error` of a problem-details body answered with `status`. */
export function acpErrorOf(status: number, problem: Record<string, unknown>): Record<string, string> {
  const type = status === 503 ? 'service_unavailable' : status >= 500 ? 'processing_error' : 'invalid_request';
  const message = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? 'Error');
  const param = typeof problem.param === 'string' ? jsonPathOf(problem.param) : undefined;
  return { type, code: String(problem.code ?? 'error'), message, ...(param ? { param } : {}) };
}

function convert(ctx: Context): void {
  if (ctx.response.type !== 'application/problem+json' || !ctx.body || typeof ctx.body !== 'object') return;
  const body = acpErrorOf(ctx.status, ctx.body as Record<string, unknown>);
  const status = ctx.status;
  ctx.type = 'application/json';
  ctx.body = body;
  ctx.status = status;
}

/** The middleware; `log` gets unexpected (5xx) errors, as the outer problem middleware would. */
export function acpErrorMiddleware(log: (err: unknown, ctx: Context) => void): Middleware {
  return async (ctx, next) => {
    if (!isAcpPath(ctx.path)) return next();
    try {
      await next();
    } catch (err) {
      const problem = toProblem(err);
      if (problem.status >= 500) log(err, ctx);
      renderProblem(ctx, problem);
    }
    convert(ctx);
  };
}
