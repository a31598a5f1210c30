/**
 * Structured logs of every process (issue 27 §5): one pino logger writing JSON lines to stdout, its level from
 * `LOG_LEVEL`, the secrets of this service redacted by key wherever they sit in a logged object, and the request id of
 * the current request (API) or activity (worker) added to every line through an `AsyncLocalStorage` context.
 *
 * One line is one JSON object: `time` (ISO 8601), `level` (`trace` … `fatal`), `pid`, `msg`, then the fields of the
 * call, and `requestId` while a request context is active. The API writes one line per request
 * (src/http/requestLog.ts); the worker routes the Temporal SDK's logger (workflow `log`, activity `Context.log`, the
 * SDK's own lines) here (src/telemetry/temporalWorker.ts). How to follow a request: docs/operations.md.
 *
 * Never log a request's headers, query string or body: redaction is the second line of defence, by key name only
 * (a secret inside a message string is not found).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { type DestinationStream, type Logger } from 'pino';

/** The levels `LOG_LEVEL` accepts, from the most verbose; `silent` logs nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What every line logged inside a request (API) or an activity (worker) carries. */
export interface LogContext {
  /** The request id: the `X-Request-Id` the API returned for the request that started this work. */
  requestId: string;
}

/**
 * The current request's context: the API's request middleware and the worker's activity interceptor run their work
 * inside it; the logger's mixin and the Temporal client interceptor (src/telemetry/temporalClient.ts) read it.
 */
export const logContext = new AsyncLocalStorage<LogContext>();

/** The request id of the work running now, or undefined outside a request or activity. */
export function currentRequestId(): string | undefined {
  return logContext.getStore()?.requestId;
}

/**
 * Key names (compared without case) whose values are secrets of this service: credentials, order secrets, signatures,
 * private keys, the configuration's keys.
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'x-api-key',
  'x-operator-key',
  'payment-signature',
  'x-payment',
  'agent_key',
  'agentKey',
  'order_secret',
  'orderSecret',
  'buyer_secret',
  'secret',
  'webhook_secret',
  'webhookSecret',
  'signature',
  'private_key',
  'privateKey',
  'operator_key',
  'operatorKey',
  'password',
  'token',
  'management_token',
  'd',
  'key',
  'keys',
  'OPERATOR_KEY',
  'SIGNING_KEYS',
  'SIGNING_KEYS_ENCRYPTION_KEY',
  'PAYLOAD_ENCRYPTION_KEYS',
  'TEXTGEN_API_KEY',
];

/** The names of {@link SECRET_KEYS}, lower-cased, for the lookup of {@link redactSecrets}. */
const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS.map((k) => k.toLowerCase()));

/** Levels of nesting {@link redactSecrets} looks into (the logged object is level 1). */
export const REDACT_DEPTH = 5;

/** What replaces a redacted value. */
export const REDACTED = '[redacted]';

function isPlain(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with the value of every secret key ({@link SECRET_KEYS}, compared without case) replaced by
 * {@link REDACTED}, in plain objects and arrays up to {@link REDACT_DEPTH} levels deep; other values (errors,
 * buffers, class instances) are kept as they are. Copies only what it changes: an object without secrets is returned
 * itself. Source: issue 27 §5 (pino's own `redact` paths with wildcards cost about 25 µs per line and level).
 */
export function redactSecrets<T>(value: T, depth = REDACT_DEPTH): T {
  if (depth <= 0) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = redactSecrets(item as unknown, depth - 1);
      if (next !== item) (out ??= [...(value as unknown[])])[i] = next;
    });
    return (out ?? value) as T;
  }
  if (!isPlain(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = value[k];
    const next = SECRET_KEY_SET.has(k.toLowerCase()) && v !== undefined ? REDACTED : redactSecrets(v, depth - 1);
    if (next !== v) (out ??= { ...value })[k] = next;
  }
  return (out ?? value) as T;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Default `LOG_LEVEL` from the environment, else `info`. */
  level?: LogLevel;
  /** Where the JSON lines go; default stdout ({@link stdoutDestination}). Tests pass a stream of their own to read them. */
  destination?: DestinationStream;
}

let stdout: DestinationStream | undefined;

/**
 * The process's stdout for log lines, written asynchronously: a synchronous write per line waits on the event loop
 * for the disk or terminal to take it (a line per activity in the worker, one per request in the API). Lines written
 * while a write is in flight are joined into the next one; pino flushes what is left when the process exits (a
 * SIGKILL loses at most the lines of the write in flight).
 */
function stdoutDestination(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}

/** The level `LOG_LEVEL` names, or `info` when it is unset; an unknown name throws (a typo must not go silent). */
export function levelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const v = env.LOG_LEVEL?.trim().toLowerCase();
  if (!v) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(v))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${env.LOG_LEVEL})`);
  return v as LogLevel;
}

/**
 * A pino logger with this service's configuration: ISO timestamps, level names, secret keys redacted
 * ({@link redactSecrets}), errors under `err` serialized with their stack, and `requestId` from {@link logContext}.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? levelFromEnv(),
      timestamp: pino.stdTimeFunctions.isoTime,
      base: { pid: process.pid },
      // Secret keys at any depth (see redactSecrets), on every line's fields before they are written.
      formatters: { level: (label) => ({ level: label }), log: (fields) => redactSecrets(fields) },
      serializers: { err: pino.stdSerializers.err },
      mixin: () => {
        const ctx = logContext.getStore();
        return ctx ? { requestId: ctx.requestId } : {};
      },
    },
    opts.destination ?? stdoutDestination(),
  );
}

let root: Logger | undefined;

/** The process's logger (created on first use from the environment; see {@link setLogger}). */
export function logger(): Logger {
  root ??= createLogger();
  return root;
}

/**
 * Replaces the process's logger: the entry points set the configured level (`LOG_LEVEL` of src/config.ts), tests a
 * logger writing into a stream they read. Everything that logs looks the logger up per line, so the change applies
 * at once (the Temporal Runtime's adapter included).
 */
export function setLogger(next: Logger): void {
  root = next;
}

/** Milliseconds since `startedAt` (`process.hrtime.bigint()`), rounded to microseconds: the `ms` / `durationMs` of
 * request and activity lines. */
export function elapsedMs(startedAt: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - startedAt) / 1000) / 1000;
}

/** Characters and length an incoming `X-Request-Id` may have to be kept (else a new id is made). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of a request: its `X-Request-Id` when it is 1–128 of `A-Z a-z 0-9 . _ : -` (so a caller or a proxy
 * can choose it, but cannot inject anything into a log line), else a new random UUID.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v !== undefined && SANE_REQUEST_ID.test(v) ? v : randomUUID();
}

/**
 * A `(err) => void` that logs `err` at error level with `msg` (the `log` port of the API's modules: 5xx errors, the
 * x402 gateway's failures).
 */
export function errorLogger(msg: string): (err: unknown) => void {
  return (err) => logger().error({ err }, msg);
}
