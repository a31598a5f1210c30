/**
 * Golden set (issue 13): for each of the 14 services, realistic orders whose deliverables are checked for the facts a
 * customer checks first — names, numbers, durations, time zones, apps, versions — and one test per defect the issue
 * lists. Services with language work get the fake model's replies (test/helpers/fakeTextModel.ts); what is checked
 * there is what the generator sends the model and how it lays out the reply.
 */
import { getService } from '../../src/domain/catalogue';
import { N8N_NODE_TYPES, checkNodeUse, indexNodeTypes } from '../../src/products/micro/snapshot';
import {
  bundleConnections,
  bundleManifest,
  completeInputs,
  generateDeliverables,
  languageTasks,
  type DeliverableContext,
  type InputValue,
} from '../../src/products/deliverables';
import { findProduct } from '../../src/products/deliverables/products';
import { fakeLanguage } from '../helpers/fakeTextModel';

const ISSUED = '2026-03-01T10:00:00.000Z';
const nodeIndex = indexNodeTypes(N8N_NODE_TYPES);

type Files = Record<string, string>;

function context(
  serviceId: string,
  inputs: Record<string, InputValue>,
  opts: { orderId?: string; bundleId?: string } = {},
): DeliverableContext {
  const base: DeliverableContext = {
    orderId: opts.orderId ?? 'ord_golden',
    serviceId,
    inputs,
    issuedAt: ISSUED,
    ...(opts.bundleId ? { bundleId: opts.bundleId } : {}),
  };
  const required = languageTasks(base).filter((t) => t.required);
  return required.length > 0 ? { ...base, language: fakeLanguage(required) } : base;
}

function gen(
  serviceId: string,
  inputs: Record<string, InputValue>,
  opts: { orderId?: string; bundleId?: string } = {},
): Files {
  return Object.fromEntries(
    generateDeliverables(context(serviceId, inputs, opts)).map((f) => [f.name, f.content.toString('utf8')]),
  );
}

function json(files: Files, name: string): any {
  const text = files[name];
  if (text === undefined) throw new Error(`no ${name} in ${Object.keys(files).join(', ')}`);
  return JSON.parse(text);
}

/** Every part of a bundle as the activity generates it (bundle id set), keyed by part id. */
function genBundle(
  bundleId: string,
  inputs: Record<string, InputValue>,
  orderId = 'ord_bundle_golden',
): Record<string, Files> {
  return Object.fromEntries(
    (getService(bundleId)?.includes ?? []).map((part) => [part, gen(part, inputs, { orderId, bundleId })]),
  );
}

/** Runs an n8n Set node's assignments over a webhook body, as n8n evaluates `={{ … }}` expressions. */
function runSetNode(workflow: any, nodeName: string, body: unknown): Record<string, unknown> {
  const node = workflow.nodes.find((n: any) => n.name === nodeName);
  if (!node) throw new Error(`no node ${nodeName}`);
  const $json = { body };
  return Object.fromEntries(
    node.parameters.assignments.assignments.map((a: { name: string; value: string }) => {
      const m = /^=\{\{ ([\s\S]*) \}\}$/.exec(a.value);

      return [a.name, m ? new Function('$json', '$now', `return (${m[1]});`)($json, { toISO: () => ISSUED }) : a.value];
    }),
  );
}

function expectNodesInSnapshot(workflow: any): void {
  for (const n of workflow.nodes) {
    const role = n.type.endsWith('webhook') || n.type.endsWith('Trigger') ? 'trigger' : 'helper';
    expect(checkNodeUse(nodeIndex, { type: n.type, typeVersion: n.typeVersion, role })).toEqual([]);
  }
}

describe('ai-receptionist', () => {
  test('physio clinic: durations per service, Eastern time and Saturday hours as given, WhatsApp in E.164', () => {
    const f = gen('ai-receptionist', {
      business_name: 'Harbor Physio',
      contact_email: 'desk@harborphysio.example',
      services: 'Initial assessment (60 min), Follow-up treatment 30 minutes, Sports massage – 45 min',
      timezone: 'Eastern time',
      opening_hours: 'Mon-Fri 8am-6pm, Sat 9am-1pm',
      whatsapp: '+1 617 555 0142',
    });
    const config = json(f, 'ai-receptionist-config.json');
    expect(config.business.services.map((s: any) => [s.name, s.default_duration_minutes])).toEqual([
      ['Initial assessment', 60],
      ['Follow-up treatment', 30],
      ['Sports massage', 45],
    ]);
    expect(config.business_hours.timezone).toBe('America/New_York');
    expect(config.business_hours.weekly.mon).toEqual([['08:00', '18:00']]);
    expect(config.business_hours.weekly.sat).toEqual([['09:00', '13:00']]);
    expect(config.business_hours.needs_confirmation).toBe(false);
    expect(config.channels.find((c: any) => c.type === 'whatsapp').phone_number_e164).toBe('+16175550142');
    const prompt = f['ai-receptionist-system-prompt.md'] ?? '';
    expect(prompt).toContain('Initial assessment (id `initial_assessment`, 60 minutes)');
    expect(prompt).toContain('America/New\\_York');
    expect(prompt).toContain('Saturday 09:00–13:00');
  });

  test('salon in Berlin: an IANA zone as given, "2 hours" read as 120 minutes; no hours given stay to be confirmed', () => {
    const config = json(
      gen('ai-receptionist', {
        business_name: 'Salon Lindenhof',
        contact_email: 'hallo@lindenhof.example',
        services: ['Haircut 45 min', 'Colour 2 hours', 'Blow-dry'],
        timezone: 'Europe/Berlin',
        industry: 'hair salon',
      }),
      'ai-receptionist-config.json',
    );
    expect(config.business.services.map((s: any) => s.default_duration_minutes)).toEqual([45, 120, 45]);
    expect(config.business.services[2].duration_given).toBe(false);
    expect(config.business_hours.timezone).toBe('Europe/Berlin');
    expect(config.business_hours.needs_confirmation).toBe(true);
  });
});

describe('ai-receptionist: sampled orders', () => {
  test('defect: "Gel manicure 45 min $55, Acrylic full set 1h 15m $85, …" is four services with their prices; an Australian WhatsApp number does not pass UTC off as the zone', () => {
    const f = gen('ai-receptionist', {
      business_name: 'Bella Vista Nails & Beauty',
      contact_email: 'hello@bellavistanails.com.au',
      services: 'Gel manicure 45 min $55, Acrylic full set 1h 15m $85, Pedicure (50 mins) $60, Brow wax 15 min $20',
      whatsapp: '+61 412 555 019',
    });
    const config = json(f, 'ai-receptionist-config.json');
    expect(config.business.services.map((s: any) => [s.name, s.default_duration_minutes, s.price])).toEqual([
      ['Gel manicure', 45, '$55'],
      ['Acrylic full set', 75, '$85'],
      ['Pedicure', 50, '$60'],
      ['Brow wax', 15, '$20'],
    ]);
    expect(config.channels.find((c: any) => c.type === 'whatsapp').phone_number_e164).toBe('+61412555019');
    expect(config.business_hours).toMatchObject({ timezone_given: false, needs_confirmation: true });
    expect(config.business_hours.timezone_note).toContain('Australia');
    expect(f['ai-receptionist-system-prompt.md']).toContain('the business is in Australia, whose zone was not given');
    // A duration after a comma belongs to the service before it; a UK national WhatsApp number is read as +44.
    const barber = json(
      gen('ai-receptionist', {
        business_name: 'Copper Kettle Barbers',
        contact_email: 'book@copperkettle.co.uk',
        services: 'Skin fade £22 (40 mins); Beard trim & shape - £12, 20 min; Kids cut (under 12) £15 30min',
        whatsapp: '07700 900123',
      }),
      'ai-receptionist-config.json',
    );
    expect(barber.business.services.map((s: any) => [s.name, s.default_duration_minutes, s.price])).toEqual([
      ['Skin fade', 40, '£22'],
      ['Beard trim & shape', 20, '£12'],
      ['Kids cut (under 12)', 30, '£15'],
    ]);
    expect(barber.channels.find((c: any) => c.type === 'whatsapp')).toMatchObject({
      enabled: true,
      phone_number_e164: '+447700900123',
    });
    expect(barber.business_hours).toMatchObject({ timezone: 'Europe/London', timezone_given: false });
    // A thousands separator still does not split: "$1,200" stays one price.
    const big = json(
      gen('ai-receptionist', { business_name: 'Gold Coast Weddings', services: 'Bridal package 3 hours $1,200' }),
      'ai-receptionist-config.json',
    );
    expect(big.business.services.map((s: any) => [s.name, s.price])).toEqual([['Bridal package', '$1,200']]);
  });
});

