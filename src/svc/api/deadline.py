"""The deadline of the answer a thread is receiving through httpx's route (api/httpx_route.py):
every read and write of its request ends by it, so a server that trickles one byte just inside
each read timeout still cannot stretch an answer past it. Light on purpose: the HTTP client
ends a deadline after every request, and must not import httpcore to do it.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
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
    """Seconds left before the cap (never below 0), or None when there is none; 0 once the
    call was cancelled."""
    if cancelled():
        return 0.0
    at: float | None = getattr(_cap, "at", None)
    return None if at is None else max(0.0, at - time.monotonic())


class Cancel:
    """A call's cancellation, set from another thread (an awaiting coroutine cancelled): every
    network wait of the call ends at once (its sockets are shut), and nothing more is sent."""

    def __init__(self) -> None:
        self.cancelled: bool = False
        self._aborts: dict[int, Callable[[], None]] = {}
        self._lock = threading.Lock()

    def watch(self, key: int, abort: Callable[[], None]) -> None:
        """`abort` ends one of the call's network waits (a socket's shutdown)."""
        with self._lock:
            self._aborts[key] = abort
            now = self.cancelled
        if now:
            abort()

    def forget(self, key: int) -> None:
        with self._lock:
            self._aborts.pop(key, None)

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            aborts = list(self._aborts.values())
        for abort in aborts:
            abort()


# The cancellation of the call this context runs (an AsyncClient call's worker), if any.
current_cancel: contextvars.ContextVar[Cancel | None] = contextvars.ContextVar(
    "svc_cancel", default=None
)


def cancelled() -> bool:
    token = current_cancel.get()
    return token is not None and token.cancelled


def end_deadline() -> None:
    """Called when a `client.request` returns (its body read): later sockets of this thread
    keep their own timeouts."""
    _deadline.at = None


def remaining(timeout: float | None, error: type[Exception]) -> float | None:
    """The time this network operation may take: its own timeout, cut to the answer's deadline."""
    if cancelled():
        raise error("the call was cancelled")
    until: float | None = getattr(_deadline, "at", None)
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise error("the whole answer took longer than its deadline")
    return left if timeout is None else min(timeout, left)
