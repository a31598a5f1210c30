/**
 * automation-wf deliverables: an importable n8n workflow (node types and versions of the pinned n8n-nodes-base
 * snapshot, `connections` keyed by node name, `settings.executionOrder: "v1"`) moving records from source_app to
 * target_app, and setup notes.
 *
 * Apps are looked up in the product table (products.ts): a source's record fields are read where its real webhook
 * payload carries them (Typeform's `form_response.answers[]` by type and `field.ref`, Shopify's `customer`, Stripe's
 * `data.object`, …), sources whose events only reference a record (ShipStation, HubSpot, ServiceM8) get a fetch step,
 * and targets are called with their real API. In a bundle, the workflow listens to the delivered booking page and
 * logs its bookings; store-pack's workflow also logs the store's orders (booking.ts).
 *
 * Source: seed §1, §2.1 (automation-wf inputs: workflow_type, source_app, target_app); issue 13.
 */
import { bookableServices, bundleWiring, type BundleWiring } from './booking';
import { completeInputs } from './inputs';
import { profileFor } from './website-booking';
import { RECORD_KIND_WORDS, findProduct, findProducts, type FieldMap, type HttpTarget, type Product } from './products';
import type { DeliverableContext, DeliverableFile } from './types';
import {
  hasAny,
  haystack,
  line,
  lines,
  markdownFile,
  md,
  mdFooter,
  mdTable,
  provenance,
  slug,
  stableUuid,
} from './util';

const SCHEDULE_WORDS = [
  'schedule',
  'scheduled',
  'daily',
  'hourly',
  'weekly',
  'nightly',
  'cron',
  'report',
  'digest',
  'backup',
  'poll',
  'batch',
  'sync',
];

/** n8n node type versions used here; each is checked against the snapshot by the tests. */
export const NODE_VERSIONS = {
  webhook: 2,
  scheduleTrigger: 1.2,
  httpRequest: 4.2,
  set: 3.4,
  if: 2,
  noOp: 1,
  crypto: 1,
  respondToWebhook: 1.1,
  emailSend: 2.1,
  code: 2,
} as const;

/** The booking page's request body (website-booking `endpoint.payload_schema`). */
const BOOKING_PAGE_FIELDS: FieldMap = {
  external_id: "[P.email, P.date, P.time, P.service].join('|')",
  name: 'P.name',
  email: 'P.email',
  phone: 'P.phone',
  occurred_at: "P.date + 'T' + P.time",
  summary: "P.service + ' on ' + P.date + ' at ' + P.time + (P.notes ? ' (' + P.notes + ')' : '')",
};

/**
 * A hosted booking page's signed `booking.created` / `booking.cancelled` webhook (src/services/bookings.ts
 * `bookingEventBody`): `{ type, timestamp, data: { booking_id, service: { id, name }, start, date, time, timezone,
 * customer: { name, email, phone, notes } } }`.
 */
const BOOKING_EVENT_FIELDS: FieldMap = {
  external_id: 'P.data.booking_id',
  name: 'P.data.customer.name',
  email: 'P.data.customer.email',
  phone: "P.data.customer.phone || ''",
  occurred_at: 'P.data.start',
  summary:
    "(P.type === 'booking.cancelled' ? 'Cancelled: ' : '') + P.data.service.name + ' on ' + P.data.date + ' at ' + P.data.time + ' (' + P.data.timezone + ')' + (P.data.customer.notes ? ': ' + P.data.customer.notes : '')",
};

/** n8n environment variable holding the `whsec_…` secret of the webhook endpoint the booking page signs for. */
export const BOOKING_SECRET_ENV = 'BOOKING_WEBHOOK_SECRET';

/**
 * Code node body verifying Standard Webhooks 1.0 (`webhook-signature: v1,<base64 HMAC-SHA256 of
 * "{webhook-id}.{webhook-timestamp}.{raw body}">` keyed with the base64 part of `whsec_…`, timestamp within 5
 * minutes) on the webhook's raw body. n8n's Crypto node cannot key an HMAC with raw bytes, hence code; it needs
 * `NODE_FUNCTION_ALLOW_BUILTIN=crypto`.
 */
const STANDARD_WEBHOOKS_VERIFY = [
  '// Standard Webhooks 1.0, as the hosted booking page signs (https://www.standardwebhooks.com/).',
  "const crypto = require('crypto');",
  `const secret = String($env.${BOOKING_SECRET_ENV} || '');`,
  "const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.alloc(0);",
  'const items = $input.all();',
  'const out = [];',
  'for (let i = 0; i < items.length; i++) {',
  '  const h = items[i].json.headers || {};',
  "  const raw = items[i].binary && items[i].binary.data ? (await this.helpers.getBinaryDataBuffer(i, 'data')).toString('utf8') : '';",
  "  const expected = 'v1,' + crypto.createHmac('sha256', key).update(h['webhook-id'] + '.' + h['webhook-timestamp'] + '.' + raw).digest('base64');",
  "  const given = String(h['webhook-signature'] || '').split(' ');",
  "  const fresh = Math.abs(Date.now() / 1000 - Number(h['webhook-timestamp'])) <= 300;",
  '  const signed = key.length >= 24 && given.some((s) => s.length === expected.length && crypto.timingSafeEqual(Buffer.from(s), Buffer.from(expected)));',
  '  out.push({ json: { ...items[i].json, signature_valid: signed && fresh } });',
  '}',
  'return out;',
].join('\n');

/** How the buyer points the booking page's signed webhook at the workflow (routes under /api/v1/webhooks). */
export const BOOKING_ENDPOINT_HOWTO =
  'POST /api/v1/webhooks {"url": <this URL>, "agent_id": <your agent>, "events": ["booking.created"]} with the agent\'s wallet key, or PATCH /api/v1/webhooks/{id} {"url": <this URL>, "events": ["booking.created"]} on the order\'s own webhook endpoint with its management token';

