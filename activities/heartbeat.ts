/**
 * Heartbeats for activities that can run long (HTTP to a webhook target, chain reads, waiting on another workflow,
 * producing many files). With a heartbeat timeout of seconds, an attempt that died with its worker is retried
 * seconds later instead of after its start-to-close timeout (issue 14).
 */
import { Context } from '@temporalio/activity';

/** Heartbeat interval of {@link whileHeartbeating}: well under the workflows' 10 s heartbeat timeouts. */
export const HEARTBEAT_EVERY_MS = 2_000;

/**
 * Heartbeats the current activity. No-op outside an activity (activities called directly, e.g. by the API or in
 * unit tests) and in local activities (the SDK ignores it there). Source: issue 14.
 */
export function beat(details?: unknown): void {
  const ctx = currentContext();
  // Core answers a local activity's heartbeat with an UnknownActivity warning.
  if (ctx && !ctx.info.isLocal) ctx.heartbeat(details);
}

/** The running activity's context, or undefined outside an activity (called directly, e.g. by the API or in tests). */
export function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` and heartbeats every `everyMs` milliseconds until it settles (at once first, so a heartbeat timeout
 * shorter than the first interval holds). Returns or throws what `work` does. Source: issue 14.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs: number = HEARTBEAT_EVERY_MS): Promise<T> {
  beat();
  const timer = setInterval(beat, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
