/**
 * A real Prometheus (Debian's package, issue 39 §1) scraping every process of a stack, with the alert rules of
 * deploy/prometheus/alerts.yml: `npm run start:cluster` runs one, and the tests start one to make an alert fire.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { requireExecutable, spawnTracked, waitUntilReady, type TrackedChild } from './servers';

const root = path.resolve(__dirname, '..', '..');

/** Where Prometheus is: PROMETHEUS_PATH or Debian's /usr/bin/prometheus (scripts/setup.sh installs it). */
export const prometheusPath = (): string => process.env.PROMETHEUS_PATH || '/usr/bin/prometheus';

/** The alert rules every Prometheus of this project loads. */
export const ALERT_RULES = path.join(root, 'deploy', 'prometheus', 'alerts.yml');

/** One scrape job: its name (`agent-commerce-api`, …) and `host:port` targets (each serves `/metrics`). */
export interface ScrapeJob {
  job: string;
  targets: string[];
}

/** What {@link startPrometheus} runs. */
export interface PrometheusOptions {
  /** Folder for its configuration and time series (created). */
  dataDir: string;
  /** `host:port` of its web UI and API. */
  listen: string;
  jobs: ScrapeJob[];
  /** Scrape and rule evaluation interval, e.g. `15s` (tests use `1s`). */
  interval?: string;
  ruleFiles?: string[];
  logFile?: string;
}

/** The `prometheus.yml` of {@link PrometheusOptions} (JSON is YAML). */
export function prometheusConfig(opts: Pick<PrometheusOptions, 'jobs' | 'interval' | 'ruleFiles'>): string {
  const interval = opts.interval ?? '15s';
  return JSON.stringify(
    {
      global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
      rule_files: opts.ruleFiles ?? [ALERT_RULES],
      scrape_configs: opts.jobs.map((j) => ({ job_name: j.job, static_configs: [{ targets: j.targets }] })),
    },
    null,
    2,
  );
}

/**
 * Writes the configuration and starts Prometheus; resolves once `/-/ready` answers 200.
 * @throws Error if Prometheus is missing or not ready in 60 s.
 */
export async function startPrometheus(opts: PrometheusOptions): Promise<TrackedChild & { url: string }> {
  const exe = requireExecutable(prometheusPath(), 'prometheus', 'PROMETHEUS_PATH');
  mkdirSync(path.join(opts.dataDir, 'tsdb'), { recursive: true });
  const config = path.join(opts.dataDir, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(opts));
  const child = spawnTracked(
    'prometheus',
    exe,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(opts.dataDir, 'tsdb')}`,
      `--web.listen-address=${opts.listen}`,
      '--storage.tsdb.retention.time=7d',
    ],
    opts.logFile,
  );
  const url = `http://${opts.listen}`;
  await waitUntilReady(child, 60_000, async () => {
    const res = await fetch(`${url}/-/ready`);
    if (res.status !== 200) throw new Error(`/-/ready answered ${res.status}`);
  });
  return Object.assign(child, { url });
}
