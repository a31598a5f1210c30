/**
 * Deliverables of a bundle itself: a manifest listing every part's files with their sha256 and
 * size (with an embedded README), plus — for callers that store more than one file — a README and
 * a `sha256sum -c` compatible checksum list.
 *
 * Source: seed §1 (deliverables and checksums), §2.1 (bundles and `includes`), §2.10 (provenance).
 */
import { getService } from '../../domain/catalogue';
import { BOOKING_ENDPOINT_HOWTO, BOOKING_SECRET_ENV } from './automation-wf';
import { N8N_HOST, bundleWiring } from './booking';
import type { DeliverableContext, DeliverableFile } from './types';
import { MEDIA_TEXT, isSafeFileName, jsonFile, lines, markdownFile, md, mdFooter, mdTable, textFile } from './util';

/** One stored part file as the caller recorded it. */
export interface BundlePartFile {
  /** File name as produced by the part's generator. */
  name: string;
  /** Lower-case hex sha256 of the stored bytes. */
  sha256: string;
  /** Size in bytes. */
  size: number;
}

/** All stored files of one included service. */
export interface BundlePart {
  serviceId: string;
  files: BundlePartFile[];
}

function normalise(ctx: DeliverableContext, parts: BundlePart[]): BundlePart[] {
  const order = getService(ctx.serviceId)?.includes ?? [];
  const rank = (id: string): number => {
    const i = order.indexOf(id);
    return i === -1 ? order.length : i;
  };
  return [...parts]
    .sort((a, b) => rank(a.serviceId) - rank(b.serviceId) || a.serviceId.localeCompare(b.serviceId))
    .map((p) => ({
      serviceId: p.serviceId,
      files: [...p.files]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((f) => ({ name: f.name, sha256: f.sha256.toLowerCase(), size: f.size })),
    }));
}

/** One connection between two delivered parts. */
export interface BundleConnection {
  from: string;
  to: string;
  how: string;
}

/**
 * How the bundle's parts connect (issue 13): the booking page and the receptionist's booking tool post to one
 * endpoint, the workflow (when the bundle has one) listens there and logs each booking; store-pack's workflow also
 * logs the store's orders. Null for bundles without a booking page.
 */
export function bundleConnections(
  ctx: Pick<DeliverableContext, 'orderId' | 'serviceId' | 'bookingPage'>,
): { booking_endpoint: string; connections: BundleConnection[]; steps: string[] } | null {
  const w = bundleWiring({
    orderId: ctx.orderId,
    bundleId: ctx.serviceId,
    ...(ctx.bookingPage ? { bookingPage: ctx.bookingPage } : {}),
  });
  if (!w) return null;
  const includes = getService(ctx.serviceId)?.includes ?? [];
  const to = w.hosted
    ? `the hosted booking page's backend (${w.hosted.url}): availability, atomic booking, the owner notified by signed webhook and e-mail`
    : w.bookingWebhookPath
      ? `automation-wf: webhook ${w.bookingWebhookPath} in automation-wf-workflow.json`
      : 'your site: POST /api/bookings (see website-booking-readme.md)';
  const connections: BundleConnection[] = [
    {
      from: 'website-booking: the booking form in website-booking-index.html',
      to,
      how: `POST ${w.bookingEndpoint}, JSON as website-booking-config.json endpoint.payload_schema`,
    },
    ...(includes.includes('ai-receptionist')
      ? [
          {
            from: 'ai-receptionist: tool create_booking_request (ai-receptionist-config.json tools[0])',
            to,
            how: `POST ${w.bookingEndpoint}, the same JSON as the form`,
          },
        ]
      : []),
    ...(w.hosted && w.bookingWebhookPath
      ? [
          {
            from: "the hosted booking page's booking.created webhook",
            to: `automation-wf: webhook ${w.bookingWebhookPath} in automation-wf-workflow.json`,
            how: `signed POST (Standard Webhooks), verified by the workflow with ${BOOKING_SECRET_ENV}`,
          },
        ]
      : []),
    ...(w.bookingWebhookPath
      ? [
          {
            from: 'automation-wf: the bookings flow',
            to: 'the target app (Google Sheets unless the order named another), tab "Bookings"',
            how: 'one row per booking',
          },
        ]
      : []),
    ...(w.orderFlow
      ? [
          {
            from: 'the store platform (Shopify orders/create unless the order named another)',
            to: 'automation-wf: the orders flow, tab "Orders"',
            how: 'one row per order',
          },
        ]
      : []),
  ];
  const steps = [
    ...(w.hosted
      ? [
          `The booking page is live at ${w.hosted.url}; issue its owner key (POST /api/v1/orders/{order_id}/booking-page/owner-key with your buyer credential) to read and cancel bookings.`,
          ...(w.bookingWebhookPath
            ? [
                `To log bookings in n8n, import automation-wf-workflow.json, register its bookings webhook ${w.workflowWebhookUrl ?? ''} (replace ${N8N_HOST}) as a webhook endpoint for booking.created (${BOOKING_ENDPOINT_HOWTO}), set n8n's ${BOOKING_SECRET_ENV} to the endpoint's whsec_… secret and NODE_FUNCTION_ALLOW_BUILTIN=crypto, then activate it: every booking is then sent to it signed, and verified there.`,
              ]
            : []),
        ]
      : w.bookingWebhookPath
        ? [
            'Import automation-wf-workflow.json into n8n, add the credentials it asks for and activate it.',
            `Replace ${N8N_HOST} with your n8n host in website-booking-index.html (form data-endpoint), website-booking-config.json and ai-receptionist-config.json.`,
          ]
        : ["Serve POST /api/bookings on the booking page's site (website-booking-readme.md, step 2)."]),
    'Publish website-booking-index.html; make a test booking from the page and one through the receptionist; check both arrive.',
  ];
  return { booking_endpoint: w.bookingEndpoint, connections, steps };
}

