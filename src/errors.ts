/**
 * Errors with stable codes, rendered as RFC 9457 problem details (`application/problem+json`).
 *
 * Source: ../shared/reference/api-conventions.md ("Errors: RFC 9457 problem details").
 */

/** Base URI of the problem `type` members; each code gets its own URI below it. */
export const PROBLEM_TYPE_BASE = 'https://agent-commerce.dev/problems/';

/** Every stable error code the API can answer with. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'not_found'
  | 'service_not_found'
  | 'quote_not_found'
  | 'order_not_found'
  | 'deliverable_not_found'
  | 'range_not_satisfiable'
  | 'quote_expired'
  | 'quote_service_mismatch'
  | 'missing_inputs'
  | 'rail_not_offered'
  | 'invalid_state_transition'
  | 'order_closed'
  | 'order_gone'
  | 'payment_failed'
  | 'insufficient_funds'
  | 'transaction_not_found'
  | 'transaction_already_used'
  | 'transaction_amount_mismatch'
  | 'unauthorized'
  | 'forbidden'
  | 'idempotency_conflict'
  | 'idempotency_in_flight'
  | 'payload_too_large'
  | 'no_matching_service'
  | 'no_service_available'
  | 'dependency_unavailable'
  | 'webhook_not_found'
  | 'webhook_event_not_found'
  | 'webhook_target_forbidden'
  | 'payment_required'
  | 'invalid_payment_header'
  | 'webhook_signature_invalid'
  | 'payment_in_progress'
  | 'payment_refunded'
  | 'payment_identifier_conflict'
  | 'item_not_found'
  | 'template_not_found'
  | 'invalid_workflow'
  | 'facilitator_error'
  | 'already_claimed'
  | 'engineering_not_claimed'
  | 'deliverable_conflict'
  | 'no_deliverables'
  | 'subscription_not_found'
  | 'invoice_not_found'
  | 'task_not_found'
  | 'booking_page_not_found'
  | 'booking_not_found'
  | 'slot_taken'
  | 'slot_unavailable'
  | 'receptionist_not_found'
  | 'receptionist_suspended'
  | 'receptionist_ended'
  | 'conversation_not_found'
  | 'conversation_busy'
  | 'task_not_supported'
  | 'wallet_not_found'
  | 'wallet_claimed'
  | 'json_forbidden_key'
  | 'json_too_deep'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'signing_unavailable'
  | 'text_generation_unavailable'
  | 'checkout_session_not_found'
  | 'checkout_session_not_cancelable'
  | 'checkout_session_not_ready'
  | 'checkout_session_closed'
  | 'unsupported_api_version'
  | 'idempotency_key_required'
  | 'payment_token_invalid'
  | 'invalid_profile_url'
  | 'profile_unreachable'
  | 'profile_malformed'
  | 'version_unsupported'
  | 'signature_missing'
  | 'signature_invalid'
  | 'key_not_found'
  | 'digest_mismatch'
  | 'algorithm_unsupported'
  | 'idempotency_key_reused'
  | 'mandate_required'
  | 'mandate_invalid_signature'
  | 'invalid_signature'
  | 'mandate_expired'
  | 'mandate_scope_mismatch'
  | 'agent_missing_key'
  | 'merchant_authorization_invalid'
  | 'merchant_authorization_missing'
  | 'acp_platform_not_found'
  | 'feed_push_failed'
  | 'internal_error';

/** Body of an RFC 9457 problem detail with this API's extension members. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** Stable snake_case error code. */
  code: ErrorCode;
  /** Name of the input that was wrong, when one was. */
  param?: string;
  [extension: string]: unknown;
}

/**
 * The definition of every error code: its HTTP status and the problem's `title`. Routes name a code and the status
 * follows from here (a code answered with another status in one place says so with `status`, see {@link problem}).
 */
