/**
 * The copied UCP JSON schemas (test/fixtures/ucp-2026-08-22/schemas, unchanged) in ajv 2020-12, for validating every
 * UCP message of the tests. Responses are validated against the schemas as they are; requests against the schema
 * resolved for their operation (overview "Schema Processing": a property annotated `ucp_request: omit` for the
 * operation is dropped, `required` becomes required, `optional` optional), which is what UCP's own resolver does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const ROOT = path.join(__dirname, '..', 'fixtures', 'ucp-2026-08-22', 'schemas');

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith('.json'));
}

type Json = Record<string, unknown>;

/** The schema resolved for a request of `op`: see the module comment. */
function resolveForRequest(node: unknown, op: string): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveForRequest(n, op));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = resolveForRequest(v, op);
  const props = out.properties as Json | undefined;
  if (props && typeof props === 'object') {
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [name, p] of Object.entries(props)) {
      const ann = (p as Json | null)?.ucp_request;
      const rule = typeof ann === 'string' ? ann : ann && typeof ann === 'object' ? (ann as Json)[op] : undefined;
      if (rule === 'omit') {
        delete props[name];
        required.delete(name);
      } else if (rule === 'required') required.add(name);
      else if (rule === 'optional') required.delete(name);
    }
    if (required.size > 0) out.required = [...required];
    else delete out.required;
  }
  return out;
}

const instances = new Map<string, Ajv2020>();

/** An ajv with every copied schema, resolved for requests of `op` (or as they are: `read`). */
function ajvFor(op: string): Ajv2020 {
  let ajv = instances.get(op);
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const f of files(ROOT)) {
    const schema = JSON.parse(fs.readFileSync(f, 'utf8')) as Json;
    ajv.addSchema((op === 'read' ? schema : resolveForRequest(schema, op)) as Json);
  }
  instances.set(op, ajv);
  return ajv;
}

/**
 * Throws with ajv's errors unless `value` conforms to `ref` (`https://ucp.dev/schemas/shopping/checkout.json`, with a
 * `#/$defs/…` fragment where needed) for `op`: `read` (responses, profiles, webhooks) or a request operation.
 */
export function ucpConforms(ref: string, value: unknown, op = 'read'): void {
  const ajv = ajvFor(op);
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(value))
    throw new Error(
      `${ref} (${op}): ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(value).slice(0, 2000)}`,
    );
}

/** Schema ids used by the tests. */
export const UCP = {
  checkout: 'https://ucp.dev/schemas/shopping/checkout.json',
  order: 'https://ucp.dev/schemas/shopping/order.json',
  errorResponse: 'https://ucp.dev/schemas/common/types/error_response.json',
  businessProfile: 'https://ucp.dev/schemas/profile.json#/$defs/business_schema',
  platformProfile: 'https://ucp.dev/schemas/profile.json#/$defs/platform_schema',
} as const;
