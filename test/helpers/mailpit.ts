/**
 * Mailpit for the tests that send e-mail (issue 38 §2: the booking page's owner is e-mailed): a real SMTP server,
 * whose HTTP API lists what it received. One per test file, on free ports, with its database in a temp folder.
 *
 * The binary is built by scripts/setup.sh (`<cache>/bin/mailpit`, `go install github.com/axllent/mailpit`);
 * MAILPIT_PATH overrides it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheDir, freePort, startWatchdog } from '../../scripts/lib/servers';

/** One received message as Mailpit's API lists it, with its plain-text body. */
export interface ReceivedMail {
  id: string;
  subject: string;
  to: string[];
  from: string;
  replyTo: string[];
  text: string;
}

/** A running Mailpit. */
export interface Mailpit {
  /** SMTP_URL for the service: `smtp://127.0.0.1:<port>`. */
  smtpUrl: string;
  /** Its HTTP API's base. */
  apiUrl: string;
  /** Every message received so far, oldest first, with bodies. */
  messages(): Promise<ReceivedMail[]>;
  /** Waits until `predicate` holds for some message (up to `timeoutMs`). */
  waitFor(predicate: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** The Mailpit executable: MAILPIT_PATH, else the one scripts/setup.sh builds. @throws Error when missing. */
export function mailpitBinary(): string {
  const exe = process.env.MAILPIT_PATH || path.join(cacheDir(), 'bin', 'mailpit');
  if (!existsSync(exe)) throw new Error(`Mailpit not found at ${exe}: run scripts/setup.sh (or set MAILPIT_PATH)`);
  return exe;
}

interface ListedMessage {
  ID: string;
  Subject: string;
  From: { Address: string };
  To: { Address: string }[];
  ReplyTo?: { Address: string }[];
}

/** Starts Mailpit on free SMTP and HTTP ports; resolves once its API answers. */
export async function startMailpit(): Promise<Mailpit> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-mailpit-'));
  const [smtpPort, httpPort] = [await freePort(), await freePort()];
  const proc = spawn(
    mailpitBinary(),
    [
      '--smtp',
      `127.0.0.1:${smtpPort}`,
      '--listen',
      `127.0.0.1:${httpPort}`,
      '--database',
      path.join(dir, 'mailpit.db'),
      '--disable-version-check',
      '--quiet',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const watchdog = proc.pid ? startWatchdog(process.pid, proc.pid, 'SIGTERM') : undefined;
  let output = '';
  proc.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', (code, signal) => {
      exit = String(signal ?? code);
      resolve();
    }),
  );
  const apiUrl = `http://127.0.0.1:${httpPort}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${apiUrl}/api/v1/info`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (exit !== undefined || i > 300) throw new Error(`Mailpit did not start (${exit ?? 'timeout'}):\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  async function messages(): Promise<ReceivedMail[]> {
    const list = (await (await fetch(`${apiUrl}/api/v1/messages?limit=500`)).json()) as { messages: ListedMessage[] };
    const out: ReceivedMail[] = [];
    for (const m of list.messages.reverse()) {
      const full = (await (await fetch(`${apiUrl}/api/v1/message/${m.ID}`)).json()) as { Text: string };
      out.push({
        id: m.ID,
        subject: m.Subject,
        from: m.From.Address,
        to: m.To.map((t) => t.Address),
        replyTo: (m.ReplyTo ?? []).map((t) => t.Address),
        text: full.Text,
      });
    }
    return out;
  }

  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    apiUrl,
    messages,
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await messages()).find(predicate);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no matching e-mail within ${timeoutMs} ms; received: ${JSON.stringify(await messages())}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      if (exit === undefined) proc.kill('SIGTERM');
      await exited;
      watchdog?.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
