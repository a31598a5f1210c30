/**
 * Business entities the schema and tool items describe: twenty records that the ten sectors pass
 * between systems (orders, tickets, appointments, …), each with typed fields and two example
 * records. Schemas (JSON Schema 2020-12) and tools (MCP tool definitions) are generated from these.
 *
 * Source: issue 3 §3 (schemas and tools are real goods, valid in their own formats).
 */

/** A JSON Schema fragment (2020-12 keywords). */
export type JsonSchema = { [keyword: string]: unknown };

/** One field of an entity. */
export interface FieldDef {
  name: string;
  description: string;
  /** The field's JSON Schema (type and constraints). */
  schema: JsonSchema;
  /** Required in records (and in create requests unless `server`). */
  required: boolean;
  /** Assigned by the system of record: present in records, absent from create requests. */
  server?: boolean;
  /** Two example values, one per example record; they must validate against `schema`. */
  examples: readonly [unknown, unknown];
}

/** A business entity. */
export interface EntityDef {
  /** snake_case key, e.g. `support_ticket`. */
  key: string;
  /** Human title, e.g. "Support ticket". */
  title: string;
  sector: string;
  description: string;
  /** Prefix of record ids, e.g. `tkt` for `tkt_8f2k1c9d`. */
  idPrefix: string;
  /** n8n trigger node type that typically produces records of this entity. */
  source: string;
  /** n8n action node type of the system that typically stores or acts on them. */
  store: string;
  fields: FieldDef[];
}

/** "a" or "an" followed by the noun ("an order", "a lead"). */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

// ---------------------------------------------------------------------------------------------
// Field helpers
// ---------------------------------------------------------------------------------------------

type Opts = { required?: boolean; server?: boolean };

