"""The deadline of the answer a thread is receiving through httpx's route (api/httpx_route.py):
every read and write of its request ends by it, so a server that trickles one byte just inside
each read timeout still cannot stretch an answer past it. Light on purpose: the HTTP client
ends a deadline after every request, and must not import httpcore to do it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# The monotonic time by which the answer being received by this thread must be complete (watch
# polls from several threads through one client, so it is per thread, not per client).
_deadline = threading.local()


# The time by which everything this thread sends must be answered: a library caller's whole
# call (Client(timeout=)), which no retry and no later request of the call may outlive.
_cap = threading.local()


def start_deadline(seconds: float) -> None:
    """The answer this thread sends a request for next must be whole within `seconds` (and
    by the cap, if one is set)."""
    at = time.monotonic() + seconds
    cap: float | None = getattr(_cap, "at", None)
    _deadline.at = at if cap is None else min(at, cap)


@contextmanager
def capped(seconds: float | None) -> Iterator[None]:
    """Everything this thread sends meanwhile is answered within `seconds` from now, or fails
    as a timeout (an outer cap that ends sooner still holds); None: no new cap."""
    before: float | None = getattr(_cap, "at", None)
    if seconds is not None:
        at = time.monotonic() + seconds
        _cap.at = at if before is None else min(before, at)
    try:
        yield
    finally:
        _cap.at = before


def cap_left() -> float | None:
    """Seconds left before the cap (never below 0), or None when there is none."""
    at: float | None = getattr(_cap, "at", None)
    return None if at is None else max(0.0, at - time.monotonic())


def end_deadline() -> None:
    """Called when a `client.request` returns (its body read): later sockets of this thread
    keep their own timeouts."""
    _deadline.at = None


def remaining(timeout: float | None, error: type[Exception]) -> float | None:
    """The time this network operation may take: its own timeout, cut to the answer's deadline."""
    until: float | None = getattr(_deadline, "at", None)
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise error("the whole answer took longer than its deadline")
    return left if timeout is None else min(timeout, left)
