"""The deadline of the answer a thread is receiving through httpx's route (api/httpx_route.py):
every read and write of its request ends by it, so a server that trickles one byte just inside
each read timeout still cannot stretch an answer past it. Light on purpose: the HTTP client
ends a deadline after every request, and must not import httpcore to do it.
"""

from __future__ import annotations

import threading
import time

# The monotonic time by which the answer being received by this thread must be complete (watch
# polls from several threads through one client, so it is per thread, not per client).
_deadline = threading.local()


def start_deadline(seconds: float) -> None:
    """The answer this thread sends a request for next must be whole within `seconds`."""
    _deadline.at = time.monotonic() + seconds


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
