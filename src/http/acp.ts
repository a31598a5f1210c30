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

/** `Error.code` of openapi.delegate_payment.yaml: a closed enum, unlike the checkout spec's free string. */
const DELEGATE_CODES = new Set([
  'invalid_card',
  'duplicate_request',
  'idempotency_conflict',
  'too_many_requests',
  'idempotency_key_required',
  'idempotency_in_flight',
]);

/**
 * ACP's `Error` on the delegated-payment path (openapi.delegate_payment.yaml): `type` and `code` from that spec's
 * enums. A refusal of the request's content (400, 413, 415, 422) is `invalid_card`, the spec's one code for a bad
 * payment method (its own 400 example uses it for a missing field); a reused key `idempotency_conflict`; 429 is
 * `rate_limit_exceeded` / `too_many_requests`. 401, 403 and 5xx keep their codes (`unauthorized`, …), as the spec's
 * own examples for those statuses do, outside its enum (docs/agent-checkouts.md, gaps).
 */
export function delegateErrorOf(status: number, problem: Record<string, unknown>): Record<string, string> {
  const e = acpErrorOf(status, problem);
  if (status === 429) return { ...e, type: 'rate_limit_exceeded', code: 'too_many_requests' };
  const given = e.code ?? '';
  if (DELEGATE_CODES.has(given) || status === 401 || status === 403 || status >= 500) return e;
  const code = given.includes('idempotency') ? 'idempotency_conflict' : 'invalid_card';
  return { ...e, code };
}

function convert(ctx: Context): void {
  if (ctx.response.type !== 'application/problem+json' || !ctx.body || typeof ctx.body !== 'object') return;
  const problem = ctx.body as Record<string, unknown>;
  const body = ctx.path.toLowerCase().startsWith('/agentic_commerce/')
    ? delegateErrorOf(ctx.status, problem)
    : acpErrorOf(ctx.status, problem);
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
