import type { Context } from 'koa';
import type * as McpServer from '../../../mcp/server';
import { requestBody, type AppDeps } from '../../context';
import { OperationRouter } from '../../operation';
import { mcpOperations as ops } from './schema';
import { sendSignedUcpAnswer } from '../../../http/ucp';

/** True when a browser `Origin` may call /mcp: the public origin, or any loopback origin in development mode. */
function originAllowed(ctx: Context, deps: AppDeps): boolean {
  const origin = ctx.get('origin');
  if (!origin) return true;
  try {
    const o = new URL(origin);
    if (o.origin === new URL(deps.config.PUBLIC_BASE_URL).origin) return true;
    return deps.config.DEV_MODE && ['localhost', '127.0.0.1', '[::1]'].includes(o.hostname);
  } catch {
    return false;
  }
}

/**
 * `POST /mcp` (seed §4, issue 12 §1): MCP over Streamable HTTP, stateless. Protocol 2025-11-25 through the SDK,
 * 2026-07-28 (`server/discover`, per-request `_meta`, no initialize) directly; tools, resources, prompts, completion.
 * `GET` and `DELETE` answer 405 as stateless servers do (no SSE stream, no sessions). Browser origins other than the
 * service's own are refused (DNS rebinding). `POST /ucp/mcp` serves UCP's binding alone (its `get_order` is not the
 * seed's). Registered from the definitions in ./schema.ts.
 */
export function mcpRoutes(deps: AppDeps): OperationRouter {
  // The conformance suite's fixtures: tests only, and only in development mode (issue 12 §1).
  const opts = { fixtures: deps.config.DEV_MODE && deps.config.MCP_CONFORMANCE_FIXTURES, db: deps.services.db.db };

  // The MCP server (the SDK, its tools' and resources' schemas) loads on the first /mcp request: an API that serves no
  // MCP client holds 4 MB less heap, 10 MB less RSS (measured at load; issue 9 §3).
  let server: typeof McpServer | undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use; a CommonJS require is synchronous
  const mcp = (): typeof McpServer => (server ??= require('../../../mcp/server') as typeof McpServer);

  /** UCP's MCP binding (`/ucp/mcp`): only its tools, no fixtures. */
  const ucpOpts = { fixtures: false, catalog: 'ucp' as const, db: deps.services.db.db };

  const serve = (options: typeof opts | typeof ucpOpts) => async (ctx: Context) => {
    const { handleStateless, handleWithSdk, isStatelessRequest, loopbackDispatch } = mcp();
    if (!originAllowed(ctx, deps)) {
      ctx.status = 403;
      ctx.body = {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `Origin ${ctx.get('origin')} is not allowed` },
      };
      return;
    }
    const body = requestBody(ctx);
    const dispatch = loopbackDispatch(ctx);
    if (isStatelessRequest(ctx, body)) return handleStateless(ctx, body, dispatch, options);
    ctx.status = 200;
    await handleWithSdk(ctx, body, dispatch, options);
  };

  const notAllowed = (ctx: Context) => {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
    ctx.body = {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp',
      },
    };
  };
  /**
   * UCP's binding: every JSON answer (a completed checkout among them) is signed as a REST answer is (signatures.md,
   * "REST Response Signing": `@status`, `Content-Digest`, `Content-Type`), so it can be checked against our profile.
   */
  const serveUcp = async (ctx: Context) => {
    await serve(ucpOpts)(ctx);
    if (ctx.respond === false || ctx.body == null || !/json/.test(ctx.response.get('content-type'))) return;
    const body = typeof ctx.body === 'string' ? ctx.body : JSON.stringify(ctx.body);
    await sendSignedUcpAnswer(ctx, await deps.signing.rawSigner(), body);
  };

  return new OperationRouter(deps)
    .on(ops.post, serve(opts))
    .on(ops.get, notAllowed)
    .on(ops.delete, notAllowed)
    .on(ops.ucpPost, serveUcp);
}