describe('website-booking', () => {
  test('defect: a 60-minute "Initial assessment" is a 60-minute slot, in the page and the config', () => {
    const f = gen('website-booking', {
      business_name: 'Harbor Physio',
      industry: 'Physiotherapy clinic',
      services: '60-minute Initial assessment, 30-minute follow-up',
      timezone: 'America/Chicago',
    });
    const config = json(f, 'website-booking-config.json');
    expect(config.services.map((s: any) => [s.name, s.duration_minutes])).toEqual([
      ['Initial assessment', 60],
      ['Follow-up', 30],
    ]);
    expect(config.availability.timezone).toBe('America/Chicago');
    const html = f['website-booking-index.html'] ?? '';
    expect(html).toContain('<li><span>Initial assessment</span><span class="duration">1 h</span></li>');
    expect(html).toContain('Time (America/Chicago)');
    expect(html).not.toContain('30 min</span></li>\n      <li><span>Follow');
  });

  test('law firm: "1.5 hours" is 90 minutes; a service without a duration gets the industry default, flagged', () => {
    const f = gen('website-booking', {
      business_name: 'Okafor & Reyes LLP',
      industry: 'Law firm',
      services: 'Initial consultation (1.5 hours); Document review',
    });
    const config = json(f, 'website-booking-config.json');
    expect(config.services.map((s: any) => s.duration_minutes)).toEqual([90, 60]);
    expect(config.services.map((s: any) => s.duration_given)).toEqual([true, false]);
    expect(f['website-booking-readme.md']).toContain('60 (default, please confirm)');
    expect(f['website-booking-index.html']).toContain('Okafor &amp; Reyes LLP');
  });
});

describe('website-booking: hours and zones written into the services', () => {
  test('defect: "… Nail clip 15min $15. Open Tue-Sat 9am to 5pm, Melbourne time" is three services, Tue–Sat hours and Melbourne time', () => {
    const f = gen('website-booking', {
      business_name: 'Northside Dog Grooming',
      industry: 'pet grooming',
      services:
        'Full groom (2 hrs) $85; Bath & tidy - 45 mins - $40; Nail clip 15min $15. Open Tue-Sat 9am to 5pm, Melbourne time',
    });
    const config = json(f, 'website-booking-config.json');
    expect(config.services.map((s: any) => [s.name, s.duration_minutes, s.price])).toEqual([
      ['Full groom', 120, '$85'],
      ['Bath & tidy', 45, '$40'],
      ['Nail clip', 15, '$15'],
    ]);
    expect(config.availability.timezone).toBe('Australia/Melbourne');
    expect(config.availability.timezone_given).toBe(true);
    expect(config.availability.weekly).toEqual({
      mon: [],
      tue: [['09:00', '17:00']],
      wed: [['09:00', '17:00']],
      thu: [['09:00', '17:00']],
      fri: [['09:00', '17:00']],
      sat: [['09:00', '17:00']],
      sun: [],
    });
    expect(config.availability.needs_confirmation).toBe(false);
    const html = f['website-booking-index.html'] ?? '';
    expect(html).toContain('Time (Australia/Melbourne)');
    expect(html).toContain('Tuesday–Saturday 09:00–17:00');
    expect(html).not.toContain('Melbourne time</option>');
  });

  test('ai-receptionist: "Hours: …" and "We\'re in Denver." sentences in the services, and hours in a notes field, are read as hours and zone', () => {
    const config = json(
      gen('ai-receptionist', {
        business_name: 'Summit Family Dental',
        contact_email: 'front@summitdental.example',
        services: "Teeth cleaning 45 min, Check-up 30 min. Hours: Mon-Fri 8-6, Sat 9-1. We're in Denver.",
      }),
      'ai-receptionist-config.json',
    );
    expect(config.business.services.map((s: any) => [s.name, s.default_duration_minutes])).toEqual([
      ['Teeth cleaning', 45],
      ['Check-up', 30],
    ]);
    expect(config.business_hours.timezone).toBe('America/Denver');
    expect(config.business_hours.weekly.fri).toEqual([['08:00', '18:00']]);
    expect(config.business_hours.weekly.sat).toEqual([['09:00', '13:00']]);
    expect(config.business_hours.needs_confirmation).toBe(false);

    const salon = json(
      gen('ai-receptionist', {
        business_name: 'Studio Nine',
        contact_email: 'hi@studionine.example',
        services: ['Haircut 45 min', 'Colour 2 hours'],
        notes: "We're open weekdays 9am-7pm and Saturdays 10-4, Toronto",
      }),
      'ai-receptionist-config.json',
    );
    expect(salon.business.services.map((s: any) => s.name)).toEqual(['Haircut', 'Colour']);
    expect(salon.business_hours.timezone).toBe('America/Toronto');
    expect(salon.business_hours.weekly.wed).toEqual([['09:00', '19:00']]);
    expect(salon.business_hours.weekly.sat).toEqual([['10:00', '16:00']]);
  });

  test('services that merely mention a day or a title stay services; a business name never sets the zone', () => {
    const config = json(
      gen('website-booking', {
        business_name: 'Phoenix Fitness',
        industry: 'gym',
        services: 'Dr. Lee consult 30 min, Open water swim lesson 45 min; Sunday bootcamp $30',
      }),
      'website-booking-config.json',
    );
    expect(config.services.map((s: any) => s.name)).toEqual([
      'Dr. Lee consult',
      'Open water swim lesson',
      'Sunday bootcamp',
    ]);
    expect(config.availability.timezone_given).toBe(false);
  });
});

