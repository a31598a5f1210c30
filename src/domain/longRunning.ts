/**
 * Terms of the long-running orders (issue 6), derived from the catalogue when an order is created and handed to its
 * workflow: the SLA clock of expert delivery and the billing terms of monthly subscriptions. Pure, no I/O.
 *
 * Source: seed §2.1 (`automation_level` expert_delivery, `max_fulfillment_hours`, `billing` monthly / per_task);
 * issue 6 §1 (escalation at 80%), §2 (dunning: three retries over a week).
 */
import { isExpertService, type ServiceDefinition } from './catalogue';
import type { OrderWorkflowInput } from './order';
import type { SubscriptionTerms } from './order';

/** Share of `max_fulfillment_hours` after which an expert order is escalated (issue 6 §1). */
export const SLA_ESCALATION_PERCENT = 80;

const DAY = 24 * 3600;

/** Dunning: a refused renewal is retried 1, 3 and 7 days after the renewal, then the subscription is suspended. */
export const DUNNING_RETRY_SECONDS: readonly number[] = [1 * DAY, 3 * DAY, 7 * DAY];

/** Invoices of renewals on rails that cannot be debited are due 7 days after the renewal. */
export const INVOICE_DUE_SECONDS = 7 * DAY;

/** True for services billed per task (seed §2.1 `billing: per_task`, task-worker): one order buys one task. */
export const isPerTaskService = (service: ServiceDefinition): boolean => service.billing === 'per_task';

/** The subscription terms of monthly services (seed §2.1 `billing: monthly`), else undefined. */
export function subscriptionTerms(service: ServiceDefinition): SubscriptionTerms | undefined {
  if (service.billing !== 'monthly') return undefined;
  return { interval: 'month', retryAfterSeconds: [...DUNNING_RETRY_SECONDS], invoiceDueSeconds: INVOICE_DUE_SECONDS };
}

/**
 * The long-running parts of an order's workflow input: `expert` for expert_delivery services (SLA =
 * max_fulfillment_hours from payment), `subscription` for monthly services (`renewal: invoice` when
 * `renewalByInvoice`: a checkout session's order). Empty for every other service.
 */
export function longRunningTerms(
  service: ServiceDefinition,
  { renewalByInvoice = false }: { renewalByInvoice?: boolean } = {},
): Pick<OrderWorkflowInput, 'expert' | 'subscription'> {
  const terms = subscriptionTerms(service);
  const subscription = terms && renewalByInvoice ? { ...terms, renewal: 'invoice' as const } : terms;
  return {
    ...(isExpertService(service)
      ? { expert: { maxFulfillmentHours: service.max_fulfillment_hours, escalateAtPercent: SLA_ESCALATION_PERCENT } }
      : {}),
    ...(subscription ? { subscription } : {}),
  };
}
