import type { IncomingMessage } from 'node:http';
import Koa from 'koa';
import { acpErrorMiddleware } from './http/acp';
import { acpSignatureMiddleware, type AcpSigningKey } from './http/acpSignature';
import { idempotencyMiddleware } from './http/idempotency';
import { UCP_IDEMPOTENCY, ucpErrorMiddleware, ucpPlatformMiddleware } from './http/ucp';
import { ProfileResolver } from './ucp/profiles';
import { ResponseCache } from './http/cachedJson';
import { problemMiddleware } from './http/errors';
import { bodyMiddleware } from './http/body';
import { codecServerMiddleware } from './http/codecServer';
import { rateLimitMiddleware } from './http/rateLimit';
import { RequestTelemetry } from './http/telemetry';
import { logRequest, requestLogMiddleware } from './http/requestLog';
import { elapsedMs, errorLogger, logContext } from './telemetry/logger';
import { RequestLatency } from './telemetry/latency';
import { tracingMiddleware } from './telemetry/tracing';
import { UptimeRecorder } from './telemetry/uptime';
import type { AppDeps } from './routes/context';
import { apiRouter } from './routes';
import { CheckoutSessionRepository } from './repos/checkoutSessions';
import { KeySetSigner } from './signing/signer';
import { payloadCodec } from './temporal/codec';

export type { AppDeps } from './routes/context';

/** Headers browsers may read (x402 payment headers, idempotency replay marker). */
const EXPOSED_HEADERS =
  'PAYMENT-REQUIRED, PAYMENT-RESPONSE, Idempotent-Replayed, Location, Retry-After, ETag, Repr-Digest, RateLimit, RateLimit-Policy, X-Request-Id';

/**
 * The API's Koa application: its request handler first offers each request to the response cache, which answers
 * repeated anonymous public GETs before Koa builds a context ({@link ResponseCache.serve}, issue 9 §3).
 */
class ApiApplication extends Koa {
  constructor(
    options: { proxy: boolean; maxIpsCount: number },
    private readonly cache: ResponseCache,
  ) {
    super(options);
  }

  override callback(): ReturnType<Koa['callback']> {
    // The API listens on HTTP/1.1 only (server.ts), so requests are IncomingMessages.
    return this.cache.wrap(super.callback()) as ReturnType<Koa['callback']>;
  }
}

/**
 * The client address of a request answered without a Koa context: Koa's own `request.ip` (X-Forwarded-For as the
 * app's `proxy` and `maxIpsCount` allow), read from a request object built on `app.request` for `req` alone.
 */
function clientIp(app: Koa, req: IncomingMessage): string {
  return (Object.create(app.request, { app: { value: app }, req: { value: req } }) as Koa.Request).ip;
}

/** The `agent_id` query parameter of `url` when sent once, else '' (what `ctx.query.agent_id` gives as a string). */
function queryAgentId(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('agent_id=', q)) return '';
  const values = new URLSearchParams(url.slice(q + 1)).getAll('agent_id');
  return values.length === 1 ? (values[0] as string) : '';
}

/**
 * Builds the Koa application without listening, so tests drive it in-process (`server.ts` listens). Without
 * `signing`, quotes and receipts are signed with the keys of the configuration (SIGNING_KEYS or the database's set).
 */
