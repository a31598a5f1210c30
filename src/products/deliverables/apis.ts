/**
 * Documented API limits and authentication of the systems the integration deliverables name: one row per API, with
 * the page that documents the limit. Also the systems the n8n product table (products.ts) does not hold because no
 * workflow speaks to them (NetSuite), with their REST records and field names.
 *
 * `sustained_per_second` is what the integration may send on average; where the maker documents a concurrency or a
 * per-minute budget, it is that budget converted (stated in `limit`). `daily` is a documented daily cap, if any.
 *
 * Source: each API's rate-limit documentation (linked in `limit_docs`); issue 38 §4 ("the rate limits and auth of every
 * named API").
 */
import { findProduct, type ProductEntity } from './products';
import { hasAny, haystack } from './util';

/** One API's documented limits. */
export interface ApiLimits {
  /** products.ts id, or this table's own id for systems outside it. */
  id: string;
  name: string;
  /** The documented limit in words. */
  limit: string;
  /** Average requests per second the integration may send (derived from `limit`). */
  sustained_per_second: number;
  /** Documented daily cap, requests per day. */
  daily?: number;
  /** How the API signals the limit. */
  signal: string;
  /** The API's bulk or batch route, for volumes past the per-request budget. */
  bulk?: string;
  auth: string;
  limit_docs: string;
}

