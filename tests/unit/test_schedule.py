"""The poll schedule: spread start, jitter, minimum interval per task, backoff to 60 s."""

from __future__ import annotations

import random

import pytest

from svc.engines.schedule import PollSchedule


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_first_polls_are_spread_over_one_interval() -> None:
    clock = Clock()
    schedule = PollSchedule([f"t{i}" for i in range(100)], 15.0, clock=clock)
    assert schedule.pop_due() == "t0"  # the first one at once
    assert schedule.pop_due() is None
    dues = []
    while (nxt := schedule.next_due()) is not None:
        clock.now = nxt
        schedule.pop_due()
        dues.append(nxt - 1000.0)
    assert len(dues) == 99
    assert dues == sorted(dues) and dues[-1] < 15.0
    assert max(b - a for a, b in zip([0.0, *dues], dues, strict=False)) <= 0.16  # no burst, no gap


def test_a_task_is_never_due_before_its_interval() -> None:
    clock = Clock()
    schedule = PollSchedule(["a"], 0.5, clock=clock, rng=random.Random(1))
    for changed in (True, False, False, True):
        assert schedule.pop_due() == "a"
        delay = schedule.polled("a", changed=changed)
        assert 0.5 <= delay <= 0.6  # below 15 s the interval is fixed, jitter only adds
        assert schedule.pop_due(clock.now + 0.4999) is None
        clock.now += delay


def test_real_host_intervals_back_off_to_60_s_and_reset_on_change() -> None:
    clock = Clock()
    schedule = PollSchedule(["a"], 15.0, clock=clock, rng=random.Random(2))
    schedule.pop_due()
    delays = []
    for _ in range(8):
        delays.append(schedule.polled("a", changed=False))
        clock.now += delays[-1]
        assert schedule.pop_due() == "a"
    assert all(d >= 15.0 for d in delays)
    assert (
        delays[0] >= 22.5 and max(delays) <= 72.0
    )  # x1.5 per unchanged poll, capped at 60 (+jitter)
    assert 15.0 <= schedule.polled("a", changed=True) <= 18.0


def test_bad_interval() -> None:
    with pytest.raises(ValueError, match="positive"):
        PollSchedule(["a"], 0)
