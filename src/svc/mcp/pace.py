"""The server's real-time durations, and a test-only way to run them faster.

`wait_for_task` stops at WAIT_BUDGET_SECONDS (before the clients' 60 s request timeout) and a
working call sends progress every BEAT_SECONDS. A test that proves those limits against a real
client would wait that long in real time (44 s for one test). `SVC_TEST_MCP_TIME_SCALE=0.2`
runs both at a fifth of the pace, and the test scales the client's timeout by the same factor
(tests/ts/drive.mjs), so every ratio the test checks is the real one.

Tests only: a value outside (0, 1] (or none) is the real pace; the pace is never slowed down.
"""

from __future__ import annotations

import os

from svc.operations.watch import WAIT_BUDGET_SECONDS

TIME_SCALE_ENV = "SVC_TEST_MCP_TIME_SCALE"
# While a call works (a wait between polls, a person typing a code), progress goes out this
# often: a host that resets its request timeout on progress keeps the call alive.
BEAT_SECONDS = 5.0


def time_scale() -> float:
    """The factor the test asked for, else 1 (read per call: cheap, and tests set it late)."""
    raw = os.environ.get(TIME_SCALE_ENV)
    if not raw:
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        return 1.0
    return scale if 0 < scale <= 1 else 1.0


def wait_budget() -> float:
    """The longest one wait_for_task call waits, in seconds."""
    return WAIT_BUDGET_SECONDS * time_scale()


def beat_seconds() -> float:
    """The spacing of the progress a working call sends, in seconds."""
    return BEAT_SECONDS * time_scale()
