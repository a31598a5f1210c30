/**
 * Order routes (seed §2.3 to §2.5, §2.10, §4; issue 2 §4), registered from their definitions in ./schema.ts.
 * Creating an order is src/services/orders.ts; loading and the public view are src/routes/orders.ts.
 */
import type { Context } from 'koa';
import type { OrderDoc } from '../../../db';
import { invalidTransition, notFound, problem } from '../../../errors';
import { etagMatches } from '../../../http/cachedJson';
import { requireBuyer } from '../../../http/buyer';
import { digestStored, sha256Hex } from '../../../storage/deliverables';
import { sendDeliverable } from '../../deliverableDownload';
import { orderReceipt } from '../../../services/receipts';
import type { PaymentRail } from '../../../../workflows/shared';
import type { AppDeps } from '../../context';
import { longRunningView, orderWithLongRunning } from '../../longRunningView';
import { LongRunningWorkflows } from '../../../temporal/longRunning';
import { OperationRouter } from '../../operation';
import { createOrder } from '../../../services/orders';
import { inferRail, loadOrder, orderCreationPorts, orderView, preferWaitSeconds } from '../../orders';
import { endpointView } from '../webhooks';
import { orderOperations as ops } from './schema';

/**
 * Spending a wallet needs its agent key (`Authorization: Bearer ak_...`); nobody else, operators included, can.
 * @throws ProblemError 401 without a key, 403 with a wrong one, 422 `payment_failed` when the order names no agent.
 */
async function authorizeWalletSpend(ctx: Context, deps: AppDeps, order: OrderDoc): Promise<void> {
  if (!order.agent_id)
    throw problem(
      'payment_failed',
      'The order has no agent_id, so no wallet can pay it',
      { param: 'rail' },
      { status: 422 },
    );
  await requireBuyer(ctx, deps.services.wallets, order, `pay from wallet ${order.agent_id}`);
}

/** The order routes. */
export function orderRoutes(deps: AppDeps): OperationRouter {
  const longRunning = new LongRunningWorkflows(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE);
  const creation = orderCreationPorts(deps);
  return (
    new OperationRouter(deps)
      .on(ops.create, async (ctx, input) => {
        const { doc, webhook, orderSecret } = await createOrder(creation, { ...input.body, is_agent: true });
        ctx.status = 201;
        ctx.set('Location', `/api/v1/orders/${doc._id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          ...orderView(doc, deps),
          ...(orderSecret ? { order_secret: orderSecret } : {}),
          ...(webhook ? { webhook: endpointView(webhook.endpoint, webhook) } : {}),
        };
      })
      .on(ops.get, async (ctx) => {
        let doc = await loadOrder(deps, ctx.params.order_id);
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
        const ifNoneMatch = ctx.get('if-none-match');
        const wait = preferWaitSeconds(ctx.get('prefer'));
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
      .on(ops.confirmPayment, async (ctx, input) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
        const body = input.body;
        const rail = (body.rail as PaymentRail | undefined) ?? inferRail(body.transaction_id);
        if (!doc.rails.includes(rail)) {
          throw problem(
            'rail_not_offered',
            `${doc.service_id} is not sold on ${rail}; rails: ${doc.rails.join(', ')}`,
            { param: 'rail', rails: doc.rails },
          );
        }
        if (rail === 'agent_wallet') await authorizeWalletSpend(ctx, deps, doc);
        const state = await deps.orderWorkflows.confirmPayment(doc._id, {
          rail,
          ...(body.transaction_id ? { transaction_id: body.transaction_id } : {}),
        });
        ctx.body = orderView(doc, deps, state);
      })
      .on(ops.review, async (ctx, input) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
        await requireBuyer(ctx, deps.services.wallets, doc, 'review');
        const { action, reason } = input.body;
        const state = await deps.orderWorkflows.review(doc._id, { action, ...(reason ? { reason } : {}) });
        ctx.body = orderView(doc, deps, state);
      })
      .on(ops.verify, async (ctx) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
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
      .on(ops.deliverable, async (ctx) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
        const d = doc.deliverables.find((x) => x.name === ctx.params.name);
        if (!d) throw notFound('deliverable_not_found', `Order ${doc._id} has no deliverable ${ctx.params.name}`);
        await sendDeliverable(ctx, deps.services.store, d, { attachment: true });
      })
      .on(ops.events, async (ctx) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
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
      .on(ops.cancel, async (ctx, input) => {
        const doc = await loadOrder(deps, ctx.params.order_id);
        await requireBuyer(ctx, deps.services.wallets, doc, 'cancel');
        const { reason } = input.body;
        if (!doc.engineering) throw invalidTransition('cancel', doc.status);
        const state = await longRunning.cancelOrder(doc._id, reason ? { reason } : {});
        ctx.body = await orderWithLongRunning(deps, doc, state);
      })
  );
}
