"""Every HTTP header name svc reads or writes, in one place.

The service's own (`svc-*`), x402's, MPP's and OAuth's. Code outside `svc.api` names a header
only through these constants (tests/unit/test_header_names.py checks), so a renamed header is
one edit and a grep finds every reader. Plain strings: no import cost on the hot paths.
"""

from __future__ import annotations

# The service (spec: "Headers")
REQUEST_ID = "svc-request-id"  # the idempotency key of a paid submit
BILLING = "svc-billing"  # `status=charged; method=x402; amount_usd=...` on billed answers
USAGE_ERROR = "svc-usage-error"  # accepted, but the usage could not be billed
PAYMENT_ID = "svc-payment-id"  # a completed card payment, sent as the proof
AGENT_AUTHORIZATION = "svc-agent-authorization"  # the agent bearer when Authorization pays

# HTTP and OAuth
AUTHORIZATION = "Authorization"
DATE = "Date"
RETRY_AFTER = "Retry-After"
CONTENT_TYPE = "Content-Type"

# x402 (v2 names; v1 answers use the X- receipt header)
X402_CHALLENGE = "PAYMENT-REQUIRED"
X402_RECEIPT = "PAYMENT-RESPONSE"
X402_V1_RECEIPT = "X-PAYMENT-RESPONSE"
X402_TASK_PROOF = "x-payment"  # the spec puts task proofs here
X402_ADVISOR_PROOF = "Payment-Signature"  # and advisor proofs here
# Any other origin: the transport of the challenge's version (x402's HTTP transport specs);
# the same names as the two above, so the cleartext guard and `-v` already know them.
X402_V1_PROOF = "X-PAYMENT"
X402_V2_PROOF = "PAYMENT-SIGNATURE"

# MPP (HTTP Payment authentication)
MPP_CHALLENGE = "WWW-Authenticate"
MPP_CREDENTIAL_ALT = "Payment-Authorization"  # the only header besides Authorization
MPP_RECEIPT = "Payment-Receipt"

# W3C trace context (svc.telemetry writes them, only to the service's origin: api/traced.py)
TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"

# The headers that carry money or a credential, lowercased as httpx yields them: what the
# cleartext guard refuses to send in the clear and what `-v` never prints (one list for both:
# an MPP credential a challenge asked for in Payment-Authorization was once printed whole).
PAYMENT_HEADERS = frozenset(
    {X402_TASK_PROOF, X402_ADVISOR_PROOF.lower(), MPP_CREDENTIAL_ALT.lower(), PAYMENT_ID}
)
CREDENTIAL_HEADERS = frozenset({AUTHORIZATION.lower(), AGENT_AUTHORIZATION, "cookie"})
