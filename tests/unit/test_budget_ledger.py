"""The budgets' ledger (issue 35): the schema's migration from a ledger today's released code
wrote (SQLite and PostgreSQL), the windows' calendar, and the check-and-hold as one step
across real processes (`python -m tests.unit.test_budget_ledger reserve WHERE N` is one)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path

import pytest

from svc.store.ledger import Ledger, LedgerStore, open_ledger
from svc.store.ledger.budgets import (
    Budget,
    LimitReached,
    Limits,
    Scope,
    valid_window,
    window_end,
    window_start,
)
from svc.store.ledger.sqlite import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = "http://127.0.0.1:1"
ONE_USD = 1_000_000

# --- the windows ---------------------------------------------------------------------------


def test_a_week_starts_on_monday_and_a_month_on_its_first_day() -> None:
    thursday = datetime(2026, 11, 26, 15, 30).timestamp()
    assert datetime.fromtimestamp(window_start("week", thursday)) == datetime(2026, 11, 23)
    assert datetime.fromtimestamp(window_end("week", thursday) or 0) == datetime(2026, 11, 30)
    assert datetime.fromtimestamp(window_start("month", thursday)) == datetime(2026, 11, 1)
    assert datetime.fromtimestamp(window_end("month", thursday) or 0) == datetime(2026, 12, 1)
    december = datetime(2026, 12, 31, 23, 59).timestamp()
    assert datetime.fromtimestamp(window_end("month", december) or 0) == datetime(2027, 1, 1)
    assert datetime.fromtimestamp(window_end("day", december) or 0) == datetime(2027, 1, 1)
    assert window_start("rolling:24h", thursday) == thursday - 86400
    assert window_start("rolling:7d", thursday) == thursday - 7 * 86400
    assert window_end("rolling:7d", thursday) is None


@pytest.mark.parametrize(
    "window", ["fortnight", "rolling:0h", "rolling:24", "rolling:١h", "rolling:24h ", "WEEK", ""]
)
def test_only_the_named_windows_are_windows(window: str) -> None:
    assert not valid_window(window)


# --- a ledger today's released code wrote --------------------------------------------------


def released_svc(tmp_path: Path) -> Path:
    """The package as it was before schema 7 (the parent of the commit that made it)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git history")
    made = subprocess.run(
        ["git", "log", "--format=%H", "-S", "SCHEMA_VERSION = 7", "--", "src/svc/store/ledger"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not made:
        pytest.skip("no schema 7 in this history")
    tree = tmp_path / "released"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "archive", f"{made[-1]}^", "src/svc"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree / "src"


WRITE_OLD = """
import sys
from pathlib import Path
from svc.store.ledger import Ledger, open_ledger
from svc.store.ledger.sqlite import SCHEMA_VERSION
where, rid = sys.argv[1], sys.argv[2]
ledger = open_ledger(where, "old") if where.startswith("postgresql") else Ledger(Path(where), runner="old")
assert SCHEMA_VERSION == 6, SCHEMA_VERSION
ledger.journal(rid, "http://127.0.0.1:1", "a@example.com", {"task": rid}, "http://127.0.0.1:1")
assert ledger.reserve(rid, rail="mpp", amount_atomic=1500000, origin="http://127.0.0.1:1",
                      valid_before=None, cap_atomic=15000000, since=0.0) is None
ledger.record_signature(rid, rail="mpp", proof=None, fingerprint="f", amount_atomic=1500000,
    pay_to="0xabc", payer="0xdef", network="n", asset="a", valid_before=None,
    origin="http://127.0.0.1:1")
ledger.close()
"""


def open_where(where: str, runner: str) -> LedgerStore:
    if where.startswith("postgresql://"):
        return open_ledger(where, runner)
    return Ledger(Path(where), runner=runner)


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite3")
    return str(request.getfixturevalue("pg_url"))


def test_a_ledger_the_released_code_wrote_gains_budgets_and_keeps_its_money(
    tmp_path: Path, where: str
) -> None:
    rid = "req_" + uuid.uuid4().hex
    released = released_svc(tmp_path)
    subprocess.run(
        [sys.executable, "-c", WRITE_OLD, where, rid],
        env={"PYTHONPATH": str(released), "PATH": "/usr/bin:/bin"},
        check=True,
        cwd=tmp_path,
    )
    ledger = open_where(where, "new")
    try:
        assert ledger.describe().schema_version == SCHEMA_VERSION >= 7
        [old] = ledger.authorizations_of(rid)
        assert (old.runner, old.profile, old.session, old.status) == ("old", None, None, "live")
        fleet = Budget("fleet", "", "day", 3 * ONE_USD)
        ledger.set_budget(fleet)
        assert ledger.budgets() == [fleet]
        assert ledger.budget_used(fleet, time.time()) == 1_500_000  # the old payment counts
        limits = Limits(Scope("default", "new"))
        assert _hold(ledger, ONE_USD, limits) is None  # 2.50 of 3.00
        with pytest.raises(LimitReached) as refused:
            _hold(ledger, ONE_USD, limits)
        assert refused.value.kind == "budget" and refused.value.exposure_atomic == 2_500_000
    finally:
        ledger.close()


def _hold(ledger: LedgerStore, amount: int, limits: Limits) -> int | None:
    rid = "req_" + uuid.uuid4().hex
    ledger.journal(rid, ORIGIN, "a@example.com", {"task": rid}, ORIGIN)
    return ledger.reserve(
        rid,
        rail="mpp",
        amount_atomic=amount,
        origin=ORIGIN,
        valid_before=None,
        cap_atomic=None,
        since=0.0,
        limits=limits,
    )


# --- the check and the hold are one step, across processes ---------------------------------


def test_racing_processes_never_exceed_a_budget_together(where: str) -> None:
    setup = open_where(where, "setup")
    setup.set_budget(Budget("fleet", "", "rolling:24h", 7 * ONE_USD))
    setup.close()
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.unit.test_budget_ledger", "reserve", where, "6"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    held = [int(w.communicate(timeout=120)[0].strip()) for w in workers]
    assert sum(held) == 7, held  # 24 tries of 1.00 USD under 7.00 USD: exactly seven fit
    check = open_where(where, "check")
    try:
        assert sum(a.amount_atomic for a in check.authorizations()) == 7 * ONE_USD
    finally:
        check.close()


def _reserve_many(where: str, count: int) -> None:
    ledger = open_where(where, f"runner-{uuid.uuid4().hex[:6]}")
    held = 0
    for _ in range(count):
        with contextlib.suppress(LimitReached):
            held += _hold(ledger, ONE_USD, Limits(Scope("default", ledger.runner))) is None
    print(held, flush=True)


if __name__ == "__main__":
    _reserve_many(sys.argv[2], int(sys.argv[3]))


# --- the breaker, the rate and the warnings, on the ledger --------------------------------


def _paid(ledger: LedgerStore, limits: Limits, *, refund: bool = False) -> str:
    """A held, signed and decided paid request (refunded in full, or spent)."""
    rid = "req_" + uuid.uuid4().hex
    ledger.journal(rid, ORIGIN, "a@example.com", {"task": rid}, ORIGIN)
    ledger.reserve(
        rid,
        rail="mpp",
        amount_atomic=ONE_USD,
        origin=ORIGIN,
        valid_before=None,
        cap_atomic=None,
        since=0.0,
        limits=limits,
    )
    ledger.record_signature(
        rid,
        rail="mpp",
        proof=None,
        fingerprint="f",
        amount_atomic=ONE_USD,
        pay_to="0xabc",
        payer="0xdef",
        network="n",
        asset="a",
        valid_before=None,
        origin=ORIGIN,
    )
    if refund:
        ledger.mark_refunded(rid, ONE_USD, "refunded")
    else:
        ledger.mark_accepted(
            rid, task_id="t", state="pending", http_status=202, billing=None, receipt=None,
            usage_error=None,
        )  # fmt: skip
    return rid


def test_the_breaker_opens_after_n_failures_in_a_row_and_a_reset_closes_it(where: str) -> None:
    """On both engines: the fleet ledger checks them in its one-round-trip hold (cap_hold)."""
    ledger = open_where(where, "r")
    limits = Limits(Scope("default", "r"), breaker_after=3)
    _paid(ledger, limits, refund=True)
    _paid(ledger, limits)  # a success ends the run
    for _ in range(3):
        _paid(ledger, limits, refund=True)
    with pytest.raises(LimitReached) as tripped:
        _hold(ledger, ONE_USD, limits)
    assert tripped.value.kind == "breaker" and tripped.value.count == 3
    assert ledger.breaker_state("other", 3, time.time()) is None  # another runner pays on
    ledger.reset_breaker("r")
    assert _hold(ledger, ONE_USD, limits) is None


def test_the_hourly_rate_counts_requests_not_signatures(where: str) -> None:
    """On both engines: the fleet ledger checks them in its one-round-trip hold (cap_hold)."""
    ledger = open_where(where, "r")
    limits = Limits(Scope("default", "r"), max_per_hour=2)
    _paid(ledger, limits)
    _paid(ledger, limits)
    with pytest.raises(LimitReached) as limited:
        _hold(ledger, ONE_USD, limits)
    assert limited.value.kind == "rate" and limited.value.resets_at is not None


def test_a_rolling_budget_warns_once_a_span(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.sqlite3", runner="r")
    ledger.set_budget(Budget("profile", "default", "rolling:24h", 10 * ONE_USD))
    told = []
    for _ in range(10):
        limits = Limits(Scope("default", "r"))  # each payment its own, as each submit's
        _hold(ledger, ONE_USD, limits)
        told.append(len(limits.warnings))
    assert told == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0]  # at 8.00 of 10.00 USD, once