/** The table. */
export const API_LIMITS: readonly ApiLimits[] = Object.freeze([
  {
    id: 'netsuite',
    name: 'NetSuite',
    limit:
      'account concurrency governance: 5 concurrent requests on a standard service tier (+10 per SuiteCloud Plus licence), shared by REST and SOAP web services and RESTlets',
    sustained_per_second: 2.5,
    signal: 'HTTP 429 (REST) / WS_CONCUR_SESSION_DISALLWD (SOAP) when the concurrency limit is exceeded',
    bulk: 'CSV import (N/task) or SuiteQL reads (POST /services/rest/query/v1/suiteql); more concurrency with SuiteCloud Plus',
    auth: 'OAuth 2.0 client credentials (certificate, machine-to-machine) or token-based authentication (OAuth 1.0a, HMAC-SHA256) with an integration record and a role limited to the records synced',
    limit_docs: 'https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_156215958930.html',
  },
  {
    id: 'salesforce',
    name: 'Salesforce',
    limit:
      'API request allocation per rolling 24 h (Enterprise: 100,000 + 1,000 per user licence); 25 concurrent long-running (≥ 20 s) requests in production',
    sustained_per_second: 1,
    daily: 100_000,
    signal:
      'REQUEST_LIMIT_EXCEEDED (HTTP 403) when the 24 h allocation is spent; Sforce-Limit-Info header reports usage',
    bulk: 'Bulk API 2.0 (ingest jobs of up to 150,000,000 records a day) and the Composite API (25 subrequests per call)',
    auth: 'OAuth 2.0 (JWT bearer flow for server-to-server) with a connected app and an integration user',
    limit_docs:
      'https://developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm',
  },
  {
    id: 'hubspot',
    name: 'HubSpot',
    limit:
      'private apps: 100 requests per 10 s (Free/Starter), 190 per 10 s (Professional/Enterprise); search API 5 requests per second',
    sustained_per_second: 10,
    daily: 250_000,
    signal: 'HTTP 429 with the X-HubSpot-RateLimit-* headers',
    bulk: 'batch endpoints (POST /crm/v3/objects/{type}/batch/upsert, 100 records per call)',
    auth: 'Private app access token (Bearer) with the CRM scopes of the objects synced',
    limit_docs: 'https://developers.hubspot.com/docs/api/usage-details',
  },
  {
    id: 'shopify',
    name: 'Shopify',
    limit:
      'Admin REST API: leaky bucket of 40 requests per app per store, leaking 2 per second (Shopify Plus: 80 and 4/s); GraphQL: 1,000 cost points restoring 50 per second',
    sustained_per_second: 2,
    signal: 'HTTP 429 with Retry-After; X-Shopify-Shop-Api-Call-Limit reports the bucket',
    bulk: 'GraphQL bulk operations (bulkOperationRunQuery / bulkOperationRunMutation)',
    auth: 'Admin API access token (X-Shopify-Access-Token) of a custom app with the read/write scopes of the records synced; webhooks verified by X-Shopify-Hmac-Sha256',
    limit_docs: 'https://shopify.dev/docs/api/usage/rate-limits',
  },
  {
    id: 'woocommerce',
    name: 'WooCommerce',
    limit:
      'no limit set by WooCommerce itself: the host sets it; the integration holds itself to 5 requests per second',
    sustained_per_second: 5,
    signal: 'HTTP 429 or 503 from the host',
    bulk: 'batch endpoints (POST /wp-json/wc/v3/{resource}/batch, 100 objects per call)',
    auth: 'REST API consumer key and secret (Basic auth over HTTPS); webhooks verified by X-WC-Webhook-Signature',
    limit_docs: 'https://woocommerce.github.io/woocommerce-rest-api-docs/',
  },
  {
    id: 'stripe',
    name: 'Stripe',
    limit: '100 read and 100 write operations per second in live mode (25 in test mode)',
    sustained_per_second: 25,
    signal: 'HTTP 429 (rate_limit error)',
    auth: 'Restricted secret key (Bearer rk_…) limited to the resources synced; webhooks verified by Stripe-Signature',
    limit_docs: 'https://docs.stripe.com/rate-limits',
  },
  {
    id: 'quickbooks',
    name: 'QuickBooks Online',
    limit: '500 requests per minute per company (realm), 10 concurrent; batch: 40 per minute',
    sustained_per_second: 8,
    signal: 'HTTP 429',
    bulk: 'batch operations (POST /v3/company/{realmId}/batch, 30 items per call)',
    auth: 'OAuth 2.0 (Intuit) with the com.intuit.quickbooks.accounting scope; webhooks verified by intuit-signature',
    limit_docs: 'https://developer.intuit.com/app/developer/qbo/docs/learn/rest-api-features#limits-and-throttles',
  },
  {
    id: 'xero',
    name: 'Xero',
    limit: '60 calls per minute and 5,000 per day per tenant, 5 concurrent; 10,000 per minute per app',
    sustained_per_second: 1,
    daily: 5_000,
    signal: 'HTTP 429 with Retry-After and X-MinLimit-Remaining / X-DayLimit-Remaining',
    bulk: 'up to 50 (invoices: 50) records per POST; summarizeErrors=false for partial success',
    auth: 'OAuth 2.0 (Xero) with granular scopes and the xero-tenant-id header; webhooks verified by x-xero-signature',
    limit_docs: 'https://developer.xero.com/documentation/guides/oauth2/limits/',
  },
  {
    id: 'zendesk',
    name: 'Zendesk',
    limit:
      'Support API requests per minute by plan: Team 200, Growth and Professional 400, Enterprise 700, Enterprise Plus 2,500',
    sustained_per_second: 3,
    signal: 'HTTP 429 with Retry-After',
    bulk: 'create_many / update_many endpoints (100 records per call, as a job)',
    auth: 'API token (Basic {email}/token) or OAuth access token',
    limit_docs: 'https://developer.zendesk.com/api-reference/introduction/rate-limits/',
  },
  {
    id: 'pipedrive',
    name: 'Pipedrive',
    limit: 'token-based daily budget by plan and seats, plus a burst limit per 2-second window per user',
    sustained_per_second: 5,
    signal: 'HTTP 429 with x-ratelimit-* headers',
    auth: 'API token (x-api-token header) or OAuth 2.0',
    limit_docs: 'https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting',
  },
  {
    id: 'google-sheets',
    name: 'Google Sheets',
    limit: '300 read and 300 write requests per minute per project, 60 per minute per user per project',
    sustained_per_second: 1,
    signal: 'HTTP 429 (RESOURCE_EXHAUSTED)',
    bulk: 'spreadsheets.values.batchUpdate / append with many rows per request',
    auth: 'OAuth 2.0 (Google) or a service account with the spreadsheets scope',
    limit_docs: 'https://developers.google.com/sheets/api/limits',
  },
  {
    id: 'airtable',
    name: 'Airtable',
    limit: '5 requests per second per base; 50 per second per personal access token across bases',
    sustained_per_second: 5,
    signal: 'HTTP 429, then a 30 s wait',
    bulk: 'up to 10 records per create/update request',
    auth: 'Personal access token (Bearer) with data.records:read/write on the base',
    limit_docs: 'https://airtable.com/developers/web/api/rate-limits',
  },
  {
    id: 'slack',
    name: 'Slack',
    limit:
      'chat.postMessage: about 1 message per second per channel (special tier); other Web API methods by tier (1-4)',
    sustained_per_second: 1,
    signal: 'HTTP 429 with Retry-After',
    auth: 'Bot token (Bearer xoxb-…) with chat:write',
    limit_docs: 'https://api.slack.com/apis/rate-limits',
  },
  {
    id: 'mailchimp',
    name: 'Mailchimp',
    limit: '10 simultaneous connections per API key',
    sustained_per_second: 5,
    signal: 'HTTP 429',
    bulk: 'batch operations (POST /3.0/batches) and POST /lists/{list_id} for 500 members per call',
    auth: 'API key (Basic, key as password) or OAuth 2.0',
    limit_docs: 'https://mailchimp.com/developer/marketing/docs/fundamentals/#api-limits',
  },
  {
    id: 'notion',
    name: 'Notion',
    limit: 'an average of 3 requests per second per integration',
    sustained_per_second: 3,
    signal: 'HTTP 429 (rate_limited) with Retry-After',
    auth: 'Integration secret (Bearer); share the database with the integration',
    limit_docs: 'https://developers.notion.com/reference/request-limits',
  },
  {
    id: 'typeform',
    name: 'Typeform',
    limit: 'Create and Responses APIs: 2 requests per second per account',
    sustained_per_second: 2,
    signal: 'HTTP 429',
    auth: 'Personal access token (Bearer); webhooks verified by Typeform-Signature',
    limit_docs: 'https://www.typeform.com/developers/get-started/#rate-limits',
  },
  {
    id: 'intercom',
    name: 'Intercom',
    limit: '10,000 API calls per minute per app and 25,000 per workspace, spread over 10-second windows',
    sustained_per_second: 100,
    signal: 'HTTP 429 with X-RateLimit-* headers',
    auth: 'Access token (Bearer)',
    limit_docs: 'https://developers.intercom.com/docs/references/rest-api/errors/rate-limiting',
  },
  {
    id: 'freshdesk',
    name: 'Freshdesk',
    limit: 'requests per minute by plan: Growth 200, Pro 400, Enterprise 700',
    sustained_per_second: 3,
    signal: 'HTTP 429 with Retry-After',
    auth: 'API key (Basic, key as user)',
    limit_docs: 'https://developers.freshdesk.com/api/#ratelimit',
  },
  {
    id: 'github',
    name: 'GitHub',
    limit: '5,000 requests per hour per user token (15,000 for GitHub Apps on Enterprise Cloud)',
    sustained_per_second: 1,
    signal: 'HTTP 403/429 with x-ratelimit-remaining 0',
    auth: 'Fine-grained personal access token or GitHub App installation token; webhooks verified by X-Hub-Signature-256',
    limit_docs: 'https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api',
  },
  {
    id: 'shipstation',
    name: 'ShipStation',
    limit: '40 requests per minute per API key',
    sustained_per_second: 0.6,
    signal: 'HTTP 429 with X-Rate-Limit-Reset',
    auth: 'API key and secret (Basic auth)',
    limit_docs: 'https://www.shipstation.com/docs/api/requirements/#api-rate-limits',
  },
  {
    id: 'cliniko',
    name: 'Cliniko',
    limit: '200 requests per minute per user',
    sustained_per_second: 3,
    signal: 'HTTP 429',
    auth: 'API key as the Basic auth user name, with a User-Agent naming the app and a contact e-mail',
    limit_docs: 'https://docs.api.cliniko.com/#rate-limiting',
  },
  {
    id: 'square',
    name: 'Square',
    limit: 'no published number: Square throttles per application and answers RATE_LIMITED',
    sustained_per_second: 5,
    signal: 'HTTP 429 (RATE_LIMITED)',
    bulk: 'batch endpoints (e.g. POST /v2/catalog/batch-upsert)',
    auth: 'Access token (Bearer) of the application, or OAuth 2.0',
    limit_docs: 'https://developer.squareup.com/docs/build-basics/general-considerations/handling-errors',
  },
] satisfies ApiLimits[]);

