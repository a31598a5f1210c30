import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { problem } from '../errors';

/** Deepest nesting of arrays and objects a JSON body may have (issue 10 §4). */
export const MAX_JSON_DEPTH = 64;

/** Paths whose routes take HTML form posts: the hosted checkout pages (src/routes/api/pay). */
const FORM_PATHS = /^\/pay\//;

/**
 * Nesting depth of a parsed JSON value (a scalar is 0, `[]` is 1), walked without recursion; stops counting once past
 * `limit`, so a hostile body costs at most one pass.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** Maps a body parser error onto a problem; other errors pass unchanged (see toProblem in ./errors). */
function parserProblem(err: unknown): unknown {
  // @hapi/bourne (inside co-body) refuses own `__proto__` keys with this SyntaxError, status 400.
  if (err instanceof SyntaxError && /forbidden prototype property/.test(err.message)) {
    return problem(
      'json_forbidden_key',
      'The JSON body contains a "__proto__" key, which is not accepted at any level',
    );
  }
  if (err instanceof SyntaxError) return problem('invalid_json', 'The request body is not valid JSON');
  return err;
}

/**
 * Request body parsing for every route, in one place (issue 10 §4):
 * - JSON (≤ 256 kB) everywhere; a `"__proto__"` key at any level is 400 `json_forbidden_key`; nesting deeper than
 *   {@link MAX_JSON_DEPTH} is 400 `json_too_deep` (so no later step, e.g. the idempotency hash, recurses without
 *   bound); malformed JSON is 400 `invalid_json`;
 * - `application/x-www-form-urlencoded` (≤ 64 kB) only under `/pay/` (the hosted checkout forms), elsewhere 415
 *   `unsupported_media_type`;
 * - other media types are left unread for the route (engineering uploads read raw bytes).
 * Sets `ctx.request.body` (`{}` when there is none).
 */
export function bodyMiddleware(): Middleware {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: '256kb',
    formLimit: '64kb',
    encoding: 'utf-8',
    onError: (err) => {
      throw parserProblem(err);
    },
  });
  return async (ctx: Context, next) => {
    if (ctx.is('application/x-www-form-urlencoded') && !FORM_PATHS.test(ctx.path)) {
      throw problem('unsupported_media_type', 'Send request bodies as application/json');
    }
    await parse(ctx, async () => {
      const body = (ctx.request as { body?: unknown }).body;
      if (jsonDepth(body) > MAX_JSON_DEPTH) {
        throw problem('json_too_deep', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
          max_depth: MAX_JSON_DEPTH,
        });
      }
      await next();
    });
  };
}