describe('website-booking: classes at a day and time, and city names', () => {
  test('defect: "Saturday yoga 9-10am" and "Tuesday spin class 6:30-7:15pm" are classes with their lengths, not opening hours', () => {
    const config = json(
      gen('website-booking', {
        business_name: 'Northside Movement Studio',
        industry: 'fitness studio',
        services:
          'Saturday yoga 9-10am, Tuesday spin class 6:30-7:15pm, Reformer pilates 50 min $35. Open Mon-Fri 6am-8pm, Sat 8-12',
      }),
      'website-booking-config.json',
    );
    expect(config.services.map((s: any) => [s.name, s.duration_minutes, s.price])).toEqual([
      ['Saturday yoga (09:00–10:00)', 60, null],
      ['Tuesday spin class (18:30–19:15)', 45, null],
      ['Reformer pilates', 50, '$35'],
    ]);
    expect(config.services.map((s: any) => s.id)).toEqual(['saturday_yoga', 'tuesday_spin_class', 'reformer_pilates']);
    // The opening hours are the "Open …" statement and the bare "Sat 8-12", not the class times.
    expect(config.availability.weekly.tue).toEqual([['06:00', '20:00']]);
    expect(config.availability.weekly.sat).toEqual([['08:00', '12:00']]);
  });

  test('defect: "Lima beans catering" sets no zone; "in Lima", "Lima, Peru" and a city field do', () => {
    const plain = json(
      gen('website-booking', {
        business_name: 'Green Pod Kitchen',
        industry: 'catering',
        business_description: 'Lima beans catering for weddings and office lunches',
        services: 'Tasting session 45 min',
      }),
      'website-booking-config.json',
    );
    expect(plain.availability.timezone_given).toBe(false);
    expect(plain.availability.timezone).not.toBe('America/Lima');
    const places: Record<string, string>[] = [
      { business_description: 'Lima beans catering, based in Lima' },
      { business_description: 'Catering for weddings. Lima, Peru' },
      { address: 'Av. Larco 345, Miraflores, Lima' },
    ];
    for (const where of places) {
      const config = json(
        gen('website-booking', { business_name: 'Green Pod Kitchen', services: 'Tasting session 45 min', ...where }),
        'website-booking-config.json',
      );
      expect([where, config.availability.timezone]).toEqual([where, 'America/Lima']);
    }
  });
});

describe('website-booking: prices and offsets', () => {
  test('massage studio: prices stay apart from names, a comma inside parentheses does not split, "UTC+4" is a fixed zone', () => {
    const f = gen('website-booking', {
      business_name: 'Calm Hands',
      industry: 'Massage studio',
      services: 'Swedish massage (60 min, $80), Deep tissue 90 minutes - $110; Hot stone',
      timezone: 'UTC+4',
    });
    const config = json(f, 'website-booking-config.json');
    expect(config.services.map((s: any) => [s.name, s.duration_minutes, s.price])).toEqual([
      ['Swedish massage', 60, '$80'],
      ['Deep tissue', 90, '$110'],
      ['Hot stone', 45, null],
    ]);
    expect(config.availability.timezone).toBe('Etc/GMT-4');
    expect(f['website-booking-index.html']).toContain('<span class="duration">1 h · $80</span>');
  });
});

describe('automation-wf', () => {
  test('defect: Typeform → HubSpot maps a real Typeform submission (form_response.answers[]), not top-level id/email', () => {
    const wf = json(
      gen('automation-wf', { workflow_type: 'New enquiry to CRM', source_app: 'Typeform', target_app: 'HubSpot' }),
      'automation-wf-workflow.json',
    );
    expectNodesInSnapshot(wf);
    const sample = findProduct('typeform')!.webhook!.sample;
    const mapped = runSetNode(wf, 'Map Typeform fields', sample);
    // The map builds what the HubSpot upsert sends (issue 38 §3): the contact, every answer as the summary, the UTMs.
    expect(mapped).toMatchObject({
      name: 'Dana Whitfield',
      email: 'dana@example.com',
      phone: '+15555550142',
      summary: 'Enquiry: Your name: Dana Whitfield; E-mail: dana@example.com; Phone: +15555550142',
      utm_source: 'newsletter',
    });
    const send = wf.nodes.find((n: any) => n.name === 'Create or update in HubSpot');
    expect(send.parameters.url).toBe('https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert');
  });

  test('Shopify → Google Sheets: order number, total and line items from the orders/create payload', () => {
    const wf = json(
      gen('automation-wf', {
        workflow_type: 'Log every new order',
        source_app: 'Shopify store',
        target_app: 'Google Sheets',
      }),
      'automation-wf-workflow.json',
    );
    const mapped = runSetNode(wf, 'Map Shopify fields', findProduct('shopify')!.webhook!.sample);
    expect(mapped).toMatchObject({
      email: 'dana@example.com',
      name: 'Dana Whitfield',
      amount: '199.00',
      currency: 'USD',
    });
    expect(String(mapped.summary)).toBe('Order #1001: 2 x TEE-BLK-M');
    expect(wf.nodes.find((n: any) => n.name === 'Send to Google Sheets').parameters.url).toContain(
      'sheets.googleapis.com',
    );
  });

  test('ShipStation → Slack: the reference-only webhook gets a fetch step reading resource_url', () => {
    const wf = json(
      gen('automation-wf', { workflow_type: 'Alert on new orders', source_app: 'ShipStation', target_app: 'Slack' }),
      'automation-wf-workflow.json',
    );
    expectNodesInSnapshot(wf);
    const fetch = wf.nodes.find((n: any) => n.name === 'Fetch the ShipStation record');
    expect(fetch.parameters.url).toBe('={{ $json.body.resource_url }}');
    expect(wf.connections['ShipStation webhook'].main[0][0].node).toBe('Fetch the ShipStation record');
  });
});

describe('automation-wf: record kinds and notifications as named', () => {
  test('defect: "new Calendly bookings into Pipedrive as deals and a Slack message to #sales" creates a deal linked to its person, then posts to #sales; no sheet name', () => {
    const wf = json(
      gen('automation-wf', {
        workflow_type: 'new Calendly bookings into Pipedrive as deals and a Slack message to #sales',
        source_app: 'Calendly',
        target_app: 'Pipedrive',
      }),
      'automation-wf-workflow.json',
    );
    expectNodesInSnapshot(wf);
    const person = wf.nodes.find((n: any) => n.name === 'Create the Pipedrive person');
    expect(person.parameters.url).toBe('https://api.pipedrive.com/v1/persons');
    const deal = wf.nodes.find((n: any) => n.name === 'Send to Pipedrive');
    expect(deal.parameters.url).toBe('https://api.pipedrive.com/v1/deals');
    expect(deal.parameters.jsonBody).toContain('person_id: $json.data.id');
    const slack = wf.nodes.find((n: any) => n.name === 'Notify Slack #sales');
    expect(slack.parameters.url).toBe('https://slack.com/api/chat.postMessage');
    expect(slack.parameters.jsonBody).toContain("channel: '#sales'");
    expect(wf.connections['Has an id?'].main[0][0].node).toBe('Create the Pipedrive person');
    expect(wf.connections['Create the Pipedrive person'].main[0][0].node).toBe('Send to Pipedrive');
    expect(wf.connections['Send to Pipedrive'].main[0][0].node).toBe('Notify Slack #sales');
    const mapped = runSetNode(wf, 'Map Calendly fields', findProduct('calendly')!.webhook!.sample);
    expect(mapped).not.toHaveProperty('table');
    expect(mapped).toMatchObject({ name: 'Dana Whitfield', email: 'dana@example.com' });
    // The deal body, evaluated as n8n would with the person's response and the mapped record.
    const m = /^=\{\{ ([\s\S]*) \}\}$/.exec(deal.parameters.jsonBody)!;
    const body = JSON.parse(
      new Function('$json', '$', `return (${m[1]});`)({ data: { id: 77 } }, () => ({ item: { json: mapped } })),
    );
    expect(body).toMatchObject({
      person_id: 77,
      title: 'Dana Whitfield: Initial assessment at 2026-03-05T15:00:00.000000Z',
    });
  });

  test('"as a ticket" into HubSpot is a HubSpot ticket; a Slack target posts to the #channel named; rows keep the sheet', () => {
    const hubspot = json(
      gen('automation-wf', {
        workflow_type: 'Typeform enquiries into HubSpot as a ticket',
        source_app: 'Typeform',
        target_app: 'HubSpot',
      }),
      'automation-wf-workflow.json',
    );
    expect(hubspot.nodes.find((n: any) => n.name === 'Send to HubSpot').parameters.url).toBe(
      'https://api.hubapi.com/crm/v3/objects/tickets',
    );
    const slack = json(
      gen('automation-wf', {
        workflow_type: 'Post new Shopify orders to #orders',
        source_app: 'Shopify',
        target_app: 'Slack',
      }),
      'automation-wf-workflow.json',
    );
    expect(slack.nodes.find((n: any) => n.name === 'Send to Slack').parameters.jsonBody).toContain(
      "channel: '#orders'",
    );
    const sheets = json(
      gen('automation-wf', {
        workflow_type: 'Add Stripe payments as rows and e-mail ops@acme.example via Gmail',
        source_app: 'Stripe',
        target_app: 'Google Sheets',
      }),
      'automation-wf-workflow.json',
    );
    expectNodesInSnapshot(sheets);
    expect(sheets.nodes.find((n: any) => n.name === 'Send to Google Sheets').parameters.url).toContain(
      '/values/Sheet1!A1',
    );
    const gmail = sheets.nodes.find((n: any) => n.type === 'n8n-nodes-base.gmail');
    expect(gmail.parameters).toMatchObject({ resource: 'message', operation: 'send', sendTo: 'ops@acme.example' });
  });
});

