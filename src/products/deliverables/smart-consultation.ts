/**
 * smart-consultation deliverables: a written consultation that answers what the description asks. The questions
 * are read from the description (its own questions, and the topics it raises: a subsidiary, hiring, visas, tax,
 * banking, pricing, funding, marketing, bookings, automation…), and the text-generation port (language.ts) answers
 * each one, with recommendations, a phased plan and risks. Country facts kept here are given to the model as
 * material and shown in the report.
 *
 * Source: seed §1, §2.1 (smart-consultation inputs: type, description; current_country and
 * target_country optional); issue 13.
 */
import { z } from 'zod';
import { HOUSE_RULES, languageReply, languageTask, type LanguageTask } from './language';
import { DeliverableError, type DeliverableContext, type DeliverableFile } from './types';
import { hasAny, haystack, jsonFile, line, lines, markdownFile, md, mdFooter, mdQuote, provenance, text } from './util';

/** Topics a description raises, each with the question it implies. */
const TOPICS: { key: string; keywords: string[]; question: (c: Ctx) => string }[] = [
  {
    key: 'subsidiary',
    keywords: ['subsidiar', 'branch office', 'entity in', 'second entity', 'holding', 'parent company', 'local entity'],
    question: (c) =>
      `How should the subsidiary${c.to ? ` in ${c.to}` : ''} be set up and run alongside the existing company${c.from ? ` in ${c.from}` : ''} (legal form, ownership, directors, intercompany agreements)?`,
  },
  {
    key: 'hiring',
    keywords: ['hire', 'hiring', 'recruit', 'employ', 'staff', 'first employee', 'contractor', 'payroll', 'headcount'],
    question: (c) =>
      `How should the hiring be done${c.to ? ` in ${c.to}` : ''}: employ directly, use an employer of record, or contract, and what payroll and contract obligations follow?`,
  },
  {
    key: 'immigration',
    keywords: [
      'visa',
      'residen',
      'reloc',
      'immigra',
      'work permit',
      'golden visa',
      'move to',
      'moving to',
      'expat',
      'nomad',
    ],
    question: (c) => `Which visa or residence route fits${c.to ? ` for ${c.to}` : ''}, and what does it require?`,
  },
  {
    key: 'company_formation',
    keywords: [
      'incorporat',
      'company formation',
      'form a company',
      'register a company',
      'set up a company',
      'start a business',
      'llc',
      'gmbh',
      'ltd',
    ],
    question: (c) => `Which company form and registrations fit${c.to ? ` in ${c.to}` : ''}, in what order?`,
  },
  {
    key: 'tax',
    keywords: ['tax', 'vat', 'sales tax', 'transfer pricing', 'permanent establishment', 'double tax'],
    question: () =>
      'What are the tax consequences (corporate tax, VAT/sales tax, permanent establishment, transfer pricing) and what must be registered?',
  },
  {
    key: 'banking',
    keywords: ['bank account', 'banking', 'open an account', 'payment provider'],
    question: () => 'How can the business bank account be opened, and what do banks ask for?',
  },
  {
    key: 'pricing',
    keywords: ['pricing', 'price', 'charge', 'rates', 'margin'],
    question: () => 'How should the pricing be set and tested?',
  },
  {
    key: 'funding',
    keywords: ['funding', 'investor', 'raise', 'loan', 'grant', 'cash flow', 'runway'],
    question: () => 'Which funding options fit, and what should be prepared for them?',
  },
  {
    key: 'marketing',
    keywords: ['marketing', 'customers', 'leads', 'clients', 'visibility', 'seo', 'advertis', 'social media', 'grow'],
    question: () => 'How should the business win its first (or more) customers, with which channels first?',
  },
  {
    key: 'bookings',
    keywords: ['booking', 'appointment', 'no-show', 'calendar', 'reservation', 'enquir', 'inquir'],
    question: () => 'How should bookings and enquiries be taken and followed up so fewer are lost?',
  },
  {
    key: 'automation',
    keywords: ['automat', 'workflow', 'manual process', 'by hand', 'spreadsheet', 'crm', 'repetitive'],
    question: () => 'Which tasks should be automated first, with which tools, and what does it save?',
  },
];

