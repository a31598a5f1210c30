/**
 * task-worker deliverables: the task result document for one task_prompt — the task's reading
 * (actions, subject, constraints), facts extracted from the prompt (URLs, e-mails, dates, amounts,
 * list items, computed percentages), a step-by-step execution plan with outputs, and acceptance
 * checks — in the requested format (json, markdown or text), always with the JSON form beside it.
 *
 * Source: seed §1, §2.1 (task-worker inputs: task_prompt, format optional).
 */
import type { DeliverableContext, DeliverableFile } from './types';
import { MEDIA_TEXT, jsonFile, lines, markdownFile, md, mdFooter, mdQuote, provenance, text, textFile } from './util';

type Format = 'json' | 'markdown' | 'text';

interface ActionRule {
  action: string;
  verbs: string[];
  steps: (subject: string) => { action: string; detail: string; output: string }[];
}

const ACTIONS: ActionRule[] = [
  {
    action: 'research',
    verbs: ['research', 'find', 'look up', 'investigate', 'identify', 'discover', 'search'],
    steps: (s) => [
      { action: 'define_scope', detail: `List the questions the research on "${s}" must answer and the sources that count as authoritative.`, output: 'question list' },
      { action: 'collect', detail: 'Gather candidate sources; keep title, publisher, date and URL for each.', output: 'source table' },
      { action: 'verify', detail: 'Cross-check every key claim against at least two independent sources; drop anything unverifiable.', output: 'verified facts' },
    ],
  },
  {
    action: 'compare',
    verbs: ['compare', 'versus', ' vs ', 'evaluate', 'benchmark', 'rank', 'choose between'],
    steps: (s) => [
      { action: 'criteria', detail: `Fix the comparison criteria and their weights for "${s}".`, output: 'weighted criteria' },
      { action: 'score', detail: 'Score each option against every criterion with a one-line justification.', output: 'scoring matrix' },
      { action: 'recommend', detail: 'Rank the options by weighted score and state the recommendation with its main trade-off.', output: 'ranking and recommendation' },
    ],
  },
  {
    action: 'summarize',
    verbs: ['summarize', 'summarise', 'summary', 'tl;dr', 'condense', 'digest', 'key points'],
    steps: (s) => [
      { action: 'read', detail: `Read the material on "${s}" completely and mark the main claims.`, output: 'annotated source' },
      { action: 'condense', detail: 'Write the key points, one sentence each, most important first.', output: 'key points' },
      { action: 'check', detail: 'Check that every point is supported by the source and nothing important is missing.', output: 'checked summary' },
    ],
  },
  {
    action: 'write',
    verbs: ['write', 'draft', 'compose', 'create a post', 'blog', 'email', 'copy', 'rewrite', 'article', 'letter', 'description'],
    steps: (s) => [
      { action: 'brief', detail: `Fix audience, tone, length and call to action for "${s}".`, output: 'writing brief' },
      { action: 'outline', detail: 'Outline the piece: hook, body sections, close.', output: 'outline' },
      { action: 'draft', detail: 'Write the draft following the outline and the constraints.', output: 'draft' },
      { action: 'edit', detail: 'Edit for clarity and length; verify names, numbers and claims.', output: 'final text' },
    ],
  },
  {
    action: 'extract',
    verbs: ['extract', 'parse', 'pull out', 'scrape', 'collect the', 'get all'],
    steps: (s) => [
      { action: 'schema', detail: `Define the fields to extract from "${s}" and their types.`, output: 'field schema' },
      { action: 'extract', detail: 'Extract every record into the schema; leave unknown fields null instead of guessing.', output: 'records' },
      { action: 'validate', detail: 'Validate types and de-duplicate records.', output: 'clean records' },
    ],
  },
  {
    action: 'translate',
    verbs: ['translate', 'translation', 'localize', 'localise'],
    steps: (s) => [
      { action: 'glossary', detail: `Fix terminology for "${s}" (names and product terms stay untranslated).`, output: 'glossary' },
      { action: 'translate', detail: 'Translate meaning, not words; keep formatting and placeholders intact.', output: 'translation' },
      { action: 'review', detail: 'Back-check numbers, names and placeholders against the source.', output: 'reviewed translation' },
    ],
  },
  {
    action: 'calculate',
    verbs: ['calculate', 'compute', 'estimate', 'how much', 'how many', 'forecast', 'total'],
    steps: (s) => [
      { action: 'inputs', detail: `List every figure and assumption the calculation of "${s}" needs.`, output: 'inputs table' },
      { action: 'compute', detail: 'Compute step by step, keeping units on every figure.', output: 'worked calculation' },
      { action: 'sanity_check', detail: 'Check orders of magnitude and edge cases; state the result with its assumptions.', output: 'result with assumptions' },
    ],
  },
  {
    action: 'plan',
    verbs: ['plan', 'roadmap', 'schedule', 'strategy', 'organize', 'organise', 'steps to', 'how to', 'checklist'],
    steps: (s) => [
      { action: 'goal', detail: `State the goal of "${s}" as a measurable outcome and a date.`, output: 'goal statement' },
      { action: 'breakdown', detail: 'Break the goal into milestones and tasks with owners and durations.', output: 'task breakdown' },
      { action: 'risks', detail: 'List the top risks and a mitigation for each.', output: 'risk list' },
    ],
  },
  {
    action: 'code',
    verbs: ['code', 'script', 'function', 'regex', 'sql', 'query', 'program', 'implement', 'debug', 'fix the bug'],
    steps: (s) => [
      { action: 'specify', detail: `Write the input/output contract and edge cases for "${s}".`, output: 'specification' },
      { action: 'implement', detail: 'Implement the smallest correct solution.', output: 'code' },
      { action: 'test', detail: 'Add tests for the normal case and each edge case.', output: 'tests' },
    ],
  },
  {
    action: 'classify',
    verbs: ['classify', 'categorize', 'categorise', 'tag', 'label', 'sort into', 'triage'],
    steps: (s) => [
      { action: 'taxonomy', detail: `Fix the categories for "${s}" with a definition and an example each.`, output: 'taxonomy' },
      { action: 'assign', detail: 'Assign each item one category with a confidence note.', output: 'labelled items' },
      { action: 'review', detail: 'Review low-confidence items and category balance.', output: 'final labels' },
    ],
  },
];

