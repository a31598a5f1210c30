/**
 * `npm run drill -- <name> [options]`: failure drills against a stack of separate processes started for the drill
 * (scripts/drills/lib.ts; never the ports of `npm start`). Each prints its figures and exits non-zero on a lost,
 * stuck or double-charged order (issue 14).
 *
 *   server-kill   [--down-seconds N]  Temporal alone, then the database alone, killed and restarted under load
 *   two-of-each   [--orders N]        two APIs and two workers on the same servers
 *   stack-kill    [--load-seconds N] [--batch N]  every process SIGKILLed at once with orders in every state, restarted
 *   soak          [--minutes N] [--rate N] [--apis N] [--workers N]  mixed traffic for a long time; RSS must stay flat
 *   chaos         [--seed N] [--cycles N] [--orders-per-cycle N]  seeded random SIGKILLs (one server or the whole
 *                 stack) under mixed traffic from clients that never retry; every order final, the books balanced
 *   duplicate-updates [--orders N] [--cache N] [--parallel N]  two concurrent confirm_payment per order on a small
 *                 workflow cache, then every history replayed and the books checked
 *   pay-kill      [--rail wallet|x402|link|mixed] [--orders N] [--kill-after-ms N] [--deadline-seconds N]
 *                 [--bound-seconds N]  one payment per client on the rail, never retried, the whole stack SIGKILLed
 *                 meanwhile; every charge delivered or given back, the books audited
 *   acp-kill      [--sessions N] [--platforms N] [--kills N] [--seed S]  ACP completes (clients that never retry,
 *                 two at once, retrying) while the API and/or worker are SIGKILLed at seeded moments; each session
 *                 charged at most once, every charge delivered or given back, the books audited (issue 37)
 *   deploy        [--cluster] [--orders N]  a worker build with a changed workflow deployed blue-green under expert
 *                 orders, subscriptions, per-task orders and orders in review (Worker Versioning), then rolled back;
 *                 every order on the right build, no workflow task failed, the books audited (issue 26 §2)
 *
 *   n8n                               the delivered n8n workflows (Typeform and Shopify → HubSpot, store-pack's orders
 *                                     and signed bookings → Sheets) imported and executed in a real n8n (cached
 *                                     outside the repository) against fake apps: fields, upserts, signatures, error
 *                                     branch (issue 38 §3)
 *
 * Common options: --keep (keep the data folder and logs; a failed run always keeps them).
 */
import * as acpKill from './drills/acpKill';
import * as chaos from './drills/chaos';
import * as deploy from './drills/deploy';
import * as duplicateUpdates from './drills/duplicateUpdates';
import * as payKill from './drills/payKill';
import * as serverKill from './drills/serverKill';
import * as soak from './drills/soak';
import * as stackKill from './drills/stackKill';
import * as twoOfEach from './drills/twoOfEach';
import * as model from './drills/model';
import * as n8n from './drills/n8n';

const DRILLS: Record<string, { run(args: Map<string, string>): Promise<void> }> = {
  'server-kill': serverKill,
  'two-of-each': twoOfEach,
  'stack-kill': stackKill,
  soak,
  chaos,
  'duplicate-updates': duplicateUpdates,
  'pay-kill': payKill,
  'acp-kill': acpKill,
  deploy,
  model,
  n8n,
};

/** `--name value` and bare `--flag` pairs. */
function parseArgs(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(a.slice(2), next);
      i++;
    } else out.set(a.slice(2), 'true');
  }
  return out;
}

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const drill = name ? DRILLS[name] : undefined;
  if (!drill) {
    console.error(`usage: npm run drill -- <${Object.keys(DRILLS).join(' | ')}> [options]`);
    process.exit(2);
  }
  await drill.run(parseArgs(rest));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