describe('task-worker', () => {
  test('defect: "write five e-mails" delivers five e-mails, not a plan', () => {
    const inputs = {
      task_prompt:
        'Write five short e-mails inviting past customers of Harbor Bikes to our spring service week (April 6–12). Sign them "Maya, Harbor Bikes".',
      format: 'markdown',
    };
    const [task] = languageTasks({ orderId: 'o', serviceId: 'task-worker', inputs, issuedAt: ISSUED });
    expect(task?.request.system).toContain('exactly 5');
    expect(task?.request.prompt).toContain('Harbor Bikes');
    expect(task?.request.schema).toMatchObject({ properties: { pieces: { minItems: 5, maxItems: 5 } } });
    const result = json(gen('task-worker', inputs), 'task-worker-result.json');
    expect(result.result.count).toBe(5);
    expect(result.task.requested).toEqual({ count: 5, kind: 'e-mails' });
  });

  test('"3 bullet points" asks for three pieces; a translation asks for one result in the requested text format', () => {
    expect(
      languageTasks({
        orderId: 'o',
        serviceId: 'task-worker',
        inputs: {
          task_prompt:
            'Summarise these meeting notes in 3 bullet points: budget approved, launch moved to May, hire a designer.',
        },
        issuedAt: ISSUED,
      })[0]?.request.schema,
    ).toMatchObject({ properties: { pieces: { minItems: 3, maxItems: 3 } } });
    const f = gen('task-worker', {
      task_prompt: 'Translate into German: "Our shop is closed on public holidays."',
      format: 'text',
    });
    expect(Object.keys(f).sort()).toEqual(['task-worker-result.json', 'task-worker-result.txt']);
    expect(json(f, 'task-worker-result.json').task.requested).toBeNull();
  });
});

describe('smart-consultation', () => {
  test('defect: a subsidiary and hiring question is what the model is asked and what the report answers', () => {
    const inputs = {
      type: 'international expansion',
      description:
        'We are a UK software company (12 staff). We want to open a subsidiary in Germany next year and start hiring two engineers there.',
      current_country: 'United Kingdom',
      target_country: 'Germany',
    };
    const [task] = languageTasks({ orderId: 'o', serviceId: 'smart-consultation', inputs, issuedAt: ISSUED });
    expect(task?.request.prompt).toMatch(/subsidiary in Germany/);
    expect(task?.request.prompt).toMatch(/hiring .*Germany/);
    const plan = json(gen('smart-consultation', inputs), 'smart-consultation-action-plan.json');
    expect(plan.topics).toEqual(expect.arrayContaining(['subsidiary', 'hiring']));
    expect(plan.topics).not.toContain('automation');
    expect(plan.questions.map((q: any) => q.question).join(' ')).toMatch(/subsidiary/);
    expect(plan.questions.map((q: any) => q.question).join(' ')).toMatch(/hiring/);
    expect(plan.questions.every((q: any) => q.answer.length > 0)).toBe(true);
    const report = gen('smart-consultation', inputs)['smart-consultation-report.md'] ?? '';
    expect(report.match(/^### \d\. /gm)?.length).toBe(plan.questions.length);
  });

  test("the buyer's own question comes first, as written", () => {
    const inputs = {
      type: 'pricing',
      description: 'I run a dog-grooming van in Leeds. Should I raise my full-groom price from £45 to £55?',
    };
    const plan = json(gen('smart-consultation', inputs), 'smart-consultation-action-plan.json');
    expect(plan.questions[0].question).toBe('Should I raise my full-groom price from £45 to £55?');
  });
});

describe('robot-control-system', () => {
  test('defect: UR10e joints from its driver, ROS 2 Humble as given, 8 kg boxes checked against 12.5 kg', () => {
    const f = gen('robot-control-system', {
      robot_type: 'UR10e cobot',
      controller: 'ROS 2 Humble on an industrial PC',
      objective: 'Palletise 8 kg cartons from the end of line conveyor',
      site_constraints: 'Operators pass by the cell',
    });
    const params = f['robot-control-system-params.yaml'] ?? '';
    expect(params).toContain(
      'joints: ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]',
    );
    expect(params).toContain('ros_distro: "humble"');
    expect(params).toContain('rated_payload_kg: 12.5');
    expect(params).toContain('payload_check: "ok"');
    expect(f['robot-control-system-architecture.md']).toContain('Humble Hawksbill (LTS, Ubuntu 22.04) (as requested)');
    expect(f['robot-control-system-architecture.md']).not.toContain('Jazzy');
  });

  test('a 4 kg part on a Franka FR3 (3 kg rated) is flagged as over the payload', () => {
    const f = gen('robot-control-system', {
      robot_type: 'Franka Research 3',
      controller: 'FCI',
      objective: 'Insert 4 kg motor housings into a press',
    });
    expect(f['robot-control-system-params.yaml']).toContain('payload_check: "over"');
    expect(f['robot-control-system-architecture.md']).toContain('exceeds the Franka Research 3');
    expect(f['robot-control-system-params.yaml']).toContain('"fr3_joint7"');
  });

  test('TurtleBot 4 on Humble: its own navigation packages and Twist (not TwistStamped) velocity commands', () => {
    const f = gen('robot-control-system', {
      robot_type: 'TurtleBot 4',
      controller: 'ROS 2 Humble',
      objective: 'Patrol the warehouse aisles at night',
    });
    // The Create 3 base drives its own wheels: the pack launches turtlebot4_navigation, not a second diff drive.
    expect(f['robot-control-system-launch.yaml']).toContain(
      '$(find-pkg-share turtlebot4_navigation)/launch/nav2.launch.py',
    );
    expect(f['robot-control-system-launch.yaml']).not.toContain('diff_drive_controller');
    expect(f['robot-control-system-architecture.md']).toContain('geometry\\_msgs/msg/Twist |');
  });
});

describe('agent-development', () => {
  test('defect: Zendesk is ticketing, with real ticket tools and API calls; eval prompts come from the use case', () => {
    const f = gen('agent-development', {
      use_case:
        'Triage inbound support tickets for our Shopify store: tag them by topic and draft replies for refund requests.',
      tools_required: 'Zendesk, Shopify, Slack',
      data_sources: 'Refund policy PDF',
    });
    const tools = json(f, 'agent-development-tools.json').tools;
    expect(tools.map((t: any) => t.name)).toEqual(
      expect.arrayContaining([
        'ticket_search',
        'ticket_get',
        'ticket_update',
        'ticket_reply',
        'order_lookup',
        'post_message',
      ]),
    );
    expect(tools.find((t: any) => t.name === 'ticket_update')._meta.backend).toMatchObject({
      product: 'Zendesk',
      call: 'PUT /api/v2/tickets/{ticket_id}.json',
    });
    expect(tools.find((t: any) => t.name === 'ticket_reply')._meta.requires_confirmation).toBe(true);
    const cases = json(f, 'agent-development-eval-cases.json').cases;
    expect(cases.find((c: any) => c.expect.calls_tool === 'ticket_update').prompt).toContain('Zendesk ticket #4821');
    expect(cases.filter((c: any) => /refund requests/.test(c.prompt)).length).toBeGreaterThanOrEqual(4);
    expect(cases.find((c: any) => c.id === 'grounded_answer_1').prompt).toContain('Refund policy PDF');
  });

  test('lead qualification with Gmail, Google Calendar and HubSpot: e-mail, calendar and CRM tools, prompts name the use case', () => {
    const f = gen('agent-development', {
      use_case: 'Qualify inbound demo requests and book a call with sales.',
      tools_required: ['Gmail', 'Google Calendar', 'HubSpot'],
    });
    const names = json(f, 'agent-development-tools.json').tools.map((t: any) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'search_email',
        'send_email',
        'find_free_slots',
        'create_event',
        'crm_search',
        'crm_upsert_contact',
      ]),
    );
    expect(
      json(f, 'agent-development-eval-cases.json').cases.some(
        (c: any) => c.prompt.includes('HubSpot') && c.prompt.includes('demo requests'),
      ),
    ).toBe(true);
  });
});

