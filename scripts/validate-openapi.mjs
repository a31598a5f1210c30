// Validates an OpenAPI document read from standard input with @seriousme/openapi-schema-validator (an ES module,
// hence a script of its own): prints {valid, version, errors} as JSON and exits 1 when it is not valid.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const validator = new Validator();
const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
process.stdout.write(
  JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }),
);
process.exit(result.valid ? 0 : 1);
