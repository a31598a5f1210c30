import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** The bearer token of `Authorization: Bearer <token>`, if any. */
export function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m?.[1];
}

/** True when the request carries the operator key (`Authorization: Bearer <OPERATOR_KEY>` or `X-Operator-Key`). */
export function isOperator(ctx: Context, operatorKey: string | undefined): boolean {
  if (!operatorKey) return false;
  const given = ctx.get('x-operator-key') || bearerToken(ctx);
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(operatorKey);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when the request carries any credential (a Bearer token or X-Operator-Key): 403, not 401, when it is wrong. */
export function hasCredential(ctx: Context): boolean {
  return !!ctx.get('x-operator-key') || bearerToken(ctx) !== undefined;
}
