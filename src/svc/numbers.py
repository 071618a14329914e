"""Numbers and times a server hands us, read strictly, in one place.

A server's `Retry-After: nan`, a body `retry_after` of `1e999`, an `expires_at` in year 0 or a
`Date` of garbage must never become an internal error, a sleep of a day, or a NaN that poisons
every comparison after it. So each reader here returns a sane value or None (absent), never
raises, and callers treat None as "the server said nothing": the normal backoff, no expiry
shown, no clock check. Amounts of money have their own strict reader (`svc.money`), since a
malformed price must refuse a payment rather than count as absent.
"""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime

# The longest wait a server may ask for that we still read as a wait; longer is absurd.
MAX_WAIT_SECONDS = 86_400.0
# Plain, ASCII, non-negative decimals: float() would also take "nan", "inf", "1e9", "١٢" and "_".
_PLAIN_NUMBER = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?", re.ASCII)
_MAX_STAMP = 64  # an ISO-8601 timestamp is ~30 characters; longer is not one


def seconds(value: object, most: float = MAX_WAIT_SECONDS) -> float | None:
    """A non-negative number of seconds, from JSON (int or float) or header text; None when
    absent, not a plain number, non-finite, negative or above `most`."""
    if isinstance(value, bool) or (isinstance(value, int) and abs(value) > 2**53):
        return None  # a bool is not a number; float() of a huge int overflows
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and _PLAIN_NUMBER.fullmatch(value.strip()):
        number = float(value.strip())
    else:
        return None
    if not math.isfinite(number) or number < 0 or number > most:
        return None
    return number


def retry_after(header: str | None, body_value: object, now: float | None = None) -> float | None:
    """The wait a 429/503 asks for: the `Retry-After` header (delta-seconds or an HTTP-date),
    else the body's `retry_after`; None when neither is a sane wait."""
    if header:
        wait = seconds(header)
        if wait is None:
            moment = http_date(header)
            if moment is not None:
                wait = seconds(max(0.0, moment - (time.time() if now is None else now)))
        if wait is not None:
            return wait
    return seconds(body_value)


def http_date(text: str | None) -> float | None:
    """An HTTP-date (`Date`, `Retry-After`) as a POSIX timestamp; None when it is not one."""
    if not text or len(text) > _MAX_STAMP:
        return None
    from email.utils import parsedate_to_datetime  # ~3 ms of imports, only when a date is read

    try:
        moment = parsedate_to_datetime(text)
        stamp = moment.timestamp()
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    return stamp if math.isfinite(stamp) else None


def iso(timestamp: float | None) -> str | None:
    """A POSIX timestamp as the service writes date-times: RFC 3339 in UTC with a `Z` and
    milliseconds (`2026-11-26T05:20:44.768Z`), so svc's own times (the ledger's) read and sort
    like every service object's."""
    if timestamp is None:
        return None
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def instant(stamp: object) -> float | None:
    """An ISO-8601 timestamp (`expires_at`, `updated_at`) as a POSIX timestamp, UTC when it
    names no zone; None when it is not one (or lies outside what a datetime can hold)."""
    if not isinstance(stamp, str) or len(stamp) > _MAX_STAMP:
        return None
    try:
        moment = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    except (ValueError, OverflowError):
        return None
