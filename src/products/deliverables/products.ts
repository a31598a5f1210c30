/**
 * The one maintained table of real products the deliverables name: what each product does (for audits and
 * integrations), how it announces events (its real webhook payload shape, with a sample), how its record fields are
 * read from that payload, its REST endpoints, and the n8n node types that speak to it. Every n8n node type and
 * version here is checked against the committed n8n-nodes-base snapshot (src/products/micro/n8n-node-types.json) by
 * test/unit/products.test.ts.
 *
 * Field expressions are JavaScript over `P`, the incoming payload (an n8n Webhook node's `$json.body`), and are
 * written into n8n expressions as they are.
 *
 * Source: issue 13 ("named apps and tools from a maintained table of real products, with their real webhook payload
 * shapes and n8n node types"); each product's public API reference (linked in `docs`).
 */
import { hasAny, haystack } from './util';

/** What a product does; drives audits ("already covered") and integration entities. */
export type Capability =
  | 'forms'
  | 'ecommerce'
  | 'payments'
  | 'shipping'
  | 'scheduling'
  | 'dispatch'
  | 'quoting'
  | 'invoicing'
  | 'accounting'
  | 'crm'
  | 'ticketing'
  | 'live_chat'
  | 'messaging'
  | 'email'
  | 'email_marketing'
  | 'spreadsheet'
  | 'database'
  | 'calendar'
  | 'sms'
  | 'job_management'
  | 'practice_management'
  | 'client_records'
  | 'inventory'
  | 'knowledge_base';

/** How a record's common fields are read from the product's event payload (JS expressions over `P`). */
export interface FieldMap {
  external_id: string;
  name: string;
  email: string;
  phone?: string;
  amount?: string;
  currency?: string;
  occurred_at?: string;
  /** One line saying what happened ("Order #1001: 2 items", "Initial assessment on 2026-03-05 at 15:00"). */
  summary?: string;
}

/** One entity the product exposes over its API, with its real field names. */
export interface ProductEntity {
  /** Canonical entity name (orders, customers, tickets, jobs, invoices, contacts, shipments, rows, …). */
  name: string;
  /** REST endpoint listing or creating it. */
  endpoint: string;
  /** Canonical field → the product's own field path. */
  fields: Record<string, string>;
}

/**
 * An HTTP request creating one record in the product. `body` is an n8n expression over `$json`, the mapped record
 * (source, external_id, name, email, phone, amount, currency, occurred_at, summary, payload).
 */
export interface HttpTarget {
  /** Canonical record kind created (see {@link RECORD_KIND_WORDS}). */
  kind: string;
  method: 'POST' | 'PUT';
  url: string;
  auth: string;
  headers?: Record<string, string>;
  body: string;
  /** The mapped field the request creates-or-updates by (HubSpot contacts: `email`); absent for a plain create. */
  upsertKey?: 'email' | 'external_id';
}

/** A further record kind a target creates, with its real endpoint and n8n operation. */
export interface TargetRecord {
  http: HttpTarget;
  /** The n8n node operation doing the same (checked against the snapshot with the product's action node). */
  operation: string;
  /**
   * A record created first and linked to this one (a Pipedrive deal's person): its request, and the JS expression
   * over that request's response (`$json`) giving the id that `body` reads as `$json.linked_id`.
   */
  link?: { http: HttpTarget; id: string };
  docs: string;
}

/** Words naming each canonical record kind in a buyer's description (matched as word prefixes). */
export const RECORD_KIND_WORDS: Readonly<Record<string, readonly string[]>> = {
  deals: ['deal', 'deals', 'opportunit'],
  contacts: ['contact', 'contacts', 'person', 'persons', 'people', 'lead', 'leads'],
  tickets: ['ticket', 'tickets', 'support case'],
  rows: ['row', 'rows'],
  orders: ['order', 'orders'],
  records: ['record', 'records'],
  invoices: ['invoice', 'invoices'],
  pages: ['page', 'pages'],
  patients: ['patient', 'patients'],
  messages: ['message', 'messages', 'notification', 'alert', 'post'],
};

/** A real product. */
export interface Product {
  id: string;
  name: string;
  /** Words that name it in free text (matched as word prefixes; ≤ 3 chars as whole words). */
  aliases: string[];
  capabilities: Capability[];
  /** Event the deliverables subscribe to, its real payload sample and how to register the webhook. */
  webhook?: {
    event: string;
    setup: string;
    sample: Record<string, unknown>;
    fields: FieldMap;
    note?: string;
    /** When the event carries only a reference: the URL to GET (JS over `P`) and the fields of its body (JS over `D`). */
    fetch?: { url: string; fields: FieldMap };
  };
  /** n8n nodes of n8n-nodes-base that speak to it (checked against the snapshot). */
  n8n?: {
    trigger?: { type: string; typeVersion: number; events?: string[] };
    action?: { type: string; typeVersion: number; operation: string };
  };
  /** How to send a record to it over HTTP when it is the target (the record kind it creates by default). */
  http?: HttpTarget;
  /** Further kinds of record it creates as a target, when the buyer names them ("as deals", "as a ticket"). */
  records?: TargetRecord[];
  entities: ProductEntity[];
  auth: string;
  docs: string;
  /**
   * How new records are noticed when the product sends no webhooks a buyer can register (Cliniko): what to poll.
   * Reference-only products (no public API for the buyer) say so here too.
   */
  polling?: string;
}

/**
 * HubSpot contact create-or-update by e-mail (POST /crm/v3/objects/contacts/batch/upsert). `message` is a default
 * contact property; `utm_*` are sent when the source carries them and must exist as contact properties.
 */
const HUBSPOT_CONTACT_UPSERT =
  "={{ JSON.stringify({ inputs: [{ idProperty: 'email', id: $json.email, properties: Object.fromEntries(Object.entries({ email: $json.email, firstname: ($json.name || '').split(' ')[0], lastname: ($json.name || '').split(' ').slice(1).join(' '), phone: $json.phone, message: $json.summary, utm_source: $json.utm_source, utm_medium: $json.utm_medium, utm_campaign: $json.utm_campaign }).filter(([, v]) => v !== undefined && v !== null && v !== '')) }] }) }}";

const TYPEFORM_ANSWER = (type: string, key: string): string =>
  `(P.form_response.answers.find(a => a.type === '${type}') || {}).${key}`;

