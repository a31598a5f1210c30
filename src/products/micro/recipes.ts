/**
 * Recipe items of the micro catalogue: importable n8n workflows that run from a trigger node,
 * through an "Edit Fields (Set)" node that maps the trigger's payload onto a few common fields, to
 * an action node, plus a sticky note with setup steps.
 *
 * Candidates are (trigger, action) pairs taken from each sector's ordered app lists. Every
 * candidate's node types are checked against the committed n8n-nodes-base snapshot; a candidate
 * whose trigger or action is not a real node type (an app with no n8n node, a version the package
 * does not list, an undeclared operation or event) is dropped and counted.
 *
 * Source: issue 3 §3 (recipes from trigger node to action node, real node types, skipped count),
 * seed §2.12 (item fields, id shape `recipe-<source>-<target>`).
 */
import { stableUuid } from '../deliverables/util';
import { checkNodeUse, type NodeTypeIndex } from './snapshot';
import type { Sector } from './sectors';

/** The fields the "Map fields" node produces from any trigger (all strings). */
export const CANONICAL_FIELDS = ['record_id', 'name', 'email', 'summary', 'amount', 'link'] as const;
/** One of {@link CANONICAL_FIELDS}. */
export type CanonicalField = (typeof CANONICAL_FIELDS)[number];

/** Context a spec's parameters are built in. */
export interface RecipeContext {
  itemId: string;
  sector: Sector;
  title: string;
}

/** A trigger app: its n8n node, parameters and how its payload maps onto the common fields. */
export interface TriggerSpec {
  /** Slug used in item ids (`recipe-<app>-...`). */
  app: string;
  label: string;
  /** Node type identifier, e.g. `n8n-nodes-base.stripeTrigger`. */
  type: string;
  typeVersion: number;
  /** Human label of the event, e.g. "Stripe checkout completed". */
  event: string;
  /** Clause for purposes: "when <when>". */
  when: string;
  /** Event values the node is configured with (checked against the snapshot when it declares them). */
  events?: string[];
  /** Whether the node receives webhooks (the node then carries a `webhookId`). */
  webhook: boolean;
  category: string;
  /** 0 (generic) to 2 (money events); drives the price. */
  weight: 0 | 1 | 2;
  /** n8n expressions (without the `={{ }}` wrapper) for each common field; omitted fields are empty. */
  fields: Partial<Record<CanonicalField, string>>;
  params: (ctx: RecipeContext) => Record<string, unknown>;
  /** Setup step for the sticky note. */
  setup: string;
}

/** An action app: its n8n node, operation and parameters over the common fields. */
export interface ActionSpec {
  app: string;
  label: string;
  type: string;
  typeVersion: number;
  /** `resource:operation` (or `operation`) as the snapshot records it. */
  operation?: string;
  /** What the action does, for titles: "Slack channel alert". */
  result: string;
  /** Clause for purposes: "post ... to Slack". */
  does: string;
  category: string;
  weight: 0 | 1 | 2;
  /** Common fields the trigger must provide; `needsAny` means at least one of them. */
  needs?: CanonicalField[];
  needsAny?: CanonicalField[];
  params: (ctx: RecipeContext) => Record<string, unknown>;
  setup: string;
}

// ---------------------------------------------------------------------------------------------
// Parameter helpers
// ---------------------------------------------------------------------------------------------

/** A resource-locator parameter value as n8n stores it. */
function rl(value: string, mode: 'id' | 'name' | 'url' | 'list' = 'id'): Record<string, unknown> {
  return { __rl: true, value, mode };
}

const POLL_EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

/** Message body used by notification actions: summary, who, amount and link, one per line. */
const MESSAGE = `={{ [$json.event + ': ' + $json.summary, $json.name && ('From: ' + $json.name + ($json.email ? ' <' + $json.email + '>' : '')), !$json.name && $json.email && ('From: ' + $json.email), $json.amount && ('Amount: ' + $json.amount), $json.link].filter(Boolean).join('\\n') }}`;
const SUBJECT = "={{ $json.event + ': ' + $json.summary }}";
const FIRST_NAME = "={{ ($json.name || '').split(' ')[0] }}";
const LAST_NAME = "={{ ($json.name || '').split(' ').slice(1).join(' ') }}";
const AUTO_MAP = { mappingMode: 'autoMapInputData', value: {}, matchingColumns: [], schema: [] };

/** Expressions shared by triggers whose payload is a flat map of form answers. */
const FORM_ANSWERS: Partial<Record<CanonicalField, string>> = {
  record_id: '$execution.id',
  name: "String(Object.values($json).find(v => typeof v === 'string' && v.trim() !== '' && !String(v).includes('@')) ?? '')",
  email: "String(Object.values($json).find(v => /^[^\\s@]+@[^\\s@]+$/.test(String(v))) ?? '')",
  summary: "Object.values($json).filter(v => typeof v === 'string' || typeof v === 'number').slice(0, 4).join(' · ')",
};

// ---------------------------------------------------------------------------------------------
// Trigger apps
// ---------------------------------------------------------------------------------------------

