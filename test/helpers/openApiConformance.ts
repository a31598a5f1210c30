/**
 * Checks responses against the served OpenAPI document (issue 10 §5): the operation exists, the status is documented,
 * and a JSON body validates against the documented schema of that status and media type (JSON Schema 2020-12, as
 * OpenAPI 3.1 uses). The test stacks run every `call` through it, so every response a test sees is checked.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/routes/openapi';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type PathItem = Partial<Record<string, Operation>>;

/** Escapes a JSON pointer token (RFC 6901). */
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validates responses against one OpenAPI document; built once per test process. */
export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: { template: string; re: RegExp; item: PathItem }[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly doc = JSON.parse(JSON.stringify(openApiDocument('http://127.0.0.1'))) as {
      paths: Record<string, PathItem>;
    },
  ) {
    addFormats(this.ajv);
    this.ajv.addSchema(this.doc as object, 'openapi.json');
    // Literal segments before templated ones, so /webhooks/events wins over /webhooks/{id}.
    this.routes = Object.entries(this.doc.paths)
      .map(([template, item]) => ({
        template,
        item,
        re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /**
   * The violations of one response (empty when it conforms).
   * @param path the request path, with or without a query string
   * @param body the parsed JSON body, or undefined when the body was not JSON
   */
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): string[] {
    const pathname = path.split('?')[0] ?? path;
    const m = method.toLowerCase();
    const route = this.routes.find((r) => r.re.test(pathname) && r.item[m]);
    if (!route) {
      // An unknown path (or method) may only be refused.
      if (status === 404 || status === 405) return [];
      return [
        `${method} ${pathname}: ${this.routes.some((r) => r.re.test(pathname)) ? 'method' : 'path'} not in the OpenAPI document`,
      ];
    }
    const op = route.item[m]!;
    const key = op.responses?.[String(status)] ? String(status) : op.responses?.default ? 'default' : null;
    if (!key) return [`${method} ${route.template} → ${status}: status not documented`];
    const content = op.responses?.[key]?.content;
    if (!content || body === undefined) return [];
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    if (!mediaType.endsWith('json')) return [];
    if (!content[mediaType])
      return [
        `${method} ${route.template} → ${status}: media type ${mediaType} not documented (${Object.keys(content).join(', ')})`,
      ];
    if (!content[mediaType]!.schema) return [];
    const ref = `openapi.json#/paths/${pointer(route.template)}/${m}/responses/${key}/content/${pointer(mediaType)}/schema`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${method} ${route.template} → ${status}: body${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
  }
}

let shared: OpenApiConformance | undefined;

/**
 * Checks a response with the process-wide checker. Throws with every violation, so the test that saw the response
 * fails where it made the call (`OPENAPI_CONFORMANCE=report` prints them instead; `off` skips the check).
 */
export function assertConforms(
  method: string,
  path: string,
  res: { status: number; headers: Headers },
  body: unknown,
): void {
  const mode = process.env.OPENAPI_CONFORMANCE ?? 'strict';
  if (mode === 'off') return;
  shared ??= new OpenApiConformance();
  const violations = shared.check(method, path, res.status, res.headers.get('content-type'), body);
  if (violations.length === 0) return;
  if (mode === 'report') {
    console.warn(`OPENAPI-VIOLATION ${violations.join('\nOPENAPI-VIOLATION ')}`);
    return;
  }
  throw new Error(`Response does not conform to the OpenAPI document:\n${violations.join('\n')}`);
}

/** A response as the test stacks return it: status, headers, the parsed JSON body (if any) and the text. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests read arbitrary JSON members.

  body: any;
  text: string;
}

/**
 * Calls the API at `baseUrl` (JSON body unless `body` is a string or bytes) and checks the response against the
 * OpenAPI document ({@link assertConforms}).
 */
export async function callApi(
  baseUrl: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const res = await fetch(baseUrl + urlPath, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined
      ? { body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) }
      : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  assertConforms(method, urlPath, res, parsed);
  return { status: res.status, headers: res.headers, body: parsed, text };
}
