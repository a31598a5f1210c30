/**
 * automation-audit deliverables: an audit report (Markdown) and machine-readable findings (JSON):
 * automation opportunities detected in the business description, pain points and tool stack, each
 * with estimated hours saved per week, effort, priority and the catalogue service that addresses it.
 * Tools are classified from the product table (products.ts): a process a tool already does (ServiceM8 schedules,
 * quotes and invoices) is marked as covered, and the finding becomes connecting that tool, not replacing it. With a
 * model configured (optional), the free-text description is also read for the processes it describes.
 *
 * Source: seed §1, §2.1 (automation-audit inputs: business_description; current_tools and
 * pain_points optional).
 */
import { z } from 'zod';
import { HOUSE_RULES, languageReply, languageTask, type LanguageTask } from './language';
import { getService } from '../../domain/catalogue';
import { findProducts, type Capability, type Product } from './products';
import type { DeliverableContext, DeliverableFile } from './types';
import {
  hasAny,
  haystack,
  jsonFile,
  list,
  lines,
  markdownFile,
  md,
  mdFooter,
  mdQuote,
  mdTable,
  provenance,
  text,
} from './util';

type Effort = 'low' | 'medium' | 'high';

interface Rule {
  id: string;
  title: string;
  keywords: string[];
  hours: number;
  effort: Effort;
  recommendation: string;
  service: string;
}

const RULES: Rule[] = [
  {
    id: 'enquiry_handling',
    title: 'Answering repeat enquiries',
    keywords: [
      'enquir',
      'inquir',
      'question',
      'faq',
      'calls',
      'phone',
      'whatsapp',
      'messages',
      'dm',
      'chat',
      'customer service',
      'support',
    ],
    hours: 8,
    effort: 'low',
    recommendation:
      'Let an AI receptionist answer common questions on chat and WhatsApp and hand over the rest with a summary.',
    service: 'ai-receptionist',
  },
  {
    id: 'scheduling',
    title: 'Manual appointment scheduling',
    keywords: [
      'booking',
      'booked',
      'appointment',
      'schedul',
      'reservation',
      'calendar',
      'no-show',
      'no show',
      'reschedul',
      'dispatch',
    ],
    hours: 6,
    effort: 'low',
    recommendation: 'Publish an online booking page with automatic confirmations and reminders.',
    service: 'website-booking',
  },
  {
    id: 'data_entry',
    title: 'Re-typing data between tools',
    keywords: [
      'data entry',
      're-key',
      'rekey',
      're-typ',
      'double entry',
      'double-entry',
      'transcrib',
      'copy',
      'paste',
      're-enter',
      'retyp',
      'manual entry',
      'manually',
      'duplicate',
      'spreadsheet',
      'excel',
      'csv',
      'export',
      'import',
    ],
    hours: 5,
    effort: 'medium',
    recommendation: 'Connect the tools with a workflow so each record is entered once.',
    service: 'automation-wf',
  },
  {
    id: 'invoicing',
    title: 'Manual invoicing and payment follow-up',
    keywords: ['invoice', 'invoicing', 'billing', 'payment', 'late pay', 'overdue', 'receivable', 'quote'],
    hours: 4,
    effort: 'medium',
    recommendation: 'Generate invoices from completed orders and send automatic payment reminders.',
    service: 'automation-wf',
  },
  {
    id: 'follow_up',
    title: 'Lead and customer follow-ups',
    keywords: [
      'follow up',
      'follow-up',
      'followup',
      'lead',
      'prospect',
      'nurtur',
      'review request',
      'reviews',
      'newsletter',
      'email marketing',
    ],
    hours: 4,
    effort: 'low',
    recommendation: 'Trigger follow-up sequences from the CRM or booking system.',
    service: 'automation-wf',
  },
  {
    id: 'reporting',
    title: 'Manual reporting',
    keywords: ['report', 'dashboard', 'kpi', 'metrics', 'weekly numbers', 'analytics', 'compil', 'figures'],
    hours: 3,
    effort: 'low',
    recommendation: 'Schedule a workflow that compiles the numbers and posts the report.',
    service: 'automation-wf',
  },
  {
    id: 'orders',
    title: 'Order processing',
    keywords: ['order', 'fulfil', 'fulfill', 'shipping', 'inventory', 'stock', 'shopify', 'woocommerce'],
    hours: 6,
    effort: 'medium',
    recommendation: 'Route new orders automatically to fulfilment, stock and accounting.',
    service: 'automation-wf',
  },
  {
    id: 'research_admin',
    title: 'Repeatable research and admin tasks',
    keywords: [
      'research',
      'admin',
      'paperwork',
      'document',
      'contracts',
      'proposal',
      'write',
      'content',
      'social media',
    ],
    hours: 4,
    effort: 'low',
    recommendation: 'Hand single, well-defined tasks to a task worker and review the results.',
    service: 'task-worker',
  },
  {
    id: 'system_integration',
    title: 'Disconnected core systems',
    keywords: ['erp', 'crm', 'netsuite', 'salesforce', 'sap', 'legacy', 'sync', 'integration', 'silo'],
    hours: 6,
    effort: 'high',
    recommendation: 'Specify and build a proper integration with idempotent sync and monitoring.',
    service: 'integration-project',
  },
  {
    id: 'agentic_workflows',
    title: 'Multi-step work suited to an AI agent',
    keywords: ['agent', 'triage', 'qualif', 'classif', 'routing', 'email inbox', 'inbox', 'tickets'],
    hours: 6,
    effort: 'high',
    recommendation: 'Build a tool-using agent with confirmation gates for side effects.',
    service: 'agent-development',
  },
  {
    id: 'physical_automation',
    title: 'Repetitive physical handling',
    keywords: [
      'robot',
      'picking',
      'packing',
      'palletiz',
      'palletis',
      'warehouse',
      'assembly',
      'machine tending',
      'conveyor',
      'welding',
    ],
    hours: 15,
    effort: 'high',
    recommendation: 'Assess a robot cell for the repetitive handling step, starting in simulation.',
    service: 'robot-control-system',
  },
];

