/**
 * Uptime from heartbeat records: while an API process runs it claims the current minute in `uptime_samples` (one
 * document per minute, whichever process writes first), every {@link HEARTBEAT_INTERVAL_MS}. The uptime of a window is
 * the share of its minutes that have a sample, counted from the first sample ever (minutes before the service existed
 * are not downtime). The minute in progress counts only once sampled. So a stopped API shows as missing minutes, and
 * the figure survives restarts because it lives in MongoDB.
 *
 * Source: seed §2.11 ("uptime telemetry"); issue 4 §5.
 */
import { isDuplicateKey, type Database } from '../db';

/** Heartbeat period: three writes a minute, so no minute of a running process goes unsampled. */
export const HEARTBEAT_INTERVAL_MS = 20_000;
const MINUTE_MS = 60_000;

/** When this process started (from `process.uptime()`, so it is the process's, not this module's, start). */
export const PROCESS_STARTED_AT = new Date(Date.now() - Math.round(process.uptime() * 1000));

/** The minute containing `t`, as a Date and as the sample id `YYYY-MM-DDTHH:MMZ`. */
export function minuteOf(t: Date): { minute: Date; id: string } {
  const minute = new Date(Math.floor(t.getTime() / MINUTE_MS) * MINUTE_MS);
  return { minute, id: `${minute.toISOString().slice(0, 16)}Z` };
}

/** Writes heartbeats until stopped (or until the database client is closed). */
export class UptimeRecorder {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly d: Database) {}

  /** Writes one sample now and then every interval; the timer does not keep the process alive. Idempotent. */
  start(): void {
    if (this.timer) return;
    // Closing the client (shutdown, a test stack stopping) ends the heartbeat, so nothing reconnects afterwards.
    this.d.client.once('topologyClosed', () => this.stop());
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops writing. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Claims the current minute (a duplicate means another beat or process already did). */
  async beat(now = new Date()): Promise<void> {
    const { minute, id } = minuteOf(now);
    try {
      await this.d.uptimeSamples.insertOne({ _id: id, minute, created_at: now });
    } catch (err) {
      if (isDuplicateKey(err)) return;
      // A closed client means the process is shutting down (or a test stack stopped): stop beating.
      if (err instanceof Error && /closed|not connected/i.test(err.message)) this.stop();
    }
  }
}

/** Uptime over one window. `share` is null when the window holds no expected minute yet. */
export interface UptimeWindow {
  from: string;
  minutes_expected: number;
  minutes_up: number;
  share: number | null;
  percent: number | null;
}

/**
 * Uptime over the last `windowMs` (or since the first sample when `windowMs` is null).
 * @param now - the time of the reading (tests pass a fixed one).
 */
export async function uptimeWindow(d: Database, windowMs: number | null, now = new Date()): Promise<UptimeWindow> {
  const first = await d.uptimeSamples.findOne({}, { sort: { minute: 1 } });
  const current = minuteOf(now).minute.getTime();
  const startWanted = windowMs === null ? 0 : minuteOf(new Date(now.getTime() - windowMs)).minute.getTime() + MINUTE_MS;
  const from = Math.max(startWanted, first ? first.minute.getTime() : current);
  const present = await d.uptimeSamples.countDocuments({ minute: { $gte: new Date(from), $lte: new Date(current) } });
  const currentSampled = (await d.uptimeSamples.countDocuments({ minute: new Date(current) })) > 0;
  const completeMinutes = Math.max(0, Math.round((current - from) / MINUTE_MS));
  const expected = completeMinutes + (currentSampled ? 1 : 0);
  const share = expected > 0 ? Math.min(1, present / expected) : null;
  return {
    from: new Date(from).toISOString(),
    minutes_expected: expected,
    minutes_up: present,
    share,
    percent: share === null ? null : Math.round(share * 1_000_000) / 10_000,
  };
}
