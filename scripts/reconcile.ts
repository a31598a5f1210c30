/**
 * `npm run reconcile`: asks a running stack to reconcile its books now (issue 24 §3) through
 * `POST /api/v1/operator/reconciliation`, prints the report and exits 1 when it is not `ok` (a discrepancy is left),
 * 2 when the API refused or could not be reached.
 *
 * Options: `--no-repair` (report only), `--grace <seconds>` (in-flight allowance), `--last` (print the last stored
 * report instead of running one), `--json` (the report only, as JSON).
 * Environment: API_URL (default http://127.0.0.1:3000), OPERATOR_KEY (default: DATA_DIR/operator-key, else the key file
 * of the running `npm start` or `npm run start:cluster`, scripts/lib/operatorKey.ts).
 */
import type { ReconciliationReport } from '../src/domain/reconciliation';
import { localOperatorKey } from './lib/operatorKey';

const api = (process.env.API_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');

/** Parses the command line. @throws Error on an unknown option or a bad `--grace`. */
function parseArgs(argv: string[]): { repair: boolean; graceSeconds?: number; last: boolean; json: boolean } {
  const out: { repair: boolean; graceSeconds?: number; last: boolean; json: boolean } = {
    repair: true,
    last: false,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--no-repair') out.repair = false;
    else if (a === '--last') out.last = true;
    else if (a === '--json') out.json = true;
    else if (a === '--grace') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) throw new Error('--grace takes a whole number of seconds');
      out.graceSeconds = n;
    } else throw new Error(`unknown option ${a}; options: --no-repair, --grace <seconds>, --last, --json`);
  }
  return out;
}

const usd = (micros: number): string => `${(micros / 1_000_000).toFixed(6)} USD`;

/** A few lines for a person: what was checked, repaired and found. */
function summary(r: ReconciliationReport): string {
  const lines = [
    `books ${r.ok ? 'OK' : `NOT OK: ${r.discrepancy_count} discrepanc${r.discrepancy_count === 1 ? 'y' : 'ies'}`}` +
      ` (${r.started_at} → ${r.finished_at}, repairs ${r.repair ? 'on' : 'off'}, grace ${r.grace_seconds} s)`,
    `checked: ${r.checked.wallets} wallets, ${r.checked.debits} order debits, ${r.checked.x402_settlements} x402 settlements, ${r.checked.commissions} commissions, ${r.checked.orders} open orders`,
    `totals: balances ${usd(r.totals.balances_micros)} = credits ${usd(r.totals.credits_micros)} − debits ${usd(r.totals.debits_micros)}; refunds due ${usd(r.totals.refunds_due_micros)} (${r.refunds_due.length})`,
    ...r.repaired.map((x) => `repaired ${x.kind}${x.order_id ? ` ${x.order_id}` : ''}: ${x.action}`),
    ...r.discrepancies.map(
      (d) =>
        `DISCREPANCY ${d.kind}${d.order_id ? ` ${d.order_id}` : ''}${d.agent_id ? ` (${d.agent_id})` : ''}: ${d.detail}`,
    ),
    ...r.refunds_due.map((d) => `refund due ${d.order_id}: ${usd(d.amount_micros)} on ${d.rail} (${d.reason})`),
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const key = await localOperatorKey(api);
  if (!key) {
    console.error('No operator key: set OPERATOR_KEY or run npm start first (it writes .data/operator-key)');
    return 2;
  }
  const url = `${api}/api/v1/operator/reconciliation`;
  const res = args.last
    ? await fetch(url, { headers: { authorization: `Bearer ${key}` } })
    : await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          repair: args.repair,
          ...(args.graceSeconds !== undefined ? { grace_seconds: args.graceSeconds } : {}),
        }),
      });
  const text = await res.text();
  if (res.status !== 200) {
    console.error(`${res.status} from ${url}: ${text}`);
    return 2;
  }
  const report = JSON.parse(text) as ReconciliationReport;
  console.log(args.json ? JSON.stringify(report, null, 2) : `${summary(report)}\n\n${JSON.stringify(report, null, 2)}`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
