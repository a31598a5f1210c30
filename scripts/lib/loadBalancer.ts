/**
 * The API tier's load balancer (issue 25 §2): HAProxy from Debian's package, run with deploy/haproxy.cfg, the same
 * file docker-compose.yml mounts, so the balancing, health checks and the retryable 503 of an API that dies
 * mid-request are one configuration for both.
 */
import path from 'node:path';
import { requireExecutable, spawnTracked, waitUntilReady, type TrackedChild } from './servers';

const root = path.resolve(__dirname, '..', '..');

/** Where HAProxy is: HAPROXY_PATH or Debian's /usr/sbin/haproxy (scripts/setup.sh installs it). */
export const haproxyPath = (): string => process.env.HAPROXY_PATH || '/usr/sbin/haproxy';

/** What {@link startLoadBalancer} runs. */
export interface LoadBalancerOptions {
  /** `host:port` clients connect to. */
  bind: string;
  /** The API processes (`host:port`), one or two (deploy/haproxy.cfg names two servers; one is given twice). */
  apis: string[];
  logFile?: string;
}

/**
 * Starts HAProxy in the foreground (`-db`, master-worker `-W`) and resolves once it accepts connections on `bind`
 * and answers `/health` through an API. Stopped with SIGUSR1 (soft stop: it finishes the requests in flight).
 * @throws Error if HAProxy is missing, its configuration is refused, or it is not ready in 60 s.
 */
export async function startLoadBalancer(opts: LoadBalancerOptions): Promise<TrackedChild> {
  const exe = requireExecutable(haproxyPath(), 'haproxy', 'HAPROXY_PATH');
  const [first, second] = opts.apis;
  if (!first || opts.apis.length > 2) throw new Error('deploy/haproxy.cfg balances one or two APIs');
  const lb = spawnTracked('haproxy', exe, ['-W', '-db', '-f', path.join(root, 'deploy', 'haproxy.cfg')], opts.logFile, {
    stopSignal: 'SIGUSR1',
    env: { LB_BIND: opts.bind, API_1: first, API_2: second ?? first, LB_ERRORS: path.join(root, 'deploy', 'errors') },
  });
  await waitUntilReady(lb, 60_000, async () => {
    const res = await fetch(`http://${opts.bind}/health`);
    if (res.status !== 200) throw new Error(`/health through the load balancer answered ${res.status}`);
  });
  return lb;
}
