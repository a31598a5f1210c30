/**
 * What an ACP request asks for that this service does not offer (docs/agent-checkouts.md, "Not supported"): shipping
 * and fulfillment details, tax exemptions, discount codes. Rather than dropping such fields silently, the answer to
 * the request that carried them says so with ACP `MessageError`s (schema.agentic_checkout.json `MessageError`):
 * `unsupported` for fulfillment and tax, `coupon_invalid` for each discount code. They are informational (severity
 * `low`, resolution `recoverable`: the agent can drop the field) and do not change the session's status, since the
 * totals already show what is charged (decision 0038).
 */

/** An ACP `MessageError` about a request field this service does not support. */
export interface UnsupportedMessage {
  type: 'error';
  code: 'unsupported' | 'coupon_invalid';
  severity: 'low';
  resolution: 'recoverable';
  /** RFC 9535 JSONPath of the request field. */
  param: string;
  content_type: 'plain';
  content: string;
}

/** The request fields of create, update and complete that these messages cover (all optional, any shape). */
export interface UnsupportedFields {
  fulfillment_details?: unknown;
  fulfillment_groups?: unknown;
  selected_fulfillment_options?: unknown;
  discounts?: { codes?: readonly string[] | undefined } | undefined;
  coupons?: readonly string[] | undefined;
  buyer?: { tax_exemption?: unknown } | undefined;
}

const message = (code: UnsupportedMessage['code'], param: string, content: string): UnsupportedMessage => ({
  type: 'error',
  code,
  severity: 'low',
  resolution: 'recoverable',
  param,
  content_type: 'plain',
  content,
});

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** One message per unsupported field the request carried (none when it carried none), in request order. */
export function unsupportedMessages(body: UnsupportedFields): UnsupportedMessage[] {
  const out: UnsupportedMessage[] = [];
  const noShipping = 'are not used: services are delivered as digital deliverables, nothing ships';
  if (present(body.fulfillment_details))
    out.push(message('unsupported', '$.fulfillment_details', `Fulfillment details ${noShipping}`));
  if (present(body.fulfillment_groups))
    out.push(message('unsupported', '$.fulfillment_groups', `Fulfillment groups ${noShipping}`));
  if (present(body.selected_fulfillment_options))
    out.push(
      message(
        'unsupported',
        '$.selected_fulfillment_options',
        `Fulfillment options ${noShipping} (fulfillment_options is empty)`,
      ),
    );
  if (present(body.buyer?.tax_exemption))
    out.push(
      message('unsupported', '$.buyer.tax_exemption', 'Tax exemptions are not handled: totals carry no tax line'),
    );
  const codes = (path: string, list: readonly string[] | undefined) =>
    (list ?? []).forEach((code, i) =>
      out.push(
        message('coupon_invalid', `${path}[${i}]`, `Discount code ${code} does not apply: no discounts are offered`),
      ),
    );
  codes('$.discounts.codes', body.discounts?.codes);
  codes('$.coupons', body.coupons);
  return out;
}
