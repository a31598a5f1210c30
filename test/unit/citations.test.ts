/**
 * Citations in the code lead somewhere a reader of the repository can open (issue 27 §4): every `issue N` is listed in
 * docs/decisions/README.md with the decision records that answer it (and each listed record exists), and every
 * `seed §N` is a row of docs/api.md's "The interface specification, section by section". References to other
 * projects' issues are written with the project's name (`x402 issue 451`, `sdk-java#1903`) and are not ours.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** Tracked source files that may carry citations: code, scripts, configuration. */
function sourceFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mjs|sh|ya?ml|cfg)$|Dockerfile$/.test(f) && !f.startsWith('dist/'));
  return files.filter((f) => existsSync(path.join(root, f)));
}

/** A word before `issue N` that names another project's tracker (`x402 issue 451`, `typescript-sdk issue 1943`). */
const FOREIGN = /(?:x402|sdk|sdk-java|typescript-sdk|temporal|ferretdb|documentdb|node|github)$/i;

/** The places (`file:line`) of each citation `pattern` finds, by its first group; `skip` drops a match. */
function citations(pattern: RegExp, skip: (m: RegExpMatchArray) => boolean = () => false): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(pattern)) {
          if (skip(m)) continue;
          const key = m[1] ?? '';
          found.set(key, [...(found.get(key) ?? []), `${file}:${i + 1}`]);
        }
      });
  }
  return found;
}

/** `issue N` citations per issue number, ours only (the word before is not another project's tracker). */
const issueCitations = (): Map<string, string[]> =>
  citations(/(?:^|\s)issues?\s+(\d+)\b/gi, (m) => FOREIGN.test(m.input?.slice(0, m.index).trimEnd() ?? ''));

/** `seed §N` citations (N like `2.13`). */
const seedCitations = (): Map<string, string[]> => citations(/seed\s+§\s?(\d+(?:\.\d+)*)/g);

/** Issue number -> record files, from the "Issues cited in the code" table of docs/decisions/README.md. */
function decisionIndex(): Map<number, string[]> {
  const text = readFileSync(path.join(root, 'docs', 'decisions', 'README.md'), 'utf8');
  const section = text.split('## Issues cited in the code')[1] ?? '';
  const index = new Map<number, string[]>();
  for (const m of section.matchAll(/^\| (\d+) \|[^|]*\|([^|]*)\|$/gm)) {
    index.set(
      Number(m[1]),
      [...(m[2] ?? '').matchAll(/\]\(([^)]+)\)/g)].map((l) => l[1] ?? ''),
    );
  }
  return index;
}

/** The `§` keys of docs/api.md's section table. */
function seedSections(): Set<string> {
  const text = readFileSync(path.join(root, 'docs', 'api.md'), 'utf8');
  const section = text.split('## The interface specification, section by section')[1] ?? '';
  return new Set([...section.matchAll(/^\| (\d+(?:\.\d+)*) \|/gm)].map((m) => m[1] ?? ''));
}

test('every `issue N` cited in the code is indexed in docs/decisions/ with records that exist', () => {
  const index = decisionIndex();
  const citations = issueCitations();
  expect(citations.size).toBeGreaterThan(10);
  const dead = [...citations]
    .filter(([n]) => !index.has(Number(n)))
    .map(([n, where]) => `issue ${n} (${where.length}×, e.g. ${where[0]})`);
  expect(dead).toEqual([]);
  const missingRecords = [...index.values()].flat().filter((f) => !existsSync(path.join(root, 'docs', 'decisions', f)));
  expect(missingRecords).toEqual([]);
  // Every record listed answers at least one cited issue; an index row without records would cite nothing.
  expect([...index].filter(([, files]) => files.length === 0)).toEqual([]);
});

test('every `seed §N` cited in the code has its row in docs/api.md', () => {
  const sections = seedSections();
  const citations = seedCitations();
  expect(citations.size).toBeGreaterThan(5);
  const dead = [...citations]
    .filter(([key]) => !sections.has(key))
    .map(([key, where]) => `seed §${key} (${where.length}×, e.g. ${where[0]})`);
  expect(dead).toEqual([]);
});