/** Any JSON record: the usual names, as a last resort for apps outside the table. */
const GENERIC_FIELDS: FieldMap = {
  external_id: "String(P.id ?? P.order_id ?? P.email ?? '')",
  name: "P.name ?? [P.first_name, P.last_name].filter(Boolean).join(' ')",
  email: "P.email ?? (P.customer && P.customer.email) ?? ''",
  phone: "P.phone ?? ''",
};

interface N8nNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  webhookId?: string;
  onError?: 'continueErrorOutput';
  retryOnFail?: boolean;
  maxTries?: number;
  waitBetweenTries?: number;
  notes?: string;
}

type Connections = Record<string, { main: { node: string; type: 'main'; index: number }[][] }>;

/** One trigger-to-target flow of the workflow. */
interface Flow {
  /** Prefix of node names ("" for a single flow, "Orders: " / "Bookings: "). */
  prefix: string;
  sourceLabel: string;
  source: Product | undefined;
  /** How the source reaches the workflow. */
  mode: 'webhook' | 'schedule';
  webhookPath: string;
  /** Field expressions over P (the event) or, after a fetch, over D. */
  fields: FieldMap;
  fetchUrl: string | null;
  setup: string;
  sample: Record<string, unknown> | null;
  /** Sheet/tab or record kind the target stores ("Bookings", "Orders"). */
  table: string;
  /** `standard-webhooks`: the hosted booking page's signed webhook, verified before anything runs. */
  signing?: 'standard-webhooks';
}

const EXPR_INPUT = '$json.body';

/** An n8n expression of a field code over the webhook body (`P`). */
function expr(code: string): string {
  return `={{ ${code.replace(/\bP\b/g, EXPR_INPUT)} }}`;
}

/** What the workflow creates in the target: the request, a record linked first (a deal's person) and what was named. */
export interface TargetChoice {
  http: HttpTarget | undefined;
  link: { http: HttpTarget; id: string } | undefined;
  /** The record kind the description names for the target ("deals"), when it names one. */
  named: string | null;
  /** A kind the description asks for that the product table has no request for in this target. */
  unsupported: string | null;
  /** The description the choice was read from. */
  description: string;
  docs: string | undefined;
}

const KIND_SINGULAR: Record<string, string> = {
  deals: 'deal',
  contacts: 'person',
  tickets: 'ticket',
  rows: 'row',
  records: 'record',
  invoices: 'invoice',
  pages: 'page',
  messages: 'message',
  orders: 'order',
  patients: 'patient',
};

/**
 * The record kind the buyer names for the target ("into Pipedrive as deals", "create a HubSpot ticket", "add rows")
 * and the target's request for it (products.ts `http` or `records`); the target's default when none is named.
 */
export function chooseTargetRecord(target: Product | undefined, description: string): TargetChoice {
  const options = [
    ...(target?.http ? [{ http: target.http, link: undefined, docs: target.docs }] : []),
    ...(target?.records ?? []).map((r) => ({ http: r.http, link: r.link, docs: r.docs })),
  ];
  const hay = description.toLowerCase();
  // Kinds named after "as" / "create" / "add" / "new" are what the target gets; other mentions count if supported.
  const mentions: { kind: string; at: number; asked: boolean }[] = [];
  for (const [kind, words] of Object.entries(RECORD_KIND_WORDS)) {
    for (const w of words) {
      const re = new RegExp(String.raw`(?<![a-z])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z]*`, 'g');
      for (const m of hay.matchAll(re)) {
        const before = hay.slice(0, m.index);
        const asked =
          /\b(?:as|into|create[sd]?|creating|add(?:s|ed)?|adding|open(?:s|ing)?|raise[sd]?|log(?:s|ged)?)\s+(?:(?:an?|new|the)\s+)?(?:[a-z]+\s+)?$/.test(
            before,
          );
        mentions.push({ kind, at: m.index, asked });
      }
    }
  }
  mentions.sort((a, b) => Number(b.asked) - Number(a.asked) || a.at - b.at);
  const supported = mentions.find((m) => options.some((o) => o.http.kind === m.kind));
  const askedUnsupported = mentions.find((m) => m.asked && !options.some((o) => o.http.kind === m.kind));
  const chosen = (supported && options.find((o) => o.http.kind === supported.kind)) ?? options[0];
  return {
    http: chosen?.http,
    link: chosen?.link,
    named: supported?.kind ?? null,
    unsupported:
      askedUnsupported && (!supported || (askedUnsupported.asked && !supported.asked)) && target
        ? askedUnsupported.kind
        : null,
    docs: chosen?.docs,
    description,
  };
}

