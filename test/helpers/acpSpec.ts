/**
 * The ACP 2026-04-17 specification as the tests use it: the copied JSON schemas (ajv 2020-12), the example file and
 * a platform that the operator issued a key (test/fixtures/acp-2026-04-17, copied unchanged from
 * ../shared/reference/protocols/acp-2026-04-17).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPERATOR_KEY, type Stack } from './stack';

/** The folder of the copied specification files. */
export const ACP_FIXTURES = path.join(__dirname, '..', 'fixtures', 'acp-2026-04-17');
/** The version served. */
export const ACP_VERSION = '2026-04-17';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const load = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(path.join(ACP_FIXTURES, file), 'utf8'));
ajv.addSchema(load('schema.agentic_checkout.json'), 'checkout');
ajv.addSchema(load('schema.delegate_payment.json'), 'delegate');
ajv.addSchema(load('schema.feed.json'), 'feed');

/** Throws with ajv's errors unless `value` is valid against `ref` (`checkout#/$defs/CheckoutSession`, …). */
export function conforms(ref: string, value: unknown): void {
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(value))
    throw new Error(`${ref}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(value).slice(0, 2000)}`);
}

/** The spec's examples (examples/2026-04-17/examples.agentic_checkout.json), by name. */
export const ACP_EXAMPLES: Record<string, any> = load('examples.agentic_checkout.json');

/** Issues a platform its ACP API key through the operator endpoint. */
export async function issuePlatform(stack: Stack, name: string): Promise<string> {
  const res = await stack.call('POST', '/api/v1/acp/platforms', { name }, { authorization: `Bearer ${OPERATOR_KEY}` });
  if (res.status !== 201) throw new Error(`platform: ${res.status} ${res.text}`);
  return res.body.api_key as string;
}
