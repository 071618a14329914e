"""Following tasks as data: one scheduler, a few pollers, a TaskChange per thing that happened.

# adapter until the watch engine returns data (issue 32): today's engines/watch.Watch draws,
# prompts and returns an exit code. This follows the same rules from the same parts (the
# interval rule of watch_parts.effective_interval, the jittered, backing-off PollSchedule, at
# most watch.MAX_WORKERS polls in flight on the one HTTP pool) and yields what it saw; the
# integrator replaces it with the watch engine's TaskChange iterator when that branch lands.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from svc import redact
from svc.context import AppContext
from svc.engines.changes import ChangeKind, TaskChange
from svc.engines.schedule import PollSchedule
from svc.engines.watch import MAX_COALESCE, MAX_WORKERS
from svc.engines.watch_parts import effective_interval, ledger_states

FINAL = ("completed", "failed", "cancelled")
STOP_CHECK = 1.0  # seconds between looks at `stop` while nothing arrives
Polled = tuple[str, dict[str, Any] | None, BaseException | None]


@dataclass
class _Seen:
    state: str | None = None
    events: int = 0


class Follower:
    """Polls `task_ids` until each is final or waits on the person, yielding their changes."""

    def __init__(
        self,
        app: AppContext,
        task_ids: list[str],
        interval: float | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.app = app
        self.stop = stop  # set by a consumer that went away (AsyncClient.watch_many)
        self.ids = list(dict.fromkeys(task_ids))
        every = effective_interval(app, interval)
        self.schedule = PollSchedule(self.ids, every)
        self.coalesce = min(MAX_COALESCE, every / 60)
        self.seen = {tid: _Seen() for tid in self.ids}
        self.size = max(1, min(MAX_WORKERS, len(self.ids)))
        self.results: queue.SimpleQueue[Polled] = queue.SimpleQueue()
        self.in_flight = 0
        self.known: dict[str, str | None] = {}  # the ledger's states: written only when behind

    def changes(self) -> Iterator[TaskChange]:
        if not self.ids:
            return
        self.app.tasks  # noqa: B018 - build the shared client here, not racing in the pollers
        self.known = ledger_states(self.app)  # one read instead of a write per task
        pool = ThreadPoolExecutor(self.size, thread_name_prefix="svc-poll")
        try:
            while (len(self.schedule) or self.in_flight) and not self._stopped():
                self._send_due(pool)
                polled = self._receive()
                if polled is not None:
                    yield from self._take(*polled)
        finally:  # a caller that stops early leaves no poll behind to wait for
            pool.shutdown(wait=False, cancel_futures=True)

    def _stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def _send_due(self, pool: ThreadPoolExecutor) -> None:
        now = time.monotonic()
        while self.in_flight < self.size:
            due = self.schedule.pop_due(now)
            if due is None:
                return
            self.in_flight += 1
            pool.submit(self._poll, due)

    def _receive(self) -> Polled | None:
        nxt = self.schedule.next_due()
        wait = None
        if nxt is not None and self.in_flight < self.size:
            # As the watch engine does: idle until a little after the next poll is due, so
            # polls due close together go out as one burst (half the CPU of a wake each).
            wait = max(0.0, nxt - time.monotonic()) + (0.0 if self.in_flight else self.coalesce)
        if self.stop is not None:  # look up now and then: the consumer may have gone
            wait = STOP_CHECK if wait is None else min(wait, STOP_CHECK)
        try:
            polled = self.results.get(timeout=wait)
        except queue.Empty:
            return None
        self.in_flight -= 1
        return polled

    def _poll(self, task_id: str) -> None:
        try:
            task = self.app.tasks.poll(task_id, auth=self.app.free_call_auth())
        except BaseException as exc:  # handed to the scheduler, which raises it to the caller
            self.results.put((task_id, None, exc))
        else:
            self.results.put((task_id, task.raw, None))

    def _take(
        self, tid: str, task: dict[str, Any] | None, error: BaseException | None
    ) -> Iterator[TaskChange]:
        if error is not None:
            raise error
        assert task is not None
        task = redact.scrub(task)  # a secret told earlier that the service echoes: never shown
        seen = self.seen[tid]
        previous, state = seen.state, str(task.get("state", ""))
        events = task.get("events") if isinstance(task.get("events"), list) else []
        for event in (events or [])[seen.events :]:
            yield TaskChange(tid, "event", task, previous, event if isinstance(event, dict) else {})
        changed = state != previous or len(events or []) != seen.events
        seen.state, seen.events = state, len(events or [])
        if state != self.known.get(tid, state):  # a task the ledger has, and is behind on
            self.app.remember_state(tid, state)
            self.known[tid] = state
        yield from self._route(tid, task, state, previous, changed)

    def _route(
        self, tid: str, task: dict[str, Any], state: str, previous: str | None, changed: bool
    ) -> Iterator[TaskChange]:
        if state in FINAL or state == "blocked_on_user":
            self.schedule.drop(tid)  # followed to its end, or to the person's answer
            kind: ChangeKind = "final" if state in FINAL else "ask"
            yield TaskChange(tid, kind, task, previous)
            return
        self.schedule.polled(tid, changed=changed)
        if state != previous:
            yield TaskChange(tid, "state", task, previous)
