/**
 * The ten sectors the micro catalogue is written for. Each sector gives the wording of its items
 * (who the customers are, an example business, a guardrail for generated text) and the ordered
 * trigger and action apps its recipe candidates are built from.
 *
 * Source: issue 3 §3 (recipes built from trigger/action pairs with sector context), seed §2.12
 * (item field `sector`).
 */

/** A sector: wording for its items and the apps its recipes combine, most relevant first. */
export interface Sector {
  /** Identifier used in item ids and the `sector` field, snake_case. */
  key: string;
  /** Human label. */
  label: string;
  /** Who the items are built for, e.g. "online stores". */
  audience: string;
  /** What the sector calls its customers, singular. */
  customer: string;
  /** An example business name used in prompt examples. */
  business: string;
  /** What the example business offers, for prompt examples. */
  offering: string;
  /** Guardrail every generated customer-facing text in this sector must respect. */
  guardrail: string;
  /** Example values for prompt-pack examples. */
  sample: SectorSample;
  /** Trigger app keys (see recipes.ts TRIGGERS), most relevant first. */
  triggers: readonly string[];
  /** Action app keys (see recipes.ts ACTIONS), most relevant first. */
  actions: readonly string[];
}

/** Example customer data of a sector, used to render prompt examples. */
export interface SectorSample {
  /** A customer's full name. */
  person: string;
  /** A new customer's enquiry. */
  enquiry: string;
  /** An existing customer's problem. */
  issue: string;
  /** Something the sector sells or books. */
  item: string;
  /** A price with currency, e.g. "149.00 USD". */
  price: string;
}

