/**
 * Derives the inputs of a bundle's part from the bundle's own inputs. A bundle order carries the
 * bundle's inputs (e.g. starter-pack: business_name, industry, contact_email); its parts need their
 * own (website-booking: business_name, industry, services). {@link completeInputs} fills every input
 * a part needs and the order lacks from what the order has, deterministically; inputs the order
 * does carry always win.
 *
 * Source: seed §2.1 ("Inputs per service", bundles and their `includes`).
 */
import type { InputValue } from './types';
import { findRobot, suggestRobot } from './robots';
import { hasAny, haystack, line, list } from './util';

const DEFAULT_SERVICES: { keywords: string[]; services: string[] }[] = [
  {
    keywords: ['dental', 'dentist'],
    services: ['Check-up and cleaning', 'Fillings', 'Teeth whitening', 'Emergency appointment'],
  },
  // Practices whose own words buyers expect on the page: a physio does assessments and treatments, not check-ups.
  {
    keywords: ['physio', 'physical therap', 'chiro', 'osteopath', 'sports injur'],
    services: ['Initial assessment', 'Follow-up treatment', 'Sports injury assessment', 'Telehealth consultation'],
  },
  {
    keywords: ['psycholog', 'counsel', 'psychotherap', 'mental health'],
    services: ['Initial session', 'Follow-up session', 'Couples session', 'Telehealth session'],
  },
  {
    keywords: ['vet', 'veterinar', 'animal hospital'],
    services: ['Consultation', 'Vaccination', 'Desexing', 'Dental check'],
  },
  {
    keywords: ['clinic', 'medical', 'doctor', 'practice', 'health', 'therap'],
    services: ['New patient consultation', 'Follow-up visit', 'Check-up', 'Telehealth call'],
  },
  {
    keywords: ['salon', 'hair', 'barber', 'beauty', 'spa', 'nail'],
    services: ['Haircut', 'Colour', 'Treatment', 'Consultation'],
  },
  {
    keywords: ['store', 'shop', 'retail', 'boutique', 'fashion', 'grocery', 'electronics', 'ecommerce'],
    services: ['Order enquiry', 'Click and collect pick-up', 'Returns and exchanges', 'Personal shopping appointment'],
  },
  {
    keywords: ['restaurant', 'cafe', 'café', 'bakery', 'catering', 'food'],
    services: ['Table reservation', 'Catering enquiry', 'Private event'],
  },
  {
    keywords: ['fitness', 'gym', 'yoga', 'pilates', 'coach', 'trainer'],
    services: ['Trial session', 'Personal training', 'Group class'],
  },
  {
    keywords: ['law', 'legal', 'account', 'tax', 'consult', 'agency'],
    services: ['Initial consultation', 'Follow-up meeting', 'Document review'],
  },
  {
    keywords: ['clean', 'plumb', 'electric', 'repair', 'garden', 'handyman'],
    services: ['Quote visit', 'Standard service', 'Emergency call-out'],
  },
];

function defaultServices(context: string): string[] {
  const hay = haystack(context);
  return (
    DEFAULT_SERVICES.find((d) => hasAny(hay, d.keywords))?.services ?? ['Consultation', 'Follow-up', 'Support request']
  );
}

/**
 * Returns `inputs` completed with every input `serviceId` needs that is missing, derived from the
 * other inputs (a bundle's business_name, industry / practice_type / category, growth_goals,
 * objective, ...). Keys already present and non-empty are kept unchanged; the result is a new object.
 *
 * @param serviceId - the (non-bundle) service about to be generated.
 * @param inputs - the order's inputs.
 * Source: seed §2.1.
 */
export function completeInputs(serviceId: string, inputs: Record<string, InputValue>): Record<string, InputValue> {
  const has = (key: string): boolean => line(inputs, key) !== '' || list(inputs, key).length > 0;
  const business = line(inputs, 'business_name', 'Your business');
  const sector =
    line(inputs, 'industry') || line(inputs, 'practice_type') || line(inputs, 'category') || line(inputs, 'sector');
  const goals = line(inputs, 'growth_goals', '', 500);
  const objective = line(inputs, 'objective', '', 1000);
  const derived: Record<string, InputValue> = {};
  const fill = (key: string, value: InputValue | null): void => {
    if (!has(key) && value !== null && value !== '') derived[key] = value;
  };

  switch (serviceId) {
    case 'ai-receptionist':
      fill('business_name', business);
      fill('services', defaultServices(`${sector} ${business}`));
      break;
    case 'website-booking':
      fill('business_name', business);
      fill('industry', sector || 'Local business');
      fill('services', defaultServices(`${sector} ${business}`));
      break;
    case 'automation-wf':
      // In a bundle the generator wires the workflow to the booking page (and, in store-pack, the store's orders).
      fill(
        'workflow_type',
        goals
          ? 'Lead capture and follow-up'
          : sector && hasAny(haystack(sector), ['store', 'shop', 'retail', 'ecommerce'])
            ? 'Order and enquiry logging'
            : 'Booking request logging',
      );
      fill('source_app', 'Website booking form');
      fill('target_app', 'Google Sheets');
      break;
    case 'task-worker':
      // A bundle part gets a derived prompt delivered as Markdown; a direct order keeps the JSON default.
      if (!has('task_prompt') && !has('format')) fill('format', 'markdown');
      fill(
        'task_prompt',
        goals
          ? `Plan the next 30 days for ${business} to reach these goals: ${goals}. List the steps, owners and the metric to track for each.`
          : `Write a launch checklist for ${business}${sector ? ` (${sector})` : ''}.`,
      );
      break;
    case 'smart-consultation':
      // The bundle delivers a booking page and a receptionist: the consultation is about putting them to work.
      fill('type', goals ? 'growth and automation strategy' : 'launching online bookings and enquiries');
      fill(
        'description',
        goals
          ? `${business}${sector ? ` (${sector})` : ''} wants to reach these goals: ${goals}. It is getting a booking page, an AI receptionist and workflows. How should it use them to reach the goals, which marketing and follow-up steps come first, and what should it measure?`
          : `${business}${sector ? ` (${sector})` : ''} is getting a booking page and an AI receptionist for its enquiries. How should it launch them so customers book online, which services and opening hours should it publish, how should it win its first online bookings, and what should it measure in the first 90 days?`,
      );
      break;
    case 'automation-audit':
      fill(
        'business_description',
        objective
          ? `${objective}${has('robot_type') ? ` Robot: ${line(inputs, 'robot_type')}.` : ''}`
          : `${business}${sector ? `, ${sector}` : ''}.${goals ? ` Goals: ${goals}.` : ''}`,
      );
      break;
    case 'robot-control-system': {
      // No robot named: a concrete one for the objective; no controller named: the robot's own.
      const robot =
        findRobot(line(inputs, 'robot_type')) ?? (has('robot_type') ? undefined : suggestRobot(objective || goals));
      fill(
        'robot_type',
        robot ? `${robot.name} (suggested for the objective: rated payload ${robot.payload_kg} kg)` : null,
      );
      fill(
        'controller',
        robot
          ? robot.controller
          : 'ROS 2 ros2_control on an industrial PC with a safety PLC (Siemens S7-1500F) owning the safety functions',
      );
      fill('objective', objective || goals || null);
      break;
    }
    case 'agent-development':
      fill('use_case', objective || goals || null);
      fill('tools_required', ['web search']);
      break;
    case 'integration-project':
      fill('direction', 'one-way');
      break;
    default:
      break;
  }
  return { ...inputs, ...derived };
}