function formatOf(value: string): Format {
  const v = value.toLowerCase();
  if (/(^|\b)(md|markdown)\b/.test(v)) return 'markdown';
  if (/(^|\b)(txt|text|plain)\b/.test(v)) return 'text';
  return 'json';
}

function matchesVerb(hay: string, verb: string): boolean {
  if (verb.startsWith(' ')) return hay.includes(verb);
  return new RegExp(`(?:^|[^a-z])${verb.replace(/[.*+?^${}()|[\]\\;]/g, '\\$&')}`).test(hay);
}

function subjectOf(prompt: string): string {
  const first = prompt.split(/(?<=[.!?])\s+|\n/)[0] ?? prompt;
  const s = first.replace(/^(please|could you|can you|i need you to|i want you to)\s+/i, '').replace(/[.!?]+$/, '').trim();
  return s.length > 140 ? `${s.slice(0, 139)}…` : s;
}

function decimalText(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

/** Everything the prompt states explicitly. */
function extract(prompt: string) {
  const urls = [...new Set(prompt.match(/https?:\/\/[^\s<>"')\]]+/g) ?? [])];
  const emails = [...new Set(prompt.match(/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g) ?? [])];
  const dates = [...new Set(prompt.match(/\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g) ?? [])];
  const amounts = [...new Set(prompt.match(/(?:[$€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars|euros)\b)/gi) ?? [])];
  const quoted = [...new Set([...prompt.matchAll(/"([^"\n]{2,120})"|“([^”\n]{2,120})”/g)].map((m) => m[1] ?? m[2] ?? '').filter(Boolean))];
  const listItems = prompt
    .split('\n')
    .map((l) => /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(l)?.[1]?.trim())
    .filter((l): l is string => Boolean(l));
  const numbers = [...new Set(prompt.match(/\b\d+(?:\.\d+)?\b/g) ?? [])].slice(0, 20);
  const computed = [...prompt.matchAll(/(\d+(?:\.\d+)?)\s?%\s+of\s+[$€£]?\s?(\d[\d,]*(?:\.\d+)?)/gi)].map((m) => {
    const pct = Number(m[1]);
    const base = Number((m[2] ?? '0').replace(/,/g, ''));
    return { expression: m[0], result: decimalText(Math.round(((pct * base) / 100) * 1e6) / 1e6) };
  });
  const constraints = prompt
    .split(/(?<=[.!?])\s+|\n/)
    .map((s) => s.trim())
    .filter((s) => /\b(must|should|need to|at least|at most|no more than|maximum|minimum|only|do not|don't|avoid|within|under \d|less than|exactly)\b/i.test(s))
    .slice(0, 12);
  return { urls, emails, dates, amounts, quoted_terms: quoted, list_items: listItems, numbers, computed, constraints };
}

/**
 * Generates `task-worker-result.json` and, for markdown or text formats, `task-worker-result.md` or
 * `task-worker-result.txt`. Source: seed §1, §2.1.
 */
export function taskWorkerDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const prompt = text(ctx.inputs, 'task_prompt', 'No task prompt was given.', 8000);
  const requestedFormat = text(ctx.inputs, 'format', 'json', 40);
  const format = formatOf(requestedFormat);
  const hay = ` ${prompt.toLowerCase().replace(/\s+/g, ' ')} `;
  const matched = ACTIONS.filter((a) => a.verbs.some((v) => matchesVerb(hay, v)));
  const actions = matched.length > 0 ? matched.slice(0, 3) : [ACTIONS.find((a) => a.action === 'plan') as ActionRule];
  const subject = subjectOf(prompt);
  const facts = extract(prompt);
  const words = prompt.split(/\s+/).filter(Boolean).length;

  let n = 0;
  const plan = [
    ...actions.flatMap((a) => a.steps(subject).map((s) => ({ step: ++n, phase: a.action, ...s }))),
    { step: ++n, phase: 'deliver', action: 'package', detail: `Assemble the outputs into one ${format} document with sources and assumptions listed.`, output: `${format} document` },
  ];
  const acceptance = [
    ...facts.constraints.map((c) => `Satisfies: ${c}`),
    ...facts.urls.map((u) => `Uses or cites ${u}`),
    'Every factual claim is traceable to a source or marked as an assumption.',
    `Delivered as ${format}.`,
  ];
  const assumptions = [
    facts.dates.length === 0 ? 'No deadline or date was given; the current period is assumed.' : null,
    facts.constraints.length === 0 ? 'No explicit constraints were given; a concise, practical result is assumed.' : null,
    words < 8 ? 'The prompt is short; the most common reading of it is assumed.' : null,
  ].filter((a): a is string => a !== null);

  const result = {
    schema: 'agent-commerce/task-result@1',
    ...provenance(ctx),
    status: 'completed',
    format: { requested: requestedFormat, delivered: format },
    task: { prompt, word_count: words, subject },
    interpretation: { primary_action: actions[0]?.action ?? 'plan', secondary_actions: actions.slice(1).map((a) => a.action) },
    extracted: facts,
    plan,
    acceptance_criteria: acceptance,
    assumptions,
    limitations: ['Single task: no follow-up work, authenticated browsing or physical-world actions are included.'],
  };

  const files: DeliverableFile[] = [jsonFile('task-worker-result.json', result)];
  if (format === 'markdown') {
    files.push(
      markdownFile(
        'task-worker-result.md',
        lines(
          `# Task result: ${md(subject)}`,
          '',
          '## Task',
          '',
          mdQuote(prompt),
          '',
          `Reading: **${result.interpretation.primary_action}**${result.interpretation.secondary_actions.length ? ` (then ${result.interpretation.secondary_actions.join(', ')})` : ''}; ${words} words.`,
          '',
          '## Plan',
          '',
          ...plan.map((p) => `${p.step}. **${p.action}** (${p.phase}): ${md(p.detail)} → _${md(p.output)}_`),
          '',
          '## Facts taken from the prompt',
          '',
          facts.computed.length ? facts.computed.map((c) => `- ${md(c.expression)} = **${c.result}**`).join('\n') : null,
          facts.urls.length ? `- Links: ${facts.urls.map((u) => `<${u}>`).join(', ')}` : null,
          facts.emails.length ? `- E-mail addresses: ${facts.emails.map(md).join(', ')}` : null,
          facts.dates.length ? `- Dates: ${facts.dates.map(md).join(', ')}` : null,
          facts.amounts.length ? `- Amounts: ${facts.amounts.map(md).join(', ')}` : null,
          facts.list_items.length ? `- Listed items: ${facts.list_items.map(md).join('; ')}` : null,
          facts.quoted_terms.length ? `- Quoted terms: ${facts.quoted_terms.map(md).join('; ')}` : null,
          Object.values(facts).every((v) => v.length === 0) ? '- None beyond the text itself.' : null,
          '',
          '## Acceptance criteria',
          '',
          ...acceptance.map((a) => `- [ ] ${md(a)}`),
          '',
          '## Assumptions',
          '',
          ...(assumptions.length ? assumptions.map((a) => `- ${md(a)}`) : ['- None.']),
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
          `TASK RESULT: ${subject}`,
          '',
          'TASK',
          prompt,
          '',
          'PLAN',
          ...plan.map((p) => `${p.step}. ${p.action} (${p.phase}): ${p.detail} -> ${p.output}`),
          '',
          'COMPUTED',
          ...(facts.computed.length ? facts.computed.map((c) => `${c.expression} = ${c.result}`) : ['(none)']),
          '',
          'ACCEPTANCE CRITERIA',
          ...acceptance.map((a) => `- ${a}`),
          '',
          'ASSUMPTIONS',
          ...(assumptions.length ? assumptions.map((a) => `- ${a}`) : ['- none']),
          '',
          `Order ${ctx.orderId}, issued ${ctx.issuedAt}`,
        ),
      ),
    );
  }
  return files;
}