interface Ctx {
  from: string;
  to: string;
}

/** The questions a consultation must answer: the description's own questions, then the topics it raises. */
export function consultationQuestions(
  type: string,
  description: string,
  from: string,
  to: string,
): { questions: string[]; topics: string[] } {
  const own = (description.match(/[^.!?\n]*\?/g) ?? [])
    .map((q) => q.trim())
    .filter((q) => q.length > 8)
    .slice(0, 6);
  const hay = haystack(`${type} ${description}`);
  const topics = TOPICS.filter((t) => hasAny(hay, t.keywords));
  // A topic the buyer already asked about in their own words needs no second question.
  const derived = topics
    .filter((t) => !own.some((o) => hasAny(haystack(o), t.keywords)))
    .map((t) => t.question({ from, to }));
  const questions = [...own, ...derived].slice(0, 6);
  if (questions.length === 0)
    questions.push(
      `What should be done about this, and in what order: ${description.replace(/\s+/g, ' ').slice(0, 200)}`,
    );
  return { questions, topics: topics.map((t) => t.key) };
}

/** Widely known facts per country (kept general on purpose): business registration and residence. */
const COUNTRY_NOTES: { names: string[]; label: string; business: string[]; residence: string[] }[] = [
  {
    names: ['united states', 'usa', 'us', 'america'],
    label: 'United States',
    business: [
      'Companies are formed at state level (e.g. LLC or C-Corp); an EIN comes from the IRS.',
      'Sales tax is set by states, not federally.',
    ],
    residence: [
      'Residence depends on the visa or green-card category; there is no general registration of address.',
      'A Social Security Number is needed for work and most financial services.',
    ],
  },
  {
    names: ['united kingdom', 'uk', 'england', 'britain', 'scotland'],
    label: 'United Kingdom',
    business: [
      'Companies register with Companies House; corporation tax and VAT with HMRC (VAT above the registration threshold).',
      'UK GDPR applies to personal data.',
    ],
    residence: [
      'Most work routes are points-based (e.g. Skilled Worker) and need a licensed sponsor.',
      'Visa applicants usually pay the Immigration Health Surcharge.',
    ],
  },
  {
    names: ['germany', 'deutschland'],
    label: 'Germany',
    business: [
      'A GmbH or UG is formed through a notary; trades are registered with the local trade office (Gewerbeanmeldung).',
      'The EU GDPR applies.',
    ],
    residence: [
      'Register your address at the local registration office (Anmeldung) shortly after moving in; the tax ID follows by post.',
      'Qualified professionals often use the EU Blue Card or a skilled-worker residence permit; health insurance is mandatory.',
    ],
  },
  {
    names: ['france'],
    label: 'France',
    business: [
      'Common forms are SAS and SARL, registered through the single online business portal (guichet unique).',
      'The EU GDPR applies.',
    ],
    residence: [
      'Non-EU nationals need a long-stay visa or residence permit (e.g. the talent passport for qualified profiles).',
    ],
  },
  {
    names: ['spain', 'españa', 'espana'],
    label: 'Spain',
    business: [
      'Foreigners need a tax identity number (NIE); the common company form is the SL.',
      'The EU GDPR applies.',
    ],
    residence: ['Foreigners need an NIE and register with the town hall (empadronamiento).'],
  },
  {
    names: ['united arab emirates', 'uae', 'dubai', 'abu dhabi', 'emirates'],
    label: 'United Arab Emirates',
    business: [
      'Businesses choose between a mainland licence and a free-zone licence, which differ in where they may trade.',
      'A federal corporate tax applies since 2023.',
    ],
    residence: [
      'Residence visas are sponsored by an employer, a company you own, or a long-term route such as the Golden Visa; residents receive an Emirates ID.',
    ],
  },
  {
    names: ['saudi arabia', 'ksa', 'saudi'],
    label: 'Saudi Arabia',
    business: [
      'Foreign owners generally need an investment licence (MISA) before commercial registration.',
      'E-invoicing requirements are enforced by ZATCA.',
    ],
    residence: ['Residence (iqama) is usually employer-sponsored; a premium residency route also exists.'],
  },
  {
    names: ['canada'],
    label: 'Canada',
    business: [
      'Incorporation is federal or provincial; GST/HST registration applies above the small-supplier threshold.',
      'PIPEDA and provincial laws govern personal data.',
    ],
    residence: [
      'Permanent residence for skilled workers is mostly through Express Entry; a Social Insurance Number is needed to work.',
    ],
  },
  {
    names: ['egypt'],
    label: 'Egypt',
    business: ['Companies register through GAFI; tax and VAT registrations follow.'],
    residence: [],
  },
  {
    names: ['netherlands', 'holland'],
    label: 'Netherlands',
    business: [
      'Businesses register with the Chamber of Commerce (KVK); the common company form is the BV.',
      'The EU GDPR applies.',
    ],
    residence: [
      'Registering with the municipality gives you a citizen service number (BSN), needed for work, banking and health insurance.',
    ],
  },
  {
    names: ['portugal'],
    label: 'Portugal',
    business: [
      'Foreigners need a tax number (NIF) for almost every step, including renting and banking.',
      'The EU GDPR applies.',
    ],
    residence: [
      'Foreigners need a tax number (NIF) for renting and banking; several national visas exist for remote workers and people with passive income.',
    ],
  },
];

