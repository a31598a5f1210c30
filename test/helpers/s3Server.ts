/**
 * A real S3-compatible server for tests (issue 25 §2): GoFakeS3 (the S3 REST API over a folder) on a free port and a
 * temporary folder, with one bucket. The binary is built by scripts/setup.sh into `<cache>/bin/gofakes3`;
 * GOFAKES3_PATH overrides it. GoFakeS3 accepts any credentials (it checks no signatures); the clients sign anyway.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheDir, startWatchdog } from '../../scripts/lib/servers';

/** A running server: where to reach it, with what key, and how to stop it. */
export interface S3TestServer {
  /** `http://127.0.0.1:<port>`; path-style addressing (`forcePathStyle`). */
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/** The `gofakes3` executable: GOFAKES3_PATH, else the one scripts/setup.sh builds. @throws Error when missing. */
export function gofakes3Binary(): string {
  const exe = process.env.GOFAKES3_PATH || path.join(cacheDir(), 'bin', 'gofakes3');
  if (!existsSync(exe)) throw new Error(`GoFakeS3 not found at ${exe}: run scripts/setup.sh (or set GOFAKES3_PATH)`);
  return exe;
}

/**
 * Starts GoFakeS3 on 127.0.0.1 (the port the OS picks) with `bucket` created, storing objects under a new temporary
 * folder; resolves once it listens.
 * @throws Error with the server's output when it exits or does not listen within `timeoutMs` (default 30 s).
 */
export async function startS3Server(bucket = 'deliverables-test', timeoutMs = 30_000): Promise<S3TestServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-s3-'));
  const args = ['-backend', 'fs', '-fs.path', dir, '-fs.create', '-host', '127.0.0.1:0', '-initialbucket', bucket];
  const proc = spawn(gofakes3Binary(), [...args, '-quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const watchdog = proc.pid ? startWatchdog(process.pid, proc.pid, 'SIGTERM') : undefined;
  let output = '';
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', (code, signal) => {
      exit = String(signal ?? code);
      resolve();
    }),
  );
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (exit === undefined) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      if (watchdog?.pid) process.kill(watchdog.pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    })());

  // It logs `using port: N` once it listens.
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gofakes3 did not listen within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = /using port: (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`gofakes3 exited (${exit}) before it listened:\n${output}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test-access-key', secretAccessKey: 'test-secret-key' },
    stop,
  };
}
