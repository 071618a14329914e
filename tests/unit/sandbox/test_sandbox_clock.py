"""The sandbox clock: speed, advance, monotonic anchoring."""

from __future__ import annotations

import pytest

from svc_sandbox.state.clock import SandboxClock


class FakeTime:
    def __init__(self) -> None:
        self.wall = 1_700_000_000.0
        self.mono = 50.0

    def tick(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds


def make(speed: float = 1.0) -> tuple[SandboxClock, FakeTime]:
    fake = FakeTime()
    clock = SandboxClock(speed, wall=lambda: fake.wall, monotonic=lambda: fake.mono)
    return clock, fake


def test_runs_at_speed_and_advances() -> None:
    clock, fake = make(speed=10)
    start = clock.timestamp()
    fake.tick(2)
    assert clock.timestamp() - start == pytest.approx(20)
    clock.advance(100)
    assert clock.timestamp() - start == pytest.approx(120)
    assert clock.now().tzinfo is not None


def test_speed_change_is_continuous_and_wall_jumps_do_not_matter() -> None:
    clock, fake = make()
    fake.tick(5)
    before = clock.timestamp()
    clock.set_speed(3)
    assert clock.timestamp() == pytest.approx(before)
    fake.wall -= 3600  # the host clock jumps back; sandbox time does not
    fake.mono += 1
    assert clock.timestamp() == pytest.approx(before + 3)


def test_rejects_bad_input_and_resets() -> None:
    clock, _fake = make(speed=2)
    with pytest.raises(ValueError):
        clock.set_speed(0)
    with pytest.raises(ValueError):
        clock.advance(-1)
    clock.advance(500)
    clock.set_speed(7)
    clock.reset()
    assert clock.speed == 2
    assert clock.offset_seconds == pytest.approx(0)
