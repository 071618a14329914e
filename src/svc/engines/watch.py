"""The follower: follow tasks until each is final, yielding what changes (`TaskChange`).

Many tasks are followed in one process: one HTTP connection pool, a few worker threads that
only send polls (`Pollers`), and the thread that follows, which owns the schedule
(`svc.engines.schedule`: the polling budget, spread and coalesced) and the ledger's cache of
task states. Nothing here prints, asks or names a flag: `svc watch` and `submit --wait` draw
the changes, `svc mcp`'s wait_for_task summarises them, a Python program iterates over them.

`follow(...)` is the entry for a caller that only iterates; a face that must also act between
polls (a countdown, an open form) drives a `Follower` step by step.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

from svc.engines.changes import ChangeKind, TaskChange
from svc.engines.schedule import PollSchedule
from svc.engines.task_state import remember_state
from svc.engines.watch_parts import (
    ASKING,
    FINAL,
    Pollers,
    PollInterval,
    Seen,
    events_of,
    ledger_states,
    poll_interval,
)
from svc.errors import NotFound
from svc.store.ledger.rows import GONE

if TYPE_CHECKING:
    from svc.context import AppContext

MAX_COALESCE = 0.25  # seconds a due poll may wait to join others (of a 15-60 s interval)
MAX_WORKERS = 8  # concurrent polls in flight; the pool keeps as many connections


class Follower:
    """Follows tasks by polling them; each `step` sends the polls that are due and returns what
    one answer showed.

    stop_at_ask: a task that waits on the person is yielded (`ask`) and no longer polled;
    otherwise it is polled on (at the interval) until it moves, for a face that answers it.
    from_ledger: ids taken from the ledger; one the service no longer knows (404) is yielded
    `gone`, marked so in the ledger and dropped, while any other id's 404 is raised.
    known_states: the ledger's states if the caller has just read them (`ledger_view`), so the
    rows are not read again at the start.
    """

    def __init__(
        self,
        app: AppContext,
        task_ids: Iterable[str],
        interval: float | None = None,
        *,
        stop_at_ask: bool = True,
        from_ledger: Iterable[str] = (),
        known_states: dict[str, str | None] | None = None,
    ) -> None:
        self.app = app
        self.interval: PollInterval = poll_interval(app.settings, interval)
        ids = list(dict.fromkeys(task_ids))
        self.schedule: PollSchedule = PollSchedule(ids, self.interval.seconds)
        self.coalesce: float = min(MAX_COALESCE, self.interval.seconds / 60)
        self.stop_at_ask = stop_at_ask
        self.from_ledger: frozenset[str] = frozenset(from_ledger)
        self._seen = {tid: Seen() for tid in ids}
        self._known: dict[str, str | None] = {}  # the ledger's states: written only when behind
        self._given_known = known_states
        self._pollers: Pollers | None = None

    @property
    def task_ids(self) -> list[str]:
        return list(self._seen)

    @property
    def following(self) -> bool:
        """Whether a poll is scheduled or in flight."""
        return bool(len(self.schedule)) or self.in_flight > 0

    @property
    def in_flight(self) -> int:
        return 0 if self._pollers is None else self._pollers.in_flight

    def next_poll_in(self) -> float | None:
        """Seconds until the next scheduled poll (None if none is)."""
        due = self.schedule.next_due()
        return None if due is None else max(0.0, due - time.monotonic())

    def last_answer(self, task_id: str) -> tuple[dict[str, Any], int] | None:
        """The task as its last poll answered (changed or not) and how many polls there were;
        None before the first answer. For a face that reports every poll (svc mcp)."""
        seen = self._seen[task_id]
        return None if seen.last is None else (seen.last, seen.polls)

    def renew(self, task_id: str) -> None:
        """Yield the next answer about this task even if nothing in it moved: after an answer
        was sent, its effect is shown whatever it is."""
        self._seen[task_id].renew = True

    def start(self) -> None:
        """Build the shared HTTP client in this thread (not racing in the pollers) and read the
        ledger's states once; `step` does it if nobody did."""
        if self._pollers is None:
            self.app.tasks  # noqa: B018 - built here, once
            given = self._given_known
            self._known = ledger_states(self.app) if given is None else dict(given)
            self._pollers = Pollers(self.app, min(MAX_WORKERS, len(self._seen)))

    def step(self, timeout: float | None = None) -> list[TaskChange]:
        """Send the polls that are due, then wait for one answer (at most `timeout` seconds,
        None: as long as it takes) and return what it showed (often nothing)."""
        self.start()
        pollers = self._pollers
        assert pollers is not None
        now = time.monotonic()
        while pollers.in_flight < pollers.size:
            due = self.schedule.pop_due(now)
            if due is None:
                break
            pollers.send(due)
        if not self.following:
            return []  # nothing scheduled, nothing in flight: every task is done
        wait = self._idle_wait(pollers, now)
        if timeout is not None:
            wait = timeout if wait is None else min(wait, timeout)
        item = pollers.receive(wait)
        return [] if item is None else self._take(*item)

    def changes(self) -> Iterator[TaskChange]:
        """Every change, in order, until no task is polled any more."""
        while self.following:
            yield from self.step()

    def close(self) -> None:
        if self._pollers is not None:
            self._pollers.close()

    def __enter__(self) -> Follower:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _idle_wait(self, pollers: Pollers, now: float) -> float | None:
        nxt = self.schedule.next_due()
        if nxt is None or pollers.in_flight >= pollers.size:
            return None  # an answer comes first
        # Idle until a little after the next poll is due, so polls that fall due close together
        # go out as one small burst: a warm process polls at half the CPU cost of one woken for
        # each. Only ever later than due, never sooner.
        return max(0.0, nxt - now) + (self.coalesce if not pollers.in_flight else 0.0)

    def _take(
        self, tid: str, task: dict[str, Any] | None, error: BaseException | None
    ) -> list[TaskChange]:
        if isinstance(error, NotFound) and tid in self.from_ledger:
            return [self._gone(tid)]
        if error is not None:
            raise error
        assert task is not None
        seen = self._seen[tid]
        seen.polls += 1
        seen.last = task
        news = self._news(tid, task, seen)
        state = str(task["state"])
        if news:
            self._cache_state(tid, state)
        if state in FINAL or (state == ASKING and self.stop_at_ask):
            self.schedule.drop(tid)
        else:  # a live ask is polled at the interval: its prompt's news stays fresh
            self.schedule.polled(tid, changed=bool(news) or state == ASKING)
        return news

    def _news(self, tid: str, task: dict[str, Any], seen: Seen) -> list[TaskChange]:
        """The poll's new events, then where the task stands; nothing if nothing moved."""
        events = events_of(task)
        if not seen.is_news(task, events):
            return []
        previous = seen.state
        news = [
            TaskChange(tid, "event", task, event=event)
            for event in events[seen.events :]
            if isinstance(event, dict)
        ]
        state = str(task.get("state"))
        kind: ChangeKind = "final" if state in FINAL else "ask" if state == ASKING else "state"
        news.append(TaskChange(tid, kind, task, previous))
        seen.take(task, events)
        return news

    def _gone(self, tid: str) -> TaskChange:
        """A task the ledger listed as live that the service no longer knows (a sandbox that
        restarted forgets its tasks): marked in the ledger and not polled again; the others
        are followed as before."""
        self.schedule.drop(tid)
        seen = self._seen[tid]
        previous, seen.state = seen.state, GONE
        self._cache_state(tid, GONE)
        return TaskChange(tid, "gone", {"id": tid, "state": GONE}, previous)

    def _cache_state(self, tid: str, state: str) -> None:
        if self._known.get(tid) != state:
            remember_state(self.app, tid, state)  # durable: only when behind
        self._known[tid] = state


def follow(
    app: AppContext,
    task_ids: str | Iterable[str],
    interval: float | None = None,
    *,
    stop_at_ask: bool = True,
    from_ledger: Iterable[str] = (),
) -> Iterator[TaskChange]:
    """Follow one task or many until each is final, gone or (with stop_at_ask) waits on the
    person, yielding every change in order (see `TaskChange`). Polls share one schedule: the
    interval (default: the profile's), spread, jittered and never under the host's floor.

    Raises the contract's errors (a task id the service does not know: NotFound, unless
    it came `from_ledger`). Closing the iterator early stops the polling threads.
    """
    ids = [task_ids] if isinstance(task_ids, str) else list(task_ids)
    with Follower(app, ids, interval, stop_at_ask=stop_at_ask, from_ledger=from_ledger) as one:
        yield from one.changes()