/** The sectors, in catalogue order. */
export const SECTORS: readonly Sector[] = [
  {
    key: 'ecommerce',
    label: 'E-commerce',
    audience: 'online stores',
    customer: 'customer',
    business: 'Northwind Goods',
    offering: 'home and kitchen products shipped within 48 hours',
    guardrail: 'Never promise delivery dates, refunds or discounts that the store policy does not state.',
    sample: {
      person: 'Dana Whitfield',
      enquiry: 'Do you ship to Canada, and how long does delivery take for the stoneware set?',
      issue: 'My order #1042 arrived with a cracked casserole lid.',
      item: 'the 12-piece stoneware dinner set',
      price: '149.00 USD',
    },
    triggers: ['shopify', 'square', 'woocommerce', 'stripe', 'gumroad', 'paypal', 'typeform', 'gmail', 'webhook'],
    actions: ['slack', 'google-sheets', 'klaviyo', 'hubspot', 'mailchimp', 'airtable', 'gmail', 'trello', 'telegram', 'postgres'],
  },
  {
    key: 'saas',
    label: 'SaaS',
    audience: 'software-as-a-service teams',
    customer: 'user',
    business: 'Lumen Analytics',
    offering: 'a product analytics platform with a free trial and three paid plans',
    guardrail: 'Never share roadmap dates, security details or another customer\u2019s data.',
    sample: {
      person: 'Priya Raman',
      enquiry: 'We are a 40-person team. Does the Growth plan include SSO and an annual discount?',
      issue: 'Our dashboards have shown no data since yesterday\u2019s deploy.',
      item: 'the Growth plan (annual, 25 seats)',
      price: '4,800.00 USD',
    },
    triggers: ['stripe', 'intercom', 'chargebee', 'github', 'linear', 'jira', 'zendesk', 'typeform', 'webhook', 'help-scout'],
    actions: ['slack', 'jira', 'linear', 'hubspot', 'notion', 'discord', 'salesforce', 'postgres', 'sendgrid', 'google-sheets'],
  },
  {
    key: 'clinic',
    label: 'Clinics and practices',
    audience: 'clinics and health practices',
    customer: 'patient',
    business: 'Cedar Family Clinic',
    offering: 'general practice, vaccinations and physiotherapy appointments',
    guardrail: 'Never give medical advice or a diagnosis, and never repeat health details beyond what the patient wrote.',
    sample: {
      person: 'Tomás Ortega',
      enquiry: 'Do you have physiotherapy appointments on Saturday mornings?',
      issue: 'I was charged twice for my appointment on 3 March.',
      item: 'a 45-minute physiotherapy session',
      price: '85.00 USD',
    },
    triggers: ['calendly', 'mindbody', 'acuity', 'cal-com', 'jotform', 'n8n-form', 'typeform', 'gmail', 'google-calendar'],
    actions: ['google-sheets', 'twilio', 'airtable', 'gmail', 'google-calendar', 'slack', 'microsoft-teams', 'hubspot', 'notion', 'trello'],
  },
  {
    key: 'real_estate',
    label: 'Real estate',
    audience: 'real-estate agencies and property managers',
    customer: 'client',
    business: 'Harbor & Vine Realty',
    offering: 'residential sales, rentals and property management',
    guardrail: 'Never state a price, availability or legal term that the listing does not state.',
    sample: {
      person: 'Grace Liu',
      enquiry: 'Is the two-bedroom flat on Elm Street still available to view this week?',
      issue: 'The heating in my rented flat has not worked for three days.',
      item: 'the two-bedroom flat at 14 Elm Street',
      price: '1,650.00 USD per month',
    },
    triggers: ['facebook-lead-ads', 'zillow', 'typeform', 'n8n-form', 'calendly', 'docusign', 'gmail', 'google-sheets', 'webhook', 'jotform', 'wufoo'],
    actions: ['hubspot', 'pipedrive', 'zoho-crm', 'outlook', 'salesforce', 'google-sheets', 'twilio', 'google-calendar', 'slack', 'gmail', 'airtable', 'trello'],
  },
  {
    key: 'hospitality',
    label: 'Hospitality',
    audience: 'restaurants, hotels and venues',
    customer: 'guest',
    business: 'The Lantern House',
    offering: 'a 40-seat restaurant with private dining and weekend brunch',
    guardrail: 'Never confirm a booking, price or allergen fact that the venue has not confirmed.',
    sample: {
      person: 'Marco Bianchi',
      enquiry: 'Can we book the private dining room for 12 people on Friday the 14th?',
      issue: 'We waited 50 minutes for our mains last Saturday.',
      item: 'a tasting menu for two',
      price: '120.00 USD',
    },
    triggers: ['google-business-profile', 'opentable', 'n8n-form', 'typeform', 'eventbrite', 'stripe', 'whatsapp', 'telegram', 'gmail', 'outlook'],
    actions: ['slack', 'google-sheets', 'twilio', 'whatsapp', 'gmail', 'trello', 'airtable', 'microsoft-teams', 'notion', 'telegram'],
  },
  {
    key: 'education',
    label: 'Education',
    audience: 'schools, course creators and tutoring businesses',
    customer: 'student',
    business: 'Brightpath Tutoring',
    offering: 'online maths and language courses with live tutoring',
    guardrail: 'Never share a student\u2019s grades or personal details with anyone but the student or guardian.',
    sample: {
      person: 'Aisha Bello',
      enquiry: 'Is there a beginner Spanish course that starts in September?',
      issue: 'I cannot access the recordings of last week\u2019s live class.',
      item: 'the 10-week Algebra Foundations course',
      price: '390.00 USD',
    },
    triggers: ['n8n-form', 'teachable', 'typeform', 'wufoo', 'google-sheets', 'eventbrite', 'calendly', 'mailchimp', 'stripe', 'gmail', 'surveymonkey', 'rss'],
    actions: ['google-sheets', 'mailchimp', 'gmail', 'google-calendar', 'brevo', 'notion', 'google-tasks', 'slack', 'discord', 'airtable', 'todoist', 'telegram', 'mailerlite'],
  },
  {
    key: 'agency',
    label: 'Agencies and professional services',
    audience: 'agencies, consultancies and freelancers',
    customer: 'client',
    business: 'Fieldstone Studio',
    offering: 'brand, web and marketing projects on fixed-fee retainers',
    guardrail: 'Never commit to scope, fees or deadlines that the signed proposal does not state.',
    sample: {
      person: 'Oliver Brandt',
      enquiry: 'Could you quote a brand refresh and a five-page website for our bakery chain?',
      issue: 'The homepage banner still shows last month\u2019s campaign.',
      item: 'the brand refresh package',
      price: '7,500.00 USD',
    },
    triggers: ['typeform', 'n8n-form', 'webflow', 'calendly', 'clickup', 'asana', 'notion', 'trello', 'gmail', 'google-drive', 'invoice-ninja', 'hubspot'],
    actions: ['clickup', 'asana', 'toggl', 'slack', 'google-sheets', 'notion', 'gmail', 'hubspot', 'trello', 'quickbooks'],
  },
  {
    key: 'recruiting',
    label: 'Recruiting and HR',
    audience: 'recruiters and HR teams',
    customer: 'candidate',
    business: 'Talentbridge Partners',
    offering: 'recruitment for engineering and operations roles',
    guardrail: 'Never mention age, health, family status or any protected characteristic, and never promise an outcome.',
    sample: {
      person: 'Sofia Marin',
      enquiry: 'Are you hiring backend engineers who can work remotely from Portugal?',
      issue: 'I applied three weeks ago and have not heard anything back.',
      item: 'the Senior Backend Engineer role',
      price: 'n/a',
    },
    triggers: ['workable', 'greenhouse', 'n8n-form', 'formstack', 'airtable', 'typeform', 'gmail', 'google-drive', 'jotform', 'calendly', 'outlook', 'surveymonkey'],
    actions: ['slack', 'google-sheets', 'airtable', 'notion', 'personio', 'gmail', 'google-calendar', 'microsoft-teams', 'trello', 'asana', 'microsoft-todo', 'mattermost', 'google-tasks'],
  },
  {
    key: 'logistics',
    label: 'Logistics and delivery',
    audience: 'couriers, warehouses and delivery operations',
    customer: 'recipient',
    business: 'Swiftline Couriers',
    offering: 'same-day and next-day parcel delivery',
    guardrail: 'Never state a delivery time the carrier has not confirmed.',
    sample: {
      person: 'Kwame Mensah',
      enquiry: 'Can you collect 30 parcels a day from our warehouse in Leeds?',
      issue: 'My parcel SW-88412 has shown \u2019out for delivery\u2019 for two days.',
      item: 'next-day delivery of a 2 kg parcel',
      price: '9.50 USD',
    },
    triggers: ['onfleet', 'shipstation', 'webhook', 'postgres', 'kobotoolbox', 'shopify', 'woocommerce', 'google-sheets', 'gmail', 'telegram', 'outlook'],
    actions: ['slack', 'twilio', 'google-sheets', 'postgres', 'telegram', 'gmail', 'microsoft-teams', 'freshdesk', 'airtable', 'jira', 'mattermost', 'whatsapp'],
  },
  {
    key: 'nonprofit',
    label: 'Nonprofits',
    audience: 'charities and community organisations',
    customer: 'supporter',
    business: 'Riverbank Community Trust',
    offering: 'food support, youth programmes and volunteering',
    guardrail: 'Never misstate how donations are used and never share a supporter\u2019s details.',
    sample: {
      person: 'Helen O\u2019Connor',
      enquiry: 'Can I volunteer at the Saturday food bank with my teenage son?',
      issue: 'My monthly donation was taken twice this month.',
      item: 'a monthly gift to the food support programme',
      price: '25.00 USD',
    },
    triggers: ['stripe', 'donorbox', 'paypal', 'kobotoolbox', 'n8n-form', 'mailerlite', 'typeform', 'eventbrite', 'mailchimp', 'jotform', 'surveymonkey', 'google-sheets'],
    actions: ['mailchimp', 'action-network', 'google-sheets', 'brevo', 'airtable', 'gmail', 'slack', 'mailerlite', 'hubspot', 'salesforce', 'notion', 'twilio', 'discord'],
  },
];