/** The table. Order matters only for ties in {@link findProducts} (earlier wins). */
const TABLE: Product[] = [
  {
    id: 'typeform',
    name: 'Typeform',
    aliases: ['typeform'],
    capabilities: ['forms'],
    webhook: {
      event: 'form_response',
      setup:
        'Typeform → your form → Connect → Webhooks → Add a webhook with the production webhook URL; set a secret (Typeform signs with the Typeform-Signature header, sha256 HMAC, base64).',
      sample: {
        event_id: '01HXYZEVENT',
        event_type: 'form_response',
        form_response: {
          form_id: 'lT4Z3j',
          token: 'a3a12ec67a1365927098a606107fac15',
          landed_at: '2026-03-02T09:12:01Z',
          submitted_at: '2026-03-02T09:14:02Z',
          hidden: { utm_source: 'newsletter' },
          definition: {
            id: 'lT4Z3j',
            title: 'Enquiry',
            fields: [
              { id: 'Auxx', ref: 'full_name', type: 'short_text', title: 'Your name' },
              { id: 'Buyy', ref: 'email', type: 'email', title: 'E-mail' },
              { id: 'Czzz', ref: 'phone', type: 'phone_number', title: 'Phone' },
            ],
          },
          answers: [
            { type: 'text', text: 'Dana Whitfield', field: { id: 'Auxx', ref: 'full_name', type: 'short_text' } },
            { type: 'email', email: 'dana@example.com', field: { id: 'Buyy', ref: 'email', type: 'email' } },
            {
              type: 'phone_number',
              phone_number: '+15555550142',
              field: { id: 'Czzz', ref: 'phone', type: 'phone_number' },
            },
          ],
        },
      },
      fields: {
        external_id: 'P.form_response.token',
        name: `(P.form_response.answers.find(a => a.field && /name/i.test(a.field.ref)) || P.form_response.answers.find(a => a.type === 'text') || {}).text`,
        email: TYPEFORM_ANSWER('email', 'email'),
        phone: TYPEFORM_ANSWER('phone_number', 'phone_number'),
        occurred_at: 'P.form_response.submitted_at',
        // Every answer with its question, so the lead's message reaches the target.
        summary:
          "(P.form_response.definition && P.form_response.definition.title ? P.form_response.definition.title + ': ' : '') + (P.form_response.answers || []).map(a => { const q = ((P.form_response.definition || {}).fields || []).find(f => a.field && f.id === a.field.id); const v = a[a.type]; return ((q && q.title) || (a.field && a.field.ref) || a.type) + ': ' + (v && typeof v === 'object' ? (v.label || (v.labels || []).join(', ') || JSON.stringify(v)) : v); }).join('; ')",
      },
      note: 'Answers are a list: each carries its value under a key named by its type (text, email, phone_number, choice.label, number, date, boolean) and its question under field.ref. Hidden fields are in form_response.hidden.',
    },
    n8n: { trigger: { type: 'n8n-nodes-base.typeformTrigger', typeVersion: 1.1 } },
    entities: [
      {
        name: 'responses',
        endpoint: 'GET https://api.typeform.com/forms/{form_id}/responses',
        fields: { external_id: 'token', submitted_at: 'submitted_at', answers: 'answers[]' },
      },
    ],
    auth: 'Personal access token (Bearer)',
    docs: 'https://www.typeform.com/developers/webhooks/example-payload/',
  },
  {
    id: 'jotform',
    name: 'Jotform',
    aliases: ['jotform'],
    capabilities: ['forms'],
    webhook: {
      event: 'submission',
      setup: 'Jotform → form → Settings → Integrations → WebHooks → add the production webhook URL.',
      sample: {
        formID: '241234567890',
        submissionID: '5912345678901234567',
        rawRequest: '{"q3_name":{"first":"Dana","last":"Whitfield"},"q4_email":"dana@example.com"}',
      },
      fields: {
        external_id: 'P.submissionID',
        name: `(r => [r.q3_name && r.q3_name.first, r.q3_name && r.q3_name.last].filter(Boolean).join(' '))(JSON.parse(P.rawRequest || '{}'))`,
        email: `JSON.parse(P.rawRequest || '{}').q4_email`,
      },
      note: "Jotform posts multipart form data; answers are in rawRequest (JSON text) keyed q<question id>_<name>: check your form's ids.",
    },
    n8n: { trigger: { type: 'n8n-nodes-base.jotFormTrigger', typeVersion: 1 } },
    entities: [
      {
        name: 'submissions',
        endpoint: 'GET https://api.jotform.com/form/{formID}/submissions',
        fields: { external_id: 'id', created_at: 'created_at', answers: 'answers' },
      },
    ],
    auth: 'API key (APIKEY header)',
    docs: 'https://api.jotform.com/docs/',
  },
  {
    id: 'shopify',
    name: 'Shopify',
    aliases: ['shopify'],
    capabilities: ['ecommerce', 'inventory', 'payments'],
    webhook: {
      event: 'orders/create',
      setup:
        'Shopify admin → Settings → Notifications → Webhooks → Create webhook, event "Order creation", format JSON, the production webhook URL (verify X-Shopify-Hmac-Sha256).',
      sample: {
        id: 820982911946154500,
        admin_graphql_api_id: 'gid://shopify/Order/820982911946154508',
        name: '#1001',
        email: 'dana@example.com',
        created_at: '2026-03-02T09:14:02-05:00',
        currency: 'USD',
        total_price: '199.00',
        financial_status: 'paid',
        customer: {
          id: 115310627314723950,
          email: 'dana@example.com',
          first_name: 'Dana',
          last_name: 'Whitfield',
          phone: '+15555550142',
        },
        line_items: [{ id: 466157049, sku: 'TEE-BLK-M', title: 'T-shirt', quantity: 2, price: '99.50' }],
        shipping_address: {
          name: 'Dana Whitfield',
          address1: '1 Main St',
          city: 'Ottawa',
          zip: 'K2P 1L4',
          country_code: 'CA',
        },
      },
      fields: {
        external_id: 'String(P.id)',
        name: `[P.customer && P.customer.first_name, P.customer && P.customer.last_name].filter(Boolean).join(' ')`,
        email: 'P.email || (P.customer && P.customer.email)',
        phone: 'P.customer && P.customer.phone',
        amount: 'P.total_price',
        currency: 'P.currency',
        occurred_at: 'P.created_at',
        summary:
          "'Order ' + P.name + ': ' + (P.line_items || []).map(i => i.quantity + ' x ' + (i.sku || i.title)).join(', ')",
      },
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.shopifyTrigger', typeVersion: 1, events: ['orders/create'] },
      action: { type: 'n8n-nodes-base.shopify', typeVersion: 1, operation: 'order:create' },
    },
    entities: [
      {
        name: 'orders',
        endpoint: 'GET https://{shop}.myshopify.com/admin/api/2025-01/orders.json',
        fields: {
          external_id: 'id',
          order_number: 'name',
          customer_email: 'email',
          currency: 'currency',
          total: 'total_price',
          status: 'financial_status',
          created_at: 'created_at',
          sku: 'line_items[].sku',
          quantity: 'line_items[].quantity',
          ship_to_name: 'shipping_address.name',
          ship_to_postcode: 'shipping_address.zip',
          ship_to_country: 'shipping_address.country_code',
        },
      },
      {
        name: 'customers',
        endpoint: 'GET https://{shop}.myshopify.com/admin/api/2025-01/customers.json',
        fields: {
          external_id: 'id',
          email: 'email',
          name: "first_name + ' ' + last_name",
          first_name: 'first_name',
          last_name: 'last_name',
          phone: 'phone',
        },
      },
    ],
    auth: 'Admin API access token (X-Shopify-Access-Token)',
    docs: 'https://shopify.dev/docs/api/admin-rest/latest/resources/webhook',
  },
  {
    id: 'woocommerce',
    name: 'WooCommerce',
    aliases: ['woocommerce', 'woo commerce'],
    capabilities: ['ecommerce', 'inventory'],
    webhook: {
      event: 'order.created',
      setup:
        'WooCommerce → Settings → Advanced → Webhooks → Add webhook, topic "Order created", the production webhook URL (verify X-WC-Webhook-Signature).',
      sample: {
        id: 727,
        number: '727',
        status: 'processing',
        currency: 'USD',
        total: '29.35',
        date_created_gmt: '2026-03-02T14:14:02',
        billing: { first_name: 'Dana', last_name: 'Whitfield', email: 'dana@example.com', phone: '(555) 555-0142' },
        line_items: [{ id: 315, sku: 'MUG-01', quantity: 1, total: '24.00' }],
      },
      fields: {
        external_id: 'String(P.id)',
        name: `[P.billing.first_name, P.billing.last_name].filter(Boolean).join(' ')`,
        email: 'P.billing.email',
        phone: 'P.billing.phone',
        amount: 'P.total',
        currency: 'P.currency',
        occurred_at: 'P.date_created_gmt',
        summary:
          "'Order ' + P.number + ': ' + (P.line_items || []).map(i => i.quantity + ' x ' + (i.sku || i.name)).join(', ')",
      },
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.wooCommerceTrigger', typeVersion: 1, events: ['order.created'] },
      action: { type: 'n8n-nodes-base.wooCommerce', typeVersion: 1, operation: 'order:create' },
    },
    entities: [
      {
        name: 'orders',
        endpoint: 'GET https://{store}/wp-json/wc/v3/orders',
        fields: {
          external_id: 'id',
          order_number: 'number',
          customer_email: 'billing.email',
          currency: 'currency',
          total: 'total',
          status: 'status',
          created_at: 'date_created_gmt',
          sku: 'line_items[].sku',
          quantity: 'line_items[].quantity',
          ship_to_name: 'shipping.first_name + shipping.last_name',
          ship_to_postcode: 'shipping.postcode',
          ship_to_country: 'shipping.country',
        },
      },
    ],
    auth: 'Consumer key and secret (Basic auth over HTTPS)',
    docs: 'https://woocommerce.github.io/woocommerce-rest-api-docs/',
  },
  {
    id: 'stripe',
    name: 'Stripe',
    aliases: ['stripe'],
    capabilities: ['payments', 'invoicing'],
    webhook: {
      event: 'checkout.session.completed',
      setup:
        'Stripe Dashboard → Developers → Webhooks → Add endpoint with the production webhook URL, event checkout.session.completed (verify Stripe-Signature).',
      sample: {
        id: 'evt_1PqR2sT3uV4wX5yZ',
        object: 'event',
        type: 'checkout.session.completed',
        created: 1772442842,
        data: {
          object: {
            id: 'cs_test_a1B2c3',
            object: 'checkout.session',
            amount_total: 19900,
            currency: 'usd',
            customer_details: { email: 'dana@example.com', name: 'Dana Whitfield', phone: null },
            payment_status: 'paid',
          },
        },
      },
      fields: {
        external_id: 'P.data.object.id',
        name: 'P.data.object.customer_details && P.data.object.customer_details.name',
        email: 'P.data.object.customer_details && P.data.object.customer_details.email',
        amount: '(P.data.object.amount_total / 100).toFixed(2)',
        currency: 'String(P.data.object.currency).toUpperCase()',
        occurred_at: 'new Date(P.created * 1000).toISOString()',
      },
      note: "Amounts are integers in the currency's smallest unit (cents): 19900 is 199.00.",
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.stripeTrigger', typeVersion: 1, events: ['checkout.session.completed'] },
      action: { type: 'n8n-nodes-base.stripe', typeVersion: 1, operation: 'customer:create' },
    },
    entities: [
      {
        name: 'payments',
        endpoint: 'GET https://api.stripe.com/v1/payment_intents',
        fields: {
          external_id: 'id',
          amount_minor_units: 'amount',
          currency: 'currency',
          status: 'status',
          customer_external_id: 'customer',
          created_at: 'created',
        },
      },
      {
        name: 'customers',
        endpoint: 'GET/POST https://api.stripe.com/v1/customers',
        fields: { external_id: 'id', name: 'name', email: 'email', phone: 'phone' },
      },
      {
        name: 'invoices',
        endpoint: 'GET https://api.stripe.com/v1/invoices',
        fields: {
          external_id: 'id',
          number: 'number',
          customer_external_id: 'customer',
          total: 'total (minor units)',
          currency: 'currency',
          status: 'status',
          due_date: 'due_date (Unix time)',
        },
      },
    ],
    auth: 'Secret key (Bearer sk_…)',
    docs: 'https://docs.stripe.com/api/events/object',
  },
  {
    id: 'shipstation',
    name: 'ShipStation',
    aliases: ['shipstation', 'ship station'],
    capabilities: ['shipping'],
    webhook: {
      event: 'ORDER_NOTIFY',
      setup:
        'ShipStation → Settings → Integrations → Webhooks (or POST https://ssapi.shipstation.com/webhooks/subscribe with event ORDER_NOTIFY or SHIP_NOTIFY) with the production webhook URL.',
      sample: {
        resource_url: 'https://ssapi.shipstation.com/orders?importBatch=1ab23c4d-12ab-1abc-a1bc-a12b12cdabcd',
        resource_type: 'ORDER_NOTIFY',
      },
      fields: { external_id: 'P.resource_url', name: "''", email: "''" },
      fetch: {
        url: 'P.resource_url',
        fields: {
          external_id: 'String(D.orders[0].orderId)',
          name: 'D.orders[0].shipTo && D.orders[0].shipTo.name',
          email: 'D.orders[0].customerEmail',
          amount: 'String(D.orders[0].amountPaid)',
          occurred_at: 'D.orders[0].orderDate',
          summary:
            "'Order ' + D.orders[0].orderNumber + ': ' + (D.orders[0].items || []).map(i => i.quantity + ' x ' + i.sku).join(', ')",
        },
      },
      note: "ShipStation's webhook carries no order: it sends resource_url, which must be fetched (GET with Basic auth) to get orders[] (orderId, orderNumber, customerEmail, shipTo, items[]).",
    },
    http: {
      kind: 'orders',
      method: 'POST',
      url: 'https://ssapi.shipstation.com/orders/createorder',
      auth: 'Basic auth: API key as user, API secret as password',
      body: "={{ JSON.stringify({ orderNumber: $json.order_number || $json.external_id, orderDate: $json.occurred_at, orderStatus: 'awaiting_shipment', customerEmail: $json.email, billTo: { name: $json.name }, shipTo: $json.ship_to, items: $json.items }) }}",
    },
    entities: [
      {
        name: 'orders',
        endpoint: 'POST https://ssapi.shipstation.com/orders/createorder',
        fields: {
          external_id: 'orderKey',
          order_number: 'orderNumber',
          customer_email: 'customerEmail',
          status: 'orderStatus',
          created_at: 'orderDate',
          total: 'amountPaid',
          sku: 'items[].sku',
          quantity: 'items[].quantity',
          ship_to_name: 'shipTo.name',
          ship_to_postcode: 'shipTo.postalCode',
          ship_to_country: 'shipTo.country',
        },
      },
      {
        name: 'shipments',
        endpoint: 'GET https://ssapi.shipstation.com/shipments',
        fields: {
          external_id: 'shipmentId',
          order_number: 'orderNumber',
          tracking_number: 'trackingNumber',
          carrier: 'carrierCode',
          shipped_at: 'shipDate',
        },
      },
    ],
    auth: 'API key and secret (Basic auth); 40 requests per minute per key',
    docs: 'https://www.shipstation.com/docs/api/',
  },
  {
    id: 'calendly',
    name: 'Calendly',
    aliases: ['calendly'],
    capabilities: ['scheduling', 'calendar'],
    webhook: {
      event: 'invitee.created',
      setup:
        'POST https://api.calendly.com/webhook_subscriptions with events ["invitee.created"], scope "organization", and the production webhook URL.',
      sample: {
        event: 'invitee.created',
        created_at: '2026-03-02T09:14:02.000000Z',
        payload: {
          uri: 'https://api.calendly.com/scheduled_events/AAAA/invitees/BBBB',
          email: 'dana@example.com',
          name: 'Dana Whitfield',
          status: 'active',
          scheduled_event: {
            name: 'Initial assessment',
            start_time: '2026-03-05T15:00:00.000000Z',
            end_time: '2026-03-05T16:00:00.000000Z',
          },
        },
      },
      fields: {
        external_id: 'P.payload.uri',
        name: 'P.payload.name',
        email: 'P.payload.email',
        occurred_at: 'P.payload.scheduled_event && P.payload.scheduled_event.start_time',
        summary:
          "(P.payload.scheduled_event && P.payload.scheduled_event.name) + ' at ' + (P.payload.scheduled_event && P.payload.scheduled_event.start_time)",
      },
    },
    n8n: { trigger: { type: 'n8n-nodes-base.calendlyTrigger', typeVersion: 2, events: ['invitee.created'] } },
    entities: [
      {
        name: 'bookings',
        endpoint: 'GET https://api.calendly.com/scheduled_events',
        fields: { external_id: 'uri', name: 'name', start: 'start_time', end: 'end_time', status: 'status' },
      },
    ],
    auth: 'Personal access token (Bearer)',
    docs: 'https://developer.calendly.com/api-docs/',
  },
  {
    id: 'hubspot',
    name: 'HubSpot',
    aliases: ['hubspot', 'hub spot'],
    capabilities: ['crm', 'email_marketing'],
    webhook: {
      event: 'contact.creation',
      setup: 'HubSpot private app → Webhooks → subscribe to contact.creation with the production webhook URL.',
      sample: {
        '0': {
          eventId: 1,
          subscriptionId: 2,
          portalId: 62515,
          occurredAt: 1772442842000,
          subscriptionType: 'contact.creation',
          objectId: 123,
        },
      },
      fields: {
        external_id: 'String((Array.isArray(P) ? P[0] : P).objectId)',
        name: "''",
        email: "''",
        occurred_at: 'new Date((Array.isArray(P) ? P[0] : P).occurredAt).toISOString()',
      },
      fetch: {
        url: "'https://api.hubapi.com/crm/v3/objects/contacts/' + (Array.isArray(P) ? P[0] : P).objectId + '?properties=email,firstname,lastname,phone'",
        fields: {
          external_id: 'String(D.id)',
          name: "[D.properties.firstname, D.properties.lastname].filter(Boolean).join(' ')",
          email: 'D.properties.email',
          phone: 'D.properties.phone',
          occurred_at: 'D.createdAt',
          summary: "'New contact ' + (D.properties.email || D.id)",
        },
      },
      note: 'HubSpot posts an array of events carrying only objectId: fetch GET /crm/v3/objects/contacts/{objectId} for the contact.',
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.hubspotTrigger', typeVersion: 1 },
      action: { type: 'n8n-nodes-base.hubspot', typeVersion: 2.2, operation: 'contact:upsert' },
    },
    http: {
      kind: 'contacts',
      method: 'POST',
      // Create-or-update keyed on the e-mail (batch upsert, idProperty email): a repeat lead updates its contact
      // where a plain create answers 409 Conflict (issue 38 §3).
      url: 'https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert',
      auth: 'Private app token (Bearer), scope crm.objects.contacts.write',
      upsertKey: 'email',
      body: HUBSPOT_CONTACT_UPSERT,
    },
    records: [
      {
        http: {
          kind: 'deals',
          method: 'POST',
          url: 'https://api.hubapi.com/crm/v3/objects/deals',
          auth: 'Private app token (Bearer), scopes crm.objects.contacts.write and crm.objects.deals.write',
          body: "={{ JSON.stringify({ properties: { dealname: ($json.name || $json.email || $json.source) + ': ' + ($json.summary || $json.source + ' ' + $json.external_id), amount: $json.amount || undefined, pipeline: 'default', dealstage: 'appointmentscheduled' }, associations: [{ to: { id: $json.linked_id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 3 }] }] }) }}",
        },
        operation: 'deal:create',
        link: {
          http: {
            kind: 'contacts',
            method: 'POST',
            url: 'https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert',
            auth: 'Private app token (Bearer), scope crm.objects.contacts.write',
            upsertKey: 'email',
            body: HUBSPOT_CONTACT_UPSERT,
          },
          id: '$json.results[0].id',
        },
        docs: 'https://developers.hubspot.com/docs/api/crm/deals',
      },
      {
        http: {
          kind: 'tickets',
          method: 'POST',
          url: 'https://api.hubapi.com/crm/v3/objects/tickets',
          auth: 'Private app token (Bearer), scope tickets',
          body: "={{ JSON.stringify({ properties: { subject: $json.summary || ('Request from ' + ($json.name || $json.email)), content: $json.payload, hs_pipeline: '0', hs_pipeline_stage: '1' } }) }}",
        },
        operation: 'ticket:create',
        docs: 'https://developers.hubspot.com/docs/api/crm/tickets',
      },
    ],
    entities: [
      {
        name: 'contacts',
        endpoint: 'POST https://api.hubapi.com/crm/v3/objects/contacts',
        fields: {
          external_id: 'id',
          email: 'properties.email',
          first_name: 'properties.firstname',
          last_name: 'properties.lastname',
          phone: 'properties.phone',
          company: 'properties.company',
          updated_at: 'updatedAt',
        },
      },
    ],
    auth: 'Private app token (Bearer)',
    docs: 'https://developers.hubspot.com/docs/api/crm/contacts',
  },
  {
    id: 'zendesk',
    name: 'Zendesk',
    aliases: ['zendesk'],
    capabilities: ['ticketing', 'live_chat', 'knowledge_base'],
    webhook: {
      event: 'ticket created (trigger + webhook)',
      setup:
        'Zendesk Admin Center → Apps and integrations → Webhooks → Create webhook (JSON, POST) to the production URL, then a trigger "Ticket is Created" that notifies it with a JSON body.',
      sample: {
        ticket: {
          id: 35436,
          subject: 'Order arrived damaged',
          description: 'The mug was broken.',
          status: 'new',
          priority: 'normal',
          requester: { name: 'Dana Whitfield', email: 'dana@example.com' },
          created_at: '2026-03-02T09:14:02Z',
        },
      },
      fields: {
        external_id: 'String(P.ticket.id)',
        name: 'P.ticket.requester && P.ticket.requester.name',
        email: 'P.ticket.requester && P.ticket.requester.email',
        occurred_at: 'P.ticket.created_at',
        summary: "'Ticket ' + P.ticket.id + ': ' + P.ticket.subject",
      },
      note: 'Zendesk webhooks post the body the trigger defines; this workflow expects the ticket JSON shown in the sample (placeholders {{ticket.id}}, {{ticket.requester.email}}, …).',
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.zendeskTrigger', typeVersion: 1 },
      action: { type: 'n8n-nodes-base.zendesk', typeVersion: 1, operation: 'ticket:create' },
    },
    http: {
      kind: 'tickets',
      method: 'POST',
      url: 'https://{subdomain}.zendesk.com/api/v2/tickets.json',
      auth: 'API token: {email}/token as user, the token as password (Basic)',
      body: "={{ JSON.stringify({ ticket: { subject: $json.subject || ('Request from ' + $json.name), comment: { body: $json.description || $json.payload }, requester: { name: $json.name, email: $json.email } } }) }}",
    },
    entities: [
      {
        name: 'tickets',
        endpoint: 'GET/POST https://{subdomain}.zendesk.com/api/v2/tickets.json',
        fields: {
          external_id: 'ticket.id',
          subject: 'ticket.subject',
          description: 'ticket.description',
          status: 'ticket.status',
          priority: 'ticket.priority',
          requester_email: 'ticket.requester.email',
          tags: 'ticket.tags',
          updated_at: 'ticket.updated_at',
        },
      },
    ],
    auth: 'API token (Basic {email}/token) or OAuth',
    docs: 'https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/',
  },
  {
    id: 'gorgias',
    name: 'Gorgias',
    aliases: ['gorgias'],
    capabilities: ['ticketing', 'live_chat', 'knowledge_base'],
    entities: [
      {
        name: 'tickets',
        endpoint: 'GET/POST https://{domain}.gorgias.com/api/tickets',
        fields: {
          external_id: 'id',
          subject: 'subject',
          status: 'status',
          channel: 'channel',
          customer_email: 'customer.email',
          created_at: 'created_datetime',
        },
      },
      {
        name: 'messages',
        endpoint: 'GET/POST https://{domain}.gorgias.com/api/tickets/{ticket_id}/messages',
        fields: { external_id: 'id', body: 'body_text', from_agent: 'from_agent', sent_at: 'sent_datetime' },
      },
    ],
    auth: 'HTTP Basic auth: the account e-mail and a REST API key (Settings → REST API)',
    docs: 'https://developers.gorgias.com/reference/introduction',
  },
  {
    id: 'freshdesk',
    name: 'Freshdesk',
    aliases: ['freshdesk'],
    capabilities: ['ticketing', 'knowledge_base'],
    n8n: { action: { type: 'n8n-nodes-base.freshdesk', typeVersion: 1, operation: 'ticket:create' } },
    entities: [
      {
        name: 'tickets',
        endpoint: 'GET/POST https://{domain}.freshdesk.com/api/v2/tickets',
        fields: {
          external_id: 'id',
          subject: 'subject',
          description: 'description_text',
          status: 'status',
          priority: 'priority',
          requester_email: 'email',
          updated_at: 'updated_at',
        },
      },
    ],
    auth: 'API key (Basic, key as user)',
    docs: 'https://developers.freshdesk.com/api/',
  },
  {
    id: 'intercom',
    name: 'Intercom',
    aliases: ['intercom'],
    capabilities: ['live_chat', 'ticketing', 'crm'],
    n8n: { action: { type: 'n8n-nodes-base.intercom', typeVersion: 1, operation: 'user:create' } },
    entities: [
      {
        name: 'conversations',
        endpoint: 'GET https://api.intercom.io/conversations',
        fields: { external_id: 'id', state: 'state', contact_email: 'source.author.email', updated_at: 'updated_at' },
      },
    ],
    auth: 'Access token (Bearer)',
    docs: 'https://developers.intercom.com/docs/references/rest-api/api.intercom.io/conversations/',
  },
  {
    id: 'servicem8',
    name: 'ServiceM8',
    aliases: ['servicem8', 'service m8'],
    capabilities: ['job_management', 'scheduling', 'dispatch', 'quoting', 'invoicing'],
    webhook: {
      event: 'job (object webhook)',
      setup:
        'ServiceM8 add-on → POST https://api.servicem8.com/webhook_subscriptions with object "job" and fields to watch, callback_url the production webhook URL.',
      sample: {
        object: 'job',
        entry: [
          { uuid: 'f4b7c2de-0a1b-4c2d-9e8f-123456789abc', changed_fields: ['status'], time: '2026-03-02 09:14:02' },
        ],
        resource_url: 'https://api.servicem8.com/api_1.0/job/f4b7c2de-0a1b-4c2d-9e8f-123456789abc.json',
      },
      fields: { external_id: 'P.entry[0].uuid', name: "''", email: "''", occurred_at: 'P.entry[0].time' },
      fetch: {
        url: 'P.resource_url',
        fields: {
          external_id: 'D.uuid',
          name: 'D.job_address',
          email: "''",
          amount: 'String(D.total_invoice_amount)',
          occurred_at: 'D.date',
          summary: "'Job ' + (D.generated_job_id || D.uuid) + ' is ' + D.status",
        },
      },
      note: 'The webhook names the changed job; fetch resource_url for it (status Quote / Work Order / Completed, job_address, total_invoice_amount).',
    },
    entities: [
      {
        name: 'jobs',
        endpoint: 'GET https://api.servicem8.com/api_1.0/job.json',
        fields: {
          external_id: 'uuid',
          status: 'status',
          address: 'job_address',
          customer_external_id: 'company_uuid',
          total: 'total_invoice_amount',
          scheduled_date: 'date',
        },
      },
      {
        name: 'customers',
        endpoint: 'GET https://api.servicem8.com/api_1.0/company.json',
        fields: { external_id: 'uuid', name: 'name', email: 'email', phone: 'phone' },
      },
    ],
    auth: 'API key (X-API-Key) or OAuth 2.0 for add-ons',
    docs: 'https://developer.servicem8.com/docs',
  },
  {
    id: 'jobber',
    name: 'Jobber',
    aliases: ['jobber'],
    capabilities: ['job_management', 'scheduling', 'dispatch', 'quoting', 'invoicing', 'crm'],
    entities: [
      {
        name: 'jobs',
        endpoint: 'POST https://api.getjobber.com/api/graphql (jobs query)',
        fields: {
          external_id: 'id',
          title: 'title',
          status: 'jobStatus',
          customer_external_id: 'client.id',
          total: 'total',
        },
      },
    ],
    auth: 'OAuth 2.0',
    docs: 'https://developer.getjobber.com/docs',
  },
  {
    id: 'cliniko',
    name: 'Cliniko',
    aliases: ['cliniko'],
    capabilities: ['practice_management', 'scheduling', 'calendar', 'sms', 'invoicing', 'client_records', 'forms'],
    http: {
      kind: 'patients',
      method: 'POST',
      url: 'https://api.REPLACE_WITH_SHARD.cliniko.com/v1/patients',
      auth: 'HTTP Basic auth with the API key as the user name and no password (a Header Auth credential "Authorization: Basic " + base64 of "API_KEY:"); the shard (au1, uk1, …) is the suffix of the key after its last hyphen; Cliniko requires a User-Agent naming the app and a contact e-mail',
      headers: { Accept: 'application/json', 'User-Agent': 'REPLACE_WITH_APP_NAME (REPLACE_WITH_CONTACT_EMAIL)' },
      body: "={{ JSON.stringify({ first_name: ($json.name || $json.email || '').split(' ')[0], last_name: ($json.name || '').split(' ').slice(1).join(' ') || '-', email: $json.email || undefined, patient_phone_numbers: $json.phone ? [{ phone_type: 'Mobile', number: $json.phone }] : undefined }) }}",
    },
    entities: [
      {
        name: 'patients',
        endpoint: 'GET/POST https://api.{shard}.cliniko.com/v1/patients',
        fields: {
          external_id: 'id',
          first_name: 'first_name',
          last_name: 'last_name',
          email: 'email',
          phone: 'patient_phone_numbers[].number',
          created_at: 'created_at',
        },
      },
      {
        name: 'appointments',
        endpoint: 'GET https://api.{shard}.cliniko.com/v1/individual_appointments',
        fields: {
          external_id: 'id',
          starts_at: 'starts_at',
          ends_at: 'ends_at',
          patient: 'patient.links.self',
          practitioner: 'practitioner.links.self',
          appointment_type: 'appointment_type.links.self',
        },
      },
      {
        name: 'invoices',
        endpoint: 'GET https://api.{shard}.cliniko.com/v1/invoices',
        fields: {
          external_id: 'id',
          number: 'number',
          total: 'total_amount',
          status: 'status',
          issued_at: 'issue_date',
        },
      },
    ],
    auth: 'API key as the Basic auth user name (no password), from My Info → Manage API keys; requests need a User-Agent with the app name and a contact e-mail',
    docs: 'https://docs.api.cliniko.com/',
    polling:
      'Cliniko has no webhooks: poll GET /patients (or /individual_appointments) filtered by created_at or updated_at after the last run, e.g. q[]=created_at:>2026-03-02T09:00:00Z.',
  },
  {
    id: 'jane',
    name: 'Jane App',
    aliases: ['jane app', 'janeapp', 'jane.app'],
    capabilities: [
      'practice_management',
      'scheduling',
      'calendar',
      'sms',
      'invoicing',
      'payments',
      'client_records',
      'forms',
    ],
    entities: [],
    auth: 'No API for clinics: the Jane Developer Platform is open to approved technology partners only',
    docs: 'https://jane.app/',
    polling:
      'Reference only: Jane has no public API or webhooks for a clinic; connect through its built-in integrations or its exports.',
  },
  {
    id: 'simplepractice',
    name: 'SimplePractice',
    aliases: ['simplepractice', 'simple practice'],
    capabilities: [
      'practice_management',
      'scheduling',
      'calendar',
      'sms',
      'invoicing',
      'payments',
      'client_records',
      'forms',
    ],
    entities: [],
    auth: 'No public API',
    docs: 'https://www.simplepractice.com/',
    polling:
      'Reference only: SimplePractice has no public API or webhooks; connect through its built-in integrations or its exports.',
  },
  {
    id: 'mindbody',
    name: 'Mindbody',
    aliases: ['mindbody'],
    capabilities: ['practice_management', 'scheduling', 'calendar', 'payments', 'client_records', 'email_marketing'],
    entities: [
      {
        name: 'clients',
        endpoint: 'GET https://api.mindbodyonline.com/public/v6/client/clients',
        fields: {
          external_id: 'Clients[].Id',
          first_name: 'Clients[].FirstName',
          last_name: 'Clients[].LastName',
          email: 'Clients[].Email',
          phone: 'Clients[].MobilePhone',
        },
      },
      {
        name: 'classes',
        endpoint: 'GET https://api.mindbodyonline.com/public/v6/class/classes',
        fields: {
          external_id: 'Classes[].Id',
          name: 'Classes[].ClassDescription.Name',
          start: 'Classes[].StartDateTime',
          end: 'Classes[].EndDateTime',
        },
      },
    ],
    auth: 'Api-Key and SiteId headers, plus a staff user token (Authorization) from POST /public/v6/usertoken/issue',
    docs: 'https://developers.mindbodyonline.com/PublicDocumentation/V6',
    polling:
      "Mindbody's webhooks are a separate Webhooks API subscription; without it, poll the Public API (clients, classes, appointments) for changes since the last run.",
  },
  {
    id: 'housecall-pro',
    name: 'Housecall Pro',
    aliases: ['housecall pro', 'housecallpro'],
    capabilities: ['job_management', 'scheduling', 'dispatch', 'quoting', 'invoicing', 'payments', 'crm'],
    entities: [
      {
        name: 'jobs',
        endpoint: 'GET https://api.housecallpro.com/jobs',
        fields: {
          external_id: 'id',
          status: 'work_status',
          customer_external_id: 'customer.id',
          total: 'total_amount',
        },
      },
      {
        name: 'customers',
        endpoint: 'GET/POST https://api.housecallpro.com/customers',
        fields: {
          external_id: 'id',
          first_name: 'first_name',
          last_name: 'last_name',
          email: 'email',
          phone: 'mobile_number',
        },
      },
    ],
    auth: 'API key (MAX plan), generated under My Apps → API Key Management',
    docs: 'https://docs.housecallpro.com/docs/housecall-public-api',
    polling:
      'Housecall Pro webhooks (MAX plan) are switched on under My Apps → Webhooks; without them, poll GET /jobs and /customers.',
  },
  {
    id: 'acuity',
    name: 'Acuity Scheduling',
    aliases: ['acuity scheduling', 'acuity'],
    capabilities: ['scheduling', 'calendar', 'payments', 'forms'],
    webhook: {
      event: 'appointment.scheduled',
      setup:
        'Acuity → Integrations → API → Webhooks: set "New appointment scheduled" to the production webhook URL (or POST https://acuityscheduling.com/api/v1/webhooks with event "appointment.scheduled" and target the URL).',
      sample: { action: 'scheduled', id: '1223403213', calendarID: '5212', appointmentTypeID: '8423' },
      fields: { external_id: 'String(P.id)', name: "''", email: "''" },
      fetch: {
        url: "'https://acuityscheduling.com/api/v1/appointments/' + P.id",
        fields: {
          external_id: 'String(D.id)',
          name: "[D.firstName, D.lastName].filter(Boolean).join(' ')",
          email: 'D.email',
          phone: 'D.phone',
          amount: 'D.price',
          occurred_at: 'D.datetimeCreated',
          summary: "D.type + ' on ' + D.date + ' at ' + D.time",
        },
      },
      note: 'Acuity posts a form-encoded notice (action, id, calendarID, appointmentTypeID), not the appointment: fetch GET /api/v1/appointments/{id} with Basic auth (user ID and API key) for the client and the time.',
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.acuitySchedulingTrigger', typeVersion: 1, events: ['appointment.scheduled'] },
    },
    entities: [
      {
        name: 'appointments',
        endpoint: 'GET https://acuityscheduling.com/api/v1/appointments',
        fields: {
          external_id: 'id',
          first_name: 'firstName',
          last_name: 'lastName',
          email: 'email',
          phone: 'phone',
          start: 'datetime',
          type: 'type',
          price: 'price',
        },
      },
    ],
    auth: 'HTTP Basic auth: user ID and API key (Integrations → API)',
    docs: 'https://developers.acuityscheduling.com/reference/get-appointments-id',
  },
  {
    id: 'xero',
    name: 'Xero',
    aliases: ['xero'],
    capabilities: ['accounting', 'invoicing'],
    n8n: { action: { type: 'n8n-nodes-base.xero', typeVersion: 1, operation: 'invoice:create' } },
    http: {
      kind: 'invoices',
      method: 'POST',
      url: 'https://api.xero.com/api.xro/2.0/Invoices',
      auth: 'OAuth 2.0 (Xero) with accounting.transactions; set the xero-tenant-id header',
      headers: { 'xero-tenant-id': 'REPLACE_WITH_XERO_TENANT_ID' },
      body: "={{ JSON.stringify({ Invoices: [{ Type: 'ACCREC', Status: 'DRAFT', Contact: { Name: $json.name || $json.email }, Reference: $json.external_id, LineItems: [{ Description: $json.summary || ($json.source + ' ' + $json.external_id), Quantity: 1, UnitAmount: Number($json.amount || 0) }] }] }) }}",
    },
    entities: [
      {
        name: 'invoices',
        endpoint: 'GET/POST https://api.xero.com/api.xro/2.0/Invoices',
        fields: {
          external_id: 'InvoiceID',
          number: 'InvoiceNumber',
          customer_external_id: 'Contact.ContactID',
          total: 'Total',
          currency: 'CurrencyCode',
          status: 'Status',
          due_date: 'DueDate',
        },
      },
      {
        name: 'customers',
        endpoint: 'GET/POST https://api.xero.com/api.xro/2.0/Contacts',
        fields: { external_id: 'ContactID', name: 'Name', email: 'EmailAddress', phone: 'Phones[].PhoneNumber' },
      },
    ],
    auth: 'OAuth 2.0 (Xero-tenant-id header)',
    docs: 'https://developer.xero.com/documentation/api/accounting/invoices',
  },
  {
    id: 'quickbooks',
    name: 'QuickBooks Online',
    aliases: ['quickbooks', 'qbo', 'quick books'],
    capabilities: ['accounting', 'invoicing'],
    n8n: { action: { type: 'n8n-nodes-base.quickbooks', typeVersion: 1, operation: 'invoice:create' } },
    entities: [
      {
        name: 'invoices',
        endpoint: 'POST https://quickbooks.api.intuit.com/v3/company/{realmId}/invoice',
        fields: {
          external_id: 'Id',
          number: 'DocNumber',
          customer_external_id: 'CustomerRef.value',
          total: 'TotalAmt',
          currency: 'CurrencyRef.value',
          due_date: 'DueDate',
          status: 'Balance (0 = paid)',
        },
      },
      {
        name: 'customers',
        endpoint: 'POST https://quickbooks.api.intuit.com/v3/company/{realmId}/customer',
        fields: {
          external_id: 'Id',
          name: 'DisplayName',
          email: 'PrimaryEmailAddr.Address',
          phone: 'PrimaryPhone.FreeFormNumber',
        },
      },
    ],
    auth: 'OAuth 2.0',
    docs: 'https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/invoice',
  },
  {
    id: 'google-sheets',
    name: 'Google Sheets',
    aliases: ['google sheets', 'google sheet', 'gsheet', 'sheets', 'spreadsheet'],
    capabilities: ['spreadsheet'],
    n8n: { action: { type: 'n8n-nodes-base.googleSheets', typeVersion: 4.7, operation: 'sheet:append' } },
    http: {
      kind: 'rows',
      method: 'POST',
      url: 'https://sheets.googleapis.com/v4/spreadsheets/REPLACE_WITH_SPREADSHEET_ID/values/Sheet1!A1:append?valueInputOption=USER_ENTERED',
      auth: 'OAuth2 (Google) with the spreadsheets scope',
      body: '={{ JSON.stringify({ values: [[$json.received_at, $json.source, $json.external_id, $json.name, $json.email, $json.phone, $json.amount, $json.currency, $json.occurred_at, $json.summary]] }) }}',
    },
    entities: [
      {
        name: 'rows',
        endpoint: 'POST https://sheets.googleapis.com/v4/spreadsheets/{id}/values/{range}:append',
        fields: { row: 'values[0][]' },
      },
    ],
    auth: 'OAuth2 (Google)',
    docs: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/append',
  },
  {
    id: 'airtable',
    name: 'Airtable',
    aliases: ['airtable'],
    capabilities: ['database', 'spreadsheet'],
    n8n: { action: { type: 'n8n-nodes-base.airtable', typeVersion: 2.2, operation: 'record:create' } },
    http: {
      kind: 'records',
      method: 'POST',
      url: 'https://api.airtable.com/v0/REPLACE_WITH_BASE_ID/REPLACE_WITH_TABLE_NAME',
      auth: 'Personal access token (Bearer), scope data.records:write',
      body: '={{ JSON.stringify({ records: [{ fields: { Name: $json.name, Email: $json.email, Phone: $json.phone, Source: $json.source, ExternalId: $json.external_id } }] }) }}',
    },
    entities: [
      {
        name: 'records',
        endpoint: 'POST https://api.airtable.com/v0/{base}/{table}',
        fields: { external_id: 'id', fields: 'fields' },
      },
    ],
    auth: 'Personal access token (Bearer)',
    docs: 'https://airtable.com/developers/web/api/create-records',
  },
  {
    id: 'slack',
    name: 'Slack',
    aliases: ['slack'],
    capabilities: ['messaging'],
    n8n: { action: { type: 'n8n-nodes-base.slack', typeVersion: 2.3, operation: 'message:post' } },
    http: {
      kind: 'messages',
      method: 'POST',
      url: 'https://slack.com/api/chat.postMessage',
      auth: 'Bot token (Bearer xoxb-…) with chat:write',
      body: "={{ JSON.stringify({ channel: 'REPLACE_WITH_SLACK_CHANNEL_ID', text: `New ${$json.source} record: ${$json.name || $json.email || $json.external_id}` }) }}",
    },
    entities: [
      {
        name: 'messages',
        endpoint: 'POST https://slack.com/api/chat.postMessage',
        fields: { channel: 'channel', text: 'text' },
      },
    ],
    auth: 'Bot token (Bearer)',
    docs: 'https://api.slack.com/methods/chat.postMessage',
  },
  {
    id: 'gmail',
    name: 'Gmail',
    aliases: ['gmail', 'google mail'],
    capabilities: ['email'],
    n8n: { action: { type: 'n8n-nodes-base.gmail', typeVersion: 2.1, operation: 'message:send' } },
    entities: [
      {
        name: 'messages',
        endpoint: 'POST https://gmail.googleapis.com/gmail/v1/users/me/messages/send',
        fields: { to: 'raw (RFC 2822)', subject: 'raw', body: 'raw' },
      },
    ],
    auth: 'OAuth2 (Google)',
    docs: 'https://developers.google.com/gmail/api/reference/rest/v1/users.messages/send',
  },
  {
    id: 'salesforce',
    name: 'Salesforce',
    aliases: ['salesforce'],
    capabilities: ['crm'],
    n8n: { action: { type: 'n8n-nodes-base.salesforce', typeVersion: 1, operation: 'lead:create' } },
    entities: [
      {
        name: 'contacts',
        endpoint: 'GET/POST https://{instance}.my.salesforce.com/services/data/v61.0/sobjects/Contact',
        fields: {
          external_id: 'Id',
          email: 'Email',
          first_name: 'FirstName',
          last_name: 'LastName',
          phone: 'Phone',
          company: 'Account.Name',
          updated_at: 'LastModifiedDate',
        },
      },
      {
        name: 'leads',
        endpoint: 'POST https://{instance}.my.salesforce.com/services/data/v61.0/sobjects/Lead',
        fields: {
          external_id: 'Id',
          email: 'Email',
          first_name: 'FirstName',
          last_name: 'LastName',
          company: 'Company',
          status: 'Status',
        },
      },
    ],
    auth: 'OAuth 2.0',
    docs: 'https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/',
  },
  {
    id: 'pipedrive',
    name: 'Pipedrive',
    aliases: ['pipedrive'],
    capabilities: ['crm'],
    n8n: { action: { type: 'n8n-nodes-base.pipedrive', typeVersion: 1, operation: 'person:create' } },
    http: {
      kind: 'contacts',
      method: 'POST',
      url: 'https://api.pipedrive.com/v1/persons',
      auth: 'API token in the x-api-token header (Header Auth credential, name x-api-token)',
      body: '={{ JSON.stringify({ name: $json.name || $json.email, email: [$json.email], phone: [$json.phone] }) }}',
    },
    records: [
      {
        http: {
          kind: 'deals',
          method: 'POST',
          url: 'https://api.pipedrive.com/v1/deals',
          auth: 'API token in the x-api-token header (Header Auth credential, name x-api-token)',
          body: "={{ JSON.stringify({ title: ($json.name || $json.email || $json.source) + ': ' + ($json.summary || $json.source + ' ' + $json.external_id), person_id: $json.linked_id, value: Number($json.amount) || undefined, currency: $json.currency || undefined }) }}",
        },
        operation: 'deal:create',
        link: {
          http: {
            kind: 'contacts',
            method: 'POST',
            url: 'https://api.pipedrive.com/v1/persons',
            auth: 'API token in the x-api-token header (Header Auth credential, name x-api-token)',
            body: '={{ JSON.stringify({ name: $json.name || $json.email, email: [$json.email], phone: [$json.phone] }) }}',
          },
          id: '$json.data.id',
        },
        docs: 'https://developers.pipedrive.com/docs/api/v1/Deals#addDeal',
      },
    ],
    entities: [
      {
        name: 'deals',
        endpoint: 'GET/POST https://api.pipedrive.com/v1/deals',
        fields: {
          external_id: 'id',
          title: 'title',
          value: 'value',
          currency: 'currency',
          person_external_id: 'person_id',
          stage: 'stage_id',
          status: 'status',
          updated_at: 'update_time',
        },
      },
      {
        name: 'contacts',
        endpoint: 'GET/POST https://api.pipedrive.com/v1/persons',
        fields: {
          external_id: 'id',
          email: 'email[0].value',
          first_name: 'first_name',
          last_name: 'last_name',
          phone: 'phone[0].value',
          company: 'org_id.name',
          updated_at: 'update_time',
        },
      },
    ],
    auth: 'API token (x-api-token header)',
    docs: 'https://developers.pipedrive.com/docs/api/v1/Persons#addPerson',
  },
  {
    id: 'mailchimp',
    name: 'Mailchimp',
    aliases: ['mailchimp'],
    capabilities: ['email_marketing'],
    n8n: { action: { type: 'n8n-nodes-base.mailchimp', typeVersion: 1, operation: 'member:create' } },
    entities: [
      {
        name: 'contacts',
        endpoint: 'POST https://{dc}.api.mailchimp.com/3.0/lists/{list_id}/members',
        fields: {
          external_id: 'id',
          email: 'email_address',
          first_name: 'merge_fields.FNAME',
          last_name: 'merge_fields.LNAME',
          phone: 'merge_fields.PHONE',
          status: 'status',
        },
      },
    ],
    auth: 'API key (Basic)',
    docs: 'https://mailchimp.com/developer/marketing/api/list-members/',
  },
  {
    id: 'twilio',
    name: 'Twilio',
    aliases: ['twilio'],
    capabilities: ['sms', 'messaging'],
    n8n: { action: { type: 'n8n-nodes-base.twilio', typeVersion: 1, operation: 'sms:send' } },
    entities: [
      {
        name: 'messages',
        endpoint: 'POST https://api.twilio.com/2010-04-01/Accounts/{AccountSid}/Messages.json',
        fields: { to: 'To', from: 'From', body: 'Body', external_id: 'sid' },
      },
    ],
    auth: 'Account SID and auth token (Basic)',
    docs: 'https://www.twilio.com/docs/messaging/api/message-resource',
  },
  {
    id: 'google-calendar',
    name: 'Google Calendar',
    aliases: ['google calendar', 'gcal'],
    capabilities: ['calendar', 'scheduling'],
    n8n: { action: { type: 'n8n-nodes-base.googleCalendar', typeVersion: 1.3, operation: 'event:create' } },
    entities: [
      {
        name: 'events',
        endpoint: 'POST https://www.googleapis.com/calendar/v3/calendars/{calendarId}/events',
        fields: {
          external_id: 'id',
          summary: 'summary',
          start: 'start.dateTime',
          end: 'end.dateTime',
          attendee_email: 'attendees[].email',
        },
      },
    ],
    auth: 'OAuth2 (Google)',
    docs: 'https://developers.google.com/calendar/api/v3/reference/events/insert',
  },
  {
    id: 'notion',
    name: 'Notion',
    aliases: ['notion'],
    capabilities: ['database', 'knowledge_base'],
    n8n: { action: { type: 'n8n-nodes-base.notion', typeVersion: 2.2, operation: 'databasePage:create' } },
    http: {
      kind: 'pages',
      method: 'POST',
      url: 'https://api.notion.com/v1/pages',
      auth: 'Integration secret (Bearer); share the database with the integration',
      headers: { 'Notion-Version': '2022-06-28' },
      body: "={{ JSON.stringify({ parent: { database_id: 'REPLACE_WITH_DATABASE_ID' }, properties: { Name: { title: [{ text: { content: $json.name || $json.external_id } }] }, Email: { email: $json.email || null }, Summary: { rich_text: [{ text: { content: $json.summary || '' } }] } } }) }}",
    },
    entities: [
      {
        name: 'pages',
        endpoint: 'POST https://api.notion.com/v1/pages',
        fields: { external_id: 'id', title: 'properties.Name.title[0].plain_text' },
      },
    ],
    auth: 'Integration secret (Bearer)',
    docs: 'https://developers.notion.com/reference/post-page',
  },
  {
    id: 'discord',
    name: 'Discord',
    aliases: ['discord'],
    capabilities: ['messaging'],
    n8n: { action: { type: 'n8n-nodes-base.discord', typeVersion: 2, operation: 'message:send' } },
    http: {
      kind: 'messages',
      method: 'POST',
      url: 'https://discord.com/api/webhooks/REPLACE_WITH_WEBHOOK_ID/REPLACE_WITH_WEBHOOK_TOKEN',
      auth: 'None (the webhook URL is the secret)',
      body: '={{ JSON.stringify({ content: `New ${$json.source} record: ${$json.summary || $json.name || $json.email || $json.external_id}` }) }}',
    },
    entities: [
      { name: 'messages', endpoint: 'POST https://discord.com/api/webhooks/{id}/{token}', fields: { text: 'content' } },
    ],
    auth: 'Webhook URL',
    docs: 'https://discord.com/developers/docs/resources/webhook#execute-webhook',
  },
  {
    id: 'telegram',
    name: 'Telegram',
    aliases: ['telegram'],
    capabilities: ['messaging'],
    n8n: { action: { type: 'n8n-nodes-base.telegram', typeVersion: 1.2, operation: 'message:sendMessage' } },
    http: {
      kind: 'messages',
      method: 'POST',
      url: 'https://api.telegram.org/botREPLACE_WITH_BOT_TOKEN/sendMessage',
      auth: 'None (the bot token is in the URL)',
      body: "={{ JSON.stringify({ chat_id: 'REPLACE_WITH_CHAT_ID', text: `New ${$json.source} record: ${$json.summary || $json.name || $json.email || $json.external_id}` }) }}",
    },
    entities: [
      {
        name: 'messages',
        endpoint: 'POST https://api.telegram.org/bot{token}/sendMessage',
        fields: { chat: 'chat_id', text: 'text' },
      },
    ],
    auth: 'Bot token',
    docs: 'https://core.telegram.org/bots/api#sendmessage',
  },
  {
    id: 'github',
    name: 'GitHub',
    aliases: ['github'],
    capabilities: ['ticketing'],
    webhook: {
      event: 'issues (opened)',
      setup:
        'Repository → Settings → Webhooks → Add webhook, content type application/json, event "Issues", the production webhook URL (verify X-Hub-Signature-256).',
      sample: {
        action: 'opened',
        issue: {
          id: 1347,
          number: 42,
          title: 'Checkout button does nothing',
          html_url: 'https://github.com/acme/shop/issues/42',
          user: { login: 'dwhitfield' },
          created_at: '2026-03-02T09:14:02Z',
        },
        repository: { full_name: 'acme/shop' },
      },
      fields: {
        external_id: "P.repository.full_name + '#' + P.issue.number",
        name: 'P.issue.user.login',
        email: "''",
        occurred_at: 'P.issue.created_at',
        summary: "'#' + P.issue.number + ' ' + P.issue.title + ' (' + P.action + ')'",
      },
    },
    n8n: {
      trigger: { type: 'n8n-nodes-base.githubTrigger', typeVersion: 1, events: ['issues'] },
      action: { type: 'n8n-nodes-base.github', typeVersion: 1.1, operation: 'issue:create' },
    },
    entities: [
      {
        name: 'issues',
        endpoint: 'GET https://api.github.com/repos/{owner}/{repo}/issues',
        fields: {
          external_id: 'id',
          number: 'number',
          title: 'title',
          state: 'state',
          author: 'user.login',
          updated_at: 'updated_at',
        },
      },
    ],
    auth: 'Fine-grained personal access token (Bearer)',
    docs: 'https://docs.github.com/en/webhooks/webhook-events-and-payloads#issues',
  },
  {
    id: 'square',
    name: 'Square',
    aliases: ['square pos', 'square appointments', 'squareup', 'square'],
    capabilities: ['payments', 'scheduling', 'invoicing', 'ecommerce'],
    entities: [
      {
        name: 'payments',
        endpoint: 'GET https://connect.squareup.com/v2/payments',
        fields: {
          external_id: 'id',
          amount_minor_units: 'amount_money.amount',
          currency: 'amount_money.currency',
          status: 'status',
          created_at: 'created_at',
        },
      },
    ],
    auth: 'Access token (Bearer)',
    docs: 'https://developer.squareup.com/reference/square',
  },
];

