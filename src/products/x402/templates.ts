/**
 * The automation templates sold at `/x402/template?sku=<sku>` (seed §2.13: "one automation template (workflow
 * JSON), instant; 18 templates priced between 19 and 362 USD; the challenge for a named sku quotes that sku's own
 * price"). Each template is an importable n8n workflow built only from node types, versions and operations that
 * `n8n-nodes-base` declares (checked against src/products/micro/n8n-node-types.json by test/unit/x402Domain.test.ts),
 * with retries or an error branch on every external call and no credentials inside: credential slots are
 * placeholders. Pure data, deterministic.
 */
import { buildWorkflow, type N8nWorkflow, type NodeSpec } from './n8n';

/** One template of the catalogue. Prices in USD with their integer micro-unit twin. */
export interface TemplateDefinition {
  sku: string;
  title: string;
  price_usd: number;
  price_micros: number;
  sector: string;
  description: string;
  /** Apps the workflow connects, for search. */
  apps: string[];
  /** Credentials the buyer configures after import. */
  credentials_needed: string[];
  workflow: N8nWorkflow;
}

const B = 'n8n-nodes-base.';

/** Slack alert used as the error branch of critical steps. */
const slackAlert = (name: string, text: string): NodeSpec => ({
  name,
  type: `${B}slack`,
  typeVersion: 2.3,
  parameters: {
    resource: 'message',
    operation: 'post',
    select: 'channel',
    channelId: { __rl: true, mode: 'name', value: '#ops-alerts' },
    text,
  },
  credentials: { slackApi: 'Slack account' },
  retry: true,
});

interface TemplateSeed {
  sku: string;
  title: string;
  price: number;
  sector: string;
  description: string;
  apps: string[];
  nodes: NodeSpec[];
}