/** Trigger apps by key. Apps marked "no n8n node" are real apps without a node in n8n-nodes-base. */
export const TRIGGERS: Readonly<Record<string, TriggerSpec>> = {
  stripe: {
    app: 'stripe',
    label: 'Stripe',
    type: 'n8n-nodes-base.stripeTrigger',
    typeVersion: 1,
    event: 'Stripe checkout completed',
    when: 'a Stripe checkout session completes',
    events: ['checkout.session.completed'],
    webhook: true,
    category: 'payment',
    weight: 2,
    fields: {
      record_id: '$json.data.object.id',
      name: "$json.data.object.customer_details?.name ?? ''",
      email: "$json.data.object.customer_details?.email ?? ''",
      summary: "'checkout ' + $json.data.object.id + ' paid'",
      amount:
        "(($json.data.object.amount_total ?? 0) / 100).toFixed(2) + ' ' + String($json.data.object.currency ?? '').toUpperCase()",
      link: "'https://dashboard.stripe.com/payments/' + ($json.data.object.payment_intent ?? '')",
    },
    params: () => ({ events: ['checkout.session.completed'] }),
    setup:
      'Stripe Trigger: add a Stripe API credential (secret key); n8n registers the webhook endpoint itself when the workflow is activated.',
  },
  shopify: {
    app: 'shopify',
    label: 'Shopify',
    type: 'n8n-nodes-base.shopifyTrigger',
    typeVersion: 1,
    event: 'Shopify order created',
    when: 'a Shopify order is created',
    events: ['orders/create'],
    webhook: true,
    category: 'order',
    weight: 2,
    fields: {
      record_id: 'String($json.id)',
      name: "[$json.customer?.first_name, $json.customer?.last_name].filter(Boolean).join(' ')",
      email: "$json.email ?? ''",
      summary: "'order ' + $json.name + ' placed'",
      amount: "$json.total_price + ' ' + $json.currency",
      link: "$json.order_status_url ?? ''",
    },
    params: () => ({ authentication: 'accessToken', topic: 'orders/create' }),
    setup:
      'Shopify Trigger: add a Shopify Access Token credential (custom app with read_orders); the webhook is registered on activation.',
  },
  woocommerce: {
    app: 'woocommerce',
    label: 'WooCommerce',
    type: 'n8n-nodes-base.wooCommerceTrigger',
    typeVersion: 1,
    event: 'WooCommerce order created',
    when: 'a WooCommerce order is created',
    events: ['order.created'],
    webhook: true,
    category: 'order',
    weight: 2,
    fields: {
      record_id: 'String($json.id)',
      name: "[$json.billing?.first_name, $json.billing?.last_name].filter(Boolean).join(' ')",
      email: "$json.billing?.email ?? ''",
      summary: "'order #' + ($json.number ?? $json.id) + ' placed'",
      amount: "$json.total + ' ' + $json.currency",
      link: "$json._links?.self?.[0]?.href ?? ''",
    },
    params: () => ({ event: 'order.created' }),
    setup:
      'WooCommerce Trigger: add a WooCommerce API credential (consumer key and secret with read/write access so n8n can create the webhook).',
  },
  gumroad: {
    app: 'gumroad',
    label: 'Gumroad',
    type: 'n8n-nodes-base.gumroadTrigger',
    typeVersion: 1,
    event: 'Gumroad sale',
    when: 'a Gumroad product is sold',
    events: ['sale'],
    webhook: true,
    category: 'payment',
    weight: 2,
    fields: {
      record_id: "$json.sale_id ?? ''",
      name: "$json.full_name ?? ''",
      email: "$json.email ?? ''",
      summary: "'sale of ' + ($json.product_name ?? 'a product')",
      amount: "(Number($json.price ?? 0) / 100).toFixed(2) + ' ' + String($json.currency ?? 'usd').toUpperCase()",
      link: "$json.product_permalink ?? ''",
    },
    params: () => ({ authentication: 'accessToken', resource: 'sale' }),
    setup: 'Gumroad Trigger: add a Gumroad API credential (access token).',
  },
  paypal: {
    app: 'paypal',
    label: 'PayPal',
    type: 'n8n-nodes-base.payPalTrigger',
    typeVersion: 1,
    event: 'PayPal payment captured',
    when: 'a PayPal payment is captured',
    events: ['PAYMENT.CAPTURE.COMPLETED'],
    webhook: true,
    category: 'payment',
    weight: 2,
    fields: {
      record_id: "$json.resource?.id ?? $json.id ?? ''",
      name: "$json.resource?.payer?.name?.given_name ?? ''",
      email: "$json.resource?.payer?.email_address ?? ''",
      summary: "'payment ' + ($json.resource?.id ?? '') + ' captured'",
      amount: "($json.resource?.amount?.value ?? '') + ' ' + ($json.resource?.amount?.currency_code ?? '')",
      link: "$json.resource?.links?.[0]?.href ?? ''",
    },
    params: () => ({ events: ['PAYMENT.CAPTURE.COMPLETED'] }),
    setup: 'PayPal Trigger: add a PayPal API credential (client id and secret of a REST app).',
  },
  chargebee: {
    app: 'chargebee',
    label: 'Chargebee',
    type: 'n8n-nodes-base.chargebeeTrigger',
    typeVersion: 1,
    event: 'Chargebee subscription created',
    when: 'a Chargebee subscription is created',
    events: ['subscription_created'],
    webhook: true,
    category: 'subscription',
    weight: 2,
    fields: {
      record_id: "$json.content?.subscription?.id ?? $json.id ?? ''",
      name: "[$json.content?.customer?.first_name, $json.content?.customer?.last_name].filter(Boolean).join(' ')",
      email: "$json.content?.customer?.email ?? ''",
      summary: "'subscription ' + ($json.content?.subscription?.id ?? '') + ' started'",
      amount: "(Number($json.content?.subscription?.mrr ?? 0) / 100).toFixed(2) + ' MRR'",
    },
    params: () => ({ events: ['subscription_created'] }),
    setup: 'Chargebee Trigger: copy the production webhook URL into Chargebee → Settings → Webhooks.',
  },
  typeform: {
    app: 'typeform',
    label: 'Typeform',
    type: 'n8n-nodes-base.typeformTrigger',
    typeVersion: 1.1,
    event: 'Typeform response',
    when: 'someone submits a Typeform',
    webhook: true,
    category: 'form',
    weight: 1,
    fields: FORM_ANSWERS,
    params: () => ({
      authentication: 'accessToken',
      formId: 'REPLACE_WITH_TYPEFORM_FORM_ID',
      simplifyAnswers: true,
      onlyAnswers: true,
    }),
    setup:
      'Typeform Trigger: add a Typeform personal token credential and pick the form; answers arrive keyed by question, adjust "Map fields" to your questions.',
  },
  jotform: {
    app: 'jotform',
    label: 'Jotform',
    type: 'n8n-nodes-base.jotFormTrigger',
    typeVersion: 1,
    event: 'Jotform submission',
    when: 'someone submits a Jotform',
    webhook: true,
    category: 'form',
    weight: 1,
    fields: FORM_ANSWERS,
    params: () => ({ form: 'REPLACE_WITH_JOTFORM_FORM_ID', resolveData: true, onlyAnswers: true }),
    setup: 'Jotform Trigger: add a Jotform API credential and pick the form; adjust "Map fields" to your questions.',
  },
  'n8n-form': {
    app: 'n8n-form',
    label: 'n8n Form',
    type: 'n8n-nodes-base.formTrigger',
    typeVersion: 2.3,
    event: 'Form request',
    when: 'someone fills in the hosted n8n form',
    webhook: true,
    category: 'form',
    weight: 0,
    fields: {
      record_id: '$json.submittedAt ?? $execution.id',
      name: "$json.Name ?? ''",
      email: "$json.Email ?? ''",
      summary: "$json.Message ?? ''",
    },
    params: (ctx) => ({
      formTitle: `Contact ${ctx.sector.business}`,
      formDescription: `Tell us what you need and we will get back to you. (${ctx.sector.label})`,
      formFields: {
        values: [
          { fieldLabel: 'Name', requiredField: true },
          { fieldLabel: 'Email', fieldType: 'email', requiredField: true },
          { fieldLabel: 'Message', fieldType: 'textarea', requiredField: true },
        ],
      },
      responseMode: 'onReceived',
      options: {},
    }),
    setup:
      'On form submission: no credential needed; share the production form URL shown in the node once the workflow is active.',
  },
  webflow: {
    app: 'webflow',
    label: 'Webflow',
    type: 'n8n-nodes-base.webflowTrigger',
    typeVersion: 2,
    event: 'Webflow form submitted',
    when: 'a Webflow site form is submitted',
    events: ['form_submission'],
    webhook: true,
    category: 'form',
    weight: 1,
    fields: {
      record_id: '($json.payload ?? $json).id ?? $execution.id',
      name: "($json.payload ?? $json).data?.Name ?? ''",
      email: "($json.payload ?? $json).data?.Email ?? ''",
      summary: "'form \"' + (($json.payload ?? $json).name ?? '') + '\" submitted'",
    },
    params: () => ({ site: 'REPLACE_WITH_WEBFLOW_SITE_ID', event: 'form_submission' }),
    setup: 'Webflow Trigger: add a Webflow OAuth2 credential and pick the site.',
  },
  webhook: {
    app: 'webhook',
    label: 'Webhook',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2.1,
    event: 'Webhook event',
    when: 'any system POSTs an event to the workflow URL',
    webhook: true,
    category: 'webhook',
    weight: 0,
    fields: {
      record_id: '$json.body?.id ?? $execution.id',
      name: "$json.body?.name ?? ''",
      email: "$json.body?.email ?? ''",
      summary: '$json.body?.summary ?? JSON.stringify($json.body ?? {}).slice(0, 200)',
      amount: "String($json.body?.amount ?? '')",
      link: "$json.body?.url ?? ''",
    },
    params: (ctx) => ({
      httpMethod: 'POST',
      path: stableUuid('micro', ctx.itemId, 'webhook-path'),
      responseMode: 'onReceived',
      options: {},
    }),
    setup:
      'Webhook: POST JSON such as {"id","name","email","summary","amount","url"} to the production URL; add Header Auth under Authentication before exposing it.',
  },
  calendly: {
    app: 'calendly',
    label: 'Calendly',
    type: 'n8n-nodes-base.calendlyTrigger',
    typeVersion: 2,
    event: 'Calendly booking',
    when: 'someone books through Calendly',
    events: ['invitee.created'],
    webhook: true,
    category: 'booking',
    weight: 1,
    fields: {
      record_id: "$json.payload?.uri ?? ''",
      name: "$json.payload?.name ?? ''",
      email: "$json.payload?.email ?? ''",
      summary:
        "($json.payload?.scheduled_event?.name ?? 'meeting') + ' booked for ' + ($json.payload?.scheduled_event?.start_time ?? '')",
      link: "$json.payload?.reschedule_url ?? ''",
    },
    params: () => ({ scope: 'user', events: ['invitee.created'] }),
    setup: 'Calendly Trigger: add a Calendly OAuth2 credential (webhooks need a paid Calendly plan).',
  },
  'cal-com': {
    app: 'cal-com',
    label: 'Cal.com',
    type: 'n8n-nodes-base.calTrigger',
    typeVersion: 3,
    event: 'Cal.com booking',
    when: 'someone books through Cal.com',
    events: ['BOOKING_CREATED'],
    webhook: true,
    category: 'booking',
    weight: 1,
    fields: {
      record_id: "$json.uid ?? ''",
      name: "$json.attendees?.[0]?.name ?? ''",
      email: "$json.attendees?.[0]?.email ?? ''",
      summary: "($json.title ?? 'booking') + ' at ' + ($json.startTime ?? '')",
    },
    params: () => ({ events: ['BOOKING_CREATED'], options: {} }),
    setup: 'Cal.com Trigger: add a Cal.com API key credential.',
  },
  acuity: {
    app: 'acuity',
    label: 'Acuity Scheduling',
    type: 'n8n-nodes-base.acuitySchedulingTrigger',
    typeVersion: 1,
    event: 'Acuity appointment scheduled',
    when: 'an appointment is scheduled in Acuity',
    events: ['appointment.scheduled'],
    webhook: true,
    category: 'booking',
    weight: 1,
    fields: {
      record_id: 'String($json.id)',
      name: "[$json.firstName, $json.lastName].filter(Boolean).join(' ')",
      email: "$json.email ?? ''",
      summary: "($json.type ?? 'appointment') + ' on ' + ($json.datetime ?? '')",
      amount: "String($json.price ?? '')",
      link: "$json.confirmationPage ?? ''",
    },
    params: () => ({ authentication: 'apiKey', event: 'appointment.scheduled', resolveData: true }),
    setup: 'Acuity Scheduling Trigger: add an Acuity API credential (user id and API key).',
  },
  'facebook-lead-ads': {
    app: 'facebook-lead-ads',
    label: 'Facebook Lead Ads',
    type: 'n8n-nodes-base.facebookLeadAdsTrigger',
    typeVersion: 1,
    event: 'Facebook lead',
    when: 'a Facebook Lead Ads form is submitted',
    events: ['newLead'],
    webhook: true,
    category: 'lead',
    weight: 1,
    fields: {
      record_id: "$json.id ?? ''",
      name: "$json.data?.full_name ?? ''",
      email: "$json.data?.email ?? ''",
      summary: "'lead from ' + ($json.form?.name ?? 'a lead form')",
    },
    params: () => ({
      event: 'newLead',
      page: rl('REPLACE_WITH_PAGE_ID'),
      form: rl('REPLACE_WITH_LEAD_FORM_ID'),
      options: {},
    }),
    setup: 'Facebook Lead Ads Trigger: add a Facebook Lead Ads OAuth2 credential and pick the page and form.',
  },
  github: {
    app: 'github',
    label: 'GitHub',
    type: 'n8n-nodes-base.githubTrigger',
    typeVersion: 1,
    event: 'GitHub issue',
    when: 'a GitHub issue is opened or changed',
    events: ['issues'],
    webhook: true,
    category: 'engineering',
    weight: 1,
    fields: {
      record_id: "String($json.body?.issue?.number ?? '')",
      name: "$json.body?.sender?.login ?? ''",
      summary: "'issue ' + ($json.body?.action ?? '') + ': ' + ($json.body?.issue?.title ?? '')",
      link: "$json.body?.issue?.html_url ?? ''",
    },
    params: () => ({
      authentication: 'accessToken',
      owner: rl('REPLACE_WITH_OWNER', 'name'),
      repository: rl('REPLACE_WITH_REPOSITORY', 'name'),
      events: ['issues'],
      options: {},
    }),
    setup: 'Github Trigger: add a GitHub credential (token with admin:repo_hook) and set owner and repository.',
  },
  jira: {
    app: 'jira',
    label: 'Jira',
    type: 'n8n-nodes-base.jiraTrigger',
    typeVersion: 1.1,
    event: 'Jira issue created',
    when: 'a Jira issue is created',
    events: ['jira:issue_created'],
    webhook: true,
    category: 'engineering',
    weight: 1,
    fields: {
      record_id: "$json.issue?.key ?? ''",
      name: "$json.user?.displayName ?? ''",
      email: "$json.user?.emailAddress ?? ''",
      summary: "$json.issue?.fields?.summary ?? ''",
      link: "$json.issue?.self ?? ''",
    },
    params: () => ({ jiraVersion: 'cloud', events: ['jira:issue_created'], additionalFields: {} }),
    setup: 'Jira Trigger: add a Jira Software Cloud credential (e-mail and API token of an admin).',
  },
  linear: {
    app: 'linear',
    label: 'Linear',
    type: 'n8n-nodes-base.linearTrigger',
    typeVersion: 1,
    event: 'Linear issue',
    when: 'a Linear issue is created or updated',
    events: ['issue'],
    webhook: true,
    category: 'engineering',
    weight: 1,
    fields: {
      record_id: "$json.data?.identifier ?? ''",
      name: "$json.actor?.name ?? ''",
      summary: "'issue ' + ($json.action ?? '') + ': ' + ($json.data?.title ?? '')",
      link: "$json.url ?? $json.data?.url ?? ''",
    },
    params: () => ({ authentication: 'apiToken', teamId: 'REPLACE_WITH_LINEAR_TEAM_ID', resources: ['issue'] }),
    setup: 'Linear Trigger: add a Linear API credential (admin key) and pick the team.',
  },
  zendesk: {
    app: 'zendesk',
    label: 'Zendesk',
    type: 'n8n-nodes-base.zendeskTrigger',
    typeVersion: 1,
    event: 'Zendesk ticket',
    when: 'a new Zendesk ticket arrives',
    webhook: true,
    category: 'support',
    weight: 1,
    fields: {
      record_id: "$json['ticket.id'] ?? ''",
      name: "$json['ticket.requester.name'] ?? ''",
      email: "$json['ticket.requester.email'] ?? ''",
      summary: "'ticket: ' + ($json['ticket.title'] ?? '')",
      link: "$json['ticket.url'] ?? ''",
    },
    params: () => ({
      authentication: 'apiToken',
      service: 'support',
      options: {
        fields: [
          'ticket.id',
          'ticket.title',
          'ticket.description',
          'ticket.url',
          'ticket.requester.name',
          'ticket.requester.email',
        ],
      },
      conditions: { all: [{ resource: 'ticket', field: 'status', operation: 'is', value: 'new' }] },
    }),
    setup: 'Zendesk Trigger: add a Zendesk API credential (subdomain, e-mail and API token).',
  },
  'help-scout': {
    app: 'help-scout',
    label: 'Help Scout',
    type: 'n8n-nodes-base.helpScoutTrigger',
    typeVersion: 1,
    event: 'Help Scout conversation',
    when: 'a Help Scout conversation is created',
    events: ['convo.created'],
    webhook: true,
    category: 'support',
    weight: 1,
    fields: {
      record_id: "String($json.id ?? '')",
      name: "[$json.primaryCustomer?.first, $json.primaryCustomer?.last].filter(Boolean).join(' ')",
      email: "$json.primaryCustomer?.email ?? ''",
      summary: "'conversation: ' + ($json.subject ?? '')",
      link: "$json._links?.web?.href ?? ''",
    },
    params: () => ({ events: ['convo.created'] }),
    setup: 'Help Scout Trigger: add a Help Scout OAuth2 credential.',
  },
  gmail: {
    app: 'gmail',
    label: 'Gmail',
    type: 'n8n-nodes-base.gmailTrigger',
    typeVersion: 1.3,
    event: 'E-mail received',
    when: 'a matching e-mail arrives in Gmail',
    events: ['messageReceived'],
    webhook: false,
    category: 'email',
    weight: 1,
    fields: {
      record_id: '$json.id',
      name: "String($json.From ?? '').replace(/<.*>/, '').replace(/\"/g, '').trim()",
      email: "(String($json.From ?? '').match(/<([^>]+)>/) ?? [])[1] ?? String($json.From ?? '')",
      summary: "($json.Subject ?? '(no subject)') + ' — ' + ($json.snippet ?? '')",
      link: "'https://mail.google.com/mail/u/0/#all/' + ($json.threadId ?? '')",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      event: 'messageReceived',
      simple: true,
      filters: { readStatus: 'unread' },
    }),
    setup:
      'Gmail Trigger: add a Gmail OAuth2 credential; narrow "Filters" (label or search query) to the messages you want.',
  },
  outlook: {
    app: 'outlook',
    label: 'Outlook',
    type: 'n8n-nodes-base.microsoftOutlookTrigger',
    typeVersion: 1,
    event: 'E-mail received',
    when: 'a matching e-mail arrives in Outlook',
    events: ['messageReceived'],
    webhook: false,
    category: 'email',
    weight: 1,
    fields: {
      record_id: '$json.id',
      name: "$json.from?.emailAddress?.name ?? ''",
      email: "$json.from?.emailAddress?.address ?? ''",
      summary: "($json.subject ?? '(no subject)') + ' — ' + ($json.bodyPreview ?? '')",
      link: "$json.webLink ?? ''",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      event: 'messageReceived',
      output: 'simple',
      filters: {},
      options: {},
    }),
    setup:
      'Microsoft Outlook Trigger: add a Microsoft Outlook OAuth2 credential; narrow "Filters" to the folder or sender you want.',
  },
  'google-sheets': {
    app: 'google-sheets',
    label: 'Google Sheets',
    type: 'n8n-nodes-base.googleSheetsTrigger',
    typeVersion: 1,
    event: 'Sheet row added',
    when: 'a row is added to a Google Sheet',
    events: ['rowAdded'],
    webhook: false,
    category: 'spreadsheet',
    weight: 0,
    fields: {
      record_id: 'String($json.row_number ?? $execution.id)',
      name: "$json.Name ?? $json.name ?? ''",
      email: "$json.Email ?? $json.email ?? ''",
      summary:
        "Object.values($json).filter(v => typeof v === 'string' || typeof v === 'number').slice(0, 4).join(' · ')",
      amount: "String($json.Amount ?? $json.amount ?? '')",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      documentId: rl('REPLACE_WITH_SPREADSHEET_ID'),
      sheetName: rl('gid=0', 'list'),
      event: 'rowAdded',
      options: {},
    }),
    setup:
      'Google Sheets Trigger: add a Google Sheets Trigger OAuth2 credential; the sheet needs a header row (Name, Email, Amount, …).',
  },
  airtable: {
    app: 'airtable',
    label: 'Airtable',
    type: 'n8n-nodes-base.airtableTrigger',
    typeVersion: 1,
    event: 'Airtable record created',
    when: 'a record is created in Airtable',
    webhook: false,
    category: 'database',
    weight: 0,
    fields: {
      record_id: '$json.id',
      name: "$json.fields?.Name ?? ''",
      email: "$json.fields?.Email ?? ''",
      summary: "'record ' + ($json.fields?.Name ?? $json.id) + ' created'",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      authentication: 'airtableTokenApi',
      baseId: rl('REPLACE_WITH_BASE_ID'),
      tableId: rl('REPLACE_WITH_TABLE_ID'),
      triggerField: 'Created',
      downloadAttachments: false,
      additionalFields: {},
    }),
    setup:
      'Airtable Trigger: add an Airtable personal access token credential; the table needs a "Created" (created time) field.',
  },
  notion: {
    app: 'notion',
    label: 'Notion',
    type: 'n8n-nodes-base.notionTrigger',
    typeVersion: 1.1,
    event: 'Notion page added',
    when: 'a page is added to a Notion database',
    events: ['pageAddedToDatabase'],
    webhook: false,
    category: 'database',
    weight: 0,
    fields: {
      record_id: '$json.id',
      name: "$json.name ?? ''",
      email: "$json.property_email ?? ''",
      summary: "'page \"' + ($json.name ?? '') + '\" added'",
      link: "$json.url ?? ''",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      event: 'pageAddedToDatabase',
      dataSourceId: rl('REPLACE_WITH_DATA_SOURCE_ID'),
      simple: true,
    }),
    setup: 'Notion Trigger: add a Notion API credential and share the database with the integration.',
  },
  'google-calendar': {
    app: 'google-calendar',
    label: 'Google Calendar',
    type: 'n8n-nodes-base.googleCalendarTrigger',
    typeVersion: 1,
    event: 'Calendar event created',
    when: 'an event is created in Google Calendar',
    events: ['eventCreated'],
    webhook: false,
    category: 'booking',
    weight: 1,
    fields: {
      record_id: '$json.id',
      name: "$json.creator?.displayName ?? ''",
      email: "$json.attendees?.[0]?.email ?? $json.creator?.email ?? ''",
      summary: "($json.summary ?? 'event') + ' at ' + ($json.start?.dateTime ?? $json.start?.date ?? '')",
      link: "$json.htmlLink ?? ''",
    },
    params: () => ({ pollTimes: POLL_EVERY_MINUTE, calendarId: rl('primary'), triggerOn: 'eventCreated', options: {} }),
    setup: 'Google Calendar Trigger: add a Google Calendar OAuth2 credential and pick the calendar.',
  },
  'google-drive': {
    app: 'google-drive',
    label: 'Google Drive',
    type: 'n8n-nodes-base.googleDriveTrigger',
    typeVersion: 1,
    event: 'File added to Drive',
    when: 'a file is added to a Google Drive folder',
    events: ['fileCreated', 'specificFolder'],
    webhook: false,
    category: 'file',
    weight: 0,
    fields: {
      record_id: '$json.id',
      name: "$json.lastModifyingUser?.displayName ?? ''",
      email: "$json.lastModifyingUser?.emailAddress ?? ''",
      summary: "'file \"' + ($json.name ?? '') + '\" added'",
      link: "$json.webViewLink ?? ''",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      triggerOn: 'specificFolder',
      folderToWatch: rl('REPLACE_WITH_FOLDER_ID'),
      event: 'fileCreated',
      options: {},
    }),
    setup: 'Google Drive Trigger: add a Google Drive OAuth2 credential and pick the folder to watch.',
  },
  telegram: {
    app: 'telegram',
    label: 'Telegram',
    type: 'n8n-nodes-base.telegramTrigger',
    typeVersion: 1.2,
    event: 'Telegram message',
    when: 'someone messages your Telegram bot',
    events: ['message'],
    webhook: true,
    category: 'chat',
    weight: 0,
    fields: {
      record_id: "String($json.message?.message_id ?? '')",
      name: "[$json.message?.from?.first_name, $json.message?.from?.last_name].filter(Boolean).join(' ')",
      summary: "$json.message?.text ?? ''",
    },
    params: () => ({ updates: ['message'], additionalFields: {} }),
    setup: 'Telegram Trigger: add a Telegram API credential (bot token from @BotFather).',
  },
  whatsapp: {
    app: 'whatsapp',
    label: 'WhatsApp',
    type: 'n8n-nodes-base.whatsAppTrigger',
    typeVersion: 1,
    event: 'WhatsApp message',
    when: 'a customer messages your WhatsApp Business number',
    events: ['messages'],
    webhook: true,
    category: 'chat',
    weight: 1,
    fields: {
      record_id: "$json.messages?.[0]?.id ?? ''",
      name: "$json.contacts?.[0]?.profile?.name ?? ''",
      summary: "'+' + ($json.messages?.[0]?.from ?? '') + ': ' + ($json.messages?.[0]?.text?.body ?? '')",
    },
    params: () => ({ updates: ['messages'], options: {} }),
    setup: 'WhatsApp Trigger: add a WhatsApp OAuth credential (Meta app client id and secret).',
  },
  mailchimp: {
    app: 'mailchimp',
    label: 'Mailchimp',
    type: 'n8n-nodes-base.mailchimpTrigger',
    typeVersion: 1,
    event: 'Mailchimp subscriber',
    when: 'someone subscribes to a Mailchimp audience',
    events: ['subscribe'],
    webhook: true,
    category: 'marketing',
    weight: 1,
    fields: {
      record_id: "$json.data?.id ?? $json['data[id]'] ?? ''",
      name: "[$json.data?.merges?.FNAME ?? $json['data[merges][FNAME]'], $json.data?.merges?.LNAME ?? $json['data[merges][LNAME]']].filter(Boolean).join(' ')",
      email: "$json.data?.email ?? $json['data[email]'] ?? ''",
      summary: "'new subscriber ' + ($json.data?.email ?? $json['data[email]'] ?? '')",
    },
    params: () => ({
      authentication: 'apiKey',
      list: 'REPLACE_WITH_AUDIENCE_ID',
      events: ['subscribe'],
      sources: ['user', 'admin', 'api'],
    }),
    setup: 'Mailchimp Trigger: add a Mailchimp API credential and pick the audience.',
  },
  eventbrite: {
    app: 'eventbrite',
    label: 'Eventbrite',
    type: 'n8n-nodes-base.eventbriteTrigger',
    typeVersion: 1,
    event: 'Eventbrite order',
    when: 'someone orders tickets on Eventbrite',
    events: ['order.placed'],
    webhook: true,
    category: 'event',
    weight: 1,
    fields: {
      record_id: "$json.id ?? ''",
      name: "$json.name ?? ''",
      email: "$json.email ?? ''",
      summary: "'tickets ordered (order ' + ($json.id ?? '') + ')'",
      amount: "$json.costs?.gross?.display ?? ''",
      link: "$json.resource_uri ?? ''",
    },
    params: () => ({
      authentication: 'privateKey',
      organization: 'REPLACE_WITH_ORGANIZATION_ID',
      event: 'REPLACE_WITH_EVENT_ID',
      actions: ['order.placed'],
      resolveData: true,
    }),
    setup: 'Eventbrite Trigger: add an Eventbrite private token credential and pick organization and event.',
  },
  workable: {
    app: 'workable',
    label: 'Workable',
    type: 'n8n-nodes-base.workableTrigger',
    typeVersion: 1,
    event: 'Workable candidate',
    when: 'a candidate applies in Workable',
    events: ['candidateCreated'],
    webhook: true,
    category: 'recruiting',
    weight: 1,
    fields: {
      record_id: "$json.data?.id ?? ''",
      name: "$json.data?.name ?? ''",
      email: "$json.data?.email ?? ''",
      summary: "'new candidate for ' + ($json.data?.job?.title ?? 'an open role')",
      link: "$json.data?.profile_url ?? ''",
    },
    params: () => ({ triggerOn: 'candidateCreated', filters: {} }),
    setup: 'Workable Trigger: add a Workable API credential (subdomain and access token).',
  },
  onfleet: {
    app: 'onfleet',
    label: 'Onfleet',
    type: 'n8n-nodes-base.onfleetTrigger',
    typeVersion: 1,
    event: 'Onfleet delivery completed',
    when: 'an Onfleet delivery task is completed',
    events: ['taskCompleted'],
    webhook: true,
    category: 'delivery',
    weight: 1,
    fields: {
      record_id: "$json.taskId ?? ''",
      name: "$json.data?.task?.recipients?.[0]?.name ?? ''",
      summary: "'delivery task ' + ($json.data?.task?.shortId ?? '') + ' completed'",
      link: "$json.data?.task?.trackingURL ?? ''",
    },
    params: () => ({ triggerOn: 'taskCompleted', additionalFields: {} }),
    setup: 'Onfleet Trigger: add an Onfleet API credential.',
  },
  postgres: {
    app: 'postgres',
    label: 'Postgres',
    type: 'n8n-nodes-base.postgresTrigger',
    typeVersion: 1,
    event: 'Postgres row inserted',
    when: 'a row is inserted into a Postgres table',
    events: ['INSERT'],
    webhook: false,
    category: 'database',
    weight: 1,
    fields: {
      record_id: "String($json.id ?? '')",
      name: "$json.name ?? $json.recipient_name ?? ''",
      email: "$json.email ?? ''",
      summary: "'new row ' + ($json.id ?? '') + ': ' + ($json.status ?? $json.description ?? '')",
    },
    params: () => ({
      triggerMode: 'createTrigger',
      schema: rl('public', 'name'),
      tableName: rl('REPLACE_WITH_TABLE', 'name'),
      firesOn: 'INSERT',
      additionalFields: {},
      options: {},
    }),
    setup: 'Postgres Trigger: add a Postgres credential whose user may create triggers on the table.',
  },
  rss: {
    app: 'rss',
    label: 'RSS',
    type: 'n8n-nodes-base.rssFeedReadTrigger',
    typeVersion: 1,
    event: 'New feed item',
    when: 'a new item appears in an RSS feed',
    webhook: false,
    category: 'content',
    weight: 0,
    fields: {
      record_id: "$json.guid ?? $json.link ?? ''",
      name: "$json.creator ?? ''",
      summary: "$json.title ?? ''",
      link: "$json.link ?? ''",
    },
    params: () => ({ pollTimes: POLL_EVERY_MINUTE, feedUrl: 'https://REPLACE_WITH_FEED_HOST/feed.xml' }),
    setup: 'RSS Feed Trigger: set the feed URL; no credential needed.',
  },
  'invoice-ninja': {
    app: 'invoice-ninja',
    label: 'Invoice Ninja',
    type: 'n8n-nodes-base.invoiceNinjaTrigger',
    typeVersion: 2,
    event: 'Invoice Ninja payment',
    when: 'a payment is recorded in Invoice Ninja',
    events: ['create_payment'],
    webhook: true,
    category: 'payment',
    weight: 2,
    fields: {
      record_id: "String($json.id ?? '')",
      name: "$json.client?.name ?? ''",
      summary: "'payment ' + ($json.number ?? $json.id ?? '') + ' received'",
      amount: "String($json.amount ?? '')",
    },
    params: () => ({ apiVersion: 'v5', event: 'create_payment' }),
    setup: 'Invoice Ninja Trigger: add an Invoice Ninja API credential (v5 token).',
  },
  'google-business-profile': {
    app: 'google-business-profile',
    label: 'Google Business Profile',
    type: 'n8n-nodes-base.googleBusinessProfileTrigger',
    typeVersion: 1,
    event: 'New Google review',
    when: 'a new Google review is posted',
    events: ['reviewAdded'],
    webhook: false,
    category: 'review',
    weight: 1,
    fields: {
      record_id: "$json.reviewId ?? $json.name ?? ''",
      name: "$json.reviewer?.displayName ?? ''",
      summary: "($json.starRating ?? '') + ' star review: ' + ($json.comment ?? '(no text)')",
    },
    params: () => ({
      pollTimes: POLL_EVERY_MINUTE,
      event: 'reviewAdded',
      account: rl('accounts/REPLACE_WITH_ACCOUNT_NUMBER', 'name'),
      location: rl('locations/REPLACE_WITH_LOCATION_NUMBER', 'name'),
    }),
    setup:
      'Google Business Profile Trigger: add a Google Business Profile OAuth2 credential and pick account and location.',
  },
  clickup: {
    app: 'clickup',
    label: 'ClickUp',
    type: 'n8n-nodes-base.clickUpTrigger',
    typeVersion: 1,
    event: 'ClickUp task created',
    when: 'a ClickUp task is created',
    events: ['taskCreated'],
    webhook: true,
    category: 'project',
    weight: 1,
    fields: {
      record_id: "$json.task_id ?? ''",
      summary: "'task ' + ($json.task_id ?? '') + ' created'",
      link: "'https://app.clickup.com/t/' + ($json.task_id ?? '')",
    },
    params: () => ({
      authentication: 'accessToken',
      team: 'REPLACE_WITH_TEAM_ID',
      events: ['taskCreated'],
      filters: {},
    }),
    setup: 'ClickUp Trigger: add a ClickUp API credential and pick the team (workspace).',
  },
  asana: {
    app: 'asana',
    label: 'Asana',
    type: 'n8n-nodes-base.asanaTrigger',
    typeVersion: 1,
    event: 'Asana project change',
    when: 'something changes in an Asana project',
    webhook: true,
    category: 'project',
    weight: 1,
    fields: {
      record_id: "$json.resource?.gid ?? ''",
      name: "$json.user?.name ?? ''",
      summary: "($json.resource?.resource_type ?? 'item') + ' ' + ($json.action ?? 'changed')",
    },
    params: () => ({
      authentication: 'accessToken',
      resource: 'REPLACE_WITH_PROJECT_ID',
      workspace: 'REPLACE_WITH_WORKSPACE_ID',
    }),
    setup: 'Asana Trigger: add an Asana credential (personal access token) and set the project id to watch.',
  },
  trello: {
    app: 'trello',
    label: 'Trello',
    type: 'n8n-nodes-base.trelloTrigger',
    typeVersion: 1,
    event: 'Trello board change',
    when: 'a card changes on a Trello board',
    webhook: true,
    category: 'project',
    weight: 1,
    fields: {
      record_id: "$json.action?.data?.card?.id ?? ''",
      name: "$json.action?.memberCreator?.fullName ?? ''",
      summary: "($json.action?.type ?? 'change') + ': ' + ($json.action?.data?.card?.name ?? '')",
      link: "$json.action?.data?.card?.shortLink ? 'https://trello.com/c/' + $json.action.data.card.shortLink : ''",
    },
    params: () => ({ authentication: 'apiKey', id: 'REPLACE_WITH_BOARD_ID' }),
    setup: 'Trello Trigger: add a Trello API credential and set the board id (from the board URL + .json).',
  },
  hubspot: {
    app: 'hubspot',
    label: 'HubSpot',
    type: 'n8n-nodes-base.hubspotTrigger',
    typeVersion: 1,
    event: 'HubSpot contact created',
    when: 'a contact is created in HubSpot',
    webhook: true,
    category: 'crm',
    weight: 1,
    fields: {
      record_id: "String($json.objectId ?? '')",
      summary: "'contact ' + ($json.objectId ?? '') + ' created'",
      link: "'https://app.hubspot.com/contacts/' + ($json.portalId ?? '') + '/contact/' + ($json.objectId ?? '')",
    },
    params: () => ({ eventsUi: { eventValues: [{ name: 'contact.creation' }] }, additionalFields: {} }),
    setup: 'HubSpot Trigger: add a HubSpot Developer API credential (developer app with webhooks).',
  },
  surveymonkey: {
    app: 'surveymonkey',
    label: 'SurveyMonkey',
    type: 'n8n-nodes-base.surveyMonkeyTrigger',
    typeVersion: 1,
    event: 'Survey response',
    when: 'someone completes a SurveyMonkey survey',
    events: ['response_completed'],
    webhook: true,
    category: 'survey',
    weight: 1,
    fields: FORM_ANSWERS,
    params: () => ({
      authentication: 'accessToken',
      objectType: 'survey',
      event: 'response_completed',
      surveyIds: ['REPLACE_WITH_SURVEY_ID'],
      resolveData: true,
      onlyAnswers: true,
    }),
    setup:
      'SurveyMonkey Trigger: add a SurveyMonkey API credential and pick the survey; answers arrive keyed by question, adjust "Map fields".',
  },
  kobotoolbox: {
    app: 'kobotoolbox',
    label: 'KoBoToolbox',
    type: 'n8n-nodes-base.koBoToolboxTrigger',
    typeVersion: 1,
    event: 'KoBoToolbox submission',
    when: 'a KoBoToolbox form is submitted from the field',
    events: ['formSubmission'],
    webhook: true,
    category: 'form',
    weight: 1,
    fields: { ...FORM_ANSWERS, record_id: 'String($json._id ?? $execution.id)' },
    params: () => ({ formId: 'REPLACE_WITH_FORM_ID', triggerOn: 'formSubmission', formatOptions: {} }),
    setup:
      'KoBoToolbox Trigger: add a KoBoToolbox API credential and pick the form; adjust "Map fields" to your question names.',
  },
  mailerlite: {
    app: 'mailerlite',
    label: 'MailerLite',
    type: 'n8n-nodes-base.mailerLiteTrigger',
    typeVersion: 2,
    event: 'MailerLite subscriber',
    when: 'someone subscribes in MailerLite',
    events: ['subscriber.created'],
    webhook: true,
    category: 'marketing',
    weight: 1,
    fields: {
      record_id: "String($json.id ?? $json.subscriber?.id ?? '')",
      name: "[$json.fields?.name ?? $json.subscriber?.fields?.name, $json.fields?.last_name ?? $json.subscriber?.fields?.last_name].filter(Boolean).join(' ')",
      email: "$json.email ?? $json.subscriber?.email ?? ''",
      summary: "'new subscriber ' + ($json.email ?? $json.subscriber?.email ?? '')",
    },
    params: () => ({ events: ['subscriber.created'] }),
    setup: 'MailerLite Trigger: add a MailerLite API credential (API v2 token).',
  },
  formstack: {
    app: 'formstack',
    label: 'Formstack',
    type: 'n8n-nodes-base.formstackTrigger',
    typeVersion: 1,
    event: 'Formstack submission',
    when: 'someone submits a Formstack form',
    webhook: true,
    category: 'form',
    weight: 1,
    fields: FORM_ANSWERS,
    params: () => ({ authentication: 'accessToken', formId: 'REPLACE_WITH_FORM_ID', simple: true }),
    setup: 'Formstack Trigger: add a Formstack API credential and pick the form; adjust "Map fields" to your fields.',
  },
  wufoo: {
    app: 'wufoo',
    label: 'Wufoo',
    type: 'n8n-nodes-base.wufooTrigger',
    typeVersion: 1,
    event: 'Wufoo entry',
    when: 'someone submits a Wufoo form',
    webhook: true,
    category: 'form',
    weight: 1,
    fields: FORM_ANSWERS,
    params: () => ({ form: 'REPLACE_WITH_FORM_HASH', onlyAnswers: true }),
    setup: 'Wufoo Trigger: add a Wufoo API credential and pick the form; adjust "Map fields" to your fields.',
  },
  intercom: unavailableTrigger(
    'intercom',
    'Intercom',
    'n8n-nodes-base.intercomTrigger',
    'Intercom conversation',
    'support',
  ),
  square: unavailableTrigger('square', 'Square', 'n8n-nodes-base.squareTrigger', 'Square payment', 'payment'),
  mindbody: unavailableTrigger('mindbody', 'Mindbody', 'n8n-nodes-base.mindbodyTrigger', 'Mindbody booking', 'booking'),
  zillow: unavailableTrigger('zillow', 'Zillow', 'n8n-nodes-base.zillowTrigger', 'Zillow lead', 'lead'),
  docusign: unavailableTrigger(
    'docusign',
    'DocuSign',
    'n8n-nodes-base.docuSignTrigger',
    'DocuSign envelope completed',
    'contract',
  ),
  opentable: unavailableTrigger(
    'opentable',
    'OpenTable',
    'n8n-nodes-base.openTableTrigger',
    'OpenTable reservation',
    'booking',
  ),
  teachable: unavailableTrigger(
    'teachable',
    'Teachable',
    'n8n-nodes-base.teachableTrigger',
    'Teachable enrollment',
    'enrollment',
  ),
  greenhouse: unavailableTrigger(
    'greenhouse',
    'Greenhouse',
    'n8n-nodes-base.greenhouseTrigger',
    'Greenhouse application',
    'recruiting',
  ),
  shipstation: unavailableTrigger(
    'shipstation',
    'ShipStation',
    'n8n-nodes-base.shipStationTrigger',
    'ShipStation shipment',
    'delivery',
  ),
  donorbox: unavailableTrigger(
    'donorbox',
    'Donorbox',
    'n8n-nodes-base.donorboxTrigger',
    'Donorbox donation',
    'payment',
  ),
};