describe('robot-control-system: sampled orders', () => {
  test('defect: a FANUC CRX-10iA/L is the long-arm model (1418 mm), 12 kg cartons exceed it and the CRX-20iA/L is suggested; cartons at a conveyor end stop need no camera', () => {
    const f = gen('robot-control-system', {
      robot_type: 'FANUC CRX-10iA/L cobot',
      controller: 'R-30iB Mini Plus',
      objective:
        'Palletise 12 kg cartons (400 x 300 x 250 mm) from the end of a conveyor onto two EUR pallets, 8 cartons per minute',
      site_constraints:
        'Shared aisle with forklifts; ceiling 3.2 m; 230 V single phase; no fences wanted, area scanner OK',
    });
    const arch = f['robot-control-system-architecture.md'] ?? '';
    expect(arch).toContain(
      '| Robot model | FANUC CRX-10iA/L: rated payload 10 kg, reach 1418 mm, TCP up to 1000 mm/s |',
    );
    // 8 cartons a minute is out of reach at the collaborative 250 mm/s: the area scanner the site allows is used.
    expect(arch).toContain('8 picks/min cannot be reached at the collaborative 250 mm/s');
    expect(f['robot-control-system-params.yaml']).toContain('sharing_mode: "ssm"');
    expect(arch).toContain('| Controller class | vendor |');
    expect(arch).toContain('The FANUC CRX-20iA/L has the capacity.');
    expect(arch).toContain('| Vision | none needed for this objective |');
    expect(f['robot-control-system-params.yaml']).toContain('max_load_kg: 13');
  });
});

describe('agent-development: sampled orders', () => {
  test('defect: "past Gorgias tickets (about 12,000)" is one source; Gorgias gets ticket tools; prompts keep whole words; Shopify orders are queried live', () => {
    const f = gen('agent-development', {
      use_case:
        'Triage incoming support emails for our Shopify store: classify (order status, returns, product question), look up the order in Shopify, draft a reply in Gorgias and escalate refunds over $200 to a human',
      tools_required: 'Gmail, Shopify, Gorgias, Slack',
      data_sources: 'Shopify orders, our returns policy PDF, past Gorgias tickets (about 12,000)',
    });
    const manifest = json(f, 'agent-development-tools.json');
    expect(manifest.agent.name).toBe('triage_incoming_support_emails_agent');
    expect(manifest.data_sources.map((d: any) => [d.name, d.kind])).toEqual([
      ['Shopify orders', 'api'],
      ['our returns policy PDF', 'documents'],
      ['past Gorgias tickets (about 12,000)', 'documents'],
    ]);
    const byName = Object.fromEntries(manifest.tools.map((t: any) => [t.name, t]));
    expect(byName.gorgias).toBeUndefined();
    expect(byName.ticket_reply._meta).toMatchObject({ requested_as: 'Gorgias', requires_confirmation: true });
    expect(byName.ticket_reply._meta.backend.call).toContain('/api/tickets/{ticket_id}/messages');
    expect(byName.send_email._meta.backend.call).toContain('gmail.googleapis.com');
    const cases = json(f, 'agent-development-eval-cases.json').cases;
    for (const c of cases) expect(c.prompt).not.toMatch(/to a hum\b/);
    expect(cases.find((c: any) => c.expect.cites_source === 'Shopify orders').expect.calls_tool).toBe('order_lookup');
    expect(cases.filter((c: any) => c.expect.calls_tool === 'search_documents' && c.expect.cites_source)).toHaveLength(
      2,
    );
    expect(JSON.stringify(cases)).not.toContain('data_sources has');
  });

  test('defect: HubSpot and Google Calendar tools name their real API calls, not "to be fixed in the design review"', () => {
    const manifest = json(
      gen('agent-development', {
        use_case:
          'Qualify inbound leads from our website form: score fit against our ICP, create or update the contact in HubSpot and book a discovery call in Google Calendar for scores above 70.',
        tools_required: ['HubSpot', 'Google Calendar'],
      }),
      'agent-development-tools.json',
    );
    const call = (name: string): string =>
      manifest.tools.find((t: any) => t.name === name)?._meta.backend?.call ?? 'none';
    expect(call('crm_search')).toContain('https://api.hubapi.com/crm/v3/objects/contacts/search');
    expect(call('crm_upsert_contact')).toContain('/crm/v3/objects/contacts/batch/upsert');
    expect(call('find_free_slots')).toContain('https://www.googleapis.com/calendar/v3/freeBusy');
    expect(call('create_event')).toContain('/calendar/v3/calendars/{calendarId}/events');
  });
});