function countryNotes(name: string, relocation: boolean): { label: string; notes: string[] } | null {
  const n = name
    .toLowerCase()
    .replace(/[^a-z ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!n) return null;
  const country = COUNTRY_NOTES.find((c) => c.names.includes(n));
  if (!country) return null;
  const notes = relocation ? country.residence : country.business;
  return notes.length > 0 ? { label: country.label, notes } : null;
}

function replySchema(questions: number) {
  return z.object({
    summary: z.string().min(1).max(3000).describe('Three to five sentences: the situation and the answer in short'),
    answers: z
      .array(
        z.object({
          question: z.string().min(1),
          answer: z.string().min(1).max(6000).describe('A direct, specific answer'),
          key_points: z.array(z.string()).max(8),
        }),
      )
      .length(questions)
      .describe('One answer per question, in the order given'),
    recommendations: z
      .array(z.object({ title: z.string().min(1), why: z.string().min(1), first_step: z.string().min(1) }))
      .min(3)
      .max(8),
    action_plan: z
      .array(
        z.object({
          phase: z.string().min(1),
          timeframe: z.string().min(1),
          actions: z.array(z.string().min(1)).min(1).max(8),
        }),
      )
      .min(2)
      .max(6),
    risks: z.array(z.string().min(1)).min(1).max(8),
    check_with_professional: z
      .array(z.string())
      .max(8)
      .describe('Points a licensed lawyer, accountant or immigration adviser must confirm'),
  });
}

function readInputs(ctx: DeliverableContext) {
  const type = line(ctx.inputs, 'type', 'general', 80);
  const description = text(ctx.inputs, 'description', 'No description was given.', 4000);
  const from = line(ctx.inputs, 'current_country', '', 60);
  const to = line(ctx.inputs, 'target_country', '', 60);
  const relocation = hasAny(haystack(`${type} ${description}`), [
    'visa',
    'reloc',
    'immigra',
    'residen',
    'move to',
    'moving to',
  ]);
  const notes = [from ? countryNotes(from, relocation) : null, to ? countryNotes(to, relocation) : null].filter(
    (c): c is { label: string; notes: string[] } => c !== null,
  );
  return { type, description, from, to, notes, ...consultationQuestions(type, description, from, to) };
}

/** The consultation's language task: answer the questions. Source: issue 13. */
export function smartConsultationLanguage(ctx: DeliverableContext): LanguageTask[] {
  const i = readInputs(ctx);
  const prompt = lines(
    `Consultation type: ${i.type}`,
    i.from ? `Current country: ${i.from}` : null,
    i.to ? `Target country: ${i.to}` : null,
    '',
    'Description from the client:',
    i.description,
    '',
    'Questions to answer, in this order:',
    ...i.questions.map((q, n) => `${n + 1}. ${q}`),
    i.notes.length ? '\nCountry facts you may rely on:' : null,
    ...i.notes.flatMap((c) => c.notes.map((n) => `- ${c.label}: ${n}`)),
  );
  return [
    languageTask(
      'consultation',
      true,
      `You are an experienced business consultant writing a concise written consultation. Answer every question specifically for this client's situation (their business, countries and goals as described), not generically. Give concrete next steps with realistic timeframes. You do not give legal, tax or immigration advice: say which points a licensed professional must confirm. ${HOUSE_RULES}`,
      prompt,
      replySchema(i.questions.length),
      4000,
    ),
  ];
}

/**
 * Generates `smart-consultation-report.md` and `smart-consultation-action-plan.json` from the model's reply in
 * `ctx.language.consultation`.
 * @throws DeliverableError `language_missing` without a valid reply.
 * Source: seed §1, §2.1; issue 13.
 */
export function smartConsultationDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const i = readInputs(ctx);
  const reply = languageReply(ctx, 'consultation', replySchema(i.questions.length));
  if (!reply)
    throw new DeliverableError(
      'language_missing',
      "smart-consultation needs the model's answers (language task consultation)",
    );
  const r = reply.value;
  const crossBorder = Boolean(i.from && i.to && i.from.toLowerCase() !== i.to.toLowerCase());
  const report = lines(
    `# Consultation: ${md(i.type)}`,
    '',
    [i.from ? `Current country: ${md(i.from)}` : null, i.to ? `target country: ${md(i.to)}` : null]
      .filter(Boolean)
      .join(' · ') || null,
    '',
    '## Your situation',
    '',
    mdQuote(i.description),
    '',
    '## In short',
    '',
    md(r.summary),
    '',
    '## Your questions',
    '',
    ...i.questions.flatMap((q, n) => {
      const a = r.answers[n];
      return [
        `### ${n + 1}. ${md(q)}`,
        '',
        md(a?.answer ?? ''),
        '',
        ...(a?.key_points ?? []).map((p) => `- ${md(p)}`),
        '',
      ];
    }),
    '## Recommendations',
    '',
    ...r.recommendations.map((x, n) => `${n + 1}. **${md(x.title)}**: ${md(x.why)} First step: ${md(x.first_step)}`),
    '',
    '## Plan',
    '',
    ...r.action_plan.flatMap((p, n) => [
      `### Phase ${n + 1}: ${md(p.phase)} (${md(p.timeframe)})`,
      '',
      ...p.actions.map((a) => `- [ ] ${md(a)}`),
      '',
    ]),
    i.notes.length ? '## Country notes' : null,
    i.notes.length ? '' : null,
    ...i.notes.flatMap((c) => [`**${c.label}**`, '', ...c.notes.map((n) => `- ${n}`), '']),
    '## Risks to watch',
    '',
    ...r.risks.map((x) => `- ${md(x)}`),
    '',
    r.check_with_professional.length ? '## Confirm with a licensed professional' : null,
    r.check_with_professional.length ? '' : null,
    ...r.check_with_professional.map((x) => `- ${md(x)}`),
    '',
    '## Scope',
    '',
    `This is an automated written consultation (written by model \`${reply.model.replace(/`/g, "'")}\`). It is not legal, tax or immigration advice and does not represent you before any authority.`,
    mdFooter(ctx),
  );

  const plan = {
    schema: 'agent-commerce/consultation-plan@2',
    ...provenance(ctx),
    consultation_type: i.type,
    topics: i.topics,
    countries: { current: i.from || null, target: i.to || null, cross_border: crossBorder },
    questions: i.questions.map((q, n) => ({
      question: q,
      answer: r.answers[n]?.answer ?? '',
      key_points: r.answers[n]?.key_points ?? [],
    })),
    summary: r.summary,
    recommendations: r.recommendations,
    phases: r.action_plan.map((p, n) => ({
      order: n + 1,
      name: p.phase,
      timeframe: p.timeframe,
      actions: p.actions.map((a) => ({ task: a, done: false })),
    })),
    risks: r.risks,
    check_with_professional: r.check_with_professional,
    country_notes: i.notes,
    written_by: { model: reply.model },
  };

  return [markdownFile('smart-consultation-report.md', report), jsonFile('smart-consultation-action-plan.json', plan)];
}
