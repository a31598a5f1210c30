/**
 * One webhook HTTP attempt: POST with a 15 s timeout, no redirects followed, connecting only to addresses the SSRF
 * guard allows. Never throws for HTTP or network failures: the outcome is data, so the caller records every attempt.
 *
 * Source: issue 5 §2; ../shared/reference/api-conventions.md (15 s timeout, Retry-After, 410).
 */
import http from 'node:http';
import https from 'node:https';
import { ForbiddenTargetError, assertPublicTarget, guardedLookup } from './ssrf';

/** Per-attempt timeout (connect + response headers + body), milliseconds. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Longest Retry-After honoured (a larger value is capped to this), milliseconds. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** Result of one attempt. `status` null when no HTTP answer came; latency in milliseconds. */
export interface SendResult {
  status: number | null;
  latencyMs: number;
  /** Parsed Retry-After in milliseconds, capped at {@link MAX_RETRY_AFTER_MS}. */
  retryAfterMs: number | null;
  error: string | null;
  /** True when the target was refused by the SSRF guard (no request was sent). */
  forbidden: boolean;
}

/** Parses a Retry-After value (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** POSTs `body` to `url` with `headers`. */
export async function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    await assertPublicTarget(url, allowPrivate);
  } catch (err) {
    const reason = err instanceof ForbiddenTargetError ? err.reason : String(err);
    return {
      status: null,
      latencyMs: elapsed(),
      retryAfterMs: null,
      error: `target refused: ${reason}`,
      forbidden: true,
    };
  }
  const target = new URL(url);
  const mod = target.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: elapsed() });
    };
    const req = mod.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: guardedLookup(allowPrivate),
        agent: false,
      },
      (res) => {
        // Drain (at most 64 KiB kept in memory) so the socket closes cleanly; the body itself is not used.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > 65_536) res.destroy();
        });
        const done = () =>
          finish({
            status: res.statusCode ?? null,
            retryAfterMs: parseRetryAfter(res.headers['retry-after']),
            error: null,
            forbidden: false,
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${DELIVERY_TIMEOUT_MS / 1000} s`));
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', (err) => {
      const forbidden = err instanceof ForbiddenTargetError;
      finish({
        status: null,
        retryAfterMs: null,
        error: forbidden ? `target refused: ${err.message}` : err.message || String(err),
        forbidden,
      });
    });
    req.end(body);
  });
}