const TOOL_CATEGORIES: { category: string; keywords: string[] }[] = [
  { category: 'crm', keywords: ['hubspot', 'salesforce', 'pipedrive', 'zoho', 'crm'] },
  { category: 'spreadsheet', keywords: ['excel', 'google sheets', 'sheets', 'airtable', 'spreadsheet'] },
  { category: 'email', keywords: ['gmail', 'outlook', 'email', 'mailchimp'] },
  { category: 'calendar', keywords: ['calendly', 'google calendar', 'calendar', 'acuity'] },
  { category: 'accounting', keywords: ['quickbooks', 'xero', 'sage', 'freshbooks', 'wave'] },
  { category: 'ecommerce', keywords: ['shopify', 'woocommerce', 'magento', 'etsy', 'amazon'] },
  { category: 'messaging', keywords: ['whatsapp', 'slack', 'teams', 'telegram', 'discord'] },
  { category: 'automation', keywords: ['zapier', 'make', 'n8n', 'integromat', 'power automate'] },
  { category: 'project', keywords: ['trello', 'asana', 'notion', 'jira', 'monday', 'clickup'] },
];

const EFFORT_WEIGHT: Record<Effort, number> = { low: 1, medium: 2, high: 3 };

/** Loaded cost of an hour of staff time when the description gives none, USD. */
export const DEFAULT_HOURLY_RATE_USD = 35;

/** Working weeks a year the hours are counted over. */
export const WORKING_WEEKS = 46;

/** One-off costs beyond the catalogue service, per finding, USD (planning estimates, stated as such). */
const EXTRA_ONE_OFF: Record<string, { item: string; usd: number }[]> = {
  physical_automation: [
    {
      item: 'collaborative robot cell: arm, gripper, safety area scanner, installation (planning estimate)',
      usd: 65_000,
    },
  ],
};

/** Running costs per month by the service that delivers the finding, USD (planning estimates). */
const RUNNING_PER_MONTH: Record<string, { item: string; usd: number }> = {
  'automation-wf': { item: 'n8n Cloud Starter or a small VM for self-hosted n8n', usd: 24 },
  'integration-project': { item: 'hosting of the integration service and its queue', usd: 40 },
  'agent-development': { item: 'model usage and tool-server hosting', usd: 60 },
  'robot-control-system': { item: 'maintenance and spares allowance', usd: 250 },
};

/** Priority from the payback: P1 within 8 weeks, P2 within 26 weeks, P3 later or never. */
export function priorityOf(paybackWeeks: number | null): 'P1' | 'P2' | 'P3' {
  return paybackWeeks !== null && paybackWeeks <= 8 ? 'P1' : paybackWeeks !== null && paybackWeeks <= 26 ? 'P2' : 'P3';
}

