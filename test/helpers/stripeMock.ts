/**
 * stripe-mock for the Stripe adapter's tests (issue 37 §3): Stripe's own API mock, which validates every request
 * against Stripe's OpenAPI (the beta spec, which carries the shared-payment-token preview) and answers fixtures. It is
 * stateless, so the tests assert what the adapter sends: a recording proxy in front of it keeps every request (method,
 * path, form parameters, Idempotency-Key, Stripe-Version) and forwards it unchanged.
 *
 * The binary and the beta fixtures are installed by scripts/setup.sh (`<cache>/bin/stripe-mock`,
 * `<cache>/stripe-mock/fixtures3.beta.json`); STRIPE_MOCK_PATH and STRIPE_MOCK_FIXTURES override them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cacheDir, startWatchdog } from '../../scripts/lib/servers';

/** One request the adapter sent. */
export interface StripeRequest {
  method: string;
  path: string;
  /** The form body (or query) as Stripe's bracket keys: `metadata[order_id]`. */
  params: Record<string, string>;
  idempotencyKey?: string;
  stripeVersion?: string;
  /** Status stripe-mock answered. */
  status: number;
}

/** A running stripe-mock behind its recording proxy. */
export interface StripeMock {
  /** The proxy's address: STRIPE_API_BASE. */
  url: string;
  requests: StripeRequest[];
  stop(): Promise<void>;
}

/** The stripe-mock executable: STRIPE_MOCK_PATH, else the one scripts/setup.sh builds. @throws Error when missing. */
export function stripeMockBinary(): string {
  const exe = process.env.STRIPE_MOCK_PATH || path.join(cacheDir(), 'bin', 'stripe-mock');
  if (!existsSync(exe))
    throw new Error(`stripe-mock not found at ${exe}: run scripts/setup.sh (or set STRIPE_MOCK_PATH)`);
  return exe;
}

/**
 * Starts stripe-mock (`-beta`) on a free port behind a recording proxy.
 * @param paymentIntentStatus the status of its PaymentIntent fixture: the bundled one is `requires_payment_method`
 *   (what Stripe answers a declined confirmation); `succeeded` answers as a confirmed card payment does; `processing`
 *   as a card payment Stripe has not settled yet (its outcome comes later as a `payment_intent.*` event).
 */
export async function startStripeMock(paymentIntentStatus?: 'succeeded' | 'processing'): Promise<StripeMock> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-stripe-'));
  // HTTPS on a socket in the temp folder: by default stripe-mock takes the fixed port 12112 too, and a second mock fails.
  const args = ['-beta', '-http-addr', '127.0.0.1:0', '-https-unix', path.join(dir, 'https.sock')];
  if (paymentIntentStatus) {
    const source = process.env.STRIPE_MOCK_FIXTURES || path.join(cacheDir(), 'stripe-mock', 'fixtures3.beta.json');
    const fixtures = JSON.parse(readFileSync(source, 'utf8')) as { resources: Record<string, Record<string, unknown>> };
    const pi = fixtures.resources.payment_intent;
    if (!pi) throw new Error(`${source} has no payment_intent fixture`);
    pi.status = paymentIntentStatus;
    const file = path.join(dir, 'fixtures.json');
    writeFileSync(file, JSON.stringify(fixtures));
    args.push('-fixtures', file);
  }
  const proc = spawn(stripeMockBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const watchdog = proc.pid ? startWatchdog(process.pid, proc.pid, 'SIGTERM') : undefined;
  let output = '';
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', (code, signal) => {
      exit = String(signal ?? code);
      resolve();
    }),
  );
  const mockPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stripe-mock did not listen within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = /Listening for HTTP at address: \S*:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited (${exit}) before it listened:\n${output}`));
    });
  });

  // It prints its address before the listener takes connections: wait until one is accepted.
  for (let i = 0; ; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(mockPort, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) break;
    if (i > 300 || exit !== undefined) throw new Error(`stripe-mock did not accept connections:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  const requests: StripeRequest[] = [];
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://proxy');
      const form = new URLSearchParams(req.method === 'GET' ? url.search : body.toString('utf8'));
      const header = (name: string) => (typeof req.headers[name] === 'string' ? req.headers[name] : undefined);
      const record: StripeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        params: Object.fromEntries(form.entries()),
        ...(header('idempotency-key') ? { idempotencyKey: header('idempotency-key') } : {}),
        ...(header('stripe-version') ? { stripeVersion: header('stripe-version') } : {}),
        status: 0,
      };
      requests.push(record);
      const upstream = http.request(
        { host: '127.0.0.1', port: mockPort, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          record.status = answer.statusCode ?? 0;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        res.writeHead(502);
        res.end(`${String(err)} (stripe-mock ${exit === undefined ? 'running' : `exited ${exit}`}):\n${output}`);
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      if (exit === undefined) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      try {
        if (watchdog?.pid) process.kill(watchdog.pid, 'SIGKILL');
      } catch {
        // The watchdog left by itself once the mock exited.
      }
      rmSync(dir, { recursive: true, force: true });
    })());
  return { url: `http://127.0.0.1:${port}`, requests, stop };
}