/** The chat channel a description names ("… a Slack message to #sales" → "#sales"), or null. */
function channelOf(description: string): string | null {
  return /(?:^|\s)(#[a-z0-9][a-z0-9_-]{0,79})\b/i.exec(description)?.[1] ?? null;
}

/** A further app the description asks to notify ("and a Slack message to #sales"), with where to. */
export interface Notification {
  product: Product;
  /** Slack channel ("#sales") or other destination as written; null when not given. */
  destination: string | null;
}

/**
 * Apps of the product table that can notify (messaging, SMS, e-mail) named in the description besides the source
 * and target, with the channel written after them ("#sales").
 */
export function notificationsOf(
  description: string,
  source: Product | undefined,
  target: Product | undefined,
): Notification[] {
  return findProducts(description)
    .filter((p) => p.id !== source?.id && p.id !== target?.id)
    .filter((p) => p.capabilities.some((c) => c === 'messaging' || c === 'sms' || c === 'email'))
    .filter((p) => p.http || p.id === 'gmail' || p.id === 'twilio')
    .map((product) => {
      const channel = channelOf(description);
      const email = /[\w.+-]+@[\w-]+\.[\w.-]+/.exec(description)?.[0] ?? null;
      const phone = /\+\d[\d\s-]{7,16}\d/.exec(description)?.[0]?.replace(/[\s-]/g, '') ?? null;
      const destination =
        product.id === 'slack' || product.id === 'discord'
          ? channel
          : product.id === 'gmail'
            ? email
            : product.id === 'twilio'
              ? phone
              : null;
      return { product, destination };
    });
}

/**
 * How a source signs its webhooks: the header carrying an HMAC-SHA256 of the raw request body under the shared
 * secret, its encoding and prefix, and the n8n environment variable holding the secret. Sources: Typeform "Secure
 * your webhooks" (Typeform-Signature: sha256=<base64>), Shopify "Verify a webhook" (X-Shopify-Hmac-Sha256: <base64>),
 * WooCommerce (X-WC-Webhook-Signature: <base64>), GitHub (X-Hub-Signature-256: sha256=<hex>).
 */
export interface SignatureScheme {
  /** Request header, lower case as n8n's webhook node reports it. */
  header: string;
  encoding: 'base64' | 'hex';
  /** Text before the digest in the header ("sha256="), or "". */
  prefix: string;
  /** n8n environment variable holding the secret. */
  env: string;
}

/** Signature schemes by product id (products.ts). */
export const SIGNATURES: Readonly<Record<string, SignatureScheme>> = {
  typeform: { header: 'typeform-signature', encoding: 'base64', prefix: 'sha256=', env: 'TYPEFORM_WEBHOOK_SECRET' },
  shopify: { header: 'x-shopify-hmac-sha256', encoding: 'base64', prefix: '', env: 'SHOPIFY_WEBHOOK_SECRET' },
  woocommerce: { header: 'x-wc-webhook-signature', encoding: 'base64', prefix: '', env: 'WOOCOMMERCE_WEBHOOK_SECRET' },
  github: { header: 'x-hub-signature-256', encoding: 'hex', prefix: 'sha256=', env: 'GITHUB_WEBHOOK_SECRET' },
};

/** The shortest secret the signature check accepts (an empty one would let anyone sign). */
export const MIN_SECRET_LENGTH = 16;

/** Environment variable naming where failure alerts go (the Send Email node of the error branch). */
export const ALERT_ENV = { to: 'AUTOMATION_ALERT_EMAIL', from: 'AUTOMATION_ALERT_FROM' } as const;

/** UTM fields a source's event carries (Typeform hidden fields; Shopify's landing_site query), as JS over `P`. */
const UTM_FIELDS: Readonly<Record<string, Record<string, string>>> = {
  typeform: Object.fromEntries(
    ['utm_source', 'utm_medium', 'utm_campaign'].map((k) => [k, `(P.form_response.hidden || {}).${k} || ''`]),
  ),
  shopify: Object.fromEntries(
    ['utm_source', 'utm_medium', 'utm_campaign'].map((k) => [
      k,
      `decodeURIComponent(((P.landing_site || '').match(/[?&]${k}=([^&#]*)/) || [])[1] || '')`,
    ]),
  ),
};

/** Names of the mapped fields an n8n parameter value reads: `<mapRef>.<name>`, and `$json.<name>` when `direct`. */
function fieldsRead(value: unknown, into: Set<string>, mapRef: string, direct: boolean): void {
  if (typeof value === 'string') {
    if (direct) for (const m of value.matchAll(/\$json\.([a-z_]+)/g)) into.add(m[1] as string);
    for (const part of value.split(mapRef).slice(1)) {
      const m = /^\.([a-z_]+)/.exec(part);
      if (m) into.add(m[1] as string);
    }
  } else if (Array.isArray(value)) for (const v of value) fieldsRead(v, into, mapRef, direct);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) fieldsRead(v, into, mapRef, direct);
}

