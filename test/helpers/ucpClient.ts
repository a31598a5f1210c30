/**
 * A UCP platform for tests (issue 37 §2), built from the copied REST binding
 * (test/fixtures/ucp-2026-08-22/services/shopping/rest.openapi.json: operation ids, methods and paths): it signs every
 * request as signatures.md's "REST Request Signing" says (RFC 9421 with `http-message-signatures`, ES256 — the UCP
 * baseline — Content-Digest over the exact bytes sent), and serves its own profiles on a local HTTP server.
 * `@ucp-js/sdk` (0.1.1) was checked: it ships zod 3 models of an earlier UCP release and no client or signing, so it
 * does not serve here; messages are validated against the copied JSON schemas instead (./ucpSchemas.ts).
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createSigner, httpbis } from 'http-message-signatures';
import { contentDigest } from '../../src/ucp/signatures';
import { UCP_VERSION } from '../../src/ucp/profiles';
import type { ApiResponse, Stack } from './stack';

const REST = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', 'fixtures', 'ucp-2026-08-22', 'services', 'shopping', 'rest.openapi.json'),
    'utf8',
  ),
) as { paths: Record<string, Record<string, { operationId?: string }>> };

/** operationId → method and path template, from the binding. */
export const UCP_OPERATIONS: Record<string, { method: string; path: string }> = {};
for (const [p, item] of Object.entries(REST.paths))
  for (const [m, op] of Object.entries(item))
    if (op && typeof op === 'object' && op.operationId)
      UCP_OPERATIONS[op.operationId] = { method: m.toUpperCase(), path: p };

const SPEC = `https://ucp.dev/${UCP_VERSION}`;

/**
 * A platform profile (profile.json platform_schema) with `keys`, the checkout capability, the order capability with its
 * webhook at `webhook`, and the AP2 mandate extension when `ap2`.
 */
export function platformProfile(keys: Record<string, unknown>[], webhook: string, version = UCP_VERSION, ap2 = false) {
  return {
    ucp: {
      version,
      services: {
        'dev.ucp.shopping': [
          {
            version,
            spec: `${SPEC}/specification/overview/`,
            transport: 'rest',
            schema: `${SPEC}/services/shopping/rest.openapi.json`,
            endpoint: 'https://platform.example/ucp',
          },
        ],
      },
      capabilities: {
        'dev.ucp.shopping.checkout': [
          {
            version,
            spec: `${SPEC}/specification/shopping/checkout`,
            schema: `${SPEC}/schemas/shopping/checkout.json`,
          },
        ],
        'dev.ucp.shopping.order': [
          {
            version,
            spec: `${SPEC}/specification/shopping/order`,
            schema: `${SPEC}/schemas/shopping/order.json`,
            config: { webhook_url: webhook },
          },
        ],
        ...(ap2
          ? {
              'dev.ucp.shopping.ap2_mandate': [
                {
                  version,
                  spec: `${SPEC}/specification/ap2-mandates`,
                  schema: `${SPEC}/schemas/shopping/ap2_mandate.json`,
                  extends: 'dev.ucp.shopping.checkout',
                },
              ],
            }
          : {}),
      },
      payment_handlers: {},
    },
    keys,
  };
}

/** An ES256 key pair and its public JWK with `kid`. */
export function platformKey(kid: string): { privateKey: KeyObject; jwk: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'ES256' } };
}

/** Local server of platform profiles (path → JSON) and an order-webhook receiver that records what it gets. */
export async function profileServer(): Promise<{
  base: string;
  set(pathName: string, doc: unknown): void;
  received: { headers: http.IncomingHttpHeaders; body: string; path: string }[];
  close(): Promise<void>;
}> {
  const docs = new Map<string, string>();
  const received: { headers: http.IncomingHttpHeaders; body: string; path: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      if (req.method === 'POST') {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: url });
        res.writeHead(200).end();
        return;
      }
      const doc = docs.get(url);
      if (doc === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' }).end(doc);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    set: (p, doc) => docs.set(p, typeof doc === 'string' ? doc : JSON.stringify(doc)),
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** How a request is sent (the knobs the refusal tests turn). */
export interface SendOptions {
  idempotencyKey?: string | null;
  /** Sign (default) or send unsigned. */
  sign?: boolean;
  /** Replaces the body after signing (a tampered body). */
  tamperBody?: (body: string) => string;
  /** Replaces the signature value after signing. */
  tamperSignature?: boolean;
  /** `created` of the signature. */
  created?: Date;
  /** Another keyid than the key's. */
  keyid?: string;
  profileUrl?: string | null;
  /** Headers added unsigned after signing (an `Authorization` a platform adds of its own). */
  extraHeaders?: Record<string, string>;
}

/** A UCP platform: its profile URL and key; `send` calls a binding operation by its id. */
export class UcpPlatform {
  constructor(
    private readonly stack: Stack,
    readonly profileUrl: string,
    private readonly key: { privateKey: KeyObject; kid: string },
  ) {}

  /** Calls `operationId` (`create_checkout`, …) with `id` for its path and `body`, signed as UCP says. */
  async send(operationId: string, args: { id?: string; body?: unknown }, opts: SendOptions = {}): Promise<ApiResponse> {
    const op = UCP_OPERATIONS[operationId];
    if (!op) throw new Error(`no UCP operation ${operationId}`);
    const urlPath = op.path.replace('{id}', encodeURIComponent(args.id ?? ''));
    const url = this.stack.url + urlPath;
    const body = args.body === undefined ? undefined : JSON.stringify(args.body);
    const headers: Record<string, string> = {};
    const profile = opts.profileUrl === undefined ? this.profileUrl : opts.profileUrl;
    if (profile !== null) headers['ucp-agent'] = `profile="${profile}"`;
    const idem = opts.idempotencyKey === undefined ? (op.method === 'GET' ? null : randomUUID()) : opts.idempotencyKey;
    if (idem) headers['idempotency-key'] = idem;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-digest'] = contentDigest(body);
    }
    let sent = headers;
    if (opts.sign !== false) {
      const fields = ['@method', '@authority', '@path'];
      if (headers['ucp-agent']) fields.push('ucp-agent');
      if (idem) fields.push('idempotency-key');
      if (body !== undefined) fields.push('content-digest', 'content-type');
      const signed = await httpbis.signMessage(
        {
          key: createSigner(this.key.privateKey, 'ecdsa-p256-sha256', opts.keyid ?? this.key.kid),
          name: 'sig1',
          fields,
          params: ['created', 'keyid'],
          paramValues: { created: opts.created ?? new Date() },
        },
        { method: op.method, url, headers },
      );
      sent = Object.fromEntries(
        Object.entries(signed.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
      ) as Record<string, string>;
      if (opts.tamperSignature) {
        const name = Object.keys(sent).find((k) => k.toLowerCase() === 'signature') as string;
        sent[name] = (sent[name] as string).replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
      }
    }
    const wire = body !== undefined && opts.tamperBody ? opts.tamperBody(body) : body;
    return this.stack.call(op.method, urlPath, wire, { ...sent, ...opts.extraHeaders });
  }
}