function f(
  name: string,
  description: string,
  schema: JsonSchema,
  examples: readonly [unknown, unknown],
  opts: Opts = {},
): FieldDef {
  return {
    name,
    description,
    schema,
    required: opts.required ?? false,
    ...(opts.server ? { server: true } : {}),
    examples,
  };
}
const req: Opts = { required: true };
const text = (maxLength: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength });
const email: JsonSchema = { type: 'string', format: 'email', maxLength: 254 };
const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const date: JsonSchema = { type: 'string', format: 'date' };
const uri: JsonSchema = { type: 'string', format: 'uri', maxLength: 2048 };
const phone: JsonSchema = { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164 phone number.' };
/** A decimal amount as a string with exactly two decimals, e.g. "149.00" (no binary floats for money). */
const money: JsonSchema = { type: 'string', pattern: '^(0|[1-9][0-9]{0,11})\\.[0-9]{2}$' };
const currency: JsonSchema = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' };
const country: JsonSchema = { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code.' };
const oneOf = (...values: string[]): JsonSchema => ({ type: 'string', enum: values });
const int = (minimum: number, maximum: number): JsonSchema => ({ type: 'integer', minimum, maximum });
const bool: JsonSchema = { type: 'boolean' };
const strings = (minItems: number, maxItems: number, item: JsonSchema = text(100)): JsonSchema => ({
  type: 'array',
  items: item,
  minItems,
  maxItems,
  uniqueItems: true,
});

/** The id and timestamps every record carries. */
function recordFields(prefix: string, ids: readonly [string, string], created: readonly [string, string]): FieldDef[] {
  return [
    f(
      'id',
      'Identifier assigned by the system of record.',
      { type: 'string', pattern: `^${prefix}_[a-z0-9]{8,32}$` },
      [`${prefix}_${ids[0]}`, `${prefix}_${ids[1]}`],
      { required: true, server: true },
    ),
    f('created_at', 'When the record was created (RFC 3339).', dateTime, created, { required: true, server: true }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------

/** The twenty entities, in catalogue order. */
export const ENTITIES: readonly EntityDef[] = [
  {
    key: 'order',
    title: 'Order',
    sector: 'ecommerce',
    idPrefix: 'ord',
    description: 'A customer order placed in an online store.',
    source: 'n8n-nodes-base.shopifyTrigger',
    store: 'n8n-nodes-base.shopify',
    fields: [
      ...recordFields('ord', ['8f2k1c9d', 'q7m3x0b2'], ['2026-03-02T10:15:00Z', '2026-03-02T18:40:12Z']),
      f(
        'order_number',
        'Order number shown to the customer.',
        { type: 'string', pattern: '^#?[0-9]{3,10}$' },
        ['#1042', '#1043'],
        req,
      ),
      f('customer_email', 'Customer e-mail address.', email, ['dana.whitfield@example.com', 'li.wei@example.org'], req),
      f('customer_name', 'Customer full name.', text(120), ['Dana Whitfield', 'Li Wei']),
      f(
        'status',
        'Order status.',
        oneOf('pending', 'paid', 'fulfilled', 'cancelled', 'refunded'),
        ['paid', 'fulfilled'],
        req,
      ),
      f('currency', 'Currency of the amounts.', currency, ['USD', 'EUR'], req),
      f('total', 'Order total including tax and shipping.', money, ['149.00', '38.50'], req),
      f(
        'items',
        'Ordered lines.',
        {
          type: 'array',
          minItems: 1,
          maxItems: 200,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['sku', 'quantity', 'unit_price'],
            properties: {
              sku: { type: 'string', pattern: '^[A-Z0-9-]{3,32}$' },
              quantity: int(1, 999),
              unit_price: money,
            },
          },
        },
        [
          [{ sku: 'STW-12-SET', quantity: 1, unit_price: '149.00' }],
          [
            { sku: 'MUG-GRN', quantity: 2, unit_price: '14.25' },
            { sku: 'SHIP-STD', quantity: 1, unit_price: '10.00' },
          ],
        ],
        req,
      ),
      f('shipping_country', 'Destination country.', country, ['CA', 'DE']),
    ],
  },
  {
    key: 'product',
    title: 'Product',
    sector: 'ecommerce',
    idPrefix: 'prd',
    description: 'A product in a store catalogue.',
    source: 'n8n-nodes-base.wooCommerceTrigger',
    store: 'n8n-nodes-base.wooCommerce',
    fields: [
      ...recordFields('prd', ['a1b2c3d4', 'e5f6g7h8'], ['2026-01-10T09:00:00Z', '2026-02-21T14:30:00Z']),
      f('sku', 'Stock keeping unit.', { type: 'string', pattern: '^[A-Z0-9-]{3,32}$' }, ['STW-12-SET', 'MUG-GRN'], req),
      f('title', 'Product title.', text(200), ['Stoneware dinner set, 12 pieces', 'Glazed mug, green'], req),
      f('price', 'Unit price.', money, ['149.00', '14.25'], req),
      f('currency', 'Currency of the price.', currency, ['USD', 'USD'], req),
      f('inventory_quantity', 'Units in stock.', int(0, 1_000_000), [24, 310]),
      f('status', 'Publication status.', oneOf('active', 'draft', 'archived'), ['active', 'draft'], req),
      f('tags', 'Catalogue tags.', strings(0, 20, text(40)), [['kitchen', 'stoneware'], ['mugs']]),
      f('url', 'Public product page.', uri, [
        'https://shop.example.com/products/stoneware-set',
        'https://shop.example.com/products/mug-green',
      ]),
    ],
  },
  {
    key: 'return_request',
    title: 'Return request',
    sector: 'ecommerce',
    idPrefix: 'ret',
    description: 'A customer\u2019s request to return items of an order.',
    source: 'n8n-nodes-base.formTrigger',
    store: 'n8n-nodes-base.airtable',
    fields: [
      ...recordFields('ret', ['k2j4h6g8', 'm1n3b5v7'], ['2026-03-05T08:12:00Z', '2026-03-06T16:45:30Z']),
      f(
        'order_number',
        'Order the items come from.',
        { type: 'string', pattern: '^#?[0-9]{3,10}$' },
        ['#1042', '#0987'],
        req,
      ),
      f(
        'customer_email',
        'Customer e-mail address.',
        email,
        ['dana.whitfield@example.com', 'sam.okafor@example.net'],
        req,
      ),
      f(
        'reason',
        'Why the items are returned.',
        oneOf('damaged', 'wrong_item', 'not_as_described', 'no_longer_needed', 'other'),
        ['damaged', 'no_longer_needed'],
        req,
      ),
      f(
        'skus',
        'SKUs being returned.',
        strings(1, 50, { type: 'string', pattern: '^[A-Z0-9-]{3,32}$' }),
        [['STW-12-SET'], ['MUG-GRN', 'MUG-BLU']],
        req,
      ),
      f(
        'refund_method',
        'How the customer wants to be refunded.',
        oneOf('original_payment', 'store_credit', 'exchange'),
        ['exchange', 'original_payment'],
      ),
      f(
        'status',
        'Processing status.',
        oneOf('requested', 'approved', 'received', 'refunded', 'rejected'),
        ['requested', 'approved'],
        req,
      ),
      f('notes', 'Customer notes.', text(2000), [
        'The lid arrived cracked; the box was dented.',
        'Bought two by mistake.',
      ]),
    ],
  },
  {
    key: 'subscription',
    title: 'Subscription',
    sector: 'saas',
    idPrefix: 'sub',
    description: 'A customer\u2019s subscription to a software plan.',
    source: 'n8n-nodes-base.chargebeeTrigger',
    store: 'n8n-nodes-base.chargebee',
    fields: [
      ...recordFields('sub', ['z9y8x7w6', 'v5u4t3s2'], ['2026-02-01T00:00:00Z', '2026-02-15T12:00:00Z']),
      f('customer_email', 'Billing contact.', email, ['priya@lumen-customer.example', 'ops@acme.example'], req),
      f('plan', 'Plan name.', oneOf('starter', 'growth', 'scale'), ['growth', 'starter'], req),
      f('billing_interval', 'Billing interval.', oneOf('month', 'year'), ['year', 'month'], req),
      f('seats', 'Licensed seats.', int(1, 10_000), [25, 3], req),
      f(
        'status',
        'Subscription status.',
        oneOf('trialing', 'active', 'past_due', 'canceled'),
        ['active', 'trialing'],
        req,
      ),
      f('current_period_end', 'End of the current billing period.', dateTime, [
        '2027-02-01T00:00:00Z',
        '2026-03-15T12:00:00Z',
      ]),
      f('mrr', 'Monthly recurring revenue.', money, ['400.00', '0.00']),
      f('currency', 'Currency of the revenue.', currency, ['USD', 'USD'], req),
    ],
  },
  {
    key: 'support_ticket',
    title: 'Support ticket',
    sector: 'saas',
    idPrefix: 'tkt',
    description: 'A customer support request.',
    source: 'n8n-nodes-base.zendeskTrigger',
    store: 'n8n-nodes-base.zendesk',
    fields: [
      ...recordFields('tkt', ['p0o9i8u7', 'y6t5r4e3'], ['2026-03-03T07:05:00Z', '2026-03-03T11:27:44Z']),
      f('requester_email', 'Who asked.', email, ['priya@lumen-customer.example', 'dev@acme.example'], req),
      f(
        'subject',
        'One-line subject.',
        text(200),
        ['Dashboards empty since deploy', 'How do I rotate an API key?'],
        req,
      ),
      f(
        'description',
        'The request as written.',
        text(10_000),
        [
          'Our dashboards have shown no data since yesterday\u2019s deploy.',
          'Where can I rotate our API key without downtime?',
        ],
        req,
      ),
      f('priority', 'Priority.', oneOf('low', 'normal', 'high', 'urgent'), ['urgent', 'normal'], req),
      f('status', 'Status.', oneOf('new', 'open', 'pending', 'solved', 'closed'), ['new', 'open'], req),
      f('channel', 'Where the ticket came from.', oneOf('email', 'chat', 'web', 'phone'), ['email', 'chat']),
      f('tags', 'Triage tags.', strings(0, 20, text(40)), [['outage', 'dashboards'], ['api-keys']]),
    ],
  },
  {
    key: 'lead',
    title: 'Lead',
    sector: 'saas',
    idPrefix: 'led',
    description: 'A prospective customer captured by a form, ad or event.',
    source: 'n8n-nodes-base.facebookLeadAdsTrigger',
    store: 'n8n-nodes-base.hubspot',
    fields: [
      ...recordFields('led', ['l1e2a3d4', 'l5e6a7d8'], ['2026-03-01T13:00:00Z', '2026-03-04T09:30:00Z']),
      f('email', 'Work e-mail.', email, ['priya@lumen-customer.example', 'jon@northwind.example'], req),
      f('full_name', 'Full name.', text(120), ['Priya Raman', 'Jon Eriksen']),
      f('company', 'Company name.', text(200), ['Raman Logistics', 'Northwind']),
      f('job_title', 'Job title.', text(120), ['Head of Operations', 'CTO']),
      f(
        'source',
        'Where the lead came from.',
        oneOf('website', 'webinar', 'referral', 'paid_ads', 'event', 'other'),
        ['paid_ads', 'webinar'],
        req,
      ),
      f('interest', 'What they asked about.', text(1000), [
        'Growth plan with SSO for 40 users',
        'API limits on the Scale plan',
      ]),
      f('consent_marketing', 'Whether the lead opted in to marketing e-mail.', bool, [true, false], req),
      f('score', 'Qualification score.', int(0, 100), [72, 35]),
    ],
  },
  {
    key: 'appointment',
    title: 'Appointment',
    sector: 'clinic',
    idPrefix: 'apt',
    description: 'A booked appointment at a clinic or practice (administrative data only).',
    source: 'n8n-nodes-base.calendlyTrigger',
    store: 'n8n-nodes-base.googleCalendar',
    fields: [
      ...recordFields('apt', ['c4l3n2d1', 'b9o8o7k6'], ['2026-03-01T17:20:00Z', '2026-03-02T08:05:00Z']),
      f('patient_name', 'Patient full name.', text(120), ['Tom\u00e1s Ortega', 'Ada Nwosu'], req),
      f('patient_email', 'Patient e-mail.', email, ['tomas.ortega@example.com', 'ada.nwosu@example.org']),
      f('patient_phone', 'Patient mobile.', phone, ['+447700900123', '+14155550142']),
      f(
        'service',
        'Booked service.',
        oneOf('general_consultation', 'vaccination', 'physiotherapy', 'follow_up'),
        ['physiotherapy', 'vaccination'],
        req,
      ),
      f(
        'starts_at',
        'Start time (RFC 3339 with offset).',
        dateTime,
        ['2026-03-07T09:30:00+00:00', '2026-03-09T14:00:00-08:00'],
        req,
      ),
      f('duration_minutes', 'Length in minutes.', int(5, 240), [45, 15], req),
      f('clinician', 'Assigned clinician.', text(120), ['Dr. Hannah Price', 'Nurse Ali Demir']),
      f(
        'status',
        'Status.',
        oneOf('booked', 'confirmed', 'cancelled', 'no_show', 'completed'),
        ['confirmed', 'booked'],
        req,
      ),
      f('admin_notes', 'Administrative notes only; never clinical details.', text(500), [
        'Prefers ground-floor room.',
        'Needs an interpreter (Spanish).',
      ]),
    ],
  },
  {
    key: 'patient_intake',
    title: 'Patient intake',
    sector: 'clinic',
    idPrefix: 'pin',
    description: 'A new patient\u2019s registration form (contact and consent data).',
    source: 'n8n-nodes-base.jotFormTrigger',
    store: 'n8n-nodes-base.airtable',
    fields: [
      ...recordFields('pin', ['r3g1s7r8', 'n3wp4t13'], ['2026-02-27T15:00:00Z', '2026-03-03T10:10:10Z']),
      f('full_name', 'Patient full name.', text(120), ['Tom\u00e1s Ortega', 'Ada Nwosu'], req),
      f('date_of_birth', 'Date of birth.', date, ['1987-11-04', '1993-06-21'], req),
      f('email', 'E-mail.', email, ['tomas.ortega@example.com', 'ada.nwosu@example.org']),
      f('phone', 'Mobile.', phone, ['+447700900123', '+14155550142']),
      f(
        'preferred_contact',
        'How the patient wants to be contacted.',
        oneOf('email', 'phone', 'sms'),
        ['sms', 'email'],
        req,
      ),
      f('insurance_provider', 'Insurer, if any.', text(120), ['Bupa', 'Kaiser Permanente']),
      f(
        'reason_for_visit',
        'Reason in the patient\u2019s words (handle as health data).',
        text(500),
        ['Lower back pain after running.', 'Travel vaccinations.'],
        req,
      ),
      f(
        'consent_privacy_notice',
        'The patient accepted the privacy notice.',
        { type: 'boolean', const: true },
        [true, true],
        req,
      ),
    ],
  },
  {
    key: 'property_listing',
    title: 'Property listing',
    sector: 'real_estate',
    idPrefix: 'lst',
    description: 'A property offered for sale or rent.',
    source: 'n8n-nodes-base.googleSheetsTrigger',
    store: 'n8n-nodes-base.airtable',
    fields: [
      ...recordFields('lst', ['e1m2s3t4', 'o5a6k7s8'], ['2026-02-10T09:00:00Z', '2026-02-18T12:00:00Z']),
      f('address_line', 'Street address.', text(200), ['14 Elm Street, Flat 2', '7 Oak Avenue'], req),
      f('city', 'City.', text(100), ['Bristol', 'Portland'], req),
      f('postal_code', 'Postal code.', text(12), ['BS1 4DJ', '97205']),
      f('country', 'Country.', country, ['GB', 'US'], req),
      f('listing_type', 'Sale or rent.', oneOf('sale', 'rent'), ['rent', 'sale'], req),
      f('price', 'Asking price (rent: per month).', money, ['1650.00', '489000.00'], req),
      f('currency', 'Currency of the price.', currency, ['GBP', 'USD'], req),
      f('bedrooms', 'Bedrooms.', int(0, 50), [2, 4]),
      f(
        'bathrooms',
        'Bathrooms (halves allowed).',
        { type: 'number', minimum: 0, maximum: 50, multipleOf: 0.5 },
        [1, 2.5],
      ),
      f(
        'floor_area_m2',
        'Floor area in square metres.',
        { type: 'number', exclusiveMinimum: 0, maximum: 100_000 },
        [68.5, 182],
      ),
      f(
        'status',
        'Listing status.',
        oneOf('active', 'under_offer', 'sold', 'let', 'withdrawn'),
        ['active', 'under_offer'],
        req,
      ),
      f('url', 'Public listing page.', uri, [
        'https://harborvine.example/listings/14-elm-2',
        'https://harborvine.example/listings/7-oak',
      ]),
    ],
  },
  {
    key: 'viewing_request',
    title: 'Viewing request',
    sector: 'real_estate',
    idPrefix: 'vwr',
    description: 'A client\u2019s request to view a property.',
    source: 'n8n-nodes-base.formTrigger',
    store: 'n8n-nodes-base.googleCalendar',
    fields: [
      ...recordFields('vwr', ['v1e2w3i4', 'n5g6r7q8'], ['2026-03-02T19:45:00Z', '2026-03-03T07:30:00Z']),
      f(
        'listing_id',
        'Listing to view.',
        { type: 'string', pattern: '^lst_[a-z0-9]{8,32}$' },
        ['lst_e1m2s3t4', 'lst_o5a6k7s8'],
        req,
      ),
      f('client_name', 'Client full name.', text(120), ['Grace Liu', 'Daniel Moreau'], req),
      f('client_email', 'Client e-mail.', email, ['grace.liu@example.com', 'd.moreau@example.fr'], req),
      f('client_phone', 'Client mobile.', phone, ['+447700900456', '+33612345678']),
      f(
        'preferred_times',
        'Up to three preferred start times.',
        { type: 'array', items: dateTime, minItems: 1, maxItems: 3, uniqueItems: true },
        [['2026-03-05T17:30:00+00:00', '2026-03-06T12:00:00+00:00'], ['2026-03-07T10:00:00-08:00']],
        req,
      ),
      f('message', 'Client message.', text(1000), ['Is parking included?', 'Happy to view at short notice.']),
      f(
        'status',
        'Status.',
        oneOf('requested', 'scheduled', 'completed', 'cancelled'),
        ['requested', 'scheduled'],
        req,
      ),
    ],
  },
  {
    key: 'reservation',
    title: 'Reservation',
    sector: 'hospitality',
    idPrefix: 'res',
    description: 'A table or room reservation at a venue.',
    source: 'n8n-nodes-base.formTrigger',
    store: 'n8n-nodes-base.googleSheets',
    fields: [
      ...recordFields('res', ['t4b1e2s3', 'd1n3r5x7'], ['2026-03-01T20:00:00Z', '2026-03-02T09:15:00Z']),
      f('guest_name', 'Guest full name.', text(120), ['Marco Bianchi', 'Yuki Tanaka'], req),
      f('guest_email', 'Guest e-mail.', email, ['marco.bianchi@example.it', 'yuki.tanaka@example.jp']),
      f('guest_phone', 'Guest mobile.', phone, ['+393471234567', '+819012345678']),
      f('party_size', 'Number of guests.', int(1, 40), [12, 2], req),
      f('reserved_for', 'Arrival time.', dateTime, ['2026-03-14T19:30:00+00:00', '2026-03-08T11:00:00+00:00'], req),
      f('area', 'Requested area.', oneOf('main_room', 'terrace', 'private_dining', 'bar'), [
        'private_dining',
        'terrace',
      ]),
      f('occasion', 'Occasion, if any.', text(120), ['Company dinner', 'Anniversary']),
      f('dietary_notes', 'Dietary requirements as stated by the guest.', text(500), [
        'Two vegetarians, one nut allergy.',
        'None.',
      ]),
      f(
        'status',
        'Status.',
        oneOf('requested', 'confirmed', 'seated', 'cancelled', 'no_show'),
        ['requested', 'confirmed'],
        req,
      ),
    ],
  },
  {
    key: 'guest_review',
    title: 'Guest review',
    sector: 'hospitality',
    idPrefix: 'rev',
    description: 'A public review of a venue and the reply to it.',
    source: 'n8n-nodes-base.googleBusinessProfileTrigger',
    store: 'n8n-nodes-base.googleBusinessProfile',
    fields: [
      ...recordFields('rev', ['g0o0g1e2', 't3r4i5p6'], ['2026-03-02T22:10:00Z', '2026-03-03T08:00:00Z']),
      f(
        'platform',
        'Where the review was posted.',
        oneOf('google', 'tripadvisor', 'booking_com', 'direct'),
        ['google', 'tripadvisor'],
        req,
      ),
      f('rating', 'Stars, 1 to 5.', int(1, 5), [2, 5], req),
      f('reviewer_name', 'Public name of the reviewer.', text(120), ['Marco B.', 'Yuki T.']),
      f('text', 'Review text.', text(5000), [
        'We waited 50 minutes for our mains last Saturday.',
        'Lovely brunch and very friendly staff.',
      ]),
      f('visited_on', 'Date of the visit.', date, ['2026-02-28', '2026-03-01']),
      f(
        'response_status',
        'Whether the venue has replied.',
        oneOf('unanswered', 'drafted', 'published'),
        ['unanswered', 'published'],
        req,
      ),
      f('response_text', 'The venue\u2019s reply.', text(4000), [
        'Thank you, Marco. We are sorry about the wait and have added a second chef on Saturdays.',
        'Thank you, Yuki! See you again soon.',
      ]),
    ],
  },
  {
    key: 'course_enrollment',
    title: 'Course enrollment',
    sector: 'education',
    idPrefix: 'enr',
    description: 'A student\u2019s enrollment in a course cohort.',
    source: 'n8n-nodes-base.formTrigger',
    store: 'n8n-nodes-base.googleSheets',
    fields: [
      ...recordFields('enr', ['s7u8d9e0', 'c1o2h3r4'], ['2026-02-20T16:00:00Z', '2026-02-22T10:30:00Z']),
      f('student_name', 'Student full name.', text(120), ['Aisha Bello', 'Lucas Ferreira'], req),
      f('student_email', 'Student e-mail.', email, ['aisha.bello@example.com', 'lucas.f@example.br'], req),
      f(
        'course_code',
        'Course code.',
        { type: 'string', pattern: '^[A-Z]{2,5}-[0-9]{3}$' },
        ['ALG-101', 'SPAN-110'],
        req,
      ),
      f('cohort_start', 'First class date.', date, ['2026-09-07', '2026-09-14'], req),
      f(
        'plan',
        'Payment plan.',
        oneOf('full_payment', 'installments', 'scholarship'),
        ['installments', 'full_payment'],
        req,
      ),
      f('guardian_email', 'Guardian e-mail for students under 18.', email, [
        'bello.family@example.com',
        'ferreira.home@example.br',
      ]),
      f(
        'status',
        'Status.',
        oneOf('pending_payment', 'active', 'completed', 'withdrawn'),
        ['pending_payment', 'active'],
        req,
      ),
    ],
  },
  {
    key: 'project_brief',
    title: 'Project brief',
    sector: 'agency',
    idPrefix: 'brf',
    description: 'A client\u2019s brief for a new project.',
    source: 'n8n-nodes-base.typeformTrigger',
    store: 'n8n-nodes-base.clickUp',
    fields: [
      ...recordFields('brf', ['b1r2i3e4', 'f5p6r7j8'], ['2026-03-01T11:11:00Z', '2026-03-04T15:20:00Z']),
      f('client_company', 'Client company.', text(200), ['Brandt Bakeries', 'Kettle & Co'], req),
      f('contact_email', 'Client contact.', email, ['oliver@brandt-bakeries.example', 'maya@kettle.example'], req),
      f(
        'project_type',
        'Kind of project.',
        oneOf('branding', 'website', 'campaign', 'content', 'other'),
        ['branding', 'website'],
        req,
      ),
      f(
        'goals',
        'What the project must achieve.',
        strings(1, 10, text(200)),
        [['Refresh the logo and packaging', 'Five-page website'], ['Online ordering for three shops']],
        req,
      ),
      f('budget_range', 'Budget band in USD.', oneOf('<5k', '5k-15k', '15k-50k', '>50k'), ['5k-15k', '15k-50k']),
      f('deadline', 'Desired launch date.', date, ['2026-06-01', '2026-05-15']),
      f('references', 'Sites or work the client likes.', strings(0, 10, uri), [
        ['https://example.com/inspiration'],
        [],
      ]),
    ],
  },
  {
    key: 'invoice',
    title: 'Invoice',
    sector: 'agency',
    idPrefix: 'inv',
    description: 'An invoice issued to a client.',
    source: 'n8n-nodes-base.invoiceNinjaTrigger',
    store: 'n8n-nodes-base.quickbooks',
    fields: [
      ...recordFields('inv', ['i2n0v2s6', 'i2n0v2s7'], ['2026-03-01T09:00:00Z', '2026-03-01T09:05:00Z']),
      f(
        'invoice_number',
        'Invoice number.',
        { type: 'string', pattern: '^[A-Z]{2,5}-[0-9]{4}-[0-9]{3,6}$' },
        ['FS-2026-041', 'FS-2026-042'],
        req,
      ),
      f('client_email', 'Billing contact.', email, ['accounts@brandt-bakeries.example', 'finance@kettle.example'], req),
      f('issue_date', 'Issue date.', date, ['2026-03-01', '2026-03-01'], req),
      f('due_date', 'Due date.', date, ['2026-03-31', '2026-03-15'], req),
      f('currency', 'Currency.', currency, ['USD', 'EUR'], req),
      f(
        'line_items',
        'Invoice lines.',
        {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['description', 'quantity', 'unit_price'],
            properties: {
              description: text(300),
              quantity: { type: 'number', exclusiveMinimum: 0, maximum: 100_000 },
              unit_price: money,
            },
          },
        },
        [
          [{ description: 'Brand refresh, milestone 1 of 2', quantity: 1, unit_price: '3750.00' }],
          [
            { description: 'Design retainer, March', quantity: 1, unit_price: '2000.00' },
            { description: 'Extra revisions (hours)', quantity: 2.5, unit_price: '90.00' },
          ],
        ],
        req,
      ),
      f('total', 'Invoice total.', money, ['3750.00', '2225.00'], req),
      f('status', 'Status.', oneOf('draft', 'sent', 'paid', 'overdue', 'void'), ['sent', 'paid'], req),
    ],
  },
  {
    key: 'job_application',
    title: 'Job application',
    sector: 'recruiting',
    idPrefix: 'app',
    description: 'A candidate\u2019s application to an open role.',
    source: 'n8n-nodes-base.workableTrigger',
    store: 'n8n-nodes-base.airtable',
    fields: [
      ...recordFields('app', ['j0b1a2p3', 'c4a5n6d7'], ['2026-02-12T10:00:00Z', '2026-02-14T18:30:00Z']),
      f('candidate_name', 'Candidate full name.', text(120), ['Sofia Marin', 'Ravi Patel'], req),
      f('candidate_email', 'Candidate e-mail.', email, ['sofia.marin@example.pt', 'ravi.patel@example.in'], req),
      f(
        'job_code',
        'Role applied for.',
        { type: 'string', pattern: '^[A-Z]{2,5}-[0-9]{2,4}$' },
        ['ENG-142', 'OPS-17'],
        req,
      ),
      f(
        'resume_url',
        'Link to the CV.',
        uri,
        ['https://files.example.com/cv/sofia-marin.pdf', 'https://files.example.com/cv/ravi-patel.pdf'],
        req,
      ),
      f('linkedin_url', 'LinkedIn profile.', uri, [
        'https://www.linkedin.com/in/sofia-marin-dev',
        'https://www.linkedin.com/in/ravipatel',
      ]),
      f('years_experience', 'Years of relevant experience.', int(0, 60), [7, 3]),
      f(
        'work_authorization',
        'Right to work for the role\u2019s location.',
        oneOf('citizen_or_resident', 'visa_sponsored', 'needs_sponsorship'),
        ['citizen_or_resident', 'needs_sponsorship'],
      ),
      f(
        'stage',
        'Pipeline stage.',
        oneOf('applied', 'screening', 'interview', 'offer', 'hired', 'rejected'),
        ['screening', 'applied'],
        req,
      ),
    ],
  },
  {
    key: 'job_posting',
    title: 'Job posting',
    sector: 'recruiting',
    idPrefix: 'job',
    description: 'An open role advertised to candidates.',
    source: 'n8n-nodes-base.googleSheetsTrigger',
    store: 'n8n-nodes-base.notion',
    fields: [
      ...recordFields('job', ['e2n3g4r5', 'o6p7s8t9'], ['2026-01-30T12:00:00Z', '2026-02-02T09:00:00Z']),
      f('job_code', 'Role code.', { type: 'string', pattern: '^[A-Z]{2,5}-[0-9]{2,4}$' }, ['ENG-142', 'OPS-17'], req),
      f('title', 'Role title.', text(120), ['Senior Backend Engineer', 'Operations Coordinator'], req),
      f('department', 'Department.', text(80), ['Engineering', 'Operations'], req),
      f('location', 'Location.', text(120), ['Lisbon or remote (EU)', 'Leeds'], req),
      f(
        'employment_type',
        'Employment type.',
        oneOf('full_time', 'part_time', 'contract', 'internship'),
        ['full_time', 'part_time'],
        req,
      ),
      f('remote_policy', 'Remote policy.', oneOf('onsite', 'hybrid', 'remote'), ['remote', 'onsite'], req),
      f('salary_min', 'Lower end of the salary band (yearly, whole units).', int(0, 10_000_000), [70000, 24000]),
      f('salary_max', 'Upper end of the salary band (yearly, whole units).', int(0, 10_000_000), [90000, 28000]),
      f('currency', 'Currency of the salary band.', currency, ['EUR', 'GBP']),
      f(
        'description',
        'Role description.',
        text(20_000),
        ['Build and run the services behind our delivery platform.', 'Coordinate daily dispatch and driver schedules.'],
        req,
      ),
      f('status', 'Status.', oneOf('draft', 'open', 'closed'), ['open', 'draft'], req),
    ],
  },
  {
    key: 'shipment',
    title: 'Shipment',
    sector: 'logistics',
    idPrefix: 'shp',
    description: 'A parcel moving from sender to recipient.',
    source: 'n8n-nodes-base.onfleetTrigger',
    store: 'n8n-nodes-base.postgres',
    fields: [
      ...recordFields('shp', ['p4r5c6l7', 'b8o9x0a1'], ['2026-03-03T06:00:00Z', '2026-03-03T06:02:00Z']),
      f(
        'tracking_number',
        'Carrier tracking number.',
        { type: 'string', pattern: '^[A-Z0-9-]{6,40}$' },
        ['SW-88412', 'SW-88413'],
        req,
      ),
      f('carrier', 'Carrier.', text(80), ['Swiftline', 'Swiftline'], req),
      f('recipient_name', 'Recipient.', text(120), ['Kwame Mensah', 'Laura Kim'], req),
      f('destination_postal_code', 'Destination postal code.', text(12), ['LS1 4AP', 'M1 1AE'], req),
      f('destination_country', 'Destination country.', country, ['GB', 'GB'], req),
      f('weight_kg', 'Weight in kilograms.', { type: 'number', exclusiveMinimum: 0, maximum: 1000 }, [2, 0.45], req),
      f('service_level', 'Service level.', oneOf('same_day', 'next_day', 'standard'), ['next_day', 'same_day'], req),
      f(
        'status',
        'Status.',
        oneOf('label_created', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'exception'),
        ['out_for_delivery', 'delivered'],
        req,
      ),
      f('eta', 'Estimated delivery time.', dateTime, ['2026-03-04T12:00:00+00:00', '2026-03-03T17:00:00+00:00']),
    ],
  },
  {
    key: 'delivery_exception',
    title: 'Delivery exception',
    sector: 'logistics',
    idPrefix: 'exc',
    description: 'A problem that stopped a delivery.',
    source: 'n8n-nodes-base.webhook',
    store: 'n8n-nodes-base.twilio',
    fields: [
      ...recordFields('exc', ['e1x2c3p4', 'd5e6l7a8'], ['2026-03-04T15:30:00Z', '2026-03-05T09:45:00Z']),
      f(
        'tracking_number',
        'Affected shipment.',
        { type: 'string', pattern: '^[A-Z0-9-]{6,40}$' },
        ['SW-88412', 'SW-90017'],
        req,
      ),
      f(
        'reason',
        'What went wrong.',
        oneOf('address_not_found', 'recipient_unavailable', 'damaged', 'refused', 'weather_delay', 'other'),
        ['recipient_unavailable', 'weather_delay'],
        req,
      ),
      f('occurred_at', 'When it happened.', dateTime, ['2026-03-04T15:28:00+00:00', '2026-03-05T09:40:00+00:00'], req),
      f('location', 'Where it happened.', text(200), ['Leeds LS1', 'M62 depot, Manchester']),
      f('next_attempt_on', 'Planned next attempt.', date, ['2026-03-05', '2026-03-06']),
      f('notes', 'Driver notes.', text(1000), ['No answer; card left.', 'Roads closed by snow.']),
    ],
  },
  {
    key: 'donation',
    title: 'Donation',
    sector: 'nonprofit',
    idPrefix: 'don',
    description: 'A gift received by a charity.',
    source: 'n8n-nodes-base.stripeTrigger',
    store: 'n8n-nodes-base.googleSheets',
    fields: [
      ...recordFields('don', ['g1f2t3s4', 'h5e6a7r8'], ['2026-03-01T12:00:00Z', '2026-03-02T12:00:00Z']),
      f('donor_name', 'Donor name (omit for anonymous gifts).', text(120), ['Helen O\u2019Connor', 'Ibrahim Musa']),
      f(
        'donor_email',
        'Donor e-mail for the receipt.',
        email,
        ['helen.oconnor@example.ie', 'ibrahim.musa@example.ng'],
        req,
      ),
      f('amount', 'Gift amount.', money, ['25.00', '250.00'], req),
      f('currency', 'Currency.', currency, ['EUR', 'GBP'], req),
      f('frequency', 'One-off or recurring.', oneOf('one_time', 'monthly', 'annual'), ['monthly', 'one_time'], req),
      f('campaign', 'Campaign or fund.', text(120), ['Food support programme', 'Winter appeal']),
      f('gift_aid_eligible', 'Whether the donor declared Gift Aid (UK).', bool, [false, true]),
      f('anonymous', 'Whether the donor asked not to be named.', bool, [false, true], req),
      f('received_at', 'When the gift was received.', dateTime, ['2026-03-01T11:59:30Z', '2026-03-02T11:58:02Z'], req),
    ],
  },
];
