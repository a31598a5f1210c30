/**
 * Request latency per route group, measured by a Koa middleware into one HDR histogram per group
 * (`hdr-histogram-js`: fixed memory, 3 significant digits, values in microseconds up to one hour).
 * In memory, since the process started: each API process reports its own requests.
 *
 * Source: seed §2.11 ("real-time performance telemetry"); issue 4 §5 (p50 / p95 / p99 per route group).
 */
import { build, type Histogram } from 'hdr-histogram-js';
import type { Context, Middleware } from 'koa';

/** Highest latency recorded exactly (one hour, in microseconds); longer requests are recorded as one hour. */
const MAX_MICROS = 3_600_000_000;
/** Cap on distinct groups, so arbitrary paths cannot grow memory (the rest count as `other`). */
const MAX_GROUPS = 64;

/**
 * The route group of a request path: the resource segment under `/api/v1` (`/api/v1/orders/ord_x/review` → `orders`,
 * `/api/v1/capabilities/negotiate` → `capabilities`), else the first segment for the service's other roots (`health`,
 * `mcp`, `x402`, `pay`, `well_known`), else `other`.
 */
export function routeGroup(path: string): string {
  const api = /^\/api\/v1\/([a-z0-9_]{1,32})(?:\/|$)/.exec(path);
  if (api?.[1]) return api[1];
  const root = /^\/(health|mcp|x402|pay|\.well-known)(?:\/|$)/.exec(path);
  if (root?.[1]) return root[1] === '.well-known' ? 'well_known' : root[1];
  return 'other';
}

/** Latency figures of one group, in milliseconds (3 significant digits). */
export interface LatencyStats {
  count: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Answers with status ≥ 500. */
  errors_5xx: number;
  /** Answers with status 400 to 499. */
  client_errors_4xx: number;
}

interface Group {
  histogram: Histogram;
  errors5xx: number;
  errors4xx: number;
}

/** Per-group latency recorder; one per API process. */
export class RequestLatency {
  private readonly groups = new Map<string, Group>();
  /** When recording started (ISO time). */
  readonly since = new Date().toISOString();

  /** Records one request of `micros` microseconds that answered `status`. */
  record(group: string, micros: number, status: number): void {
    const name = this.groups.has(group) || this.groups.size < MAX_GROUPS ? group : 'other';
    let g = this.groups.get(name);
    if (!g) {
      g = {
        histogram: build({
          lowestDiscernibleValue: 1,
          highestTrackableValue: MAX_MICROS,
          numberOfSignificantValueDigits: 3,
          autoResize: false,
        }),
        errors5xx: 0,
        errors4xx: 0,
      };
      this.groups.set(name, g);
    }
    g.histogram.recordValue(Math.min(MAX_MICROS, Math.max(1, Math.round(micros))));
    if (status >= 500) g.errors5xx += 1;
    else if (status >= 400) g.errors4xx += 1;
  }

  /** Koa middleware: put it first, so the time includes error rendering and every later middleware. */
  middleware(): Middleware {
    return async (ctx, next) => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        this.observe(ctx, start);
      }
    };
  }

  /** Records an answered request that started at `start` (`process.hrtime.bigint()`). */
  observe(ctx: Context, start: bigint): void {
    this.observePath(ctx.path, start, ctx.status);
  }

  /** {@link observe} from the request's parts, for answers given without a Koa context (the response cache). */
  observePath(path: string, start: bigint, status: number): void {
    this.record(routeGroup(path), Number(process.hrtime.bigint() - start) / 1000, status);
  }

  /** Figures per group, sorted by group name. */
  snapshot(): Record<string, LatencyStats> {
    const ms = (micros: number) => Math.round(micros) / 1000;
    const out: Record<string, LatencyStats> = {};
    for (const name of [...this.groups.keys()].sort()) {
      const g = this.groups.get(name);
      if (!g) continue;
      const h = g.histogram;
      out[name] = {
        count: h.totalCount,
        p50_ms: ms(h.getValueAtPercentile(50)),
        p95_ms: ms(h.getValueAtPercentile(95)),
        p99_ms: ms(h.getValueAtPercentile(99)),
        max_ms: ms(h.maxValue),
        errors_5xx: g.errors5xx,
        client_errors_4xx: g.errors4xx,
      };
    }
    return out;
  }
}
