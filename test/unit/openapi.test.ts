/**
 * The served OpenAPI document is valid (issue 10 §5): it passes the OpenAPI 3.1 schema validator, every schema in it
 * compiles as JSON Schema 2020-12, and the conformance checker the test stacks run on every response finds what it
 * should.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { openApiDocument } from '../../src/routes/openapi';
import { OpenApiConformance } from '../helpers/openApiConformance';

const doc = JSON.parse(JSON.stringify(openApiDocument('http://127.0.0.1:3000'))) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

test('the document validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)', () => {
  const script = path.resolve(__dirname, '..', '..', 'scripts', 'validate-openapi.mjs');
  const run = spawnSync(process.execPath, [script], { input: JSON.stringify(doc), encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ valid: true, version: '3.1', errors: null });
  // The validator does judge: a document without `info` fails.
  const broken = spawnSync(process.execPath, [script], {
    input: JSON.stringify({ ...doc, info: undefined }),
    encoding: 'utf8',
  });
  expect(broken.status).toBe(1);
  expect(JSON.parse(broken.stdout).valid).toBe(false);
});

test('every schema in it is a valid JSON Schema 2020-12 (no tuple `items`)', () => {
  const ajv = new Ajv2020({ strict: false });
  const schemas: unknown[] = Object.values(doc.components.schemas);
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      for (const res of Object.values(op.responses ?? {}))
        for (const media of Object.values(res.content ?? {})) schemas.push(media.schema);
    }
  }
  expect(schemas.length).toBeGreaterThan(100);
  const invalid = schemas.filter((s) => !ajv.validateSchema(s as object));
  expect(invalid).toEqual([]);
  expect(JSON.stringify(doc)).not.toMatch(/"items":\[|"prefixItems"/);
});

test('every operation documents 400, 429 and 500, and every body-taking one 413 and 415, every POST the idempotency answers', () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const statuses = Object.keys(op.responses);
      expect({ path, method, has: ['400', '429', '500'].filter((s) => statuses.includes(s)) }).toEqual({
        path,
        method,
        has: ['400', '429', '500'],
      });
    }
  }
  expect(Object.keys(doc.paths['/api/v1/orders']!.post!.responses)).toEqual(
    expect.arrayContaining(['409', '413', '415', '422']),
  );
  expect(Object.keys(doc.paths['/api/v1/orders/{order_id}/tasks']!.get!.responses)).toContain('404');
  expect(Object.keys(doc.paths['/api/v1/services']!.get!.responses)).not.toContain('404');
});

describe('the conformance checker', () => {
  const checker = new OpenApiConformance();
  test('accepts a documented answer and a refused unknown path', () => {
    expect(
      checker.check('GET', '/api/v1/orders/ord_x', 404, 'application/problem+json', {
        type: 't',
        title: 't',
        status: 404,
        code: 'order_not_found',
      }),
    ).toEqual([]);
    expect(checker.check('GET', '/api/v1/nope', 404, 'application/problem+json', {})).toEqual([]);
  });
  test('reports an undocumented status, an undocumented path and a body that breaks its schema', () => {
    expect(checker.check('GET', '/api/v1/services', 418, 'application/json', {})).toEqual([
      'GET /api/v1/services → 418: status not documented',
    ]);
    expect(checker.check('GET', '/api/v1/nope', 200, 'application/json', {})).toEqual([
      'GET /api/v1/nope: path not in the OpenAPI document',
    ]);
    const problems = checker.check('GET', '/api/v1/orders/ord_x', 404, 'application/problem+json', { title: 't' });
    expect(problems.join('\n')).toMatch(/must have required property 'type'/);
  });
});
