/**
 * Dead citations in the documentation (issue 27 §4): every relative link in README.md and every .md under docs/ points to a file
 * that exists and, when it names a `#fragment`, to a heading of that file (GitHub's anchor of the heading text); and
 * the README stays one page (≤ 200 lines), the rest living in docs/ by reader.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

/** The README's length limit, in lines. */
const README_MAX_LINES = 200;

/** The documents checked, relative to the repository root. */
function documents(): string[] {
  const docs = (readdirSync(path.join(root, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => path.join('docs', f));
  return ['README.md', ...docs];
}

/** The lines of `text` outside fenced code blocks (``` or ~~~), each with its 1-based line number. */
function proseLines(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence === undefined) out.push({ line, n: i + 1 });
  });
  return out;
}

/** `line` with its inline code spans blanked, so that a link written as code is not a link. */
const withoutCode = (line: string): string => line.replace(/(`+)[^`]*?\1/g, (m) => 'x'.repeat(m.length));

/**
 * GitHub's anchor of a heading: lower case, inline code and link syntax reduced to their text, every character but
 * letters, digits, marks, spaces, `-` and `_` dropped, spaces turned into `-`.
 */
function anchorOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, with GitHub's `-1`, `-2` … for repeated ones. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of proseLines(readFileSync(file, 'utf8'))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = anchorOf(m[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a Markdown file (inline links and images, and reference definitions), with their lines. */
function linksOf(file: string): { target: string; n: number }[] {
  const out: { target: string; n: number }[] = [];
  for (const { line, n } of proseLines(readFileSync(file, 'utf8'))) {
    const prose = withoutCode(line);
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      out.push({ target: m[1] as string, n });
    }
    const ref = /^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?/.exec(prose);
    if (ref) out.push({ target: ref[1] as string, n });
  }
  return out;
}

/** Why `target`, linked from `from`, is dead; undefined when it resolves. */
function deadReason(from: string, target: string): string | undefined {
  const [rawPath = '', fragment] = target.split('#', 2);
  const file =
    rawPath === '' ? path.join(root, from) : path.resolve(path.dirname(path.join(root, from)), decodeURI(rawPath));
  if (!existsSync(file)) return 'no such file';
  if (fragment === undefined || fragment === '' || !file.endsWith('.md') || statSync(file).isDirectory())
    return undefined;
  return anchorsOf(file).has(decodeURIComponent(fragment).toLowerCase()) ? undefined : 'no such heading';
}

/** Relative links only: a scheme (`https:`, `mailto:`) or a protocol-relative `//` is someone else's address. */
const isRelative = (target: string): boolean => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//');

describe('documentation links', () => {
  test('anchors are computed as GitHub computes them', () => {
    expect(anchorOf('Signed quotes and receipts')).toBe('signed-quotes-and-receipts');
    expect(anchorOf('Signed offers and receipts (`offer-receipt`)')).toBe('signed-offers-and-receipts-offer-receipt');
    expect(anchorOf('The flow (issue 3 §1, §2)')).toBe('the-flow-issue-3-1-2');
    expect(anchorOf('2026-11-26: API memory (≤ 150 MB)')).toBe('2026-11-26-api-memory--150-mb');
    expect(anchorOf('`GET /api/v1/discover`')).toBe('get-apiv1discover');
  });

  test('every relative link in README.md and docs/*.md reaches an existing file and heading', () => {
    const files = documents();
    expect(files.length).toBeGreaterThan(10);
    let checked = 0;
    const dead: string[] = [];
    for (const file of files) {
      for (const { target, n } of linksOf(path.join(root, file)).filter((l) => isRelative(l.target))) {
        checked += 1;
        const reason = deadReason(file, target);
        if (reason) dead.push(`${file}:${n} ${target} (${reason})`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(dead).toEqual([]);
  });

  test(`README.md is one page: at most ${README_MAX_LINES} lines`, () => {
    const text = readFileSync(path.join(root, 'README.md'), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });
});
