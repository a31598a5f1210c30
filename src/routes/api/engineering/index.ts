/**
 * Expert delivery endpoints (issue 6 §1), registered from their definitions in ./schema.ts. Operators (operator key,
 * checked by the router from the definition before the order is loaded) work the engineer queue: list, claim, upload deliverables (stored content-addressed and
 * checksummed like the generated ones; only the record goes to the workflow), mark ready.
 * - `GET  /api/v1/engineering/queue[?engineer=&unclaimed=true]` orders waiting for an engineer, most urgent first
 * - `POST /api/v1/engineering/{order_id}/claim {engineer, reassign?}`
 * - `POST /api/v1/engineering/{order_id}/deliverables` JSON `{engineer, name, media_type, content_base64}`, or the raw
 *   file as the body with `?engineer=&name=` and its Content-Type (up to {@link MAX_UPLOAD_BYTES})
 * - `POST /api/v1/engineering/{order_id}/ready {engineer, note?}` → the delivered order (review window opens)
 */
import type { Context } from 'koa';
import type { OrderDoc } from '../../../db';
import { isSafeFileName } from '../../../products/deliverables';
import { microsToUsd } from '../../../domain/money';
import { badRequest, invalidTransition, problem } from '../../../errors';
import { ENGINEERING_QUEUE_STATUSES, EngineeringRepository } from '../../../repos/engineering';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import type { AppDeps } from '../../context';
import { OperationRouter, parsePart } from '../../operation';
import { orderOfPath } from '../orders/policy';
import { orderWithLongRunning } from '../orders/view';
import { UploadRawQuery, engineeringOperations as ops } from './schema';

/** Largest engineer upload sent as a raw body, in bytes (JSON uploads are bounded by the 256 kB JSON limit). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads a raw request body up to `limit` bytes. @throws ProblemError 413 payload_too_large beyond it. */
async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw problem('payload_too_large', `Uploads are limited to ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw problem('payload_too_large', `Uploads are limited to ${limit} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** @throws ProblemError 409 unless the order waits in the engineer queue. */
function requireQueued(doc: OrderDoc, operation: string): void {
  if (!doc.engineering || !ENGINEERING_QUEUE_STATUSES.includes(doc.status))
    throw invalidTransition(operation, doc.status);
}

/** The engineer queue routes. */
export function engineeringRoutes(deps: AppDeps): OperationRouter {
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const queue = new EngineeringRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;
  const order = { load: orderOfPath(deps) };

  return new OperationRouter(deps)
    .on(ops.queue, async (ctx, { query }) => {
      const engineer = query.engineer || undefined;
      const docs = await queue.queue({ ...(engineer ? { engineer } : {}), unclaimed: query.unclaimed === 'true' });
      const now = Date.now();
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        count: docs.length,
        items: docs.map((o) => {
          const e = o.engineering!;
          const work = `${base}/api/v1/engineering/${o._id}`;
          return {
            order_id: o._id,
            service_id: o.service_id,
            status: o.status,
            inputs: o.inputs,
            agent_id: o.agent_id,
            amount: microsToUsd(o.amount_micros),
            paid_at: o.payment?.paid_at ?? null,
            engineer: e.engineer,
            claimed_at: e.claimed_at,
            sla_deadline: e.sla_deadline,
            escalate_at: e.escalate_at,
            escalated: e.escalated_at !== null,
            breached: e.breached_at !== null,
            seconds_left: Math.round((Date.parse(e.sla_deadline) - now) / 1000),
            blueprint: o.deliverables.map((d) => ({
              name: d.name,
              sha256: d.sha256,
              size: d.size,
              url: `${base}/api/v1/orders/${o._id}/deliverables/${encodeURIComponent(d.name)}`,
            })),
            uploads: e.uploads.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size, media_type: d.media_type })),
            links: {
              order: `${base}/api/v1/orders/${o._id}`,
              claim: `${work}/claim`,
              deliverables: `${work}/deliverables`,
              ready: `${work}/ready`,
            },
          };
        }),
      };
    })
    .on(ops.claim, order, async (ctx, input, doc) => {
      const { engineer, reassign } = input.body;
      requireQueued(doc, 'claim the order');
      const state = await workflows.claim(doc._id, { engineer, ...(reassign ? { reassign: true } : {}) });
      ctx.body = await orderWithLongRunning(deps, doc, state);
    })
    .on(ops.upload, order, async (ctx, input, doc) => {
      let upload: { engineer: string; name: string; media_type: string; bytes: Buffer };
      // A JSON upload came parsed (the router parses the JSON body only when the request is JSON).
      const body = input.body;
      if (body) {
        const b64 = body.content_base64.replace(/\s+/g, '');
        if (!BASE64.test(b64) || b64.length % 4 !== 0)
          throw badRequest('content_base64 is not base64 (standard alphabet, padded)', 'content_base64');
        upload = {
          engineer: body.engineer,
          name: body.name,
          media_type: body.media_type,
          bytes: Buffer.from(b64, 'base64'),
        };
      } else {
        // The raw form names the file in the query, where both members are required.
        const query = parsePart(UploadRawQuery, input.query, 'query') as { engineer: string; name: string };
        upload = {
          ...query,
          media_type: ctx.get('content-type') || 'application/octet-stream',
          bytes: await readRaw(ctx, MAX_UPLOAD_BYTES),
        };
      }
      if (!isSafeFileName(upload.name)) {
        throw badRequest(
          'name must be a flat file name: lowercase letters, digits, . _ - (at most 120 characters)',
          'name',
        );
      }
      if (upload.bytes.length === 0) throw badRequest('The file is empty', 'content');
      requireQueued(doc, 'upload a deliverable');
      // The bytes go to the content-addressed store here; only their record enters the workflow history.
      const blob = await deps.services.store.put(upload.bytes);
      const state = await workflows.addDeliverable(doc._id, {
        engineer: upload.engineer,
        name: upload.name,
        sha256: blob.sha256,
        size: blob.size,
        media_type: upload.media_type,
      });
      ctx.status = 201;
      ctx.body = {
        order_id: doc._id,
        deliverable: { name: upload.name, sha256: blob.sha256, size: blob.size, media_type: upload.media_type },
        uploads:
          state.engineering?.uploads.map((u) => ({
            name: u.name,
            sha256: u.sha256,
            size: u.size,
            media_type: u.media_type,
          })) ?? [],
      };
    })
    .on(ops.ready, order, async (ctx, input, doc) => {
      const { engineer, note } = input.body;
      if (!doc.engineering) throw invalidTransition('mark the order ready', doc.status);
      const state = await workflows.markReady(doc._id, { engineer, ...(note ? { note } : {}) });
      ctx.body = await orderWithLongRunning(deps, doc, state);
    });
}