/** NetSuite's REST records (SuiteTalk REST web services, record API v1) and their field names. */
export const NETSUITE_ENTITIES: readonly ProductEntity[] = Object.freeze<ProductEntity[]>([
  {
    name: 'customers',
    endpoint: 'POST /services/rest/record/v1/customer',
    fields: {
      external_id: 'externalId',
      email: 'email',
      name: 'companyName',
      first_name: 'firstName',
      last_name: 'lastName',
      phone: 'phone',
      updated_at: 'lastModifiedDate',
    },
  },
  {
    name: 'orders',
    endpoint: 'POST /services/rest/record/v1/salesOrder',
    fields: {
      external_id: 'externalId',
      order_number: 'otherRefNum',
      customer_email: 'entity (the customer found by email, created first when missing)',
      currency: 'currency',
      total: 'total',
      status: 'orderStatus',
      created_at: 'tranDate',
      sku: 'item.items[].item (the inventory item found by itemId)',
      quantity: 'item.items[].quantity',
      ship_to_name: 'shippingAddress.addressee',
      ship_to_postcode: 'shippingAddress.zip',
      ship_to_country: 'shippingAddress.country',
      updated_at: 'lastModifiedDate',
    },
  },
  {
    name: 'invoices',
    endpoint: 'POST /services/rest/record/v1/invoice',
    fields: {
      external_id: 'externalId',
      customer_external_id: 'entity.externalId',
      amount_micros: 'total',
      currency: 'currency.refName',
      due_date: 'dueDate',
      status: 'status',
      updated_at: 'lastModifiedDate',
    },
  },
  {
    name: 'products',
    endpoint: 'POST /services/rest/record/v1/inventoryItem',
    fields: {
      external_id: 'externalId',
      sku: 'itemId',
      name: 'displayName',
      price_micros: 'basePrice',
      updated_at: 'lastModifiedDate',
    },
  },
]);

/** The limits row of a system the text names ("NetSuite ERP", "Shopify Plus"), if the table has one. */
export function findApiLimits(text: string): ApiLimits | undefined {
  const product = findProduct(text);
  if (product) {
    const row = API_LIMITS.find((a) => a.id === product.id);
    if (row) return row;
  }
  const hay = haystack(text);
  return API_LIMITS.find((a) => hasAny(hay, [a.name.toLowerCase(), a.id]));
}
