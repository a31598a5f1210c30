/**
 * Order routes (seed §2.3 to §2.5, §2.10, §4; issue 2 §4), registered from their definitions in ./schema.ts behind
 * their gates (./policy.ts: the order loaded, the buyer's credential checked). Creating an order is
 * src/services/orders.ts; the public view ./view.ts.
 */
import type { OrderDoc } from '../../../db';
import { invalidTransition, notFound } from '../../../errors';
import { etagMatches } from '../../../http/cachedJson';
import { digestStored, sha256Hex } from '../../../storage/deliverables';
import { sendDeliverable } from '../../deliverableDownload';
import { orderReceipt } from '../../../services/receipts';
import type { AppDeps } from '../../context';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import { OperationRouter } from '../../operation';
import { createOrder } from '../../../services/orders';
import { confirmLinkPayment, idempotentOrder, orderCreationPorts, preferWaitSeconds } from '../../orders';
import { idempotentCreation } from '../../../http/idempotency';
import { endpointView } from '../webhooks/view';
import { buyerGate, orderOfPath, paymentGate } from './policy';
import { orderOperations as ops } from './schema';
import { longRunningView, orderView, orderWithLongRunning } from './view';

/** The order routes. */
export function orderRoutes(deps: AppDeps): OperationRouter {
  const longRunning = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const creation = orderCreationPorts(deps);
  const order = { load: orderOfPath(deps) };
  return (
    new OperationRouter(deps)
      .on(ops.create, async (ctx, input) => {
        const { doc, webhook, orderSecret } = await createOrder(creation, {
          ...input.body,
          is_agent: true,
          ...idempotentOrder(idempotentCreation(ctx)),
        });
        ctx.status = 201;
        ctx.set('Location', `/api/v1/orders/${doc._id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          ...orderView(doc, deps),
          ...(orderSecret ? { order_secret: orderSecret } : {}),
          ...(webhook ? { webhook: endpointView(webhook.endpoint, webhook) } : {}),
        };
      })
      .on(ops.get, order, async (ctx, input, loaded) => {
        let doc = loaded;
        // engineering / subscription / tasks of long-running orders (issue 6), present only where they apply.
        const render = async (d: OrderDoc) => {
          // The signed delivery receipt once delivered, the same on every read (issue 12 §3).
          const body = {
            ...orderView(d, deps),
            ...(await longRunningView(deps, d)),
            receipt: await orderReceipt(deps, d),
          };
          return { body, etag: `W/"${sha256Hex(JSON.stringify(body)).slice(0, 32)}"` };
        };
        let view = await render(doc);
        // Long poll (RFC 7240 `Prefer: wait=N` with the ETag the client holds): answer when the order changes,
        // or after N seconds (at most 60) with 304 if it has not.
        const ifNoneMatch = input.headers['If-None-Match'] ?? '';
        const wait = preferWaitSeconds(input.headers.Prefer ?? '');
        if (wait > 0 && etagMatches(ifNoneMatch, view.etag)) {
          const deadline = Date.now() + wait * 1000;
          while (etagMatches(ifNoneMatch, view.etag) && Date.now() < deadline) {
            await deps.services.orders.waitForChange(doc._id, doc.version, deadline - Date.now());
            doc = (await deps.services.orders.get(doc._id)) ?? doc;
            view = await render(doc);
          }
          ctx.set('Preference-Applied', `wait=${wait}`);
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.set('ETag', view.etag);
        if (etagMatches(ifNoneMatch, view.etag)) {
          ctx.status = 304;
          return;
        }
        ctx.body = view.body;
      })
      .on(ops.confirmPayment, paymentGate(deps), async (ctx, input, { order: doc, rail }) => {
        const txId = input.body.transaction_id;
        const confirm = () =>
          deps.orderWorkflows.confirmPayment(doc._id, { rail, ...(txId ? { transaction_id: txId } : {}) });
        // A link payment taken for an order that has closed is given back (issue 36).
        const state = await (rail === 'linkpay_ncp' && txId
          ? confirmLinkPayment(deps, doc._id, txId, confirm)
          : confirm());
        ctx.body = orderView(doc, deps, state);
      })
      .on(ops.review, buyerGate(deps, 'review'), async (ctx, input, doc) => {
        const { action, reason } = input.body;
        const state = await deps.orderWorkflows.review(doc._id, { action, ...(reason ? { reason } : {}) });
        ctx.body = orderView(doc, deps, state);
      })
      .on(ops.verify, order, async (ctx, _input, doc) => {
        if (doc.deliverables.length === 0) throw invalidTransition('verify deliverables', doc.status);
        const self = `${deps.config.PUBLIC_BASE_URL}/api/v1/orders/${doc._id}`;
        const manifest = await Promise.all(
          doc.deliverables.map(async (d) => {
            const stored = await digestStored(deps.services.store, d.sha256);
            const computed = stored?.sha256 ?? null;
            return {
              name: d.name,
              url: `${self}/deliverables/${encodeURIComponent(d.name)}`,
              size: d.size,
              media_type: d.media_type,
              recorded_sha256: d.sha256,
              computed_sha256: computed,
              match: computed === d.sha256 && stored?.size === d.size,
            };
          }),
        );
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          order_id: doc._id,
          status: manifest.every((m) => m.match) ? 'verified' : 'mismatch',
          algorithm: 'sha256',
          verified_at: new Date().toISOString(),
          manifest,
        };
      })
      .on(ops.deliverable, order, async (ctx, { params }, doc) => {
        const d = doc.deliverables.find((x) => x.name === params.name);
        if (!d) throw notFound('deliverable_not_found', `Order ${doc._id} has no deliverable ${params.name}`);
        await sendDeliverable(ctx, deps.services.store, d, { attachment: true });
      })
      .on(ops.events, order, async (ctx, _input, doc) => {
        const events = await deps.services.events.list(doc._id);
        ctx.body = {
          order_id: doc._id,
          events: events.map((e) => ({
            id: e._id,
            seq: e.seq,
            type: e.type,
            data: e.data,
            timestamp: e.created_at.toISOString(),
          })),
        };
      })
      // Expert delivery (issue 6 §1): the buyer may cancel an order past its SLA for a full refund.
      .on(ops.cancel, buyerGate(deps, 'cancel'), async (ctx, input, doc) => {
        const { reason } = input.body;
        if (!doc.engineering) throw invalidTransition('cancel', doc.status);
        const state = await longRunning.cancelOrder(doc._id, reason ? { reason } : {});
        ctx.body = await orderWithLongRunning(deps, doc, state);
      })
  );
}
