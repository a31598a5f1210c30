/**
 * automation-wf deliverables: an importable n8n workflow (real node types, `connections` keyed by
 * node name, `settings.executionOrder: "v1"`) moving records from source_app to target_app, and
 * setup notes.
 *
 * Source: seed §1, §2.1 (automation-wf inputs: workflow_type, source_app, target_app).
 */
import type { DeliverableContext, DeliverableFile } from './types';
import { hasAny, haystack, line, lines, markdownFile, md, mdFooter, mdTable, provenance, slug, stableUuid } from './util';

interface TargetApp {
  keywords: string[];
  label: string;
  url: string;
  auth: string;
  headers?: Record<string, string>;
  /** n8n expression producing the JSON body from the mapped item (`$json`). */
  body: string;
  docs: string;
}

const TARGETS: TargetApp[] = [
  {
    keywords: ['slack'],
    label: 'Slack',
    url: 'https://slack.com/api/chat.postMessage',
    auth: 'Header Auth: `Authorization: Bearer xoxb-…` (bot token with chat:write)',
    body: "={{ JSON.stringify({ channel: 'REPLACE_WITH_SLACK_CHANNEL_ID', text: `New ${$json.source} record: ${$json.name || $json.email || $json.external_id}` }) }}",
    docs: 'https://api.slack.com/methods/chat.postMessage',
  },
  {
    keywords: ['hubspot'],
    label: 'HubSpot',
    url: 'https://api.hubapi.com/crm/v3/objects/contacts',
    auth: 'Header Auth: `Authorization: Bearer <private app token>` (crm.objects.contacts.write)',
    body: '={{ JSON.stringify({ properties: { email: $json.email, firstname: $json.name, hs_lead_status: \'NEW\' } }) }}',
    docs: 'https://developers.hubspot.com/docs/api/crm/contacts',
  },
  {
    keywords: ['airtable'],
    label: 'Airtable',
    url: 'https://api.airtable.com/v0/REPLACE_WITH_BASE_ID/REPLACE_WITH_TABLE_NAME',
    auth: 'Header Auth: `Authorization: Bearer <personal access token>` (data.records:write)',
    body: '={{ JSON.stringify({ records: [{ fields: { Name: $json.name, Email: $json.email, Source: $json.source, ExternalId: $json.external_id } }] }) }}',
    docs: 'https://airtable.com/developers/web/api/create-records',
  },
  {
    keywords: ['notion'],
    label: 'Notion',
    url: 'https://api.notion.com/v1/pages',
    auth: 'Header Auth: `Authorization: Bearer <integration secret>`; share the database with the integration',
    headers: { 'Notion-Version': '2022-06-28' },
    body: "={{ JSON.stringify({ parent: { database_id: 'REPLACE_WITH_DATABASE_ID' }, properties: { Name: { title: [{ text: { content: $json.name || $json.external_id } }] } } }) }}",
    docs: 'https://developers.notion.com/reference/post-page',
  },
  {
    keywords: ['google sheets', 'sheets', 'spreadsheet', 'gsheet'],
    label: 'Google Sheets',
    url: 'https://sheets.googleapis.com/v4/spreadsheets/REPLACE_WITH_SPREADSHEET_ID/values/Sheet1!A1:append?valueInputOption=USER_ENTERED',
    auth: 'OAuth2 (Google) with the spreadsheets scope',
    body: '={{ JSON.stringify({ values: [[$json.received_at, $json.source, $json.external_id, $json.name, $json.email]] }) }}',
    docs: 'https://developers.google.com/sheets/api/reference/rest/v4/spreadsheets.values/append',
  },
  {
    keywords: ['discord'],
    label: 'Discord',
    url: 'https://discord.com/api/webhooks/REPLACE_WITH_WEBHOOK_ID/REPLACE_WITH_WEBHOOK_TOKEN',
    auth: 'None (the webhook URL is the secret)',
    body: '={{ JSON.stringify({ content: `New ${$json.source} record: ${$json.name || $json.email || $json.external_id}` }) }}',
    docs: 'https://discord.com/developers/docs/resources/webhook#execute-webhook',
  },
  {
    keywords: ['telegram'],
    label: 'Telegram',
    url: 'https://api.telegram.org/botREPLACE_WITH_BOT_TOKEN/sendMessage',
    auth: 'None (the bot token is in the URL)',
    body: "={{ JSON.stringify({ chat_id: 'REPLACE_WITH_CHAT_ID', text: `New ${$json.source} record: ${$json.name || $json.email || $json.external_id}` }) }}",
    docs: 'https://core.telegram.org/bots/api#sendmessage',
  },
  {
    keywords: ['pipedrive'],
    label: 'Pipedrive',
    url: 'https://api.pipedrive.com/v1/persons',
    auth: 'Query Auth: `api_token=<token>`',
    body: '={{ JSON.stringify({ name: $json.name || $json.email, email: [$json.email] }) }}',
    docs: 'https://developers.pipedrive.com/docs/api/v1/Persons#addPerson',
  },
];

