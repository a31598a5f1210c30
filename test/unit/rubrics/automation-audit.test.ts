/**
 * The automation-audit rubric as code (docs/rubrics/automation-audit.md, issue 38 §4): what an operations consultant
 * checks in an audit (evidence, costs, value, payback, priorities that follow from them), applied to generated orders
 * (fast-check), not one golden file. The money is recomputed here from the catalogue and the stated rate.
 */
import fc from 'fast-check';
import { generate, RUNS } from '../../helpers/rubrics';
import { DESCRIPTIONS, type Finding, auditOrder, auditRubric } from '../../helpers/auditRubric';

describe('automation-audit rubric (docs/rubrics/automation-audit.md)', () => {
  test('every generated order passes U1-U6', () => {
    fc.assert(
      fc.property(auditOrder, (inputs) => {
        expect(auditRubric(generate('automation-audit', inputs), inputs)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  test('the rubric fails an audit without costs or with a priority that does not follow them (it can fail)', () => {
    const inputs = {
      business_description: DESCRIPTIONS[3] ?? '',
      pain_points: ['Manual palletising causes back injuries'],
    };
    const files = generate('automation-audit', inputs);
    expect(auditRubric(files, inputs)).toEqual([]);
    const data = JSON.parse(files['automation-audit-findings.json'] ?? '{}');
    const robot = data.findings.find((f: Finding) => f.recommended_service === 'robot-control-system');
    expect(robot.cost.one_off_usd).toBeGreaterThan(10_000);
    const mutate = (change: (f: Finding) => void): string[] => {
      const copy = JSON.parse(JSON.stringify(data));
      change(copy.findings.find((f: Finding) => f.id === robot.id));
      return auditRubric({ ...files, 'automation-audit-findings.json': JSON.stringify(copy) }, inputs);
    };
    // A priority that does not follow the payback.
    expect(
      mutate((f) => (f.priority = f.priority === 'P1' ? 'P3' : 'P1')).some((b) => b.startsWith('U5 priority')),
    ).toBe(true);
    // A robot cell priced at the blueprint alone.
    expect(
      mutate((f) => {
        f.cost.one_off = [{ item: 'blueprint', usd: 749 }];
        f.cost.one_off_usd = 749;
      }).some((b) => b.startsWith('U4')),
    ).toBe(true);
  });
});
