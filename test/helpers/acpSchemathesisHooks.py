"""
schemathesis hooks of test/integration/acpSchemathesis.test.ts: drop exactly the failures that are gaps of the copied
ACP 2026-04-17 OpenAPI documents themselves (docs/agent-checkouts.md, "Gaps in the specs"), nothing else.
"""
import schemathesis

# Statuses an operation must answer that its spec leaves undocumented (ST103, "Undocumented status code"):
# - getCheckoutSession documents only 200 and 404, yet Authorization and API-Version are required headers
#   (rfc.agentic_checkout.md: a missing or unsupported version is 400, a missing key 401);
# - cancelCheckoutSession documents 200, 400, 405, 409 and 422: no 401 without a key, no 404 for an unknown session.
UNDOCUMENTED = {
    "GET /checkout_sessions/{checkout_session_id}": {400, 401},
    "POST /checkout_sessions/{checkout_session_id}/cancel": {401, 404},
}

# openapi.delegate_payment.yaml closes Error.code to six values, while its own examples answer 401, 429, 500 and 503
# with codes outside them (unauthorized, rate_limit_exceeded, internal_server_error, service_unavailable).
DELEGATE = "POST /agentic_commerce/delegate_payment"
DELEGATE_OUTSIDE_ENUM = {401, 429, 500, 503}


@schemathesis.hook
def filter_failure(context, failure, case, response):
    status = response.status_code
    if failure.code == "ST103" and status in UNDOCUMENTED.get(failure.operation, set()):
        return False
    if failure.code == "ST108" and failure.operation == DELEGATE and status in DELEGATE_OUTSIDE_ENUM:
        return False
    return True