/**
 * A trigger for an app that has no node in n8n-nodes-base, named as a builder would guess it.
 * It exists so that recipe candidates for such apps are generated and then dropped by validation.
 */
function unavailableTrigger(app: string, label: string, type: string, event: string, category: string): TriggerSpec {
  return {
    app,
    label,
    type,
    typeVersion: 1,
    event,
    when: `${event.toLowerCase()} happens`,
    webhook: true,
    category,
    weight: 1,
    fields: {
      record_id: "$json.id ?? ''",
      name: "$json.name ?? ''",
      email: "$json.email ?? ''",
      summary: `'${event}'`,
    },
    params: () => ({}),
    setup: `${label}: no n8n node exists; this candidate is never delivered.`,
  };
}

/** An action for an app that has no node in n8n-nodes-base (see {@link unavailableTrigger}). */
function unavailableAction(app: string, label: string, type: string, result: string, category: string): ActionSpec {
  return {
    app,
    label,
    type,
    typeVersion: 1,
    result,
    does: `update ${label}`,
    category,
    weight: 1,
    params: () => ({}),
    setup: `${label}: no n8n node exists; this candidate is never delivered.`,
  };
}

// ---------------------------------------------------------------------------------------------
// Action apps
// ---------------------------------------------------------------------------------------------

