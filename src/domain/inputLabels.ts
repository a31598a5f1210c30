/**
 * Words for the inputs of the catalogue's services, for the humans who fill them in on a payment link
 * (`/pay/services/{service_id}`, issue 13). The catalogue itself keeps the seed's `inputs` shape (input name →
 * required / optional, seed §2.1); this table adds, per input, a label, a help text and the kind of field.
 * Kept beside the catalogue rather than inside it so the catalogue envelope agents read is unchanged.
 */
import { SERVICES } from './catalogue';

/** How an input is asked for on the payment form. */
export interface InputField {
  /** Short label in words, e.g. "Business name". */
  label: string;
  /** One or two sentences: what to write and how it is used. */
  help: string;
  /** `textarea` for free text longer than a line; `email` / `tel` pick the browser's keyboard and checks. */
  control: 'text' | 'textarea' | 'email' | 'tel';
  /** A realistic example, shown as the field's placeholder. */
  example?: string;
}

const f = (label: string, help: string, control: InputField['control'] = 'text', example?: string): InputField => ({
  label,
  help,
  control,
  ...(example ? { example } : {}),
});

/** Inputs that mean the same in every service that asks for them. */
const COMMON: Record<string, InputField> = {
  business_name: f(
    'Business name',
    'The name your customers know you by; it appears in what we deliver.',
    'text',
    'Cedar Dental',
  ),
  contact_email: f(
    'Business contact e-mail',
    'Where your customers’ requests and escalations are sent (it goes into the delivered configuration).',
    'email',
    'front-desk@cedardental.example',
  ),
  industry: f('Industry', 'What kind of business this is, in a few words.', 'text', 'Dental clinic'),
  services: f(
    'Services you offer',
    'One per line or separated by commas; add the duration where it matters (e.g. "Initial assessment, 60 minutes").',
    'textarea',
    'Check-up and cleaning, 30 minutes\nTeeth whitening, 60 minutes',
  ),
};

