/**
 * Pure helpers for deliverable generators: input normalisation, escaping for HTML, Markdown and
 * YAML, stable ids and file builders. No I/O, no clock, no randomness.
 *
 * Source: seed §1, §2.1.
 */
import { createHash } from 'node:crypto';
import type { DeliverableContext, DeliverableFile } from './types';

export const MEDIA_JSON = 'application/json';
export const MEDIA_MARKDOWN = 'text/markdown; charset=utf-8';
export const MEDIA_HTML = 'text/html; charset=utf-8';
export const MEDIA_YAML = 'application/yaml';
export const MEDIA_TEXT = 'text/plain; charset=utf-8';

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/** Removes control characters except newline and tab, normalises line ends and Unicode form. */
function clean(value: string): string {
  return (
    value
      .normalize('NFC')
      .replace(/\r\n?/g, '\n')
      // Control characters other than tab and newline are dropped from buyer text.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .trim()
  );
}

function raw(inputs: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(inputs, key) ? inputs[key] : undefined;
}

/**
 * Multi-line text of an input (arrays joined by newlines, numbers and booleans as text); `fallback`
 * when absent or blank. At most `max` characters.
 */
export function text(inputs: Record<string, unknown>, key: string, fallback = '', max = 4000): string {
  const value = raw(inputs, key);
  let out: string;
  if (typeof value === 'string') out = clean(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out = String(value);
  else if (Array.isArray(value))
    out = value
      .map((v) => clean(String(v)))
      .filter(Boolean)
      .join('\n');
  else out = '';
  if (out === '') return fallback;
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** Single-line text of an input: like {@link text} with whitespace runs collapsed; at most `max` chars. */
export function line(inputs: Record<string, unknown>, key: string, fallback = '', max = 200): string {
  const out = text(inputs, key, '', 100_000).replace(/\s+/g, ' ').trim();
  if (out === '') return fallback;
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** Titles and abbreviations after which a full stop does not end a sentence ("Dr. Lee", "approx. 30 min"). */
const NOT_SENTENCE_END = /\b(?:dr|mr|mrs|ms|st|prof|mt|approx|incl|vs|e\.g|i\.e|no)$/i;

/**
 * Splits a list as written: new lines, semicolons and commas, except commas inside parentheses ("tickets (about
 * 12,000, since 2021)") and between digits ("12,000"). With `sentences`, a full stop ending a sentence splits too
 * ("Nail clip 15min $15. Open Tue-Sat 9am to 5pm" is two items), and new lines and semicolons only outside
 * parentheses.
 */
export function splitList(value: string, opts: { sentences?: boolean } = {}): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i] as string;
    if (ch === '(' || ch === '[') depth += 1;
    if ((ch === ')' || ch === ']') && depth > 0) depth -= 1;
    const digitComma = ch === ',' && /\d/.test(value[i - 1] ?? '') && /\d/.test(value[i + 1] ?? '');
    const lineEnd = (ch === '\n' || ch === ';') && (!opts.sentences || depth === 0);
    const sentenceEnd =
      opts.sentences === true &&
      depth === 0 &&
      (ch === '.' || ch === '!') &&
      /^\s+["'(]?[A-Z0-9]/.test(value.slice(i + 1, i + 4)) &&
      !NOT_SENTENCE_END.test(current.trim());
    if (lineEnd || sentenceEnd || (ch === ',' && depth === 0 && !digitComma)) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

/**
 * List input: an array, or a string split by {@link splitList} (and leading list
 * markers). Items are single-line, de-duplicated case-insensitively, in input order, at most `max`.
 */
export function list(inputs: Record<string, unknown>, key: string, max = 25): string[] {
  const value = raw(inputs, key);
  let items: string[];
  if (Array.isArray(value)) items = value.map((v) => String(v));
  else if (typeof value === 'string') items = splitList(value);
  else if (typeof value === 'number' || typeof value === 'boolean') items = [String(value)];
  else items = [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const v = clean(item)
      .replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 120);
    if (!v || seen.has(v.toLowerCase())) continue;
    seen.add(v.toLowerCase());
    out.push(v);
    if (out.length >= max) break;
  }
  return out;
}

/** Input keys and values with keys sorted, for embedding the inputs verbatim. */
export function sortedInputs(inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(inputs).sort()) out[key] = inputs[key];
  return out;
}

/** Lower-case haystack of several strings for keyword matching. */
export function haystack(...parts: string[]): string {
  return ` ${parts.join(' ').toLowerCase()} `;
}

/**
 * Whether any keyword occurs in the haystack. Keywords match as word prefixes ("automat" matches
 * "automation"); keywords of three characters or fewer must match a whole word ("ai", "uk").
 */
export function hasAny(hay: string, keywords: readonly string[]): boolean {
  return keywords.some((k) => {
    const word = escapeRegExp(k.toLowerCase());
    const end = k.length <= 3 ? '(?![a-z0-9])' : '';
    return new RegExp(`(?:^|[^a-z0-9])${word}${end}`).test(hay);
  });
}

export function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// Identifiers
// ---------------------------------------------------------------------------------------------

/** ASCII kebab-case slug, at most `max` chars; `fallback` if nothing remains. */
export function slug(value: string, fallback = 'item', max = 48): string {
  const s = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return s || fallback;
}

/** ASCII snake_case identifier starting with a letter, at most `max` chars. */
export function snake(value: string, fallback = 'item', max = 48): string {
  const s = slug(value, fallback, max).replace(/-/g, '_');
  return /^[a-z]/.test(s) ? s : `x_${s}`.slice(0, max);
}

/** Hex sha256 of the parts joined by NUL. */
export function sha256Hex(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex');
}

/** Hex sha256 of bytes. */
export function sha256OfBuffer(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * A stable UUID (RFC 9562 version 8, custom) derived from the parts: same parts, same UUID.
 */
export function stableUuid(...parts: string[]): string {
  const h = sha256Hex('uuid', ...parts);
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------------------------

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Escapes single-line text for inline Markdown: backslash-escapes the punctuation CommonMark could
 * read as markup (including `<`, so raw HTML never renders) and collapses newlines.
 */
export function md(value: string): string {
  return value.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>#|~&]/g, '\\$&');
}

/** Escapes a Markdown line's start so it cannot open a list, heading or thematic break. */
function mdLineStart(value: string): string {
  return value.replace(/^(\d+)([.)])/, '$1\\$2').replace(/^([-+=])/, '\\$1');
}

/** Multi-line text as a Markdown block quote, each line escaped with {@link md}. */
export function mdQuote(value: string): string {
  return value
    .split('\n')
    .map((l) => (l.trim() === '' ? '>' : `> ${mdLineStart(md(l.trim()))}`))
    .join('\n');
}

/**
 * A YAML double-quoted scalar for any string. JSON string syntax is valid YAML; line separators,
 * C1 controls and the BOM are escaped too so no YAML reader treats them as line breaks.
 */
export function yamlString(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

const FILE_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Whether a file name is flat and safe (lower-case ASCII, digits, dot, underscore, hyphen). */
export function isSafeFileName(name: string): boolean {
  return FILE_NAME.test(name) && !name.includes('..') && name.length <= 120;
}

/** A text file; a trailing newline is added when missing. */
export function textFile(name: string, mediaType: string, body: string): DeliverableFile {
  return { name, media_type: mediaType, content: Buffer.from(body.endsWith('\n') ? body : `${body}\n`, 'utf8') };
}

/** A JSON file: two-space indentation, trailing newline. */
export function jsonFile(name: string, value: unknown): DeliverableFile {
  return textFile(name, MEDIA_JSON, JSON.stringify(value, null, 2));
}

/** A Markdown file. */
export function markdownFile(name: string, body: string): DeliverableFile {
  return textFile(name, MEDIA_MARKDOWN, body);
}

/** Provenance block embedded in JSON deliverables. */
export function provenance(ctx: DeliverableContext): { order_id: string; service_id: string; issued_at: string } {
  return { order_id: ctx.orderId, service_id: ctx.serviceId, issued_at: ctx.issuedAt };
}

/** Provenance footer for Markdown deliverables. */
export function mdFooter(ctx: DeliverableContext): string {
  return `\n---\n\nOrder \`${ctx.orderId.replace(/`/g, "'")}\` · service \`${ctx.serviceId}\` · issued ${md(ctx.issuedAt)}\n`;
}

/** Joins Markdown lines, dropping `null` entries. */
export function lines(...parts: (string | null | false | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string').join('\n');
}

/** A Markdown table; cells are escaped with {@link md}. */
export function mdTable(header: string[], rows: (string | number)[][]): string {
  const cell = (v: string | number): string => md(String(v));
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** Deterministic pick of one element by hashing a key. */
export function pick<T>(items: readonly T[], key: string): T {
  const index = parseInt(sha256Hex('pick', key).slice(0, 8), 16) % items.length;
  const item = items[index];
  if (item === undefined) throw new RangeError('pick from an empty list');
  return item;
}

/** snake_case ids for names, made unique by suffixing `_2`, `_3`, ... in order. */
export function uniqueSnakes(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    const base = snake(name);
    let id = base;
    for (let n = 2; used.has(id); n += 1) id = `${base}_${n}`;
    used.add(id);
    return id;
  });
}