export const ERRORS: Readonly<Record<ErrorCode, { status: number; title: string }>> = {
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_json: { status: 400, title: 'Malformed JSON body' },
  not_found: { status: 404, title: 'Not found' },
  service_not_found: { status: 404, title: 'Service not found' },
  quote_not_found: { status: 404, title: 'Quote not found' },
  order_not_found: { status: 404, title: 'Order not found' },
  deliverable_not_found: { status: 404, title: 'Deliverable not found' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  quote_expired: { status: 409, title: 'Quote expired' },
  quote_service_mismatch: { status: 422, title: 'Quote is for another service' },
  missing_inputs: { status: 422, title: 'Required inputs missing' },
  rail_not_offered: { status: 422, title: 'Payment rail not offered' },
  invalid_state_transition: { status: 409, title: 'Operation not allowed in the current state' },
  order_closed: { status: 409, title: "The order's workflow has ended" },
  order_gone: { status: 410, title: "The order's workflow history is gone" },
  payment_failed: { status: 402, title: 'Payment failed' },
  insufficient_funds: { status: 402, title: 'Insufficient wallet balance' },
  transaction_not_found: { status: 402, title: 'Transaction not found' },
  transaction_already_used: { status: 409, title: 'Transaction already used' },
  transaction_amount_mismatch: { status: 402, title: 'Transaction amount does not match' },
  unauthorized: { status: 401, title: 'Authentication required' },
  forbidden: { status: 403, title: 'Not allowed' },
  idempotency_conflict: { status: 422, title: 'Idempotency key reused with a different request' },
  idempotency_in_flight: { status: 409, title: 'A request with this idempotency key is still running' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  no_matching_service: { status: 422, title: 'No service matches the requirements' },
  no_service_available: { status: 422, title: 'No service this deployment can sell matches the requirements' },
  dependency_unavailable: { status: 503, title: 'A dependency is unavailable' },
  webhook_not_found: { status: 404, title: 'Webhook endpoint not found' },
  webhook_event_not_found: { status: 404, title: 'Event not found for this webhook endpoint' },
  webhook_target_forbidden: { status: 422, title: 'Webhook target not allowed' },
  payment_required: { status: 402, title: 'Payment required' },
  invalid_payment_header: { status: 400, title: 'Malformed payment header' },
  webhook_signature_invalid: { status: 400, title: 'The webhook signature does not verify' },
  payment_in_progress: { status: 409, title: 'A payment for this is already being settled' },
  payment_refunded: { status: 409, title: 'Already paid: this payment was given back' },
  payment_identifier_conflict: { status: 409, title: 'Payment identifier reused with another payment' },
  item_not_found: { status: 404, title: 'Item not found' },
  template_not_found: { status: 404, title: 'Template not found' },
  invalid_workflow: { status: 400, title: 'Not an n8n workflow' },
  facilitator_error: { status: 502, title: 'The payment facilitator failed' },
  already_claimed: { status: 409, title: 'Claimed by another engineer' },
  engineering_not_claimed: { status: 409, title: 'Not claimed by this engineer' },
  deliverable_conflict: { status: 409, title: 'A deliverable with this name exists' },
  no_deliverables: { status: 409, title: 'No deliverables uploaded' },
  subscription_not_found: { status: 404, title: 'Subscription not found' },
  invoice_not_found: { status: 404, title: 'Invoice not found' },
  task_not_found: { status: 404, title: 'Task not found' },
  booking_page_not_found: { status: 404, title: 'Booking page not found' },
  booking_not_found: { status: 404, title: 'Booking not found' },
  slot_taken: { status: 409, title: 'The slot is already booked' },
  slot_unavailable: { status: 422, title: 'The slot cannot be booked' },
  receptionist_not_found: { status: 404, title: 'Receptionist not found' },
  receptionist_suspended: { status: 423, title: 'The receptionist is suspended' },
  receptionist_ended: { status: 410, title: 'The receptionist has ended' },
  conversation_not_found: { status: 404, title: 'Conversation not found' },
  conversation_busy: { status: 409, title: 'Another message of the conversation was answered meanwhile' },
  task_not_supported: { status: 422, title: 'The order does not take further tasks' },
  wallet_not_found: { status: 404, title: 'Wallet not found' },
  wallet_claimed: { status: 409, title: 'The wallet already has a key' },
  json_forbidden_key: { status: 400, title: 'JSON body uses a forbidden key' },
  json_too_deep: { status: 400, title: 'JSON body nested too deeply' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  text_generation_unavailable: { status: 422, title: 'No text-generation model is configured for this service' },
  signing_unavailable: { status: 503, title: 'Signing keys unavailable' },
  checkout_session_not_found: { status: 404, title: 'Checkout session not found' },
  checkout_session_not_cancelable: { status: 405, title: 'The checkout session can no longer be canceled' },
  checkout_session_not_ready: { status: 409, title: 'The checkout session is not ready for payment' },
  checkout_session_closed: { status: 409, title: 'The checkout session is canceled or expired' },
  unsupported_api_version: { status: 400, title: 'Unsupported API-Version' },
  idempotency_key_required: { status: 400, title: 'Idempotency-Key header is required' },
  payment_token_invalid: { status: 422, title: 'The delegated payment token does not pay this session' },
  // UCP (issue 37 §2): the codes and statuses of the UCP overview's error registry and signatures.md.
  invalid_profile_url: { status: 400, title: 'The UCP-Agent profile URL is malformed or missing' },
  profile_unreachable: { status: 424, title: "The platform's UCP profile could not be fetched" },
  profile_malformed: { status: 422, title: "The platform's UCP profile is not a valid UCP profile" },
  version_unsupported: { status: 422, title: 'UCP version not supported' },
  signature_missing: { status: 401, title: 'Signature and Signature-Input are required' },
  signature_invalid: { status: 401, title: 'Signature verification failed' },
  key_not_found: { status: 401, title: "The signature's keyid is not in the signer's profile" },
  digest_mismatch: { status: 400, title: 'Content-Digest does not match the body' },
  algorithm_unsupported: { status: 400, title: 'Signature algorithm not supported' },
  idempotency_key_reused: { status: 409, title: 'Idempotency key reused with a different payload' },
  mandate_required: { status: 422, title: 'An AP2 checkout mandate is required' },
  mandate_invalid_signature: { status: 422, title: 'The AP2 checkout mandate does not verify' },
  invalid_signature: { status: 401, title: 'The request signature is missing, stale or does not verify' },
  mandate_expired: { status: 422, title: 'The AP2 checkout mandate has expired' },
  mandate_scope_mismatch: { status: 422, title: 'The AP2 checkout mandate is bound to another checkout' },
  agent_missing_key: { status: 422, title: "The mandate's signing key is not in the platform profile" },
  merchant_authorization_invalid: { status: 422, title: "The mandate's merchant authorization does not verify" },
  merchant_authorization_missing: { status: 422, title: "The mandate's checkout has no merchant authorization" },
  acp_platform_not_found: { status: 404, title: 'No ACP platform by that id' },
  // 424, not 5xx: the Feed API is the one the request names; its failure is the request's dependency failing.
  feed_push_failed: { status: 424, title: "The platform's Feed API refused or failed the product feed" },
  internal_error: { status: 500, title: 'Internal server error' },
};

/** HTTP status of an error code (its definition in {@link ERRORS}). */
export const statusOf = (code: ErrorCode): number => ERRORS[code].status;

/**
 * An error that becomes a problem-details response.
 *
 * `status` is the HTTP status; `code` the stable machine-readable code; `extra` extension members
 * (e.g. `current_status`, `missing`). Messages of 5xx problems are never shown to callers.
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail?: string,
    readonly extra: Record<string, unknown> & { param?: string } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? ERRORS[code].title);
  }

  /** Renders the RFC 9457 body. `instance` is the request path. */
  toProblem(instance?: string): ProblemDetails {
    const expose = this.status < 500;
    return {
      type: PROBLEM_TYPE_BASE + this.code,
      title: ERRORS[this.code].title,
      status: this.status,
      ...(expose && this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      code: this.code,
      ...(expose ? this.extra : {}),
    };
  }
}

/**
 * A problem with the status of `code`'s definition ({@link ERRORS}). `extra`: extension members (`param`,
 * `current_status`, …); `headers`: response headers (`Retry-After`); `status` only where this one answer departs from
 * the code's status (e.g. `payment_failed` as 410 for goods that will never be delivered).
 */
export function problem(
  code: ErrorCode,
  detail?: string,
  extra: Record<string, unknown> & { param?: string } = {},
  options: { status?: number; headers?: Record<string, string> } = {},
): ProblemError {
  return new ProblemError(options.status ?? ERRORS[code].status, code, detail, extra, options.headers ?? {});
}

/** 400 `invalid_request` (or another 400 code) naming the offending parameter. */
export const badRequest = (detail: string, param?: string, code: ErrorCode = 'invalid_request') =>
  problem(code, detail, param ? { param } : {});
/** 401 `unauthorized`. */
export const unauthorized = (detail: string) =>
  problem('unauthorized', detail, {}, { headers: { 'WWW-Authenticate': 'Bearer' } });
/** 403 `forbidden`. */
export const forbidden = (detail: string) => problem('forbidden', detail);
/** A resource-specific "not found" code (404 by its definition). */
export const notFound = (code: ErrorCode, detail: string) => problem(code, detail);
/** 409 `invalid_state_transition` naming the current state. */
export const invalidTransition = (operation: string, currentStatus: string) =>
  problem('invalid_state_transition', `Cannot ${operation} while the order is ${currentStatus}`, {
    current_status: currentStatus,
  });
/** A refusal of the request's content with extension members; the status is the code's (422 for the codes it is used with). */
export const unprocessable = (code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) =>
  problem(code, detail, extra);
/** 503 `dependency_unavailable` with `Retry-After` (seconds, default 5); `dependency` names what is down (issue 14). */
export const unavailable = (detail: string, retryAfterSeconds = 5, dependency?: 'database' | 'temporal') =>
  problem('dependency_unavailable', detail, dependency ? { dependency } : {}, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