/** Action apps by key. */
export const ACTIONS: Readonly<Record<string, ActionSpec>> = {
  slack: {
    app: 'slack',
    label: 'Slack',
    type: 'n8n-nodes-base.slack',
    typeVersion: 2.3,
    operation: 'message:post',
    result: 'Slack alert',
    does: 'post an alert with the key details to a Slack channel',
    category: 'notification',
    weight: 0,
    params: () => ({
      resource: 'message',
      operation: 'post',
      select: 'channel',
      channelId: rl('REPLACE_WITH_CHANNEL_ID'),
      messageType: 'text',
      text: MESSAGE,
      otherOptions: { includeLinkToWorkflow: false },
    }),
    setup:
      'Slack: add a Slack API credential (bot token with chat:write), invite the bot to the channel and set its id.',
  },
  'microsoft-teams': {
    app: 'microsoft-teams',
    label: 'Microsoft Teams',
    type: 'n8n-nodes-base.microsoftTeams',
    typeVersion: 2,
    operation: 'channelMessage:create',
    result: 'Teams channel message',
    does: 'post the details to a Microsoft Teams channel',
    category: 'notification',
    weight: 0,
    params: () => ({
      resource: 'channelMessage',
      operation: 'create',
      teamId: rl('REPLACE_WITH_TEAM_ID'),
      channelId: rl('REPLACE_WITH_CHANNEL_ID'),
      contentType: 'text',
      message: MESSAGE,
      options: {},
    }),
    setup: 'Microsoft Teams: add a Microsoft Teams OAuth2 credential and set team and channel.',
  },
  discord: {
    app: 'discord',
    label: 'Discord',
    type: 'n8n-nodes-base.discord',
    typeVersion: 2,
    operation: 'message:send',
    result: 'Discord message',
    does: 'post the details to a Discord channel',
    category: 'notification',
    weight: 0,
    params: () => ({
      authentication: 'botToken',
      resource: 'message',
      operation: 'send',
      guildId: rl('REPLACE_WITH_SERVER_ID'),
      sendTo: 'channel',
      channelId: rl('REPLACE_WITH_CHANNEL_ID'),
      content: MESSAGE,
      options: {},
    }),
    setup: 'Discord: add a Discord Bot credential, add the bot to the server and set server and channel.',
  },
  telegram: {
    app: 'telegram',
    label: 'Telegram',
    type: 'n8n-nodes-base.telegram',
    typeVersion: 1.2,
    operation: 'message:sendMessage',
    result: 'Telegram message',
    does: 'send the details to a Telegram chat',
    category: 'notification',
    weight: 0,
    params: () => ({
      resource: 'message',
      operation: 'sendMessage',
      chatId: 'REPLACE_WITH_CHAT_ID',
      text: MESSAGE,
      additionalFields: { appendAttribution: false },
    }),
    setup: 'Telegram: add a Telegram API credential (bot token) and set the chat id of your team group.',
  },
  twilio: {
    app: 'twilio',
    label: 'Twilio',
    type: 'n8n-nodes-base.twilio',
    typeVersion: 1,
    operation: 'sms:send',
    result: 'SMS alert',
    does: 'text the details to the on-duty phone with Twilio',
    category: 'notification',
    weight: 1,
    params: () => ({
      resource: 'sms',
      operation: 'send',
      from: 'REPLACE_WITH_TWILIO_NUMBER',
      to: 'REPLACE_WITH_ON_DUTY_NUMBER',
      toWhatsapp: false,
      message: "={{ ($json.event + ': ' + $json.summary).slice(0, 300) }}",
      options: {},
    }),
    setup:
      'Twilio: add a Twilio credential (account SID and auth token) and set your Twilio number and the on-duty mobile.',
  },
  whatsapp: {
    app: 'whatsapp',
    label: 'WhatsApp',
    type: 'n8n-nodes-base.whatsApp',
    typeVersion: 1.1,
    operation: 'message:send',
    result: 'WhatsApp message',
    does: 'send the details to the team WhatsApp number',
    category: 'notification',
    weight: 1,
    params: () => ({
      resource: 'message',
      operation: 'send',
      phoneNumberId: 'REPLACE_WITH_PHONE_NUMBER_ID',
      recipientPhoneNumber: 'REPLACE_WITH_TEAM_NUMBER',
      messageType: 'text',
      textBody: MESSAGE,
      additionalFields: {},
    }),
    setup:
      'WhatsApp Business Cloud: add a WhatsApp API credential; free-form text only reaches numbers that wrote to you in the last 24 hours.',
  },
  gmail: {
    app: 'gmail',
    label: 'Gmail',
    type: 'n8n-nodes-base.gmail',
    typeVersion: 2.1,
    operation: 'message:send',
    result: 'Gmail notification',
    does: 'e-mail the details to the team inbox with Gmail',
    category: 'email',
    weight: 0,
    params: () => ({
      resource: 'message',
      operation: 'send',
      sendTo: 'REPLACE_WITH_TEAM_INBOX',
      subject: SUBJECT,
      emailType: 'text',
      message: MESSAGE,
      options: { appendAttribution: false },
    }),
    setup: 'Gmail: add a Gmail OAuth2 credential and set the team inbox address.',
  },
  outlook: {
    app: 'outlook',
    label: 'Outlook',
    type: 'n8n-nodes-base.microsoftOutlook',
    typeVersion: 2,
    operation: 'message:send',
    result: 'Outlook notification',
    does: 'e-mail the details to the team inbox with Outlook',
    category: 'email',
    weight: 0,
    params: () => ({
      resource: 'message',
      operation: 'send',
      toRecipients: 'REPLACE_WITH_TEAM_INBOX',
      subject: SUBJECT,
      bodyContent: MESSAGE,
      additionalFields: { bodyContentType: 'Text' },
    }),
    setup: 'Microsoft Outlook: add a Microsoft Outlook OAuth2 credential and set the team inbox address.',
  },
  'google-sheets': {
    app: 'google-sheets',
    label: 'Google Sheets',
    type: 'n8n-nodes-base.googleSheets',
    typeVersion: 4.5,
    operation: 'sheet:append',
    result: 'Google Sheets log',
    does: 'append a row with the mapped fields to a Google Sheet',
    category: 'spreadsheet',
    weight: 1,
    params: () => ({
      resource: 'sheet',
      operation: 'append',
      documentId: rl('REPLACE_WITH_SPREADSHEET_ID'),
      sheetName: rl('Sheet1', 'name'),
      columns: AUTO_MAP,
      options: {},
    }),
    setup:
      'Google Sheets: add a Google Sheets OAuth2 credential; give the sheet a header row: record_id, event, source, sector, name, email, summary, amount, link, received_at.',
  },
  airtable: {
    app: 'airtable',
    label: 'Airtable',
    type: 'n8n-nodes-base.airtable',
    typeVersion: 2.1,
    operation: 'record:create',
    result: 'Airtable record',
    does: 'create an Airtable record with the mapped fields',
    category: 'database',
    weight: 1,
    params: () => ({
      resource: 'record',
      operation: 'create',
      base: rl('REPLACE_WITH_BASE_ID'),
      table: rl('REPLACE_WITH_TABLE_ID'),
      columns: AUTO_MAP,
      options: { typecast: true },
    }),
    setup:
      'Airtable: add an Airtable personal access token credential; create text fields named like the mapped fields (record_id, event, name, email, summary, …).',
  },
  notion: {
    app: 'notion',
    label: 'Notion',
    type: 'n8n-nodes-base.notion',
    typeVersion: 2.2,
    operation: 'databasePage:create',
    result: 'Notion page',
    does: 'create a page in a Notion database',
    category: 'database',
    weight: 1,
    params: () => ({
      resource: 'databasePage',
      operation: 'create',
      databaseId: rl('REPLACE_WITH_DATABASE_ID'),
      title: "={{ $json.event + ': ' + $json.summary }}",
      simple: true,
      blockUi: { blockValues: [{ type: 'paragraph', textContent: MESSAGE }] },
      options: {},
    }),
    setup: 'Notion: add a Notion API credential and share the database with the integration.',
  },
  postgres: {
    app: 'postgres',
    label: 'Postgres',
    type: 'n8n-nodes-base.postgres',
    typeVersion: 2.5,
    operation: 'database:insert',
    result: 'Postgres row',
    does: 'insert a row into a Postgres table',
    category: 'database',
    weight: 2,
    params: () => ({
      operation: 'insert',
      schema: rl('public', 'name'),
      table: rl('automation_events', 'name'),
      columns: AUTO_MAP,
      options: {},
    }),
    setup:
      'Postgres: add a Postgres credential and create the table: CREATE TABLE automation_events (record_id text, event text, source text, sector text, name text, email text, summary text, amount text, link text, received_at timestamptz);',
  },
  hubspot: {
    app: 'hubspot',
    label: 'HubSpot',
    type: 'n8n-nodes-base.hubspot',
    typeVersion: 2.1,
    operation: 'contact:upsert',
    result: 'HubSpot contact',
    does: 'create or update the HubSpot contact',
    category: 'crm',
    weight: 1,
    needs: ['email'],
    params: () => ({
      authentication: 'appToken',
      resource: 'contact',
      operation: 'upsert',
      email: '={{ $json.email }}',
      additionalFields: { firstName: FIRST_NAME, lastName: LAST_NAME },
      options: {},
    }),
    setup: 'HubSpot: add a HubSpot App Token credential (private app with crm.objects.contacts.write).',
  },
  pipedrive: {
    app: 'pipedrive',
    label: 'Pipedrive',
    type: 'n8n-nodes-base.pipedrive',
    typeVersion: 1,
    operation: 'person:create',
    result: 'Pipedrive person',
    does: 'create the person in Pipedrive',
    category: 'crm',
    weight: 1,
    needsAny: ['name', 'email'],
    params: () => ({
      authentication: 'apiToken',
      resource: 'person',
      operation: 'create',
      name: '={{ $json.name || $json.email }}',
      additionalFields: { email: ['={{ $json.email }}'] },
    }),
    setup: 'Pipedrive: add a Pipedrive API credential (API token).',
  },
  salesforce: {
    app: 'salesforce',
    label: 'Salesforce',
    type: 'n8n-nodes-base.salesforce',
    typeVersion: 1,
    operation: 'lead:create',
    result: 'Salesforce lead',
    does: 'create a Salesforce lead',
    category: 'crm',
    weight: 2,
    needsAny: ['name', 'email'],
    params: () => ({
      authentication: 'oAuth2',
      resource: 'lead',
      operation: 'create',
      company: 'Individual',
      lastname: "={{ ($json.name || $json.email).split(' ').slice(-1)[0] }}",
      additionalFields: { email: '={{ $json.email }}', firstname: FIRST_NAME, description: MESSAGE, leadSource: 'Web' },
    }),
    setup:
      'Salesforce: add a Salesforce OAuth2 credential; replace "Individual" with a mapped company when you collect one.',
  },
  mailchimp: {
    app: 'mailchimp',
    label: 'Mailchimp',
    type: 'n8n-nodes-base.mailchimp',
    typeVersion: 1,
    operation: 'member:create',
    result: 'Mailchimp subscriber (double opt-in)',
    does: 'add the person to a Mailchimp audience as pending (double opt-in)',
    category: 'marketing',
    weight: 1,
    needs: ['email'],
    params: () => ({
      authentication: 'apiKey',
      resource: 'member',
      operation: 'create',
      list: 'REPLACE_WITH_AUDIENCE_ID',
      email: '={{ $json.email }}',
      status: 'pending',
      jsonParameters: false,
      options: {},
      mergeFieldsUi: { mergeFieldsValues: [{ name: 'FNAME', value: FIRST_NAME }] },
    }),
    setup:
      'Mailchimp: add a Mailchimp API credential and pick the audience; "pending" sends the double opt-in e-mail, keep it for consent.',
  },
  sendgrid: {
    app: 'sendgrid',
    label: 'SendGrid',
    type: 'n8n-nodes-base.sendGrid',
    typeVersion: 1,
    operation: 'contact:upsert',
    result: 'SendGrid contact',
    does: 'create or update the SendGrid marketing contact',
    category: 'marketing',
    weight: 1,
    needs: ['email'],
    params: () => ({
      resource: 'contact',
      operation: 'upsert',
      email: '={{ $json.email }}',
      additionalFields: { firstName: FIRST_NAME, lastName: LAST_NAME },
    }),
    setup: 'SendGrid: add a SendGrid API credential (marketing scope).',
  },
  jira: {
    app: 'jira',
    label: 'Jira',
    type: 'n8n-nodes-base.jira',
    typeVersion: 1,
    operation: 'issue:create',
    result: 'Jira issue',
    does: 'open a Jira issue with the details',
    category: 'project',
    weight: 1,
    params: () => ({
      jiraVersion: 'cloud',
      resource: 'issue',
      operation: 'create',
      project: rl('REPLACE_WITH_PROJECT_ID'),
      issueType: rl('REPLACE_WITH_ISSUE_TYPE_ID'),
      summary: "={{ ($json.event + ': ' + $json.summary).slice(0, 250) }}",
      additionalFields: { description: MESSAGE },
    }),
    setup: 'Jira Software: add a Jira Software Cloud credential and set project and issue type.',
  },
  linear: {
    app: 'linear',
    label: 'Linear',
    type: 'n8n-nodes-base.linear',
    typeVersion: 1.1,
    operation: 'issue:create',
    result: 'Linear issue',
    does: 'open a Linear issue with the details',
    category: 'project',
    weight: 1,
    params: () => ({
      authentication: 'apiToken',
      resource: 'issue',
      operation: 'create',
      teamId: 'REPLACE_WITH_TEAM_ID',
      title: "={{ $json.event + ': ' + $json.summary }}",
      additionalFields: { description: MESSAGE },
    }),
    setup: 'Linear: add a Linear API credential and pick the team.',
  },
  trello: {
    app: 'trello',
    label: 'Trello',
    type: 'n8n-nodes-base.trello',
    typeVersion: 1,
    operation: 'card:create',
    result: 'Trello card',
    does: 'add a Trello card with the details',
    category: 'project',
    weight: 1,
    params: () => ({
      authentication: 'apiKey',
      resource: 'card',
      operation: 'create',
      listId: 'REPLACE_WITH_LIST_ID',
      name: "={{ $json.event + ': ' + $json.summary }}",
      description: MESSAGE,
      additionalFields: {},
    }),
    setup: 'Trello: add a Trello API credential and set the list id.',
  },
  asana: {
    app: 'asana',
    label: 'Asana',
    type: 'n8n-nodes-base.asana',
    typeVersion: 1,
    operation: 'task:create',
    result: 'Asana task',
    does: 'create an Asana task with the details',
    category: 'project',
    weight: 1,
    params: () => ({
      authentication: 'accessToken',
      resource: 'task',
      operation: 'create',
      workspace: 'REPLACE_WITH_WORKSPACE_ID',
      name: "={{ $json.event + ': ' + $json.summary }}",
      otherProperties: { notes: MESSAGE, projects: ['REPLACE_WITH_PROJECT_ID'] },
    }),
    setup: 'Asana: add an Asana credential and set workspace and project.',
  },
  clickup: {
    app: 'clickup',
    label: 'ClickUp',
    type: 'n8n-nodes-base.clickUp',
    typeVersion: 1,
    operation: 'task:create',
    result: 'ClickUp task',
    does: 'create a ClickUp task with the details',
    category: 'project',
    weight: 1,
    params: () => ({
      authentication: 'accessToken',
      resource: 'task',
      operation: 'create',
      team: 'REPLACE_WITH_TEAM_ID',
      space: 'REPLACE_WITH_SPACE_ID',
      folderless: true,
      list: 'REPLACE_WITH_LIST_ID',
      name: "={{ $json.event + ': ' + $json.summary }}",
      additionalFields: { content: MESSAGE },
    }),
    setup: 'ClickUp: add a ClickUp API credential and set team, space and list.',
  },
  todoist: {
    app: 'todoist',
    label: 'Todoist',
    type: 'n8n-nodes-base.todoist',
    typeVersion: 2.1,
    operation: 'task:create',
    result: 'Todoist task',
    does: 'add a Todoist task due today',
    category: 'project',
    weight: 0,
    params: () => ({
      authentication: 'apiKey',
      resource: 'task',
      operation: 'create',
      project: rl('REPLACE_WITH_PROJECT_ID'),
      labels: [],
      content: "={{ $json.event + ': ' + $json.summary }}",
      options: { description: MESSAGE, dueString: 'today' },
    }),
    setup: 'Todoist: add a Todoist API credential and pick the project.',
  },
  'google-calendar': {
    app: 'google-calendar',
    label: 'Google Calendar',
    type: 'n8n-nodes-base.googleCalendar',
    typeVersion: 1.3,
    operation: 'event:create',
    result: 'follow-up slot in Google Calendar',
    does: 'block a 30-minute follow-up slot at 9:00 the next day in Google Calendar',
    category: 'calendar',
    weight: 1,
    params: () => ({
      resource: 'event',
      operation: 'create',
      calendar: rl('primary'),
      start: "={{ $now.plus(1, 'day').set({ hour: 9, minute: 0, second: 0 }).toISO() }}",
      end: "={{ $now.plus(1, 'day').set({ hour: 9, minute: 30, second: 0 }).toISO() }}",
      useDefaultReminders: true,
      additionalFields: { summary: "={{ 'Follow up: ' + $json.summary }}", description: MESSAGE },
    }),
    setup: 'Google Calendar: add a Google Calendar OAuth2 credential and pick the calendar.',
  },
  quickbooks: {
    app: 'quickbooks',
    label: 'QuickBooks',
    type: 'n8n-nodes-base.quickbooks',
    typeVersion: 1,
    operation: 'customer:create',
    result: 'QuickBooks customer',
    does: 'create the customer in QuickBooks Online',
    category: 'accounting',
    weight: 2,
    needsAny: ['name', 'email'],
    params: () => ({
      resource: 'customer',
      operation: 'create',
      displayName: '={{ $json.name || $json.email }}',
      additionalFields: { PrimaryEmailAddr: '={{ $json.email }}' },
    }),
    setup: 'QuickBooks Online: add a QuickBooks OAuth2 credential.',
  },
  mailerlite: {
    app: 'mailerlite',
    label: 'MailerLite',
    type: 'n8n-nodes-base.mailerLite',
    typeVersion: 2,
    operation: 'subscriber:create',
    result: 'MailerLite subscriber',
    does: 'add the person to MailerLite as an unconfirmed subscriber (double opt-in)',
    category: 'marketing',
    weight: 1,
    needs: ['email'],
    params: () => ({
      resource: 'subscriber',
      operation: 'create',
      email: '={{ $json.email }}',
      additionalFields: { status: 'unconfirmed' },
    }),
    setup: 'MailerLite: add a MailerLite API credential; "unconfirmed" keeps double opt-in for consent.',
  },
  'action-network': {
    app: 'action-network',
    label: 'Action Network',
    type: 'n8n-nodes-base.actionNetwork',
    typeVersion: 1,
    operation: 'person:create',
    result: 'Action Network supporter',
    does: 'add the person as a supporter in Action Network',
    category: 'crm',
    weight: 1,
    needs: ['email'],
    params: () => ({
      resource: 'person',
      operation: 'create',
      simple: true,
      email_addresses: {
        email_addresses_fields: { address: '={{ $json.email }}', primary: true, status: 'subscribed' },
      },
      additionalFields: { given_name: FIRST_NAME, family_name: LAST_NAME },
    }),
    setup: 'Action Network: add an Action Network API credential (API key of your group).',
  },
  brevo: {
    app: 'brevo',
    label: 'Brevo',
    type: 'n8n-nodes-base.sendInBlue',
    typeVersion: 1,
    operation: 'contact:create',
    result: 'Brevo contact',
    does: 'create the contact in Brevo',
    category: 'marketing',
    weight: 1,
    needs: ['email'],
    params: () => ({
      resource: 'contact',
      operation: 'create',
      email: '={{ $json.email }}',
      createContactAttributes: { attributesValues: [{ fieldName: 'FIRSTNAME', fieldValue: FIRST_NAME }] },
    }),
    setup: 'Brevo: add a Brevo (Sendinblue) API credential.',
  },
  'google-tasks': {
    app: 'google-tasks',
    label: 'Google Tasks',
    type: 'n8n-nodes-base.googleTasks',
    typeVersion: 1,
    operation: 'task:create',
    result: 'Google Tasks to-do',
    does: 'add a to-do to a Google Tasks list',
    category: 'project',
    weight: 0,
    params: () => ({
      resource: 'task',
      operation: 'create',
      task: 'REPLACE_WITH_TASK_LIST_ID',
      title: "={{ $json.event + ': ' + $json.summary }}",
      additionalFields: { notes: MESSAGE },
    }),
    setup: 'Google Tasks: add a Google Tasks OAuth2 credential and pick the task list.',
  },
  'microsoft-todo': {
    app: 'microsoft-todo',
    label: 'Microsoft To Do',
    type: 'n8n-nodes-base.microsoftToDo',
    typeVersion: 1,
    operation: 'task:create',
    result: 'Microsoft To Do task',
    does: 'add a task to a Microsoft To Do list',
    category: 'project',
    weight: 0,
    params: () => ({
      resource: 'task',
      operation: 'create',
      taskListId: 'REPLACE_WITH_TASK_LIST_ID',
      title: "={{ $json.event + ': ' + $json.summary }}",
      additionalFields: { content: MESSAGE, importance: 'normal' },
    }),
    setup: 'Microsoft To Do: add a Microsoft To Do OAuth2 credential and pick the list.',
  },
  'zoho-crm': {
    app: 'zoho-crm',
    label: 'Zoho CRM',
    type: 'n8n-nodes-base.zohoCrm',
    typeVersion: 1,
    operation: 'lead:create',
    result: 'Zoho CRM lead',
    does: 'create a lead in Zoho CRM',
    category: 'crm',
    weight: 2,
    needsAny: ['name', 'email'],
    params: () => ({
      resource: 'lead',
      operation: 'create',
      Company: 'Individual',
      lastName: "={{ ($json.name || $json.email).split(' ').slice(-1)[0] }}",
      additionalFields: { Email: '={{ $json.email }}', First_Name: FIRST_NAME, Description: MESSAGE },
    }),
    setup: 'Zoho CRM: add a Zoho OAuth2 credential; replace "Individual" with a mapped company when you collect one.',
  },
  freshdesk: {
    app: 'freshdesk',
    label: 'Freshdesk',
    type: 'n8n-nodes-base.freshdesk',
    typeVersion: 1,
    operation: 'ticket:create',
    result: 'Freshdesk ticket',
    does: 'open a Freshdesk ticket for the person',
    category: 'support',
    weight: 1,
    needs: ['email'],
    params: () => ({
      resource: 'ticket',
      operation: 'create',
      requester: 'email',
      requesterIdentificationValue: '={{ $json.email }}',
      status: 'open',
      priority: 'medium',
      source: 'portal',
      options: { subject: "={{ $json.event + ': ' + $json.summary }}", description: MESSAGE },
    }),
    setup: 'Freshdesk: add a Freshdesk API credential (domain and API key).',
  },
  mattermost: {
    app: 'mattermost',
    label: 'Mattermost',
    type: 'n8n-nodes-base.mattermost',
    typeVersion: 1,
    operation: 'message:post',
    result: 'Mattermost message',
    does: 'post the details to a Mattermost channel',
    category: 'notification',
    weight: 0,
    params: () => ({
      resource: 'message',
      operation: 'post',
      channelId: 'REPLACE_WITH_CHANNEL_ID',
      message: MESSAGE,
      otherOptions: {},
    }),
    setup: 'Mattermost: add a Mattermost API credential (access token and base URL) and set the channel id.',
  },
  klaviyo: unavailableAction('klaviyo', 'Klaviyo', 'n8n-nodes-base.klaviyo', 'Klaviyo profile', 'marketing'),
  toggl: unavailableAction('toggl', 'Toggl Track', 'n8n-nodes-base.toggl', 'Toggl time entry', 'project'),
  personio: unavailableAction('personio', 'Personio', 'n8n-nodes-base.personio', 'Personio applicant', 'recruiting'),
};

