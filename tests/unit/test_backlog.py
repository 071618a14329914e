"""The batch's read-ahead (svc/engines/backlog.py): every line reaches a worker once and in
order, the feeder waits only when the backlog is full and then until the low-water mark (one
wake-up a refill, not one a line), long tasks fill it sooner, and an interrupt drops what is
queued while each worker still gets its end."""

from __future__ import annotations

import threading
import time

from svc.engines.backlog import Backlog
from svc.engines.batch_file import Line


def _line(n: int, task: str = "t") -> Line:
    return Line(n, {"task": task, "email": "a@b.co"}, f"req_{n}")


class _Counted(threading.Condition):
    """A condition that counts how often it was waited on."""

    waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        type(self).waits += 1
        return super().wait(timeout)


def _drain(backlog: Backlog, got: list[int], pause: float = 0.0) -> None:
    while (line := backlog.get()) is not None:
        got.append(line.number)
        time.sleep(pause)


def _through(backlog: Backlog, lines: int, pause: float) -> list[int]:
    """Feed `lines` lines to one worker that takes a line every `pause` seconds; what it got."""
    got: list[int] = []
    worker = threading.Thread(target=_drain, args=(backlog, got, pause))
    worker.start()
    for n in range(lines):
        backlog.put(_line(n))
    backlog.finish(1)
    worker.join(10)
    assert not worker.is_alive()
    return got


def test_every_line_reaches_a_worker_once_in_order_then_each_end() -> None:
    assert _through(Backlog(high=4, low=1), 50, 0.001) == list(range(50))


def test_a_full_backlog_wakes_the_feeder_once_a_refill_not_once_a_line() -> None:
    backlog = Backlog(high=16, low=4)
    backlog._room = _Counted(backlog._lock)  # type: ignore[assignment]
    _Counted.waits = 0
    assert _through(backlog, 400, 0.0005) == list(range(400))
    # A refill is 12 lines (16 down to 4): about 32 waits; a queue bounded at 16 without the
    # mark waits once for each line past the first 16 (384).
    assert 0 < _Counted.waits <= 400 // 12 + 2, _Counted.waits


def test_long_tasks_fill_it_sooner() -> None:
    backlog = Backlog(high=100, low=10, max_chars=1000)
    for n in range(2):
        backlog.put(_line(n, "x" * 600))  # the second reaches the character bound
    assert backlog._full()
    done = threading.Event()

    def third() -> None:
        backlog.put(_line(2, "x" * 600))
        done.set()

    feeder = threading.Thread(target=third)
    feeder.start()
    assert not done.wait(0.2)  # full: it waits for the workers
    assert backlog.get() is not None and backlog.get() is not None  # drained below the half
    assert done.wait(5)
    feeder.join(5)


def test_an_interrupt_drops_the_queued_lines_and_still_ends_each_worker() -> None:
    backlog = Backlog()
    for n in range(10):
        backlog.put(_line(n))
    backlog.drop()
    backlog.finish(3)
    assert [backlog.get() for _ in range(3)] == [None, None, None]
