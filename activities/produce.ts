/**
 * Producing a service's deliverables and storing them, shared by the order activities and the per-task ones: the
 * service's generator (language work through the text-generation port), then each file stored content-addressed,
 * with a heartbeat per stored file (a no-op in local activities).
 */
import { produceDeliverables, type DeliverableContext } from '../src/products/deliverables';
import { putAll, type DeliverableStore } from '../src/storage/deliverables';
import type { TextGenerator } from '../src/textgen/port';
import type { DeliverableRecord } from '../src/domain/order';
import type { BookingRepository } from '../src/repos/bookings';
import type { ReceptionistRepository } from '../src/repos/receptionists';
import { receptionistBookingPage } from '../src/products/deliverables/ai-receptionist';
import { asTextGenerationFailure } from './failures';
import { beat } from './heartbeat';

/**
 * Produces the files of `ctx.serviceId` and stores them; returns their records (sha256 hex, size in bytes).
 * @throws ApplicationFailure text_generation_* (retryable or not, as the model's error) for language work.
 */
export async function produceAndStore(
  ctx: DeliverableContext,
  ports: {
    store: DeliverableStore;
    textgen?: TextGenerator;
    bookingPages?: Pick<BookingRepository, 'setContent'>;
    receptionists?: Pick<ReceptionistRepository, 'setContent'>;
  },
): Promise<DeliverableRecord[]> {
  const files = await produceDeliverables(ctx, ports.textgen).catch((err: unknown) => {
    throw asTextGenerationFailure(err);
  });
  // The hosted booking page serves what is delivered: the page's bytes and the config's JSON (issue 38 §2).
  if (ctx.bookingPage && ports.bookingPages && ctx.serviceId === 'website-booking') {
    const html = files.find((f) => f.name === 'website-booking-index.html');
    const config = files.find((f) => f.name === 'website-booking-config.json');
    if (html && config)
      await ports.bookingPages.setContent(
        ctx.bookingPage.id,
        JSON.parse(config.content.toString('utf8')) as Record<string, unknown>,
        html.content.toString('utf8'),
      );
  }
  // The hosted receptionist runs from the delivered config and prompt, and books into its own page (issue 38 §1).
  if (ctx.receptionist && ports.receptionists && ports.bookingPages && ctx.serviceId === 'ai-receptionist') {
    // (Absent `receptionists`: the delivery is recorded already, the hosted receptionist stays as delivered.)
    const config = files.find((f) => f.name === 'ai-receptionist-config.json');
    const prompt = files.find((f) => f.name === 'ai-receptionist-system-prompt.md');
    const page = receptionistBookingPage({ ...ctx, receptionist: ctx.receptionist });
    await ports.bookingPages.setContent(ctx.receptionist.bookingPage.id, page.config, page.html);
    if (config && prompt)
      await ports.receptionists.setContent(
        ctx.receptionist.id,
        JSON.parse(config.content.toString('utf8')) as Record<string, unknown>,
        prompt.content.toString('utf8'),
      );
  }
  // One round trip for the small files (issue 39 §2), then a heartbeat.
  const blobs = await putAll(
    ports.store,
    files.map((f) => f.content),
  );
  beat();
  return files.map((f, i) => ({
    name: f.name,
    sha256: blobs[i]!.sha256,
    size: blobs[i]!.size,
    media_type: f.media_type,
    service_id: ctx.serviceId,
  }));
}
