/**
 * Loading an order and who may act on it (issue 10 §1; issue 27 §1). Reading an order by its 128-bit id is a
 * capability; every action that changes it needs the buyer's credential as `Authorization: Bearer <token>`: the agent
 * key of its `agent_id`, or (an order without one) the order secret returned once at creation (src/http/buyer.ts).
 * None is 401; any other credential (another agent's key, the operator key) is 403.
 */
import type { OrderDoc } from '../../../db';
import { notFound, problem } from '../../../errors';
import { isBuyer, type WalletKeys } from '../../../http/buyer';
import type { PaymentRail } from '../../../domain/order';
import type { AppDeps } from '../../context';
import { refuse, type Actor, type Refusal } from '../../gate';
import type { RawRequest } from '../../operation';
import { inferRail } from '../../orders';
import { OrderIdParam, type ConfirmPaymentRequest } from './schema';

/**
 * The order `orderId` names, looked up by the id as sent: an id that cannot be an order id is not found, as an unknown
 * one is (src/routes/api/fields.ts OrderPath). @throws ProblemError 404 `order_not_found`.
 */
export async function loadOrder(deps: Pick<AppDeps, 'services'>, orderId: string | undefined): Promise<OrderDoc> {
  const id = OrderIdParam.safeParse(orderId);
  const doc = id.success ? await deps.services.orders.get(id.data) : null;
  if (!doc) throw notFound('order_not_found', `No order ${orderId}`);
  return doc;
}

/** Loader of the order of the path (`{order_id}`). @throws ProblemError 404 `order_not_found`. */
export const orderOfPath =
  (deps: Pick<AppDeps, 'services'>) =>
  (_input: unknown, raw: RawRequest): Promise<OrderDoc> =>
    loadOrder(deps, raw.params.order_id);

/**
 * The buyer's right to `action` `order` (the words of the messages), granted as `grant`: the kind the operation
 * declares for it (`buyer`, or `agent_key` where the buyer's credential is the agent key that spends its wallet).
 * @returns `grant`, or the refusal: 401 without a credential, 403 with one that is not the buyer's.
 */
export async function buyerOf<K extends 'buyer' | 'agent_key' = 'buyer'>(
  wallets: WalletKeys,
  actor: Actor,
  order: OrderDoc,
  action: string,
  grant: K = 'buyer' as K,
): Promise<K | Refusal> {
  if (await isBuyer(wallets, order, actor.token)) return grant;
  const credential = order.agent_id
    ? `the agent key of wallet ${order.agent_id}`
    : 'the order secret returned when the order was created';
  return refuse(
    actor,
    `To ${action} order ${order._id}, send ${credential} as a Bearer token`,
    `Only the buyer may ${action} order ${order._id}; the credential sent is not ${credential}`,
  );
}

/**
 * The gate of an operation only the buyer may perform on the order of its path (`auth: 'buyer'`): the order loaded
 * (404), then the buyer's credential (401 / 403). `action` words the refusals ("review", "cancel", ...).
 */
export function buyerGate(deps: Pick<AppDeps, 'services'>, action: string) {
  return {
    load: orderOfPath(deps),
    authorize: (actor: Actor, order: OrderDoc) => buyerOf(deps.services.wallets, actor, order, action),
  };
}

/** An order about to be paid, and the rail the request pays it on. */
export interface PaymentTarget {
  order: OrderDoc;
  rail: PaymentRail;
}

/**
 * The gate of `confirm_payment` (`auth: ['none', 'agent_key']`): the order (404), the body (400), the rail offered
 * (422 `rail_not_offered`; agent_wallet on an order without agent 422 `payment_failed`); then only the agent_wallet
 * rail needs a credential: the agent key of the order's wallet (401 / 403), nobody else's, operators' included.
 */
export function paymentGate(deps: Pick<AppDeps, 'services'>) {
  return {
    async load(input: { readonly body: ConfirmPaymentRequest }, raw: RawRequest): Promise<PaymentTarget> {
      const order = await loadOrder(deps, raw.params.order_id);
      const body = input.body;
      const rail = (body.rail as PaymentRail | undefined) ?? inferRail(body.transaction_id);
      if (!order.rails.includes(rail)) {
        throw problem(
          'rail_not_offered',
          `${order.service_id} is not sold on ${rail}; rails: ${order.rails.join(', ')}`,
          {
            param: 'rail',
            rails: order.rails,
          },
        );
      }
      if (rail === 'agent_wallet' && !order.agent_id)
        throw problem(
          'payment_failed',
          'The order has no agent_id, so no wallet can pay it',
          { param: 'rail' },
          { status: 422 },
        );
      return { order, rail };
    },
    authorize: async (actor: Actor, { order, rail }: PaymentTarget) =>
      rail === 'agent_wallet'
        ? buyerOf(deps.services.wallets, actor, order, `pay from wallet ${order.agent_id}`, 'agent_key')
        : ('none' as const),
  };
}