// ---------------------------------------------------------------------------------------------
// Candidates, validation and workflows
// ---------------------------------------------------------------------------------------------

/** A candidate recipe: one sector's (trigger, action) pair. */
export interface RecipeCandidate {
  sector: Sector;
  trigger: TriggerSpec;
  action: ActionSpec;
}

/** Whether the trigger provides every common field the action needs. */
export function compatible(trigger: TriggerSpec, action: ActionSpec): boolean {
  const has = (f: CanonicalField): boolean => trigger.fields[f] !== undefined;
  if (trigger.app === action.app) return false;
  if (action.needs && !action.needs.every(has)) return false;
  if (action.needsAny && !action.needsAny.some(has)) return false;
  return true;
}

/**
 * A sector's candidates in generation order: the (trigger i, action j) grid walked by diagonals
 * (i + j ascending, then i), so the first candidates combine each sector's most relevant apps.
 * Incompatible pairs (same app, or the action needs a field the trigger lacks) are not candidates.
 *
 * @throws Error if a sector names an unknown app key.
 */
export function sectorCandidates(sector: Sector): RecipeCandidate[] {
  const triggers = sector.triggers.map((k) => {
    const t = TRIGGERS[k];
    if (!t) throw new Error(`sector ${sector.key}: unknown trigger app ${k}`);
    return t;
  });
  const actions = sector.actions.map((k) => {
    const a = ACTIONS[k];
    if (!a) throw new Error(`sector ${sector.key}: unknown action app ${k}`);
    return a;
  });
  const out: RecipeCandidate[] = [];
  for (let d = 0; d < triggers.length + actions.length - 1; d++) {
    for (let i = 0; i < triggers.length; i++) {
      const trigger = triggers[i];
      const action = actions[d - i];
      if (!trigger || !action) continue;
      if (compatible(trigger, action)) out.push({ sector, trigger, action });
    }
  }
  return out;
}

