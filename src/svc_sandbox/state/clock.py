"""Sandbox time: real time anchored on the monotonic clock, sped up and shifted on demand."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime


class SandboxClock:
    """now = anchor_wall + (monotonic - anchor_mono) * speed + offset.

    Monotonic anchoring keeps sandbox time steady when the host's wall clock jumps;
    changing the speed re-anchors so time never goes backwards.
    """

    def __init__(
        self,
        speed: float = 1.0,
        *,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock = threading.Lock()
        self._wall = wall
        self._monotonic = monotonic
        self._initial_speed = self._checked(speed)
        self._anchor(self._wall(), self._initial_speed)

    @staticmethod
    def _checked(speed: float) -> float:
        if not speed > 0:
            raise ValueError("clock speed must be > 0")
        return float(speed)

    def _anchor(self, at: float, speed: float) -> None:
        self._anchor_sandbox = at
        self._anchor_mono = self._monotonic()
        self._speed = speed

    def _seconds(self) -> float:
        return self._anchor_sandbox + (self._monotonic() - self._anchor_mono) * self._speed

    def timestamp(self) -> float:
        """Sandbox time as POSIX seconds."""
        with self._lock:
            return self._seconds()

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.timestamp(), UTC)

    @property
    def speed(self) -> float:
        with self._lock:
            return self._speed

    @property
    def offset_seconds(self) -> float:
        """How far sandbox time is ahead of real wall time."""
        with self._lock:
            return self._seconds() - self._wall()

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the sandbox clock only moves forward")
        with self._lock:
            self._anchor(self._seconds() + seconds, self._speed)

    def set_speed(self, speed: float) -> None:
        speed = self._checked(speed)
        with self._lock:
            self._anchor(self._seconds(), speed)

    def reset(self) -> None:
        """Back to real time at the speed the sandbox was started with."""
        with self._lock:
            self._anchor(self._wall(), self._initial_speed)
