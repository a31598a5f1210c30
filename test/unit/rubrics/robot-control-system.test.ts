/**
 * The robot-control-system rubric as code (docs/rubrics/robot-control-system.md, issue 38 §4): what a robotics
 * integrator checks in a control-system pack, applied to generated orders (fast-check), not one golden file.
 *
 * The data-sheet figures come from src/products/deliverables/robots.ts (ROBOT_MODELS); the cycle model is re-derived
 * here from its documented assumptions so the deliverable's claims are checked, not echoed.
 */
import fc from 'fast-check';
import { generate, RUNS, type Files } from '../../helpers/rubrics';
import { pythonParses, robotOrder, robotRubric } from '../../helpers/robotRubric';

describe('robot-control-system rubric (docs/rubrics/robot-control-system.md)', () => {
  test('every generated order passes R1-R9', () => {
    fc.assert(
      fc.property(robotOrder, (inputs) => {
        expect(robotRubric(generate('robot-control-system', inputs), inputs, false)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  test('R10: the delivered nodes parse as Python', () => {
    const files = generate('robot-control-system', {
      robot_type: 'UR10e',
      controller: 'UR control box',
      objective: 'Pick and place 2 kg parts',
    });
    expect(Object.keys(files).filter((n) => n.endsWith('.py'))).toHaveLength(2);
    expect(pythonParses(files)).toEqual([]);
  });

  test('the rubric fails the defects issue 38 named (it can fail)', () => {
    const inputs = {
      robot_type: 'UR16e',
      controller: 'UR',
      objective: 'Palletise 12 kg cartons, 8 picks a minute',
      site_constraints: 'Operators pass by the cell',
    };
    const files = generate('robot-control-system', inputs);
    const broken = (patch: (f: Files) => void): string[] => {
      const copy = { ...files };
      patch(copy);
      return robotRubric(copy, inputs, true);
    };
    // A UR16e suggested for palletising.
    expect(broken(() => undefined).some((b) => b.startsWith('R5'))).toBe(true);
    // 1.00 m/s called reduced speed.
    expect(
      broken((f) => {
        f['robot-control-system-safety-checklist.md'] += '\n- [ ] Reduced speed active (max 1.00 m/s linear).';
      }).some((b) => b.startsWith('R6')),
    ).toBe(true);
    // A launch without the driver, starting a node nobody delivered.
    expect(
      broken((f) => {
        f['robot-control-system-launch.yaml'] =
          'launch:\n  - node:\n      pkg: "ur16e_bringup"\n      exec: "mission_supervisor"\n';
      }).filter((b) => /R8|R9/.test(b)).length,
    ).toBeGreaterThanOrEqual(3);
    // A placeholder.
    expect(
      broken((f) => {
        f['robot-control-system-params.yaml'] += '\n# robot_ip: <robot ip>\n';
      }).some((b) => b.startsWith('R1')),
    ).toBe(true);
  });
});