describe('integration-project', () => {
  test('defect: "5,000 orders per day" is 5,000; ShipStation is shipping; field mappings are the systems\' real fields', () => {
    const spec = json(
      gen('integration-project', {
        systems: 'Shopify, ShipStation',
        direction: 'one-way from Shopify to ShipStation',
        volume: '5,000 orders per day',
      }),
      'integration-project-spec.json',
    );
    const x = spec['x-integration'];
    expect(x.sizing.records_per_day).toBe(5000);
    expect(x.sizing.assumed).toBe(false);
    expect(x.systems.find((s: any) => s.name === 'ShipStation')).toMatchObject({
      category: 'shipping',
      known_product: true,
    });
    const orderNumber = x.field_mapping.orders.find((r: any) => r.canonical === 'order_number');
    expect(orderNumber).toEqual({ canonical: 'order_number', shopify: 'name', shipstation: 'orderNumber' });
    expect(JSON.stringify(x.field_mapping)).not.toContain('REPLACE_WITH');
  });

  test('"WooCommerce and QuickBooks Online" is two systems, in the order the direction names them', () => {
    const files = gen('integration-project', {
      systems: 'WooCommerce and QuickBooks Online',
      direction: 'WooCommerce to QuickBooks Online',
      volume: 'about 800 orders a week',
    });
    const x = json(files, 'integration-project-spec.json')['x-integration'];
    expect(x.systems.map((s: any) => s.name)).toEqual(['WooCommerce', 'QuickBooks Online']);
    expect(x.systems.every((s: any) => s.known_product)).toBe(true);
    expect(JSON.stringify(x)).not.toContain('Internal platform');
    expect(x.sizing.records_per_day).toBe(114);
    expect(files['integration-project-runbook.md']).toContain('WooCommerce → QuickBooks Online');
  });

  test('a direction naming the second system first reverses the flow; "HubSpot & Slack" and "Stripe/Xero" split', () => {
    const spec = json(
      gen('integration-project', { systems: 'Shopify, ShipStation', direction: 'ShipStation into Shopify' }),
      'integration-project-spec.json',
    );
    expect(spec['x-integration'].systems.map((s: any) => s.name)).toEqual(['ShipStation', 'Shopify']);
    for (const systems of ['HubSpot & Slack', 'Stripe/Xero']) {
      const x = json(gen('integration-project', { systems, direction: 'one-way' }), 'integration-project-spec.json')[
        'x-integration'
      ];
      expect(x.systems).toHaveLength(2);
      expect(x.systems.every((s: any) => s.known_product)).toBe(true);
    }
  });

  test('a volume without a period ("5000") is read per day and flagged', () => {
    const spec = json(
      gen('integration-project', { systems: 'Stripe, Xero', direction: 'one-way', volume: '5000' }),
      'integration-project-spec.json',
    );
    expect(spec['x-integration'].sizing).toMatchObject({ records_per_day: 5000, period_assumed: true });
  });

  test('Stripe ⇄ Xero and Salesforce ⇄ HubSpot: the shared records are found and mapped field by field', () => {
    const stripeXero = json(
      gen('integration-project', { systems: 'Stripe, Xero', direction: 'two-way', volume: '300 invoices a week' }),
      'integration-project-spec.json',
    )['x-integration'];
    expect(stripeXero.sizing.records_per_day).toBe(43);
    expect(stripeXero.flows[0].entities).toEqual(['customers', 'invoices']);
    expect(stripeXero.field_mapping.invoices.find((r: any) => r.canonical === 'number')).toEqual({
      canonical: 'number',
      stripe: 'number',
      xero: 'InvoiceNumber',
    });
    const crm = json(
      gen('integration-project', { systems: ['Salesforce', 'HubSpot'], direction: 'bidirectional' }),
      'integration-project-spec.json',
    )['x-integration'];
    expect(crm.field_mapping.contacts.find((r: any) => r.canonical === 'first_name')).toEqual({
      canonical: 'first_name',
      salesforce: 'FirstName',
      hubspot: 'properties.firstname',
    });
    expect(crm.sizing.assumed).toBe(true);
  });

  test('WooCommerce → ShipStation at "1.2k orders daily"', () => {
    const spec = json(
      gen('integration-project', {
        systems: ['WooCommerce', 'ShipStation'],
        direction: 'one-way',
        volume: '1.2k orders daily',
      }),
      'integration-project-spec.json',
    );
    expect(spec['x-integration'].sizing.records_per_day).toBe(1200);
    expect(spec['x-integration'].field_mapping.orders.find((r: any) => r.canonical === 'customer_email')).toEqual({
      canonical: 'customer_email',
      woocommerce: 'billing.email',
      shipstation: 'customerEmail',
    });
  });
});

describe('automation-audit', () => {
  test('defect: ServiceM8 is job management that already schedules and invoices; the audit builds on it', () => {
    const data = json(
      gen('automation-audit', {
        business_description:
          'Plumbing company with 6 vans. Jobs are booked and invoiced in ServiceM8; phone enquiries are copied into ServiceM8 by hand.',
        current_tools: 'ServiceM8, Xero, Gmail',
        pain_points: 'missed calls after hours; double entry',
      }),
      'automation-audit-findings.json',
    );
    expect(data.tool_inventory.find((t: any) => t.tool === 'ServiceM8')).toMatchObject({
      category: 'job_management',
      does: expect.arrayContaining(['scheduling', 'invoicing']),
    });
    expect(data.findings.find((f: any) => f.id === 'scheduling').covered_by).toEqual(['ServiceM8']);
    expect(data.findings.find((f: any) => f.id === 'invoicing').covered_by).toEqual(['ServiceM8', 'Xero']);
    expect(data.findings.find((f: any) => f.id === 'enquiry_handling').covered_by).toBeUndefined();
  });

  test('defect: a Brisbane physio on Cliniko: Cliniko covers bookings; the Jotform → Cliniko re-keying pain point is the first finding, quoted', () => {
    const files = gen('automation-audit', {
      business_description:
        'Physiotherapy clinic with three locations in Brisbane (Paddington, Chermside, Carindale), 14 physios and 4 reception staff. Patients book online or by phone; we send appointment reminders and invoice health funds.',
      current_tools: 'Cliniko, Xero, Mailchimp, Google Sheets',
      pain_points:
        'Reception re-keys new patient forms from Jotform into Cliniko; No-shows on Monday mornings; Weekly revenue per location is compiled by hand in Google Sheets',
    });
    const data = json(files, 'automation-audit-findings.json');
    expect(data.tool_inventory.find((t: any) => t.tool === 'Cliniko')).toMatchObject({
      product: 'Cliniko',
      category: 'practice_management',
      does: expect.arrayContaining(['scheduling', 'sms', 'invoicing', 'client_records']),
    });
    const first = data.findings[0];
    expect(first).toMatchObject({
      id: 'data_entry',
      title: 'Re-typing data between tools: Jotform → Cliniko',
      evidence: ['pain point: "Reception re-keys new patient forms from Jotform into Cliniko"'],
      confidence: 'high',
      recommended_service: 'automation-wf',
      proposed_automation: { source: 'Jotform', target: 'Cliniko', creates: 'Cliniko patient' },
    });
    expect(first.recommendation).toContain('/v1/patients');
    // Cliniko already takes bookings and sends reminders: no booking website is recommended.
    const scheduling = data.findings.find((f: any) => f.id === 'scheduling');
    expect(scheduling.covered_by).toEqual(['Cliniko']);
    expect(scheduling.recommendation).toContain('Cliniko already takes bookings, sends SMS reminders');
    expect(data.summary.recommended_services).not.toContain('website-booking');
    expect(data.findings.find((f: any) => f.id === 'reporting').evidence).toEqual([
      'pain point: "Weekly revenue per location is compiled by hand in Google Sheets"',
    ]);
    expect(data.stack_notes.join(' ')).not.toContain('No CRM');
    expect(files['automation-audit-report.md']).toContain(
      'Start with: Re-typing data between tools: Jotform → Cliniko (P1).',
    );
  });

  test('dental clinic on Calendly and Excel: scheduling is covered, re-typing into Excel is a finding', () => {
    const data = json(
      gen('automation-audit', {
        business_description:
          'Two-chair dental clinic. Patients book through Calendly; the receptionist re-types each booking into an Excel sheet.',
        current_tools: 'Calendly, Excel',
      }),
      'automation-audit-findings.json',
    );
    expect(data.findings.find((f: any) => f.id === 'scheduling').covered_by).toEqual(['Calendly']);
    expect(data.findings.map((f: any) => f.id)).toContain('data_entry');
  });
});

