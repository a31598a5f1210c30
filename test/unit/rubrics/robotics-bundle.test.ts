/**
 * The robotics-bundle rubric as code (docs/rubrics/robotics-bundle.md, issue 38 §4): the bundle's parts
 * (automation-audit, robot-control-system), generated from the bundle order's inputs as fulfilment does, each pass its
 * own rubric, a robot we suggest meets the objective, and the audit prices the robot cell the pack designs.
 */
import fc from 'fast-check';
import { completeInputs } from '../../../src/products/deliverables';
import { ROBOT_MODELS } from '../../../src/products/deliverables/robots';
import { generateBundle, RUNS } from '../../helpers/rubrics';
import { auditRubric } from '../../helpers/auditRubric';
import { robotRubric } from '../../helpers/robotRubric';

const OBJECTIVES = [
  'Palletise {m} cartons from the end of a conveyor onto EUR pallets{r}',
  'Bin picking of {m} castings from totes onto a CNC fixture{r}',
  'Machine tending: load {m} blanks into a lathe{r}, operators work next to the cell',
  'Pick and place {m} trays between two conveyors{r} in a fenced cell',
];
const MASSES = ['', '1 kg', '3 kg', '8 kg', '12 kg', '18 kg', '26 kg', '40 kg'];
const RATES = ['', ', 4 picks a minute', ', 8 picks a minute', ', 15 picks per minute'];
const ROBOTS = [undefined, undefined, 'UR16e', 'FANUC CRX-10iA/L', 'Franka Research 3', 'Yaskawa GP8', 'ABB GoFa'];

const bundleOrder = fc
  .record({
    objective: fc.constantFrom(...OBJECTIVES),
    mass: fc.constantFrom(...MASSES),
    rate: fc.constantFrom(...RATES),
    robot: fc.constantFrom(...ROBOTS),
  })
  .map((o) => ({
    objective: o.objective.replace('{m}', o.mass || 'light').replace('{r}', o.rate),
    contact_email: 'eng@example.com',
    ...(o.robot ? { robot_type: o.robot } : {}),
  }));

describe('robotics-bundle rubric (docs/rubrics/robotics-bundle.md)', () => {
  test('every generated bundle order passes B1-B3', () => {
    fc.assert(
      fc.property(bundleOrder, (inputs) => {
        const parts = generateBundle('robotics-bundle', inputs);
        const robotInputs = completeInputs('robot-control-system', inputs);
        // B1 the robot pack passes its rubric; a robot we chose (none named) meets payload, reach and rate (R5).
        expect(robotRubric(parts['robot-control-system'] ?? {}, robotInputs, inputs.robot_type === undefined)).toEqual(
          [],
        );
        // B2 the audit passes its rubric.
        expect(auditRubric(parts['automation-audit'] ?? {}, completeInputs('automation-audit', inputs))).toEqual([]);
        // B3 the audit prices the robot cell the pack designs, hardware included.
        const findings = JSON.parse(parts['automation-audit']?.['automation-audit-findings.json'] ?? '{}').findings as {
          recommended_service: string;
          cost: { one_off: { usd: number }[] };
        }[];
        const cell = findings.find((f) => f.recommended_service === 'robot-control-system');
        expect(cell?.cost.one_off.some((c) => c.usd >= 10_000)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  test('B1 can fail: a UR16e suggested for palletising, or 1.00 m/s called reduced speed, breaks the rubric', () => {
    const inputs = { objective: 'Palletise 12 kg cartons, 8 picks a minute', contact_email: 'eng@example.com' };
    const parts = generateBundle('robotics-bundle', inputs);
    const robot = parts['robot-control-system'] ?? {};
    const ur16e = ROBOT_MODELS.find((r) => r.id === 'ur16e');
    expect(robot['robot-control-system-params.yaml']).not.toContain('robot_model: "ur16e"');
    const swapped = {
      ...robot,
      'robot-control-system-params.yaml': (robot['robot-control-system-params.yaml'] ?? '').replace(
        /robot_model: "[a-z0-9_]+"/,
        `robot_model: "${ur16e?.id}"`,
      ),
      'robot-control-system-safety-checklist.md': `${robot['robot-control-system-safety-checklist.md']}\n- [ ] Reduced speed active (max 1.00 m/s linear).`,
    };
    const broken = robotRubric(swapped, completeInputs('robot-control-system', inputs), true);
    expect(broken.some((b) => b.startsWith('R5'))).toBe(true);
    expect(broken.some((b) => b.startsWith('R6'))).toBe(true);
  });
});
