/**
 * Build B of the `deploy` drill (issue 26 §2): workflows/details.ts with one real workflow change, for the drill only.
 * The drill's build B bundles the production workflows with every `./details` import of workflows/ replaced by this
 * module (`deployDrillBundle` in scripts/drills/deploy.ts); production code and its patch ledger are untouched
 * (test/unit/patchLedger.test.ts scans workflows/ only).
 *
 * The change: an order entering its review window names the build in the timer's summary, behind
 * `patched(DEPLOY_DRILL_PATCH)`. An order that reaches its review window on build B records the patch marker (two
 * history events: the marker and the `TemporalChangeVersion` upsert) that build A's code does not know: such a run
 * cannot replay on A any more, which is what a rollback must take care of (docs/deploys.md). An order that entered its
 * review window on A replays that step on B without the marker (`patched` is false there), so it keeps running on B.
 */
import { patched } from '@temporalio/workflow';
import { orderSummaries as original } from '../../../workflows/details';

export * from '../../../workflows/details';

/** The drill's patch id (not in docs/patches.md: it never ships). Visibility: `TemporalChangeVersion = '<id>'`. */
export const DEPLOY_DRILL_PATCH = 'deploy-drill-review-summary';

/** workflows/details.ts `orderSummaries`, the review window's summary changed behind {@link DEPLOY_DRILL_PATCH}. */
export const orderSummaries = {
  ...original,
  reviewWindow: (iso: string): string =>
    patched(DEPLOY_DRILL_PATCH) ? `${original.reviewWindow(iso)} (deploy drill build B)` : original.reviewWindow(iso),
};
