/**
 * The observation feed sold at `/x402/obs/tick`, `/x402/obs/agents` and `/x402/obs/methodology` (seed §2.13): readings
 * computed from this service's own request telemetry (src/http/telemetry.ts). Pure functions over the records.
 *
 * Definitions (also served by the methodology resource):
 * - agent visit: a request whose User-Agent is not a browser's (see `classifyUserAgent`), excluding OPTIONS and /health;
 * - distinct identities: distinct identities among agent visits (declared `X-Agent-Id` / `agent_id`, else a salted
 *   hash of IP and User-Agent);
 * - single-endpoint share: of those identities, the fraction whose every request in the window hit one route pattern
 *   (one-shot callers and monitors, as opposed to agents that browse and buy).
 */
import type { RequestRecord } from '../../http/telemetry';

/** Window of a tick reading. */
export const TICK_WINDOW_MS = 60 * 60 * 1000;
/** Window of the agents snapshot. */
export const SNAPSHOT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Facts about the telemetry store attached to every reading. */
export interface TelemetryFacts {
  stored: number;
  capacity: number;
  dropped: number;
  since: string;
  retention_hours: number;
}

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

function identityRoutes(records: RequestRecord[]): Map<string, Set<string>> {
  const by = new Map<string, Set<string>>();
  for (const r of records) {
    const set = by.get(r.identity) ?? new Set<string>();
    set.add(`${r.method} ${r.route}`);
    by.set(r.identity, set);
  }
  return by;
}

/** One small reading (seed: "agent visits, distinct identities, share hitting a single endpoint"). */
export function tickReading(all: RequestRecord[], now: number, facts: TelemetryFacts) {
  const from = now - TICK_WINDOW_MS;
  const agents = all.filter((r) => r.agent && r.at >= from);
  const routes = identityRoutes(agents);
  const single = [...routes.values()].filter((s) => s.size === 1).length;
  return {
    reading: 'agent-traffic-tick',
    at: new Date(now).toISOString(),
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString(), seconds: TICK_WINDOW_MS / 1000 },
    agent_visits: agents.length,
    distinct_identities: routes.size,
    single_endpoint_share: routes.size === 0 ? null : round(single / routes.size),
    all_requests: all.filter((r) => r.at >= from).length,
    data_since: facts.since,
    methodology: '/x402/obs/methodology',
  };
}

/** The agent behaviour snapshot with methodology and limits attached. */
export function agentsSnapshot(all: RequestRecord[], now: number, facts: TelemetryFacts) {
  const from = now - SNAPSHOT_WINDOW_MS;
  const inWindow = all.filter((r) => r.at >= from);
  const agents = inWindow.filter((r) => r.agent);
  const routes = identityRoutes(agents);
  const countBy = <K extends string>(items: RequestRecord[], key: (r: RequestRecord) => K) => {
    const m = new Map<K, number>();
    for (const r of items) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
    return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  };
  const perIdentity = [...countBy(agents, (r) => r.identity).map(([, n]) => n)].sort((a, b) => a - b);
  const quantile = (q: number) =>
    perIdentity.length === 0
      ? null
      : (perIdentity[Math.min(perIdentity.length - 1, Math.floor(q * perIdentity.length))] ?? null);
  const x402Routes = agents.filter((r) => r.route.startsWith('/x402/'));
  const challenged = x402Routes.filter((r) => r.status === 402).length;
  const paidOk = x402Routes.filter((r) => r.paid_attempt && r.status === 200).length;
  const hours = new Array<number>(24).fill(0);
  for (const r of agents) {
    const h = Math.floor((now - r.at) / 3_600_000);
    if (h >= 0 && h < 24) hours[23 - h] = (hours[23 - h] ?? 0) + 1;
  }
  return {
    snapshot: 'agent-behaviour',
    at: new Date(now).toISOString(),
    window: { from: new Date(from).toISOString(), to: new Date(now).toISOString(), seconds: SNAPSHOT_WINDOW_MS / 1000 },
    totals: {
      requests: inWindow.length,
      agent_visits: agents.length,
      browser_requests: inWindow.length - agents.length,
      distinct_identities: routes.size,
      declared_identities: new Set(agents.filter((r) => r.declared_identity).map((r) => r.identity)).size,
      single_endpoint_share:
        routes.size === 0 ? null : round([...routes.values()].filter((s) => s.size === 1).length / routes.size),
    },
    requests_per_identity: { p50: quantile(0.5), p90: quantile(0.9), max: perIdentity[perIdentity.length - 1] ?? null },
    clients: countBy(agents, (r) => r.client)
      .slice(0, 15)
      .map(([client, visits]) => ({ client, visits })),
    endpoints: countBy(agents, (r) => `${r.method} ${r.route}`)
      .slice(0, 25)
      .map(([endpoint, visits]) => ({ endpoint, visits })),
    statuses: countBy(agents, (r) => String(r.status)).map(([status, count]) => ({ status: Number(status), count })),
    x402_funnel: {
      requests_to_paid_resources: x402Routes.length,
      payment_challenges_402: challenged,
      paid_and_delivered_200: paidOk,
      conversion: challenged === 0 ? null : round(paidOk / challenged),
    },
    hourly_agent_visits: hours,
    methodology: methodologyDocument(facts),
  };
}

/** How the feed is measured, what is excluded, and the sampling caveats. */
export function methodologyDocument(facts: TelemetryFacts) {
  return {
    document: 'observation-feed-methodology',
    version: 1,
    source: "This service's own HTTP request log, recorded by the API process after each response.",
    definitions: {
      agent_visit:
        'A request whose User-Agent is absent or is not a browser (browsers: starts with Mozilla/ and names no bot, agent, AI vendor, HTTP library or headless engine).',
      distinct_identity:
        'The X-Agent-Id header or agent_id query parameter when a caller sends one; otherwise a SHA-256 of client IP and User-Agent with a per-process random salt, truncated to 64 bits.',
      single_endpoint_share:
        'Among distinct agent identities in the window, the fraction whose every request hit the same method and route pattern.',
      route_pattern: 'The matched route template (e.g. /x402/item/:id); concrete ids are not stored.',
    },
    windows: { tick_seconds: TICK_WINDOW_MS / 1000, snapshot_seconds: SNAPSHOT_WINDOW_MS / 1000 },
    exclusions: [
      'CORS preflight requests (OPTIONS)',
      'GET /health (liveness probes)',
      'Requests to other processes or replicas of this service',
    ],
    storage: {
      kind: 'in-memory ring buffer, per API process',
      capacity_requests: facts.capacity,
      retention_hours: facts.retention_hours,
      stored_now: facts.stored,
      dropped_since_start: facts.dropped,
      data_since: facts.since,
    },
    caveats: [
      'The data starts when this API process started and is lost on restart.',
      'Each replica measures only the traffic it served; readings are not aggregated across replicas.',
      'User-Agent strings are self-declared: an agent can pose as a browser and the reverse.',
      'Several agents behind one NAT with the same User-Agent count as one identity; one agent rotating IPs or User-Agents counts as several.',
      'The buyers of this feed are visitors too: sampling the tick adds to the readings.',
      'When the buffer is full the oldest requests are dropped first (see dropped_since_start).',
    ],
    privacy: 'No IP addresses, paths with ids, bodies or headers other than the User-Agent product token are kept.',
  };
}