/** Problems of a candidate against the snapshot (empty when both node types are real and usable). */
export function candidateProblems(index: NodeTypeIndex, c: RecipeCandidate): string[] {
  return [
    ...checkNodeUse(index, {
      type: c.trigger.type,
      typeVersion: c.trigger.typeVersion,
      role: 'trigger',
      ...(c.trigger.events ? { events: c.trigger.events } : {}),
    }),
    ...checkNodeUse(index, {
      type: c.action.type,
      typeVersion: c.action.typeVersion,
      role: 'action',
      ...(c.action.operation ? { operation: c.action.operation } : {}),
    }),
  ];
}

/** Recipe id of the seed's shape: `recipe-<source>-<target>`. */
export function recipeBaseId(c: RecipeCandidate): string {
  return `recipe-${c.trigger.app}-${c.action.app}`;
}

/** Price of a recipe in micro-units: 0.99 to 2.99 USD by the weights of its trigger and action. */
export function recipePriceMicros(c: RecipeCandidate): number {
  const table = [990_000, 1_490_000, 1_990_000, 2_490_000, 2_990_000];
  return table[c.trigger.weight + c.action.weight] ?? 2_990_000;
}

/** Title of a recipe, e.g. "Stripe checkout completed → Slack alert". */
export function recipeTitle(c: RecipeCandidate): string {
  return `${c.trigger.event} → ${c.action.result}`;
}

