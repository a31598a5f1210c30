/**
 * What the x402 routes load and who reads the ledger (seed §2.12, §6.3; issue 3; issue 10 §2; issue 27 §1):
 * - the goods a paid request names (a micro item by its path, a template by its `sku`), looked up as sent: an id that
 *   cannot exist finds nothing (404), as an unknown one does, and no payment is asked for it;
 * - the ledger: the full list is the operator's; anyone may look up one payment by its transaction hash (public on
 *   chain anyway) or its payment id, shown in the public form (./view.ts `publicPaymentView`: no order id, no
 *   resource path naming the order, no internal error text; issue 36 §2).
 */
import { z } from 'zod';
import { getMicroItem } from '../../../products/micro';
import { getTemplate } from '../../../products/x402/templates';
import { problem } from '../../../errors';
import { operatorOnly, type Actor, type Verdict } from '../../gate';
import type { RawRequest } from '../../operation';

const ItemIdParam = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+$/);
const SkuParam = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9-]+$/);

/** A micro item of the catalogue (src/products/micro). */
export type MicroItem = NonNullable<ReturnType<typeof getMicroItem>>;
/** An automation template (src/products/x402/templates.ts). */
export type Template = NonNullable<ReturnType<typeof getTemplate>>;

/**
 * Loader of the micro item of the path (`{id}`); `base` is the public base URL the refusal points at.
 * @throws ProblemError 404 `item_not_found` with `catalogue`.
 */
export const itemOfPath =
  (base: string) =>
  (_input: unknown, raw: RawRequest): MicroItem => {
    const id = ItemIdParam.safeParse(raw.params.id);
    const found = id.success ? getMicroItem(id.data) : undefined;
    if (!found)
      throw problem('item_not_found', `No micro item ${raw.params.id}; see ${base}/api/v1/x402/micro`, {
        catalogue: `${base}/api/v1/x402/micro`,
      });
    return found;
  };

/**
 * Loader of the template `?sku=` names; `base` is the public base URL the refusals point at.
 * @throws ProblemError 400 `invalid_request` without a sku, 404 `template_not_found`, both with `catalogue`.
 */
export const templateOfQuery =
  (base: string) =>
  (_input: unknown, raw: RawRequest): Template => {
    const given = raw.query.sku;
    if (given === undefined || given === '') {
      throw problem(
        'invalid_request',
        `Name a template: GET /x402/template?sku=<sku>. Skus and prices: ${base}/api/v1/x402/templates`,
        { param: 'sku', catalogue: `${base}/api/v1/x402/templates` },
      );
    }
    const sku = SkuParam.safeParse(given);
    const t = sku.success ? getTemplate(sku.data) : undefined;
    if (!t)
      throw problem('template_not_found', `No template ${String(given)}; see ${base}/api/v1/x402/templates`, {
        param: 'sku',
        catalogue: `${base}/api/v1/x402/templates`,
      });
    return t;
  };

/**
 * Who reads the ledger (`auth: ['none', 'operator']`): the operator, everything; anyone, a `?transaction=` lookup;
 * otherwise the operator's refusal pointing at those lookups (401 / 403).
 */
export function ledgerReader(
  actor: Actor,
  _resource: unknown,
  input: { readonly query: { transaction?: string | undefined } },
): Verdict<'none' | 'operator'> {
  if (actor.operator) return 'operator';
  if (input.query.transaction) return 'none';
  return operatorOnly(
    actor,
    ' (the full ledger); look up your own payment by ?transaction=<hash> or GET /api/v1/x402/payments/{payment_id}',
  );
}
