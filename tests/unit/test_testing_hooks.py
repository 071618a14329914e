"""One crash-point mechanism (issue 17.3): every named point in src/svc is a documented step of
`SVC_TEST_CRASH_AT`, and no second environment variable exists."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from svc.testing_hooks import DISK_FULL_ENV, ENV, SIGNAL_ENV, STEPS, crash_point

SRC = Path(__file__).resolve().parents[2] / "src" / "svc"


def test_every_crash_point_is_a_known_step_and_every_step_is_used() -> None:
    text = "\n".join(p.read_text() for p in SRC.rglob("*.py"))
    used = set(re.findall(r"crash_point\(\"([a-z_]+)\"\)", text))
    used |= set(re.findall(r"crash_after=\"([a-z_]+)\"", text))
    assert used == set(STEPS)


def test_one_crash_variable() -> None:
    """One variable names the step; the other only picks the signal sent there (29.3)."""
    text = "\n".join(p.read_text() for p in SRC.rglob("*.py"))
    assert set(re.findall(r"SVC_TEST_CRASH_[A-Z]+", text)) == {ENV, SIGNAL_ENV}


def _child_status(step: str, env: dict[str, str], *, passed_one: bool = False) -> int:
    """Fork; the child sets `env` (as the fork server's children do, after the fork; after
    passing a first point if `passed_one`), passes `step` and exits 0 if it lives. The child's
    wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            if passed_one:
                crash_point("ledger_written")
            os.environ.update(env)
            crash_point(step)
        finally:
            os._exit(0)
    return os.waitpid(pid, 0)[1]


def test_the_steps_are_read_once_and_again_in_a_forked_child() -> None:
    """The variables are read at the first point a process passes, not at every point (a
    batch passes five a task); a forked child that sets its own still crashes where told."""
    assert ENV not in os.environ and DISK_FULL_ENV not in os.environ
    crash_point("proof_sent")  # this process: read now, nothing asked
    status = _child_status("proof_sent", {ENV: "proof_sent"})
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert _child_status("proof_sent", {ENV: "ledger_written"}) == 0  # another step: lives
    assert _child_status("proof_sent", {}) == 0
    # Set after the process passed its first point: not read again (the documented cost).
    assert _child_status("proof_sent", {ENV: "proof_sent"}, passed_one=True) == 0
