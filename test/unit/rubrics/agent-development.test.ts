/**
 * The agent-development rubric as code (docs/rubrics/agent-development.md, issue 38 §4): what an agent engineer checks
 * in a tool manifest and its evaluation suite, applied to generated orders (fast-check), not one golden file.
 *
 * Tool definitions are parsed with the MCP SDK's own `ToolSchema` / `ListToolsResultSchema`; input schemas are compiled
 * with Ajv (JSON Schema 2020-12, formats); every eval's expected arguments are validated against its tool's schema.
 */
import fc from 'fast-check';
import { generate, RUNS } from '../../helpers/rubrics';
import { USE_CASES, agentOrder, agentRubric } from '../../helpers/agentRubric';

describe('agent-development rubric (docs/rubrics/agent-development.md)', () => {
  test('every generated order passes A1-A7', () => {
    fc.assert(
      fc.property(agentOrder, (inputs) => {
        expect(agentRubric(generate('agent-development', inputs))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  test('the rubric fails fill-in-the-blank evals and a tool the MCP SDK rejects (it can fail)', () => {
    const files = generate('agent-development', { use_case: USE_CASES[0] ?? '', tools_required: 'Zendesk, Slack' });
    expect(agentRubric(files)).toEqual([]);
    const evals = JSON.parse(files['agent-development-eval-cases.json'] ?? '{}');
    for (const c of evals.cases) c.expect = { calls_tool: c.expect.calls_tool, valid_arguments: true };
    expect(
      agentRubric({ ...files, 'agent-development-eval-cases.json': JSON.stringify(evals) }).some((b) =>
        b.startsWith('A5'),
      ),
    ).toBe(true);
    const manifest = JSON.parse(files['agent-development-tools.json'] ?? '{}');
    manifest.tools[0].inputSchema = { type: 'string' };
    expect(
      agentRubric({ ...files, 'agent-development-tools.json': JSON.stringify(manifest) }).some((b) =>
        b.startsWith('A2'),
      ),
    ).toBe(true);
  });
});
