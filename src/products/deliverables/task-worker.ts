/**
 * task-worker deliverables: the task done, not a plan for it. The task prompt goes to the text-generation port
 * (language.ts) with the number and kind of pieces it asks for ("write five e-mails" → exactly five items); the
 * reply becomes the result in the requested format (json, markdown or text), always with the JSON form beside it.
 * Facts the prompt states (links, e-mail addresses, dates, amounts, computed percentages) are listed so the buyer
 * can check the result against them.
 *
 * Source: seed §1, §2.1 (task-worker inputs: task_prompt, format optional); issue 13.
 */
import { z } from 'zod';
import { HOUSE_RULES, languageReply, languageTask, type LanguageTask } from './language';
import { WORD_NUMBERS } from './parse';
import { DeliverableError, type DeliverableContext, type DeliverableFile } from './types';
import { MEDIA_TEXT, jsonFile, lines, markdownFile, md, mdFooter, mdQuote, provenance, text, textFile } from './util';

type Format = 'json' | 'markdown' | 'text';

/** Plural nouns that name countable pieces of work. */
const PIECES = String.raw`(e-?mails?|messages?|posts?|tweets?|captions?|headlines?|titles?|taglines?|slogans?|ideas?|names?|questions?|answers?|bullet points?|bullets?|points?|tips?|steps?|paragraphs?|sentences?|descriptions?|reviews?|replies|responses?|subject lines?|variants?|versions?|options?|examples?|slides?|faqs?|items?|letters?|scripts?|hooks?|ads?|product descriptions?|blog posts?|articles?)`;

/** The number and kind of pieces the prompt asks for ("five e-mails", "3 LinkedIn posts"); null when none. */
export function requestedPieces(prompt: string): { count: number; noun: string } | null {
  const re = new RegExp(
    String.raw`\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\s+(?:[a-z0-9'’-]+\s+){0,3}?${PIECES}\b`,
    'i',
  );
  const m = re.exec(prompt);
  if (!m) return null;
  const raw = (m[1] ?? '').toLowerCase();
  const count = /^\d+$/.test(raw) ? Number(raw) : (WORD_NUMBERS[raw] ?? 0);
  if (count < 1 || count > 50) return null;
  return { count, noun: (m[2] ?? 'items').toLowerCase() };
}

function formatOf(value: string): Format {
  const v = value.toLowerCase();
  if (/(^|\b)(md|markdown)\b/.test(v)) return 'markdown';
  if (/(^|\b)(txt|text|plain)\b/.test(v)) return 'text';
  return 'json';
}

function subjectOf(prompt: string): string {
  const first = prompt.split(/(?<=[.!?])\s+|\n/)[0] ?? prompt;
  const s = first
    .replace(/^(please|could you|can you|i need you to|i want you to)\s+/i, '')
    .replace(/[.!?]+$/, '')
    .trim();
  return s.length > 140 ? `${s.slice(0, 139)}…` : s;
}

