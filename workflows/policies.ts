/**
 * Retry and activity-option presets, and the small helpers every workflow uses, named once (issue 11 §4).
 * Workflow-safe: imports only `@temporalio/workflow`.
 *
 * Activity options and retry policies are not part of the commands a workflow records, so changing a preset needs no
 * `patched()` (test/integration/replay.test.ts); what an activity is called with, and in which order, does.
 *
 * Timeouts match the work (issue 14): bookkeeping and wallet captures take milliseconds, so an attempt that died with
 * its worker is retried after seconds; producers heartbeat per stored file.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  type ActivityOptions,
  type LocalActivityOptions,
  type RetryPolicy,
} from '@temporalio/workflow';

/**
 * Bookkeeping (read-model writes, events, refunds, commissions): retried until it succeeds. At most 5 s between
 * attempts, so after a database outage the workflow moves on seconds after it is back (issue 14).
 */
export const UNTIL_DONE: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '5 seconds',
};

/**
 * Payment capture and checks (wallet debits, hosted-link and invoice verification): business refusals are
 * non-retryable failures; transient errors retry a few times, then the caller reports the failure.
 */
export const CAPTURE: RetryPolicy = { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 };

/** Producing deliverables: a failure after the last attempt fails the order (or task) and refunds it. */
export const PRODUCE: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 6,
};

/** Options of bookkeeping activities ({@link UNTIL_DONE}, milliseconds of database work). */
export const RECORD_OPTIONS: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: UNTIL_DONE };

/** Options of payment activities ({@link CAPTURE}). */
export const CAPTURE_OPTIONS: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: CAPTURE };

/**
 * Options of chain work (x402 settlement checks, on-chain refunds, the order Update they lead to): heartbeating, so
 * an attempt lost with its worker is retried after 10 s (issue 14); retried until done, at most a minute apart.
 */
export const CHAIN_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * Options of producers ({@link PRODUCE}): they heartbeat per stored file, so an attempt lost with its worker is
 * retried after 10 s, not after the minute of its start-to-close timeout.
 */
export const PRODUCE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: PRODUCE,
};

/**
 * Options of bookkeeping run as a local activity (issue 9 §3): milliseconds of database work inside the workflow task
 * that needs it, retried until done, quickly at first.
 */
export const LOCAL_RECORD_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { ...UNTIL_DONE, initialInterval: '200 milliseconds' },
};

/** Options of a wallet capture run as a local activity ({@link CAPTURE}). */
export const LOCAL_CAPTURE_OPTIONS: LocalActivityOptions = { startToCloseTimeout: '10 seconds', retry: CAPTURE };

/** What `executeWithOptions` of a (local) activity proxy's function accepts, as far as a summary goes. */
export interface Summarisable<A extends unknown[], R> {
  executeWithOptions(options: { summary?: string }, args: A): Promise<R>;
}

/**
 * Runs activity `fn` (a function of a `proxyActivities` / `proxyLocalActivities` proxy, or of
 * {@link withRemoteFallback}) with `summary` as its one-line summary on the workflow's timeline (issue 26 §1). The
 * proxy's options cannot vary per call, so this uses the SDK's per-call form, `executeWithOptions`. A summary is
 * metadata, not part of the command a replay compares: adding or changing one needs no `patched()`.
 */
export function withSummary<A extends unknown[], R>(fn: Summarisable<A, R>, summary: string, ...args: A): Promise<R> {
  return fn.executeWithOptions({ summary }, args);
}

/** Whether `err` is a local activity the SDK cancelled (an eviction), not one this workflow's scope cancelled. */
function cancelledWithoutRequest(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof CancelledFailure &&
    !CancellationScope.current().consideredCancelled
  );
}

type ActivityCall = ((...args: unknown[]) => Promise<unknown>) & {
  executeWithOptions(options: object, args: unknown[]): Promise<unknown>;
};

/**
 * `local`'s activities, each run again as the same activity of `remote` when the SDK cancelled it (an eviction;
 * workflows/order.ts LA_CANCEL_FALLBACK, issue 14) and `fallback()` says this run may (asked only then, as a patch
 * check is). Plain calls and `executeWithOptions` (summaries, {@link withSummary}) both fall back.
 */
export function withRemoteFallback<T extends object>(local: T, remote: T, fallback: () => boolean): T {
  return new Proxy(local, {
    get(target, name) {
      const pick = (proxy: object) => Reflect.get(proxy, name) as ActivityCall;
      const call = (fn: ActivityCall, options: object | undefined, args: unknown[]) =>
        options ? fn.executeWithOptions(options, args) : fn(...args);
      const run = async (options: object | undefined, args: unknown[]): Promise<unknown> => {
        try {
          return await call(pick(target), options, args);
        } catch (err) {
          if (cancelledWithoutRequest(err) && fallback()) return call(pick(remote), options, args);
          throw err;
        }
      };
      return Object.assign((...args: unknown[]) => run(undefined, args), {
        executeWithOptions: (options: object, args: unknown[]) => run(options, args),
      });
    },
  });
}

/** The workflow's current time as an ISO string (workflow time: deterministic under replay). */
export const nowIso = (): string => new Date().toISOString();

/** A deep copy of plain JSON state (the workflow sandbox has no `structuredClone`). */
export const copyJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The business refusal an activity raised (its non-retryable `ApplicationFailure`, e.g. `insufficient_funds`), or
 * undefined when `err` is anything else (a timeout, a cancellation, an exhausted retry of a transient error). A
 * normal activity's failure arrives as an `ActivityFailure` caused by it; a local activity's arrives as the
 * `ApplicationFailure` itself (SDK 1.24; seen when the subscription's renewal charge became local, issue 26 §1).
 */
export function businessFailure(err: unknown): ApplicationFailure | undefined {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : undefined;
  return err instanceof ApplicationFailure ? err : undefined;
}

/**
 * Turns an activity's business refusal into the failure an Update handler throws, keeping its type (`fallbackType`
 * when it has none) and details, so the API maps it to its problem detail; anything else is returned unchanged.
 */
export function asUpdateFailure(err: unknown, fallbackType: string): unknown {
  const cause = businessFailure(err);
  if (!cause) return err;
  return ApplicationFailure.create({
    message: cause.message,
    type: cause.type ?? fallbackType,
    details: cause.details ? [...cause.details] : undefined,
    nonRetryable: true,
  });
}

/**
 * The non-retryable failure with which a validator or handler refuses a request in the wrong state: `type` is the
 * API error code, `current_status` its extension member.
 */
export function refusal(message: string, type: string, currentStatus: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type, details: [{ current_status: currentStatus }], nonRetryable: true });
}
