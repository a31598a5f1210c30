/**
 * The catalogue as an ACP product feed (issue 37 §1; ACP 2026-04-17 `openapi.feed.yaml`, `rfc.product_feeds.md`): one
 * `Product` per catalogue service, with one `Variant` whose id is the service id, the item id a checkout session takes
 * (rfc.product_feeds.md §3.2: "ensure the feed `Variant.id` is accepted as an ACP checkout item ID"). Prices are the
 * agent price a session quotes, in USD cents; feed prices are discovery-time signals, the session's quote binds.
 * Pure: how the feed is published (read, or pushed to a platform's Feed API) is decision 0039.
 */
import { SERVICES, TEXT_GENERATION_MODEL, bundleParts, serviceView, type ServiceDefinition } from './catalogue';
import { usdToMicros } from './money';

/** Feed `Price`: ISO 4217 minor units. */
export interface FeedPrice {
  amount: number;
  currency: string;
}

/** Feed `Variant` (the members this service fills). */
export interface FeedVariant {
  id: string;
  title: string;
  description?: { plain: string };
  url?: string;
  price: FeedPrice;
  list_price?: FeedPrice;
  availability: { available: boolean; status: string };
  categories: { value: string; taxonomy: string }[];
  condition: string[];
  variant_options: { name: string; value: string }[];
  seller: { name: string; links: { type: string; title: string; url: string }[] };
}

/** Feed `Product`. */
export interface FeedProduct {
  id: string;
  title: string;
  description?: { plain: string };
  variants: FeedVariant[];
}

/** Feed `FeedMetadata` of the feed this service publishes. */
export interface FeedMetadata {
  id: string;
  target_country: string;
  updated_at: string;
}

/** The target market of the feed: the catalogue is priced in USD. */
export const FEED_TARGET_COUNTRY = 'US';

/** USD cents of a USD price (exact for the catalogue's cent prices). */
const cents = (usd: number): number => Math.round(usdToMicros(usd) / 10_000);

/**
 * Why a service cannot be bought through a checkout session now, or null: one that needs the text generator is
 * refused without it. (A monthly service sells its first month; renewals are invoices, variant option `Billing`.)
 */
export function checkoutRefusal(service: ServiceDefinition, textgenConfigured: boolean): string | null {
  const needsModel = bundleParts(service).some((p) => p.constraints.requires?.includes(TEXT_GENERATION_MODEL));
  if (needsModel && !textgenConfigured) return 'temporarily_unavailable';
  return null;
}

/** The feed `Product` of one service (its one `Variant` is the service). */
export function feedProduct(service: ServiceDefinition, baseUrl: string, textgenConfigured: boolean): FeedProduct {
  const view = serviceView(service, baseUrl);
  const refusal = checkoutRefusal(service, textgenConfigured);
  const description = service.description ? { description: { plain: service.description } } : {};
  const price = { amount: cents(service.agent_price), currency: 'USD' };
  const list = cents(service.human_price);
  return {
    id: `prod_${service.id}`,
    title: service.name,
    ...description,
    variants: [
      {
        id: service.id,
        title: service.name,
        ...description,
        ...(view.linkpay_url ? { url: view.linkpay_url } : {}),
        price,
        ...(list > price.amount ? { list_price: { amount: list, currency: 'USD' } } : {}),
        availability: { available: refusal === null, status: refusal ?? 'in_stock' },
        categories: [
          { value: `Services > ${service.bundle ? 'Bundles' : 'Automation'}`, taxonomy: 'merchant' },
          ...service.capabilities.slice(0, 5).map((c) => ({ value: `Capabilities > ${c}`, taxonomy: 'merchant' })),
        ],
        condition: ['new'],
        variant_options: [
          { name: 'Billing', value: service.billing },
          { name: 'Fulfillment', value: service.estimated_fulfillment },
          { name: 'SLA', value: service.sla },
        ],
        seller: {
          name: 'Agent Commerce',
          links: [{ type: 'support', title: 'Service catalogue', url: `${baseUrl}/api/v1/services` }],
        },
      },
    ],
  };
}

/** Every catalogue service as a feed `Product`, in catalogue order. */
export function feedProducts(baseUrl: string, textgenConfigured: boolean): FeedProduct[] {
  return SERVICES.map((s) => feedProduct(s, baseUrl, textgenConfigured));
}