function flowNodes(
  ctx: DeliverableContext,
  flow: Flow,
  target: Product | undefined,
  choice: TargetChoice,
  notifications: Notification[],
  targetLabel: string,
  y: number,
  interval: Record<string, unknown>,
): { nodes: N8nNode[]; connections: Connections } {
  const id = (name: string): string => stableUuid(ctx.orderId, 'n8n-node', name);
  const p = flow.prefix;
  const signature = flow.mode === 'webhook' && flow.source ? SIGNATURES[flow.source.id] : undefined;
  const standard = flow.mode === 'webhook' && flow.signing === 'standard-webhooks';
  const signed = Boolean(signature) || standard;
  // A bundle order names its contact; failures go there, otherwise to the address the n8n environment names.
  const contact = line(ctx.inputs, 'contact_email', '', 200);
  const alertTo = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact) ? contact : undefined;
  const upsertKey = choice.link?.http.upsertKey ?? choice.http?.upsertKey;
  const names = {
    trigger:
      flow.mode === 'webhook'
        ? `${p}${flow.sourceLabel} webhook`
        : `${p}Every ${interval.field === 'minutes' ? '15 minutes' : interval.field === 'days' ? 'day' : 'week'}`,
    verify: standard ? `${p}Verify the ${flow.sourceLabel} signature` : `${p}Compute the ${flow.sourceLabel} signature`,
    valid: `${p}Signature valid?`,
    accept: `${p}Accept (200)`,
    reject: `${p}Reject (401)`,
    fetch: flow.mode === 'webhook' ? `${p}Fetch the ${flow.sourceLabel} record` : `${p}Fetch from ${flow.sourceLabel}`,
    map: `${p}Map ${flow.sourceLabel} fields`,
    check: upsertKey === 'email' ? `${p}Has an e-mail?` : `${p}Has an id?`,
    send: `${p}${upsertKey ? 'Create or update in' : 'Send to'} ${targetLabel}`,
    link: `${p}${choice.link?.http.upsertKey ? 'Create or update' : 'Create'} the ${targetLabel} ${KIND_SINGULAR[choice.link?.http.kind ?? ''] ?? 'record'}`,
    skip: `${p}Skip incomplete record`,
    alert: `${p}Alert: a step failed`,
  };
  const mapped = `$('${names.map.replace(/'/g, "\\'")}').item.json`;
  const nodes: N8nNode[] = [];
  /** Main-output chains: `edges[from]` lists the targets of each output. */
  const edges = new Map<string, string[][]>();
  const connect = (from: string, to: string, output = 0): void => {
    const outs = edges.get(from) ?? [];
    while (outs.length <= output) outs.push([]);
    (outs[output] as string[]).push(to);
    edges.set(from, outs);
  };
  let x = 0;
  const next = (dy = 0): [number, number] => {
    const pos: [number, number] = [x, y + dy];
    x += 220;
    return pos;
  };
  /** External calls fail into the alert branch (their second output) after their retries. */
  const guarded = (node: N8nNode): N8nNode => {
    node.onError = 'continueErrorOutput';
    connect(node.name, names.alert, 1);
    return node;
  };

  if (flow.mode === 'webhook') {
    nodes.push({
      id: id(names.trigger),
      name: names.trigger,
      type: 'n8n-nodes-base.webhook',
      typeVersion: NODE_VERSIONS.webhook,
      position: next(),
      webhookId: stableUuid(ctx.orderId, 'webhook-id', flow.webhookPath),
      parameters: {
        httpMethod: 'POST',
        path: flow.webhookPath,
        // A signed source is answered by the Respond nodes once its signature is checked (401 when it is not).
        responseMode: signed ? 'responseNode' : 'onReceived',
        ...(signed ? {} : { responseCode: 201 }),
        options: signed ? { rawBody: true } : {},
      },
      notes: flow.setup,
    });
  } else {
    nodes.push({
      id: id(names.trigger),
      name: names.trigger,
      type: 'n8n-nodes-base.scheduleTrigger',
      typeVersion: NODE_VERSIONS.scheduleTrigger,
      position: next(),
      parameters: { rule: { interval: [interval] } },
    });
  }
  let last = names.trigger;
  const chain = (node: N8nNode, output = 0): void => {
    nodes.push(node);
    connect(last, node.name, output);
    last = node.name;
  };
  if (signature) {
    // HMAC-SHA256 of the raw body (the webhook's binary "data") under the shared secret, then compared with the header.
    chain({
      id: id(names.verify),
      name: names.verify,
      type: 'n8n-nodes-base.crypto',
      typeVersion: NODE_VERSIONS.crypto,
      position: next(),
      parameters: {
        action: 'hmac',
        binaryData: true,
        binaryPropertyName: 'data',
        type: 'SHA256',
        dataPropertyName: 'expected_signature',
        secret: `={{ $env.${signature.env} || '' }}`,
        encoding: signature.encoding,
      },
      notes: `Secret: the n8n environment variable ${signature.env} (at least ${MIN_SECRET_LENGTH} characters), the same secret as set in ${flow.sourceLabel}.`,
    });
  } else if (standard) {
    chain({
      id: id(names.verify),
      name: names.verify,
      type: 'n8n-nodes-base.code',
      typeVersion: NODE_VERSIONS.code,
      position: next(),
      parameters: { mode: 'runOnceForAllItems', language: 'javaScript', jsCode: STANDARD_WEBHOOKS_VERIFY },
      notes: `Secret: the n8n environment variable ${BOOKING_SECRET_ENV}, the whsec_… secret of the webhook endpoint registered for this URL. Needs NODE_FUNCTION_ALLOW_BUILTIN=crypto.`,
    });
  }
  if (signed) {
    const [vx, vy] = next();
    nodes.push({
      id: id(names.valid),
      name: names.valid,
      type: 'n8n-nodes-base.if',
      typeVersion: NODE_VERSIONS.if,
      position: [vx, vy],
      parameters: {
        conditions: {
          options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
          conditions: signature
            ? [
                {
                  id: id(`${p}condition:signature`),
                  leftValue: '={{ $json.expected_signature }}',
                  rightValue: `={{ String($json.headers['${signature.header}'] || '')${signature.prefix ? `.replace('${signature.prefix}', '')` : ''} }}`,
                  operator: { type: 'string', operation: 'equals' },
                },
                {
                  id: id(`${p}condition:secret`),
                  leftValue: `={{ ($env.${signature.env} || '').length }}`,
                  rightValue: MIN_SECRET_LENGTH,
                  operator: { type: 'number', operation: 'gte' },
                },
              ]
            : [
                {
                  id: id(`${p}condition:signature`),
                  leftValue: '={{ $json.signature_valid }}',
                  rightValue: '',
                  operator: { type: 'boolean', operation: 'true', singleValue: true },
                },
              ],
          combinator: 'and',
        },
        options: {},
      },
    });
    connect(last, names.valid);
    nodes.push({
      id: id(names.reject),
      name: names.reject,
      type: 'n8n-nodes-base.respondToWebhook',
      typeVersion: NODE_VERSIONS.respondToWebhook,
      position: [vx + 220, vy + 160],
      parameters: {
        respondWith: 'json',
        responseBody: '={{ { "error": "invalid signature" } }}',
        options: { responseCode: 401 },
      },
    });
    connect(names.valid, names.reject, 1);
    last = names.valid;
    chain({
      id: id(names.accept),
      name: names.accept,
      type: 'n8n-nodes-base.respondToWebhook',
      typeVersion: NODE_VERSIONS.respondToWebhook,
      position: next(),
      parameters: { respondWith: 'noData', options: { responseCode: 200 } },
    });
  }
  const pollUrl = flow.source?.entities[0]?.endpoint.replace(/^(GET\/POST|GET|POST)\s+/, '');
  const httpGet = (name: string, url: string): N8nNode => ({
    id: id(name),
    name,
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: NODE_VERSIONS.httpRequest,
    position: next(),
    parameters: {
      method: 'GET',
      url,
      authentication: 'genericCredentialType',
      genericAuthType: 'httpHeaderAuth',
      options: {},
    },
    retryOnFail: true,
    maxTries: 3,
    waitBetweenTries: 5000,
    ...(flow.source ? { notes: `${flow.source.name} API: ${flow.source.auth}` } : {}),
  });
  if (flow.fetchUrl || flow.mode === 'schedule') {
    chain(
      guarded(
        httpGet(
          names.fetch,
          flow.fetchUrl ? expr(flow.fetchUrl) : (pollUrl ?? 'https://REPLACE_WITH_SOURCE_API/records'),
        ),
      ),
    );
  }
  // After a fetch or a poll the record is the previous node's output; otherwise it is the webhook's body.
  const fetched = Boolean(flow.fetchUrl) || flow.mode === 'schedule';
  const code = (c: string): string => `={{ ${c.replace(/\b[PD]\b/g, fetched ? '$json' : EXPR_INPUT)} }}`;
  const f = (k: keyof FieldMap): string => {
    const c = flow.fields[k];
    return c ? code(c) : "={{ '' }}";
  };
  const utm = !fetched && flow.source ? (UTM_FIELDS[flow.source.id] ?? {}) : {};
  const candidates: [string, string][] = [
    ['source', flow.sourceLabel],
    ['table', flow.table],
    ['external_id', f('external_id')],
    ['name', f('name')],
    ['email', f('email')],
    ['phone', f('phone')],
    ['amount', f('amount')],
    ['currency', f('currency')],
    ['occurred_at', f('occurred_at')],
    ['summary', f('summary')],
    ...Object.entries(utm).map(([k, c]): [string, string] => [k, code(c)]),
    ['received_at', '={{ $now.toISO() }}'],
    ['payload', fetched ? '={{ JSON.stringify($json) }}' : `={{ JSON.stringify(${EXPR_INPUT}) }}`],
  ];

  // The nodes after the map are built first, so the map builds exactly the fields they send.
  const http = choice.http;
  // A Slack target posts to the channel the description names ("… to #sales").
  const channel = target?.id === 'slack' ? channelOf(choice.description) : null;
  const httpNode = (name: string, h: HttpTarget | undefined, body: string, position: [number, number]): N8nNode => {
    const headers = Object.entries(h?.headers ?? {}).map(([hname, value]) => ({ name: hname, value }));
    return guarded({
      id: id(name),
      name,
      type: 'n8n-nodes-base.httpRequest',
      typeVersion: NODE_VERSIONS.httpRequest,
      position,
      parameters: {
        method: h?.method ?? 'POST',
        url: (h?.url ?? 'https://REPLACE_WITH_TARGET_API/records').replace('Sheet1!A1', `${flow.table}!A1`),
        authentication: 'genericCredentialType',
        genericAuthType: 'httpHeaderAuth',
        sendHeaders: headers.length > 0,
        headerParameters: { parameters: headers },
        sendBody: true,
        specifyBody: 'json',
        jsonBody: body,
        options: {},
      },
      retryOnFail: true,
      maxTries: 3,
      waitBetweenTries: 5000,
    });
  };
  const mapX = x;
  x += 440;
  const [cx, cy] = [mapX + 220, y];
  let sendX = cx + 220;
  const afterCheck: N8nNode[] = [];
  if (choice.link) {
    // The linked record (a deal's person) is created first; the main record reads the mapped fields from the map
    // node and the new id from the response.
    afterCheck.push(httpNode(names.link, choice.link.http, choice.link.http.body, [sendX, cy - 100]));
    sendX += 220;
  }
  const defaultBody =
    '={{ JSON.stringify({ source: $json.source, external_id: $json.external_id, name: $json.name, email: $json.email, phone: $json.phone, amount: $json.amount, currency: $json.currency, occurred_at: $json.occurred_at, summary: $json.summary, payload: JSON.parse($json.payload) }) }}';
  const body = choice.link
    ? (http?.body ?? defaultBody)
        .replace(/\$json\.linked_id/g, '__LINKED_ID__')
        .replace(/\$json\b/g, mapped)
        .replace(/__LINKED_ID__/g, choice.link.id)
    : (http?.body ?? defaultBody).replace("'REPLACE_WITH_SLACK_CHANNEL_ID'", (m) => (channel ? `'${channel}'` : m));
  afterCheck.push(httpNode(names.send, http, body, [sendX, cy - 100]));
  for (const n of notifications) {
    const name = `${p}Notify ${n.product.name}${n.destination ? ` ${n.destination}` : ''}`;
    const kindWord = KIND_SINGULAR[http?.kind ?? ''] ?? 'record';
    const message = `'New ${target?.name ?? targetLabel} ${kindWord} from ${flow.sourceLabel}: ' + (${mapped}.summary || ${mapped}.name || ${mapped}.email || ${mapped}.external_id) + (${mapped}.name ? ' (' + ${mapped}.name + (${mapped}.email ? ', ' + ${mapped}.email : '') + ')' : '')`;
    sendX += 220;
    if (n.product.http) {
      const notifyBody = n.product.http.body
        .replace(/`New \$\{\$json\.source\} record: [^`]*`/, `${message}`)
        .replace("'REPLACE_WITH_SLACK_CHANNEL_ID'", `'${n.destination ?? 'REPLACE_WITH_SLACK_CHANNEL'}'`);
      afterCheck.push(httpNode(name, n.product.http, notifyBody, [sendX, cy - 100]));
    } else if (n.product.n8n?.action) {
      const [resource, operation] = n.product.n8n.action.operation.split(':');
      afterCheck.push(
        guarded({
          id: id(name),
          name,
          type: n.product.n8n.action.type,
          typeVersion: n.product.n8n.action.typeVersion,
          position: [sendX, cy - 100],
          parameters:
            n.product.id === 'gmail'
              ? {
                  resource,
                  operation,
                  sendTo: n.destination ?? 'REPLACE_WITH_RECIPIENT_EMAIL',
                  subject: `=New ${target?.name ?? targetLabel} ${kindWord} from ${flow.sourceLabel}`,
                  emailType: 'text',
                  message: `={{ ${message} }}`,
                  options: {},
                }
              : {
                  resource,
                  operation,
                  from: 'REPLACE_WITH_TWILIO_NUMBER',
                  to: n.destination ?? 'REPLACE_WITH_RECIPIENT_PHONE',
                  message: `={{ ${message} }}`,
                  options: {},
                },
        }),
      );
    }
  }

  const checkField = upsertKey === 'email' ? 'email' : 'external_id';
  // The first node after the check reads the map's output as `$json`; every node may read it by the map's name.
  const used = new Set<string>([checkField]);
  afterCheck.forEach((n, i) => fieldsRead(n.parameters, used, mapped, i === 0));
  const assignment = (name: string, value: string): Record<string, string> => ({
    id: id(`${p}assign:${name}`),
    name,
    value,
    type: 'string',
  });
  chain({
    id: id(names.map),
    name: names.map,
    type: 'n8n-nodes-base.set',
    typeVersion: NODE_VERSIONS.set,
    position: [mapX, y],
    parameters: {
      mode: 'manual',
      assignments: {
        assignments: candidates.filter(([k]) => used.has(k)).map(([k, v]) => assignment(k, v)),
      },
      includeOtherFields: false,
      options: {},
    },
  });
  chain({
    id: id(names.check),
    name: names.check,
    type: 'n8n-nodes-base.if',
    typeVersion: NODE_VERSIONS.if,
    position: [cx, cy],
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
        conditions: [
          {
            id: id(`${p}condition:${checkField}`),
            leftValue: `={{ $json.${checkField} }}`,
            rightValue: '',
            operator: { type: 'string', operation: 'notEmpty', singleValue: true },
          },
        ],
        combinator: 'and',
      },
      options: {},
    },
  });
  nodes.push(...afterCheck);
  afterCheck.forEach((n, i) => connect(i === 0 ? names.check : (afterCheck[i - 1] as N8nNode).name, n.name));
  nodes.push({
    id: id(names.skip),
    name: names.skip,
    type: 'n8n-nodes-base.noOp',
    typeVersion: NODE_VERSIONS.noOp,
    position: [cx + 220, cy + 100],
    parameters: {},
  });
  connect(names.check, names.skip, 1);
  if ([...edges.values()].some((outs) => (outs[1] ?? []).includes(names.alert))) {
    nodes.push({
      id: id(names.alert),
      name: names.alert,
      type: 'n8n-nodes-base.emailSend',
      typeVersion: NODE_VERSIONS.emailSend,
      position: [sendX + 220, cy + 200],
      parameters: {
        fromEmail: `={{ $env.${ALERT_ENV.from} || 'n8n@localhost' }}`,
        toEmail: alertTo ?? `={{ $env.${ALERT_ENV.to} }}`,
        subject: `={{ 'n8n: ' + $workflow.name + ' failed at ' + $prevNode.name }}`,
        emailFormat: 'text',
        text: `={{ 'Step "' + $prevNode.name + '" failed after its retries: ' + JSON.stringify($json.error || $json) + '\\n\\nThe record was not delivered to ${targetLabel.replace(/'/g, "\\'")}; it can be replayed from the execution in n8n.' }}`,
        options: {},
      },
      notes: `Sends the failure to ${alertTo ?? `the address in ${ALERT_ENV.to}`} over the SMTP credential.`,
    });
  }

  const connections: Connections = {};
  for (const [from, outs] of edges)
    connections[from] = { main: outs.map((targets) => targets.map((node) => ({ node, type: 'main', index: 0 }))) };
  return { nodes, connections };
}

