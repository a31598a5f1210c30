/**
 * Keeps the service's processes running, as a process supervisor would (issue 25; issue 36 §B): `npm start` and
 * `npm run start:cluster` both run their APIs and workers under one {@link Supervisor}. A process that exits while
 * the supervisor is not stopping is started again after `restartDelayMs`; the others keep running. `stop()` ends
 * them all.
 */
import type { ChildProcess } from 'node:child_process';

/** How a supervised process exited (as Node's `exit` event says it). */
export interface ProcessExit {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of a {@link Supervisor}; times in milliseconds. */
export interface SupervisorOptions {
  /** Wait before starting a process that exited again (default 1,000). */
  restartDelayMs?: number;
  /** After SIGTERM, SIGKILL a process still running this long later (default 10,000). */
  killAfterMs?: number;
  /** Called for every exit that will be followed by a restart (to log it). */
  onRestart?: (exit: ProcessExit) => void;
}

interface Entry {
  spawn: () => ChildProcess;
  child: ChildProcess;
  restarts: number;
}

/** Runs named processes and restarts any that exits, until {@link Supervisor.stop}. */
export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private stopping = false;

  constructor(private readonly opts: SupervisorOptions = {}) {}

  /** Starts `spawn()` as `name` and keeps it running: a new `spawn()` after each exit. Names are unique. */
  run(name: string, spawn: () => ChildProcess): void {
    if (this.entries.has(name)) throw new Error(`supervisor: ${name} already runs`);
    const entry: Entry = { spawn, child: spawn(), restarts: 0 };
    this.entries.set(name, entry);
    this.watch(name, entry);
  }

  /** The pid of `name`'s current process (undefined between an exit and its restart). */
  pid(name: string): number | undefined {
    const child = this.entries.get(name)?.child;
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /** How many times `name` was started again. */
  restarts(name: string): number {
    return this.entries.get(name)?.restarts ?? 0;
  }

  /** Ends every process (SIGTERM, then SIGKILL after `killAfterMs`) and restarts none; resolves once all exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.entries.values()].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), this.opts.killAfterMs ?? 10_000).unref();
          }),
      ),
    );
  }

  private watch(name: string, entry: Entry): void {
    let settled = false;
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled || this.stopping) return;
      settled = true;
      this.opts.onRestart?.({ name, code, signal });
      setTimeout(() => {
        if (this.stopping) return;
        entry.child = entry.spawn();
        entry.restarts++;
        this.watch(name, entry);
      }, this.opts.restartDelayMs ?? 1_000);
    };
    entry.child.once('exit', exited);
    // A process that could not be spawned at all may never emit 'exit'.
    entry.child.once('error', () => {
      if (entry.child.pid === undefined) exited(null, null);
    });
  }
}
