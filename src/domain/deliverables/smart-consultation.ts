/**
 * smart-consultation deliverables: a consultation report (Markdown) and the matching action plan
 * (JSON), chosen from playbooks by the consultation `type` and tailored with the description and
 * the optional current/target countries.
 *
 * Source: seed §1, §2.1 (smart-consultation inputs: type, description; current_country and
 * target_country optional).
 */
import type { DeliverableContext, DeliverableFile } from './types';
import { hasAny, haystack, jsonFile, line, lines, markdownFile, md, mdFooter, mdQuote, provenance, text } from './util';

interface Phase {
  name: string;
  weeks: string;
  actions: string[];
}

interface Playbook {
  key: string;
  title: string;
  keywords: string[];
  questions: string[];
  phases: Phase[];
  risks: string[];
  documents: string[];
}

const PLAYBOOKS: Playbook[] = [
  {
    key: 'relocation',
    title: 'Relocation',
    keywords: ['reloc', 'move', 'moving', 'immigra', 'visa', 'residen', 'expat', 'nomad'],
    questions: [
      'Which residence route fits: employment, self-employment, investment, study or family?',
      'Where will tax residence be in the year of the move, and is there a tax treaty between the two countries?',
      'Which income continues from the current country and how is it taxed after the move?',
      'What health insurance is required for the residence permit?',
    ],
    phases: [
      { name: 'Decide the route', weeks: '1-2', actions: ['Short-list two residence routes and their eligibility criteria.', 'Estimate total cost: fees, insurance, housing deposit, first three months of living.'] },
      { name: 'Prepare documents', weeks: '2-6', actions: ['Order apostilled civil documents and police certificates.', 'Book the visa or permit appointment.', 'Arrange health insurance valid for the permit.'] },
      { name: 'Move and register', weeks: '6-12', actions: ['Register the address locally.', 'Open a local bank account.', 'De-register or file a departure notice in the current country where required.'] },
    ],
    risks: ['Processing times longer than planned', 'Dual tax residence in the year of the move', 'Documents older than the accepted age'],
    documents: ['Passport (validity beyond the planned stay)', 'Birth and marriage certificates, apostilled and translated', 'Proof of income or funds', 'Police clearance certificate', 'Health insurance certificate'],
  },
  {
    key: 'business_setup',
    title: 'Company formation',
    keywords: ['company', 'business setup', 'business_setup', 'incorporat', 'formation', 'startup', 'start a business', 'llc', 'gmbh', 'register'],
    questions: [
      'Which legal form limits liability at acceptable cost (sole trader vs limited company)?',
      'Do foreign owners need a licence, a local director or a registered agent?',
      'Which registrations follow incorporation: tax number, VAT/sales tax, payroll, trade licence?',
      'Which bank will open an account for this ownership structure, and how long does it take?',
    ],
    phases: [
      { name: 'Structure', weeks: '1', actions: ['Choose the legal form and the jurisdiction.', 'Draft the shareholder structure and the articles.'] },
      { name: 'Register', weeks: '2-4', actions: ['File the incorporation.', 'Obtain tax and VAT/sales-tax registrations.', 'Open the business bank account.'] },
      { name: 'Operate', weeks: '4-8', actions: ['Set up bookkeeping and invoicing.', 'Calendar the filing deadlines.', 'Put contracts and terms in place.'] },
    ],
    risks: ['Bank onboarding delays for foreign-owned companies', 'Missing a registration threshold (VAT, payroll)', 'Permanent-establishment exposure in another country'],
    documents: ['Passports of shareholders and directors', 'Proof of address', 'Business plan (often required by banks)', 'Articles of association'],
  },
  {
    key: 'market_entry',
    title: 'Market entry',
    keywords: ['market', 'expan', 'export', 'launch', 'international', 'entry', 'sell in'],
    questions: [
      'Which customer segment in the target market has the shortest path to revenue?',
      'Sell remotely, through a partner, or with a local entity?',
      'Which product, labelling, data-protection or licensing rules apply locally?',
      'What price level is viable after taxes, duties and channel margins?',
    ],
    phases: [
      { name: 'Validate', weeks: '1-4', actions: ['Interview ten target customers.', 'Map three competitors and their prices.', 'Estimate landed cost and margin.'] },
      { name: 'Pilot', weeks: '4-12', actions: ['Launch with one channel or partner.', 'Localise the offer and the checkout.', 'Track conversion and cost of acquisition.'] },
      { name: 'Scale', weeks: '12+', actions: ['Decide on a local entity once revenue justifies it.', 'Add channels that proved profitable.'] },
    ],
    risks: ['Regulatory requirements discovered late', 'Currency and payment friction', 'Underestimated customer acquisition cost'],
    documents: ['Target-market customer interviews', 'Competitor price sheet', 'Unit economics model'],
  },
  {
    key: 'automation',
    title: 'Automation and AI adoption',
    keywords: ['automat', 'ai', 'workflow', 'digital', 'software', 'tool', 'process', 'agent', 'growth', 'marketing', 'sales'],
    questions: [
      'Which recurring tasks take the most hours per week?',
      'Where does data get re-typed between tools?',
      'Which customer touchpoints go unanswered outside working hours?',
      'What would be measured to prove the automation paid off?',
    ],
    phases: [
      { name: 'Quick wins', weeks: '1-2', actions: ['Automate enquiry answering and booking.', 'Connect the form or shop to the CRM or sheet.'] },
      { name: 'Core processes', weeks: '2-6', actions: ['Automate follow-ups and reminders.', 'Automate the weekly reporting.'] },
      { name: 'Scale', weeks: '6-12', actions: ['Add AI agents for repeatable research and drafting.', 'Review metrics monthly and retire what does not pay off.'] },
    ],
    risks: ['Automating a broken process', 'Credentials and data spread across too many tools', 'No owner for the automations'],
    documents: ['List of tools and their admins', 'Process inventory with hours per week', 'Baseline metrics'],
  },
];