function describeField(flow: Flow, key: keyof FieldMap): string {
  const code = flow.fields[key];
  if (!code) return '(not in this payload)';
  return code.replace(/\bP\./g, 'event.').replace(/\bD\./g, 'record.');
}

function sourceFlow(
  ctx: DeliverableContext,
  sourceName: string,
  workflowType: string,
  prefix: string,
  table: string,
): Flow {
  const source = findProduct(sourceName);
  const wantsSchedule = hasAny(haystack(workflowType), SCHEDULE_WORDS);
  const hook = source?.webhook;
  const mode: Flow['mode'] = !wantsSchedule && (hook || !source) ? 'webhook' : 'schedule';
  const path = `${slug(sourceName, 'source', 24)}-${stableUuid(ctx.orderId, 'webhook-path', prefix).slice(0, 8)}`;
  return {
    prefix,
    sourceLabel: source?.name ?? sourceName,
    source,
    mode,
    webhookPath: path,
    fields: mode === 'webhook' && hook ? (hook.fetch?.fields ?? hook.fields) : GENERIC_FIELDS,
    fetchUrl: mode === 'webhook' ? (hook?.fetch?.url ?? null) : null,
    setup: hook?.setup ?? `Configure ${sourceName} to POST JSON events to this node's production URL.`,
    sample: mode === 'webhook' ? (hook?.sample ?? null) : null,
    table,
  };
}

