/**
 * Who calls, and what a policy says about it (issue 27 §1: the operation definition is the gate). For every request,
 * the router (src/routes/operation.ts) reads the {@link Actor} from the credential headers, loads the resource the
 * operation acts on, asks the operation's policy for a {@link Verdict} and answers a {@link Refusal} (401 when no
 * credential was sent, 403 when one was but it is not the right one) before the handler runs.
 *
 * Policies live with their resource, `src/routes/api/<resource>/policy.ts`, as Outline's `server/policies/` do; each
 * returns the declared auth kind that grants the request (the router refuses a kind the definition does not declare).
 */
import type { Context } from 'koa';
import { forbidden, unauthorized, type ProblemError } from '../errors';
import { bearerToken, hasCredential, isOperator } from '../http/auth';
import { ucpPlatformOf } from '../http/ucp';

/** The caller as its credential headers say, before any lookup. */
export interface Actor {
  /** The operator key was sent (`Authorization: Bearer` or `X-Operator-Key`). */
  readonly operator: boolean;
  /** The Bearer token, if any: an agent key (`ak_`), an order secret (`os_`), a management token (`wht_`), ... */
  readonly token: string | undefined;
  /** Some credential was sent (a Bearer token or `X-Operator-Key`): a refusal is then 403, not 401. */
  readonly credentialed: boolean;
  /** The UCP platform's profile URL, when the request's RFC 9421 signature verified against it (src/http/ucp.ts). */
  readonly ucpProfile?: string | undefined;
}

/** The actor of a request; `operatorKey` is the configured OPERATOR_KEY (none: nobody is the operator). */
export function actorOf(ctx: Context, operatorKey: string | undefined): Actor {
  const ucpProfile = ucpPlatformOf(ctx)?.profileUrl;
  return {
    operator: isOperator(ctx, operatorKey),
    token: bearerToken(ctx),
    credentialed: hasCredential(ctx) || ucpProfile !== undefined,
    ucpProfile,
  };
}

/** A policy's refusal: 401 `unauthorized` (with `WWW-Authenticate: Bearer`) or 403 `forbidden`, and its detail. */
export interface Refusal {
  readonly refused: 401 | 403;
  readonly detail: string;
  /** Headers of the answer beside the problem's own (e.g. `Referrer-Policy` where the request carried a secret). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a policy decides: the auth kind that grants the request (one its definition declares), or a refusal. */
export type Verdict<K extends string> = K | Refusal;

/**
 * The refusal of `actor`: 401 with `missing` (what to send) when it sent no credential, else 403 with `wrong` (why
 * the credential sent is not it).
 */
export function refuse(actor: Pick<Actor, 'credentialed'>, missing: string, wrong: string): Refusal {
  return actor.credentialed ? { refused: 403, detail: wrong } : { refused: 401, detail: missing };
}

/** True when `v` is a refusal. */
export function isRefusal(v: unknown): v is Refusal {
  return typeof v === 'object' && v !== null && 'refused' in v;
}

/** The problem a refusal answers: 401 `unauthorized` or 403 `forbidden` (src/errors.ts), with its headers. */
export function refusalProblem(r: Refusal): ProblemError {
  const p = r.refused === 401 ? unauthorized(r.detail) : forbidden(r.detail);
  if (r.headers) Object.assign(p.headers, r.headers);
  return p;
}

/**
 * The operator's right: the operator key, or the refusal (401 without a credential, 403 with another). `hint` is
 * appended to the detail (where a caller without the key can look instead).
 */
export function operatorOnly(actor: Actor, hint = ''): Verdict<'operator'> {
  if (actor.operator) return 'operator';
  return refuse(
    actor,
    `This operation needs the operator key${hint}`,
    `This operation needs the operator key; the credential sent is not it${hint}`,
  );
}