describe('bundles', () => {
  test("clinic-pack: the receptionist books into the booking page's endpoint, which is the workflow's webhook; the manifest says so", () => {
    const inputs = {
      business_name: 'Harbor Physio',
      practice_type: 'Physiotherapy',
      contact_email: 'desk@harborphysio.example',
    };
    const parts = genBundle('clinic-pack', inputs);
    const page = parts['website-booking']!;
    const endpoint = /data-endpoint="([^"]+)"/.exec(page['website-booking-index.html'] ?? '')?.[1];
    expect(endpoint).toMatch(/^https:\/\/REPLACE_WITH_YOUR_N8N_HOST\/webhook\/bookings-[0-9a-f]{12}$/);
    const tool = json(parts['ai-receptionist']!, 'ai-receptionist-config.json').tools[0];
    expect(tool).toMatchObject({ name: 'create_booking_request', url: endpoint });
    const wf = json(parts['automation-wf']!, 'automation-wf-workflow.json');
    const hook = wf.nodes.find((n: any) => n.type === 'n8n-nodes-base.webhook');
    expect(endpoint?.endsWith(`/webhook/${hook.parameters.path}`)).toBe(true);
    // A physio's page offers a physio's services (not "Check-up").
    expect(json(page, 'website-booking-config.json').services.map((x: any) => x.name)).toEqual([
      'Initial assessment',
      'Follow-up treatment',
      'Sports injury assessment',
      'Telehealth consultation',
    ]);
    const booking = {
      service: 'initial_assessment',
      date: '2026-03-05',
      time: '15:00',
      name: 'Dana Whitfield',
      email: 'dana@example.com',
      phone: '+15555550142',
    };
    expect(runSetNode(wf, 'Map Booking page fields', booking)).toMatchObject({
      name: 'Dana Whitfield',
      email: 'dana@example.com',
      summary: 'Initial assessment (30 min) on 2026-03-05 at 15:00',
    });
    const wiring = bundleConnections({ orderId: 'ord_bundle_golden', serviceId: 'clinic-pack' });
    expect(wiring?.booking_endpoint).toBe(endpoint);
    expect(wiring?.connections.map((c) => c.from.split(':')[0])).toEqual([
      'website-booking',
      'ai-receptionist',
      'automation-wf',
    ]);
    const manifest = JSON.parse(
      bundleManifest(
        { orderId: 'ord_bundle_golden', serviceId: 'clinic-pack', inputs, issuedAt: ISSUED },
        [],
      ).content.toString(),
    );
    expect(manifest.wiring.booking_endpoint).toBe(endpoint);
    expect(manifest.readme).toContain('How the parts connect');
  });

  test("store-pack: the workflow is an order workflow (Shopify orders/create) that also logs the page's bookings", () => {
    const parts = genBundle('store-pack', {
      business_name: 'Nordic Threads',
      category: 'Clothing store on Shopify',
      contact_email: 'hello@nordicthreads.example',
    });
    const wf = json(parts['automation-wf']!, 'automation-wf-workflow.json');
    expectNodesInSnapshot(wf);
    expect(wf.name).toMatch(/^Order and booking logging: Shopify \+ Booking page/);
    const mapped = runSetNode(wf, 'Orders: Map Shopify fields', findProduct('shopify')!.webhook!.sample);
    expect(mapped).toMatchObject({ amount: '199.00', summary: 'Order #1001: 2 x TEE-BLK-M' });
    expect(wf.nodes.find((n: any) => n.name === 'Orders: Send to Google Sheets').parameters.url).toContain(
      '/values/Orders!A1',
    );
    expect(wf.nodes.some((n: any) => n.name === 'Bookings: Booking page webhook')).toBe(true);
    expect(json(parts['ai-receptionist']!, 'ai-receptionist-config.json').tools[0].url).toBe(
      json(parts['website-booking']!, 'website-booking-config.json').endpoint.url,
    );
  });

  test('starter-pack: the consultation is about launching the booking page and receptionist; the receptionist posts where the page does', () => {
    const inputs = {
      business_name: 'Bright Smile Dental',
      industry: 'Dental clinic',
      contact_email: 'front@brightsmile.example',
    };
    const derived = completeInputs('smart-consultation', inputs);
    expect(String(derived.description)).toMatch(/booking page and an AI receptionist/);
    const [task] = languageTasks({ orderId: 'o', serviceId: 'smart-consultation', inputs, issuedAt: ISSUED });
    expect(task?.request.prompt).toContain('Bright Smile Dental (Dental clinic)');
    expect(task?.request.prompt).not.toMatch(/incorporat|company form/i);
    const parts = genBundle('starter-pack', inputs);
    expect(json(parts['ai-receptionist']!, 'ai-receptionist-config.json').tools[0].url).toBe('/api/bookings');
    expect(json(parts['website-booking']!, 'website-booking-config.json').endpoint.url).toBe('/api/bookings');
  });

  test('growth-pack: the task part works on the growth goals; every part is delivered', () => {
    const inputs = {
      business_name: 'Peak Fitness',
      growth_goals: 'double personal-training clients by June',
      contact_email: 'owner@peakfitness.example',
    };
    const parts = genBundle('growth-pack', inputs);
    expect(Object.keys(parts).sort()).toEqual([
      'ai-receptionist',
      'automation-wf',
      'smart-consultation',
      'task-worker',
      'website-booking',
    ]);
    expect(json(parts['task-worker']!, 'task-worker-result.json').task.prompt).toContain(
      'double personal-training clients by June',
    );
    expect(json(parts['smart-consultation']!, 'smart-consultation-action-plan.json').questions.length).toBeGreaterThan(
      0,
    );
  });

  test('robotics-bundle: bin picking gets a 3D camera and a concrete robot and controller, nothing "to be confirmed"', () => {
    const parts = genBundle('robotics-bundle', {
      objective: 'Bin picking of 2 kg aluminium castings from totes onto a CNC fixture',
      contact_email: 'eng@castworks.example',
    });
    const rcs = parts['robot-control-system']!;
    const params = rcs['robot-control-system-params.yaml'] ?? '';
    expect(params).toContain('3D structured-light camera');
    expect(params).toContain('robot_model: "ur5e"');
    expect(params).toContain('controller: "UR e-Series control box (PolyScope 5) with the External Control URCap"');
    expect(params).toContain('payload_check: "ok"');
    expect(rcs['robot-control-system-architecture.md']).not.toMatch(/to be confirmed/i);
    // The camera is specified; its pick-pose node is built in the engineering week, so the launch does not start it.
    expect(rcs['robot-control-system-launch.yaml']).not.toContain('perception');
    expect(rcs['robot-control-system-launch.yaml']).toContain(
      '$(find-pkg-share ur_robot_driver)/launch/ur_control.launch.py',
    );
    expect(json(parts['automation-audit']!, 'automation-audit-findings.json').findings.map((f: any) => f.id)).toContain(
      'physical_automation',
    );
  });
});

