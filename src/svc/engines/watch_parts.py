"""The pieces the follower (`svc.engines.watch`) is built from: what was seen of a task, the
poller threads, the interval rule and the ledger's live tasks."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.engines.auth import free_call_auth
from svc.engines.task_state import task_state_cache
from svc.settings import positive_seconds
from svc.store.ledger.rows import GONE

if TYPE_CHECKING:
    from svc.context import AppContext
    from svc.settings import Settings

FINAL = ("completed", "failed", "cancelled")
ASKING = "blocked_on_user"  # the task waits on the person
REAL_HOST_CEILING = 60.0  # the top of the spec's 15-60 s window

Result = tuple[str, dict[str, Any] | None, BaseException | None]


class Seen:
    """What the last poll that showed something new said of one task, and the last answer."""

    __slots__ = ("events", "last", "polls", "renew", "state", "updated")

    def __init__(self) -> None:
        self.state: str | None = None
        self.events: int = 0
        self.updated: Any = None
        self.polls: int = 0
        self.last: dict[str, Any] | None = None  # the task as the last poll answered it
        self.renew: bool = False  # the next answer is news even if nothing moved (after a reply)

    def is_news(self, task: dict[str, Any], events: list[Any]) -> bool:
        return (
            self.renew
            or task.get("state") != self.state
            or len(events) != self.events
            or task.get("updated_at") != self.updated
        )

    def take(self, task: dict[str, Any], events: list[Any]) -> None:
        self.state, self.events = str(task.get("state")), len(events)
        self.updated = task.get("updated_at")
        self.renew = False


def events_of(task: dict[str, Any]) -> list[Any]:
    events = task.get("events")
    return events if isinstance(events, list) else []


@dataclass(frozen=True)
class LedgerView:
    """What the ledger says of the tasks, from one read of its rows: the live ones of this base
    URL (oldest first) and every task's last known state."""

    live: list[str]
    states: dict[str, str | None]


def ledger_view(app: AppContext) -> LedgerView:
    """Task ids the ledger knows for this base URL whose last known state is not final (nor
    gone: the service said it no longer knows them), with every task's known state: `watch
    --all` reads the rows once for both (a read of every row costs about 20 ms a thousand)."""
    if not app.has_ledger():
        return LedgerView([], {})
    base = app.settings.base_url
    rows = app.ledger.submissions()
    live = [
        str(row.task_id)
        for row in reversed(rows)  # oldest first
        if row.task_id and row.base_url == base and row.state not in (*FINAL, GONE)
    ]
    return LedgerView(live, {str(row.task_id): row.state for row in rows if row.task_id})


def live_task_ids(app: AppContext) -> list[str]:
    """The live task ids of `ledger_view` alone."""
    return ledger_view(app).live


def ledger_states(app: AppContext) -> dict[str, str | None]:
    """Task id -> the state the ledger already has (one read instead of a write per task)."""
    return task_state_cache(
        app,
        lambda ledger: {str(row.task_id): row.state for row in ledger.submissions() if row.task_id},
        {},
    )


@dataclass(frozen=True)
class PollInterval:
    """The seconds between two polls of one task, and what was asked if the floor raised it."""

    seconds: float
    asked: float
    floor: float

    @property
    def raised(self) -> bool:
        """Asked for more often than this host may be polled (the faces say so)."""
        return self.asked < self.floor


def poll_interval(settings: Settings, requested: float | None) -> PollInterval:
    """The interval asked for (else the setting's default), never under the host's floor and,
    on a real host, never over the spec's 60 s."""
    if requested is None:
        asked = settings.default_poll_interval()  # checked where the settings were resolved
    else:
        asked = positive_seconds("the poll interval", requested)
    floor = settings.min_poll_interval()
    seconds = max(asked, floor)
    if not settings.is_loopback:
        seconds = min(seconds, REAL_HOST_CEILING)
    return PollInterval(seconds, asked, floor)


class Pollers:
    """A few daemon threads sending polls through the one shared HTTP client.

    Daemon threads: an interrupted watch exits at once instead of waiting on requests.
    `close` lets them end when the follower is done (a long-lived `svc mcp` or a Python
    program follows many times in one process).
    """

    def __init__(self, app: AppContext, size: int) -> None:
        self.app = app
        self.size = size
        self.jobs: queue.SimpleQueue[str | None] = queue.SimpleQueue()
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

    def close(self) -> None:
        """Let each thread end after the poll it is sending (none is waited for)."""
        for _ in self._threads:
            self.jobs.put(None)
        self._threads = []

    def _work(self) -> None:
        while True:
            task_id = self.jobs.get()
            if task_id is None:
                return
            try:
                task = self.app.tasks.poll(task_id, auth=free_call_auth(self.app))
            except BaseException as exc:  # handed to the following thread, which raises it
                self.results.put((task_id, None, exc))
            else:
                self.results.put((task_id, task.raw, None))  # the engine works on the JSON
