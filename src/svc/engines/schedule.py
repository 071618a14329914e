"""When to poll each of many tasks: a min-heap of next-poll times, jittered, never too often.

* The first polls are spread evenly over the first interval (one task: at once), so starting a
  watch of 1000 tasks is not a burst of 1000 requests.
* After each answer the task's next poll is due `interval * U(1.0, 1.2)` after the answer
  arrived. Measured from the answer, not from when the request left, two polls of one task
  are always at least `interval` apart at the server, whatever the latency.
* At real-host intervals (15 s or more) a task whose state did not change backs off (x1.5 per
  unchanged poll) up to 60 s, the top of the spec's 15-60 s window; any change brings it back
  to the interval. Shorter intervals (the loopback sandbox) stay fixed, so tests stay fast.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Callable, Iterable

BACKOFF = 1.5
JITTER = 0.2
BACKOFF_FROM = 15.0  # the spec's window: poll every 15 to 60 s while a task is live
MAX_CEILING = 60.0


def ceiling_for(interval: float) -> float:
    return max(interval, MAX_CEILING) if interval >= BACKOFF_FROM else interval


class PollSchedule:
    def __init__(
        self,
        task_ids: Iterable[str],
        interval: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.interval = interval
        self.ceiling: float = ceiling_for(interval)
        self.clock = clock
        self.rng: random.Random = rng or random.Random()  # noqa: S311 - jitter, not secrecy
        self._heap: list[tuple[float, int, str]] = []
        self._current: dict[str, float] = {}  # task id -> its present interval (backoff)
        self._seq = 0
        ids = list(dict.fromkeys(task_ids))
        start = clock()
        for index, task_id in enumerate(ids):
            spread = interval * index / len(ids)
            self._current[task_id] = interval
            self._push(start + spread, task_id)

    def __len__(self) -> int:
        return len(self._heap)

    def _push(self, due: float, task_id: str) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (due, self._seq, task_id))

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now: float | None = None) -> str | None:
        """The next task whose poll is due now, taken off the schedule (None if none is due)."""
        now = self.clock() if now is None else now
        if self._heap and self._heap[0][0] <= now:
            return heapq.heappop(self._heap)[2]
        return None

    def polled(self, task_id: str, *, changed: bool) -> float:
        """Put a task back after an answer; returns the delay until its next poll."""
        if changed:
            current = self.interval
        else:
            current = min(self.ceiling, self._current.get(task_id, self.interval) * BACKOFF)
        self._current[task_id] = current
        delay = current * self.rng.uniform(1.0, 1.0 + JITTER)
        self._push(self.clock() + delay, task_id)
        return delay

    def drop(self, task_id: str) -> None:
        """Forget a task that needs no more polls (it was popped already)."""
        self._current.pop(task_id, None)
