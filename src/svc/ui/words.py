"""svc.words, where ui's callers have always found it: the module moved to the core (it
touches no terminal) so that engines use it without importing svc.ui."""

from svc.words import (
    BILLING_VERBS,
    ago,
    billing,
    counted,
    plural,
    price,
    source,
    usd,
    usd_atomic,
    when,
    yes_no,
)

__all__ = [
    "BILLING_VERBS",
    "ago",
    "billing",
    "counted",
    "plural",
    "price",
    "source",
    "usd",
    "usd_atomic",
    "when",
    "yes_no",
]
