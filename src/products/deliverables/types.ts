/**
 * Types shared by the deliverable generators.
 *
 * Source: seed §1 (deliverables and their checksums), §2.1 (inputs per service).
 */

/** One input value as an order carries it (a list input may be an array or a comma-separated string). */
export type InputValue = string | number | boolean | string[];

/**
 * One generated file. `content` is the exact bytes to store and hash (sha256 over `content`).
 * `name` is a flat file name (no path separators), unique within an order.
 */
export interface DeliverableFile {
  /** Flat file name, `[a-z0-9][a-z0-9._-]*`, prefixed with the service id. */
  name: string;
  /** Media type, e.g. `application/json`, `text/markdown; charset=utf-8`. */
  media_type: string;
  /** File bytes (UTF-8 text for every generator here). */
  content: Buffer;
}

/**
 * Everything a generator may depend on. Generators are pure: the same context always yields
 * byte-identical files, so a retried activity reproduces the same checksums.
 */
export interface DeliverableContext {
  /** Order identifier, embedded for provenance and used to derive stable ids. */
  orderId: string;
  /** Catalogue service id of the part being generated. */
  serviceId: string;
  /** Order inputs (seed §2.1 "Inputs per service"). */
  inputs: Record<string, InputValue>;
  /** Issue time chosen by the caller (ISO 8601); generators never read the clock. */
  issuedAt: string;
  /** The bundle this part belongs to, when it is one (its parts are wired together; booking.ts). */
  bundleId?: string;
  /**
   * Replies of the service's language tasks (language.ts), by task key, as the text-generation port returned them;
   * absent for deterministic services and for optional tasks that were skipped.
   */
  language?: Record<string, { value: unknown; model: string }>;
  /**
   * The order's hosted booking page (issue 38 §2), when the order holds website-booking and this service hosts it:
   * the page posts to it, the config names it, and a bundle's receptionist books through it.
   */
  bookingPage?: HostedBookingPage;
  /**
   * The order's hosted receptionist (issue 38 §1), for an ai-receptionist order: its config's booking tool posts to
   * the receptionist's own booking page, and the files name the chat page, snippet and API.
   */
  receptionist?: HostedReceptionist;
}

/** Where a hosted receptionist lives: its id, chat page, embeddable script, chat API, and its own booking page. */
export interface HostedReceptionist {
  id: string;
  chatUrl: string;
  embedUrl: string;
  /** `POST` a visitor message here. */
  messagesUrl: string;
  /** Its public view (`GET`). */
  api: string;
  bookingPage: HostedBookingPage;
}

/** Where a hosted booking page lives: its id, its URL (`…/book/{id}`) and its API (`…/api/v1/booking-pages/{id}`). */
export interface HostedBookingPage {
  id: string;
  url: string;
  api: string;
}

/** A generator for one non-bundle service. */
export type DeliverableGenerator = (ctx: DeliverableContext) => DeliverableFile[];

/** Named error thrown by {@link generateDeliverables} for contexts it cannot serve. */
export class DeliverableError extends Error {
  /** Machine-readable reason. */
  readonly code: 'unknown_service' | 'bundle_service' | 'invalid_file' | 'language_missing' | 'language_unusable';
  constructor(code: DeliverableError['code'], message: string) {
    super(message);
    this.name = 'DeliverableError';
    this.code = code;
  }
}