/** Per service: its own inputs, and common ones whose meaning differs there. */
const BY_SERVICE: Record<string, Record<string, InputField>> = {
  'ai-receptionist': {
    services: f(
      'Services the receptionist can book',
      'One per line or separated by commas, with durations where they matter; the receptionist answers and books for these.',
      'textarea',
      'Check-up and cleaning, 30 minutes\nEmergency appointment, 45 minutes',
    ),
    whatsapp: f(
      'WhatsApp number',
      'Optional. The business’s WhatsApp number in international form (+country code), to answer there too.',
      'tel',
      '+44 7700 900123',
    ),
  },
  'website-booking': {
    services: f(
      'Services customers can book',
      'One per line or separated by commas, with each one’s duration; they become the booking page’s choices.',
      'textarea',
      'Initial assessment, 60 minutes\nFollow-up, 30 minutes',
    ),
  },
  'automation-wf': {
    workflow_type: f(
      'What the workflow should do',
      'In a few words, e.g. sync new leads, log orders, send follow-ups.',
      'text',
      'Sync new leads',
    ),
    source_app: f(
      'Where the data comes from',
      'The app that starts the workflow (its form, webhook or new record).',
      'text',
      'Typeform',
    ),
    target_app: f('Where the data goes', 'The app the workflow writes to.', 'text', 'HubSpot'),
  },
  'task-worker': {
    task_prompt: f(
      'The task',
      'Describe exactly what you want done, with any names, numbers and tone that matter.',
      'textarea',
      'Write five follow-up e-mails to trial users who did not convert',
    ),
    format: f('Result format', 'Optional: json (default), markdown or text.', 'text', 'markdown'),
  },
  'smart-consultation': {
    type: f(
      'Topic of the consultation',
      'What you need advice on, in a few words.',
      'text',
      'Opening a subsidiary abroad',
    ),
    description: f(
      'Your situation and question',
      'Describe the business, what you want to do and what you want to know; the report answers this.',
      'textarea',
    ),
    current_country: f('Country you operate in now', 'Optional.', 'text', 'Germany'),
    target_country: f(
      'Country you are expanding to',
      'Optional, if the question is about another country.',
      'text',
      'United States',
    ),
  },
  'robot-control-system': {
    robot_type: f(
      'Robot',
      'Make and model, or the kind of robot (arm, mobile base, drone), with its payload if known.',
      'text',
      'UR10e collaborative arm, 12.5 kg payload',
    ),
    controller: f(
      'Controller',
      'What controls it today: robot controller, PLC, microcontroller or ROS 2 version.',
      'text',
      'UR control box with ROS 2 Humble',
    ),
    objective: f(
      'What the robot should do',
      'The task, with the figures that matter (cycle time, weights, accuracy).',
      'textarea',
      'Pick mixed parcels from a bin onto a conveyor, 6 picks per minute',
    ),
    site_constraints: f('Site constraints', 'Optional: space, safety rules, networks, shifts.', 'textarea'),
  },
  'agent-development': {
    use_case: f(
      'What the agent should do',
      'The job, who uses it, and what a good result looks like.',
      'textarea',
      'Answer customer support tickets and draft replies for review',
    ),
    tools_required: f(
      'Tools and apps it must use',
      'The products it works with, separated by commas.',
      'text',
      'Zendesk, Slack, Google Drive',
    ),
    data_sources: f(
      'Data it should read',
      'Optional: documents, databases or sites it draws answers from.',
      'text',
      'Help-centre articles, order database',
    ),
  },
  'integration-project': {
    systems: f('Systems to connect', 'The products to integrate, separated by commas.', 'text', 'Shopify, ShipStation'),
    direction: f(
      'Direction of the data',
      'One-way (say which way) or two-way.',
      'text',
      'One-way, Shopify to ShipStation',
    ),
    volume: f('Volume', 'Optional: how many records, with the unit and period.', 'text', '5,000 orders per day'),
  },
  'automation-audit': {
    business_description: f(
      'Your business and how it runs',
      'What you do, who does what, and the tools you use day to day.',
      'textarea',
    ),
    current_tools: f(
      'Tools you use now',
      'Optional: the software you already use, separated by commas.',
      'text',
      'ServiceM8, Xero, Gmail',
    ),
    pain_points: f('What takes too long', 'Optional: the tasks you would most like to automate.', 'textarea'),
  },
  'clinic-pack': {
    practice_type: f(
      'Kind of practice',
      'E.g. dental clinic, physiotherapy, veterinary practice.',
      'text',
      'Physiotherapy practice',
    ),
  },
  'store-pack': {
    category: f('What the store sells', 'The kind of shop, in a few words.', 'text', 'Independent bookshop'),
  },
  'growth-pack': {
    growth_goals: f(
      'Growth goals',
      'What you want to achieve, with numbers and dates where you have them.',
      'textarea',
      'Double monthly bookings by June; launch a referral programme',
    ),
  },
  'robotics-bundle': {
    objective: f(
      'What the robot should do',
      'The task, with the figures that matter (cycle time, weights, accuracy).',
      'textarea',
      'Bin-picking of mixed parts onto a conveyor',
    ),
    robot_type: f('Robot', 'Optional: make and model, or the kind of robot.', 'text', 'ABB GoFa CRB 15000'),
  },
};

/** "business_name" → "Business name": only for an input the tables above do not know. */
const humanize = (name: string): string => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** The form field of input `name` of service `serviceId`; an input neither table knows gets its name in words and no help. */
export function inputField(serviceId: string, name: string): InputField {
  return BY_SERVICE[serviceId]?.[name] ?? COMMON[name] ?? f(humanize(name), '');
}

/** Inputs of catalogued services that have no entry in the tables above (a unit test keeps this empty). */
export function inputsWithoutWords(): string[] {
  return SERVICES.flatMap((s) =>
    Object.keys(s.inputs)
      .filter((name) => !BY_SERVICE[s.id]?.[name] && !COMMON[name])
      .map((name) => `${s.id}.${name}`),
  );
}