/** The table, frozen. */
export const PRODUCTS: readonly Product[] = Object.freeze(TABLE);

const BY_ID = new Map(PRODUCTS.map((p) => [p.id, p]));

/** A product by id (`typeform`, `shipstation`, …). */
export function productById(id: string): Product | undefined {
  return BY_ID.get(id);
}

/** Every product named in the text, in the order they appear in it (each once). */
export function findProducts(text: string): Product[] {
  const hay = haystack(text);
  const found: { p: Product; at: number }[] = [];
  for (const p of PRODUCTS) {
    if (!hasAny(hay, p.aliases)) continue;
    const at = Math.min(...p.aliases.map((a) => hay.indexOf(a.toLowerCase())).filter((i) => i >= 0));
    found.push({ p, at });
  }
  // "Square" inside "Squarespace" is not Square, nor "visual acuity" Acuity; longer aliases of other products win
  // over contained ones.
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.p)
    .filter(
      (p) =>
        !(
          p.id === 'square' &&
          /squarespace/i.test(text) &&
          !/\bsquare\b(?!space)/i.test(text.replace(/squarespace/gi, ''))
        ) && !(p.id === 'acuity' && !/\bacuity\b/i.test(text.replace(/\bvisual\s+acuity\b/gi, ''))),
    );
}

/** The first product named in the text, if any. */
export function findProduct(text: string): Product | undefined {
  return findProducts(text)[0];
}

/** Renders a field expression over `P` as an n8n expression over `input` (e.g. `$json.body`). */
export function n8nExpression(expr: string, input: string): string {
  return `={{ ${expr.replace(/\bP\b/g, input)} }}`;
}
