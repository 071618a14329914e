"""What a paid submit's `svc-billing` answer says (status, method, amount_usd, payment_id),
for a face that words the charge."""

from __future__ import annotations

from svc.api.answers import parse_billing


def billing_terms(billing: str | None) -> dict[str, str]:
    """The terms of an `svc-billing` value as sent; none when the answer carried none."""
    return parse_billing(billing) if billing else {}
