"""The pieces the watch engine (`svc.engines.watch`) is built from: what was seen of a task, the
poller threads, the interval rule and the live status line."""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, Any

from svc.engines.asks import left_text
from svc.engines.auth import free_call_auth
from svc.engines.task_state import task_state_cache
from svc.settings import positive_seconds
from svc.store.ledger.rows import GONE
from svc.ui.words import plural

if TYPE_CHECKING:
    from svc.ui.face import FaceContext
    from svc.ui.output import Progress

FINAL = ("completed", "failed", "cancelled")

Result = tuple[str, dict[str, Any] | None, BaseException | None]


class Seen:
    __slots__ = ("events", "state", "updated")

    def __init__(self) -> None:
        self.state: str | None = None
        self.events = 0
        self.updated: Any = None


def live_task_ids(app: FaceContext) -> list[str]:
    """Task ids the ledger knows for this base URL whose last known state is not final (nor
    gone: the service said it no longer knows them)."""
    if not app.has_ledger():
        return []
    base = app.settings.base_url
    rows = app.ledger.submissions()
    return [
        str(row.task_id)
        for row in reversed(rows)  # oldest first
        if row.task_id and row.base_url == base and row.state not in (*FINAL, GONE)
    ]


def ledger_states(app: FaceContext) -> dict[str, str | None]:
    """Task id -> the state the ledger already has (one read instead of a write per task)."""
    return task_state_cache(
        app,
        lambda ledger: {str(row.task_id): row.state for row in ledger.submissions() if row.task_id},
        {},
    )


def effective_interval(app: FaceContext, requested: float | None) -> float:
    settings = app.settings
    if requested is None:
        value = settings.default_poll_interval()  # checked where the settings were resolved
    else:
        value = positive_seconds("--interval", requested)
    floor = settings.min_poll_interval()
    if value < floor:
        app.output.warn(
            f"polling every {value}s is too often for {settings.base_url}; using {floor}s"
        )
        value = floor
    return min(value, 60.0) if not settings.is_loopback else value


class Pollers:
    """A few daemon threads sending polls through the one shared HTTP client.

    Daemon threads: an interrupted watch exits at once instead of waiting on requests.
    """

    def __init__(self, app: FaceContext, size: int) -> None:
        self.app = app
        self.size = size
        self.jobs: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[Result] = queue.SimpleQueue()
        self.in_flight = 0
        self._threads: list[threading.Thread] = []

    def send(self, task_id: str) -> None:
        if len(self._threads) < min(self.size, self.in_flight + 1):
            thread = threading.Thread(target=self._work, name="svc-poll", daemon=True)
            thread.start()
            self._threads.append(thread)
        self.in_flight += 1
        self.jobs.put(task_id)

    def receive(self, timeout: float | None) -> Result | None:
        try:
            item = self.results.get(timeout=timeout)
        except queue.Empty:
            return None
        self.in_flight -= 1
        return item

    def _work(self) -> None:
        while True:
            task_id = self.jobs.get()
            try:
                task = self.app.tasks.poll(task_id, auth=free_call_auth(self.app))
            except BaseException as exc:  # handed to the main thread, which raises it
                self.results.put((task_id, None, exc))
            else:
                self.results.put((task_id, task.raw, None))  # the engine works on the JSON


class Status:
    """A live status line on stderr when it is a terminal: counts per state, or the countdown
    of an ask that waits on the person (its deadline on our monotonic clock)."""

    MIN_REFRESH = 0.25  # seconds between redraws

    def __init__(self, app: FaceContext, seen: dict[str, Seen]) -> None:
        self._app = app
        self._seen = seen
        self._status: Progress | None = None
        self._drawn = 0.0
        self.countdowns: dict[str, tuple[str, float | None]] = {}  # id -> (what, deadline)
        self._start(f"watching {plural(len(seen), 'task')}…")

    def _start(self, message: str) -> None:
        if self._app.output.stderr_tty and not self._app.output.json_mode:
            self._status = self._app.output.progress(message)

    def refresh(self) -> None:
        if self._status is None:
            self._start("watching…")
        if self._status is None or time.monotonic() - self._drawn < self.MIN_REFRESH:
            return
        self._drawn = time.monotonic()
        self._status.update(self._countdown() or self._counts())

    def _counts(self) -> str:
        counts: dict[str, int] = {}
        for entry in self._seen.values():
            key = entry.state or "not polled yet"
            counts[key] = counts.get(key, 0) + 1
        text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        return f"{plural(len(self._seen), 'task')}: {text}"

    def _countdown(self) -> str | None:
        for tid, (what, deadline) in self.countdowns.items():
            left = None if deadline is None else int(max(0.0, deadline - time.monotonic()))
            return f"task {tid} {what} · {left_text(left)}"
        return None

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