function readme(ctx: DeliverableContext, parts: BundlePart[]): string {
  const service = getService(ctx.serviceId);
  const includes = service?.includes ?? [];
  const delivered = new Set(parts.map((p) => p.serviceId));
  const missing = includes.filter((id) => !delivered.has(id));
  const files = parts.flatMap((p) => p.files.map((f) => ({ ...f, serviceId: p.serviceId })));
  return lines(
    `# ${md(service?.name ?? ctx.serviceId)}: delivery`,
    '',
    `This bundle contains ${parts.length} service${parts.length === 1 ? '' : 's'} and ${files.length} file${files.length === 1 ? '' : 's'}.`,
    missing.length > 0 ? `\nNot included in this delivery: ${missing.map((m) => `\`${m}\``).join(', ')}.` : null,
    '',
    ...wiringSection(ctx),
    ...parts.flatMap((p) => [
      `## ${md(getService(p.serviceId)?.name ?? p.serviceId)} (\`${p.serviceId}\`)`,
      '',
      mdTable(
        ['File', 'Bytes', 'sha256'],
        p.files.map((f) => [f.name, f.size, f.sha256]),
      ),
      '',
    ]),
    '## Verify',
    '',
    "Each file's sha256 is also published by `GET /api/v1/orders/{order_id}/verification`. With the files in one folder:",
    '',
    '```sh',
    'sha256sum -c SHA256SUMS',
    '```',
    '',
    `where \`SHA256SUMS\` holds one \`<sha256>  <file name>\` line per file: the manifest's \`sha256sums\` list, also delivered as \`${safeId(ctx.serviceId)}-sha256sums.txt\` where the bundle's files are stored together.`,
    mdFooter(ctx),
  );
}

function wiringSection(ctx: DeliverableContext): string[] {
  const c = bundleConnections(ctx);
  if (!c) return [];
  return [
    '## How the parts connect',
    '',
    mdTable(
      ['From', 'To', 'How'],
      c.connections.map((x) => [x.from, x.to, x.how]),
    ),
    '',
    ...c.steps.map((step, i) => `${i + 1}. ${md(step)}`),
    '',
  ];
}

/**
 * The bundle's manifest, `<bundle-id>-manifest.json`: order, bundle, issued time, every part's files
 * (name, sha256, size) in the bundle's `includes` order, totals, the checksum lines and an embedded
 * Markdown README. Deterministic: parts and files are sorted, so the same records always give the
 * same bytes.
 *
 * @param ctx - context of the bundle order (`serviceId` is the bundle id).
 * @param parts - stored files per included service.
 * Source: seed §1, §2.1, §2.10.
 */
export function bundleManifest(ctx: DeliverableContext, parts: BundlePart[]): DeliverableFile {
  const sorted = normalise(ctx, parts);
  const service = getService(ctx.serviceId);
  const files = sorted.flatMap((p) => p.files);
  return jsonFile(`${safeId(ctx.serviceId)}-manifest.json`, {
    schema: 'agent-commerce/bundle-manifest@1',
    order_id: ctx.orderId,
    bundle_id: ctx.serviceId,
    bundle_name: service?.name ?? null,
    issued_at: ctx.issuedAt,
    includes: service?.includes ?? sorted.map((p) => p.serviceId),
    parts: sorted.map((p) => ({ service_id: p.serviceId, files: p.files })),
    totals: { parts: sorted.length, files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) },
    wiring: bundleConnections(ctx),
    checksum_algorithm: 'sha256',
    sha256sums: files.map((f) => `${f.sha256}  ${f.name}`),
    readme: readme(ctx, sorted),
  });
}

/**
 * All the bundle's own files: the manifest ({@link bundleManifest}), `<bundle-id>-readme.md` and
 * `<bundle-id>-sha256sums.txt` (`sha256sum -c` format).
 * Source: seed §1, §2.1, §2.10.
 */
export function bundleDeliverables(ctx: DeliverableContext, parts: BundlePart[]): DeliverableFile[] {
  const sorted = normalise(ctx, parts);
  const id = safeId(ctx.serviceId);
  return [
    bundleManifest(ctx, sorted),
    markdownFile(`${id}-readme.md`, readme(ctx, sorted)),
    textFile(
      `${id}-sha256sums.txt`,
      MEDIA_TEXT,
      sorted.flatMap((p) => p.files.map((f) => `${f.sha256}  ${f.name}`)).join('\n'),
    ),
  ];
}

function safeId(id: string): string {
  const s =
    id
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'bundle';
  return isSafeFileName(s) ? s : 'bundle';
}
