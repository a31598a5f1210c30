/**
 * Trust telemetry behind `GET /api/v1/trust/status`: every figure is computed from this service's own records
 * (heartbeat minutes, in-process request timings, the orders collection) and shown beside the targets the catalogue
 * declares. A figure without data is null, never a made-up default.
 *
 * - Uptime: {@link uptimeWindow} over the last hour, day, 7 and 30 days and since records began, plus this process's
 *   own start time.
 * - Latency: p50 / p95 / p99 per route group since this process started ({@link RequestLatency}).
 * - Orders by status: a `$group` over the orders collection.
 * - Fulfillment per service: hours from the `paid` to the `delivered` progress entry, p50 / p95 (nearest rank) over
 *   the newest {@link FULFILLMENT_SAMPLE} paid orders, against `max_fulfillment_hours`. An order has met its SLA when it
 *   was delivered within `max_fulfillment_hours` of payment; it has missed it when delivered later, when fulfillment
 *   failed, or when it is still undelivered past the bound. Orders still within their bound are not decided yet and
 *   are not counted in the share.
 *
 * Source: seed §2.1 (`sla`, `max_fulfillment_hours`), §2.11, §4 (trust row); issue 4 §5.
 */
import { SERVICES, getService } from '../domain/catalogue';
import { slaPercent } from '../domain/discovery';
import type { Database } from '../db';
import type { RequestLatency } from './latency';
import { HEARTBEAT_INTERVAL_MS, PROCESS_STARTED_AT, uptimeWindow } from './uptime';

/** How many of the newest paid orders the fulfillment figures read. */
export const FULFILLMENT_SAMPLE = 10_000;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The `p`th percentile of ascending `sorted` values by the nearest-rank method; null for no values. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? null;
}

const round = (n: number | null, digits = 4): number | null =>
  n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits;

/** Measured fulfillment of one service. Hours rounded to 4 decimals. */
export interface FulfillmentStats {
  delivered: number;
  p50_hours: number | null;
  p95_hours: number | null;
  max_hours: number | null;
  /** Orders whose SLA is decided (delivered, failed, or overdue), and how many met it. */
  sla_decided: number;
  sla_met: number;
  sla_met_share: number | null;
  /** Paid, undelivered, still within the bound. */
  in_progress: number;
}

interface PaidOrder {
  service_id: string;
  progress: { status: string; at: string }[];
}

/** Fulfillment figures per service from paid orders (pure; `now` decides what is overdue). */
export function fulfillmentStats(orders: readonly PaidOrder[], now: Date): Record<string, FulfillmentStats> {
  const hours = new Map<string, number[]>();
  const decided = new Map<string, { met: number; total: number; inProgress: number }>();
  for (const o of orders) {
    const service = getService(o.service_id);
    const paid = o.progress.find((p) => p.status === 'paid');
    if (!service || !paid) continue;
    const bound = service.max_fulfillment_hours;
    const paidAt = Date.parse(paid.at);
    const delivered = o.progress.find((p) => p.status === 'delivered');
    const failed = o.progress.some((p) => p.status === 'failed');
    const d = decided.get(service.id) ?? { met: 0, total: 0, inProgress: 0 };
    if (delivered) {
      const h = (Date.parse(delivered.at) - paidAt) / HOUR_MS;
      hours.set(service.id, [...(hours.get(service.id) ?? []), h]);
      d.total += 1;
      if (h <= bound) d.met += 1;
    } else if (failed || now.getTime() - paidAt > bound * HOUR_MS) {
      d.total += 1;
    } else {
      d.inProgress += 1;
    }
    decided.set(service.id, d);
  }
  const out: Record<string, FulfillmentStats> = {};
  for (const s of SERVICES) {
    const h = [...(hours.get(s.id) ?? [])].sort((a, b) => a - b);
    const d = decided.get(s.id) ?? { met: 0, total: 0, inProgress: 0 };
    out[s.id] = {
      delivered: h.length,
      p50_hours: round(nearestRank(h, 50)),
      p95_hours: round(nearestRank(h, 95)),
      max_hours: round(h.at(-1) ?? null),
      sla_decided: d.total,
      sla_met: d.met,
      sla_met_share: d.total > 0 ? round(d.met / d.total) : null,
      in_progress: d.inProgress,
    };
  }
  return out;
}

/**
 * Computes the whole trust status document.
 * @param latency - this process's request latency recorder.
 * @param now - the time of the reading.
 */
export async function trustStatus(d: Database, latency: RequestLatency, now = new Date()) {
  const [lastHour, lastDay, last7d, last30d, allTime, byStatus, paidOrders] = await Promise.all([
    uptimeWindow(d, HOUR_MS, now),
    uptimeWindow(d, DAY_MS, now),
    uptimeWindow(d, 7 * DAY_MS, now),
    uptimeWindow(d, 30 * DAY_MS, now),
    uptimeWindow(d, null, now),
    d.orders.aggregate<{ _id: string; count: number }>([{ $group: { _id: '$status', count: { $sum: 1 } } }]).toArray(),
    d.orders
      .find({ payment: { $ne: null } }, { projection: { service_id: 1, progress: 1 } })
      .sort({ created_at: -1 })
      .limit(FULFILLMENT_SAMPLE)
      .toArray(),
  ]);
  const statusCounts = Object.fromEntries(
    byStatus.map((s) => [s._id, s.count]).sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
  const totalOrders = byStatus.reduce((n, s) => n + s.count, 0);
  const perService = fulfillmentStats(paidOrders, now);
  const decided = Object.values(perService).reduce((n, s) => n + s.sla_decided, 0);
  const met = Object.values(perService).reduce((n, s) => n + s.sla_met, 0);
  const strictestTarget = Math.max(...SERVICES.map((s) => slaPercent(s.sla)));
  const availability30d = last30d.percent;

  return {
    generated_at: now.toISOString(),
    uptime: {
      process: {
        started_at: PROCESS_STARTED_AT.toISOString(),
        uptime_seconds: Math.round((now.getTime() - PROCESS_STARTED_AT.getTime()) / 1000),
      },
      method: `an API process records each minute it runs (every ${HEARTBEAT_INTERVAL_MS / 1000} s); uptime = minutes recorded / minutes elapsed since records began`,
      windows: {
        last_hour: lastHour,
        last_24h: lastDay,
        last_7d: last7d,
        last_30d: last30d,
        since_records_began: allTime,
      },
    },
    latency: {
      scope: 'this API process, since it started',
      since: latency.since,
      groups: latency.snapshot(),
    },
    orders: { total: totalOrders, by_status: statusCounts },
    fulfillment: {
      method: 'hours from paid to delivered; SLA met when delivered within max_fulfillment_hours',
      sample: `newest ${FULFILLMENT_SAMPLE} paid orders`,
      overall: { sla_decided: decided, sla_met: met, sla_met_share: decided > 0 ? round(met / decided) : null },
      services: SERVICES.map((s) => ({
        service_id: s.id,
        declared: {
          sla: s.sla,
          max_fulfillment_hours: s.max_fulfillment_hours,
          estimated_fulfillment: s.estimated_fulfillment,
        },
        measured: perService[s.id],
      })),
    },
    sla: {
      declared: SERVICES.map((s) => ({ service_id: s.id, sla: s.sla, max_fulfillment_hours: s.max_fulfillment_hours })),
      measured: {
        availability_percent_30d: availability30d,
        strictest_declared_availability_percent: strictestTarget,
        availability_meets_strictest: availability30d === null ? null : availability30d >= strictestTarget,
        fulfillment_sla_met_share: decided > 0 ? round(met / decided) : null,
      },
    },
  };
}