/** What a finding costs and returns: one-off and monthly costs, the yearly value of the hours, the payback. */
export function findingCost(
  serviceId: string,
  findingId: string,
  hoursPerWeek: number,
  hourlyRate: number,
): {
  one_off: { item: string; usd: number }[];
  one_off_usd: number;
  running_usd_per_month: number;
  running: string | null;
  value_usd_per_year: number;
  net_first_year_usd: number;
  payback_weeks: number | null;
} {
  const service = getService(serviceId);
  const monthlyService = service?.billing === 'monthly';
  const oneOff = [
    ...(service && !monthlyService ? [{ item: `${service.name} (${serviceId})`, usd: service.human_price }] : []),
    ...(EXTRA_ONE_OFF[findingId] ?? []),
  ];
  const running =
    monthlyService && service
      ? { item: `${service.name} subscription`, usd: service.human_price }
      : RUNNING_PER_MONTH[serviceId];
  const oneOffUsd = oneOff.reduce((n, c) => n + c.usd, 0);
  const runningUsd = running?.usd ?? 0;
  const valuePerWeek = hoursPerWeek * hourlyRate;
  const netPerWeek = valuePerWeek - (runningUsd * 12) / WORKING_WEEKS;
  return {
    one_off: oneOff,
    one_off_usd: oneOffUsd,
    running_usd_per_month: runningUsd,
    running: running?.item ?? null,
    value_usd_per_year: Math.round(valuePerWeek * WORKING_WEEKS),
    net_first_year_usd: Math.round(valuePerWeek * WORKING_WEEKS - oneOffUsd - runningUsd * 12),
    payback_weeks: netPerWeek > 0 ? Math.max(1, Math.ceil(oneOffUsd / netPerWeek)) : null,
  };
}

/** The hourly staff cost the text states ("$28/hour", "$40 per hour"), else null. */
export function parseHourlyRate(text: string): number | null {
  const m = /\$\s?(\d+(?:\.\d+)?)\s*(?:\/|per|an?)\s*(?:h|hr|hour)\b/i.exec(text);
  return m ? Number(m[1]) : null;
}

/** What a tool must do for a finding's process to count as already handled. */
const COVERED_BY: Record<string, Capability[]> = {
  scheduling: ['scheduling'],
  invoicing: ['invoicing', 'accounting'],
  enquiry_handling: ['live_chat', 'ticketing'],
  orders: ['ecommerce', 'shipping'],
  follow_up: ['crm', 'email_marketing'],
};

const CATEGORY_ORDER: Capability[] = [
  'practice_management',
  'job_management',
  'ecommerce',
  'shipping',
  'accounting',
  'invoicing',
  'crm',
  'ticketing',
  'live_chat',
  'scheduling',
  'calendar',
  'forms',
  'payments',
  'spreadsheet',
  'database',
  'email_marketing',
  'email',
  'messaging',
  'sms',
];

/** What each capability means to an owner, for "Cliniko already takes online bookings, sends SMS reminders, …". */
const DOES_WORDS: Partial<Record<Capability, string>> = {
  scheduling: 'takes bookings',
  dispatch: 'dispatches staff',
  quoting: 'sends quotes',
  sms: 'sends SMS reminders',
  invoicing: 'invoices',
  client_records: 'keeps client records',
  ecommerce: 'takes orders',
  shipping: 'ships orders',
  accounting: 'keeps the accounts',
  crm: 'keeps customer history',
  email_marketing: 'sends e-mail campaigns',
  live_chat: 'answers chats',
  ticketing: 'tracks support tickets',
};

/** "takes bookings, sends SMS reminders and invoices" from a product's capabilities. */
function usd(n: number): string {
  return `$${Math.round(n).toLocaleString('en-US')}`;
}

function doesInWords(caps: readonly Capability[]): string {
  const words = caps.map((c) => DOES_WORDS[c]).filter((w): w is string => Boolean(w));
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? '');
}

/** The sentences of a text ("…. …"), for quoting the one that shows a finding. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'])|\n+/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** A flow between two tools that a pain point names ("re-keys … from Jotform into Cliniko"). */
export interface NamedFlow {
  source: Product;
  target: Product;
  /** The pain point it was read from, as written. */
  pain: string;
}