const SEEDS: TemplateSeed[] = [
  {
    sku: 'tpl-webhook-lead-to-hubspot',
    title: 'Website lead form to HubSpot with Slack ping',
    price: 19,
    sector: 'sales',
    description:
      'Receives a lead from any form over a webhook, normalises the fields, upserts the HubSpot contact and pings the sales channel.',
    apps: ['Webhook', 'HubSpot', 'Slack'],
    nodes: [
      {
        name: 'Lead Webhook',
        type: `${B}webhook`,
        typeVersion: 2,
        parameters: {
          httpMethod: 'POST',
          path: 'lead-intake',
          authentication: 'headerAuth',
          responseMode: 'onReceived',
        },
        credentials: { httpHeaderAuth: 'Lead form shared header' },
        next: ['Normalise Lead'],
      },
      {
        name: 'Normalise Lead',
        type: `${B}set`,
        typeVersion: 3.4,
        parameters: {
          mode: 'manual',
          assignments: {
            assignments: [
              { id: 'email', name: 'email', value: '={{ $json.body.email.toLowerCase().trim() }}', type: 'string' },
              { id: 'name', name: 'name', value: '={{ $json.body.name }}', type: 'string' },
            ],
          },
        },
        next: ['Upsert HubSpot Contact'],
      },
      {
        name: 'Upsert HubSpot Contact',
        type: `${B}hubspot`,
        typeVersion: 2.1,
        parameters: {
          resource: 'contact',
          operation: 'upsert',
          email: '={{ $json.email }}',
          additionalFields: { firstName: '={{ $json.name }}' },
        },
        credentials: { hubspotAppToken: 'HubSpot app token' },
        retry: true,
        next: ['Notify Sales'],
      },
      {
        name: 'Notify Sales',
        type: `${B}slack`,
        typeVersion: 2.3,
        parameters: {
          resource: 'message',
          operation: 'post',
          select: 'channel',
          channelId: { __rl: true, mode: 'name', value: '#sales' },
          text: '=New lead: {{ $json.properties.email.value }}',
        },
        credentials: { slackApi: 'Slack account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-typeform-to-sheets',
    title: 'Typeform responses to Google Sheets',
    price: 29,
    sector: 'operations',
    description: 'Appends every Typeform submission as a row, with the submission time and a cleaned email column.',
    apps: ['Typeform', 'Google Sheets'],
    nodes: [
      {
        name: 'Typeform Submission',
        type: `${B}typeformTrigger`,
        typeVersion: 1.1,
        parameters: { formId: 'REPLACE_FORM_ID', simplifyAnswers: true },
        credentials: { typeformApi: 'Typeform account' },
        next: ['Shape Row'],
      },
      {
        name: 'Shape Row',
        type: `${B}set`,
        typeVersion: 3.4,
        parameters: {
          mode: 'manual',
          includeOtherFields: true,
          assignments: {
            assignments: [{ id: 'at', name: 'submitted_at', value: '={{ $now.toISO() }}', type: 'string' }],
          },
        },
        next: ['Append Row'],
      },
      {
        name: 'Append Row',
        type: `${B}googleSheets`,
        typeVersion: 4.5,
        parameters: {
          resource: 'sheet',
          operation: 'append',
          documentId: { __rl: true, mode: 'id', value: 'REPLACE_SHEET_ID' },
          sheetName: { __rl: true, mode: 'name', value: 'Responses' },
          columns: { mappingMode: 'autoMapInputData' },
        },
        credentials: { googleSheetsOAuth2Api: 'Google Sheets account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-stripe-receipt-ledger',
    title: 'Stripe payment to receipt e-mail and ledger row',
    price: 39,
    sector: 'finance',
    description:
      'On a successful Stripe charge, e-mails a receipt above a threshold and logs every charge to a ledger sheet.',
    apps: ['Stripe', 'Gmail', 'Google Sheets'],
    nodes: [
      {
        name: 'Charge Succeeded',
        type: `${B}stripeTrigger`,
        typeVersion: 1,
        parameters: { events: ['charge.succeeded'] },
        credentials: { stripeApi: 'Stripe account' },
        next: ['Log Charge', 'Large Charge?'],
      },
      {
        name: 'Log Charge',
        type: `${B}googleSheets`,
        typeVersion: 4.5,
        parameters: {
          resource: 'sheet',
          operation: 'append',
          documentId: { __rl: true, mode: 'id', value: 'REPLACE_SHEET_ID' },
          sheetName: { __rl: true, mode: 'name', value: 'Charges' },
          columns: { mappingMode: 'autoMapInputData' },
        },
        credentials: { googleSheetsOAuth2Api: 'Google Sheets account' },
        retry: true,
      },
      {
        name: 'Large Charge?',
        type: `${B}if`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'strict' },
            combinator: 'and',
            conditions: [
              {
                id: 'amt',
                leftValue: '={{ $json.data.object.amount }}',
                rightValue: 10000,
                operator: { type: 'number', operation: 'gte' },
              },
            ],
          },
        },
        next: [['Send Receipt'], []],
      },
      {
        name: 'Send Receipt',
        type: `${B}gmail`,
        typeVersion: 2.1,
        parameters: {
          resource: 'message',
          operation: 'send',
          sendTo: '={{ $json.data.object.billing_details.email }}',
          subject: 'Your receipt',
          message:
            '=Thank you for your payment of {{ $json.data.object.amount / 100 }} {{ $json.data.object.currency.toUpperCase() }}.',
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-shopify-order-slack',
    title: 'Shopify orders to a Slack channel',
    price: 49,
    sector: 'ecommerce',
    description: 'Posts each new Shopify order with total, items and customer to a Slack channel.',
    apps: ['Shopify', 'Slack'],
    nodes: [
      {
        name: 'Order Created',
        type: `${B}shopifyTrigger`,
        typeVersion: 1,
        parameters: { topic: 'orders/create' },
        credentials: { shopifyAccessTokenApi: 'Shopify store' },
        next: ['Summarise Order'],
      },
      {
        name: 'Summarise Order',
        type: `${B}set`,
        typeVersion: 3.4,
        parameters: {
          mode: 'manual',
          assignments: {
            assignments: [
              {
                id: 'txt',
                name: 'text',
                value:
                  '=Order {{ $json.name }}: {{ $json.total_price }} {{ $json.currency }} from {{ $json.email }} ({{ $json.line_items.length }} items)',
                type: 'string',
              },
            ],
          },
        },
        next: ['Post to Slack'],
      },
      {
        name: 'Post to Slack',
        type: `${B}slack`,
        typeVersion: 2.3,
        parameters: {
          resource: 'message',
          operation: 'post',
          select: 'channel',
          channelId: { __rl: true, mode: 'name', value: '#orders' },
          text: '={{ $json.text }}',
        },
        credentials: { slackApi: 'Slack account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-calendly-to-pipedrive',
    title: 'Calendly bookings to Pipedrive activities',
    price: 59,
    sector: 'sales',
    description: 'Creates a Pipedrive activity for every Calendly booking and sends the invitee a preparation e-mail.',
    apps: ['Calendly', 'Pipedrive', 'Gmail'],
    nodes: [
      {
        name: 'Invitee Created',
        type: `${B}calendlyTrigger`,
        typeVersion: 2,
        parameters: { scope: 'user', events: ['invitee.created'] },
        credentials: { calendlyApi: 'Calendly account' },
        next: ['Create Activity'],
      },
      {
        name: 'Create Activity',
        type: `${B}pipedrive`,
        typeVersion: 2,
        parameters: {
          resource: 'activity',
          operation: 'create',
          subject: '=Call with {{ $json.payload.name }}',
          type: 'call',
          additionalFields: { due_date: '={{ $json.payload.scheduled_event.start_time }}' },
        },
        credentials: { pipedriveApi: 'Pipedrive account' },
        retry: true,
        next: ['Send Prep Mail'],
      },
      {
        name: 'Send Prep Mail',
        type: `${B}gmail`,
        typeVersion: 2.1,
        parameters: {
          resource: 'message',
          operation: 'send',
          sendTo: "={{ $('Invitee Created').item.json.payload.email }}",
          subject: 'Before our call',
          message: 'Looking forward to our call. Please bring your current numbers.',
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-daily-sales-report',
    title: 'Daily sales report from Postgres by e-mail',
    price: 69,
    sector: 'analytics',
    description: "Every morning queries yesterday's orders, totals them per channel and e-mails the report.",
    apps: ['Schedule', 'Postgres', 'E-mail (SMTP)'],
    nodes: [
      {
        name: 'Every Morning',
        type: `${B}scheduleTrigger`,
        typeVersion: 1.2,
        parameters: { rule: { interval: [{ field: 'cronExpression', expression: '0 7 * * *' }] } },
        next: ['Yesterday Orders'],
      },
      {
        name: 'Yesterday Orders',
        type: `${B}postgres`,
        typeVersion: 2.5,
        parameters: {
          resource: 'database',
          operation: 'select',
          schema: { __rl: true, mode: 'list', value: 'public' },
          table: { __rl: true, mode: 'name', value: 'orders' },
          where: {
            values: [{ column: 'created_at', condition: '>=', value: '={{ $today.minus({ days: 1 }).toISO() }}' }],
          },
          returnAll: true,
        },
        credentials: { postgres: 'Reporting database (read-only)' },
        retry: true,
        next: ['Totals per Channel'],
      },
      {
        name: 'Totals per Channel',
        type: `${B}summarize`,
        typeVersion: 1.1,
        parameters: {
          fieldsToSummarize: {
            values: [
              { aggregation: 'sum', field: 'total' },
              { aggregation: 'count', field: 'id' },
            ],
          },
          fieldsToSplitBy: 'channel',
        },
        next: ['Email Report'],
      },
      {
        name: 'Email Report',
        type: `${B}emailSend`,
        typeVersion: 2.1,
        parameters: {
          resource: 'email',
          operation: 'send',
          fromEmail: 'reports@example.com',
          toEmail: 'team@example.com',
          subject: '=Sales {{ $today.minus({ days: 1 }).toISODate() }}',
          emailFormat: 'text',
          text: '={{ JSON.stringify($input.all().map(i => i.json), null, 2) }}',
        },
        credentials: { smtp: 'SMTP account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-support-triage-zendesk',
    title: 'Support e-mail triage into Zendesk with urgent escalation',
    price: 79,
    sector: 'support',
    description:
      'Classifies inbound support requests by keywords, opens Zendesk tickets with priority and escalates urgent ones to Slack.',
    apps: ['Webhook', 'Zendesk', 'Slack'],
    nodes: [
      {
        name: 'Support Request',
        type: `${B}webhook`,
        typeVersion: 2,
        parameters: {
          httpMethod: 'POST',
          path: 'support-intake',
          authentication: 'headerAuth',
          responseMode: 'onReceived',
        },
        credentials: { httpHeaderAuth: 'Support form shared header' },
        next: ['Classify'],
      },
      {
        name: 'Classify',
        type: `${B}code`,
        typeVersion: 2,
        parameters: {
          mode: 'runOnceForEachItem',
          jsCode:
            "const text = `${$json.body.subject} ${$json.body.message}`.toLowerCase();\nconst urgent = ['outage', 'down', 'cannot log in', 'refund'].some((w) => text.includes(w));\nreturn { json: { ...$json.body, priority: urgent ? 'urgent' : 'normal' } };",
        },
        next: ['Urgent?'],
      },
      {
        name: 'Urgent?',
        type: `${B}if`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'strict' },
            combinator: 'and',
            conditions: [
              {
                id: 'p',
                leftValue: '={{ $json.priority }}',
                rightValue: 'urgent',
                operator: { type: 'string', operation: 'equals' },
              },
            ],
          },
        },
        next: [['Escalate', 'Open Ticket'], ['Open Ticket']],
      },
      {
        name: 'Open Ticket',
        type: `${B}zendesk`,
        typeVersion: 1,
        parameters: {
          resource: 'ticket',
          operation: 'create',
          description: '={{ $json.message }}',
          additionalFields: { subject: '={{ $json.subject }}', priority: '={{ $json.priority }}' },
        },
        credentials: { zendeskApi: 'Zendesk account' },
        retry: true,
      },
      { ...slackAlert('Escalate', '=Urgent support request: {{ $json.subject }}') },
    ],
  },
  {
    sku: 'tpl-github-issue-to-jira',
    title: 'GitHub bug issues mirrored into Jira',
    price: 89,
    sector: 'engineering',
    description: 'When a GitHub issue labelled bug is opened, creates the matching Jira issue and links back.',
    apps: ['GitHub', 'Jira'],
    nodes: [
      {
        name: 'Issue Event',
        type: `${B}githubTrigger`,
        typeVersion: 1,
        parameters: {
          owner: { __rl: true, mode: 'name', value: 'your-org' },
          repository: { __rl: true, mode: 'name', value: 'your-repo' },
          events: ['issues'],
        },
        credentials: { githubApi: 'GitHub account' },
        next: ['Opened Bug?'],
      },
      {
        name: 'Opened Bug?',
        type: `${B}if`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'loose' },
            combinator: 'and',
            conditions: [
              {
                id: 'a',
                leftValue: '={{ $json.body.action }}',
                rightValue: 'opened',
                operator: { type: 'string', operation: 'equals' },
              },
              {
                id: 'b',
                leftValue: '={{ $json.body.issue.labels.map(l => l.name).join(",") }}',
                rightValue: 'bug',
                operator: { type: 'string', operation: 'contains' },
              },
            ],
          },
        },
        next: [['Create Jira Issue'], []],
      },
      {
        name: 'Create Jira Issue',
        type: `${B}jira`,
        typeVersion: 1,
        parameters: {
          resource: 'issue',
          operation: 'create',
          project: { __rl: true, mode: 'list', value: '' },
          issueType: { __rl: true, mode: 'list', value: '' },
          summary: '={{ $json.body.issue.title }}',
          additionalFields: { description: '={{ $json.body.issue.html_url }}\n\n{{ $json.body.issue.body }}' },
        },
        credentials: { jiraSoftwareCloudApi: 'Jira Cloud account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-stripe-to-quickbooks',
    title: 'Stripe invoices into QuickBooks',
    price: 99,
    sector: 'finance',
    description:
      'Books each paid Stripe invoice as a QuickBooks invoice against the matching customer, with an alert when booking fails.',
    apps: ['Stripe', 'QuickBooks', 'Slack'],
    nodes: [
      {
        name: 'Invoice Paid',
        type: `${B}stripeTrigger`,
        typeVersion: 1,
        parameters: { events: ['invoice.paid'] },
        credentials: { stripeApi: 'Stripe account' },
        next: ['Book Invoice'],
      },
      {
        name: 'Book Invoice',
        type: `${B}quickbooks`,
        typeVersion: 1,
        parameters: {
          resource: 'invoice',
          operation: 'create',
          CustomerRef: '={{ $json.data.object.customer }}',
          Line: {
            Line: [
              {
                DetailType: 'SalesItemLineDetail',
                Amount: '={{ $json.data.object.amount_paid / 100 }}',
                Description: '={{ $json.data.object.number }}',
              },
            ],
          },
        },
        credentials: { quickBooksOAuth2Api: 'QuickBooks company' },
        retry: true,
        onError: 'continueErrorOutput',
        next: [[], ['Booking Failed']],
      },
      slackAlert('Booking Failed', '=QuickBooks booking failed for Stripe invoice {{ $json.data.object.number }}'),
    ],
  },
  {
    sku: 'tpl-woocommerce-fulfilment',
    title: 'WooCommerce orders to a fulfilment API',
    price: 119,
    sector: 'ecommerce',
    description:
      'Forwards new WooCommerce orders to a third-party logistics API and e-mails the customer the tracking link.',
    apps: ['WooCommerce', 'HTTP', 'Gmail'],
    nodes: [
      {
        name: 'Order Created',
        type: `${B}wooCommerceTrigger`,
        typeVersion: 1,
        parameters: { event: 'order.created' },
        credentials: { wooCommerceApi: 'WooCommerce store' },
        next: ['Create Shipment'],
      },
      {
        name: 'Create Shipment',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'POST',
          url: 'https://logistics.example.com/v1/shipments',
          authentication: 'genericCredentialType',
          genericAuthType: 'httpHeaderAuth',
          sendBody: true,
          specifyBody: 'json',
          jsonBody: '={{ JSON.stringify({ reference: $json.id, address: $json.shipping, items: $json.line_items }) }}',
          options: { timeout: 15000 },
        },
        credentials: { httpHeaderAuth: '3PL API key' },
        retry: true,
        onError: 'continueErrorOutput',
        next: [['Send Tracking'], ['Shipment Failed']],
      },
      {
        name: 'Send Tracking',
        type: `${B}gmail`,
        typeVersion: 2.1,
        parameters: {
          resource: 'message',
          operation: 'send',
          sendTo: "={{ $('Order Created').item.json.billing.email }}",
          subject: 'Your order is on its way',
          message: '=Track it here: {{ $json.tracking_url }}',
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        retry: true,
      },
      slackAlert('Shipment Failed', "=Shipment creation failed for order {{ $('Order Created').item.json.id }}"),
    ],
  },
  {
    sku: 'tpl-rss-digest-slack',
    title: 'Weekly industry digest from RSS to Slack',
    price: 139,
    sector: 'marketing',
    description:
      "Collects the week's posts from an RSS feed, keeps those matching your keywords and posts one digest message.",
    apps: ['Schedule', 'RSS', 'Slack'],
    nodes: [
      {
        name: 'Every Monday',
        type: `${B}scheduleTrigger`,
        typeVersion: 1.2,
        parameters: { rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 8 }] } },
        next: ['Read Feed'],
      },
      {
        name: 'Read Feed',
        type: `${B}rssFeedRead`,
        typeVersion: 1.1,
        parameters: { url: 'https://example.com/feed.xml', options: {} },
        retry: true,
        next: ['Keyword Match'],
      },
      {
        name: 'Keyword Match',
        type: `${B}filter`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: false, typeValidation: 'loose' },
            combinator: 'or',
            conditions: [
              {
                id: 'k1',
                leftValue: '={{ $json.title }}',
                rightValue: 'automation',
                operator: { type: 'string', operation: 'contains' },
              },
              {
                id: 'k2',
                leftValue: '={{ $json.title }}',
                rightValue: 'AI agent',
                operator: { type: 'string', operation: 'contains' },
              },
            ],
          },
        },
        next: ['Collect Links'],
      },
      {
        name: 'Collect Links',
        type: `${B}aggregate`,
        typeVersion: 1,
        parameters: {
          aggregate: 'aggregateIndividualFields',
          fieldsToAggregate: { fieldToAggregate: [{ fieldToAggregate: 'link' }, { fieldToAggregate: 'title' }] },
        },
        next: ['Post Digest'],
      },
      {
        name: 'Post Digest',
        type: `${B}slack`,
        typeVersion: 2.3,
        parameters: {
          resource: 'message',
          operation: 'post',
          select: 'channel',
          channelId: { __rl: true, mode: 'name', value: '#market-watch' },
          text: "={{ $json.title.map((t, i) => `• ${t} ${$json.link[i]}`).join('\\n') }}",
        },
        credentials: { slackApi: 'Slack account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-whatsapp-appointment-reminders',
    title: "WhatsApp reminders for tomorrow's appointments",
    price: 149,
    sector: 'healthcare',
    description:
      "Each evening reads tomorrow's Google Calendar appointments and sends every patient a WhatsApp reminder template.",
    apps: ['Schedule', 'Google Calendar', 'WhatsApp Business'],
    nodes: [
      {
        name: 'Every Evening',
        type: `${B}scheduleTrigger`,
        typeVersion: 1.2,
        parameters: { rule: { interval: [{ field: 'cronExpression', expression: '0 18 * * *' }] } },
        next: ['Tomorrow Appointments'],
      },
      {
        name: 'Tomorrow Appointments',
        type: `${B}googleCalendar`,
        typeVersion: 1.3,
        parameters: {
          resource: 'event',
          operation: 'getAll',
          calendar: { __rl: true, mode: 'list', value: 'primary', cachedResultName: 'Primary calendar' },
          returnAll: true,
          timeMin: '={{ $today.plus({ days: 1 }).toISO() }}',
          timeMax: '={{ $today.plus({ days: 2 }).toISO() }}',
        },
        credentials: { googleCalendarOAuth2Api: 'Google Calendar account' },
        retry: true,
        next: ['Has Phone?'],
      },
      {
        name: 'Has Phone?',
        type: `${B}filter`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'loose' },
            combinator: 'and',
            conditions: [
              {
                id: 'ph',
                leftValue: '={{ $json.description }}',
                rightValue: '+',
                operator: { type: 'string', operation: 'contains' },
              },
            ],
          },
        },
        next: ['Send Reminder'],
      },
      {
        name: 'Send Reminder',
        type: `${B}whatsApp`,
        typeVersion: 1,
        parameters: {
          resource: 'message',
          operation: 'sendTemplate',
          phoneNumberId: 'REPLACE_PHONE_NUMBER_ID',
          recipientPhoneNumber: '={{ $json.description.match(/\\+\\d{8,15}/)[0] }}',
          template: 'appointment_reminder|en',
        },
        credentials: { whatsAppApi: 'WhatsApp Business account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-hubspot-lead-enrichment',
    title: 'HubSpot new contacts enriched from a company-data API',
    price: 179,
    sector: 'sales',
    description:
      'Enriches each new HubSpot contact with company size and industry from an enrichment API and writes them back.',
    apps: ['HubSpot', 'HTTP'],
    nodes: [
      {
        name: 'Contact Created',
        type: `${B}hubspotTrigger`,
        typeVersion: 1,
        parameters: { eventsUi: { eventValues: [{ name: 'contact.creation' }] } },
        credentials: { hubspotDeveloperApi: 'HubSpot developer app' },
        next: ['Fetch Contact'],
      },
      {
        name: 'Fetch Contact',
        type: `${B}hubspot`,
        typeVersion: 2.1,
        parameters: {
          resource: 'contact',
          operation: 'get',
          contactId: '={{ $json.contactId }}',
          additionalFields: {},
        },
        credentials: { hubspotAppToken: 'HubSpot app token' },
        retry: true,
        next: ['Enrich Company'],
      },
      {
        name: 'Enrich Company',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'GET',
          url: '=https://enrichment.example.com/v2/companies?domain={{ $json.properties.email.value.split("@")[1] }}',
          authentication: 'genericCredentialType',
          genericAuthType: 'httpHeaderAuth',
          options: { timeout: 10000 },
        },
        credentials: { httpHeaderAuth: 'Enrichment API key' },
        retry: true,
        next: ['Update Contact'],
      },
      {
        name: 'Update Contact',
        type: `${B}hubspot`,
        typeVersion: 2.1,
        parameters: {
          resource: 'contact',
          operation: 'upsert',
          email: "={{ $('Fetch Contact').item.json.properties.email.value }}",
          additionalFields: { industry: '={{ $json.industry }}', numberOfEmployees: '={{ $json.employees }}' },
        },
        credentials: { hubspotAppToken: 'HubSpot app token' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-uptime-incident-pagerduty',
    title: 'Uptime check with PagerDuty incident and Slack alert',
    price: 199,
    sector: 'engineering',
    description: 'Checks a health endpoint every five minutes; on failure opens a PagerDuty incident and alerts Slack.',
    apps: ['Schedule', 'HTTP', 'PagerDuty', 'Slack'],
    nodes: [
      {
        name: 'Every 5 Minutes',
        type: `${B}scheduleTrigger`,
        typeVersion: 1.2,
        parameters: { rule: { interval: [{ field: 'minutes', minutesInterval: 5 }] } },
        next: ['Health Check'],
      },
      {
        name: 'Health Check',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'GET',
          url: 'https://status.example.com/health',
          options: { timeout: 5000, response: { response: { neverError: true, fullResponse: true } } },
        },
        retry: true,
        next: ['Healthy?'],
      },
      {
        name: 'Healthy?',
        type: `${B}if`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'loose' },
            combinator: 'and',
            conditions: [
              {
                id: 's',
                leftValue: '={{ $json.statusCode }}',
                rightValue: 200,
                operator: { type: 'number', operation: 'equals' },
              },
            ],
          },
        },
        next: [[], ['Open Incident', 'Alert Channel']],
      },
      {
        name: 'Open Incident',
        type: `${B}pagerDuty`,
        typeVersion: 1,
        parameters: {
          resource: 'incident',
          operation: 'create',
          title: '=Health check failed: HTTP {{ $json.statusCode }}',
          serviceId: 'REPLACE_SERVICE_ID',
          email: 'oncall@example.com',
          additionalFields: { urgency: 'high' },
        },
        credentials: { pagerDutyApi: 'PagerDuty account' },
        retry: true,
      },
      slackAlert('Alert Channel', '=Health check failed with HTTP {{ $json.statusCode }}; PagerDuty incident opened'),
    ],
  },
  {
    sku: 'tpl-form-client-onboarding',
    title: 'Client onboarding form to Airtable, Trello and welcome e-mail',
    price: 229,
    sector: 'services',
    description:
      "An n8n form collects the new client's details, files them in Airtable, opens a Trello onboarding card and sends a welcome e-mail.",
    apps: ['n8n Form', 'Airtable', 'Trello', 'Gmail'],
    nodes: [
      {
        name: 'Onboarding Form',
        type: `${B}formTrigger`,
        typeVersion: 2.2,
        parameters: {
          formTitle: 'Client onboarding',
          formFields: {
            values: [
              { fieldLabel: 'Company', requiredField: true },
              { fieldLabel: 'Contact e-mail', fieldType: 'email', requiredField: true },
              { fieldLabel: 'Goals', fieldType: 'textarea' },
            ],
          },
          options: {},
        },
        next: ['File Client'],
      },
      {
        name: 'File Client',
        type: `${B}airtable`,
        typeVersion: 2.1,
        parameters: {
          resource: 'record',
          operation: 'create',
          base: { __rl: true, mode: 'list', value: '' },
          table: { __rl: true, mode: 'name', value: 'Clients' },
          columns: { mappingMode: 'autoMapInputData' },
        },
        credentials: { airtableTokenApi: 'Airtable token' },
        retry: true,
        next: ['Onboarding Card'],
      },
      {
        name: 'Onboarding Card',
        type: `${B}trello`,
        typeVersion: 1,
        parameters: {
          resource: 'card',
          operation: 'create',
          listId: 'REPLACE_LIST_ID',
          name: "=Onboard {{ $('Onboarding Form').item.json.Company }}",
          description: "={{ $('Onboarding Form').item.json.Goals }}",
          additionalFields: {},
        },
        credentials: { trelloApi: 'Trello account' },
        retry: true,
        next: ['Welcome Mail'],
      },
      {
        name: 'Welcome Mail',
        type: `${B}gmail`,
        typeVersion: 2.1,
        parameters: {
          resource: 'message',
          operation: 'send',
          sendTo: "={{ $('Onboarding Form').item.json['Contact e-mail'] }}",
          subject: 'Welcome aboard',
          message: 'Thanks for choosing us. Your onboarding lead will contact you within one business day.',
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-ai-email-draft-responder',
    title: 'AI drafted replies to inbound Gmail',
    price: 249,
    sector: 'support',
    description:
      'For each new inbound e-mail, asks an LLM API for a reply and saves it as a Gmail draft for human review (nothing is sent automatically).',
    apps: ['Gmail', 'HTTP (LLM API)'],
    nodes: [
      {
        name: 'New Email',
        type: `${B}gmailTrigger`,
        typeVersion: 1.2,
        parameters: {
          pollTimes: { item: [{ mode: 'everyMinute' }] },
          simple: true,
          filters: { labelIds: ['INBOX'] },
          event: 'messageReceived',
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        next: ['Draft Reply with LLM'],
      },
      {
        name: 'Draft Reply with LLM',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'POST',
          url: 'https://api.openai.com/v1/chat/completions',
          authentication: 'predefinedCredentialType',
          nodeCredentialType: 'openAiApi',
          sendBody: true,
          specifyBody: 'json',
          jsonBody:
            '={{ JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "system", content: "Draft a short, polite reply. Never promise refunds." }, { role: "user", content: $json.snippet }] }) }}',
          options: { timeout: 30000 },
        },
        credentials: { openAiApi: 'OpenAI account' },
        retry: true,
        next: ['Save Draft'],
      },
      {
        name: 'Save Draft',
        type: `${B}gmail`,
        typeVersion: 2.1,
        parameters: {
          resource: 'draft',
          operation: 'create',
          subject: "=Re: {{ $('New Email').item.json.Subject }}",
          message: '={{ $json.choices[0].message.content }}',
          options: { threadId: "={{ $('New Email').item.json.threadId }}" },
        },
        credentials: { gmailOAuth2: 'Gmail account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-abandoned-checkout-recovery',
    title: 'Abandoned Shopify checkout recovery sequence',
    price: 299,
    sector: 'ecommerce',
    description:
      'Waits an hour after a checkout is created, checks whether it converted and, if not, sends a recovery e-mail and logs the attempt.',
    apps: ['Shopify', 'HTTP', 'E-mail (SMTP)', 'Google Sheets'],
    nodes: [
      {
        name: 'Checkout Created',
        type: `${B}shopifyTrigger`,
        typeVersion: 1,
        parameters: { topic: 'checkouts/create' },
        credentials: { shopifyAccessTokenApi: 'Shopify store' },
        next: ['Wait 1 Hour'],
      },
      {
        name: 'Wait 1 Hour',
        type: `${B}wait`,
        typeVersion: 1.1,
        parameters: { amount: 1, unit: 'hours' },
        next: ['Check Checkout'],
      },
      {
        name: 'Check Checkout',
        type: `${B}httpRequest`,
        typeVersion: 4.2,
        parameters: {
          method: 'GET',
          url: "=https://your-store.myshopify.com/admin/api/2024-07/checkouts/{{ $('Checkout Created').item.json.token }}.json",
          authentication: 'predefinedCredentialType',
          nodeCredentialType: 'shopifyAccessTokenApi',
          options: { timeout: 10000 },
        },
        credentials: { shopifyAccessTokenApi: 'Shopify store' },
        retry: true,
        next: ['Still Open?'],
      },
      {
        name: 'Still Open?',
        type: `${B}if`,
        typeVersion: 2.2,
        parameters: {
          conditions: {
            options: { caseSensitive: true, typeValidation: 'loose' },
            combinator: 'and',
            conditions: [
              {
                id: 'c',
                leftValue: '={{ $json.checkout.completed_at }}',
                rightValue: '',
                operator: { type: 'string', operation: 'empty', singleValue: true },
              },
            ],
          },
        },
        next: [['Recovery Mail'], []],
      },
      {
        name: 'Recovery Mail',
        type: `${B}emailSend`,
        typeVersion: 2.1,
        parameters: {
          resource: 'email',
          operation: 'send',
          fromEmail: 'shop@example.com',
          toEmail: '={{ $json.checkout.email }}',
          subject: 'You left something behind',
          emailFormat: 'text',
          text: '=Complete your order here: {{ $json.checkout.abandoned_checkout_url }}',
        },
        credentials: { smtp: 'SMTP account' },
        retry: true,
        next: ['Log Attempt'],
      },
      {
        name: 'Log Attempt',
        type: `${B}googleSheets`,
        typeVersion: 4.5,
        parameters: {
          resource: 'sheet',
          operation: 'append',
          documentId: { __rl: true, mode: 'id', value: 'REPLACE_SHEET_ID' },
          sheetName: { __rl: true, mode: 'name', value: 'Recovery' },
          columns: { mappingMode: 'autoMapInputData' },
        },
        credentials: { googleSheetsOAuth2Api: 'Google Sheets account' },
        retry: true,
      },
    ],
  },
  {
    sku: 'tpl-multichannel-ops-router',
    title: 'Multi-channel operations event router',
    price: 362,
    sector: 'operations',
    description:
      'One authenticated webhook receives operational events and routes them by type to Slack, Microsoft Teams, Telegram and a Notion log, with a dead-letter alert for unknown types.',
    apps: ['Webhook', 'Slack', 'Microsoft Teams', 'Telegram', 'Notion'],
    nodes: [
      {
        name: 'Ops Event',
        type: `${B}webhook`,
        typeVersion: 2,
        parameters: {
          httpMethod: 'POST',
          path: 'ops-events',
          authentication: 'headerAuth',
          responseMode: 'onReceived',
        },
        credentials: { httpHeaderAuth: 'Ops events shared header' },
        next: ['Log to Notion', 'Route by Type'],
      },
      {
        name: 'Log to Notion',
        type: `${B}notion`,
        typeVersion: 2.2,
        parameters: {
          resource: 'databasePage',
          operation: 'create',
          databaseId: { __rl: true, mode: 'list', value: '' },
          title: '={{ $json.body.type }}: {{ $json.body.summary }}',
          propertiesUi: { propertyValues: [] },
        },
        credentials: { notionApi: 'Notion integration' },
        retry: true,
      },
      {
        name: 'Route by Type',
        type: `${B}switch`,
        typeVersion: 3.2,
        parameters: {
          rules: {
            values: ['deploy', 'incident', 'sale'].map((t) => ({
              conditions: {
                options: { caseSensitive: true, typeValidation: 'strict' },
                combinator: 'and',
                conditions: [
                  {
                    leftValue: '={{ $json.body.type }}',
                    rightValue: t,
                    operator: { type: 'string', operation: 'equals' },
                  },
                ],
              },
              renameOutput: true,
              outputKey: t,
            })),
          },
          options: { fallbackOutput: 'extra' },
        },
        next: [['Deploys to Teams'], ['Incidents to Slack'], ['Sales to Telegram'], ['Unknown Type']],
      },
      {
        name: 'Deploys to Teams',
        type: `${B}microsoftTeams`,
        typeVersion: 2,
        parameters: {
          resource: 'channelMessage',
          operation: 'create',
          teamId: { __rl: true, mode: 'list', value: '' },
          channelId: { __rl: true, mode: 'id', value: 'REPLACE_CHANNEL_ID' },
          contentType: 'text',
          message: '=Deploy: {{ $json.body.summary }}',
        },
        credentials: { microsoftTeamsOAuth2Api: 'Microsoft Teams account' },
        retry: true,
      },
      slackAlert('Incidents to Slack', '=Incident: {{ $json.body.summary }}'),
      {
        name: 'Sales to Telegram',
        type: `${B}telegram`,
        typeVersion: 1.2,
        parameters: {
          resource: 'message',
          operation: 'sendMessage',
          chatId: 'REPLACE_CHAT_ID',
          text: '=Sale: {{ $json.body.summary }}',
          additionalFields: {},
        },
        credentials: { telegramApi: 'Telegram bot' },
        retry: true,
      },
      slackAlert('Unknown Type', '=Unroutable ops event type {{ $json.body.type }}'),
    ],
  },
];

const credentialsOf = (wf: N8nWorkflow): string[] =>
  [...new Set(wf.nodes.flatMap((n) => Object.keys(n.credentials ?? {})))].sort();

/** The 18 templates, cheapest first (seed §2.13). */
export const TEMPLATES: readonly TemplateDefinition[] = Object.freeze(
  SEEDS.map((s) => {
    const workflow = buildWorkflow(s.title, s.nodes, {
      tags: [s.sector, 'agent-commerce'],
      description: s.description,
    });
    return Object.freeze({
      sku: s.sku,
      title: s.title,
      price_usd: s.price,
      price_micros: s.price * 1_000_000,
      sector: s.sector,
      description: s.description,
      apps: s.apps,
      credentials_needed: credentialsOf(workflow),
      workflow,
    });
  }),
);

const BY_SKU = new Map(TEMPLATES.map((t) => [t.sku, t]));

/** A template by sku, or undefined. */
export function getTemplate(sku: string): TemplateDefinition | undefined {
  return BY_SKU.get(sku);
}

/** `{count, min_usd, max_usd}` of the template prices (seed §2.13 `price_range`). */
export function templatePriceRange(): { count: number; min_usd: number; max_usd: number } {
  const prices = TEMPLATES.map((t) => t.price_usd);
  return { count: TEMPLATES.length, min_usd: Math.min(...prices), max_usd: Math.max(...prices) };
}