/** Purpose sentence of a recipe. */
export function recipePurpose(c: RecipeCandidate): string {
  return `When ${c.trigger.when}, ${c.action.does}. Built for ${c.sector.audience}.`;
}

/** An n8n workflow node as the import format stores it. */
export interface N8nNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  webhookId?: string;
  retryOnFail?: boolean;
  maxTries?: number;
  waitBetweenTries?: number;
  notesInFlow?: boolean;
  notes?: string;
}

/** An n8n workflow in the import format (editor paste or "Import from File"). */
export interface N8nWorkflow {
  name: string;
  nodes: N8nNode[];
  connections: Record<string, { main: { node: string; type: 'main'; index: number }[][] }>;
  settings: { executionOrder: 'v1' };
  pinData: Record<string, never>;
  active: false;
  meta: { templateCredsSetupCompleted: false };
  tags: never[];
}

/** Node name of an action: the app label, distinct from the trigger's name. */
const MAP_NODE = 'Map fields';
const NOTE_NODE = 'Setup notes';

/**
 * Builds the importable n8n workflow of a recipe: trigger → "Map fields" (Edit Fields/Set 3.4,
 * the common fields as strings) → action (retries 3 times, 5 s apart), and a sticky note with the
 * setup steps. Node ids and webhook ids are stable UUIDs derived from the item id.
 */
