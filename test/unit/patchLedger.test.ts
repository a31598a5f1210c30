/**
 * The patch ledger (docs/patches.md) lists exactly the `patched()` ids the workflows use: a new id without a ledger
 * row (what it changed, when it may go) fails here, and so does a row whose id no workflow uses any more.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** Patch ids in workflow code: literal arguments of `patched(` / `has(` and string constants passed to them. */
function idsInWorkflows(): Set<string> {
  const ids = new Set<string>();
  const dir = path.join(root, 'workflows');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const constants = new Map<string, string>();
    for (const m of text.matchAll(/const ([A-Z_]+) = '([a-z0-9-]+)';/g)) constants.set(m[1] as string, m[2] as string);
    for (const m of text.matchAll(/\b(?:patched|has)\)?\(\s*(?:'([a-z0-9-]+)'|([A-Z_]+))\s*\)/g)) {
      const id = m[1] ?? constants.get(m[2] as string);
      if (id) ids.add(id);
    }
  }
  return ids;
}

/** Ids in the ledger's table (first column, in backticks). */
function idsInLedger(): Set<string> {
  const text = readFileSync(path.join(root, 'docs', 'patches.md'), 'utf8');
  return new Set([...text.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1] as string));
}

test('every patch id in workflows/ has a ledger row, and every ledger row is used', () => {
  const code = idsInWorkflows();
  expect(code.size).toBeGreaterThanOrEqual(11);
  expect([...code].sort()).toEqual([...idsInLedger()].sort());
});
