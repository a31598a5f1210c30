/**
 * The activity of the ACP checkout session workflow (workflows/checkoutSession.ts, issue 37 §1): settle one session
 * (expire it, or finish a complete left in progress) through the application layer's
 * {@link settleCheckoutSession}, over the ports the worker wires (the same order creation and `confirmPayment` as
 * the API's).
 */
import { settleCheckoutSession, type CheckoutPorts } from '../src/services/checkoutSessions';

/** Builds the checkout session activities over `ports` (without `sessionWorkflow`: the workflow is the caller). */
export function createCheckoutSessionActivities(ports: Omit<CheckoutPorts, 'sessionWorkflow'>) {
  return {
    /** Settles the session: `{done, status}`, or `{done: false, expiresAt}` while it is open and unexpired. */
    settleCheckoutSession: (input: { sessionId: string }) => settleCheckoutSession(ports, input.sessionId),
  };
}

/** The activity interface the session workflow proxies (type only). */
export type CheckoutSessionActivities = ReturnType<typeof createCheckoutSessionActivities>;