interface SourceApp {
  keywords: string[];
  label: string;
  /** How the source pushes events to the webhook, or null when it must be polled. */
  webhookSetup: string | null;
  /** URL to poll on a schedule. */
  pollUrl: string;
}

const SOURCES: SourceApp[] = [
  { keywords: ['shopify'], label: 'Shopify', webhookSetup: 'Shopify admin → Settings → Notifications → Webhooks → Create webhook (e.g. "Order creation", JSON) pointing at the production webhook URL.', pollUrl: 'https://REPLACE_WITH_SHOP.myshopify.com/admin/api/2024-10/orders.json?status=any&limit=50' },
  { keywords: ['stripe'], label: 'Stripe', webhookSetup: 'Stripe Dashboard → Developers → Webhooks → Add endpoint with the production webhook URL; select the events you need (e.g. checkout.session.completed).', pollUrl: 'https://api.stripe.com/v1/charges?limit=50' },
  { keywords: ['typeform'], label: 'Typeform', webhookSetup: 'Typeform → your form → Connect → Webhooks → Add a webhook with the production webhook URL.', pollUrl: 'https://api.typeform.com/forms/REPLACE_WITH_FORM_ID/responses?page_size=50' },
  { keywords: ['calendly'], label: 'Calendly', webhookSetup: 'Create a webhook subscription (POST https://api.calendly.com/webhook_subscriptions) for invitee.created with the production webhook URL.', pollUrl: 'https://api.calendly.com/scheduled_events?user=REPLACE_WITH_USER_URI' },
  { keywords: ['github'], label: 'GitHub', webhookSetup: 'Repository → Settings → Webhooks → Add webhook, content type application/json, with the production webhook URL.', pollUrl: 'https://api.github.com/repos/REPLACE_WITH_OWNER/REPLACE_WITH_REPO/issues?state=all&per_page=50' },
  { keywords: ['woocommerce', 'woo'], label: 'WooCommerce', webhookSetup: 'WooCommerce → Settings → Advanced → Webhooks → Add webhook (topic "Order created") with the production webhook URL.', pollUrl: 'https://REPLACE_WITH_STORE/wp-json/wc/v3/orders?per_page=50' },
  { keywords: ['hubspot'], label: 'HubSpot', webhookSetup: 'HubSpot private app → Webhooks → subscribe to contact.creation with the production webhook URL.', pollUrl: 'https://api.hubapi.com/crm/v3/objects/contacts?limit=50' },
  { keywords: ['google sheets', 'sheets', 'spreadsheet', 'gsheet'], label: 'Google Sheets', webhookSetup: null, pollUrl: 'https://sheets.googleapis.com/v4/spreadsheets/REPLACE_WITH_SPREADSHEET_ID/values/Sheet1!A2:E' },
  { keywords: ['airtable'], label: 'Airtable', webhookSetup: null, pollUrl: 'https://api.airtable.com/v0/REPLACE_WITH_BASE_ID/REPLACE_WITH_TABLE_NAME?pageSize=50' },
  { keywords: ['gmail', 'email', 'outlook'], label: 'E-mail', webhookSetup: null, pollUrl: 'https://gmail.googleapis.com/gmail/v1/users/me/messages?q=is:unread&maxResults=50' },
];

const SCHEDULE_WORDS = ['schedule', 'scheduled', 'daily', 'hourly', 'weekly', 'nightly', 'cron', 'report', 'digest', 'backup', 'poll', 'batch', 'sync'];

interface N8nNode {
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
  notes?: string;
}

type Connections = Record<string, { main: { node: string; type: 'main'; index: number }[][] }>;

/**
 * Generates `automation-wf-workflow.json` (n8n import format) and `automation-wf-setup.md`.
 * Source: seed §1, §2.1.
 */
