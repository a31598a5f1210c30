/**
 * The worker's side of the structured logs (issue 27 §5):
 * - {@link PinoTemporalLogger}: the Temporal SDK `Logger` over the process's pino logger, installed as the
 *   `Runtime` logger by {@link installRuntimeLogging}, so the SDK's own lines, the workflows' `log` (through the SDK's
 *   logger sink) and the activities' `Context.log` go to the same JSON lines as everything else, with the SDK's
 *   attributes (`workflowId`, `runId`, `workflowType`, `activityId`, `activityType`, `attempt`, `taskQueue`, …) and
 *   the request id;
 * - {@link requestIdActivityInterceptors}: reads the request-id header the workflow interceptors put on each
 *   activity, adds it to every line of the activity's `Context.log`, runs the activity inside its log context (so
 *   workflows an activity starts carry it on), and writes one `activity completed` line (info, `durationMs`) per
 *   successful execution (failures are the SDK's own `Activity failed` warning);
 * - {@link WORKFLOW_INTERCEPTOR_MODULES}: the workflow interceptor modules every bundle and worker must include.
 */
import type { Context } from '@temporalio/activity';
import { type LogLevel as TemporalLogLevel, type LogMetadata } from '@temporalio/common';
import {
  Runtime,
  makeTelemetryFilterString,
  type ActivityInboundCallsInterceptor,
  type ActivityInterceptorsFactory,
  type GetLogAttributesInput,
  type Logger as TemporalLogger,
} from '@temporalio/worker';
import type { Level } from 'pino';
import { elapsedMs, logContext, logger, type LogLevel } from './logger';
import { REQUEST_ID_LOG_FIELD, requestIdOfHeaders } from './requestIdNames';

/**
 * The workflow interceptor modules (src/telemetry/workflowInterceptors.ts): pass them as
 * `workflowInterceptorModules` to `bundleWorkflowCode` and as `interceptors.workflowModules` to a `Worker` that
 * bundles itself (a worker given a bundle ignores the latter).
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [require.resolve('./workflowInterceptors')];

const LEVELS: Record<TemporalLogLevel, Level> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The Temporal SDK `Logger` over {@link logger} (looked up per line, so a logger set later applies). The level
 * filter is pino's. An `error` in the metadata is logged as `err` (serialized with its stack).
 */
export class PinoTemporalLogger implements TemporalLogger {
  log(level: TemporalLogLevel, message: string, meta?: LogMetadata): void {
    const pinoLevel = LEVELS[level] ?? 'info';
    const log = logger();
    if (!log.isLevelEnabled(pinoLevel)) return;
    let fields: Record<string, unknown> = {};
    if (meta) {
      // String keys only: the SDK's timestamp symbol is not a field.
      fields = { ...(meta as Record<string, unknown>) };
      if (fields.error !== undefined && fields.err === undefined) {
        fields.err = fields.error;
        delete fields.error;
      }
    }
    log[pinoLevel](fields, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/** The Rust core's log filter for a `LOG_LEVEL`: WARN, or ERROR when only errors are wanted (core is verbose). */
function coreLevel(level: LogLevel): TemporalLogLevel {
  return level === 'error' || level === 'fatal' || level === 'silent' ? 'ERROR' : 'WARN';
}

/**
 * Installs the Temporal `Runtime` with {@link PinoTemporalLogger}, the Rust core's lines forwarded to it (WARN and
 * above), and with `metricsBindAddress` (`host:port`) the SDK's Prometheus exporter there. Call it before anything
 * creates the Runtime (a `NativeConnection`, a `Worker`).
 * @param level the process's `LOG_LEVEL` (pino filters the SDK's lines; it only sets the core's filter here).
 * @returns false when a Runtime was already installed in this process (it is left as it is).
 */
export function installRuntimeLogging(level: LogLevel, metricsBindAddress?: string): boolean {
  try {
    Runtime.install({
      logger: new PinoTemporalLogger(),
      telemetryOptions: {
        logging: {
          filter: makeTelemetryFilterString({ core: coreLevel(level), other: coreLevel(level) }),
          forward: {},
        },
        // Issue 39 §1: the SDK's own series (schedule-to-start, slots, sticky cache, failures) under the Core SDK's
        // default names (durations in milliseconds), as Temporal's published Core SDK dashboard reads them.
        ...(metricsBindAddress ? { metrics: { prometheus: { bindAddress: metricsBindAddress } } } : {}),
      },
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * The activity interceptors (see the module comment): `interceptors: { activity: [requestIdActivityInterceptors] }`
 * in `Worker.create`.
 */
export const requestIdActivityInterceptors: ActivityInterceptorsFactory = (ctx: Context) => {
  let requestId: string | undefined;
  const inbound: ActivityInboundCallsInterceptor = {
    async execute(input, next) {
      requestId = requestIdOfHeaders(input.headers);
      const startedAt = process.hrtime.bigint();
      const result = requestId ? await logContext.run({ requestId }, () => next(input)) : await next(input);
      ctx.log.info('activity completed', { durationMs: elapsedMs(startedAt) });
      return result;
    },
  };
  return {
    inbound,
    outbound: {
      getLogAttributes: (input: GetLogAttributesInput, next) =>
        next(requestId ? { ...input, [REQUEST_ID_LOG_FIELD]: requestId } : input),
    },
  };
};