describe('bundles: sampled orders', () => {
  test('clinic-pack: "physiotherapy clinic in Wellington" is Pacific/Auckland on every part, with a physio\'s services; the setup names the tab the workflow writes', () => {
    const parts = genBundle('clinic-pack', {
      business_name: 'Harbourside Physiotherapy',
      practice_type: 'physiotherapy clinic in Wellington',
      contact_email: 'reception@harboursidephysio.co.nz',
    });
    const page = json(parts['website-booking']!, 'website-booking-config.json');
    expect(page.availability).toMatchObject({ timezone: 'Pacific/Auckland', timezone_given: true });
    expect(page.services.map((x: any) => x.name)).toContain('Initial assessment');
    expect(json(parts['ai-receptionist']!, 'ai-receptionist-config.json').business_hours.timezone).toBe(
      'Pacific/Auckland',
    );
    expect(parts['automation-wf']!['automation-wf-setup.md']).toContain('/values/Bookings!A1:append');
    expect(parts['automation-wf']!['automation-wf-setup.md']).not.toContain('Sheet1');
  });

  test('defect: store-pack for a shop with a .co.nz contact and no zone: Pacific/Auckland from the e-mail domain, flagged to confirm (not UTC); WooCommerce orders are logged', () => {
    const parts = genBundle('store-pack', {
      business_name: 'Kōwhai Candle Co.',
      category: 'handmade soy candles sold on our WooCommerce store',
      contact_email: 'orders@kowhaicandles.co.nz',
    });
    const page = json(parts['website-booking']!, 'website-booking-config.json');
    expect(page.availability).toMatchObject({
      timezone: 'Pacific/Auckland',
      timezone_given: false,
      needs_confirmation: true,
    });
    const receptionist = json(parts['ai-receptionist']!, 'ai-receptionist-config.json');
    expect(receptionist.business_hours).toMatchObject({
      timezone: 'Pacific/Auckland',
      timezone_source: "the contact e-mail's country domain",
    });
    const wf = json(parts['automation-wf']!, 'automation-wf-workflow.json');
    expect(wf.nodes.map((n: any) => n.name)).toContain('Orders: WooCommerce webhook');
  });
});

describe('bundles: second and third orders', () => {
  const cases: [string, Record<string, InputValue>, (parts: Record<string, Files>) => void][] = [
    [
      'clinic-pack',
      {
        business_name: 'Cedar Vet Clinic',
        practice_type: 'Veterinary clinic',
        contact_email: 'front@cedarvet.example',
        services: 'Vaccination (20 min), Dental cleaning 1.5 hours',
        timezone: 'Pacific time',
        opening_hours: 'Mon-Sat 8:00-17:30',
      },
      (parts) => {
        const page = json(parts['website-booking']!, 'website-booking-config.json');
        expect(page.services.map((s: any) => [s.name, s.duration_minutes])).toEqual([
          ['Vaccination', 20],
          ['Dental cleaning', 90],
        ]);
        expect(page.availability.timezone).toBe('America/Los_Angeles');
        const receptionist = json(parts['ai-receptionist']!, 'ai-receptionist-config.json');
        expect(receptionist.business_hours.weekly.sat).toEqual([['08:00', '17:30']]);
        expect(receptionist.business.services.map((s: any) => s.id)).toEqual(page.services.map((s: any) => s.id));
        expect(receptionist.tools[0].url).toBe(page.endpoint.url);
      },
    ],
    [
      'store-pack',
      {
        business_name: 'Copper Kettle Tea Co.',
        category: 'Tea shop selling online with WooCommerce',
        contact_email: 'orders@copperkettle.example',
      },
      (parts) => {
        const wf = json(parts['automation-wf']!, 'automation-wf-workflow.json');
        expect(wf.name).toContain('WooCommerce');
        const mapped = runSetNode(wf, 'Orders: Map WooCommerce fields', findProduct('woocommerce')!.webhook!.sample);
        expect(mapped).toMatchObject({ email: 'dana@example.com', amount: '29.35', summary: 'Order 727: 1 x MUG-01' });
      },
    ],
    [
      'starter-pack',
      { business_name: 'Okafor & Reyes LLP', industry: 'Law firm', contact_email: 'intake@okaforreyes.example' },
      (parts) => {
        expect(parts['website-booking']!['website-booking-index.html']).toContain('Okafor &amp; Reyes LLP');
        expect(json(parts['smart-consultation']!, 'smart-consultation-action-plan.json').topics).toContain('bookings');
      },
    ],
    [
      'growth-pack',
      {
        business_name: 'Lumen Yoga',
        growth_goals: '40 new members a month and fewer no-shows',
        contact_email: 'hi@lumenyoga.example',
        timezone: 'Europe/London',
      },
      (parts) => {
        expect(json(parts['website-booking']!, 'website-booking-config.json').availability.timezone).toBe(
          'Europe/London',
        );
        expect(json(parts['task-worker']!, 'task-worker-result.json').task.prompt).toContain('40 new members a month');
        const wf = json(parts['automation-wf']!, 'automation-wf-workflow.json');
        expect(wf.nodes[0].parameters.path).toBe(
          /webhook\/(.+)$/.exec(json(parts['ai-receptionist']!, 'ai-receptionist-config.json').tools[0].url)?.[1],
        );
      },
    ],
    [
      'robotics-bundle',
      {
        objective: 'Palletise 15 kg cartons at the end of line, ROS 2 Humble',
        contact_email: 'ops@boxline.example',
        robot_type: 'UR10e',
      },
      (parts) => {
        const params = parts['robot-control-system']!['robot-control-system-params.yaml'] ?? '';
        expect(params).toContain('payload_check: "over"');
        expect(params).toContain('ros_distro: "humble"');
        expect(parts['robot-control-system']!['robot-control-system-architecture.md']).toContain(
          'Universal Robots UR20 has the capacity',
        );
      },
    ],
    [
      'robotics-bundle',
      {
        objective: 'Move totes between the packing stations and the dispatch area',
        contact_email: 'ops@boxline.example',
      },
      (parts) => {
        const params = parts['robot-control-system']!['robot-control-system-params.yaml'] ?? '';
        expect(params).toContain('robot_model: "mir250"');
        // The MiR drives itself; the supervisor reaches it over its REST API.
        expect(parts['robot-control-system']!['robot-control-system-architecture.md']).toContain('REST API');
      },
    ],
  ];
  test.each(cases)('%s: %j', (bundleId, inputs, check) => {
    const parts = genBundle(bundleId, inputs);
    expect(Object.keys(parts).sort()).toEqual([...(getService(bundleId)?.includes ?? [])].sort());
    check(parts);
  });
});