/**
 * The flow a re-typing pain point names: two products of the table, the one after "from" as the source and the one
 * after "into"/"to"/"in" as the target ("from Jotform into Cliniko"; "into Cliniko from Jotform"); otherwise the
 * first named is the source. Null when fewer than two products are named.
 */
export function namedFlow(pain: string): NamedFlow | null {
  const products = findProducts(pain);
  if (products.length < 2) return null;
  const hay = pain.toLowerCase();
  const after = (words: string, p: Product): boolean =>
    p.aliases.some((a) =>
      new RegExp(String.raw`\b(?:${words})\s+(?:the\s+|our\s+)?${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(hay),
    );
  const source = products.find((p) => after('from|out of', p)) ?? products[0];
  const target =
    products.find((p) => p !== source && after('into|to|onto|in', p)) ?? products.find((p) => p !== source);
  return source && target ? { source, target, pain } : null;
}

/** The automation that replaces the re-typing of a named flow, in one sentence with the real trigger and request. */
function flowProposal(flow: NamedFlow): { text: string; trigger: string; creates: string; request: string | null } {
  const { source, target } = flow;
  const trigger = source.webhook
    ? `${source.name}'s ${source.webhook.event} webhook`
    : `a scheduled poll of ${source.name} (${source.polling ?? source.entities[0]?.endpoint ?? 'its API'})`;
  const creates = target.http
    ? `${target.name} ${target.http.kind.replace(/s$/, '')}`
    : `${target.name} record${target.polling ? ` (${target.polling})` : ''}`;
  // The table writes an account-specific host part as REPLACE_WITH_…: the audit shows it as a URI template variable.
  const request = target.http
    ? `${target.http.method} ${target.http.url.replace(/REPLACE_WITH_([A-Z0-9_]+)/g, (_m, n: string) => `{${n.toLowerCase()}}`)}`
    : null;
  return {
    text: `Automate ${source.name} → ${target.name}: an n8n workflow (automation-wf) triggered by ${trigger} that creates the ${creates}${request ? ` (\`${request}\`)` : ''}, so each record is entered once instead of re-typed.`,
    trigger,
    creates,
    request,
  };
}

const Reading = z.object({
  processes: z
    .array(
      z.object({
        name: z.string().min(1),
        how_it_is_done_today: z.string().min(1),
        tools: z.array(z.string()),
        pain: z.string(),
      }),
    )
    .min(1)
    .max(10)
    .describe('The business processes the description mentions, as the owner described them'),
});

/** Optional reading of the business description by the model. Source: issue 13. */
export function automationAuditLanguage(ctx: DeliverableContext): LanguageTask[] {
  const description = text(ctx.inputs, 'business_description', '', 4000);
  if (!description) return [];
  return [
    languageTask(
      'audit_reading',
      false,
      `You read a small business owner's description of their business and list the processes it describes (taking orders, scheduling jobs, quoting, invoicing, answering enquiries, reporting, …): how each is done today, with which tools, and what hurts. ${HOUSE_RULES}`,
      lines(
        `Description: ${description}`,
        list(ctx.inputs, 'current_tools').length ? `Tools: ${list(ctx.inputs, 'current_tools').join(', ')}` : null,
        list(ctx.inputs, 'pain_points').length ? `Pain points: ${list(ctx.inputs, 'pain_points').join('; ')}` : null,
      ),
      Reading,
      1500,
    ),
  ];
}

/**
 * Generates `automation-audit-report.md` and `automation-audit-findings.json`.
 * Source: seed §1, §2.1.
 */
export function automationAuditDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const description = text(ctx.inputs, 'business_description', 'No business description was given.', 4000);
  const tools = list(ctx.inputs, 'current_tools', 30);
  const pains = list(ctx.inputs, 'pain_points', 20);
  const descHay = haystack(description);
  const painHay = haystack(...pains);
  const toolHay = haystack(...tools);

  const descSentences = sentences(description);
  const findings = RULES.filter(
    (r) =>
      hasAny(descHay, r.keywords) ||
      hasAny(painHay, r.keywords) ||
      (r.id === 'data_entry' && hasAny(toolHay, ['excel', 'spreadsheet', 'sheets', 'csv'])),
  ).map((r) => {
    const matchedPains = pains.filter((p) => hasAny(haystack(p), r.keywords));
    const fromPain = matchedPains.length > 0;
    const hours = fromPain ? Math.round(r.hours * 1.5) : r.hours;
    // The buyer's own words are the evidence: the pain points, then the sentences of the description that match.
    const evidence = [
      ...matchedPains.map((p) => `pain point: "${p.replace(/[.!?]+$/, '')}"`),
      ...descSentences
        .filter((x) => hasAny(haystack(x), r.keywords))
        .map((x) => `business description: "${x.replace(/[.!?]+$/, '')}"`),
    ];
    const spreadsheets = tools.filter((t) => hasAny(haystack(t), ['excel', 'spreadsheet', 'sheets', 'csv']));
    const flow = r.id === 'data_entry' ? (matchedPains.map(namedFlow).find((f) => f !== null) ?? null) : null;
    const proposal = flow ? flowProposal(flow) : null;
    // A named flow whose source announces or lists records and whose target takes them over HTTP is a short workflow.
    const effort: Effort = flow && flow.target.http ? 'low' : r.effort;
    return {
      id: r.id,
      title: flow ? `${r.title}: ${flow.source.name} → ${flow.target.name}` : r.title,
      evidence: evidence.length > 0 ? evidence : [`spreadsheet tools in the stack (${spreadsheets.join(', ')})`],
      confidence: fromPain ? 'high' : 'medium',
      estimated_hours_saved_per_week: hours,
      effort,
      priority_score: Math.round((hours / EFFORT_WEIGHT[effort]) * 10) / 10,
      recommendation: proposal?.text ?? r.recommendation,
      recommended_service: r.service,
      ...(flow && proposal
        ? {
            proposed_automation: {
              source: flow.source.name,
              target: flow.target.name,
              trigger: proposal.trigger,
              creates: proposal.creates,
              request: proposal.request,
              from_pain_point: flow.pain,
              docs: [flow.source.docs, flow.target.docs],
            },
          }
        : {}),
    };
  });
  if (findings.length === 0) {
    for (const id of ['enquiry_handling', 'data_entry', 'reporting']) {
      const r = RULES.find((x) => x.id === id);
      if (!r) continue;
      findings.push({
        id: r.id,
        title: r.title,
        evidence: ['typical for businesses of this kind; not stated explicitly'],
        confidence: 'low',
        estimated_hours_saved_per_week: Math.round(r.hours / 2),
        effort: r.effort,
        priority_score: Math.round((r.hours / 2 / EFFORT_WEIGHT[r.effort]) * 10) / 10,
        recommendation: r.recommendation,
        recommended_service: r.service,
      });
    }
  }
  // Tools named in the list or in the description, classified by the product table; others by keyword.
  const named = findProducts([...tools, description, ...pains].join(' \n '));
  const toolInventory = [
    ...tools.map((t) => {
      const product = findProducts(t)[0];
      const caps = product?.capabilities ?? [];
      return {
        tool: t,
        product: product?.name ?? null,
        category:
          CATEGORY_ORDER.find((c) => caps.includes(c)) ??
          TOOL_CATEGORIES.find((c) => hasAny(haystack(t), c.keywords))?.category ??
          'other',
        does: caps,
      };
    }),
    ...named
      .filter((p) => !tools.some((t) => findProducts(t)[0]?.id === p.id))
      .map((p) => ({
        tool: p.name,
        product: p.name,
        category: CATEGORY_ORDER.find((c) => p.capabilities.includes(c)) ?? 'other',
        does: p.capabilities,
        from_description: true,
      })),
  ];
  const covering = (id: string): string[] =>
    toolInventory.filter((t) => t.does.some((c) => (COVERED_BY[id] ?? []).includes(c))).map((t) => t.product ?? t.tool);
  for (const f of findings) {
    const by = covering(f.id);
    if (by.length === 0) continue;
    // The tool already does it: the work left is connecting it to the rest, which saves less.
    Object.assign(f, {
      covered_by: by,
      title: `${f.title} (already in ${by.join(', ')})`,
      estimated_hours_saved_per_week: Math.max(1, Math.round(f.estimated_hours_saved_per_week / 2)),
      recommendation: `${by
        .map((name) => {
          const words = doesInWords(toolInventory.find((t) => (t.product ?? t.tool) === name)?.does ?? []);
          return words ? `${name} already ${words}` : `${name} already does this`;
        })
        .join(
          '; ',
        )}: keep ${by.length > 1 ? 'them' : 'it'} and connect ${by.length > 1 ? 'them' : 'it'} to the other tools (webhooks or a scheduled sync into a workflow) instead of adding a second system.`,
      recommended_service: 'automation-wf',
    });
    f.priority_score = Math.round((f.estimated_hours_saved_per_week / EFFORT_WEIGHT[f.effort]) * 10) / 10;
  }
  // A flow the buyer named in a pain point comes first (it can be built as described), then findings the pain points
  // back, then the rest; by priority within each.
  const rank = (f: (typeof findings)[number]): number =>
    'proposed_automation' in f ? 0 : f.confidence === 'high' ? 1 : 2;
  findings.sort((a, b) => rank(a) - rank(b) || b.priority_score - a.priority_score || a.id.localeCompare(b.id));
  // Costs and priority (P1-P3 by payback); the order keeps P1 before P2 before P3, the ranking above within each.
  const hourlyRate = parseHourlyRate(`${description} ${pains.join(' ')}`) ?? DEFAULT_HOURLY_RATE_USD;
  const costed = findings.map((f) => {
    const cost = findingCost(f.recommended_service, f.id, f.estimated_hours_saved_per_week, hourlyRate);
    return Object.assign(f, { cost, priority: priorityOf(cost.payback_weeks) });
  });
  costed.sort((a, b) => a.priority.localeCompare(b.priority));
  const reading = languageReply(ctx, 'audit_reading', Reading);

  const byCategory = new Map<string, string[]>();
  for (const t of toolInventory) byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t.tool]);
  const stackNotes: string[] = [];
  for (const [category, names] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    if (category !== 'other' && names.length > 1)
      stackNotes.push(`Several ${category} tools (${names.join(', ')}): consolidate on one to avoid double entry.`);
    if (category === 'job_management' || category === 'practice_management')
      for (const name of names) {
        const t = toolInventory.find((x) => x.tool === name);
        stackNotes.push(
          `${name} already ${doesInWords(t?.does ?? []) || 'runs the core process'}: build on it rather than around it.`,
        );
      }
  }
  if (
    tools.length > 0 &&
    !byCategory.has('crm') &&
    !toolInventory.some((t) => t.does.includes('crm') || t.does.includes('client_records')) &&
    findings.some((f) => f.id === 'follow_up' || f.id === 'enquiry_handling')
  )
    stackNotes.push(
      'No CRM in the stack: customer history lives in inboxes and sheets; a light CRM makes follow-ups automatable.',
    );
  if (tools.length > 1 && !byCategory.has('automation'))
    stackNotes.push('No automation platform in the stack: an n8n workflow can connect the existing tools.');

  const totalHours = findings.reduce((sum, f) => sum + f.estimated_hours_saved_per_week, 0);
  const services = [...new Set(findings.map((f) => f.recommended_service))];
  const quickWins = findings.filter((f) => f.effort === 'low');
  const later = findings.filter((f) => f.effort !== 'low');

  const data = {
    schema: 'agent-commerce/automation-audit@1',
    ...provenance(ctx),
    summary: {
      findings: findings.length,
      estimated_hours_saved_per_week: totalHours,
      estimated_hours_saved_per_year: totalHours * WORKING_WEEKS,
      hourly_rate_usd: hourlyRate,
      hourly_rate_assumed: parseHourlyRate(`${description} ${pains.join(' ')}`) === null,
      one_off_usd: costed.reduce((n, f) => n + f.cost.one_off_usd, 0),
      running_usd_per_month: costed.reduce((n, f) => n + f.cost.running_usd_per_month, 0),
      value_usd_per_year: costed.reduce((n, f) => n + f.cost.value_usd_per_year, 0),
      recommended_services: services,
    },
    findings: costed,
    tool_inventory: toolInventory,
    stack_notes: stackNotes,
    ...(reading ? { processes_described: reading.value.processes, read_by: { model: reading.model } } : {}),
    roadmap: {
      days_0_30: quickWins.map((f) => f.id),
      days_30_90: later.map((f) => f.id),
    },
    method: `Evidence quoted from the pain points and the description (keywords per process); a flow between two tools that a pain point names is proposed as the automation and ranked first, then findings the pain points back; tools classified from a table of real products (a process a tool already does is marked covered and counts half); hours are planning estimates (pain points weigh 1.5x), score = hours / effort weight (low 1, medium 2, high 3); costs are the catalogue price of the service that delivers the finding plus stated one-off and running estimates; value = hours x ${hourlyRate} USD/hour (${parseHourlyRate(`${description} ${pains.join(' ')}`) === null ? 'assumed loaded staff cost' : 'as stated'}) x ${WORKING_WEEKS} weeks; priority P1 pays back within 8 weeks, P2 within 26, P3 later.${reading ? ' The described processes were read by a language model.' : ''}`,
  };

  const report = lines(
    '# Automation audit',
    '',
    '## Business',
    '',
    mdQuote(description),
    '',
    '## Summary',
    '',
    `- ${findings.length} automation opportunities, about **${totalHours} hours per week** (${totalHours * 46} hours per year at 46 working weeks).`,
    `- Start with: ${md(costed[0]?.title ?? 'n/a')} (${costed[0]?.priority ?? 'n/a'}).`,
    `- One-off cost about ${usd(data.summary.one_off_usd)}, running ${usd(data.summary.running_usd_per_month)}/month, for staff time worth about ${usd(data.summary.value_usd_per_year)} a year at ${usd(hourlyRate)}/hour${data.summary.hourly_rate_assumed ? ' (assumed)' : ''}.`,
    `- Catalogue services that address them: ${services.map((s) => `\`${s}\``).join(', ')}.`,
    '',
    '## Findings',
    '',
    mdTable(
      [
        '#',
        'Opportunity',
        'Priority',
        'Hours/week',
        'One-off cost',
        'Running/month',
        'Value/year',
        'Payback',
        'Effort',
        'Confidence',
        'Service',
      ],
      costed.map((f, i) => [
        i + 1,
        f.title,
        f.priority,
        f.estimated_hours_saved_per_week,
        usd(f.cost.one_off_usd),
        usd(f.cost.running_usd_per_month),
        usd(f.cost.value_usd_per_year),
        f.cost.payback_weeks === null ? 'does not pay back' : `${f.cost.payback_weeks} weeks`,
        f.effort,
        f.confidence,
        f.recommended_service,
      ]),
    ),
    '',
    ...costed.flatMap((f, i) => [
      `### ${i + 1}. ${md(f.title)} (${f.priority})`,
      '',
      `Evidence: ${f.evidence.map(md).join('; ')}.`,
      '',
      `Recommendation: ${f.recommendation}`,
      '',
      `Cost: ${f.cost.one_off.map((c) => `${md(c.item)} ${usd(c.usd)}`).join(' + ') || 'none one-off'}${f.cost.running ? `; ${md(f.cost.running)} ${usd(f.cost.running_usd_per_month)}/month` : ''}. Payback: ${f.cost.payback_weeks === null ? 'does not pay back on the hours alone' : `${f.cost.payback_weeks} weeks`}.`,
      '',
    ]),
    pains.length > 0 ? '## Pain points given' : null,
    pains.length > 0 ? '' : null,
    ...pains.map((p) => `- ${md(p)}`),
    pains.length > 0 ? '' : null,
    reading ? '## Processes described' : null,
    reading ? '' : null,
    ...(reading
      ? [
          mdTable(
            ['Process', 'Done today', 'Tools', 'Pain'],
            reading.value.processes.map((p) => [p.name, p.how_it_is_done_today, p.tools.join(', '), p.pain]),
          ),
          '',
        ]
      : []),
    '## Tool stack',
    '',
    toolInventory.length > 0
      ? mdTable(
          ['Tool', 'Category', 'Already does'],
          toolInventory.map((t) => [t.tool, t.category, t.does.join(', ') || '(not in the product table)']),
        )
      : 'No tools were listed.',
    '',
    ...(stackNotes.length > 0
      ? stackNotes.map((n) => `- ${md(n)}`)
      : ['- No overlaps or gaps detected in the listed tools.']),
    '',
    '## Roadmap',
    '',
    `- Days 0-30 (low effort): ${quickWins.length ? quickWins.map((f) => md(f.title)).join('; ') : 'none'}.`,
    `- Days 30-90: ${later.length ? later.map((f) => md(f.title)).join('; ') : 'none'}.`,
    '- Measure hours spent on each process before and after, and keep only the automations that pay off.',
    '',
    '## Method and limits',
    '',
    data.method,
    'This audit covers processes and automation; it is not a security, financial or compliance audit.',
    mdFooter(ctx),
  );

  return [markdownFile('automation-audit-report.md', report), jsonFile('automation-audit-findings.json', data)];
}
