/**
 * Who the human on a payment page is (issue 10 §1, issue 13; issue 27 §1). The human buyer's credential is the order
 * secret carried in the link `/pay/orders/{order_id}?secret=os_...` (a capability link, shown on the receipt to
 * keep): with it the order page shows the files and offers accept / reject, and the review form is accepted.
 */
import type { OrderDoc } from '../../../db';
import { getService, type ServiceDefinition } from '../../../domain/catalogue';
import { ProblemError } from '../../../errors';
import { orderSecretMatches } from '../../../http/buyer';
import type { Refusal } from '../../gate';
import type { RawRequest } from '../../operation';

/** An order secret from a query or form value (`os_` and 20 to 64 base64url characters), or undefined. */
export const secretOf = (v: unknown): string | undefined =>
  typeof v === 'string' && /^os_[A-Za-z0-9_-]{20,64}$/.test(v) ? v : undefined;

/**
 * Who the holder of `given` (a query or form value) is to `order`: `buyer` (its order secret), `wrong` (another
 * value), `none` (no value). Decides what an order page shows; it refuses nothing.
 */
export function linkHolder(order: Pick<OrderDoc, 'buyer_secret_hash'>, given: unknown): 'buyer' | 'wrong' | 'none' {
  if (typeof given !== 'string' || given === '') return 'none';
  return orderSecretMatches(order.buyer_secret_hash, secretOf(given)) ? 'buyer' : 'wrong';
}

/**
 * The human buyer's right to review `order` from the form (`auth: 'order_secret'`): its order secret in `secret`.
 * No secret is 401; any other value (malformed or not) is someone else's credential: 403. Both answers keep
 * `Referrer-Policy: no-referrer`, as every answer to a request carrying the secret does.
 */
export function orderSecretHolder(order: OrderDoc, form: unknown): 'order_secret' | Refusal {
  const given = (form as { secret?: unknown } | null)?.secret;
  const holder = linkHolder(order, given);
  if (holder === 'buyer') return 'order_secret';
  const headers = { 'Referrer-Policy': 'no-referrer' };
  return holder === 'none'
    ? { refused: 401, detail: `Reviewing order ${order._id} needs the link with its order secret`, headers }
    : { refused: 403, detail: `Only the buyer may review order ${order._id}`, headers };
}

/**
 * Loader of the service of the path (`{service_id}`) sold through a payment link.
 * @throws ProblemError 404 `service_not_found` (unknown, or not sold through a link).
 */
export function linkServiceOfPath(_input: unknown, raw: RawRequest): ServiceDefinition {
  const service = getService(raw.params.service_id ?? '');
  if (!service || service.linkpay_url === null)
    throw new ProblemError(404, 'service_not_found', `No payment link for ${raw.params.service_id}`);
  return service;
}