const GENERAL: Playbook = {
  key: 'general',
  title: 'General consultation',
  keywords: [],
  questions: ['What outcome would make this a success, and by when?', 'What constraints (budget, time, rules) are fixed?', 'What has been tried already?'],
  phases: [
    { name: 'Clarify', weeks: '1', actions: ['Write the goal as a measurable outcome.', 'List constraints and decision makers.'] },
    { name: 'Options', weeks: '1-2', actions: ['Compare three options on cost, time and risk.', 'Pick one and define the first milestone.'] },
    { name: 'Execute', weeks: '2+', actions: ['Work to the first milestone and review the result.'] },
  ],
  risks: ['Unclear success criteria', 'Decisions without an owner'],
  documents: ['Goal statement', 'Constraint list', 'Option comparison'],
};

/** Widely known facts per country (kept general on purpose): business registration and residence. */
const COUNTRY_NOTES: { names: string[]; label: string; business: string[]; residence: string[] }[] = [
  { names: ['united states', 'usa', 'us', 'america'], label: 'United States', business: ['Companies are formed at state level (e.g. LLC or C-Corp); an EIN comes from the IRS.', 'Sales tax is set by states, not federally.'], residence: ['Residence depends on the visa or green-card category; there is no general registration of address.', 'A Social Security Number is needed for work and most financial services.'] },
  { names: ['united kingdom', 'uk', 'england', 'britain', 'scotland'], label: 'United Kingdom', business: ['Companies register with Companies House; corporation tax and VAT with HMRC (VAT above the registration threshold).', 'UK GDPR applies to personal data.'], residence: ['Most work routes are points-based (e.g. Skilled Worker) and need a licensed sponsor.', 'Visa applicants usually pay the Immigration Health Surcharge.'] },
  { names: ['germany', 'deutschland'], label: 'Germany', business: ['A GmbH or UG is formed through a notary; trades are registered with the local trade office (Gewerbeanmeldung).', 'The EU GDPR applies.'], residence: ['Register your address at the local registration office (Anmeldung) shortly after moving in; the tax ID follows by post.', 'Qualified professionals often use the EU Blue Card or a skilled-worker residence permit; health insurance is mandatory.'] },
  { names: ['france'], label: 'France', business: ['Common forms are SAS and SARL, registered through the single online business portal (guichet unique).', 'The EU GDPR applies.'], residence: ['Non-EU nationals need a long-stay visa or residence permit (e.g. the talent passport for qualified profiles).'] },
  { names: ['spain', 'españa', 'espana'], label: 'Spain', business: ['Foreigners need a tax identity number (NIE); the common company form is the SL.', 'The EU GDPR applies.'], residence: ['Foreigners need an NIE and register with the town hall (empadronamiento).'] },
  { names: ['united arab emirates', 'uae', 'dubai', 'abu dhabi', 'emirates'], label: 'United Arab Emirates', business: ['Businesses choose between a mainland licence and a free-zone licence, which differ in where they may trade.', 'A federal corporate tax applies since 2023.'], residence: ['Residence visas are sponsored by an employer, a company you own, or a long-term route such as the Golden Visa; residents receive an Emirates ID.'] },
  { names: ['saudi arabia', 'ksa', 'saudi'], label: 'Saudi Arabia', business: ['Foreign owners generally need an investment licence (MISA) before commercial registration.', 'E-invoicing requirements are enforced by ZATCA.'], residence: ['Residence (iqama) is usually employer-sponsored; a premium residency route also exists.'] },
  { names: ['canada'], label: 'Canada', business: ['Incorporation is federal or provincial; GST/HST registration applies above the small-supplier threshold.', 'PIPEDA and provincial laws govern personal data.'], residence: ['Permanent residence for skilled workers is mostly through Express Entry; a Social Insurance Number is needed to work.'] },
  { names: ['egypt'], label: 'Egypt', business: ['Companies register through GAFI; tax and VAT registrations follow.'], residence: [] },
  { names: ['netherlands', 'holland'], label: 'Netherlands', business: ['Businesses register with the Chamber of Commerce (KVK); the common company form is the BV.', 'The EU GDPR applies.'], residence: ['Registering with the municipality gives you a citizen service number (BSN), needed for work, banking and health insurance.'] },
  { names: ['portugal'], label: 'Portugal', business: ['Foreigners need a tax number (NIF) for almost every step, including renting and banking.', 'The EU GDPR applies.'], residence: ['Foreigners need a tax number (NIF) for renting and banking; several national visas exist for remote workers and people with passive income.'] },
];

