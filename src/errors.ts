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
  | 'quote_expired'
  | 'quote_service_mismatch'
  | 'missing_inputs'
  | 'rail_not_offered'
  | 'invalid_state_transition'
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
  | 'dependency_unavailable'
  | 'webhook_not_found'
  | 'webhook_event_not_found'
  | 'webhook_target_forbidden'
  | 'payment_required'
  | 'invalid_payment_header'
  | 'payment_in_progress'
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

const TITLES: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  invalid_json: 'Malformed JSON body',
  not_found: 'Not found',
  service_not_found: 'Service not found',
  quote_not_found: 'Quote not found',
  order_not_found: 'Order not found',
  deliverable_not_found: 'Deliverable not found',
  quote_expired: 'Quote expired',
  quote_service_mismatch: 'Quote is for another service',
  missing_inputs: 'Required inputs missing',
  rail_not_offered: 'Payment rail not offered',
  invalid_state_transition: 'Operation not allowed in the current state',
  payment_failed: 'Payment failed',
  insufficient_funds: 'Insufficient wallet balance',
  transaction_not_found: 'Transaction not found',
  transaction_already_used: 'Transaction already used',
  transaction_amount_mismatch: 'Transaction amount does not match',
  unauthorized: 'Authentication required',
  forbidden: 'Not allowed',
  idempotency_conflict: 'Idempotency key reused with a different request',
  idempotency_in_flight: 'A request with this idempotency key is still running',
  payload_too_large: 'Request body too large',
  no_matching_service: 'No service matches the requirements',
  dependency_unavailable: 'A dependency is unavailable',
  webhook_not_found: 'Webhook endpoint not found',
  webhook_event_not_found: 'Event not found for this webhook endpoint',
  webhook_target_forbidden: 'Webhook target not allowed',
  payment_required: 'Payment required',
  invalid_payment_header: 'Malformed payment header',
  payment_in_progress: 'A payment for this is already being settled',
  payment_identifier_conflict: 'Payment identifier reused with another payment',
  item_not_found: 'Item not found',
  template_not_found: 'Template not found',
  invalid_workflow: 'Not an n8n workflow',
  facilitator_error: 'The payment facilitator failed',
  already_claimed: 'Claimed by another engineer',
  engineering_not_claimed: 'Not claimed by this engineer',
  deliverable_conflict: 'A deliverable with this name exists',
  no_deliverables: 'No deliverables uploaded',
  subscription_not_found: 'Subscription not found',
  invoice_not_found: 'Invoice not found',
  task_not_found: 'Task not found',
  task_not_supported: 'The order does not take further tasks',
  wallet_not_found: 'Wallet not found',
  wallet_claimed: 'The wallet already has a key',
  json_forbidden_key: 'JSON body uses a forbidden key',
  json_too_deep: 'JSON body nested too deeply',
  method_not_allowed: 'Method not allowed',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  signing_unavailable: 'Signing keys unavailable',
  text_generation_unavailable: 'No text-generation model is configured for this service',
  internal_error: 'Internal server error',
};

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
    super(detail ?? TITLES[code]);
  }

  /** Renders the RFC 9457 body. `instance` is the request path. */
  toProblem(instance?: string): ProblemDetails {
    const expose = this.status < 500;
    return {
      type: PROBLEM_TYPE_BASE + this.code,
      title: TITLES[this.code],
      status: this.status,
      ...(expose && this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      code: this.code,
      ...(expose ? this.extra : {}),
    };
  }
}

/** 400 `invalid_request` (or another 400 code) naming the offending parameter. */
export const badRequest = (detail: string, param?: string, code: ErrorCode = 'invalid_request') =>
  new ProblemError(400, code, detail, param ? { param } : {});
/** 401 `unauthorized`. */
export const unauthorized = (detail: string) =>
  new ProblemError(401, 'unauthorized', detail, {}, { 'WWW-Authenticate': 'Bearer' });
/** 403 `forbidden`. */
export const forbidden = (detail: string) => new ProblemError(403, 'forbidden', detail);
/** 404 with a resource-specific code. */
export const notFound = (code: ErrorCode, detail: string) => new ProblemError(404, code, detail);
/** 409 `invalid_state_transition` naming the current state. */
export const invalidTransition = (operation: string, currentStatus: string) =>
  new ProblemError(409, 'invalid_state_transition', `Cannot ${operation} while the order is ${currentStatus}`, {
    current_status: currentStatus,
  });
/** 422 with a code and extension members. */
export const unprocessable = (code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) =>
  new ProblemError(422, code, detail, extra);
/** 402 payment problem. */
export const paymentRequired = (code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) =>
  new ProblemError(402, code, detail, extra);
/** 503 `dependency_unavailable` with `Retry-After` (seconds, default 5); `dependency` names what is down (issue 14). */
export const unavailable = (detail: string, retryAfterSeconds = 5, dependency?: 'database' | 'temporal') =>
  new ProblemError(503, 'dependency_unavailable', detail, dependency ? { dependency } : {}, { 'Retry-After': String(retryAfterSeconds) });