function bookingFlow(ctx: DeliverableContext, wiring: BundleWiring, prefix: string): Flow {
  // The page's services, as website-booking derives them from the same inputs: rows carry names, not ids.
  const page = completeInputs('website-booking', ctx.inputs);
  const profile = profileFor(line(page, 'industry'));
  const services = bookableServices(page, profile.duration, profile.buffer);
  const names = JSON.stringify(
    Object.fromEntries(services.map((s) => [s.id, `${s.name} (${s.duration_minutes} min)`])),
  );
  return {
    prefix,
    sourceLabel: 'Booking page',
    source: undefined,
    mode: 'webhook',
    webhookPath:
      wiring.bookingWebhookPath ??
      `bookings-${stableUuid(ctx.orderId, 'bundle-booking-webhook').replace(/-/g, '').slice(0, 12)}`,
    // A hosted page books itself and tells the owner by a signed webhook (issue 38 §2): the flow is fed by that
    // webhook, verified here; without one the page's form posts its request here directly.
    fields: wiring.hosted
      ? BOOKING_EVENT_FIELDS
      : {
          ...BOOKING_PAGE_FIELDS,
          summary: `(${names}[P.service] || P.service) + ' on ' + P.date + ' at ' + P.time + (P.notes ? ' (' + P.notes + ')' : '')`,
        },
    fetchUrl: null,
    setup: wiring.hosted
      ? `The hosted booking page (${wiring.hosted.url}) sends each booking as a signed booking.created webhook (Standard Webhooks). Register this node's production URL (${wiring.workflowWebhookUrl ?? ''}) as a webhook endpoint for booking.created (${BOOKING_ENDPOINT_HOWTO}) and set n8n's environment variable ${BOOKING_SECRET_ENV} to that endpoint's whsec_… secret (shown once, when it was registered).`
      : `The booking page (website-booking-index.html) and the receptionist's create_booking_request tool POST each booking here (${wiring.bookingEndpoint}).`,
    sample: wiring.hosted
      ? null
      : {
          service: services[0]?.id ?? 'consultation',
          date: '2026-03-05',
          time: '15:00',
          name: 'Dana Whitfield',
          email: 'dana@example.com',
          phone: '+15555550142',
          notes: 'First visit',
        },
    table: 'Bookings',
    ...(wiring.hosted ? { signing: 'standard-webhooks' as const } : {}),
  };
}