function countryNotes(name: string, relocation: boolean): { label: string; notes: string[] } | null {
  const n = name.toLowerCase().replace(/[^a-z ]/g, ' ').replace(/\s+/g, ' ').trim();
  if (!n) return null;
  const country = COUNTRY_NOTES.find((c) => c.names.includes(n));
  if (!country) return null;
  const notes = relocation ? country.residence : country.business;
  return notes.length > 0 ? { label: country.label, notes } : null;
}

/**
 * Generates `smart-consultation-report.md` and `smart-consultation-action-plan.json`.
 * Source: seed §1, §2.1.
 */
export function smartConsultationDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const type = line(ctx.inputs, 'type', 'general', 80);
  const description = text(ctx.inputs, 'description', 'No description was given.', 4000);
  const from = line(ctx.inputs, 'current_country', '', 60);
  const to = line(ctx.inputs, 'target_country', '', 60);
  const playbook = PLAYBOOKS.find((p) => hasAny(haystack(type), p.keywords)) ?? PLAYBOOKS.find((p) => hasAny(haystack(description), p.keywords)) ?? GENERAL;
  const relocation = playbook.key === 'relocation';
  const fromNotes = from ? countryNotes(from, relocation) : null;
  const toNotes = to ? countryNotes(to, relocation) : null;
  const crossBorder = Boolean(from && to && from.toLowerCase() !== to.toLowerCase());

  const recommendations = [
    `Treat this as a ${playbook.title.toLowerCase()} question and follow the ${playbook.phases.length}-phase plan below.`,
    crossBorder ? `Confirm the tax-residence and treaty position between ${from} and ${to} before committing to dates.` : null,
    ...playbook.phases.map((p) => `${p.name}: ${p.actions[0] ?? ''}`),
    'Get written confirmation from a licensed professional for any legal or tax step.',
  ].filter((r): r is string => r !== null);

  const countrySection = [fromNotes, toNotes]
    .filter((c): c is { label: string; notes: string[] } => c !== null)
    .flatMap((c) => [`**${c.label}**`, '', ...c.notes.map((n) => `- ${n}`), '']);

  const report = lines(
    `# Consultation report: ${md(playbook.title)}`,
    '',
    `Requested type: ${md(type)}${from ? ` · current country: ${md(from)}` : ''}${to ? ` · target country: ${md(to)}` : ''}`,
    '',
    '## Your situation',
    '',
    mdQuote(description),
    '',
    '## Summary',
    '',
    ...recommendations.map((r) => `- ${md(r)}`),
    '',
    '## Questions to settle first',
    '',
    ...playbook.questions.map((q, i) => `${i + 1}. ${q}`),
    '',
    '## Plan',
    '',
    ...playbook.phases.flatMap((p, i) => [`### Phase ${i + 1}: ${p.name} (weeks ${p.weeks})`, '', ...p.actions.map((a) => `- [ ] ${a}`), '']),
    crossBorder || countrySection.length > 0 ? '## Country notes' : null,
    crossBorder || countrySection.length > 0 ? '' : null,
    ...countrySection,
    crossBorder && countrySection.length === 0 ? `No preset notes for ${md(from)} or ${md(to)}: check company, tax and data-protection registration rules with the official government portals of both countries.\n` : null,
    '## Risks to watch',
    '',
    ...playbook.risks.map((r) => `- ${r}`),
    '',
    '## Documents to prepare',
    '',
    ...playbook.documents.map((d) => `- [ ] ${d}`),
    '',
    '## Scope',
    '',
    'This is an automated written consultation. It is not legal, tax or immigration advice and does not represent you before any authority.',
    mdFooter(ctx),
  );

  const plan = {
    schema: 'agent-commerce/consultation-plan@1',
    ...provenance(ctx),
    consultation_type: { requested: type, playbook: playbook.key },
    countries: { current: from || null, target: to || null, cross_border: crossBorder },
    recommendations,
    key_questions: playbook.questions,
    phases: playbook.phases.map((p, i) => ({ order: i + 1, name: p.name, weeks: p.weeks, actions: p.actions.map((a) => ({ task: a, done: false })) })),
    risks: playbook.risks,
    documents: playbook.documents,
    country_notes: [fromNotes, toNotes].filter((c) => c !== null),
  };

  return [markdownFile('smart-consultation-report.md', report), jsonFile('smart-consultation-action-plan.json', plan)];
}
