/**
 * Expert delivery endpoints (issue 6 §1). Operators (operator key) work the engineer queue: list, claim, upload
 * deliverables (stored content-addressed and checksummed like the generated ones; only the record goes to the
 * workflow), mark ready. The buyer may cancel an order past its SLA for a full refund.
 *
 * - `GET  /api/v1/engineering/queue[?engineer=&unclaimed=true]` orders waiting for an engineer, most urgent first
 * - `POST /api/v1/engineering/{order_id}/claim {engineer, reassign?}`
 * - `POST /api/v1/engineering/{order_id}/deliverables` JSON `{engineer, name, media_type, content_base64}`, or the raw
 *   file as the body with `?engineer=&name=` and its Content-Type (up to {@link MAX_UPLOAD_BYTES})
 * - `POST /api/v1/engineering/{order_id}/ready {engineer, note?}` → the delivered order (review window opens)
 * - `POST /api/v1/orders/{order_id}/cancel {reason?}` (buyer, `sla_breached` only) → cancelled and refunded
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { OrderDoc } from '../db';
import { isSafeFileName } from '../domain/deliverables';
import { microsToUsd } from '../domain/money';
import { ProblemError, badRequest, invalidTransition } from '../errors';
import { requireOperator } from '../http/auth';
import { requireBuyer } from '../http/buyer';
import { zodProblem } from '../http/errors';
import { ENGINEERING_QUEUE_STATUSES, EngineeringRepository } from '../repos/engineering';
import { LongRunningWorkflows } from '../temporal/longRunning';
import type { OrderState } from '../../workflows/shared';
import { requestBody, type AppDeps } from './context';
import { ClaimBody, CancelBody, ReadyBody, UploadJsonBody, UploadRawQuery } from './longRunningSchemas';
import { longRunningView } from './longRunningView';
import { loadOrder, orderView } from './orders';

/** Largest engineer upload sent as a raw body, in bytes (JSON uploads are bounded by the 256 kB JSON limit). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Reads a raw request body up to `limit` bytes. @throws ProblemError 413 payload_too_large beyond it. */
async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw new ProblemError(413, 'payload_too_large', `Uploads are limited to ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new ProblemError(413, 'payload_too_large', `Uploads are limited to ${limit} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** @throws ProblemError 409 unless the order waits in the engineer queue. */
function requireQueued(doc: OrderDoc, operation: string): void {
  if (!doc.engineering || !ENGINEERING_QUEUE_STATUSES.includes(doc.status)) throw invalidTransition(operation, doc.status);
}

/** Engineer queue, uploads and the buyer's cancel (issue 6 §1). */
export function engineeringRoutes(deps: AppDeps): Router {
  const router = new Router();
  const workflows = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const queue = new EngineeringRepository(deps.services.db);
  const base = deps.config.PUBLIC_BASE_URL;

  const answer = async (ctx: Context, doc: OrderDoc, state: OrderState): Promise<void> => {
    const fresh = (await deps.services.orders.get(doc._id)) ?? doc;
    ctx.body = { ...orderView(fresh, deps, state), ...(await longRunningView(deps, fresh)) };
  };

  router.get('/api/v1/engineering/queue', async (ctx) => {
    requireOperator(ctx, deps.config.OPERATOR_KEY);
    const engineer = typeof ctx.query.engineer === 'string' && ctx.query.engineer ? ctx.query.engineer : undefined;
    const docs = await queue.queue({ ...(engineer ? { engineer } : {}), unclaimed: ctx.query.unclaimed === 'true' });
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
          blueprint: o.deliverables.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size, url: `${base}/api/v1/orders/${o._id}/deliverables/${encodeURIComponent(d.name)}` })),
          uploads: e.uploads.map((d) => ({ name: d.name, sha256: d.sha256, size: d.size, media_type: d.media_type })),
          links: { order: `${base}/api/v1/orders/${o._id}`, claim: `${work}/claim`, deliverables: `${work}/deliverables`, ready: `${work}/ready` },
        };
      }),
    };
  });

  router.post('/api/v1/engineering/:order_id/claim', async (ctx) => {
    requireOperator(ctx, deps.config.OPERATOR_KEY);
    const doc = await loadOrder(deps, ctx.params.order_id);
    const parsed = ClaimBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    requireQueued(doc, 'claim the order');
    const state = await workflows.claim(doc._id, { engineer: parsed.data.engineer, ...(parsed.data.reassign ? { reassign: true } : {}) });
    await answer(ctx, doc, state);
  });

  router.post('/api/v1/engineering/:order_id/deliverables', async (ctx) => {
    requireOperator(ctx, deps.config.OPERATOR_KEY);
    const doc = await loadOrder(deps, ctx.params.order_id);
    let upload: { engineer: string; name: string; media_type: string; bytes: Buffer };
    if (ctx.is('application/json')) {
      const parsed = UploadJsonBody.safeParse(requestBody(ctx));
      if (!parsed.success) throw zodProblem(parsed.error);
      const b64 = parsed.data.content_base64.replace(/\s+/g, '');
      if (!BASE64.test(b64) || b64.length % 4 !== 0) throw badRequest('content_base64 is not base64 (standard alphabet, padded)', 'content_base64');
      upload = { engineer: parsed.data.engineer, name: parsed.data.name, media_type: parsed.data.media_type, bytes: Buffer.from(b64, 'base64') };
    } else {
      const parsed = UploadRawQuery.safeParse(ctx.query);
      if (!parsed.success) throw zodProblem(parsed.error, 'query');
      upload = { ...parsed.data, media_type: ctx.get('content-type') || 'application/octet-stream', bytes: await readRaw(ctx, MAX_UPLOAD_BYTES) };
    }
    if (!isSafeFileName(upload.name)) {
      throw badRequest('name must be a flat file name: lowercase letters, digits, . _ - (at most 120 characters)', 'name');
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
      uploads: state.engineering?.uploads.map((u) => ({ name: u.name, sha256: u.sha256, size: u.size, media_type: u.media_type })) ?? [],
    };
  });

  router.post('/api/v1/engineering/:order_id/ready', async (ctx) => {
    requireOperator(ctx, deps.config.OPERATOR_KEY);
    const doc = await loadOrder(deps, ctx.params.order_id);
    const parsed = ReadyBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    if (!doc.engineering) throw invalidTransition('mark the order ready', doc.status);
    const state = await workflows.markReady(doc._id, { engineer: parsed.data.engineer, ...(parsed.data.note ? { note: parsed.data.note } : {}) });
    await answer(ctx, doc, state);
  });

  router.post('/api/v1/orders/:order_id/cancel', async (ctx) => {
    const doc = await loadOrder(deps, ctx.params.order_id);
    await requireBuyer(ctx, deps.services.wallets, doc, 'cancel');
    const parsed = CancelBody.safeParse(requestBody(ctx));
    if (!parsed.success) throw zodProblem(parsed.error);
    if (!doc.engineering) throw invalidTransition('cancel', doc.status);
    const state = await workflows.cancelOrder(doc._id, parsed.data.reason ? { reason: parsed.data.reason } : {});
    await answer(ctx, doc, state);
  });

  return router;
}