export function recipeWorkflow(c: RecipeCandidate, itemId: string, snapshotLabel: string): N8nWorkflow {
  const ctx: RecipeContext = { itemId, sector: c.sector, title: recipeTitle(c) };
  const triggerName = `${c.trigger.label} Trigger`;
  const actionName = c.action.label === c.trigger.label ? `${c.action.label} action` : c.action.label;
  const id = (name: string): string => stableUuid('micro', itemId, name);
  const assignment = (name: string, value: string): Record<string, unknown> => ({
    id: id(`field:${name}`),
    name,
    value,
    type: 'string',
  });
  const fieldValue = (f: CanonicalField): string => {
    const expr = c.trigger.fields[f];
    return expr === undefined ? '' : `={{ ${expr} }}`;
  };

  const trigger: N8nNode = {
    id: id(triggerName),
    name: triggerName,
    type: c.trigger.type,
    typeVersion: c.trigger.typeVersion,
    position: [0, 0],
    parameters: c.trigger.params(ctx),
    ...(c.trigger.webhook ? { webhookId: id('webhook') } : {}),
  };
  const map: N8nNode = {
    id: id(MAP_NODE),
    name: MAP_NODE,
    type: 'n8n-nodes-base.set',
    typeVersion: 3.4,
    position: [260, 0],
    parameters: {
      mode: 'manual',
      assignments: {
        assignments: [
          assignment('record_id', fieldValue('record_id')),
          assignment('event', c.trigger.event),
          assignment('source', c.trigger.label),
          assignment('sector', c.sector.key),
          assignment('name', fieldValue('name')),
          assignment('email', fieldValue('email')),
          assignment('summary', fieldValue('summary')),
          assignment('amount', fieldValue('amount')),
          assignment('link', fieldValue('link')),
          assignment('received_at', '={{ $now.toISO() }}'),
        ],
      },
      includeOtherFields: false,
      options: {},
    },
  };
  const action: N8nNode = {
    id: id(actionName),
    name: actionName,
    type: c.action.type,
    typeVersion: c.action.typeVersion,
    position: [520, 0],
    parameters: c.action.params(ctx),
    retryOnFail: true,
    maxTries: 3,
    waitBetweenTries: 5000,
  };
  const note: N8nNode = {
    id: id(NOTE_NODE),
    name: NOTE_NODE,
    type: 'n8n-nodes-base.stickyNote',
    typeVersion: 1,
    position: [-40, -420],
    parameters: {
      content: [
        `## ${recipeTitle(c)}`,
        recipePurpose(c),
        '',
        '**Setup**',
        `1. ${c.trigger.setup}`,
        `2. ${c.action.setup}`,
        '3. Replace every `REPLACE_WITH_…` value, run once with test data, then activate.',
        '',
        `"Map fields" turns the ${c.trigger.label} payload into record_id, event, source, sector, name, email, summary, amount, link and received_at; adjust its expressions if your payload differs.`,
        '',
        `Node types checked against ${snapshotLabel}. Item ${itemId}.`,
      ].join('\n'),
      height: 360,
      width: 620,
      color: 5,
    },
  };
  return {
    name: recipeTitle(c),
    nodes: [trigger, map, action, note],
    connections: {
      [triggerName]: { main: [[{ node: MAP_NODE, type: 'main', index: 0 }]] },
      [MAP_NODE]: { main: [[{ node: actionName, type: 'main', index: 0 }]] },
    },
    settings: { executionOrder: 'v1' },
    pinData: {},
    active: false,
    meta: { templateCredsSetupCompleted: false },
    tags: [],
  };
}
