/**
 * The integration-project rubric as code (docs/rubrics/integration-project.md, issue 38 §4): what an integration
 * engineer checks in an integration spec, applied to generated orders (fast-check), not one golden file.
 *
 * Documented limits and auth come from src/products/deliverables/apis.ts (API_LIMITS, each row linking the maker's
 * page); the request budget is re-derived here from the volume so the spec's verdicts are checked, not echoed.
 */
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { API_LIMITS } from '../../../src/products/deliverables/apis';
import { generate, RUNS } from '../../helpers/rubrics';
import { type Spec, integrationOrder, integrationRubric } from '../../helpers/integrationRubric';

describe('integration-project rubric (docs/rubrics/integration-project.md)', () => {
  test('every generated order passes I1-I7', () => {
    fc.assert(
      fc.property(integrationOrder, (inputs) => {
        expect(integrationRubric(generate('integration-project', inputs))).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  test('I2: sampled specs validate against the OpenAPI 3.1 schema', () => {
    const script = path.resolve(__dirname, '..', '..', '..', 'scripts', 'validate-openapi.mjs');
    for (const inputs of fc.sample(integrationOrder, { numRuns: 8, seed: 38 })) {
      const spec = generate('integration-project', inputs)['integration-project-spec.json'] ?? '';
      const run = spawnSync(process.execPath, [script], { input: spec, encoding: 'utf8' });
      expect({ inputs, status: run.status, out: run.stdout + run.stderr }).toMatchObject({ status: 0 });
    }
  });

  test('every API in the table links its documentation and has a positive budget', () => {
    for (const a of API_LIMITS) {
      expect(a.limit_docs).toMatch(/^https:\/\//);
      expect(a.sustained_per_second).toBeGreaterThan(0);
      expect(a.auth.length).toBeGreaterThan(10);
    }
  });

  test('NetSuite, the central system of issue 38, is mapped and sized, and the rubric can fail', () => {
    const files = generate('integration-project', {
      systems: 'Shopify, NetSuite',
      direction: 'bidirectional',
      volume: '300k orders per day',
    });
    expect(integrationRubric(files)).toEqual([]);
    const spec = JSON.parse(files['integration-project-spec.json'] ?? '{}') as Spec;
    const ns = spec['x-integration'].systems.find((s) => s.name === 'NetSuite');
    expect(ns?.rate_limit?.exceeds).toBe(true);
    expect(ns?.rate_limit?.instead).toContain('CSV import');
    const broken = {
      ...files,
      'integration-project-spec.json': (files['integration-project-spec.json'] ?? '').replace(
        '"externalId"',
        '"REPLACE_WITH_NETSUITE_FIELD"',
      ),
    };
    expect(integrationRubric(broken).some((b) => b.startsWith('I1'))).toBe(true);
  });
});
