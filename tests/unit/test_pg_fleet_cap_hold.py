"""The fleet's daily cap is read at the hold itself (cli-contract, "Payment behaviour": every
runner obeys one value): a runner that read the value at start and has held since must never
hold under it once the fleet's operator changed it. The one-script hold assumes the value last
seen and checks that assumption in its own statement; the serial fall-back reads it afresh."""

from __future__ import annotations

import pytest
from tests.pg_trace import traced
from tests.unit.test_pg_cap_hold import ONE_USD, ORIGIN, _db, _journaled

from svc.errors import UsageError
from svc.store.ledger import LedgerStore, open_ledger
from svc.store.ledger.fleet_settings import FLEET, CapReached, CapRule

KEY = "daily_cap_usd"


def _read(raw: str) -> int | None:
    """The stored text as an atomic cap; one that is not a number refuses (exit 2)."""
    if not raw.isdigit():
        raise UsageError(f"the fleet ledger's {KEY} must be an amount, not {raw!r}")
    return int(raw) * ONE_USD


def _rule(seen: str | None, own: int | None = 100 * ONE_USD) -> CapRule:
    """A runner's rule: its own cap, and the fleet's value as it read it at start."""
    return CapRule(own, "env SVC_DAILY_CAP", KEY, read=_read, seen=seen)


def _hold(ledger: LedgerStore, rid: str, amount: int, rule: CapRule) -> int | None:
    _journaled(ledger, rid)
    return _reserve(ledger, rid, amount, rule)


def _reserve(ledger: LedgerStore, rid: str, amount: int, rule: CapRule) -> int | None:
    return ledger.reserve(
        rid, rail="mpp", amount_atomic=amount, origin=ORIGIN, valid_before=None, since=0.0,
        cap=rule,
    )  # fmt: skip


@pytest.fixture
def fleet(pg_url: str):  # type: ignore[no-untyped-def]
    runner, operator = open_ledger(pg_url, "runner"), open_ledger(pg_url, "operator")
    yield runner, operator
    runner.close()
    operator.close()


def test_a_lowered_fleet_cap_refuses_a_runner_that_read_the_old_one(
    fleet: tuple[LedgerStore, LedgerStore],
) -> None:
    runner, operator = fleet
    operator.set_fleet_setting(KEY, "30")
    rule = _rule("30")
    assert _hold(runner, "req_one", 5 * ONE_USD, rule) is None
    operator.set_fleet_setting(KEY, "6")  # another process lowers it below 5 + 5
    with pytest.raises(CapReached) as caught:
        _hold(runner, "req_two", 5 * ONE_USD, rule)
    assert (caught.value.cap.atomic, caught.value.cap.source) == (6 * ONE_USD, FLEET)
    assert caught.value.exposure_atomic == 5 * ONE_USD
    assert runner.authorizations_of("req_two") == []  # nothing held
    assert rule.seen == "6"  # the next hold's one script assumes the value now stored


def test_a_cap_set_after_the_runner_read_none_binds_it(
    fleet: tuple[LedgerStore, LedgerStore],
) -> None:
    runner, operator = fleet
    rule = _rule(None, own=None)  # no cap of its own, none in the fleet at start
    assert _hold(runner, "req_one", 5 * ONE_USD, rule) is None
    operator.set_fleet_setting(KEY, "6")
    with pytest.raises(CapReached):
        _hold(runner, "req_two", 5 * ONE_USD, rule)


def test_a_removed_fleet_cap_gives_the_runner_its_own_again(
    fleet: tuple[LedgerStore, LedgerStore],
) -> None:
    runner, operator = fleet
    operator.set_fleet_setting(KEY, "1")
    rule = _rule("1", own=3 * ONE_USD)
    with pytest.raises(CapReached) as caught:
        _hold(runner, "req_one", 2 * ONE_USD, rule)
    assert caught.value.cap.source == FLEET
    operator.set_fleet_setting(KEY, None)
    assert _hold(runner, "req_one", 2 * ONE_USD, rule) is None  # its own 3.00 USD
    with pytest.raises(CapReached) as caught:
        _hold(runner, "req_two", 2 * ONE_USD, rule)
    assert (caught.value.cap.atomic, caught.value.cap.source) == (3 * ONE_USD, "env SVC_DAILY_CAP")


def test_a_fleet_value_that_is_not_a_cap_refuses_until_it_is_mended(
    fleet: tuple[LedgerStore, LedgerStore],
) -> None:
    """Written around `svc config set`'s check (by hand in the database): exit 2, nothing held,
    and the bad text is never assumed by a later hold once the operator mends it."""
    runner, operator = fleet
    rule = _rule(None)
    operator.set_fleet_setting(KEY, "lots")
    with pytest.raises(UsageError) as caught:
        _hold(runner, "req_one", ONE_USD, rule)
    assert caught.value.exit_code == 2 and runner.authorizations_of("req_one") == []
    operator.set_fleet_setting(KEY, "30")
    assert _hold(runner, "req_one", ONE_USD, rule) is None


def test_the_fleet_hold_keeps_its_one_round_trip_when_the_value_is_unchanged(
    fleet: tuple[LedgerStore, LedgerStore],
) -> None:
    """The common case: the value this runner last saw is the one stored; the check of that
    is a condition of the one statement, not a read of its own (libpq's trace: tests/pg_trace.py)."""
    runner, operator = fleet
    operator.set_fleet_setting(KEY, "30")
    _journaled(runner, "req_traced")
    with traced(_db(runner)._conn) as trips:
        assert _reserve(runner, "req_traced", ONE_USD, _rule("30")) is None
    (statements,) = trips  # one round trip
    assert "FROM settings" in statements[3] and statements[-1] == "COMMIT", statements
