import type { Context, Middleware } from 'koa';
import { ZodError } from 'zod';
import { ProblemError, problem, unavailable } from '../errors';

/** Converts a zod error into a 400 naming the first offending field (`param` is its dotted path). */
export function zodProblem(err: ZodError, where: 'body' | 'query' | 'path' | 'header' = 'body'): ProblemError {
  const issue = err.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.join('.') : undefined;
  const detail = issue ? `${param ? `${where} ${param}: ` : `${where}: `}${issue.message}` : `Invalid ${where}`;
  return problem('invalid_request', detail, {
    ...(param ? { param } : {}),
    errors: err.issues.slice(0, 20).map((i) => ({ param: i.path.join('.'), message: i.message })),
  });
}

/** MongoDB driver errors that mean the database cannot be reached now (not that a request was wrong). */
const DATABASE_DOWN = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'MongoOperationTimeoutError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
]);
/** gRPC status codes of a Temporal call that mean the server cannot be reached now: UNAVAILABLE, DEADLINE_EXCEEDED. */
const TEMPORAL_DOWN = new Set([14, 4]);
/** Seconds a client should wait before retrying while a dependency is down. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/**
 * Which dependency `err` says is unreachable, following `cause` chains (the Temporal client wraps gRPC errors):
 * `database`, `temporal` or null. Source: issue 14.
 */
export function dependencyDown(err: unknown): 'database' | 'temporal' | null {
  for (
    let e = err as { name?: string; code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e !== 'object') return null;
    if (e.name && DATABASE_DOWN.has(e.name)) return 'database';
    if (
      (e.name === 'ServiceError' || e.name === 'GrpcError' || 'metadata' in e) &&
      typeof e.code === 'number' &&
      TEMPORAL_DOWN.has(e.code)
    )
      return 'temporal';
    if (e.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return 'temporal';
    // The namespace is this deployment's own configuration: a Temporal frontend that does not know it yet has just
    // (re)started and is loading its namespace cache (seen for seconds after a frontend or its PostgreSQL restarted;
    // no upstream issue found in temporalio/temporal, searched 2026-11-27).
    if (e.name === 'NamespaceNotFoundError') return 'temporal';
    // FAILED_PRECONDITION while the workflow task is failing (a worker retrying it): the Update may be sent again.
    if (
      'metadata' in e &&
      e.code === 9 &&
      /Workflow Task in failed state/.test(String((e as { details?: unknown }).details))
    )
      return 'temporal';
  }
  return null;
}

/** Maps any thrown value onto a {@link ProblemError}; 5xx details are never exposed. */
export function toProblem(err: unknown): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof ZodError) return zodProblem(err);
  // A dependency that is down is 503 with Retry-After (issue 14), not a 500: the request may be retried as it is.
  const down = dependencyDown(err);
  if (down)
    return unavailable(
      `The ${down === 'database' ? 'database' : 'workflow service (Temporal)'} is unavailable; retry shortly`,
      DEPENDENCY_RETRY_AFTER_SECONDS,
      down,
    );
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  // Errors raised by koa's body parser and ctx.throw.
  if (status === 413) return problem('payload_too_large', 'The request body exceeds the limit');
  if (
    status === 400 &&
    (e.type === 'entity.parse.failed' || err instanceof SyntaxError || /JSON/i.test(e.message ?? ''))
  ) {
    return problem('invalid_json', 'The request body is not valid JSON');
  }
  if (status === 415)
    return problem('unsupported_media_type', e.expose && e.message ? e.message : 'Send bodies as application/json');
  if (status && status >= 400 && status < 500 && e.expose)
    return new ProblemError(status, 'invalid_request', e.message);
  return problem('internal_error');
}

/** Writes a problem-details response on the context. */
export function renderProblem(ctx: Context, problem: ProblemError): void {
  ctx.status = problem.status;
  for (const [k, v] of Object.entries(problem.headers)) ctx.set(k, v);
  ctx.type = 'application/problem+json';
  ctx.body = problem.toProblem(ctx.path);
}

/**
 * Outermost error middleware: every error becomes RFC 9457 problem details with a stable `code`; unknown routes
 * become a 404 problem, a method the path lacks (also TRACE, QUERY and other methods no route has, which the router
 * leaves as an empty 501) a 405 `method_not_allowed` with `Allow` (Koa's rule: only 4xx messages are exposed).
 */
export function problemMiddleware(log: (err: unknown, ctx: Context) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body !== undefined && ctx.body !== null) return;
      // The router answers 501 (empty) to a method no route has (TRACE, QUERY, …) and 405 to one the path lacks.
      const allow = ctx.response.get('allow');
      if (ctx.status === 404 || (ctx.status === 501 && !allow)) {
        ctx.remove('Allow');
        renderProblem(ctx, problem('not_found', `No route for ${ctx.method} ${ctx.path}`));
      } else if (ctx.status === 405 || ctx.status === 501) {
        renderProblem(
          ctx,
          problem(
            'method_not_allowed',
            `${ctx.method} is not allowed on ${ctx.path}`,
            allow ? { allow: allow.split(/,\s*/) } : {},
          ),
        );
      }
    } catch (err) {
      const problem = toProblem(err);
      if (problem.status >= 500) log(err, ctx);
      renderProblem(ctx, problem);
    }
  };
}
