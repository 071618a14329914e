"""`svc watch`'s live status line on stderr (a terminal only): counts per state, or the countdown
of an ask that waits on the person."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from svc.engines.asks import left_text
from svc.words import plural

if TYPE_CHECKING:
    from svc.ui.output import Output, Progress


class Status:
    """The line, redrawn at most every MIN_REFRESH seconds; `states` is the face's own record
    of each task's last state (None: not polled yet), `countdowns` the asks that wait on the
    person (their deadline on our monotonic clock)."""

    MIN_REFRESH = 0.25  # seconds between redraws

    def __init__(self, output: Output, states: dict[str, str | None]) -> None:
        self._output = output
        self._states = states
        self._status: Progress | None = None
        self._drawn = 0.0
        self.countdowns: dict[str, tuple[str, float | None]] = {}  # id -> (what, deadline)
        self._start(f"watching {plural(len(states), 'task')}…")

    def _start(self, message: str) -> None:
        if self._output.stderr_tty and not self._output.json_mode:
            self._status = self._output.progress(message)

    def refresh(self) -> None:
        if self._status is None:
            self._start("watching…")
        if self._status is None or time.monotonic() - self._drawn < self.MIN_REFRESH:
            return
        self._drawn = time.monotonic()
        self._status.update(self._countdown() or self._counts())

    def _counts(self) -> str:
        counts: dict[str, int] = {}
        for state in self._states.values():
            key = state or "not polled yet"
            counts[key] = counts.get(key, 0) + 1
        text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        return f"{plural(len(self._states), 'task')}: {text}"

    def _countdown(self) -> str | None:
        for tid, (what, deadline) in self.countdowns.items():
            left = None if deadline is None else int(max(0.0, deadline - time.monotonic()))
            return f"task {tid} {what} · {left_text(left)}"
        return None

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
