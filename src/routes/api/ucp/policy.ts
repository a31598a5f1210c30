/**
 * Who may act on UCP checkout sessions (issue 37 §2): the platform whose signed request src/http/ucp.ts verified
 * against its profile (none → 401 there, before the route), on its own sessions only: another platform's session is
 * not found (404), as an unknown one, so a session id reveals nothing to a stranger.
 */
import type { CheckoutSessionDoc } from '../../../db';
import { problem } from '../../../errors';
import type { CheckoutSessionRepository } from '../../../repos/checkoutSessions';
import { ucpPlatformId } from '../../../services/ucpCheckout';
import { refuse, type Actor, type Refusal } from '../../gate';
import type { RawRequest } from '../../operation';

/** What a UCP gate resolves: the platform's profile URL (set by `authorize`) and the session of the path. */
export interface UcpCaller {
  profileUrl: string;
  session: CheckoutSessionDoc | null;
}

/** The verified profile of `actor`, or the refusal (the middleware refuses unsigned requests first). */
const platformOf = (actor: Actor): string | Refusal =>
  actor.ucpProfile ??
  refuse(actor, 'Sign the request with a key of your UCP profile', 'The request is not signed by a UCP platform');

/** The gate of `POST /checkout-sessions`. */
export function ucpPlatformGate() {
  return {
    load: (): UcpCaller => ({ profileUrl: '', session: null }),
    authorize(actor: Actor, caller: UcpCaller): 'ucp_platform' | Refusal {
      const profile = platformOf(actor);
      if (typeof profile !== 'string') return profile;
      caller.profileUrl = profile;
      return 'ucp_platform';
    },
  };
}

/** The gate of an operation on the session of the path: the platform's own session (404 `checkout_session_not_found`). */
export function ucpSessionGate(repo: CheckoutSessionRepository) {
  return {
    async load(_input: unknown, raw: RawRequest): Promise<UcpCaller> {
      const id = raw.params.id ?? '';
      return { profileUrl: '', session: id.length <= 128 ? await repo.get(id) : null };
    },
    authorize(actor: Actor, caller: UcpCaller): 'ucp_platform' | Refusal {
      const profile = platformOf(actor);
      if (typeof profile !== 'string') return profile;
      if (!caller.session || caller.session.platform_id !== ucpPlatformId(profile))
        throw problem('checkout_session_not_found', 'No checkout session of this platform by that id');
      caller.profileUrl = profile;
      return 'ucp_platform';
    },
  };
}

/**
 * The gate of Get Order: any verified platform passes; the session the order came from is loaded only when it is
 * this platform's (else null, answered `not_found` as an unknown order: an order id reveals nothing to a stranger).
 */
export function ucpOrderGate(repo: CheckoutSessionRepository) {
  return {
    async load(_input: unknown, raw: RawRequest): Promise<UcpCaller> {
      const id = raw.params.id ?? '';
      return { profileUrl: '', session: id.length <= 128 ? await repo.ofOrder(id) : null };
    },
    authorize(actor: Actor, caller: UcpCaller): 'ucp_platform' | Refusal {
      const profile = platformOf(actor);
      if (typeof profile !== 'string') return profile;
      if (caller.session && caller.session.platform_id !== ucpPlatformId(profile)) caller.session = null;
      caller.profileUrl = profile;
      return 'ucp_platform';
    },
  };
}
