"""The lines a batch has read ahead for its workers: refilled in bursts, not a line at a time.

The feeder (the main thread) parses lines and queues them while the workers send them. A queue
bounded at twice the workers woke the feeder each time a worker took a line, and every wake-up
was a hand-off of the GIL among eight busy threads: 180 ms of the feeder's CPU for 1000 lines,
where the same parsing costs 15 ms alone. Here the feeder reads ahead up to `high` lines (or
`max_chars` of task text, whichever comes first: a file of long tasks holds fewer) and, once
there, sleeps until the workers have taken the backlog down to `low`: one wake-up a refill.

The end of the work is one `None` per worker, queued after the lines (`finish`); `drop` empties
the backlog for an interrupt (a dropped line was never sent: a re-run sends it).
"""

from __future__ import annotations

import threading
from collections import deque

from svc.engines.batch_file import Line

HIGH_LINES = 256
LOW_LINES = 64
MAX_CHARS = 8 * 1024 * 1024  # of task text and e-mail held for the workers at once


def _size(line: Line) -> int:
    return len(line.body.get("task", "")) + len(line.body.get("email", ""))


class Backlog:
    """A bounded queue of lines, with a low-water mark for the one that fills it."""

    def __init__(
        self, high: int = HIGH_LINES, low: int = LOW_LINES, max_chars: int = MAX_CHARS
    ) -> None:
        self.high: int = high
        self.low: int = low
        self.max_chars: int = max_chars
        self._items: deque[tuple[Line | None, int]] = deque()
        self._chars = 0
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)  # a worker waits for an item
        self._room = threading.Condition(self._lock)  # the feeder waits for the low-water mark

    def put(self, line: Line) -> None:
        """Queue a line; when the backlog is full, wait until the workers drained it."""
        size = _size(line)
        with self._lock:
            if self._full():
                while self._items and not self._drained():
                    self._room.wait()
            self._append(line, size)

    def finish(self, workers: int) -> None:
        """Each worker's end: after the lines still queued, never waiting for room."""
        with self._lock:
            for _ in range(workers):
                self._append(None, 0)

    def get(self) -> Line | None:
        """The next line for a worker (None: no more), waiting for one."""
        with self._lock:
            while not self._items:
                self._ready.wait()
            line, size = self._items.popleft()
            self._chars -= size
            if self._drained():
                self._room.notify()
            return line

    def drop(self) -> None:
        """Forget the queued lines (an interrupt): they were never sent. The feeder's own call
        (after it stopped putting): a line put while another thread drops would still go."""
        with self._lock:
            self._items.clear()
            self._chars = 0
            self._room.notify()

    def _append(self, line: Line | None, size: int) -> None:
        self._items.append((line, size))
        self._chars += size
        self._ready.notify()

    def _full(self) -> bool:
        return len(self._items) >= self.high or self._chars >= self.max_chars

    def _drained(self) -> bool:
        return len(self._items) <= self.low and self._chars <= self.max_chars // 2