export function createApp(input: Omit<AppDeps, 'signing'> & { signing?: AppDeps['signing'] }): Koa {
  // Issue 27 §5: unexpected errors go to the structured log (with the request id of the request they happened in).
  const log = input.log ?? errorLogger('unexpected error');
  const deps: AppDeps = {
    ...input,
    log,
    signing: input.signing ?? new KeySetSigner(input.config, input.services.db),
  };
  // The keys are loaded (on embedded defaults the database's set created) at once, not on the first signature.
  if (!input.signing) void deps.signing.ready().catch((err) => log(err));
  // X-Forwarded-* are trusted only from configured proxies (issue 10 §4): otherwise a client picks its own address.
  const hops = deps.config.TRUST_PROXY_HOPS;
  // Trust telemetry (issue 4 §5): request timings per route group, and a heartbeat per minute for uptime.
  const latency = new RequestLatency();
  new UptimeRecorder(deps.services.db).start();
  // The observation feed's data (issue 3).
  const telemetry = new RequestTelemetry();

  // Repeated anonymous public GETs (catalogue, discovery, micro catalogue, bare 402s) are answered from a micro-cache
  // ahead of Koa; the cache hands each hit to the same two recorders.
  const cache = new ResponseCache((hit) => {
    latency.observePath(hit.path, hit.startedAt, hit.status);
    const route = typeof hit.route === 'string' ? hit.route : '(unmatched)';
    deps.httpMetrics?.observe('GET', route, hit.status, hit.startedAt);
    // At debug: an anonymous repeat of a public GET answered from memory. Its info line cost the cached GETs 30 % of
    // their throughput (docs/benchmarks.md, 2026-11-27); the answer still carries its X-Request-Id.
    logContext.run({ requestId: hit.requestId }, () =>
      logRequest({ method: 'GET', route, path: hit.path, status: hit.status, ms: elapsedMs(hit.startedAt) }, 'debug'),
    );
    const url = hit.req.url ?? '';
    telemetry.observeRequest(
      'GET',
      hit.path,
      hit.req.headers,
      clientIp(app, hit.req),
      queryAgentId(url),
      hit.route,
      hit.status,
    );
  });
  const app = new ApiApplication({ proxy: hops > 0, maxIpsCount: hops }, cache);
  app.silent = true;
  // Issue 27 §5: first, so every answer carries its X-Request-Id and every line logged in the request its id.
  app.use(requestLogMiddleware());
  if (deps.tracer) app.use(tracingMiddleware(deps.tracer));
  // Stores what routes mark shared, and lets one request refresh an expired entry.
  app.use(cache.middleware());
  app.use(latency.middleware());
  if (deps.httpMetrics) app.use(deps.httpMetrics.middleware());
  // Outer to the rest, so it sees the final status of every request.
  app.use(telemetry.middleware());
  app.use(problemMiddleware((err) => log(err)));
  // Issue 26 §1 Payloads encrypted at rest: the codec server for the Temporal Web UI and CLI, with CORS of its own
  // (the Web UI's origins, with credentials) ahead of the API's `*`, and no rate limit (one request per payload shown).
  app.use(
    codecServerMiddleware({
      codec: payloadCodec(deps.config),
      operatorKey: deps.config.OPERATOR_KEY,
      namespace: deps.config.TEMPORAL_NAMESPACE,
      allowedOrigins: deps.config.CODEC_CORS_ORIGINS,
      prefix: '/codec',
    }),
  );
  app.use(async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      ctx.set(
        'Access-Control-Allow-Headers',
        ctx.get('access-control-request-headers') || 'Content-Type, Authorization, Idempotency-Key',
      );
      ctx.status = 204;
      return;
    }
    await next();
  });
  // Issue 37 §1: ACP's paths answer ACP's errors, the limits', body parser's and idempotency's refusals included.
  app.use(acpErrorMiddleware((err) => log(err)));
  // UCP paths answer UCP's {code, content} (issue 37 §2).
  app.use(ucpErrorMiddleware((err) => log(err)));
  // Issue 10 §4: limits per credential / client address (cache hits above are not counted), then one body parser.
  app.use(
    rateLimitMiddleware(
      deps.services.db.db,
      {
        perCredential: deps.config.RATE_LIMIT_PER_MINUTE,
        perAddress: deps.config.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
        perCredentialPerSecond: deps.config.RATE_LIMIT_BURST_PER_SECOND,
        perAddressPerSecond: deps.config.RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND,
      },
      (err) => log(err),
    ),
  );
  app.use(bodyMiddleware());
  const acpPlatforms = new CheckoutSessionRepository(deps.services.db);
  // Issue 37 §1: a platform with a registered key signs its ACP requests; verified before a stored answer is replayed.
  app.use(
    acpSignatureMiddleware(async (apiKey) => {
      const platform = await acpPlatforms.platformOfKey(apiKey);
      return (platform?.request_signing as AcpSigningKey | null | undefined) ?? null;
    }),
  );
  // A UCP platform is its signed profile: verified before anything is replayed or done.
  app.use(ucpPlatformMiddleware(new ProfileResolver(deps.config.DEV_MODE), deps.config.DEV_MODE));
  app.use(idempotencyMiddleware(deps.services.db, deps.config.IDEMPOTENCY_TTL_SECONDS, [UCP_IDEMPOTENCY]));

  const root = apiRouter(deps, { latency, telemetry });
  app.use(root.routes()).use(root.allowedMethods());
  return app;
}