export function automationWfDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const workflowType = line(ctx.inputs, 'workflow_type', 'data sync', 120);
  const sourceName = line(ctx.inputs, 'source_app', 'Source app', 60);
  const targetName = line(ctx.inputs, 'target_app', 'Target app', 60);
  const source = SOURCES.find((s) => hasAny(haystack(sourceName), s.keywords));
  const target = TARGETS.find((t) => hasAny(haystack(targetName), t.keywords));
  const wantsSchedule = hasAny(haystack(workflowType), SCHEDULE_WORDS);
  const mode: 'webhook' | 'schedule' = wantsSchedule || (source !== undefined && source.webhookSetup === null) ? 'schedule' : 'webhook';
  const interval = hasAny(haystack(workflowType), ['daily', 'nightly', 'report', 'digest', 'backup'])
    ? { field: 'days', daysInterval: 1, triggerAtHour: 6 }
    : hasAny(haystack(workflowType), ['weekly'])
      ? { field: 'weeks', weeksInterval: 1, triggerAtDay: [1], triggerAtHour: 6 }
      : { field: 'minutes', minutesInterval: 15 };

  const id = (name: string): string => stableUuid(ctx.orderId, 'n8n-node', name);
  const webhookPath = `${slug(sourceName, 'source', 24)}-to-${slug(targetName, 'target', 24)}-${stableUuid(ctx.orderId, 'webhook-path').slice(0, 8)}`;
  const input = mode === 'webhook' ? '($json.body ?? $json)' : '$json';

  const names = {
    trigger: mode === 'webhook' ? `${sourceName} webhook` : `Every ${interval.field === 'minutes' ? '15 minutes' : interval.field === 'days' ? 'day' : 'week'}`,
    fetch: `Fetch from ${sourceName}`,
    map: 'Map fields',
    check: 'Has an id?',
    send: `Send to ${targetName}`,
    skip: 'Skip incomplete record',
  };

  const nodes: N8nNode[] = [];
  if (mode === 'webhook') {
    nodes.push({
      id: id(names.trigger),
      name: names.trigger,
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 300],
      webhookId: stableUuid(ctx.orderId, 'webhook-id'),
      parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
      notes: source?.webhookSetup ?? `Configure ${sourceName} to POST JSON events to this node's production URL.`,
    });
  } else {
    nodes.push({
      id: id(names.trigger),
      name: names.trigger,
      type: 'n8n-nodes-base.scheduleTrigger',
      typeVersion: 1.2,
      position: [0, 300],
      parameters: { rule: { interval: [interval] } },
    });
    nodes.push({
      id: id(names.fetch),
      name: names.fetch,
      type: 'n8n-nodes-base.httpRequest',
      typeVersion: 4.2,
      position: [220, 300],
      parameters: {
        method: 'GET',
        url: source?.pollUrl ?? 'https://REPLACE_WITH_SOURCE_API/records',
        authentication: 'genericCredentialType',
        genericAuthType: 'httpHeaderAuth',
        options: {},
      },
      retryOnFail: true,
      maxTries: 3,
      waitBetweenTries: 5000,
    });
  }
  const x0 = mode === 'webhook' ? 220 : 440;
  const assignment = (name: string, value: string): Record<string, string> => ({ id: id(`assign:${name}`), name, value, type: 'string' });
  nodes.push({
    id: id(names.map),
    name: names.map,
    type: 'n8n-nodes-base.set',
    typeVersion: 3.4,
    position: [x0, 300],
    parameters: {
      mode: 'manual',
      assignments: {
        assignments: [
          assignment('source', sourceName),
          assignment('external_id', `={{ String(${input}.id ?? ${input}.order_id ?? ${input}.email ?? '') }}`),
          assignment('name', `={{ ${input}.name ?? [${input}.first_name, ${input}.last_name].filter(Boolean).join(' ') }}`),
          assignment('email', `={{ ${input}.email ?? ${input}.customer?.email ?? '' }}`),
          assignment('received_at', '={{ $now.toISO() }}'),
          assignment('payload', `={{ JSON.stringify(${input}) }}`),
        ],
      },
      includeOtherFields: false,
      options: {},
    },
  });
  nodes.push({
    id: id(names.check),
    name: names.check,
    type: 'n8n-nodes-base.if',
    typeVersion: 2,
    position: [x0 + 220, 300],
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
        conditions: [
          { id: id('condition:external_id'), leftValue: '={{ $json.external_id }}', rightValue: '', operator: { type: 'string', operation: 'notEmpty', singleValue: true } },
        ],
        combinator: 'and',
      },
      options: {},
    },
  });
  const headers = Object.entries(target?.headers ?? {}).map(([name, value]) => ({ name, value }));
  nodes.push({
    id: id(names.send),
    name: names.send,
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: 4.2,
    position: [x0 + 440, 200],
    parameters: {
      method: 'POST',
      url: target?.url ?? 'https://REPLACE_WITH_TARGET_API/records',
      authentication: 'genericCredentialType',
      genericAuthType: 'httpHeaderAuth',
      sendHeaders: headers.length > 0,
      headerParameters: { parameters: headers },
      sendBody: true,
      specifyBody: 'json',
      jsonBody: target?.body ?? '={{ JSON.stringify({ source: $json.source, external_id: $json.external_id, name: $json.name, email: $json.email, payload: JSON.parse($json.payload) }) }}',
      options: {},
    },
    retryOnFail: true,
    maxTries: 3,
    waitBetweenTries: 5000,
  });
  nodes.push({ id: id(names.skip), name: names.skip, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [x0 + 440, 400], parameters: {} });

  const link = (node: string): { node: string; type: 'main'; index: number } => ({ node, type: 'main', index: 0 });
  const connections: Connections = {};
  if (mode === 'webhook') {
    connections[names.trigger] = { main: [[link(names.map)]] };
  } else {
    connections[names.trigger] = { main: [[link(names.fetch)]] };
    connections[names.fetch] = { main: [[link(names.map)]] };
  }
  connections[names.map] = { main: [[link(names.check)]] };
  connections[names.check] = { main: [[link(names.send)], [link(names.skip)]] };

  const workflow = {
    name: `${workflowType}: ${sourceName} → ${targetName}`,
    nodes,
    connections,
    active: false,
    settings: { executionOrder: 'v1', saveManualExecutions: true, callerPolicy: 'workflowsFromSameOwner' },
    pinData: {},
    meta: { templateCredsSetupCompleted: false, generator: 'agent-commerce/automation-wf', ...provenance(ctx) },
  };

  const workflowJson = JSON.stringify(workflow, null, 2);
  const placeholders = [...new Set(workflowJson.match(/REPLACE_WITH_[A-Z_]+/g) ?? [])].sort();

  const notes = lines(
    `# n8n workflow: ${md(workflowType)}`,
    '',
    `Moves records from **${md(sourceName)}** to **${md(targetName)}** (${mode === 'webhook' ? 'event-driven, via webhook' : 'polled on a schedule'}).`,
    '',
    '## Flow',
    '',
    mdTable(['Step', 'Node', 'Type'], nodes.map((n, i) => [i + 1, n.name, n.type])),
    '',
    '## Import',
    '',
    '1. In n8n: **Workflows → Import from File** and choose `automation-wf-workflow.json` (or paste its content on the canvas).',
    `2. Create a **Header Auth** credential for ${md(target?.label ?? targetName)} and select it on "${md(names.send)}". ${target?.auth ?? 'Use the API key or token of the target app.'}`,
    mode === 'schedule'
      ? `3. Create a credential for ${md(source?.label ?? sourceName)} and select it on "${md(names.fetch)}".`
      : `3. ${source?.webhookSetup ?? `Configure ${md(sourceName)} to POST JSON events to the webhook's production URL.`} The path is \`${webhookPath}\`.`,
    placeholders.length > 0 ? `4. Replace the placeholders: ${placeholders.map((p) => `\`${p}\``).join(', ')}.` : '4. No placeholders to replace.',
    '5. Run once with **Execute workflow**, check the output of every node, then activate the workflow.',
    '',
    '## Field mapping',
    '',
    mdTable(['Field', 'Taken from'], [
      ['source', `the constant "${sourceName}"`],
      ['external_id', 'id, order_id or email of the incoming record'],
      ['name', 'name, or first_name + last_name'],
      ['email', 'email or customer.email'],
      ['received_at', 'the time n8n processed the item'],
      ['payload', 'the complete incoming record, as JSON text'],
    ]),
    '',
    'Records without an id take the "Skip incomplete record" branch. The HTTP nodes retry three times, five seconds apart.',
    target ? `\nTarget API reference: ${target.docs}` : `\nThe target "${md(targetName)}" has no preset: set the URL and the JSON body of "${md(names.send)}" from its API reference.`,
    mode === 'webhook'
      ? `\nTest with:\n\n\`\`\`sh\ncurl -X POST "https://<your-n8n-host>/webhook-test/${webhookPath}" -H 'Content-Type: application/json' -d '{"id":"test-1","name":"Test Person","email":"test@example.com"}'\n\`\`\``
      : null,
    mdFooter(ctx),
  );

  return [
    { name: 'automation-wf-workflow.json', media_type: 'application/json', content: Buffer.from(`${workflowJson}\n`, 'utf8') },
    markdownFile('automation-wf-setup.md', notes),
  ];
}