function decimalText(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

/** Everything the prompt states explicitly, for checking the result. */
function extract(prompt: string) {
  const urls = [...new Set(prompt.match(/https?:\/\/[^\s<>"')\]]+/g) ?? [])];
  const emails = [...new Set(prompt.match(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g) ?? [])];
  const dates = [...new Set(prompt.match(/\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g) ?? [])];
  const amounts = [
    ...new Set(
      prompt.match(/(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars|euros)\b)/gi) ?? [],
    ),
  ];
  const computed = [...prompt.matchAll(/(\d+(?:\.\d+)?)\s?%\s+of\s+[$€£]?\s?(\d[\d,]*(?:\.\d+)?)/gi)].map((m) => {
    const pct = Number(m[1]);
    const base = Number((m[2] ?? '0').replace(/,/g, ''));
    return { expression: m[0], result: decimalText(Math.round(((pct * base) / 100) * 1e6) / 1e6) };
  });
  return { urls, emails, dates, amounts, computed };
}

/** Fields a piece must carry besides its heading and body, from the kind asked for and the prompt's "with …". */
export function requestedFields(prompt: string, noun: string | null): string[] {
  const p = prompt.toLowerCase();
  const fields = new Set<string>();
  if (/^(e-?mails?|newsletters?)$/.test(noun ?? '') || /subject lines?/.test(p)) fields.add('subject_line');
  if (/preview text|preheader/.test(p)) fields.add('preview_text');
  if (/\bheadlines?\b/.test(p) && noun !== 'headlines') fields.add('headline');
  if (/call[- ]to[- ]action|\bctas?\b/.test(p)) fields.add('call_to_action');
  if (/hashtags?/.test(p)) fields.add('hashtags');
  return [...fields];
}

/** Fewest words a finished piece of this kind has (an e-mail of five words is not one). */
function minWords(noun: string | null): number {
  if (
    /^(e-?mails?|letters?|scripts?|product descriptions?|descriptions?|replies|responses?|reviews?)$/.test(noun ?? '')
  )
    return 25;
  if (/^(blog posts?|articles?)$/.test(noun ?? '')) return 120;
  return 1;
}

function resultSchema(count: number | null, fields: string[] = []) {
  const Piece = z.object({
    heading: z
      .string()
      .min(1)
      .max(300)
      .describe('Short heading of this piece, e.g. "E-mail 1: welcome" or a subject line'),
    body: z.string().min(1).max(20_000).describe('The finished piece itself, ready to use (Markdown allowed)'),
    ...(fields.length > 0
      ? {
          fields: z
            .object(Object.fromEntries(fields.map((f) => [f, z.string().min(1).max(2000)])))
            .describe(`The piece's ${fields.join(', ')}, each written out`),
        }
      : {}),
  });
  return z.object({
    title: z.string().min(1).max(300).describe('Title of the result'),
    pieces: (count ? z.array(Piece).length(count) : z.array(Piece).min(1).max(50)).describe(
      count
        ? `Exactly ${count} pieces, one per requested item`
        : 'The result; one piece unless the task asks for several',
    ),
    notes: z
      .array(z.string().max(500))
      .max(10)
      .describe('Assumptions made and anything the buyer must fill in or check'),
  });
}

/** Text that stands in for work: template markers, lorem ipsum, instructions to the reader, refusals. */
const PLACEHOLDER =
  /lorem ipsum|\bTODO\b|\bTBD\b|REPLACE_WITH|\[(?:insert|your|add|enter|placeholder|company|name|link|subject|date)\b[^\]]*\]|<(?:insert|your|placeholder)[^>]*>|\{\{\s*(?:insert|placeholder|content|subject|body)\s*\}\}|\b(?:goes|go) here\b|\bplaceholder\b|\bsample text\b|as an ai(?: language)? model|i (?:cannot|can't|am unable to) (?:help|do|complete|write)/i;
/** A value that begins with its own JSON path ("pieces[0].body: …"): a template filled in, not written. */
const PATH_LABEL = /^\s*[a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*\s*:/i;

const words = (t: string): string[] => t.toLowerCase().match(/[a-z0-9\u00c0-\u024f'’]+/g) ?? [];

/** Whether `text` repeats eight or more words of `prompt` in a row (or all of a shorter prompt): an echo. */
function echoes(text: string, prompt: string): boolean {
  const p = words(prompt);
  const t = ` ${words(text).join(' ')} `;
  const n = Math.min(8, p.length);
  if (n < 4) return false;
  for (let i = 0; i + n <= p.length; i += 1) if (t.includes(` ${p.slice(i, i + n).join(' ')} `)) return true;
  return false;
}

/**
 * Why a task-worker reply of the right shape is still not the work asked for (issue 38 §5): empty or placeholder
 * text, a value that is its own schema path or an echo of the prompt, pieces that repeat each other, pieces too short
 * for their kind, requested fields (subject lines, …) missing or all alike. Empty when the reply is usable.
 */
export function taskWorkerIssues(value: unknown, prompt: string): string[] {
  const pieces = requestedPieces(prompt);
  const parsed = resultSchema(pieces?.count ?? null, requestedFields(prompt, pieces?.noun ?? null)).safeParse(value);
  if (!parsed.success) return parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`);
  const issues: string[] = [];
  const { title, pieces: items } = parsed.data;
  const texts: [string, string][] = [
    ['title', title],
    ...items.flatMap((p, i): [string, string][] => [
      [`pieces[${i}].heading`, p.heading],
      [`pieces[${i}].body`, p.body],
      ...Object.entries((p as { fields?: Record<string, string> }).fields ?? {}).map(([k, v]): [string, string] => [
        `pieces[${i}].fields.${k}`,
        v,
      ]),
    ]),
  ];
  for (const [path, t] of texts) {
    if (t.trim() === '') issues.push(`${path} is empty`);
    else if (PATH_LABEL.test(t)) issues.push(`${path} starts with a schema path instead of content`);
    else if (PLACEHOLDER.test(t)) issues.push(`${path} is placeholder text (${PLACEHOLDER.exec(t)?.[0]})`);
    else if (echoes(t, prompt)) issues.push(`${path} repeats the task instead of doing it`);
  }
  const norm = (t: string): string => words(t).join(' ');
  const bodies = items.map((p) => norm(p.body));
  if (items.length > 1 && new Set(bodies).size < bodies.length)
    issues.push('some pieces repeat each other word for word');
  const least = minWords(pieces?.noun ?? null);
  items.forEach((p, i) => {
    if (words(p.body).length < least)
      issues.push(
        `pieces[${i}].body has ${words(p.body).length} words; a finished ${pieces?.noun ?? 'piece'} has ${least}+`,
      );
  });
  for (const f of requestedFields(prompt, pieces?.noun ?? null)) {
    const values = items.map((p) => norm((p as { fields?: Record<string, string> }).fields?.[f] ?? ''));
    if (items.length > 1 && new Set(values).size === 1) issues.push(`every piece has the same ${f}`);
  }
  return issues;
}

/** The task-worker's language task: do the task. Source: issue 13. */
export function taskWorkerLanguage(ctx: DeliverableContext): LanguageTask[] {
  const prompt = text(ctx.inputs, 'task_prompt', '', 8000);
  const pieces = requestedPieces(prompt);
  const fields = requestedFields(prompt, pieces?.noun ?? null);
  const format = formatOf(text(ctx.inputs, 'format', 'json', 40));
  return [
    languageTask(
      'task_result',
      true,
      `You are a capable assistant who carries out the task yourself and delivers the finished work, never a plan or an outline of how to do it. ${pieces ? `The task asks for ${pieces.count} ${pieces.noun}: deliver exactly ${pieces.count} pieces, each one complete and different from the others. ` : ''}${fields.length > 0 ? `Each piece carries its ${fields.join(', ')} in \`fields\`. ` : ''}Never answer with placeholders, template markers or the task restated. The result will be delivered as ${format === 'json' ? 'JSON' : format}. ${HOUSE_RULES}`,
      `Task:\n${prompt}`,
      resultSchema(pieces?.count ?? null, fields),
      4000,
    ),
  ].map((task) => ({ ...task, check: (value: unknown) => taskWorkerIssues(value, prompt) }));
}

/** Escapes raw HTML in model-written Markdown while keeping its Markdown. */
function safeMarkdown(body: string): string {
  return body.replace(/</g, '&lt;');
}

/**
 * Generates `task-worker-result.json` and, for markdown or text formats, `task-worker-result.md` or
 * `task-worker-result.txt`, from the model's reply in `ctx.language.task_result`.
 * @throws DeliverableError `language_missing` without a valid reply (the activity supplies it).
 * Source: seed §1, §2.1; issue 13.
 */
export function taskWorkerDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const prompt = text(ctx.inputs, 'task_prompt', 'No task prompt was given.', 8000);
  const requestedFormat = text(ctx.inputs, 'format', 'json', 40);
  const format = formatOf(requestedFormat);
  const pieces = requestedPieces(prompt);
  const reply = languageReply(
    ctx,
    'task_result',
    resultSchema(pieces?.count ?? null, requestedFields(prompt, pieces?.noun ?? null)),
  );
  if (!reply)
    throw new DeliverableError('language_missing', "task-worker needs the model's result (language task task_result)");
  // Defence in depth: a reply that slipped past the activity's checks is never delivered as completed work.
  const unusable = taskWorkerIssues(reply.value, prompt);
  if (unusable.length > 0)
    throw new DeliverableError(
      'language_unusable',
      `task-worker's result is not the work asked for: ${unusable.join('; ')}`,
    );
  const { title, pieces: items, notes } = reply.value;
  const fieldLines = (p: (typeof items)[number]): string[] =>
    Object.entries((p as { fields?: Record<string, string> }).fields ?? {}).map(
      ([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`,
    );
  const subject = subjectOf(prompt);
  const facts = extract(prompt);

  const result = {
    schema: 'agent-commerce/task-result@2',
    ...provenance(ctx),
    status: 'completed',
    format: { requested: requestedFormat, delivered: format },
    task: { prompt, subject, requested: pieces ? { count: pieces.count, kind: pieces.noun } : null },
    result: {
      title,
      items: items.map((p) => ({ heading: p.heading, body: p.body, ...('fields' in p ? { fields: p.fields } : {}) })),
      count: items.length,
    },
    notes,
    facts_from_prompt: facts,
    written_by: { model: reply.model },
  };

  const files: DeliverableFile[] = [jsonFile('task-worker-result.json', result)];
  if (format === 'markdown') {
    files.push(
      markdownFile(
        'task-worker-result.md',
        lines(
          `# ${md(title)}`,
          '',
          ...items.flatMap((p) => [
            `## ${md(p.heading)}`,
            '',
            ...fieldLines(p).map((l) => `**${md(l.split(': ')[0] ?? '')}:** ${md(l.slice(l.indexOf(': ') + 2))}  `),
            safeMarkdown(p.body.trim()),
            '',
          ]),
          notes.length ? '## Notes' : null,
          notes.length ? '' : null,
          ...notes.map((n) => `- ${md(n)}`),
          '',
          '## The task',
          '',
          mdQuote(prompt),
          facts.computed.length
            ? `\nComputed from the prompt: ${facts.computed.map((c) => `${md(c.expression)} = **${c.result}**`).join('; ')}`
            : null,
          `\nWritten by model \`${reply.model.replace(/`/g, "'")}\`.`,
          mdFooter(ctx),
        ),
      ),
    );
  } else if (format === 'text') {
    files.push(
      textFile(
        'task-worker-result.txt',
        MEDIA_TEXT,
        lines(
          title.toUpperCase(),
          '',
          ...items.flatMap((p) => [
            p.heading,
            '-'.repeat(Math.min(p.heading.length, 72)),
            ...fieldLines(p),
            p.body.trim(),
            '',
          ]),
          ...(notes.length ? ['NOTES', ...notes.map((n) => `- ${n}`), ''] : []),
          'TASK',
          prompt,
          '',
          `Order ${ctx.orderId}, issued ${ctx.issuedAt}, written by ${reply.model}`,
        ),
      ),
    );
  }
  return files;
}
