"""One crash-point mechanism (issue 17.3): every named point in src/svc is a documented step of
`SVC_TEST_CRASH_AT`, and no second environment variable exists."""

from __future__ import annotations

import re
from pathlib import Path

from svc.testing_hooks import ENV, SIGNAL_ENV, STEPS

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