/**
 * Generates `automation-wf-workflow.json` (n8n import format) and `automation-wf-setup.md`.
 * Source: seed §1, §2.1; issue 13.
 */
export function automationWfDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const wiring = bundleWiring(ctx);
  const workflowType = wiring
    ? wiring.orderFlow
      ? 'Order and booking logging'
      : 'Booking logging'
    : line(ctx.inputs, 'workflow_type', 'data sync', 120);
  const targetName = line(ctx.inputs, 'target_app', 'Google Sheets', 60);
  const target = findProduct(targetName);
  const targetLabel = target?.name ?? targetName;
  let flows: Flow[];
  if (wiring) {
    flows = [bookingFlow(ctx, wiring, wiring.orderFlow ? 'Bookings: ' : '')];
    if (wiring.orderFlow) {
      // The store's platform as named anywhere in the order; Shopify when none is (said in the notes).
      const named = findProducts(Object.values(ctx.inputs).map(String).join(' ')).find(
        (p) => p.capabilities.includes('ecommerce') && p.webhook,
      );
      flows.unshift(sourceFlow(ctx, named?.name ?? 'Shopify', 'order created', 'Orders: ', 'Orders'));
    }
  } else {
    flows = [sourceFlow(ctx, line(ctx.inputs, 'source_app', 'Source app', 60), workflowType, '', 'Sheet1')];
  }
  const interval = hasAny(haystack(workflowType), ['daily', 'nightly', 'report', 'digest', 'backup'])
    ? { field: 'days', daysInterval: 1, triggerAtHour: 6 }
    : hasAny(haystack(workflowType), ['weekly'])
      ? { field: 'weeks', weeksInterval: 1, triggerAtDay: [1], triggerAtHour: 6 }
      : { field: 'minutes', minutesInterval: 15 };

  const nodes: N8nNode[] = [];
  const connections: Connections = {};
  const description = wiring ? '' : line(ctx.inputs, 'workflow_type', '', 400);
  const choice = chooseTargetRecord(target, description);
  const notifications = wiring ? [] : notificationsOf(description, flows[0]?.source, target);
  flows.forEach((flow, i) => {
    const part = flowNodes(ctx, flow, target, choice, notifications, targetLabel, 300 + i * 400, interval);
    nodes.push(...part.nodes);
    Object.assign(connections, part.connections);
  });

  const sourceNames = flows.map((f) => f.sourceLabel);
  const workflow = {
    name: `${workflowType}: ${sourceNames.join(' + ')} → ${targetLabel}`,
    nodes,
    connections,
    active: false,
    settings: { executionOrder: 'v1', saveManualExecutions: true, callerPolicy: 'workflowsFromSameOwner' },
    pinData: {},
    meta: {
      templateCredsSetupCompleted: false,
      generator: 'agent-commerce/automation-wf',
      ...provenance(ctx),
      ...(wiring ? { bundle: wiring.bundleId } : {}),
    },
  };
  const workflowJson = JSON.stringify(workflow, null, 2);
  const placeholders = [...new Set(workflowJson.match(/REPLACE_WITH_[A-Z0-9_]+/g) ?? [])].sort();
  const assumedPlatform =
    wiring?.orderFlow &&
    !findProducts(Object.values(ctx.inputs).map(String).join(' ')).some((p) => p.capabilities.includes('ecommerce'));

  const notes = lines(
    `# n8n workflow: ${md(workflowType)}`,
    '',
    `Moves records from **${sourceNames.map(md).join('** and **')}** to **${md(targetLabel)}**${choice.http ? ` as ${md(choice.http.kind)} (\`${choice.http.method} ${md(choice.http.url.replace(/\?.*$/, '').replace('Sheet1!A1', `${flows.length === 1 ? (flows[0]?.table ?? 'Sheet1') : '<tab>'}!A1`))}\`)` : ''}.`,
    choice.link
      ? `\nEach ${md(KIND_SINGULAR[choice.http?.kind ?? ''] ?? 'record')} is linked to a ${md(KIND_SINGULAR[choice.link.http.kind] ?? 'record')} created first from the same event (\`${choice.link.http.method} ${md(choice.link.http.url)}\`; its id is read from \`${md(choice.link.id)}\`).`
      : null,
    choice.unsupported
      ? `\nThe order asks for ${md(choice.unsupported)}, which the product table has no ${md(targetLabel)} request for: the workflow creates ${md(choice.http?.kind ?? 'records')}; change the "Send to" node if ${md(targetLabel)} offers ${md(choice.unsupported)}.`
      : null,
    ...notifications.map(
      (n) =>
        `\nThen notifies **${md(n.product.name)}**${n.destination ? ` (${md(n.destination)})` : ''} of each new ${md(KIND_SINGULAR[choice.http?.kind ?? ''] ?? 'record')}${n.destination ? '' : ': set where in the "Notify" node'}.`,
    ),
    wiring
      ? wiring.hosted
        ? `\nPart of ${md(wiring.bundleId)}: the hosted booking page (${md(wiring.hosted.url)}) takes the bookings, its own and the receptionist's, and sends each as a signed \`booking.created\` webhook to this workflow's webhook \`${wiring.bookingWebhookPath ?? ''}\`; the workflow verifies the signature (Standard Webhooks, secret in \`${BOOKING_SECRET_ENV}\`, \`NODE_FUNCTION_ALLOW_BUILTIN=crypto\`), answers 401 to anything else, and logs each booking in ${md(targetLabel)} (tab "Bookings").`
        : `\nPart of ${md(wiring.bundleId)}: the booking page and the receptionist post bookings to this workflow's webhook \`${wiring.bookingWebhookPath ?? ''}\`, so every booking they take is logged in ${md(targetLabel)} (tab "Bookings").`
      : null,
    assumedPlatform
      ? "\nThe order did not name the store platform, so the order flow listens to Shopify's orders/create webhook; for another platform, replace the webhook and the field mapping."
      : null,
    '',
    '## Flow',
    '',
    mdTable(
      ['Step', 'Node', 'Type'],
      nodes.map((n, i) => [i + 1, n.name, `${n.type}@${n.typeVersion}`]),
    ),
    '',
    '## Import',
    '',
    '1. In n8n: **Workflows → Import from File** and choose `automation-wf-workflow.json`.',
    `2. Create a credential for ${md(targetLabel)} and select it on the "Send to" node${flows.length > 1 ? 's' : ''}${choice.link ? ' and the "Create the …" node' : ''}. ${(choice.http?.auth ?? target?.auth ?? 'Use the API key or token of the target app').replace(/\.?$/, '.')}${notifications.map((n) => ` For the "Notify ${md(n.product.name)}" node: ${md(n.product.http?.auth ?? n.product.auth)}.`).join('')}`,
    ...flows.map(
      (flow, i) =>
        `${i + 3}. ${flow.mode === 'webhook' ? `${md(flow.setup)} Webhook path: \`${flow.webhookPath}\`.` : `Create a credential for ${md(flow.sourceLabel)} and select it on "${md(`${flow.prefix}Fetch from ${flow.sourceLabel}`)}".`}${flow.fetchUrl ? ` The event only references the record, so "${md(`${flow.prefix}Fetch the ${flow.sourceLabel} record`)}" fetches it: give it a credential for ${md(flow.source?.auth ?? flow.sourceLabel)}.` : ''}`,
    ),
    placeholders.length > 0
      ? `${flows.length + 3}. Replace the placeholders: ${placeholders.map((p) => `\`${p}\``).join(', ')}.`
      : `${flows.length + 3}. No placeholders to replace.`,
    `${flows.length + 4}. Run once with **Execute workflow** (${flows.some((f) => f.sample) ? 'send the sample below' : 'make a test booking on the page'}), check the output of every node, then activate the workflow.`,
    '',
    ...flows.flatMap((flow) =>
      [
        `## Field mapping${flow.prefix ? `: ${md(flow.prefix.replace(/: $/, ''))}` : ''} (${md(flow.sourceLabel)})`,
        '',
        flow.source?.webhook?.note ? `${md(flow.source.webhook.note)}\n` : null,
        mdTable(
          ['Field', 'Read from'],
          (['external_id', 'name', 'email', 'phone', 'amount', 'currency', 'occurred_at', 'summary'] as const)
            .filter((k) => flow.fields[k])
            .map((k) => [k, describeField(flow, k)]),
        ),
        '',
        !flow.source && !flow.sample
          ? `"${md(flow.sourceLabel)}" is not in the product table: the mapping reads the usual field names (id, name, email); check them against a real event.\n`
          : null,
        flow.sample && flow.mode === 'webhook'
          ? `Test with a real-shaped ${md(flow.sourceLabel)} event:\n\n\`\`\`sh\ncurl -X POST "https://<your-n8n-host>/webhook-test/${flow.webhookPath}" -H 'Content-Type: application/json' -d '${JSON.stringify(flow.sample).replace(/'/g, "'\\''")}'\n\`\`\`\n`
          : null,
      ].filter((l): l is string => l !== null),
    ),
    'Records without an id take the "Skip incomplete record" branch. The HTTP nodes retry three times, five seconds apart.',
    target
      ? `\nTarget API reference: ${choice.docs ?? target.docs}`
      : `\nThe target "${md(targetName)}" is not in the product table: set the URL and the JSON body of the "Send to" node from its API reference.`,
    mdFooter(ctx),
  );

  return [
    {
      name: 'automation-wf-workflow.json',
      media_type: 'application/json',
      content: Buffer.from(`${workflowJson}\n`, 'utf8'),
    },
    markdownFile('automation-wf-setup.md', notes),
  ];
}
